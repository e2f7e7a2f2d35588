// id_gen core: randomness.
//
// Generators take a ByteSource so unit tests can drive them with fixed bytes. The production
// source is EntropyPool: a ChaCha20 keystream (RFC 8439) under a key drawn from the kernel CSPRNG
// (getrandom(2)), made in blocks so a 10-byte draw costs a memcpy instead of a system call or an
// OpenSSL round trip.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace idgen {

// Fills `out` with `n` unpredictable bytes; returns false if no bytes could be had.
class ByteSource {
public:
    [[nodiscard]] virtual bool fill(std::uint8_t* out, std::size_t n) noexcept = 0;

protected:
    ~ByteSource() = default;
};

// A per-process buffer of CSPRNG output: a user-space ChaCha20 generator with fast key erasure,
// keyed from the kernel CSPRNG.
//  * Each refill runs ChaCha20 under the current key for 65 blocks: block 0's first 32 bytes become
//    the next key (the old one is overwritten before any byte of the batch is handed out), blocks
//    1..64 fill the buffer. A key is used for one batch only, so counter and nonce never repeat
//    under a key; a later disclosure of the pool's memory reveals neither earlier output (its key is
//    gone, handed-out bytes are erased) nor the bytes handed out of the current batch.
//  * A new key comes from the kernel CSPRNG on first use, after fork (the owner check below) and
//    after every kReseedBytes of output.
// Costs one getrandom(2) call per kReseedBytes instead of one per kBlock bytes; the kernel's own
// generator (also ChaCha20) costs about 3 ns a byte through the system call, this one well under 1.
//
// The owner passes its process id (process_id(), never a value fixed at start-up) with each draw.
// A pool that was filled under another pid (a buffer inherited across fork) is discarded before
// use, so two processes never hand out the same bytes. Nothing is drawn until the first request,
// so a pool in a preloaded library is still empty when the postmaster forks.
class EntropyPool final : public ByteSource {
public:
    static constexpr std::size_t kBlock = 4096;
    static constexpr std::uint64_t kReseedBytes = std::uint64_t{1} << 20;  // a fresh kernel key per MiB

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
    std::uint8_t key_[32] = {};
    std::uint64_t since_reseed_ =
        kReseedBytes;  // bytes made under keys since the last kernel key; >= kReseedBytes: reseed
};

// Reads n bytes straight from the kernel CSPRNG.
[[nodiscard]] bool os_random(std::uint8_t* out, std::size_t n) noexcept;

// The calling process's id, as getpid() gives it, for state that must never be shared by two
// processes (a pool's keystream, a generator's last ID). getpid() is a system call (hundreds of ns
// on a VM, more than the rest of an ID), so it is read once and again after every fork(): a handler
// registered with pthread_atfork on the first call marks the cached value stale in each child. A
// PostgreSQL backend's MyProcPid is NOT such an id: it is set when the postmaster starts the
// backend, and a process that a backend forks (a procedural language that calls fork()) keeps it.
[[nodiscard]] int process_id() noexcept;

// A generator's state, one per process: get() hands out the state of this process, a fresh
// (default-constructed) one in a process other than the one that used it last, so a process forked
// after the state was used never continues its parent's sequence (the same ULID + 1, the same KSUID
// payload + 1). G is trivially destructible and default-constructible (a global in a backend).
template <class G>
class PerProcess {
    static_assert(std::is_trivially_destructible_v<G> && std::is_default_constructible_v<G>);

public:
    constexpr PerProcess() noexcept = default;

    [[nodiscard]] G& get() noexcept {
        const int pid = process_id();
        if (pid != owner_pid_) {
            state_ = G{};
            owner_pid_ = pid;
        }
        return state_;
    }

private:
    G state_{};
    int owner_pid_ = -1;
};

}  // namespace idgen
