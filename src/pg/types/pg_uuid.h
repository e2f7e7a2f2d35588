// id_gen: idgen::Uuid as PostgreSQL's uuid (pg_uuid_t, the same 16 bytes), for the SQL functions
// of uuidv7.cpp and uuidv6.cpp.
#pragma once

#include <cstdint>

#include "core/types/uuidv7.h"
#include "pg/base/boundary.h"
#include "pg/base/pg_time.h"

extern "C" {
#include "utils/uuid.h"
}

namespace idgen::pg {

static_assert(sizeof(idgen::Uuid) == UUID_LEN, "a Uuid is a pg_uuid_t");

// Microseconds from the Unix epoch to PostgreSQL's (2000-01-01).
constexpr std::int64_t kPgEpochUnixUs = kPgEpochUnixMs * 1000;

inline const idgen::Uuid* arg_uuid(FunctionCallInfo fcinfo, int n) {
    return reinterpret_cast<const idgen::Uuid*>(PG_GETARG_POINTER(n));
}

inline Datum return_uuid(const idgen::Uuid& id) {
    auto* out = static_cast<idgen::Uuid*>(palloc(sizeof(idgen::Uuid)));
    *out = id;
    return PointerGetDatum(out);
}

}  // namespace idgen::pg
