// libFuzzer target: the prefixed-ID parser. Invariants: never crash; an accepted input re-formats
// to itself with the body lower-cased; an input is accepted only if it has the documented shape.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/text/prefixed.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const char* s = reinterpret_cast<const char*>(data);
    auto parsed = idgen::prefixed_parse(s, size);
    if (parsed.ok()) {
        const std::size_t plen = parsed->prefix_len;
        if (plen < 1 || plen > idgen::kPrefixMaxLen || size != plen + 1 + idgen::kBase36Len128) __builtin_trap();
        if (!idgen::prefix_valid(s, plen) || s[plen] != '_') __builtin_trap();
        char out[idgen::kPrefixedMaxLen];
        auto n = idgen::prefixed_format(parsed->prefix, plen, parsed->id, out);
        if (!n.ok() || *n != size) __builtin_trap();
        for (std::size_t i = 0; i < size; ++i) {
            char c = s[i];
            if (i > plen && c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
            if (out[i] != c) __builtin_trap();
        }
    } else if (parsed.error() != idgen::Error::kInvalidSyntax && parsed.error() != idgen::Error::kOutOfRange) {
        __builtin_trap();
    }
    // Any prefix the rule accepts formats any 16 bytes into text that parses back.
    if (size >= 17) {
        const std::size_t plen = 1 + data[16] % idgen::kPrefixMaxLen;
        if (size >= 17 + plen && idgen::prefix_valid(s + 17, plen)) {
            std::uint8_t id[16];
            std::memcpy(id, data, 16);
            char out[idgen::kPrefixedMaxLen];
            auto n = idgen::prefixed_format(s + 17, plen, id, out);
            if (!n.ok()) __builtin_trap();
            auto back = idgen::prefixed_parse(out, *n);
            if (!back.ok() || std::memcmp(back->id, id, 16) != 0 || back->prefix_len != plen) __builtin_trap();
        }
    }
    return 0;
}
