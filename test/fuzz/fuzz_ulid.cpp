// libFuzzer target: the ULID parser and formatter. Invariants: never crash; any accepted input
// re-formats to the same text, upper-cased; any 16 bytes format to text that parses back.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/types/ulid.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const char* text = reinterpret_cast<const char*>(data);
    auto parsed = idgen::ulid_parse(text, size);
    if (parsed.ok()) {
        char out[idgen::kUlidTextLen];
        idgen::ulid_format(*parsed, out);
        for (std::size_t i = 0; i < idgen::kUlidTextLen; ++i) {
            char c = text[i];
            if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
            if (out[i] != c) __builtin_trap();
        }
    }
    if (size >= sizeof(idgen::Ulid)) {
        idgen::Ulid u;
        std::memcpy(u.bytes, data, sizeof u.bytes);
        char out[idgen::kUlidTextLen];
        idgen::ulid_format(u, out);
        auto back = idgen::ulid_parse(out, sizeof out);
        if (!back.ok() || std::memcmp(back->bytes, u.bytes, sizeof u.bytes) != 0) __builtin_trap();
    }
    return 0;
}
