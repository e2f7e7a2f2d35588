// id_gen: bounded, encoding-safe copies of offending input for error messages.
#pragma once

#include <cstddef>
#include <cstring>

extern "C" {
#include "postgres.h"
#include "mb/pg_wchar.h"
}

namespace idgen::pg {

// Copies s[0..n) into buf (NUL-terminated). Input longer than the buffer is cut at a character
// boundary (never inside a multibyte character) and marked with "...". Cannot raise.
template <std::size_t N>
inline const char* clip_value(const char* s, std::size_t n, char (&buf)[N]) noexcept {
    static_assert(N >= 16);
    if (n < N) {
        std::memcpy(buf, s, n);
        buf[n] = '\0';
        return buf;
    }
    const int keep = pg_mbcliplen(s, static_cast<int>(n > 0x7fffffff ? 0x7fffffff : n), static_cast<int>(N - 4));
    std::memcpy(buf, s, static_cast<std::size_t>(keep));
    std::memcpy(buf + keep, "...", 4);
    return buf;
}

}  // namespace idgen::pg
