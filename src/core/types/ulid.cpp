#include "core/types/ulid.h"

#include <cstring>

#include "core/base/bytes.h"
#include "core/base/no_pg_check.h"

namespace idgen {
namespace {

constexpr char kAlphabet[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

// Crockford digit values, 0xFF for anything else. Upper and lower case are accepted; the
// ambiguous I, L, O and U are not (the ULID spec excludes them from its alphabet).
struct DecodeTable {
    std::uint8_t v[256];
    constexpr DecodeTable() : v() {
        for (auto& x : v) x = 0xFF;
        for (int i = 0; i < 32; ++i) {
            auto c = static_cast<unsigned char>(kAlphabet[i]);
            v[c] = static_cast<std::uint8_t>(i);
            if (c >= 'A' && c <= 'Z') v[c + ('a' - 'A')] = static_cast<std::uint8_t>(i);
        }
    }
};
constexpr DecodeTable kDecode{};

Ulid compose(std::int64_t ms, std::uint16_t rand_hi, std::uint64_t rand_lo) noexcept {
    Ulid id{};
    const std::uint64_t hi = (static_cast<std::uint64_t>(ms) << 16) | rand_hi;
    store_be64(id.bytes, hi);
    store_be64(id.bytes + 8, rand_lo);
    return id;
}

}  // namespace

// The 26 characters are three independent groups, so no step carries a 128-bit value:
//   chars  0..9   50 bits: the 48-bit time (the top 2 bits must be 0, i.e. char 0 <= '7')
//   chars 10..17  40 bits: random bits 79..40
//   chars 18..25  40 bits: random bits 39..0
// The groups are decoded with fixed trip counts the compiler unrolls; only 64-bit operations.
namespace {

template <std::size_t N>
inline std::uint64_t decode_group(const char* text, std::uint8_t& any_bad) noexcept {
    std::uint64_t v = 0;
#pragma GCC unroll 10
    for (std::size_t i = 0; i < N; ++i) {
        const std::uint8_t d = kDecode.v[static_cast<unsigned char>(text[i])];
        any_bad |= d;  // 0xFF has bit 7 set; every valid digit is < 32
        v = (v << 5) | (d & 31u);
    }
    return v;
}

// Two output characters per lookup: entry i holds the digits of i >> 5 and i & 31.
struct PairTable {
    char v[1024][2];
    constexpr PairTable() : v() {
        for (int i = 0; i < 1024; ++i) {
            v[i][0] = kAlphabet[i >> 5];
            v[i][1] = kAlphabet[i & 31];
        }
    }
};
constexpr PairTable kPairs{};

// Writes the 5*N2*2 low bits of v as 2*N2 characters, most significant first.
template <std::size_t N2>
inline void encode_group(std::uint64_t v, char* out) noexcept {
#pragma GCC unroll 5
    for (std::size_t i = 0; i < N2; ++i) std::memcpy(out + 2 * i, kPairs.v[(v >> (10 * (N2 - 1 - i))) & 1023u], 2);
}

}  // namespace

Result<Ulid> ulid_parse(const char* text, std::size_t len) noexcept {
    if (len != kUlidTextLen) return Error::kInvalidSyntax;
    std::uint8_t any_bad = 0;
    const std::uint64_t t = decode_group<10>(text, any_bad);
    const std::uint64_t a = decode_group<8>(text + 10, any_bad);
    const std::uint64_t b = decode_group<8>(text + 18, any_bad);
    if (any_bad & 0x80u) return Error::kInvalidSyntax;
    if (t >> 48) return Error::kOutOfRange;  // first character above '7': more than 128 bits
    Ulid id{};
    store_be64(id.bytes, (t << 16) | (a >> 24));
    store_be64(id.bytes + 8, (a << 40) | b);
    return id;
}

void ulid_format(const Ulid& id, char* out) noexcept {
    const std::uint64_t hi = load_be64(id.bytes);
    const std::uint64_t lo = load_be64(id.bytes + 8);
    encode_group<5>(hi >> 16, out);                                  // time, 48 bits in 50
    encode_group<4>(((hi & 0xFFFFu) << 24) | (lo >> 40), out + 10);  // random bits 79..40
    encode_group<4>(lo & ((std::uint64_t{1} << 40) - 1), out + 18);  // random bits 39..0
}

std::int64_t ulid_time_ms(const Ulid& id) noexcept { return static_cast<std::int64_t>(load_be64(id.bytes) >> 16); }

Result<Ulid> ulid_lower(std::int64_t ms) noexcept {
    if (ms < 0 || ms > kUlidMaxMs) return Error::kTimeOutOfRange;
    return compose(ms, 0, 0);
}

Result<Ulid> ulid_upper(std::int64_t ms) noexcept {
    if (ms < 0 || ms > kUlidMaxMs) return Error::kTimeOutOfRange;
    return compose(ms, 0xFFFF, ~std::uint64_t{0});
}

Result<Ulid> ulid_at(std::int64_t ms, ByteSource& random) noexcept {
    if (ms < 0 || ms > kUlidMaxMs) return Error::kTimeOutOfRange;
    std::uint8_t r[10];
    if (!random.fill(r, sizeof r)) return Error::kEntropyFailure;
    return compose(ms, load_be16(r), load_be64(r + 2));
}

Result<Ulid> ulid_from_state_id(std::int64_t state_id, ByteSource& random) noexcept {
    if (state_id < 0) return Error::kOutOfRange;
    std::uint8_t r[8];
    if (!random.fill(r, sizeof r)) return Error::kEntropyFailure;
    return compose(state_id >> 16, static_cast<std::uint16_t>(state_id & 0xffff), load_be64(r));
}

std::int64_t ulid_state_id(const Ulid& id) noexcept {
    const std::uint64_t hi = load_be64(id.bytes);
    return hi >> 63 ? -1 : static_cast<std::int64_t>(hi);
}

Result<Ulid> UlidGenerator::next(std::int64_t now_ms, ByteSource& random) noexcept {
    std::int64_t ms = now_ms < 0 ? 0 : now_ms;
    if (last_ms_ >= 0 && ms <= last_ms_) {
        // Same or earlier millisecond: continue the last ID's sequence.
        if (rand_lo_ != ~std::uint64_t{0}) {
            ++rand_lo_;
            return compose(last_ms_, rand_hi_, rand_lo_);
        }
        if (rand_hi_ != 0xFFFF) {
            ++rand_hi_;
            rand_lo_ = 0;
            return compose(last_ms_, rand_hi_, rand_lo_);
        }
        ms = last_ms_ + 1;  // 80 bits exhausted: borrow the next millisecond
    }
    if (ms > kUlidMaxMs) return Error::kTimeOutOfRange;
    std::uint8_t r[10];
    if (!random.fill(r, sizeof r)) return Error::kEntropyFailure;
    last_ms_ = ms;
    rand_hi_ = load_be16(r);
    rand_lo_ = load_be64(r + 2);
    return compose(last_ms_, rand_hi_, rand_lo_);
}

}  // namespace idgen
