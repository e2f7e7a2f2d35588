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

// (hi * 2^64 + lo) / d with its remainder, for hi < d (so the quotient fits in 64 bits): one DIV
// instruction on x86-64, where a 128-bit division by a constant is otherwise a library call.
inline std::uint64_t div_128_64(std::uint64_t hi, std::uint64_t lo, std::uint64_t d, std::uint64_t* rem) noexcept {
#if defined(__x86_64__)
    std::uint64_t q, r;
    __asm__("divq %4" : "=a"(q), "=d"(r) : "a"(lo), "d"(hi), "rm"(d) : "cc");
    *rem = r;
    return q;
#else
    const unsigned __int128 v = (static_cast<unsigned __int128>(hi) << 64) | lo;
    *rem = static_cast<std::uint64_t>(v % d);
    return static_cast<std::uint64_t>(v / d);
#endif
}

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

// The 6 digits of v < 36^6.
inline void encode6(std::uint32_t v, char* out) noexcept {
    constexpr std::uint32_t kPow4 = 36 * 36 * 36 * 36;
    const std::uint32_t low = v % kPow4;
    std::memcpy(out, kPairs.c[v / kPow4], 2);
    std::memcpy(out + 2, kPairs.c[low / (36 * 36)], 2);
    std::memcpy(out + 4, kPairs.c[low % (36 * 36)], 2);
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

void base36_encode128(unsigned __int128 v, char* out) noexcept {
    // v / 36^12 by long division in 64-bit digits: the high word first, then the rest.
    const auto hi = static_cast<std::uint64_t>(v >> 64);
    std::uint64_t lo, mid;
    const std::uint64_t q_hi = hi / kPow12;  // < 4
    const std::uint64_t q_lo = div_128_64(hi % kPow12, static_cast<std::uint64_t>(v), kPow12, &lo);
    // (q_hi * 2^64 + q_lo) / 36^12: q_hi < 4 < 36^12.
    const std::uint64_t top = div_128_64(q_hi, q_lo, kPow12, &mid);  // < 2^128 / 36^24 < 16
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
