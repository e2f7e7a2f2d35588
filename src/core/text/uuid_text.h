// id_gen core: the text form of a UUID, as PostgreSQL's uuid type reads and writes it.
//
// Output is the canonical form, 36 lower-case characters 8-4-4-4-12. Input is what PostgreSQL's
// uuid_in accepts: 32 hex digits in either case, optionally inside one pair of braces, with an
// optional '-' after any group of four digits (except the last); nothing else, no spaces.
#pragma once

#include <cstddef>

#include "core/base/result.h"
#include "core/types/uuidv7.h"

namespace idgen {

inline constexpr std::size_t kUuidTextLen = 36;

// Parses the forms above; anything else is kInvalidSyntax.
[[nodiscard]] Result<Uuid> uuid_parse(const char* text, std::size_t len) noexcept;

// Writes 36 lower-case characters (no terminator).
void uuid_format(const Uuid& id, char* out) noexcept;

}  // namespace idgen
