// id_gen core: ULID (https://github.com/ulid/spec).
//
// 128 bits, big-endian: 48 bits of Unix milliseconds, then 80 random bits. Byte order is time
// order is text order. Text is 26 characters of Crockford base32; the first character carries
// only 3 bits, so the largest value is 7ZZZZZZZZZZZZZZZZZZZZZZZZZ.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/base/entropy.h"
#include "core/base/result.h"

namespace idgen {

struct Ulid {
    std::uint8_t bytes[16];
};

inline constexpr std::size_t kUlidTextLen = 26;
inline constexpr std::int64_t kUlidMaxMs = (std::int64_t{1} << 48) - 1;

// Parses exactly 26 Crockford base32 characters, either case. Any other length or character
// (including I, L, O, U) is kInvalidSyntax; a value above 2^128-1 (first character > '7') is
// kOutOfRange.
[[nodiscard]] Result<Ulid> ulid_parse(const char* text, std::size_t len) noexcept;

// Writes 26 upper-case characters (no terminator).
void ulid_format(const Ulid& id, char* out) noexcept;

// The 48-bit millisecond timestamp.
[[nodiscard]] std::int64_t ulid_time_ms(const Ulid& id) noexcept;

// The smallest and the largest ULID of millisecond `ms`; kTimeOutOfRange outside [0, 2^48).
[[nodiscard]] Result<Ulid> ulid_lower(std::int64_t ms) noexcept;
[[nodiscard]] Result<Ulid> ulid_upper(std::int64_t ms) noexcept;

// A ULID for a given time with fresh random bits; independent of any generator state.
[[nodiscard]] Result<Ulid> ulid_at(std::int64_t ms, ByteSource& random) noexcept;

// The ULID of a state ID of gen_monotonic_ulid()'s generator (monotonic_ulid_state_layout(),
// snowflake.h: Unix ms << 16 | a counter within the ms): 48 bits of ms, the 16-bit counter, then 64
// fresh random bits. The state IDs the generator issues increase strictly, so do these ULIDs
// (whatever their random bits). kOutOfRange for a negative state ID; kEntropyFailure.
[[nodiscard]] Result<Ulid> ulid_from_state_id(std::int64_t state_id, ByteSource& random) noexcept;
// The first 64 bits of a ULID as a state ID (ms << 16 | counter for gen_monotonic_ulid()'s): the
// inverse of ulid_from_state_id() on its first 64 bits; -1 when the ms does not fit 47 bits.
[[nodiscard]] std::int64_t ulid_state_id(const Ulid& id) noexcept;

// Monotonic generation within one process.
//
// A clock reading later than the last ID starts a new millisecond with fresh random bits. A
// reading at or before it keeps the last millisecond and adds 1 to the 80-bit random part, so a
// clock that stands still or steps back never yields a smaller or repeated ID. When the random
// part is all ones the generator moves to the next millisecond instead of wrapping.
class UlidGenerator {
public:
    constexpr UlidGenerator() noexcept = default;

    [[nodiscard]] Result<Ulid> next(std::int64_t now_ms, ByteSource& random) noexcept;

private:
    std::int64_t last_ms_ = -1;  // -1: nothing issued yet
    std::uint16_t rand_hi_ = 0;  // top 16 of the 80 random bits
    std::uint64_t rand_lo_ = 0;  // low 64
};

}  // namespace idgen
