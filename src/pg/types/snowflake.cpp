// id_gen: SQL entry points of the snowflake type: I/O, range-checked casts, layout decoders,
// range helpers, base36 text, and the node generators gen_snowflake().
#include <cstring>

#include "core/text/base36.h"
#include "core/types/snowflake.h"
#include "pg/base/boundary.h"
#include "pg/base/pg_time.h"
#include "pg/generators/generators.h"

extern "C" {
#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"
}

using idgen::SnowflakeLayout;

namespace {

constexpr const char* kType = "snowflake";

void raise_bad_layout_name(text* name) {
    ereport(ERROR,
            (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("unknown snowflake layout \"%s\"", text_to_cstring(name)),
             errhint("Built-in layouts are twitter, instagram, sonyflake and javascript; "
                     "for any other, pass the epoch and the time, node and sequence widths.")));
}

// A built-in layout named by text argument `n`. Raises for an unknown name.
SnowflakeLayout named_layout_arg(FunctionCallInfo fcinfo, int n) {
    text* name = PG_GETARG_TEXT_PP(n);
    auto l = idgen::snowflake_named_layout(VARDATA_ANY(name), VARSIZE_ANY_EXHDR(name));
    if (!l) raise_bad_layout_name(name);
    return *l;
}

// A custom layout from arguments (epoch timestamptz, time_bits, node_bits, seq_bits) at `n`.
SnowflakeLayout custom_layout_arg(FunctionCallInfo fcinfo, int n) {
    const TimestampTz epoch = PG_GETARG_TIMESTAMPTZ(n);
    const int tb = PG_GETARG_INT32(n + 1), nb = PG_GETARG_INT32(n + 2), sb = PG_GETARG_INT32(n + 3);
    // Checked first: an infinite epoch is a wrong epoch, whatever the widths.
    if (TIMESTAMP_NOT_FINITE(epoch))
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("invalid custom snowflake layout: the epoch must be a finite time, not %s",
                               timestamptz_to_str(epoch)),
                        errhint("Pass the instant of time 0 of the layout, for example '2020-01-01 00:00:00+00'.")));
    auto l = idgen::snowflake_custom_layout(idgen::pg::timestamptz_to_unix_ms(epoch), tb, nb, sb);
    if (!l)
        ereport(ERROR,
                (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                 errmsg("invalid custom snowflake layout: time_bits %d, node_bits %d, sequence_bits %d", tb, nb, sb),
                 errhint("time_bits must be 1 to 63, node_bits and sequence_bits 0 to 31, together at most 63 "
                         "(the sign bit stays 0); the epoch must be a finite time.")));
    return *l;
}

// Layout from the arguments after the first `first`: one text (a name) or four (custom).
SnowflakeLayout layout_args(FunctionCallInfo fcinfo, int first) {
    return PG_NARGS() == first + 1 ? named_layout_arg(fcinfo, first) : custom_layout_arg(fcinfo, first);
}

TimestampTz ms_to_timestamptz_checked(std::int64_t ms) {
    // Custom layouts can reach past timestamptz's range; the built-in ones cannot.
    if (!idgen::pg::unix_ms_fits_timestamptz(ms))
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE), errmsg("timestamp out of range")));
    return idgen::pg::unix_ms_to_timestamptz(ms);
}

}  // namespace

IDGEN_FUNCTION(snowflake_in) {
    const char* text = PG_GETARG_CSTRING(0);
    auto v = idgen::snowflake_parse(text, std::strlen(text));
    if (!v) return failure.fail(v.error(), kType, text);
    PG_RETURN_INT64(*v);
}

IDGEN_FUNCTION(snowflake_out) {
    const std::int64_t v = PG_GETARG_INT64(0);
    char* out = static_cast<char*>(palloc(21));
    idgen::snowflake_format(v, out);
    PG_RETURN_CSTRING(out);
}

// Every value that enters as a number (binary input, casts) must be a valid snowflake: >= 1.
static Datum checked_snowflake(std::int64_t v, idgen::pg::Failure& failure) {
    if (v >= 1) return Int64GetDatum(v);
    char num[32];
    snprintf(num, sizeof num, "%lld", static_cast<long long>(v));
    return failure.fail(idgen::Error::kOutOfRange, kType, num);
}

