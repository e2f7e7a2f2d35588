// id_gen core: the text rules of the idempotency-key store.
//
// Labels (a scope, a key, an attempt ID, a recovery point) are opaque text, 1 to 255 characters
// long, without control characters: they end up in error messages and so in the server log,
// where a line feed would let a caller forge log lines. The glue counts characters in the
// database encoding; the core finds control characters and writes a label safely into a message.
//
// Fingerprints select parts of a JSON payload with JSON Pointers (RFC 6901): "" is the whole
// document, "/a/0/b~1c" the member "b/c" of element 0 of member "a" ("~1" stands for "/", "~0"
// for "~"). The core checks a pointer and splits it into its unescaped reference tokens.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/base/result.h"

namespace idgen {

inline constexpr std::size_t kIdemLabelMaxChars = 255;
// A stored fingerprint is compared, never shown: any text up to this many characters (a SHA-256
// in hex, as idempotency_fingerprint() writes, is 64).
inline constexpr std::size_t kIdemFingerprintMaxChars = 1024;
inline constexpr std::size_t kNoControl = static_cast<std::size_t>(-1);

// Byte offset of the first control character in s[0..n), or kNoControl. Control characters are
// U+0000 to U+001F and U+007F, and, when `utf8` (the bytes are valid UTF-8), U+0080 to U+009F.
// In the other server encodings no byte of a multibyte character is below 0x80, so the ASCII
// controls are found the same way.
[[nodiscard]] std::size_t idem_control_offset(const char* s, std::size_t n, bool utf8) noexcept;

// Writes s[0..n) into out (capacity cap >= 8, NUL-terminated) with every control character (as
// idem_control_offset() defines them), '"' and '\' written as an escape (\x0a, \u0085, \", \\);
// cut at `cap` with "..." and never inside a UTF-8 character (when `utf8`). Returns the length.
std::size_t idem_escape_for_message(const char* s, std::size_t n, bool utf8, char* out, std::size_t cap) noexcept;

// The order of object keys (and of paths) in a fingerprint's canonical JSON: by their UTF-8
// bytes, unsigned, a prefix first. For valid UTF-8 this is Unicode code point order, whatever the
// database encoding the keys came from (the glue converts them to UTF-8 first). <0, 0 or >0.
[[nodiscard]] int idem_key_compare(const char* a, std::size_t na, const char* b, std::size_t nb) noexcept;

// Checks a JSON Pointer: "" or "/" followed by tokens separated by "/", where "~" is always
// followed by "0" or "1". kInvalidSyntax otherwise. The value is the number of tokens.
[[nodiscard]] Result<std::size_t> json_pointer_check(const char* s, std::size_t n) noexcept;

// For a pointer json_pointer_check() accepted: the token starting at s[*pos] (a '/'), unescaped
// into out (room for the token's escaped length, which it never exceeds). Advances *pos to the
// next '/' or to n. Returns the unescaped length.
std::size_t json_pointer_token(const char* s, std::size_t n, std::size_t* pos, char* out) noexcept;

// A token read as an array index: "0" or a digit 1-9 followed by digits (RFC 6901: no sign, no
// leading zero), at most 2^31 - 1. kInvalidSyntax for any other token (it names no element),
// kOutOfRange for a larger number.
[[nodiscard]] Result<std::uint32_t> json_pointer_index(const char* tok, std::size_t n) noexcept;

}  // namespace idgen
