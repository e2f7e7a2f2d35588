#include "core/requests/idempotency.h"

#include <cstring>

#include "core/base/no_pg_check.h"

namespace idgen {

namespace {

bool ascii_control(unsigned char c) noexcept { return c < 0x20 || c == 0x7f; }

// A C1 control in UTF-8: U+0080..U+009F is 0xC2 0x80..0x9F.
bool utf8_c1_at(const char* s, std::size_t n, std::size_t i) noexcept {
    return i + 1 < n && static_cast<unsigned char>(s[i]) == 0xc2 && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
           static_cast<unsigned char>(s[i + 1]) <= 0x9f;
}

// Length of the UTF-8 sequence at s[i]: its lead byte's length when that many bytes are there
// and all of them after the lead are continuation bytes, 1 otherwise (so a control byte is never
// taken as part of a character).
std::size_t utf8_len(const char* s, std::size_t n, std::size_t i) noexcept {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
    if (i + len > n) return 1;
    for (std::size_t k = 1; k < len; ++k)
        if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return 1;
    return len;
}

}  // namespace

std::size_t idem_control_offset(const char* s, std::size_t n, bool utf8) noexcept {
    for (std::size_t i = 0; i < n; ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (ascii_control(c)) return i;
        if (utf8 && utf8_c1_at(s, n, i)) return i;
    }
    return kNoControl;
}

std::size_t idem_escape_for_message(const char* s, std::size_t n, bool utf8, char* out, std::size_t cap) noexcept {
    static constexpr char kHex[] = "0123456789abcdef";
    std::size_t o = 0;
    const std::size_t room = cap - 4;  // keeps space for "..." and the NUL
    for (std::size_t i = 0; i < n;) {
        const auto c = static_cast<unsigned char>(s[i]);
        char piece[8];
        std::size_t len = 0, used = 1;
        if (ascii_control(c)) {
            piece[0] = '\\', piece[1] = 'x', piece[2] = kHex[c >> 4], piece[3] = kHex[c & 15];
            len = 4;
        } else if (utf8 && utf8_c1_at(s, n, i)) {
            const auto d = static_cast<unsigned char>(s[i + 1]);
            piece[0] = '\\', piece[1] = 'u', piece[2] = '0', piece[3] = '0', piece[4] = kHex[d >> 4],
            piece[5] = kHex[d & 15];
            len = 6;
            used = 2;
        } else if (c == '"' || c == '\\') {
            piece[0] = '\\', piece[1] = static_cast<char>(c);
            len = 2;
        } else {
            used = utf8 ? utf8_len(s, n, i) : 1;
            std::memcpy(piece, s + i, used);
            len = used;
        }
        if (o + len > room) {
            std::memcpy(out + o, "...", 3);
            o += 3;
            break;
        }
        std::memcpy(out + o, piece, len);
        o += len;
        i += used;
    }
    out[o] = '\0';
    return o;
}

int idem_key_compare(const char* a, std::size_t na, const char* b, std::size_t nb) noexcept {
    const std::size_t n = na < nb ? na : nb;
    const int c = n == 0 ? 0 : std::memcmp(a, b, n);  // memcmp compares as unsigned char
    if (c != 0) return c < 0 ? -1 : 1;
    return na < nb ? -1 : na > nb ? 1 : 0;
}

Result<std::size_t> json_pointer_check(const char* s, std::size_t n) noexcept {
    if (n == 0) return std::size_t{0};
    if (s[0] != '/') return Error::kInvalidSyntax;
    std::size_t tokens = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (s[i] == '/') {
            ++tokens;
        } else if (s[i] == '~') {
            if (i + 1 >= n || (s[i + 1] != '0' && s[i + 1] != '1')) return Error::kInvalidSyntax;
            ++i;
        }
    }
    return tokens;
}

std::size_t json_pointer_token(const char* s, std::size_t n, std::size_t* pos, char* out) noexcept {
    std::size_t i = *pos + 1;  // past the '/'
    std::size_t o = 0;
    while (i < n && s[i] != '/') {
        if (s[i] == '~' && i + 1 < n) {
            out[o++] = s[i + 1] == '1' ? '/' : '~';
            i += 2;
        } else {
            out[o++] = s[i++];
        }
    }
    *pos = i;
    return o;
}

Result<std::uint32_t> json_pointer_index(const char* tok, std::size_t n) noexcept {
    if (n == 0 || (n > 1 && tok[0] == '0')) return Error::kInvalidSyntax;
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (tok[i] < '0' || tok[i] > '9') return Error::kInvalidSyntax;
        if (v <= 0x7fffffffULL) v = v * 10 + static_cast<std::uint64_t>(tok[i] - '0');
    }
    if (v > 0x7fffffffULL) return Error::kOutOfRange;
    return static_cast<std::uint32_t>(v);
}

}  // namespace idgen
