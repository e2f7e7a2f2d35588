// id_gen core: the one table of error codes, SQLSTATEs and message texts.
//
// The extension (src/pg/base/errors.cpp) raises a core error with the SQLSTATE, message, detail and
// hint written here; the C++ library (src/lib) throws id_gen::error with the same SQLSTATE and
// message. A message names the SQL type ("{type}") and the offending value ("{value}"), which is
// clipped the same way on both sides (clip_shown_value).
#pragma once

#include <cstddef>

#include "core/base/result.h"

namespace idgen {

struct ErrorText {
    Error code;
    const char* sqlstate;  // five characters
    const char* message;   // with {type} and {value}
    const char* detail;    // nullptr: none
    const char* hint;      // nullptr: none
    bool soft;             // a soft error (errsave) where the SQL caller asked for one: bad input
};

// Every code but kOk, in the enum's order.
inline constexpr int kErrorCodeCount = static_cast<int>(Error::kNoOutcome);

// The entry of `e`; nullptr for kOk and for a value that is no code.
const ErrorText* error_text(Error e) noexcept;

// The message of `e` for SQL type `type` and the (already clipped) value value[0..value_len),
// written into out[0..cap) NUL-terminated and cut if it does not fit; returns the length of the
// whole message (as snprintf). An unknown code gives "id_gen: unknown error code N".
std::size_t error_message(Error e, const char* type, const char* value, std::size_t value_len, char* out,
                          std::size_t cap) noexcept;

// The offending value as a message shows it: shorter than kShownValueCap bytes, as it is; longer,
// its first bytes up to kShownValueCap - 4, cut at a character boundary, then "...".
inline constexpr std::size_t kShownValueCap = 256;

// How many bytes of s[0..n) to keep, at most `limit`, ending at a character boundary.
using ClipLength = std::size_t (*)(const char* s, std::size_t n, std::size_t limit) noexcept;

// UTF-8's boundary rule: never before a continuation byte (the library's; the extension passes
// the database encoding's rule).
std::size_t utf8_clip_length(const char* s, std::size_t n, std::size_t limit) noexcept;

// Writes the value as shown into dst (kShownValueCap bytes), NUL-terminated; returns its length.
std::size_t clip_shown_value(const char* src, std::size_t n, char (&dst)[kShownValueCap], ClipLength clip) noexcept;

}  // namespace idgen
