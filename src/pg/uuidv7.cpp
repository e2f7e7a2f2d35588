// id_gen: SQL entry points of UUIDv7 and of the time fields of RFC 9562 UUIDs, on the built-in uuid.
//
// The same C functions back our own names (gen_uuidv7, uuid_time, uuid_version, ...) and, on
// servers that lack them, the PostgreSQL-18-compatible uuidv7(), uuidv7(interval),
// uuid_extract_timestamp() and uuid_extract_version(). Every symbol is exported on every server
// version, so pg_upgrade can carry either set of SQL functions across.
#include <cstdint>
#include <cstring>

#include "boundary.h"
#include "core/uuidv7.h"
#include "module.h"
#include "pg_time.h"

extern "C" {
#include "utils/fmgrprotos.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"
}

using idgen::Uuid;

namespace {

constexpr const char* kType = "uuid";
constexpr std::int64_t kPgEpochUnixUs = idgen::pg::kPgEpochUnixMs * 1000;

static_assert(sizeof(Uuid) == UUID_LEN, "a Uuid is a pg_uuid_t");

const Uuid* arg_uuid(FunctionCallInfo fcinfo, int n) {
    return reinterpret_cast<const Uuid*>(PG_GETARG_POINTER(n));
}

Datum return_uuid(const Uuid& id) {
    auto* out = static_cast<Uuid*>(palloc(sizeof(Uuid)));
    *out = id;
    return PointerGetDatum(out);
}

Datum return_time(FunctionCallInfo fcinfo, idgen::UuidTime t) {
    if (!t.present) PG_RETURN_NULL();
    PG_RETURN_TIMESTAMPTZ(t.unix_us - kPgEpochUnixUs);
}

// Per backend, shared by uuidv7() and uuidv7(interval) as in PostgreSQL 18; trivially destructible.
idgen::Uuidv7Generator g_generator;

}  // namespace

idgen::Result<Uuid> idgen::pg::next_uuidv7() noexcept {
    return g_generator.next(idgen::unix_time_ns(), idgen::pg::backend_entropy());
}

IDGEN_FUNCTION(gen_uuidv7) {
    auto id = idgen::pg::next_uuidv7();
    if (!id) return failure.fail(id.error(), kType, "the clock is past the year 2262");
    return return_uuid(*id);
}

// uuidv7(interval): the generator's (ascending) time shifted by the interval with timestamptz
// arithmetic (so months and days follow the session time zone, as in PostgreSQL 18). The
// nanoseconds below the microsecond carry over. A shifted time before 1970 or past the 48-bit
// millisecond range (year 10889) is an error; timestamptz overflow raises its own 22008.
IDGEN_FUNCTION(gen_uuidv7_shift) {
    Interval* shift = PG_GETARG_INTERVAL_P(0);
    auto ns = g_generator.clock().tick(idgen::unix_time_ns());
    if (!ns) return failure.fail(ns.error(), kType, "the clock is past the year 2262");
    const TimestampTz now_ts = *ns / 1000 - kPgEpochUnixUs;
    const TimestampTz ts = DatumGetTimestampTz(
        DirectFunctionCall2(timestamptz_pl_interval, TimestampTzGetDatum(now_ts), IntervalPGetDatum(shift)));
    if (TIMESTAMP_NOT_FINITE(ts)) return failure.fail(idgen::Error::kTimeOutOfRange, kType, timestamptz_to_str(ts));
    const std::int64_t unix_us = ts + kPgEpochUnixUs;
    std::int64_t ms = unix_us / 1000;
    std::int64_t us_in_ms = unix_us % 1000;
    if (us_in_ms < 0) {
        --ms;
        us_in_ms += 1000;
    }
    auto id = idgen::uuidv7_compose(ms, us_in_ms * 1000 + *ns % 1000, idgen::pg::backend_entropy());
    if (!id) return failure.fail(id.error(), kType, timestamptz_to_str(ts));
    return return_uuid(*id);
}

IDGEN_FUNCTION(uuid_version) {
    const int v = idgen::uuid_version(*arg_uuid(fcinfo, 0));
    if (v < 0) PG_RETURN_NULL();
    PG_RETURN_INT16(static_cast<int16>(v));
}

IDGEN_FUNCTION(uuid_time) { return return_time(fcinfo, idgen::uuid_time(*arg_uuid(fcinfo, 0))); }

IDGEN_FUNCTION(uuidv7_time) { return return_time(fcinfo, idgen::uuidv7_time(*arg_uuid(fcinfo, 0))); }

IDGEN_FUNCTION(uuidv7_time_precise) {
    return return_time(fcinfo, idgen::uuidv7_time_precise(*arg_uuid(fcinfo, 0)));
}

IDGEN_FUNCTION(uuidv7_lower) {
    TimestampTz ts = PG_GETARG_TIMESTAMPTZ(0);
    auto id = idgen::uuidv7_lower(idgen::pg::timestamptz_to_unix_ms(ts));
    if (!id) return failure.fail(id.error(), kType, timestamptz_to_str(ts));
    return return_uuid(*id);
}

IDGEN_FUNCTION(uuidv7_upper) {
    TimestampTz ts = PG_GETARG_TIMESTAMPTZ(0);
    auto id = idgen::uuidv7_upper(idgen::pg::timestamptz_to_unix_ms(ts));
    if (!id) return failure.fail(id.error(), kType, timestamptz_to_str(ts));
    return return_uuid(*id);
}
