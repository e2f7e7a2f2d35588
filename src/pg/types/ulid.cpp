// id_gen: SQL entry points of the ulid type.
#include <cstring>

#include "core/base/clock.h"
#include "core/types/snowflake.h"
#include "core/types/ulid.h"
#include "pg/base/boundary.h"
#include "pg/base/pg_time.h"
#include "pg/generators/backend_entropy.h"
#include "pg/generators/generators.h"

extern "C" {
#include "libpq/pqformat.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"
}

using idgen::Ulid;

namespace {

constexpr const char* kType = "ulid";

static_assert(sizeof(Ulid) == UUID_LEN, "a ulid has the bytes of a uuid");

Ulid* arg_ulid(FunctionCallInfo fcinfo, int n) { return reinterpret_cast<Ulid*>(PG_GETARG_POINTER(n)); }

Datum return_ulid(const Ulid& id) {
    auto* out = static_cast<Ulid*>(palloc(sizeof(Ulid)));
    *out = id;
    return PointerGetDatum(out);
}

// Per process (a process a backend forks starts afresh, see PerProcess); trivially destructible.
idgen::PerProcess<idgen::UlidGenerator> g_generator;

// gen_monotonic_ulid()'s generator: one for the whole server (every database), over the state
// store like TraceIds (generators.h), stepped one ID at a time under its exclusion.
constexpr const char* kMonotonicFn = "gen_monotonic_ulid()";
const idgen::pg::StateKey kMonotonicKey{static_cast<std::uint8_t>(idgen::LayoutKind::kMonotonicUlid), 0, 0, 0};

}  // namespace

IDGEN_FUNCTION(ulid_in) {
    const char* text = PG_GETARG_CSTRING(0);
    auto parsed = idgen::ulid_parse(text, std::strlen(text));
    if (!parsed) return failure.fail(parsed.error(), kType, text);
    return return_ulid(*parsed);
}

IDGEN_FUNCTION(ulid_out) {
    const Ulid* id = arg_ulid(fcinfo, 0);
    char* out = static_cast<char*>(palloc(idgen::kUlidTextLen + 1));
    idgen::ulid_format(*id, out);
    out[idgen::kUlidTextLen] = '\0';
    PG_RETURN_CSTRING(out);
}

// Casts to and from text that skip the cstring detour of an I/O conversion cast (output to a
// cstring, strlen, textin's second allocation and copy): the text is written and read in place.
IDGEN_FUNCTION(ulid_to_text) {
    const Ulid* id = arg_ulid(fcinfo, 0);
    text* out = static_cast<text*>(palloc(VARHDRSZ + idgen::kUlidTextLen));
    SET_VARSIZE(out, VARHDRSZ + idgen::kUlidTextLen);
    idgen::ulid_format(*id, VARDATA(out));
    PG_RETURN_TEXT_P(out);
}

IDGEN_FUNCTION(ulid_from_text) {
    const text* in = PG_GETARG_TEXT_PP(0);
    const char* data = VARDATA_ANY(in);
    const std::size_t len = VARSIZE_ANY_EXHDR(in);
    auto parsed = idgen::ulid_parse(data, len);
    if (!parsed) return failure.fail(parsed.error(), kType, data, len);
    return return_ulid(*parsed);
}

IDGEN_FUNCTION(ulid_recv) {
    StringInfo buf = reinterpret_cast<StringInfo>(PG_GETARG_POINTER(0));
    auto* out = static_cast<Ulid*>(palloc(sizeof(Ulid)));
    std::memcpy(out->bytes, pq_getmsgbytes(buf, sizeof(Ulid)), sizeof(Ulid));
    PG_RETURN_POINTER(out);
}

