// id_gen core: base62 text for 64- and 128-bit IDs.
//
// Alphabet 0-9A-Za-z, in ASCII order, so that byte order of the text equals numeric order. Output
// and input are FIXED WIDTH: 11 characters for 64 bits, 22 for 128 bits (62^11 > 2^64,
// 62^22 > 2^128). Decoding is strict: exactly that many characters, each from the alphabet (case is
// part of the digit, so there is no case folding); a value above the width's range is out of range.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/base/result.h"

namespace idgen {

inline constexpr std::size_t kBase62Len64 = 11, kBase62Len128 = 22;

// Writes exactly 11 (resp. 22) characters of 0-9A-Za-z, zero-padded, no terminator.
void base62_encode64(std::uint64_t v, char* out) noexcept;
void base62_encode128(unsigned __int128 v, char* out) noexcept;

// Parses exactly 11 (resp. 22) base62 digits. Any other length, or any character outside
// 0-9A-Za-z, is kInvalidSyntax (checked over the whole input first); a well-formed value above
// 2^64-1 (resp. 2^128-1) is kOutOfRange.
[[nodiscard]] Result<std::uint64_t> base62_decode64(const char* s, std::size_t n) noexcept;
[[nodiscard]] Result<unsigned __int128> base62_decode128(const char* s, std::size_t n) noexcept;

}  // namespace idgen
