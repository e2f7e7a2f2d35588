#include "core/types/ksuid.h"

#include "core/base/bytes.h"
#include "core/base/no_pg_check.h"

namespace idgen {
namespace {

constexpr char kAlphabet[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

struct DecodeTable {
    std::uint8_t v[256];
    constexpr DecodeTable() : v() {
        for (auto& x : v) x = 0xFF;
        for (int i = 0; i < 62; ++i) v[static_cast<unsigned char>(kAlphabet[i])] = static_cast<std::uint8_t>(i);
    }
};
constexpr DecodeTable kDecode{};

// 160 bits as five 32-bit limbs, most significant first.
struct Limbs {
    std::uint32_t w[5];
};

Limbs to_limbs(const Ksuid& id) noexcept {
    Limbs l{};
    for (int i = 0; i < 5; ++i) {
        const std::uint8_t* p = id.bytes + 4 * i;
        l.w[i] = (static_cast<std::uint32_t>(p[0]) << 24) | (static_cast<std::uint32_t>(p[1]) << 16) |
                 (static_cast<std::uint32_t>(p[2]) << 8) | p[3];
    }
    return l;
}

Ksuid from_limbs(const Limbs& l) noexcept {
    Ksuid id{};
    for (int i = 0; i < 5; ++i) {
        id.bytes[4 * i] = static_cast<std::uint8_t>(l.w[i] >> 24);
        id.bytes[4 * i + 1] = static_cast<std::uint8_t>(l.w[i] >> 16);
        id.bytes[4 * i + 2] = static_cast<std::uint8_t>(l.w[i] >> 8);
        id.bytes[4 * i + 3] = static_cast<std::uint8_t>(l.w[i]);
    }
    return id;
}

constexpr std::uint32_t kPow62_5 = 916132832u;  // 62^5 < 2^32: five digits per long division

Ksuid compose(std::int64_t unix_seconds, std::uint64_t hi, std::uint64_t lo) noexcept {
    Ksuid id{};
    const auto t = static_cast<std::uint32_t>(unix_seconds - kKsuidEpoch);
    id.bytes[0] = static_cast<std::uint8_t>(t >> 24);
    id.bytes[1] = static_cast<std::uint8_t>(t >> 16);
    id.bytes[2] = static_cast<std::uint8_t>(t >> 8);
    id.bytes[3] = static_cast<std::uint8_t>(t);
    store_be64(id.bytes + 4, hi);
    store_be64(id.bytes + 12, lo);
    return id;
}

bool seconds_fit(std::int64_t s) noexcept { return s >= kKsuidEpoch && s <= kKsuidMaxUnixSeconds; }

}  // namespace

Result<Ksuid> ksuid_parse(const char* s, std::size_t n) noexcept {
    if (n != kKsuidTextLen) return Error::kInvalidSyntax;
    std::uint8_t any_bad = 0;
    for (std::size_t i = 0; i < n; ++i) any_bad |= kDecode.v[static_cast<unsigned char>(s[i])];
    if (any_bad & 0x80u) return Error::kInvalidSyntax;
    // value = value * 62 + digit over five limbs; a carry out of the top limb is more than 160 bits.
    Limbs l{};
    for (std::size_t i = 0; i < n; ++i) {
        std::uint64_t carry = kDecode.v[static_cast<unsigned char>(s[i])];
        for (int k = 4; k >= 0; --k) {
            const std::uint64_t x = static_cast<std::uint64_t>(l.w[k]) * 62u + carry;
            l.w[k] = static_cast<std::uint32_t>(x);
            carry = x >> 32;
        }
        if (carry != 0) return Error::kOutOfRange;
    }
    return from_limbs(l);
}

void ksuid_format(const Ksuid& id, char* out) noexcept {
    Limbs l = to_limbs(id);
    // 27 digits = 5 groups of 5 + 2: each step divides the 160-bit number by 62^5 in place.
    char* p = out + kKsuidTextLen;
    for (int group = 0; group < 6; ++group) {
        std::uint64_t rem = 0;
        for (int k = 0; k < 5; ++k) {
            const std::uint64_t x = (rem << 32) | l.w[k];
            l.w[k] = static_cast<std::uint32_t>(x / kPow62_5);
            rem = x % kPow62_5;
        }
        const int digits = group < 5 ? 5 : 2;
        for (int d = 0; d < digits; ++d) {
            *--p = kAlphabet[rem % 62];
            rem /= 62;
        }
    }
}

std::int64_t ksuid_unix_seconds(const Ksuid& id) noexcept {
    const std::uint32_t t = (static_cast<std::uint32_t>(id.bytes[0]) << 24) |
                            (static_cast<std::uint32_t>(id.bytes[1]) << 16) |
                            (static_cast<std::uint32_t>(id.bytes[2]) << 8) | id.bytes[3];
    return kKsuidEpoch + static_cast<std::int64_t>(t);
}

Result<Ksuid> ksuid_lower(std::int64_t unix_seconds) noexcept {
    if (!seconds_fit(unix_seconds)) return Error::kTimeOutOfRange;
    return compose(unix_seconds, 0, 0);
}

Result<Ksuid> ksuid_upper(std::int64_t unix_seconds) noexcept {
    if (!seconds_fit(unix_seconds)) return Error::kTimeOutOfRange;
    return compose(unix_seconds, ~std::uint64_t{0}, ~std::uint64_t{0});
}

Result<Ksuid> ksuid_at(std::int64_t unix_seconds, ByteSource& random) noexcept {
    if (!seconds_fit(unix_seconds)) return Error::kTimeOutOfRange;
    std::uint8_t r[16];
    if (!random.fill(r, sizeof r)) return Error::kEntropyFailure;
    return compose(unix_seconds, load_be64(r), load_be64(r + 8));
}

Result<Ksuid> KsuidGenerator::next(std::int64_t now, ByteSource& random) noexcept {
    std::int64_t s = now;
    if (last_ >= 0 && s <= last_) {
        // Same or an earlier second: continue the last ID's payload.
        if (lo_ != ~std::uint64_t{0}) {
            ++lo_;
            return compose(last_, hi_, lo_);
        }
        if (hi_ != ~std::uint64_t{0}) {
            ++hi_;
            lo_ = 0;
            return compose(last_, hi_, lo_);
        }
        s = last_ + 1;  // 128 bits exhausted: borrow the next second
    }
    if (!seconds_fit(s)) return Error::kTimeOutOfRange;
    std::uint8_t r[16];
    if (!random.fill(r, sizeof r)) return Error::kEntropyFailure;
    last_ = s;
    hi_ = load_be64(r);
    lo_ = load_be64(r + 8);
    return compose(last_, hi_, lo_);
}

}  // namespace idgen
