// id_gen core: UUID version 7 (RFC 9562 §5.7) and the time fields of versions 1 and 7.
//
// Layout, big-endian: 48 bits of Unix milliseconds | version 7 (4 bits) | rand_a (12 bits) |
// variant 0b10 (2 bits) | rand_b (62 bits). rand_a carries the sub-millisecond fraction of the
// clock reading in 1/4096 ms units (RFC 9562 §6.2 method 3, as PostgreSQL 18 does), so byte order
// = time order down to ~244 ns.
//
// Monotonicity (as PostgreSQL 18): each generator remembers the last time it used and never uses a
// time less than 245 ns after it, the smallest step that always changes the 12-bit fraction. A
// clock that stands still or steps back therefore never yields a smaller or repeated ID: the
// generator's time runs ahead of the clock until the clock catches up (RFC 9562 §6.2 allows this).
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/base/bytes.h"
#include "core/base/entropy.h"
#include "core/base/result.h"

namespace idgen {

struct Uuid {
    std::uint8_t bytes[16];
};

inline constexpr std::int64_t kNsPerMs = 1000000;
inline constexpr std::int64_t kUuidv7MaxMs = (std::int64_t{1} << 48) - 1;
inline constexpr int kUuidv7FractionBits = 12;
// The smallest step in ns that always increases (ms, 12-bit fraction): ceil(1e6 / 4096) = 245.
inline constexpr std::int64_t kUuidv7StepNs = kNsPerMs / (1 << kUuidv7FractionBits) + 1;

// The 12-bit rand_a fraction of a sub-millisecond part in [0, 1e6) ns: floor(sub_ns * 4096 / 1e6).
[[nodiscard]] constexpr std::uint16_t uuidv7_fraction(std::int64_t sub_ns) noexcept {
    return static_cast<std::uint16_t>((sub_ns << kUuidv7FractionBits) / kNsPerMs);
}

// The microseconds within the millisecond that a 12-bit fraction stands for: the midpoint of the
// fraction's 244 ns interval, rounded to the nearest microsecond, at most 999. Exact (the
// inverse of uuidv7_fraction) for any whole-microsecond reading; within 1 µs of any reading.
[[nodiscard]] constexpr std::int64_t uuidv7_fraction_us(std::uint16_t fraction) noexcept {
    const std::int64_t mid_ns = ((2 * std::int64_t{fraction} + 1) * kNsPerMs) >> (kUuidv7FractionBits + 1);
    const std::int64_t us = (mid_ns + 500) / 1000;
    return us > 999 ? 999 : us;
}

// The UUIDv7 of millisecond `ms` (in range) with these rand_a (low 12 bits used) and rand_b (low
// 62 bits used).
[[nodiscard]] inline Uuid uuidv7_compose_bits(std::int64_t ms, std::uint16_t rand_a, std::uint64_t rand_b) noexcept {
    Uuid id{};
    const std::uint64_t hi = (static_cast<std::uint64_t>(ms) << 16) | 0x7000u | (rand_a & 0x0FFFu);
    const std::uint64_t lo = (rand_b & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL;
    store_be64(id.bytes, hi);
    store_be64(id.bytes + 8, lo);
    return id;
}

// A UUIDv7 for millisecond `ms` and sub-millisecond part `sub_ns` (0 <= sub_ns < 1e6), with 62
// fresh random bits. kTimeOutOfRange when ms is outside [0, 2^48); kEntropyFailure when no
// random bytes could be had. A template over the byte source (a ByteSource, or an EntropyPool
// whose draws then inline), defined here so a generator's call is one straight line.
template <class Source>
[[nodiscard]] Result<Uuid> uuidv7_compose(std::int64_t ms, std::int64_t sub_ns, Source& random) noexcept {
    if (ms < 0 || ms > kUuidv7MaxMs) return Error::kTimeOutOfRange;
    if (sub_ns < 0 || sub_ns >= kNsPerMs) return Error::kOutOfRange;
    std::uint8_t r[8];
    if (!random.fill(r, sizeof r)) return Error::kEntropyFailure;
    return uuidv7_compose_bits(ms, uuidv7_fraction(sub_ns), load_be64(r));
}

// Whether a shifted time (Unix microseconds) is one PostgreSQL 18.6's uuidv7(interval) accepts:
// from the Unix epoch to the first microsecond of the last 48-bit millisecond, both included.
// (The rest of that millisecond is refused too, as 18.6 does.)
[[nodiscard]] constexpr bool uuidv7_shifted_time_in_range(std::int64_t unix_us) noexcept {
    return unix_us >= 0 && unix_us <= kUuidv7MaxMs * 1000;
}

// The smallest and the largest UUIDv7 of millisecond `ms` (rand_a and rand_b all zeros / all
// ones); kTimeOutOfRange outside [0, 2^48).
[[nodiscard]] Result<Uuid> uuidv7_lower(std::int64_t ms) noexcept;
[[nodiscard]] Result<Uuid> uuidv7_upper(std::int64_t ms) noexcept;

// The version field, or -1 when the variant is not RFC 9562's (0b10): PostgreSQL's
// uuid_extract_version returns NULL there.
[[nodiscard]] int uuid_version(const Uuid& id) noexcept;

// A timestamp read out of a UUID, in Unix microseconds; `present` is false when the UUID carries
// none that the function knows how to read.
struct UuidTime {
    bool present;
    std::int64_t unix_us;
};

// PostgreSQL 18's uuid_extract_timestamp: version 1 (60-bit count of 100 ns since 1582-10-15,
// truncated to µs) and version 7 (ms); nothing for other versions or variants.
[[nodiscard]] UuidTime uuid_time(const Uuid& id) noexcept;
// Version 7 only: the millisecond.
[[nodiscard]] UuidTime uuidv7_time(const Uuid& id) noexcept;
// Version 7 only: the millisecond plus the rand_a fraction read as method 3 (uuidv7_fraction_us).
// The bits cannot tell whether the writer used method 3; for other writers this adds < 1 ms of
// noise (random rand_a) or a counter's value.
[[nodiscard]] UuidTime uuidv7_time_precise(const Uuid& id) noexcept;

// The per-backend clock discipline of PostgreSQL 18's uuidv7(): returns max(now_ns, last + 245)
// and remembers it. kTimeOutOfRange only if the time would pass the int64 nanosecond range.
class Uuidv7Clock {
public:
    constexpr Uuidv7Clock() noexcept = default;
    [[nodiscard]] Result<std::int64_t> tick(std::int64_t now_ns) noexcept {
        if (last_ns_ > INT64_MAX - kUuidv7StepNs) return Error::kTimeOutOfRange;
        const std::int64_t floor_ns = last_ns_ + kUuidv7StepNs;
        const std::int64_t ns = now_ns < floor_ns ? floor_ns : now_ns;
        last_ns_ = ns;
        return ns;
    }
    [[nodiscard]] std::int64_t last_ns() const noexcept { return last_ns_; }

private:
    std::int64_t last_ns_ = 0;
};

// Monotonic generation within one process: tick the clock, compose at that time.
class Uuidv7Generator {
public:
    constexpr Uuidv7Generator() noexcept = default;
    template <class Source>
    [[nodiscard]] Result<Uuid> next(std::int64_t now_ns, Source& random) noexcept {
        auto ns = clock_.tick(now_ns);
        if (!ns) return ns.error();
        return uuidv7_compose(*ns / kNsPerMs, *ns % kNsPerMs, random);
    }
    [[nodiscard]] Uuidv7Clock& clock() noexcept { return clock_; }

private:
    Uuidv7Clock clock_;
};

}  // namespace idgen
