// id_gen: SQL entry points of TraceIds (gen_trace_id(), decoders, the validator, bounds, the mark) and DecimalIds
// (gen_decimal_id(), decoders). Both are bigints. TraceIds are issued by the snowflake generator
// machinery (generators.h) over the trace state layout; DecimalIds by decimal_issue().
#include <cstdint>

#include "core/types/snowflake.h"
#include "core/types/trace_decimal.h"
#include "pg/base/boundary.h"
#include "pg/base/pg_time.h"
#include "pg/generators/generators.h"

extern "C" {
#include "utils/builtins.h"
#include "utils/timestamp.h"
}

namespace {

constexpr const char* kTraceType = "trace_id";
constexpr const char* kDecimalType = "decimal_id";

// Whole Unix seconds of a finite timestamptz (floor); raises 22008 for an infinite one.
std::int64_t reference_seconds(TimestampTz ts) {
    if (TIMESTAMP_NOT_FINITE(ts))
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                        errmsg("the reference time of a TraceId must be finite, not %s", timestamptz_to_str(ts))));
    const std::int64_t ms = idgen::pg::timestamptz_to_unix_ms(ts);
    return ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000);
}

void format_int8(std::int64_t v, char* out, std::size_t cap) { snprintf(out, cap, "%lld", static_cast<long long>(v)); }

}  // namespace

// gen_trace_id(): the node comes from id_gen.node_id (all of its range, 0..65535, fits 16 bits).
IDGEN_FUNCTION(gen_trace_id) {
    idgen::pg::require_writable("gen_trace_id()");
    const int node = idgen::pg::g_node_id;
    if (node < 0)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("id_gen.node_id is not set"),
                        errhint("Give this server a node number unique among the servers issuing TraceIds "
                                "(0 to %u) in postgresql.conf, or with LOAD 'id_gen'; ALTER SYSTEM SET "
                                "id_gen.node_id = <n>; SELECT pg_reload_conf(); (without shared_preload_libraries, "
                                "a session that has not loaded the library may not know the setting).",
                                idgen::kTraceNodeMax)));
    if (static_cast<std::uint32_t>(node) > idgen::kTraceNodeMax)  // the setting's own range forbids it
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("id_gen.node_id = %d does not fit the 16-bit node field of a TraceId", node),
                        errhint("Set id_gen.node_id to a number from 0 to %u.", idgen::kTraceNodeMax)));
    const idgen::SnowflakeLayout l = idgen::trace_state_layout();
    const idgen::pg::StateKey key{static_cast<std::uint8_t>(idgen::LayoutKind::kTrace), 0, 0, 0};
    const char* detail = "";
    auto sid = idgen::pg::snowflake_issue(key, l, 0, detail);
    if (!sid) {
        if (sid.error() == idgen::Error::kTimeOutOfRange)
            return failure.fail(idgen::Error::kLayoutExhausted, kTraceType, "the clock is before 1970");
        return failure.fail(sid.error(), kTraceType, detail);
    }
    auto id = idgen::trace_from_state_id(*sid, static_cast<std::uint32_t>(node));
    if (!id) return failure.fail(idgen::Error::kNoOutcome, kTraceType, "a TraceId field out of range");
    PG_RETURN_INT64(*id);
}

// An ID the decoders accept: positive with a counter >= 1 (what gen_trace_id() makes).
static bool trace_decodable(std::int64_t id) { return id > 0 && idgen::trace_unpack(id).counter != 0; }

static Datum trace_bad_id(std::int64_t id, idgen::pg::Failure& failure) {
    char num[32];
    format_int8(id, num, sizeof num);
    return failure.fail(idgen::Error::kOutOfRange, kTraceType, num);
}

IDGEN_FUNCTION(trace_id_time) {
    const std::int64_t id = PG_GETARG_INT64(0);
    const std::int64_t ref_s = reference_seconds(PG_GETARG_TIMESTAMPTZ(1));
    if (!trace_decodable(id)) return trace_bad_id(id, failure);
    const std::int64_t s = idgen::trace_time_s(id, ref_s);
    // Within half a period of a finite reference: far inside timestamptz's range except at its
    // very ends.
    if (!idgen::pg::unix_ms_fits_timestamptz(s * 1000))
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE), errmsg("timestamp out of range")));
    PG_RETURN_TIMESTAMPTZ(idgen::pg::unix_ms_to_timestamptz(s * 1000));
}