// Binary input is int8's (8 bytes, big-endian), range-checked like text input.
IDGEN_FUNCTION(snowflake_recv) {
    StringInfo buf = reinterpret_cast<StringInfo>(PG_GETARG_POINTER(0));
    return checked_snowflake(pq_getmsgint64(buf), failure);
}

// bigint -> snowflake: every value must be >= 1.
IDGEN_FUNCTION(snowflake_from_int8) { return checked_snowflake(PG_GETARG_INT64(0), failure); }

// integer -> snowflake (explicit), so 1::snowflake works: every value must be >= 1.
IDGEN_FUNCTION(snowflake_from_int4) { return checked_snowflake(PG_GETARG_INT32(0), failure); }

IDGEN_FUNCTION(snowflake_time) {
    const std::int64_t id = PG_GETARG_INT64(0);
    const SnowflakeLayout l = layout_args(fcinfo, 1);
    const auto p = idgen::snowflake_unpack(l, id);
    std::int64_t span = 0, ms = 0;
    if (__builtin_mul_overflow(p.time, l.unit_ms, &span) || __builtin_add_overflow(l.epoch_ms, span, &ms))
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE), errmsg("timestamp out of range")));
    PG_RETURN_TIMESTAMPTZ(ms_to_timestamptz_checked(ms));
}

IDGEN_FUNCTION(snowflake_node) {
    const std::int64_t id = PG_GETARG_INT64(0);
    const SnowflakeLayout l = layout_args(fcinfo, 1);
    PG_RETURN_INT32(static_cast<int32>(idgen::snowflake_unpack(l, id).node));
}

IDGEN_FUNCTION(snowflake_sequence) {
    const std::int64_t id = PG_GETARG_INT64(0);
    const SnowflakeLayout l = layout_args(fcinfo, 1);
    PG_RETURN_INT32(static_cast<int32>(idgen::snowflake_unpack(l, id).seq));
}

IDGEN_FUNCTION(snowflake_lower) {
    const TimestampTz ts = PG_GETARG_TIMESTAMPTZ(0);
    const SnowflakeLayout l = layout_args(fcinfo, 1);
    auto id = idgen::snowflake_lower(l, idgen::pg::timestamptz_to_unix_ms(ts));
    if (!id) return failure.fail(id.error(), kType, timestamptz_to_str(ts));
    PG_RETURN_INT64(*id);
}

IDGEN_FUNCTION(snowflake_upper) {
    const TimestampTz ts = PG_GETARG_TIMESTAMPTZ(0);
    const SnowflakeLayout l = layout_args(fcinfo, 1);
    auto id = idgen::snowflake_upper(l, idgen::pg::timestamptz_to_unix_ms(ts));
    if (!id) return failure.fail(id.error(), kType, timestamptz_to_str(ts));
    PG_RETURN_INT64(*id);
}

IDGEN_FUNCTION(snowflake_to_base36) {
    const std::int64_t id = PG_GETARG_INT64(0);
    char buf[idgen::kBase36Len64];
    idgen::base36_encode64(static_cast<std::uint64_t>(id), buf);
    PG_RETURN_TEXT_P(cstring_to_text_with_len(buf, idgen::kBase36Len64));
}

IDGEN_FUNCTION(snowflake_from_base36) {
    text* t = PG_GETARG_TEXT_PP(0);
    const char* s = VARDATA_ANY(t);
    const std::size_t n = VARSIZE_ANY_EXHDR(t);
    char* shown = text_to_cstring(t);
    auto v = idgen::base36_decode64(s, n);
    if (!v) return failure.fail(v.error(), kType, shown);
    if (*v < 1 || *v > static_cast<std::uint64_t>(INT64_MAX))
        return failure.fail(idgen::Error::kOutOfRange, kType, shown);
    PG_RETURN_INT64(static_cast<std::int64_t>(*v));
}

