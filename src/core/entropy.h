// id_gen core: randomness.
//
// Generators take a ByteSource so unit tests can drive them with fixed bytes. The production
// source is EntropyPool: bytes from the kernel CSPRNG (getrandom(2)), drawn in blocks so a
// 10-byte draw costs a memcpy instead of a system call or an OpenSSL round trip.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace idgen {

// Fills `out` with `n` unpredictable bytes; returns false if no bytes could be had.
class ByteSource {
public:
    [[nodiscard]] virtual bool fill(std::uint8_t* out, std::size_t n) noexcept = 0;

protected:
    ~ByteSource() = default;
};

// A per-process buffer of kernel CSPRNG output.
//
// The owner passes its process id with each draw. A pool that was filled under another pid
// (a buffer inherited across fork) is discarded before use, so two processes never hand out the
// same bytes. Nothing is drawn until the first request, so a pool in a preloaded library is
// still empty when the postmaster forks.
class EntropyPool final : public ByteSource {
public:
    static constexpr std::size_t kBlock = 4096;

    constexpr EntropyPool() noexcept = default;

    void set_owner(int pid) noexcept {
        if (pid != owner_pid_) {
            wipe();
            owner_pid_ = pid;
        }
    }
    // Inline when the buffer holds the n bytes (a call through EntropyPool&, not ByteSource&).
    [[nodiscard]] bool fill(std::uint8_t* out, std::size_t n) noexcept override {
        if (n > kBlock || pos_ > kBlock - n) return fill_refilling(out, n);
        std::memcpy(out, buf_ + pos_, n);
        std::memset(buf_ + pos_, 0, n);  // erased: a later memory disclosure cannot replay them
        pos_ += n;
        return true;
    }

private:
    [[nodiscard]] bool fill_refilling(std::uint8_t* out, std::size_t n) noexcept;
    void wipe() noexcept;
    [[nodiscard]] bool refill() noexcept;

    std::uint8_t buf_[kBlock] = {};
    std::size_t pos_ = kBlock;  // kBlock = empty
    int owner_pid_ = -1;
};

// Reads n bytes straight from the kernel CSPRNG.
[[nodiscard]] bool os_random(std::uint8_t* out, std::size_t n) noexcept;

}  // namespace idgen
