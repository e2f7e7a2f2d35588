// id_gen core: base36 text for 64- and 128-bit IDs.
//
// Output is lower-case 0-9a-z and FIXED WIDTH (zero-padded): 13 characters for 64 bits, 25 for
// 128 bits (36^13 > 2^64, 36^25 > 2^128), so that for any two values of one width the byte order of
// their text equals their numeric order. Input is case-insensitive and may be shorter (leading
// zeros optional) or carry extra leading zeros; the value, not the length, decides overflow.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/base/result.h"

namespace idgen {

inline constexpr std::size_t kBase36Len64 = 13, kBase36Len128 = 25;

// Writes exactly 13 (resp. 25) lower-case characters, zero-padded, no terminator.
void base36_encode64(std::uint64_t v, char* out) noexcept;
void base36_encode128(unsigned __int128 v, char* out) noexcept;

// Parses 1 or more base36 digits, either case. Empty input or any character outside 0-9a-zA-Z is
// kInvalidSyntax (checked over the whole input first); a well-formed value above 2^64-1
// (resp. 2^128-1) is kOutOfRange.
[[nodiscard]] Result<std::uint64_t> base36_decode64(const char* s, std::size_t n) noexcept;
[[nodiscard]] Result<unsigned __int128> base36_decode128(const char* s, std::size_t n) noexcept;

}  // namespace idgen