// gen_snowflake() / gen_snowflake(layout): the node number comes from id_gen.node_id.
IDGEN_FUNCTION(gen_snowflake) {
    const SnowflakeLayout l = PG_NARGS() == 0 ? idgen::twitter_layout() : named_layout_arg(fcinfo, 0);
    const char* lname = l.kind == idgen::LayoutKind::kTwitter      ? "twitter"
                        : l.kind == idgen::LayoutKind::kSonyflake  ? "sonyflake"
                        : l.kind == idgen::LayoutKind::kJavascript ? "javascript"
                                                                   : "instagram";
    if (l.kind == idgen::LayoutKind::kInstagram)
        ereport(
            ERROR,
            (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("gen_snowflake() does not generate the instagram layout"),
             errhint("Instagram-style IDs carry a shard number: use create_shard() and the shard's next_id().")));
    idgen::pg::require_writable("gen_snowflake()");
    const int node = idgen::pg::g_node_id;
    if (node < 0)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("id_gen.node_id is not set"),
                        errhint("Give this server a node number unique among the servers issuing snowflakes "
                                "(0 to %u for the %s layout) in postgresql.conf, or with LOAD 'id_gen'; "
                                "ALTER SYSTEM SET id_gen.node_id = <n>; SELECT pg_reload_conf(); (without "
                                "shared_preload_libraries, a session that has not loaded the library may not know "
                                "the setting).",
                                l.node_max(), lname)));
    if (static_cast<std::uint32_t>(node) > l.node_max())
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("id_gen.node_id = %d does not fit the %d-bit node field of the %s layout", node,
                               l.node_bits, lname),
                        errhint("Set id_gen.node_id to a number from 0 to %u (in postgresql.conf, or with "
                                "LOAD 'id_gen'; ALTER SYSTEM SET id_gen.node_id = <n>; then a reload), or use a "
                                "layout with a wider node field.",
                                l.node_max())));
    const idgen::pg::StateKey key{static_cast<std::uint8_t>(l.kind), 0, 0, l.epoch_ms};
    const char* detail = "";
    auto id = idgen::pg::snowflake_issue(key, l, static_cast<std::uint32_t>(node), detail);
    if (!id) {
        if (id.error() == idgen::Error::kTimeOutOfRange)
            return failure.fail(idgen::Error::kLayoutExhausted, kType,
                                "the clock is outside the layout's time range (before its epoch or past its "
                                "last time unit)");
        return failure.fail(id.error(), kType, detail);
    }
    PG_RETURN_INT64(*id);
}

// snowflake_state_storage(): where the generators' shared state lives in this server.
IDGEN_FUNCTION(snowflake_state_storage) {
    PG_RETURN_TEXT_P(cstring_to_text(idgen::pg::snowflake_state_storage_name()));
}

// snowflake_raise_mark(above, layout): every ID gen_snowflake(layout) issues on this server from
// now on is greater than `above` (a node generator's IDs: the layout's time field of `above`
// counts as used up). For IDs issued by another server, or by this data directory's earlier life,
// that may lie ahead of this server's clock. Returns the mark in force.
IDGEN_FUNCTION(snowflake_raise_mark) {
    const std::int64_t above = PG_GETARG_INT64(0);
    const SnowflakeLayout l = named_layout_arg(fcinfo, 1);
    if (l.kind == idgen::LayoutKind::kInstagram)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("snowflake_raise_mark() does not apply to the instagram layout"),
                        errhint("Instagram-style IDs come from shards: use shard_raise_mark(shard, id).")));
    idgen::pg::require_writable("snowflake_raise_mark()");
    char shown[32];
    idgen::snowflake_format(above, shown);
    const std::int64_t mark_ms = idgen::snowflake_time_ms(l, above);
    idgen::pg::require_mark_within_reach(mark_ms, shown, "gen_snowflake()");
    const idgen::pg::StateKey key{static_cast<std::uint8_t>(l.kind), 0, 0, l.epoch_ms};
    const char* detail = "";
    auto mark = idgen::pg::snowflake_raise_mark(key, l, mark_ms, detail);
    if (!mark) return failure.fail(mark.error(), kType, detail);
    PG_RETURN_TIMESTAMPTZ(ms_to_timestamptz_checked(*mark));
}
