#include "core/text/base36.h"
#include "core/text/radix_digits.h"

#include <cstring>

#include "core/base/no_pg_check.h"

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

// The 12 digits of x < 36^12, as six pairs read from F, the 64-bit fixed-point fraction of
// x / 36^12: each multiplication of F by 36^2 carries the next pair above bit 64 and leaves the
// rest of the fraction in the low 64 bits (one 64x64->128 multiplication per pair, and no
// division). F = floor(x * C / 2^64) + 1 with C = ceil(2^128 / 36^12) = 3 * 2^64 + kC0 exceeds
// x * 2^64 / 36^12 by e with 0 < e <= 1 + x / 2^64 < 1.26. Pair j is floor(x * 36^(2j) / 36^12)
// mod 36^2, whose fraction, a multiple of 36^(2j) / 36^12, is at least that far below the next
// integer; F's error adds e * 36^(2j) / 2^64, which stays below it as long as e < 2^64 / 36^12 =
// 3.89. So every pair is exact, for every x < 36^12 (the unit tests compare encodings with
// repeated division, at the range's edges and on random values).
inline void encode12(std::uint64_t x, char* out) noexcept {
    using u128 = unsigned __int128;
    constexpr std::uint64_t kC0 = 0xe49ec466a049452cULL;
    std::uint64_t f = x * 3 + static_cast<std::uint64_t>((static_cast<u128>(x) * kC0) >> 64) + 1;
#pragma GCC unroll 6
    for (int j = 0; j < 6; ++j) {
        const u128 p = static_cast<u128>(f) * (36 * 36);
        std::memcpy(out + 2 * j, kPairs.c[static_cast<std::uint64_t>(p >> 64)], 2);
        f = static_cast<std::uint64_t>(p);
    }
}

}  // namespace

void base36_encode64(std::uint64_t v, char* out) noexcept {
    // 13 digits: one leading digit (v / 36^12 is at most 3 for 2^64-1), then 12.
    out[0] = kAlpha.digits[v / kPow12];
    encode12(v % kPow12, out + 1);
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
