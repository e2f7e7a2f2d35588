// TEMPORARY (snowflake branch): see base36.h.
#include "base36.h"

#include "no_pg_check.h"

namespace idgen {

void base36_encode64(std::uint64_t v, char* out) noexcept {
    static constexpr char kDigits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
    for (std::size_t i = kBase36Len64; i-- > 0;) {
        out[i] = kDigits[v % 36];
        v /= 36;
    }
}

Result<std::uint64_t> base36_decode64(const char* s, std::size_t n) noexcept {
    if (n != kBase36Len64) return Error::kInvalidSyntax;
    unsigned __int128 v = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const char c = s[i];
        unsigned d;
        if (c >= '0' && c <= '9') d = static_cast<unsigned>(c - '0');
        else if (c >= 'a' && c <= 'z') d = static_cast<unsigned>(c - 'a' + 10);
        else if (c >= 'A' && c <= 'Z') d = static_cast<unsigned>(c - 'A' + 10);
        else return Error::kInvalidSyntax;
        v = v * 36 + d;
    }
    if (v > ~std::uint64_t{0}) return Error::kOutOfRange;
    return static_cast<std::uint64_t>(v);
}

}  // namespace idgen
