// libFuzzer target: the base36 parsers and encoders. Invariants: never crash; an accepted input
// re-encodes to the same digits (lower-cased, zero-padded, leading zeros beyond the width
// dropped); a rejected one is rejected for the right reason; any 8 / 16 bytes encode to text that
// decodes back.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/text/base36.h"

namespace {

int digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'z') return c - 'a' + 10;
    if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
    return -1;
}

// The input without leading zeros, lower-cased, padded to `width`; false if longer than width.
bool canonical(const char* s, std::size_t n, std::size_t width, char* out) {
    std::size_t start = 0;
    while (start + 1 < n && s[start] == '0') ++start;
    const std::size_t len = n - start;
    if (len > width) return false;
    std::memset(out, '0', width - len);
    for (std::size_t i = 0; i < len; ++i) {
        char c = s[start + i];
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        out[width - len + i] = c;
    }
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const char* s = reinterpret_cast<const char*>(data);
    bool all_digits = size > 0;
    for (std::size_t i = 0; i < size; ++i) all_digits &= digit(s[i]) >= 0;

    auto v64 = idgen::base36_decode64(s, size);
    auto v128 = idgen::base36_decode128(s, size);
    if (!all_digits) {
        if (v64.error() != idgen::Error::kInvalidSyntax || v128.error() != idgen::Error::kInvalidSyntax)
            __builtin_trap();
    } else {
        if (!v64.ok() && v64.error() != idgen::Error::kOutOfRange) __builtin_trap();
        if (!v128.ok() && v128.error() != idgen::Error::kOutOfRange) __builtin_trap();
        if (v64.ok() && (!v128.ok() || *v128 != *v64)) __builtin_trap();  // the same number
        char want[idgen::kBase36Len128], got[idgen::kBase36Len128];
        if (v64.ok()) {
            idgen::base36_encode64(*v64, got);
            if (!canonical(s, size, idgen::kBase36Len64, want) || std::memcmp(want, got, idgen::kBase36Len64) != 0)
                __builtin_trap();
        }
        if (v128.ok()) {
            idgen::base36_encode128(*v128, got);
            if (!canonical(s, size, idgen::kBase36Len128, want) || std::memcmp(want, got, idgen::kBase36Len128) != 0)
                __builtin_trap();
        }
    }
    if (size >= 16) {
        std::uint64_t a;
        std::memcpy(&a, data, 8);
        char t64[idgen::kBase36Len64];
        idgen::base36_encode64(a, t64);
        auto back = idgen::base36_decode64(t64, sizeof t64);
        if (!back.ok() || *back != a) __builtin_trap();
        unsigned __int128 b;
        std::memcpy(&b, data, 16);
        char t128[idgen::kBase36Len128];
        idgen::base36_encode128(b, t128);
        auto back128 = idgen::base36_decode128(t128, sizeof t128);
        if (!back128.ok() || *back128 != b) __builtin_trap();
    }
    return 0;
}
