// id_gen: SQL entry points of UUIDv7 and of the time fields of RFC 9562 UUIDs, on the built-in uuid.
//
// The same C functions back our own names (gen_uuidv7, uuid_time, uuid_version, ...) and the
// PostgreSQL-18 names uuidv7(), uuidv7(interval), uuid_extract_timestamp() and
// uuid_extract_version(), which the extension creates in its schema on every server version.
// Every symbol is exported on every server version, so pg_upgrade can carry the functions across.
//
// One clock per backend serves every function here. It is not core's: on PostgreSQL 18 core's
// uuidv7() keeps its own (static, unreachable) clock, so IDs from core's and ours interleaved in
// one session are ordered by the wall clock only, like IDs from two sessions.
#include <cstdint>
#include <cstring>

#include "core/base/clock.h"
#include "core/types/uuidv7.h"
#include "pg/base/boundary.h"
#include "pg/base/pg_time.h"
#include "pg/generators/backend_entropy.h"
#include "pg/types/pg_uuid.h"
#include "pg/types/uuidv7_sequence.h"

extern "C" {
#include "utils/fmgrprotos.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"
}

using idgen::Uuid;
using idgen::pg::arg_uuid;
using idgen::pg::kPgEpochUnixUs;
using idgen::pg::return_uuid;

namespace {

constexpr const char* kType = "uuid";

// PostgreSQL 18.6's errors for a shift that cannot give a UUIDv7 (22008, worded as core's). Raised
// from the prologue of gen_uuidv7_shift: only trivially destructible locals are live there.
[[noreturn]] void raise_shift_out_of_range(bool infinite_interval) {
    if (infinite_interval)
        ereport(ERROR,
                (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE), errmsg("interval out of range for UUID version 7"),
                 errdetail("UUID version 7 does not support infinite intervals.")));
    ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE), errmsg("timestamp out of range for UUID version 7"),
                    errdetail("UUID version 7 supports timestamps from 1970-01-01 to approximately year 10889.")));
    pg_unreachable();
}

Datum return_time(FunctionCallInfo fcinfo, idgen::UuidTime t) {
    if (!t.present) PG_RETURN_NULL();
    PG_RETURN_TIMESTAMPTZ(t.unix_us - kPgEpochUnixUs);
}

// Per backend, shared by uuidv7() and uuidv7(interval) as in PostgreSQL 18; per process (a process
// a backend forks starts afresh, see PerProcess); trivially destructible.
idgen::PerProcess<idgen::Uuidv7Generator> g_generator;

}  // namespace

idgen::Result<Uuid> idgen::pg::next_uuidv7() noexcept {
    return g_generator.get().next(idgen::unix_time_ns(), idgen::pg::backend_entropy());
}

IDGEN_FUNCTION(gen_uuidv7) {
    auto id = idgen::pg::next_uuidv7();
    if (!id) return failure.fail(id.error(), kType, "the clock is past the year 2262");
    return return_uuid(*id);
}

// uuidv7(interval), as PostgreSQL 18.6: the generator's (ascending) time, truncated to the
// microsecond, shifted by the interval with timestamptz arithmetic (so months and days follow the
// session time zone); the nanoseconds below the microsecond carry over. An infinite interval
// (PostgreSQL 17+) or a shifted time before 1970 or past the first microsecond of the last 48-bit
// millisecond (year 10889) raises 22008 with core's words; timestamptz overflow raises its own 22008.
IDGEN_FUNCTION(gen_uuidv7_shift) {
    Interval* shift = PG_GETARG_INTERVAL_P(0);
    auto ns = g_generator.get().clock().tick(idgen::unix_time_ns());
    if (!ns) return failure.fail(ns.error(), kType, "the clock is past the year 2262");
    if (IDGEN_INTERVAL_IS_INFINITE(shift)) raise_shift_out_of_range(true);
    const TimestampTz now_ts = *ns / 1000 - kPgEpochUnixUs;
    const TimestampTz ts = DatumGetTimestampTz(
        DirectFunctionCall2(timestamptz_pl_interval, TimestampTzGetDatum(now_ts), IntervalPGetDatum(shift)));
    // An infinite result (a finite shift never gives one) is past every bound too.
    if (TIMESTAMP_NOT_FINITE(ts) || ts > INT64_MAX - kPgEpochUnixUs ||
        !idgen::uuidv7_shifted_time_in_range(ts + kPgEpochUnixUs))
        raise_shift_out_of_range(false);
    const std::int64_t unix_us = ts + kPgEpochUnixUs;
    auto id = idgen::uuidv7_compose(unix_us / 1000, unix_us % 1000 * 1000 + *ns % 1000, idgen::pg::backend_entropy());
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

IDGEN_FUNCTION(uuidv7_time_precise) { return return_time(fcinfo, idgen::uuidv7_time_precise(*arg_uuid(fcinfo, 0))); }

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