IDGEN_FUNCTION(trace_id_node) {
    const std::int64_t id = PG_GETARG_INT64(0);
    if (!trace_decodable(id)) return trace_bad_id(id, failure);
    PG_RETURN_INT32(static_cast<int32>(idgen::trace_unpack(id).node));
}

IDGEN_FUNCTION(trace_id_counter) {
    const std::int64_t id = PG_GETARG_INT64(0);
    if (!trace_decodable(id)) return trace_bad_id(id, failure);
    PG_RETURN_INT32(static_cast<int32>(idgen::trace_unpack(id).counter));
}

// trace_id_is_valid(id, reference, max_skew): positive, counter >= 1, and the time it stands for
// within max_skew of the reference.
IDGEN_FUNCTION(trace_id_is_valid) {
    const std::int64_t id = PG_GETARG_INT64(0);
    const std::int64_t ref_s = reference_seconds(PG_GETARG_TIMESTAMPTZ(1));
    const Interval* skew = PG_GETARG_INTERVAL_P(2);
    // Months count as 30 days, days as 24 hours (as extract(epoch from interval) does).
    const long double s = static_cast<long double>(skew->time) / USECS_PER_SEC +
                          static_cast<long double>(skew->day) * SECS_PER_DAY +
                          static_cast<long double>(skew->month) * DAYS_PER_MONTH * SECS_PER_DAY;
    if (s < 0)
        ereport(ERROR,
                (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("the allowed skew of a TraceId must not be negative"),
                 errhint("Pass how far from the reference time an ID's time may be, for example '1 day'.")));
    // More than half a period allows every time: the nearest period is at most that far.
    const std::int64_t skew_s = s > idgen::kTracePeriodS ? idgen::kTracePeriodS : static_cast<std::int64_t>(s);
    PG_RETURN_BOOL(idgen::trace_check(id, ref_s, skew_s) == idgen::TraceCheck::kValid);
}

// trace_id_lower(at) / trace_id_upper(at): the smallest and largest TraceId of the second
// containing `at` (node 0 counter 1, node 65535 counter 4194303): every TraceId issued in that
// second lies between them, and trace_id_time(id, at) reads each back as that second. Before 1970
// no TraceId is issued (22003); an infinite time is 22008.
static Datum trace_bound(FunctionCallInfo fcinfo, idgen::pg::Failure& failure, bool upper) {
    const TimestampTz ts = PG_GETARG_TIMESTAMPTZ(0);
    if (TIMESTAMP_NOT_FINITE(ts))
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                        errmsg("the time of a TraceId bound must be finite, not %s", timestamptz_to_str(ts))));
    const std::int64_t s = reference_seconds(ts);
    auto id = upper ? idgen::trace_pack(s, idgen::kTraceNodeMax, idgen::kTraceCounterMax) : idgen::trace_pack(s, 0, 1);
    if (!id) return failure.fail(idgen::Error::kTimeOutOfRange, kTraceType, timestamptz_to_str(ts));
    PG_RETURN_INT64(*id);
}

IDGEN_FUNCTION(trace_id_lower) { return trace_bound(fcinfo, failure, false); }

IDGEN_FUNCTION(trace_id_upper) { return trace_bound(fcinfo, failure, true); }

// trace_id_raise_mark(above): every TraceId gen_trace_id() issues on this server from now on is
// in a later second than `above` (so greater, within the period), whose time is read in the period
// nearest the generators' clock. For IDs issued by another server, or by this data directory's
// earlier life, that may lie ahead of this server's clock. Returns the mark in force.
IDGEN_FUNCTION(trace_id_raise_mark) {
    const std::int64_t above = PG_GETARG_INT64(0);
    if (!trace_decodable(above)) return trace_bad_id(above, failure);
    idgen::pg::require_writable("trace_id_raise_mark()");
    char shown[32];
    format_int8(above, shown, sizeof shown);
    const std::int64_t now_ms = idgen::pg::generator_clock_ms();
    const std::int64_t now_s = now_ms >= 0 ? now_ms / 1000 : -((-now_ms + 999) / 1000);
    const std::int64_t mark_ms = idgen::trace_time_s(above, now_s) * 1000;
    idgen::pg::require_mark_within_reach(mark_ms, shown, "gen_trace_id()");
    const idgen::SnowflakeLayout l = idgen::trace_state_layout();
    const idgen::pg::StateKey key{static_cast<std::uint8_t>(idgen::LayoutKind::kTrace), 0, 0, 0};
    const char* detail = "";
    auto mark = idgen::pg::snowflake_raise_mark(key, l, mark_ms, detail);
    if (!mark) return failure.fail(mark.error(), kTraceType, detail);
    if (!idgen::pg::unix_ms_fits_timestamptz(*mark))
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE), errmsg("timestamp out of range")));
    PG_RETURN_TIMESTAMPTZ(idgen::pg::unix_ms_to_timestamptz(*mark));
}

