#include "core/types/uuidv7.h"

#include "core/base/bytes.h"
#include "core/base/no_pg_check.h"

namespace idgen {
namespace {

// Gregorian epoch (1582-10-15) to Unix epoch, in microseconds: 141427 days.
constexpr std::int64_t kGregorianToUnixUs = std::int64_t{141427} * 86400 * 1000000;

constexpr bool rfc_variant(const Uuid& id) noexcept { return (id.bytes[8] & 0xC0) == 0x80; }

constexpr bool ms_in_range(std::int64_t ms) noexcept { return ms >= 0 && ms <= kUuidv7MaxMs; }

}  // namespace

Result<Uuid> uuidv7_lower(std::int64_t ms) noexcept {
    if (!ms_in_range(ms)) return Error::kTimeOutOfRange;
    return uuidv7_compose_bits(ms, 0, 0);
}

Result<Uuid> uuidv7_upper(std::int64_t ms) noexcept {
    if (!ms_in_range(ms)) return Error::kTimeOutOfRange;
    return uuidv7_compose_bits(ms, 0x0FFF, ~std::uint64_t{0});
}

int uuid_version(const Uuid& id) noexcept { return rfc_variant(id) ? id.bytes[6] >> 4 : -1; }

UuidTime uuid_time(const Uuid& id) noexcept {
    switch (uuid_version(id)) {
        case 1: {
            // time_low (32) | time_mid (16) | version (4) time_hi (12): a 60-bit count of 100 ns.
            const std::uint64_t ticks =
                (static_cast<std::uint64_t>(id.bytes[6] & 0x0F) << 56) |
                (static_cast<std::uint64_t>(id.bytes[7]) << 48) | (static_cast<std::uint64_t>(id.bytes[4]) << 40) |
                (static_cast<std::uint64_t>(id.bytes[5]) << 32) | (static_cast<std::uint64_t>(id.bytes[0]) << 24) |
                (static_cast<std::uint64_t>(id.bytes[1]) << 16) | (static_cast<std::uint64_t>(id.bytes[2]) << 8) |
                id.bytes[3];
            return {true, static_cast<std::int64_t>(ticks / 10) - kGregorianToUnixUs};
        }
        case 7: return uuidv7_time(id);
        default: return {false, 0};
    }
}

UuidTime uuidv7_time(const Uuid& id) noexcept {
    if (uuid_version(id) != 7) return {false, 0};
    return {true, static_cast<std::int64_t>(load_be64(id.bytes) >> 16) * 1000};
}

UuidTime uuidv7_time_precise(const Uuid& id) noexcept {
    UuidTime t = uuidv7_time(id);
    if (!t.present) return t;
    const auto fraction = static_cast<std::uint16_t>(load_be16(id.bytes + 6) & 0x0FFF);
    t.unix_us += uuidv7_fraction_us(fraction);
    return t;
}

}  // namespace idgen
