// id_gen C++ library: KSUID (Segment's K-Sortable Unique IDentifier), the SQL type ksuid.
//
// 20 bytes: a 32-bit big-endian count of seconds since the KSUID epoch 1,400,000,000
// (2014-05-13 16:53:20 UTC), then a 128-bit random payload. Text: 27 base62 characters
// (0-9A-Za-z), left-padded with '0'. Byte order = time order = text order (bytewise). Encoded and
// decoded by the extension's own code (src/core/types/ksuid), with the extension's errors.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "id_gen/error.hpp"

namespace id_gen {

using Bytes20 = std::array<std::uint8_t, 20>;
using sys_seconds = std::chrono::time_point<std::chrono::system_clock, std::chrono::seconds>;

class Ksuid {
public:
    static constexpr std::size_t text_size = 27;
    static constexpr std::int64_t epoch_unix_seconds = 1400000000;

    constexpr Ksuid() noexcept = default;  // all zero bits: 000000000000000000000000000
    constexpr explicit Ksuid(const Bytes20& bytes) noexcept : bytes_(bytes) {}

    // 27 base62 characters. Other lengths and characters throw errc::invalid_syntax; a value
    // above aWgEPTl1tmebfsQzFP4bxwgy80V errc::out_of_range.
    [[nodiscard]] static Ksuid parse(std::string_view text);
    [[nodiscard]] static std::optional<Ksuid> try_parse(std::string_view text) noexcept;

    // The smallest and the largest KSUID of a second (SQL: ksuid_lower, ksuid_upper), and one
    // with a fresh payload (SQL: gen_ksuid(timestamptz)); errc::time_out_of_range outside
    // 2014-05-13 16:53:20 .. 2150-06-19 23:21:35 UTC.
    [[nodiscard]] static Ksuid lower(sys_seconds t);
    [[nodiscard]] static Ksuid upper(sys_seconds t);
    [[nodiscard]] static Ksuid random_at(sys_seconds t);

    [[nodiscard]] std::string to_string() const;
    // Writes text_size characters (no terminator) and returns the end.
    char* write(char* out) const noexcept;

    // The time inside the ID (SQL: ksuid_time).
    [[nodiscard]] std::int64_t unix_seconds() const noexcept;
    [[nodiscard]] sys_seconds time() const noexcept { return sys_seconds(std::chrono::seconds(unix_seconds())); }
    // The 16-byte payload.
    [[nodiscard]] std::array<std::uint8_t, 16> payload() const noexcept;

    [[nodiscard]] constexpr const Bytes20& bytes() const noexcept { return bytes_; }

    friend bool operator==(const Ksuid& a, const Ksuid& b) noexcept { return a.bytes_ == b.bytes_; }
    friend bool operator!=(const Ksuid& a, const Ksuid& b) noexcept { return a.bytes_ != b.bytes_; }
    friend bool operator<(const Ksuid& a, const Ksuid& b) noexcept { return a.bytes_ < b.bytes_; }
    friend bool operator>(const Ksuid& a, const Ksuid& b) noexcept { return a.bytes_ > b.bytes_; }
    friend bool operator<=(const Ksuid& a, const Ksuid& b) noexcept { return a.bytes_ <= b.bytes_; }
    friend bool operator>=(const Ksuid& a, const Ksuid& b) noexcept { return a.bytes_ >= b.bytes_; }

private:
    Bytes20 bytes_{};
};

// KSUIDs as gen_ksuid() makes them within one session: the clock's second and 128 random bits;
// within one second, or when the clock stands still or steps back, the next ID is the last one
// plus 1 (in its payload; when that is all ones, the next second), so IDs never repeat or go
// down. next() may be called from any number of threads (one lock per object; the IDs of one
// object strictly increase in the order issued). Randomness from the kernel CSPRNG in blocks per
// object; after fork() the child drops its block and its last ID.
class KsuidGenerator {
public:
    // Unix time in nanoseconds; the system clock (CLOCK_REALTIME) unless given.
    using Clock = std::function<std::int64_t()>;

    KsuidGenerator();
    explicit KsuidGenerator(Clock clock);
    ~KsuidGenerator();
    KsuidGenerator(const KsuidGenerator&) = delete;
    KsuidGenerator& operator=(const KsuidGenerator&) = delete;

    // errc::entropy_failure; errc::time_out_of_range outside the KSUID range.
    [[nodiscard]] Ksuid next();

private:
    struct State;
    std::unique_ptr<State> s_;
};

}  // namespace id_gen

template <>
struct std::hash<id_gen::Ksuid> {
    std::size_t operator()(const id_gen::Ksuid& k) const noexcept;
};
