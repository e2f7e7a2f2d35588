// id_gen: a bytea shown as PostgreSQL's hex text (\x...), for the message of a wrong-length cast.
// Only palloc: call it in an entry point's prologue or right before failure.fail().
#pragma once

#include <cstddef>

extern "C" {
#include "postgres.h"
}

namespace idgen::pg {

// The first 100 bytes of `b` as \x + hex, "..." when there were more; palloc'd, NUL-terminated.
inline char* bytea_hex_for_message(const unsigned char* b, std::size_t n) {
    const std::size_t shown = n < 100 ? n : 100;
    char* hex = static_cast<char*>(palloc(2 + 2 * shown + 4));
    static constexpr char digits[] = "0123456789abcdef";
    std::size_t k = 0;
    hex[k++] = '\\';
    hex[k++] = 'x';
    for (std::size_t i = 0; i < shown; ++i) {
        hex[k++] = digits[b[i] >> 4];
        hex[k++] = digits[b[i] & 0xF];
    }
    if (shown < n) {
        hex[k++] = '.';
        hex[k++] = '.';
        hex[k++] = '.';
    }
    hex[k] = '\0';
    return hex;
}

}  // namespace idgen::pg
