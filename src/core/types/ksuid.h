// id_gen core: KSUID (Segment's K-Sortable Unique IDentifier, github.com/segmentio/ksuid).
//
// 20 bytes, big-endian: a 32-bit count of seconds since the KSUID epoch 1,400,000,000
// (2014-05-13 16:53:20 UTC), then a 128-bit payload. Text is 27 characters of base62 (0-9A-Za-z,
// in ASCII order), left-padded with '0', so byte order = time order = text order under COLLATE "C".
// The largest value (2^160 - 1) is aWgEPTl1tmebfsQzFP4bxwgy80V; 27 digits above it are out of range.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/base/entropy.h"
#include "core/base/result.h"

namespace idgen {

struct Ksuid {
    std::uint8_t bytes[20];
};
static_assert(sizeof(Ksuid) == 20);

inline constexpr std::size_t kKsuidTextLen = 27;
inline constexpr std::int64_t kKsuidEpoch = 1400000000;                           // Unix seconds of KSUID time 0
inline constexpr std::int64_t kKsuidMaxUnixSeconds = kKsuidEpoch + 0xFFFFFFFFLL;  // 2150-06-19 23:21:35 UTC

// Exactly 27 characters of 0-9A-Za-z (case is part of the digit): kInvalidSyntax otherwise
// (checked over the whole input first); a well-formed value above 2^160-1: kOutOfRange.
[[nodiscard]] Result<Ksuid> ksuid_parse(const char* s, std::size_t n) noexcept;

// Writes exactly 27 characters (no NUL).
void ksuid_format(const Ksuid& id, char* out) noexcept;

// The timestamp as Unix seconds (the field plus the KSUID epoch).
[[nodiscard]] std::int64_t ksuid_unix_seconds(const Ksuid& id) noexcept;

// The smallest / largest KSUID of Unix second `unix_seconds`; kTimeOutOfRange outside
// [kKsuidEpoch, kKsuidMaxUnixSeconds].
[[nodiscard]] Result<Ksuid> ksuid_lower(std::int64_t unix_seconds) noexcept;
[[nodiscard]] Result<Ksuid> ksuid_upper(std::int64_t unix_seconds) noexcept;

// A KSUID for a given second with a fresh 128-bit payload; independent of any generator state.
[[nodiscard]] Result<Ksuid> ksuid_at(std::int64_t unix_seconds, ByteSource& random) noexcept;

// Seconds from Unix milliseconds, rounded down.
[[nodiscard]] constexpr std::int64_t ksuid_floor_seconds(std::int64_t unix_ms) noexcept {
    return unix_ms >= 0 ? unix_ms / 1000 : -((-(unix_ms + 1)) / 1000) - 1;
}

// Monotonic generation within one process, as UlidGenerator does per millisecond: a clock reading
// later than the last ID's second starts that second with a fresh random payload; a reading at or
// before it keeps the last second and adds 1 to the payload, so a clock that stands still or steps
// back never yields a smaller or repeated ID. A payload of all ones moves to the next second.
class KsuidGenerator {
public:
    constexpr KsuidGenerator() noexcept = default;

    [[nodiscard]] Result<Ksuid> next(std::int64_t now_unix_seconds, ByteSource& random) noexcept;

private:
    std::int64_t last_ = -1;  // Unix seconds of the last ID; -1: nothing issued yet
    std::uint64_t hi_ = 0;    // payload bits 127..64
    std::uint64_t lo_ = 0;    // payload bits 63..0
};

}  // namespace idgen
