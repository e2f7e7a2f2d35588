#include "core/text/base62.h"
#include "core/text/radix_digits.h"

#include "core/base/no_pg_check.h"

namespace idgen {
namespace {

constexpr radix::Alphabet<62> kAlpha{"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
                                     /*fold_case=*/false};

// 62^10 fits in 64 bits (62^11 does not): values are split into 64-bit chunks of 10 digits.
constexpr std::uint64_t kPow10 = 839299365868340224ULL;  // 62^10
static_assert(kPow10 == 62ULL * 62 * 62 * 62 * 62 * 62 * 62 * 62 * 62 * 62);

// The largest value of each width as (leading part, low 10 digits): a value is in range when its
// leading part is below the maximum's, or equal with low digits not above the maximum's.
constexpr std::uint64_t kMax64 = ~std::uint64_t{0};
constexpr std::uint64_t kMax64Head = kMax64 / kPow10, kMax64Low = kMax64 % kPow10;
constexpr unsigned __int128 kMax128 = ~static_cast<unsigned __int128>(0);
constexpr unsigned __int128 kMax128Head = kMax128 / kPow10;
constexpr std::uint64_t kMax128Low = static_cast<std::uint64_t>(kMax128 % kPow10);

}  // namespace

void base62_encode64(std::uint64_t v, char* out) noexcept {
    // 11 digits: one leading digit (v / 62^10 is at most 21 for 2^64-1), then 10.
    out[0] = kAlpha.digits[v / kPow10];
    kAlpha.encode_low<10>(v % kPow10, out + 1);
}

void base62_encode128(unsigned __int128 v, char* out) noexcept {
    const auto lo = static_cast<std::uint64_t>(v % kPow10);
    v /= kPow10;
    const auto mid = static_cast<std::uint64_t>(v % kPow10);
    v /= kPow10;  // < 2^128 / 62^20 < 484: two digits
    const auto top = static_cast<unsigned>(v);
    out[0] = kAlpha.digits[top / 62];
    out[1] = kAlpha.digits[top % 62];
    kAlpha.encode_low<10>(mid, out + 2);
    kAlpha.encode_low<10>(lo, out + 12);
}

Result<std::uint64_t> base62_decode64(const char* s, std::size_t n) noexcept {
    if (n != kBase62Len64 || !kAlpha.all_digits(s, n)) return Error::kInvalidSyntax;
    const std::uint64_t head = kAlpha.decode_small(s, 1), low = kAlpha.decode_small(s + 1, 10);
    if (head > kMax64Head || (head == kMax64Head && low > kMax64Low)) return Error::kOutOfRange;
    return head * kPow10 + low;
}

Result<unsigned __int128> base62_decode128(const char* s, std::size_t n) noexcept {
    if (n != kBase62Len128 || !kAlpha.all_digits(s, n)) return Error::kInvalidSyntax;
    // head = the 12 leading digits (< 62^12 < 2^72: fits in 128 bits), low = the last 10.
    const unsigned __int128 head =
        static_cast<unsigned __int128>(kAlpha.decode_small(s, 2)) * kPow10 + kAlpha.decode_small(s + 2, 10);
    const std::uint64_t low = kAlpha.decode_small(s + 12, 10);
    if (head > kMax128Head || (head == kMax128Head && low > kMax128Low)) return Error::kOutOfRange;
    return head * kPow10 + low;
}

}  // namespace idgen