IDGEN_FUNCTION(ulid_send) {
    const Ulid* id = arg_ulid(fcinfo, 0);
    StringInfoData buf;
    pq_begintypsend(&buf);
    pq_sendbytes(&buf, reinterpret_cast<const char*>(id->bytes), sizeof(Ulid));
    PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

IDGEN_FUNCTION(gen_ulid) {
    auto& random = idgen::pg::backend_entropy();
    auto id = g_generator.get().next(idgen::unix_time_ms(), random);
    if (!id) return failure.fail(id.error(), kType, "the clock is past the year 10889");
    return return_ulid(*id);
}

// gen_monotonic_ulid(): 48-bit ms | 16-bit counter | 64 random bits, greater than every ULID it
// has returned on this server before the call began, in any session or database, across
// restarts (the persisted mark) and a clock stepping back.
IDGEN_FUNCTION(gen_monotonic_ulid) {
    idgen::pg::require_writable(kMonotonicFn);
    const idgen::SnowflakeLayout l = idgen::monotonic_ulid_state_layout();
    const char* detail = "";
    auto sid = idgen::pg::snowflake_issue_in_order(kMonotonicKey, l, detail);
    if (!sid) {
        if (sid.error() == idgen::Error::kTimeOutOfRange)
            return failure.fail(idgen::Error::kLayoutExhausted, kType,
                                "the clock is before 1970 or past the year 6429");
        return failure.fail(sid.error(), kType, detail);
    }
    auto id = idgen::ulid_from_state_id(*sid, idgen::pg::backend_entropy());
    if (!id) return failure.fail(id.error(), kType, "gen_monotonic_ulid() state");
    return return_ulid(*id);
}

// monotonic_ulid_raise_mark(above): every ULID gen_monotonic_ulid() issues on this server from now
// on is of a later millisecond than `above` (so greater). For ULIDs carried in from another server
// (a dump, pg_upgrade without the old pg_idgen/) that may lie ahead of this server's clock.
// Returns the mark in force.
IDGEN_FUNCTION(monotonic_ulid_raise_mark) {
    const Ulid* above = arg_ulid(fcinfo, 0);
    idgen::pg::require_writable("monotonic_ulid_raise_mark()");
    char shown[idgen::kUlidTextLen + 1];
    idgen::ulid_format(*above, shown);
    shown[idgen::kUlidTextLen] = '\0';
    const std::int64_t mark_ms = idgen::ulid_time_ms(*above);
    idgen::pg::require_mark_within_reach(mark_ms, shown, kMonotonicFn,
                                         "Check the ULID and the clocks: ULIDs of a server whose clock was that far "
                                         "ahead cannot be followed in order here.");
    const idgen::SnowflakeLayout l = idgen::monotonic_ulid_state_layout();
    const char* detail = "";
    auto mark = idgen::pg::snowflake_raise_mark(kMonotonicKey, l, mark_ms, detail);
    if (!mark) return failure.fail(mark.error(), kType, detail);
    if (!idgen::pg::unix_ms_fits_timestamptz(*mark))
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE), errmsg("timestamp out of range")));
    PG_RETURN_TIMESTAMPTZ(idgen::pg::unix_ms_to_timestamptz(*mark));
}

IDGEN_FUNCTION(gen_ulid_at) {
    TimestampTz ts = PG_GETARG_TIMESTAMPTZ(0);
    auto id = idgen::ulid_at(idgen::pg::timestamptz_to_unix_ms(ts), idgen::pg::backend_entropy());
    if (!id) return failure.fail(id.error(), kType, timestamptz_to_str(ts));
    return return_ulid(*id);
}

IDGEN_FUNCTION(ulid_time) {
    const Ulid* id = arg_ulid(fcinfo, 0);
    PG_RETURN_TIMESTAMPTZ(idgen::pg::unix_ms_to_timestamptz(idgen::ulid_time_ms(*id)));
}

IDGEN_FUNCTION(ulid_lower) {
    TimestampTz ts = PG_GETARG_TIMESTAMPTZ(0);
    auto id = idgen::ulid_lower(idgen::pg::timestamptz_to_unix_ms(ts));
    if (!id) return failure.fail(id.error(), kType, timestamptz_to_str(ts));
    return return_ulid(*id);
}

IDGEN_FUNCTION(ulid_upper) {
    TimestampTz ts = PG_GETARG_TIMESTAMPTZ(0);
    auto id = idgen::ulid_upper(idgen::pg::timestamptz_to_unix_ms(ts));
    if (!id) return failure.fail(id.error(), kType, timestamptz_to_str(ts));
    return return_ulid(*id);
}

// min()/max() transition functions: return one of the inputs, so no copy is needed.
IDGEN_FUNCTION(ulid_smaller) {
    const Ulid* a = arg_ulid(fcinfo, 0);
    const Ulid* b = arg_ulid(fcinfo, 1);
    PG_RETURN_POINTER(std::memcmp(a->bytes, b->bytes, sizeof(Ulid)) <= 0 ? a : b);
}

IDGEN_FUNCTION(ulid_larger) {
    const Ulid* a = arg_ulid(fcinfo, 0);
    const Ulid* b = arg_ulid(fcinfo, 1);
    PG_RETURN_POINTER(std::memcmp(a->bytes, b->bytes, sizeof(Ulid)) >= 0 ? a : b);
}
