// id_gen C++ library: the ID value types and their text codecs.
//
// Every type here is a small value (16 bytes, 8 bytes, or a prefix and 16 bytes) with the same
// bits and the same text as the extension's SQL type of the same name, and is encoded and decoded
// by the same code the extension runs (the library is built from the extension's src/core). Text
// that the SQL type refuses, these refuse with the same SQLSTATE (see id_gen::error).
//
//   C++                  SQL type             text
//   id_gen::Ulid         ulid                 26 Crockford base32 characters
//   id_gen::Uuid         uuid                 8-4-4-4-12 hex (UUIDv7 from the generators)
//   id_gen::Snowflake    snowflake            decimal, 1 .. 2^63-1
//   id_gen::Base36_64    base36_64            13 base36 characters, 0 .. 2^63-1
//   id_gen::Base36_128   base36_128           25 base36 characters, any 128-bit value
//   id_gen::Base62_64    base62_64            11 base62 characters, 0 .. 2^63-1
//   id_gen::Base62_128   base62_128           22 base62 characters, any 128-bit value
//   id_gen::PrefixedId   text (prefixed_*)    <prefix>_<25 base36 or 22 base62 characters>
//
// One header per kind (ulid.hpp, uuid.hpp, snowflake.hpp, base36.hpp, base62.hpp, prefixed.hpp);
// this one includes them all.
#pragma once

#include "id_gen/base36.hpp"
#include "id_gen/base62.hpp"
#include "id_gen/common.hpp"
#include "id_gen/error.hpp"
#include "id_gen/prefixed.hpp"
#include "id_gen/snowflake.hpp"
#include "id_gen/ulid.hpp"
#include "id_gen/uuid.hpp"
