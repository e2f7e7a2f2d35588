// libFuzzer target: the UUID text parser and formatter (the C++ library reads uuid columns and
// parameters with them). Invariants: never crash; an accepted input holds exactly 32 hex digits,
// which the canonical form repeats in lower case; the canonical form parses back to the same
// bytes; any 16 bytes format to text that parses back.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/text/uuid_text.h"

namespace {
char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const char* text = reinterpret_cast<const char*>(data);
    auto parsed = idgen::uuid_parse(text, size);
    if (parsed.ok()) {
        char out[idgen::kUuidTextLen];
        idgen::uuid_format(*parsed, out);
        // The hex digits of the input, in order, are the canonical form's.
        std::size_t o = 0;
        for (std::size_t i = 0; i < size; ++i) {
            const char c = lower(text[i]);
            if (c == '-' || c == '{' || c == '}') continue;
            while (o < sizeof out && out[o] == '-') ++o;
            if (o == sizeof out || out[o] != c) __builtin_trap();
            ++o;
        }
        if (o != sizeof out) __builtin_trap();
        auto back = idgen::uuid_parse(out, sizeof out);
        if (!back.ok() || std::memcmp(back->bytes, parsed->bytes, 16) != 0) __builtin_trap();
    }
    if (size >= 16) {
        idgen::Uuid u;
        std::memcpy(u.bytes, data, 16);
        char out[idgen::kUuidTextLen];
        idgen::uuid_format(u, out);
        auto back = idgen::uuid_parse(out, sizeof out);
        if (!back.ok() || std::memcmp(back->bytes, u.bytes, 16) != 0) __builtin_trap();
    }
    return 0;
}
