// libFuzzer target: the idempotency store's text rules. Invariants: never crash; a pointer the
// checker accepts splits into exactly the tokens it counted, and escaping them again rebuilds it;
// an array index is the decimal number the token spells (no sign, no leading zero); a label
// escaped for a message is NUL-terminated, within its buffer, and has no control byte.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/idempotency.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const char* s = reinterpret_cast<const char*>(data);
    auto count = idgen::json_pointer_check(s, size);
    if (count.ok()) {
        std::string rebuilt, tok(size + 1, '\0');
        std::size_t pos = 0, tokens = 0;
        while (pos < size) {
            if (s[pos] != '/') __builtin_trap();
            const std::size_t n = idgen::json_pointer_token(s, size, &pos, tok.data());
            if (n > size) __builtin_trap();
            rebuilt += '/';
            for (std::size_t i = 0; i < n; ++i) {
                if (tok[i] == '~') rebuilt += "~0";
                else if (tok[i] == '/') rebuilt += "~1";
                else rebuilt += tok[i];
            }
            ++tokens;
            auto index = idgen::json_pointer_index(tok.data(), n);
            if (index.ok()) {
                if (n == 0 || (n > 1 && tok[0] == '0')) __builtin_trap();
                std::uint64_t v = 0;
                for (std::size_t i = 0; i < n; ++i) {
                    if (tok[i] < '0' || tok[i] > '9') __builtin_trap();
                    v = v * 10 + static_cast<std::uint64_t>(tok[i] - '0');
                }
                if (v != *index || v > 0x7fffffffULL) __builtin_trap();
            }
        }
        if (tokens != *count || rebuilt != std::string(s, size)) __builtin_trap();
    } else if (count.error() != idgen::Error::kInvalidSyntax) {
        __builtin_trap();
    }
    for (bool utf8 : {true, false}) {
        char out[64];
        const std::size_t cap = 8 + (size % 57);
        const std::size_t n = idgen::idem_escape_for_message(s, size, utf8, out, cap);
        if (n >= cap || out[n] != '\0') __builtin_trap();
        for (std::size_t i = 0; i < n; ++i) {
            const auto c = static_cast<unsigned char>(out[i]);
            if (c < 0x20 || c == 0x7f) __builtin_trap();
        }
        const std::size_t at = idgen::idem_control_offset(s, size, utf8);
        if (at != idgen::kNoControl && at >= size) __builtin_trap();
    }
    return 0;
}
