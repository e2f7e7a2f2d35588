// id_gen core: fixed-width base36 (0-9a-z) text for 64-bit numbers.
//
// TEMPORARY in the snowflake branch: a minimal implementation of exactly the API the base36 issue
// defines, so snowflake_to_base36/snowflake_from_base36 compile before that branch is merged.
// At merge, keep the base36 branch's src/core/base36.{h,cpp} and delete this copy.
#pragma once

#include <cstddef>
#include <cstdint>

#include "result.h"

namespace idgen {

inline constexpr std::size_t kBase36Len64 = 13, kBase36Len128 = 25;

// 13 lower-case characters, zero-padded (no terminator).
void base36_encode64(std::uint64_t v, char* out) noexcept;
// Exactly 13 characters of 0-9a-z, either case; kInvalidSyntax otherwise, kOutOfRange above 2^64-1.
[[nodiscard]] Result<std::uint64_t> base36_decode64(const char* s, std::size_t n) noexcept;

}  // namespace idgen
