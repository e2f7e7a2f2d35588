// id_gen core: UUID version 6 (RFC 9562 §5.6) and the lossless conversions between versions 1 and 6.
//
// Layout, big-endian: the 60-bit Gregorian timestamp (100 ns intervals since 1582-10-15 00:00 UTC)
// high bits first (time_high 32 | time_mid 16 | version 6 (4) | time_low 12), variant 0b10,
// a 14-bit clock sequence and a 48-bit node. Byte order = time order to 100 ns.
//
// Version 1 holds the same 60 bits low part first (time_low 32 | time_mid 16 | version 1 (4) |
// time_hi 12); versions 1 and 6 share bytes 8-15 (variant, clock sequence, node), so converting is
// a reordering of the first 8 bytes and loses nothing.
//
// Generation: as RFC 9562 §5.6 recommends, the clock sequence and the node are fresh random bits
// for each ID, and the node has its multicast bit (the least significant bit of its first byte)
// set, so it can never be a real IEEE 802 address (§6.10). Monotonic within one generator: each
// ID's timestamp is more than the last one's (a clock that stands still or steps back runs the
// timestamp ahead by 100 ns per ID until the clock catches up).
#pragma once

#include <cstdint>

#include "core/base/entropy.h"
#include "core/base/result.h"
#include "core/types/uuidv7.h"

namespace idgen {

// 100 ns intervals from 1582-10-15 to 1970-01-01 (141,427 days).
inline constexpr std::int64_t kGregorianToUnixTicks = std::int64_t{141427} * 86400 * 10000000;
inline constexpr std::int64_t kUuidv6MaxTicks = (std::int64_t{1} << 60) - 1;  // 5236-03-31

// The 60-bit timestamp of a version 1 or version 6 UUID (whatever its variant).
[[nodiscard]] std::int64_t uuidv1_ticks(const Uuid& id) noexcept;
[[nodiscard]] std::int64_t uuidv6_ticks(const Uuid& id) noexcept;

// A version 6 UUID from its fields: ticks in [0, 2^60) (kTimeOutOfRange otherwise), the low 14
// bits of clock_seq, the low 48 bits of node; the variant is RFC 9562's.
[[nodiscard]] Result<Uuid> uuidv6_compose(std::int64_t ticks, std::uint16_t clock_seq, std::uint64_t node) noexcept;

// Converts between versions; `ok` is false (and `id` all zero) when the input is not an RFC 9562
// UUID of the version the conversion reads (variant 0b10, version 1 for v1_to_v6, 6 for v6_to_v1).
struct UuidConversion {
    bool ok;
    Uuid id;
};
[[nodiscard]] UuidConversion uuid_v1_to_v6(const Uuid& v1) noexcept;
[[nodiscard]] UuidConversion uuid_v6_to_v1(const Uuid& v6) noexcept;

// The timestamp of a version 1, 6 (100 ns, truncated to the µs) or 7 (ms) UUID; nothing for
// other versions and variants. uuid_time() of uuidv7.h reads 1 and 7 only (PostgreSQL 18's).
[[nodiscard]] UuidTime uuid_time_v167(const Uuid& id) noexcept;

// Per-generator monotonic UUIDv6 generation.
class Uuidv6Generator {
public:
    constexpr Uuidv6Generator() noexcept = default;
    // An ID for the wall clock `now_ns` (Unix ns), timestamp at least the last one's + 1.
    // kTimeOutOfRange when the timestamp would leave [0, 2^60); kEntropyFailure.
    [[nodiscard]] Result<Uuid> next(std::int64_t now_ns, ByteSource& random) noexcept;
    [[nodiscard]] std::int64_t last_ticks() const noexcept { return last_ticks_; }

private:
    std::int64_t last_ticks_ = -1;
};

}  // namespace idgen
