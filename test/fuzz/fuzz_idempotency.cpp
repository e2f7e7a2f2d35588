// libFuzzer target: the idempotency store's text rules. Invariants: never crash; a pointer the
// checker accepts splits into exactly the tokens it counted, and escaping them again rebuilds it;
// an array index is the decimal number the token spells (no sign, no leading zero); a label
// escaped for a message is NUL-terminated, within its buffer, and has no control byte; the
// fingerprint's key order is a total order that equals code point order on valid UTF-8.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/requests/idempotency.h"

namespace {

// Strict UTF-8 (no overlong form, no surrogate, at most U+10FFFF) to code points; false if invalid.
bool decode_utf8(const char* s, std::size_t n, std::vector<std::uint32_t>& out) {
    for (std::size_t i = 0; i < n;) {
        const auto c = static_cast<unsigned char>(s[i]);
        std::size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        if (len == 0 || i + len > n) return false;
        std::uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1f) : len == 3 ? (c & 0x0f) : (c & 0x07);
        for (std::size_t k = 1; k < len; ++k) {
            const auto d = static_cast<unsigned char>(s[i + k]);
            if ((d & 0xc0) != 0x80) return false;
            cp = (cp << 6) | (d & 0x3f);
        }
        const std::uint32_t min = len == 1 ? 0 : len == 2 ? 0x80 : len == 3 ? 0x800 : 0x10000;
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
        out.push_back(cp);
        i += len;
    }
    return true;
}

}  // namespace

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
                if (tok[i] == '~')
                    rebuilt += "~0";
                else if (tok[i] == '/')
                    rebuilt += "~1";
                else
                    rebuilt += tok[i];
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
    // Key order: a total order (antisymmetric, reflexive) and, on valid UTF-8, code point order.
    {
        const std::size_t half = size / 2;
        const char* b = s + half;
        const std::size_t na = half, nb = size - half;
        const int ab = idgen::idem_key_compare(s, na, b, nb), ba = idgen::idem_key_compare(b, nb, s, na);
        if ((ab < 0) != (ba > 0) || (ab == 0) != (ba == 0) || idgen::idem_key_compare(s, na, s, na) != 0)
            __builtin_trap();
        if (ab == 0 && (na != nb || std::memcmp(s, b, na) != 0)) __builtin_trap();
        std::vector<std::uint32_t> ca, cb;
        if (decode_utf8(s, na, ca) && decode_utf8(b, nb, cb)) {
            const int cp = ca < cb ? -1 : cb < ca ? 1 : 0;
            if ((ab < 0 ? -1 : ab > 0 ? 1 : 0) != cp) __builtin_trap();
        }
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
