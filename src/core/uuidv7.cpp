#include "uuidv7.h"

#include "bytes.h"
#include "no_pg_check.h"

namespace idgen {
namespace {

// Gregorian epoch (1582-10-15) to Unix epoch, in microseconds: 141427 days.
constexpr std::int64_t kGregorianToUnixUs = std::int64_t{141427} * 86400 * 1000000;

constexpr bool rfc_variant(const Uuid& id) noexcept { return (id.bytes[8] & 0xC0) == 0x80; }

Uuid compose_bits(std::int64_t ms, std::uint16_t rand_a, std::uint64_t rand_b) noexcept {
    Uuid id{};
    const std::uint64_t hi = (static_cast<std::uint64_t>(ms) << 16) | 0x7000u | (rand_a & 0x0FFFu);
    const std::uint64_t lo = (rand_b & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL;
    store_be64(id.bytes, hi);
    store_be64(id.bytes + 8, lo);
    return id;
}

constexpr bool ms_in_range(std::int64_t ms) noexcept { return ms >= 0 && ms <= kUuidv7MaxMs; }

}  // namespace

Result<Uuid> uuidv7_compose(std::int64_t ms, std::int64_t sub_ns, ByteSource& random) noexcept {
    if (!ms_in_range(ms)) return Error::kTimeOutOfRange;
    if (sub_ns < 0 || sub_ns >= kNsPerMs) return Error::kOutOfRange;
    std::uint8_t r[8];
    if (!random.fill(r, sizeof r)) return Error::kEntropyFailure;
    return compose_bits(ms, uuidv7_fraction(sub_ns), load_be64(r));
}

Result<Uuid> uuidv7_lower(std::int64_t ms) noexcept {
    if (!ms_in_range(ms)) return Error::kTimeOutOfRange;
    return compose_bits(ms, 0, 0);
}

Result<Uuid> uuidv7_upper(std::int64_t ms) noexcept {
    if (!ms_in_range(ms)) return Error::kTimeOutOfRange;
    return compose_bits(ms, 0x0FFF, ~std::uint64_t{0});
}

int uuid_version(const Uuid& id) noexcept { return rfc_variant(id) ? id.bytes[6] >> 4 : -1; }

UuidTime uuid_time(const Uuid& id) noexcept {
    switch (uuid_version(id)) {
        case 1: {
            // time_low (32) | time_mid (16) | version (4) time_hi (12): a 60-bit count of 100 ns.
            const std::uint64_t ticks = (static_cast<std::uint64_t>(id.bytes[6] & 0x0F) << 56) |
                                        (static_cast<std::uint64_t>(id.bytes[7]) << 48) |
                                        (static_cast<std::uint64_t>(id.bytes[4]) << 40) |
                                        (static_cast<std::uint64_t>(id.bytes[5]) << 32) |
                                        (static_cast<std::uint64_t>(id.bytes[0]) << 24) |
                                        (static_cast<std::uint64_t>(id.bytes[1]) << 16) |
                                        (static_cast<std::uint64_t>(id.bytes[2]) << 8) | id.bytes[3];
            return {true, static_cast<std::int64_t>(ticks / 10) - kGregorianToUnixUs};
        }
        case 7:
            return uuidv7_time(id);
        default:
            return {false, 0};
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

Result<std::int64_t> Uuidv7Clock::tick(std::int64_t now_ns) noexcept {
    if (last_ns_ > INT64_MAX - kUuidv7StepNs) return Error::kTimeOutOfRange;
    const std::int64_t floor_ns = last_ns_ + kUuidv7StepNs;
    const std::int64_t ns = now_ns < floor_ns ? floor_ns : now_ns;
    last_ns_ = ns;
    return ns;
}

Result<Uuid> Uuidv7Generator::next(std::int64_t now_ns, ByteSource& random) noexcept {
    auto ns = clock_.tick(now_ns);
    if (!ns) return ns.error();
    return uuidv7_compose(*ns / kNsPerMs, *ns % kNsPerMs, random);
}

}  // namespace idgen
