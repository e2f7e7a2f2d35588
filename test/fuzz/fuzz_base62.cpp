// libFuzzer target: the base62 parsers and encoders, and prefixed IDs with a base62 body.
// Invariants: never crash; an input is accepted only when it is exactly 11 (22) characters of
// 0-9A-Za-z, and then re-encodes to the same bytes; a rejected input of the right shape is out
// of range, of any other shape a syntax error; any 8 / 16 bytes encode to text that decodes back;
// bytewise text order of two encodings is the numeric order.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/text/base62.h"
#include "core/text/prefixed.h"

namespace {

bool is_digit62(char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

bool shape(const char* s, std::size_t n, std::size_t width) {
    if (n != width) return false;
    for (std::size_t i = 0; i < n; ++i)
        if (!is_digit62(s[i])) return false;
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const char* s = reinterpret_cast<const char*>(data);

    auto v64 = idgen::base62_decode64(s, size);
    if (!shape(s, size, idgen::kBase62Len64)) {
        if (v64.error() != idgen::Error::kInvalidSyntax) __builtin_trap();
    } else if (v64.ok()) {
        char back[idgen::kBase62Len64];
        idgen::base62_encode64(*v64, back);
        if (std::memcmp(back, s, size) != 0) __builtin_trap();
    } else if (v64.error() != idgen::Error::kOutOfRange || std::memcmp(s, "LygHa16AHYF", size) <= 0) {
        __builtin_trap();  // out of range exactly when the text sorts above the largest value's
    }

    auto v128 = idgen::base62_decode128(s, size);
    if (!shape(s, size, idgen::kBase62Len128)) {
        if (v128.error() != idgen::Error::kInvalidSyntax) __builtin_trap();
    } else if (v128.ok()) {
        char back[idgen::kBase62Len128];
        idgen::base62_encode128(*v128, back);
        if (std::memcmp(back, s, size) != 0) __builtin_trap();
    } else if (v128.error() != idgen::Error::kOutOfRange || std::memcmp(s, "7n42DGM5Tflk9n8mt7Fhc7", size) <= 0) {
        __builtin_trap();
    }

    // Prefixed with a base62 body: accepted ones format back to the same text.
    auto p = idgen::prefixed_parse(s, size, idgen::PrefixedBody::kBase62);
    if (p.ok()) {
        char out[idgen::kPrefixedMaxLen];
        auto n = idgen::prefixed_format(p->prefix, p->prefix_len, p->id, out, idgen::PrefixedBody::kBase62);
        if (!n.ok() || *n != size || std::memcmp(out, s, size) != 0) __builtin_trap();
    }

    if (size >= 32) {
        std::uint64_t a, b;
        std::memcpy(&a, data, 8);
        std::memcpy(&b, data + 8, 8);
        char ta[idgen::kBase62Len64], tb[idgen::kBase62Len64];
        idgen::base62_encode64(a, ta);
        idgen::base62_encode64(b, tb);
        auto back = idgen::base62_decode64(ta, sizeof ta);
        if (!back.ok() || *back != a) __builtin_trap();
        const int c = std::memcmp(ta, tb, sizeof ta);
        if ((a < b) != (c < 0) || (a == b) != (c == 0)) __builtin_trap();
        unsigned __int128 x, y;
        std::memcpy(&x, data, 16);
        std::memcpy(&y, data + 16, 16);
        char tx[idgen::kBase62Len128], ty[idgen::kBase62Len128];
        idgen::base62_encode128(x, tx);
        idgen::base62_encode128(y, ty);
        auto back128 = idgen::base62_decode128(tx, sizeof tx);
        if (!back128.ok() || *back128 != x) __builtin_trap();
        const int d = std::memcmp(tx, ty, sizeof tx);
        if ((x < y) != (d < 0) || (x == y) != (d == 0)) __builtin_trap();
    }
    return 0;
}