// gen_decimal_id(): the launch number comes from id_gen.launch_id.
IDGEN_FUNCTION(gen_decimal_id) {
    idgen::pg::require_writable("gen_decimal_id()");
    const int launch = idgen::pg::g_launch_id;
    if (launch < 0)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("id_gen.launch_id is not set"),
                        errhint("Give this server a launch number from 1 to 99999, unique among the servers issuing "
                                "DecimalIds, in postgresql.conf, or with LOAD 'id_gen'; ALTER SYSTEM SET "
                                "id_gen.launch_id = <n>; SELECT pg_reload_conf(); (without shared_preload_libraries, "
                                "a session that has not loaded the library may not know the setting).")));
    if (launch == 0 && !idgen::pg::g_enable_test_clock)
        ereport(ERROR,
                (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("id_gen.launch_id = 0 is for test servers only"),
                 errhint("Set id_gen.launch_id to a number from 1 to 99999 (0 is accepted only on a server "
                         "started with id_gen.enable_test_clock = on).")));
    const char* detail = "";
    idgen::pg::DecimalRefusal refusal = idgen::pg::DecimalRefusal::kNone;
    auto id = idgen::pg::decimal_issue(static_cast<std::uint32_t>(launch), detail, refusal);
    if (!id) {
        if (refusal == idgen::pg::DecimalRefusal::kGeneratorsUsedUp)
            ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                            errmsg("decimal_id generator numbers of launch %d are used up", launch),
                            errdetail("Each server start (and every 922337202 IDs) takes a generator number; "
                                      "launch %d has had all 100000.",
                                      launch),
                            errhint("Set id_gen.launch_id to a launch number no server has used (1 to 99999), "
                                    "then reload the configuration.")));
        if (refusal == idgen::pg::DecimalRefusal::kForeignRecord)
            ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                            errmsg("decimal_id generator counter of launch %d was written by another server or "
                                   "timeline",
                                   launch),
                            errdetail("%s. This server may be a copy, a restored backup or a promoted standby: the "
                                      "server the counter came from may have used generator numbers since.",
                                      detail),
                            errhint("Set id_gen.launch_id to a launch number no server has used (1 to 99999), "
                                    "then reload the configuration.")));
        if (id.error() == idgen::Error::kStateDamaged)
            ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED), errmsg("decimal_id generator state: %s", detail),
                            errdetail("No ID was issued: the file holds the last generator number of launch %d, "
                                      "and it cannot be read.",
                                      launch),
                            errhint("Restore the file from a backup of the data directory, or set id_gen.launch_id "
                                    "to a launch number no server has used. Do not remove the file: a new one "
                                    "would hand out generator numbers of this launch again.")));
        return failure.fail(id.error(), kDecimalType, detail);
    }
    PG_RETURN_INT64(*id);
}

static Datum decimal_bad_id(std::int64_t id, idgen::pg::Failure& failure) {
    char num[32];
    format_int8(id, num, sizeof num);
    return failure.fail(idgen::Error::kOutOfRange, kDecimalType, num);
}

IDGEN_FUNCTION(decimal_id_counter) {
    const std::int64_t id = PG_GETARG_INT64(0);
    auto p = idgen::decimal_unpack(id);
    if (!p) return decimal_bad_id(id, failure);
    PG_RETURN_INT64(p->counter);
}

IDGEN_FUNCTION(decimal_id_generator) {
    const std::int64_t id = PG_GETARG_INT64(0);
    auto p = idgen::decimal_unpack(id);
    if (!p) return decimal_bad_id(id, failure);
    PG_RETURN_INT32(static_cast<int32>(p->generator));
}

IDGEN_FUNCTION(decimal_id_launch) {
    const std::int64_t id = PG_GETARG_INT64(0);
    auto p = idgen::decimal_unpack(id);
    if (!p) return decimal_bad_id(id, failure);
    PG_RETURN_INT32(static_cast<int32>(p->launch));
}
