// id_gen C++ library: the umbrella header.
//
//   #include <id_gen/id_gen.hpp>     IDs, codecs, generators (link id_gen::id_gen, or pkg-config id_gen)
//   #include <id_gen/pqxx.hpp>       libpqxx conversions for every ID type (link libpqxx yourself)
//
// The same ULID, UUIDv7, snowflake, base36 and prefixed IDs as the id_gen PostgreSQL extension,
// made and read in the application, built from the same encoder sources as the extension.
#pragma once

#include "id_gen/base36.hpp"
#include "id_gen/base62.hpp"
#include "id_gen/common.hpp"
#include "id_gen/decimal_id.hpp"
#include "id_gen/error.hpp"
#include "id_gen/generators.hpp"
#include "id_gen/ids.hpp"
#include "id_gen/ksuid.hpp"
#include "id_gen/nanoid.hpp"
#include "id_gen/objectid.hpp"
#include "id_gen/prefixed.hpp"
#include "id_gen/shard_id.hpp"
#include "id_gen/snowflake.hpp"
#include "id_gen/trace_decimal.hpp"
#include "id_gen/trace_id.hpp"
#include "id_gen/ulid.hpp"
#include "id_gen/uuid.hpp"
#include "id_gen/uuidv6.hpp"
#include "id_gen/version.hpp"
#include "id_gen/xid.hpp"
