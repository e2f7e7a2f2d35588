#include "base36.h"
#include "radix_digits.h"

#include <cstring>

#include "no_pg_check.h"

namespace idgen {
namespace {

constexpr radix::Alphabet<36> kAlpha{"0123456789abcdefghijklmnopqrstuvwxyz", /*fold_case=*/true};

// 36^12 fits in 64 bits; a 128-bit value is split into 64-bit chunks of 12 digits each so that
// only two 128-bit divisions are needed per encode.
constexpr std::uint64_t kPow12 = 4738381338321616896ULL;  // 36^12

// The two digits of every value below 36^2, for writing 12 digits in three dependent steps
// instead of twelve.
struct Pairs {
    char c[36 * 36][2];
};
constexpr Pairs make_pairs() noexcept {
    Pairs p{};
    for (int v = 0; v < 36 * 36; ++v) {
        p.c[v][0] = kAlpha.digits[v / 36];
        p.c[v][1] = kAlpha.digits[v % 36];
    }
    return p;
}
constexpr Pairs kPairs = make_pairs();

// The 6 digits of v < 36^6, as three pairs read from the fraction v / 36^4 in 52-bit fixed point:
// f = v * ceil(2^52 / 36^4) carries the first pair above bit 52 and the rest of v / 36^4 below it,
// with an error below v / 2^52 < 2^-20.98, which stays under one unit of the last pair after the
// two multiplications by 36^2 (36^4 = 2^20.68): three multiplications instead of four divisions by
// constants. Exact for every v < 36^6 (checked exhaustively when written; the unit tests compare
// encodings with repeated division).
inline void encode6(std::uint32_t v, char* out) noexcept {
    constexpr std::uint64_t kM = 2681326939ULL;  // ceil(2^52 / 36^4)
    constexpr std::uint64_t kFrac = (std::uint64_t{1} << 52) - 1;
    std::uint64_t f = v * kM;  // < 2^63
    std::memcpy(out, kPairs.c[f >> 52], 2);
    f = (f & kFrac) * (36 * 36);
    std::memcpy(out + 2, kPairs.c[f >> 52], 2);
    f = (f & kFrac) * (36 * 36);
    std::memcpy(out + 4, kPairs.c[f >> 52], 2);
}

// The 12 digits of v < 36^12 (the same as kAlpha.encode_low<12>).
inline void encode12(std::uint64_t v, char* out) noexcept {
    constexpr std::uint64_t kPow6 = 2176782336ULL;  // 36^6
    encode6(static_cast<std::uint32_t>(v / kPow6), out);
    encode6(static_cast<std::uint32_t>(v % kPow6), out + 6);
}

}  // namespace

void base36_encode64(std::uint64_t v, char* out) noexcept {
    // 13 digits: one leading digit (v / 36^12 is at most 3 for 2^64-1), then 12.
    out[0] = kAlpha.digits[v / kPow12];
    kAlpha.encode_low<12>(v % kPow12, out + 1);
}

// v / 36^12 for any 128-bit v, without a division instruction: 36^12 = 2^24 * 3^24, so the
// quotient is (v >> 24) / 3^24, and (v >> 24) < 2^104 is divided by 3^24 as a multiplication by
// M = ceil(2^143 / 3^24) (105 bits) and a shift: exact for every dividend below 2^104, since
// M * 3^24 - 2^143 < 2^(143 - 104) (Granlund and Montgomery, "Division by invariant integers using
// multiplication", 1994, Theorem 4.2). Two 64-bit DIVs in a row cost more than the four
// multiplications; the unit tests compare the result with __int128 division.
inline unsigned __int128 div_pow12(unsigned __int128 v) noexcept {
    constexpr std::uint64_t kM1 = 0x1f24f623350ULL, kM0 = 0x24a295fb3babbccbULL;  // M = kM1 * 2^64 + kM0
    const unsigned __int128 w = v >> 24;
    const auto w0 = static_cast<std::uint64_t>(w), w1 = static_cast<std::uint64_t>(w >> 64);  // w1 < 2^40
    using u128 = unsigned __int128;
    const u128 p00 = static_cast<u128>(w0) * kM0, p01 = static_cast<u128>(w0) * kM1;
    const u128 p10 = static_cast<u128>(w1) * kM0, p11 = static_cast<u128>(w1) * kM1;
    const u128 mid = (p00 >> 64) + static_cast<std::uint64_t>(p01) + static_cast<std::uint64_t>(p10);
    const u128 high = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);  // (w * M) >> 128
    return high >> (143 - 128);
}

void base36_encode128(unsigned __int128 v, char* out) noexcept {
    // v = (top * 36^12 + mid) * 36^12 + lo, with mid and lo < 36^12 and top < 16.
    const unsigned __int128 q = div_pow12(v);  // < 2^66
    // The remainder is below 2^63, so its low 64 bits are all of it.
    const std::uint64_t lo = static_cast<std::uint64_t>(v) - static_cast<std::uint64_t>(q) * kPow12;
    // q / 36^12 = (q >> 24) / 3^24 with q >> 24 < 2^42: a 64-bit division by a constant.
    const std::uint64_t top = static_cast<std::uint64_t>(q >> 24) / 282429536481ULL;  // 3^24
    const std::uint64_t mid = static_cast<std::uint64_t>(q) - top * kPow12;
    out[0] = kAlpha.digits[static_cast<unsigned>(top)];
    encode12(mid, out + 1);
    encode12(lo, out + 13);
}

Result<std::uint64_t> base36_decode64(const char* s, std::size_t n) noexcept {
    if (!kAlpha.all_digits(s, n)) return Error::kInvalidSyntax;
    constexpr std::uint64_t kMax = ~std::uint64_t{0};
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t d = kAlpha.digit(s[i]);
        if (v > kMax / 36) return Error::kOutOfRange;
        const std::uint64_t t = v * 36;
        if (t + d < t) return Error::kOutOfRange;
        v = t + d;
    }
    return v;
}

Result<unsigned __int128> base36_decode128(const char* s, std::size_t n) noexcept {
    if (!kAlpha.all_digits(s, n)) return Error::kInvalidSyntax;
    constexpr unsigned __int128 kMax = ~static_cast<unsigned __int128>(0);
    unsigned __int128 v = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const unsigned d = kAlpha.digit(s[i]);
        if (v > kMax / 36) return Error::kOutOfRange;  // a constant: no run-time 128-bit division
        const unsigned __int128 t = v * 36;
        if (t + d < t) return Error::kOutOfRange;
        v = t + d;
    }
    return v;
}

}  // namespace idgen
