#include "base36.h"
#include "radix_digits.h"

#include "no_pg_check.h"

namespace idgen {
namespace {

constexpr radix::Alphabet<36> kAlpha{"0123456789abcdefghijklmnopqrstuvwxyz", /*fold_case=*/true};

// 36^12 fits in 64 bits; a 128-bit value is split into 64-bit chunks of 12 digits each so that
// only two 128-bit divisions are needed per encode.
constexpr std::uint64_t kPow12 = 4738381338321616896ULL;  // 36^12

}  // namespace

void base36_encode64(std::uint64_t v, char* out) noexcept {
    // 13 digits: one leading digit (v / 36^12 is at most 3 for 2^64-1), then 12.
    out[0] = kAlpha.digits[v / kPow12];
    kAlpha.encode_low<12>(v % kPow12, out + 1);
}

void base36_encode128(unsigned __int128 v, char* out) noexcept {
    const auto lo = static_cast<std::uint64_t>(v % kPow12);
    v /= kPow12;
    const auto mid = static_cast<std::uint64_t>(v % kPow12);
    v /= kPow12;  // < 2^128 / 36^24 < 16
    out[0] = kAlpha.digits[static_cast<unsigned>(v)];
    kAlpha.encode_low<12>(mid, out + 1);
    kAlpha.encode_low<12>(lo, out + 13);
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
