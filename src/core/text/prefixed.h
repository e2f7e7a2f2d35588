// id_gen core: prefixed typed IDs, `<prefix>_<body>` (e.g. acct_0b6ol7g0qk5tbhc8y8hbzs2sf).
//
// The prefix names an entity type: 1 to 16 characters, lower-case ASCII letters and digits,
// starting with a letter (no underscore, so the first '_' always ends the prefix). The body is the
// 128-bit ID in base36, exactly 25 characters, read case-insensitively (the default), or, when the
// caller asks for it, in base62, exactly 22 characters, read as written. Either is fixed width, so
// text order = ID order within a prefix (for base62 under a bytewise collation). The encoding is
// the caller's choice, never guessed from the length: a base36 body cut short by 3 characters must
// not be read as some other base62 ID.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/base/result.h"
#include "core/text/base36.h"
#include "core/text/base62.h"

namespace idgen {

inline constexpr std::size_t kPrefixMaxLen = 16;
inline constexpr std::size_t kPrefixedMaxLen = kPrefixMaxLen + 1 + kBase36Len128;  // the longer body
static_assert(kBase62Len128 <= kBase36Len128);

// How the body is written.
enum class PrefixedBody : std::uint8_t { kBase36, kBase62 };

// The body's length in characters.
[[nodiscard]] constexpr std::size_t prefixed_body_len(PrefixedBody body) noexcept {
    return body == PrefixedBody::kBase62 ? kBase62Len128 : kBase36Len128;
}

// True when p[0..n) is an acceptable prefix: ^[a-z][a-z0-9]{0,15}$.
[[nodiscard]] bool prefix_valid(const char* p, std::size_t n) noexcept;

// Writes prefix, '_', the body (25 base36 or 22 base62 characters) into out (room for
// kPrefixedMaxLen) and returns the length written; kInvalidPrefix if the prefix is not acceptable.
// prefixed_format() for a prefix already found valid (prefix_valid(prefix, prefix_len)): no check
// (gen_prefixed()'s cached prefixes, checked once before they were cached). `out` has room for
// kPrefixedMaxLen characters.
[[nodiscard]] std::size_t prefixed_format_valid(const char* prefix, std::size_t prefix_len,
                                                const std::uint8_t (&id)[16], char* out, PrefixedBody body) noexcept;

// prefixed_format_valid() for a valid prefix held at the start of a kPrefixMaxLen-byte buffer:
// the buffer is copied whole (one fixed-size copy, no call) and '_' written over what follows the
// prefix, then the body of the ID (its 16 bytes as one big-endian integer).
[[nodiscard]] inline std::size_t prefixed_format_padded(const char (&prefix)[kPrefixMaxLen], std::size_t prefix_len,
                                                        unsigned __int128 id, char* out, PrefixedBody body) noexcept {
    std::memcpy(out, prefix, kPrefixMaxLen);
    out[prefix_len] = '_';
    if (body == PrefixedBody::kBase62) {
        base62_encode128(id, out + prefix_len + 1);
    } else {
        base36_encode128(id, out + prefix_len + 1);
    }
    return prefix_len + 1 + prefixed_body_len(body);
}

[[nodiscard]] Result<std::size_t> prefixed_format(const char* prefix, std::size_t prefix_len,
                                                  const std::uint8_t (&id)[16], char* out,
                                                  PrefixedBody body = PrefixedBody::kBase36) noexcept;

struct PrefixedId {
    std::uint8_t prefix_len;
    char prefix[kPrefixMaxLen];
    std::uint8_t id[16];
};

// Splits `<prefix>_<body>` (25 base36 or 22 base62 characters, as `body` says): kInvalidSyntax for
// any other shape (bad prefix, no '_', a body that is not that many digits of its encoding),
// kOutOfRange for a body above 2^128-1.
[[nodiscard]] Result<PrefixedId> prefixed_parse(const char* s, std::size_t n,
                                                PrefixedBody body = PrefixedBody::kBase36) noexcept;

}  // namespace idgen
