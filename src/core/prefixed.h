// id_gen core: prefixed typed IDs, `<prefix>_<base36 body>` (e.g. acct_0b6ol7g0qk5tbhc8y8hbzs2sf).
//
// The prefix names an entity type: 1 to 16 characters, lower-case ASCII letters and digits,
// starting with a letter (no underscore, so the first '_' always ends the prefix). The body is the
// 128-bit ID in base36, exactly 25 characters (fixed width, so text order = ID order within a
// prefix); it is read case-insensitively, the prefix is not (prefixes are lower case).
#pragma once

#include <cstddef>
#include <cstdint>

#include "base36.h"
#include "result.h"

namespace idgen {

inline constexpr std::size_t kPrefixMaxLen = 16;
inline constexpr std::size_t kPrefixedMaxLen = kPrefixMaxLen + 1 + kBase36Len128;

// True when p[0..n) is an acceptable prefix: ^[a-z][a-z0-9]{0,15}$.
[[nodiscard]] bool prefix_valid(const char* p, std::size_t n) noexcept;

// Writes prefix, '_', 25 base36 characters into out (room for kPrefixedMaxLen) and returns the
// length written; kInvalidPrefix if the prefix is not acceptable.
[[nodiscard]] Result<std::size_t> prefixed_format(const char* prefix, std::size_t prefix_len,
                                                  const std::uint8_t (&id)[16], char* out) noexcept;

struct PrefixedId {
    std::uint8_t prefix_len;
    char prefix[kPrefixMaxLen];
    std::uint8_t id[16];
};

// Splits `<prefix>_<25 base36 characters>`: kInvalidSyntax for any other shape (bad prefix, no
// '_', a body that is not 25 base36 digits), kOutOfRange for a body above 2^128-1.
[[nodiscard]] Result<PrefixedId> prefixed_parse(const char* s, std::size_t n) noexcept;

}  // namespace idgen
