#include "core/types/uuidv6.h"

#include "core/base/bytes.h"
#include "core/base/no_pg_check.h"

namespace idgen {
namespace {

constexpr bool rfc_variant(const Uuid& id) noexcept { return (id.bytes[8] & 0xC0) == 0x80; }

// The floor of a / b for b > 0.
constexpr std::int64_t floor_div(std::int64_t a, std::int64_t b) noexcept {
    return a / b - ((a % b != 0 && a < 0) ? 1 : 0);
}

void store_v6_time(std::uint8_t* b, std::uint64_t t) noexcept {
    // time_high (32) | time_mid (16) | version 6 | time_low (12)
    store_be64(b, ((t >> 12) << 16) | 0x6000u | (t & 0x0FFFu));
}

void store_v1_time(std::uint8_t* b, std::uint64_t t) noexcept {
    // time_low (32) | time_mid (16) | version 1 | time_hi (12)
    store_be64(b, ((t & 0xFFFFFFFFu) << 32) | (((t >> 32) & 0xFFFFu) << 16) | 0x1000u | ((t >> 48) & 0x0FFFu));
}

}  // namespace

std::int64_t uuidv1_ticks(const Uuid& id) noexcept {
    const std::uint64_t w = load_be64(id.bytes);
    const std::uint64_t low = w >> 32, mid = (w >> 16) & 0xFFFFu, hi = w & 0x0FFFu;
    return static_cast<std::int64_t>((hi << 48) | (mid << 32) | low);
}

std::int64_t uuidv6_ticks(const Uuid& id) noexcept {
    const std::uint64_t w = load_be64(id.bytes);
    return static_cast<std::int64_t>(((w >> 16) << 12) | (w & 0x0FFFu));
}

Result<Uuid> uuidv6_compose(std::int64_t ticks, std::uint16_t clock_seq, std::uint64_t node) noexcept {
    if (ticks < 0 || ticks > kUuidv6MaxTicks) return Error::kTimeOutOfRange;
    Uuid id{};
    store_v6_time(id.bytes, static_cast<std::uint64_t>(ticks));
    const std::uint64_t lo =
        0x8000000000000000ULL | (static_cast<std::uint64_t>(clock_seq & 0x3FFFu) << 48) | (node & 0xFFFFFFFFFFFFULL);
    store_be64(id.bytes + 8, lo);
    return id;
}

UuidConversion uuid_v1_to_v6(const Uuid& v1) noexcept {
    if (uuid_version(v1) != 1) return {false, Uuid{}};
    UuidConversion r{true, v1};
    store_v6_time(r.id.bytes, static_cast<std::uint64_t>(uuidv1_ticks(v1)));
    return r;
}

UuidConversion uuid_v6_to_v1(const Uuid& v6) noexcept {
    if (uuid_version(v6) != 6) return {false, Uuid{}};
    UuidConversion r{true, v6};
    store_v1_time(r.id.bytes, static_cast<std::uint64_t>(uuidv6_ticks(v6)));
    return r;
}

UuidTime uuid_time_v167(const Uuid& id) noexcept {
    if (!rfc_variant(id)) return {false, 0};
    switch (uuid_version(id)) {
        case 1: return {true, floor_div(uuidv1_ticks(id) - kGregorianToUnixTicks, 10)};
        case 6: return {true, floor_div(uuidv6_ticks(id) - kGregorianToUnixTicks, 10)};
        case 7: return uuidv7_time(id);
        default: return {false, 0};
    }
}

Result<Uuid> Uuidv6Generator::next(std::int64_t now_ns, ByteSource& random) noexcept {
    std::int64_t ticks = floor_div(now_ns, 100) + kGregorianToUnixTicks;
    if (ticks <= last_ticks_) {
        if (last_ticks_ >= kUuidv6MaxTicks) return Error::kTimeOutOfRange;
        ticks = last_ticks_ + 1;
    }
    if (ticks < 0 || ticks > kUuidv6MaxTicks) return Error::kTimeOutOfRange;
    std::uint8_t r[8];
    if (!random.fill(r, sizeof r)) return Error::kEntropyFailure;
    const std::uint64_t bits = load_be64(r);
    // 14 bits of clock sequence, 48 of node with the multicast bit (bit 40 of the node) set.
    auto id = uuidv6_compose(ticks, static_cast<std::uint16_t>(bits >> 50), (bits & 0xFFFFFFFFFFFFULL) | (1ULL << 40));
    if (!id) return id.error();
    last_ticks_ = ticks;
    return id;
}

}  // namespace idgen
