// id_gen: SQL entry points of the ksuid type (Segment's KSUID).
#include <cstring>

#include "boundary.h"
#include "bytea_hex.h"
#include "core/bytes.h"
#include "core/clock.h"
#include "core/ksuid.h"
#include "module.h"
#include "pg_time.h"

extern "C" {
#include "common/hashfn.h"
#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/sortsupport.h"
#include "utils/timestamp.h"
}

using idgen::Ksuid;

namespace {

constexpr const char* kType = "ksuid";
constexpr std::size_t kLen = sizeof(Ksuid);

const Ksuid* arg_ksuid(FunctionCallInfo fcinfo, int n) { return reinterpret_cast<const Ksuid*>(PG_GETARG_POINTER(n)); }

Datum return_ksuid(const Ksuid& id) {
    auto* out = static_cast<Ksuid*>(palloc(kLen));
    *out = id;
    return PointerGetDatum(out);
}

int cmp(const Ksuid* a, const Ksuid* b) { return std::memcmp(a->bytes, b->bytes, kLen); }

idgen::KsuidGenerator g_generator;  // per backend; trivially destructible

std::int64_t timestamptz_seconds(TimestampTz ts) {
    return idgen::ksuid_floor_seconds(idgen::pg::timestamptz_to_unix_ms(ts));
}

// Sort support: memcmp, and abbreviated keys holding the first 8 bytes (the seconds and the top
// 32 payload bits) as an unsigned number.
int fastcmp(Datum x, Datum y, SortSupport) {
    return cmp(reinterpret_cast<const Ksuid*>(DatumGetPointer(x)), reinterpret_cast<const Ksuid*>(DatumGetPointer(y)));
}
Datum abbrev_convert(Datum original, SortSupport) {
    return static_cast<Datum>(idgen::load_be64(reinterpret_cast<const Ksuid*>(DatumGetPointer(original))->bytes));
}
bool abbrev_abort(int, SortSupport) { return false; }

}  // namespace

IDGEN_FUNCTION(ksuid_in) {
    const char* text = PG_GETARG_CSTRING(0);
    auto parsed = idgen::ksuid_parse(text, std::strlen(text));
    if (!parsed) return failure.fail(parsed.error(), kType, text);
    return return_ksuid(*parsed);
}

IDGEN_FUNCTION(ksuid_out) {
    const Ksuid* id = arg_ksuid(fcinfo, 0);
    char* out = static_cast<char*>(palloc(idgen::kKsuidTextLen + 1));
    idgen::ksuid_format(*id, out);
    out[idgen::kKsuidTextLen] = '\0';
    PG_RETURN_CSTRING(out);
}

IDGEN_FUNCTION(ksuid_recv) {
    StringInfo buf = reinterpret_cast<StringInfo>(PG_GETARG_POINTER(0));
    auto* out = static_cast<Ksuid*>(palloc(kLen));
    std::memcpy(out->bytes, pq_getmsgbytes(buf, kLen), kLen);  // fewer than 20 bytes left: 08P01
    PG_RETURN_POINTER(out);
}

IDGEN_FUNCTION(ksuid_send) {
    const Ksuid* id = arg_ksuid(fcinfo, 0);
    StringInfoData buf;
    pq_begintypsend(&buf);
    pq_sendbytes(&buf, reinterpret_cast<const char*>(id->bytes), kLen);
    PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

// ---- comparison, hashing, sorting ---------------------------------------------------------------

IDGEN_FUNCTION(ksuid_eq) { PG_RETURN_BOOL(cmp(arg_ksuid(fcinfo, 0), arg_ksuid(fcinfo, 1)) == 0); }
IDGEN_FUNCTION(ksuid_ne) { PG_RETURN_BOOL(cmp(arg_ksuid(fcinfo, 0), arg_ksuid(fcinfo, 1)) != 0); }
IDGEN_FUNCTION(ksuid_lt) { PG_RETURN_BOOL(cmp(arg_ksuid(fcinfo, 0), arg_ksuid(fcinfo, 1)) < 0); }
IDGEN_FUNCTION(ksuid_le) { PG_RETURN_BOOL(cmp(arg_ksuid(fcinfo, 0), arg_ksuid(fcinfo, 1)) <= 0); }
IDGEN_FUNCTION(ksuid_gt) { PG_RETURN_BOOL(cmp(arg_ksuid(fcinfo, 0), arg_ksuid(fcinfo, 1)) > 0); }
IDGEN_FUNCTION(ksuid_ge) { PG_RETURN_BOOL(cmp(arg_ksuid(fcinfo, 0), arg_ksuid(fcinfo, 1)) >= 0); }

IDGEN_FUNCTION(ksuid_cmp) {
    const int c = cmp(arg_ksuid(fcinfo, 0), arg_ksuid(fcinfo, 1));
    PG_RETURN_INT32(c < 0 ? -1 : (c > 0 ? 1 : 0));
}

IDGEN_FUNCTION(ksuid_sortsupport) {
    SortSupport ssup = reinterpret_cast<SortSupport>(PG_GETARG_POINTER(0));
    ssup->comparator = fastcmp;
    if (ssup->abbreviate && sizeof(Datum) >= 8) {
        ssup->abbrev_converter = abbrev_convert;
        ssup->abbrev_abort = abbrev_abort;
        ssup->abbrev_full_comparator = fastcmp;
        ssup->comparator = ssup_datum_unsigned_cmp;
    }
    PG_RETURN_VOID();
}

IDGEN_FUNCTION(ksuid_hash) { return hash_any(arg_ksuid(fcinfo, 0)->bytes, static_cast<int>(kLen)); }

IDGEN_FUNCTION(ksuid_hash_extended) {
    return hash_any_extended(arg_ksuid(fcinfo, 0)->bytes, static_cast<int>(kLen), PG_GETARG_INT64(1));
}

// min()/max() transition functions: return one of the inputs, so no copy is needed.
IDGEN_FUNCTION(ksuid_smaller) {
    const Ksuid* a = arg_ksuid(fcinfo, 0);
    const Ksuid* b = arg_ksuid(fcinfo, 1);
    PG_RETURN_POINTER(cmp(a, b) <= 0 ? a : b);
}

IDGEN_FUNCTION(ksuid_larger) {
    const Ksuid* a = arg_ksuid(fcinfo, 0);
    const Ksuid* b = arg_ksuid(fcinfo, 1);
    PG_RETURN_POINTER(cmp(a, b) >= 0 ? a : b);
}

// ---- generation, time -------------------------------------------------------------------------

IDGEN_FUNCTION(gen_ksuid) {
    auto id = g_generator.next(idgen::unix_time_ns() / 1000000000, idgen::pg::backend_entropy());
    if (!id) return failure.fail(id.error(), kType, "the clock is outside 2014-05-13 16:53:20+00 .. 2150-06-19 23:21:35+00");
    return return_ksuid(*id);
}

IDGEN_FUNCTION(gen_ksuid_at) {
    TimestampTz ts = PG_GETARG_TIMESTAMPTZ(0);
    auto id = idgen::ksuid_at(timestamptz_seconds(ts), idgen::pg::backend_entropy());
    if (!id) return failure.fail(id.error(), kType, timestamptz_to_str(ts));
    return return_ksuid(*id);
}

IDGEN_FUNCTION(ksuid_time) {
    const Ksuid* id = arg_ksuid(fcinfo, 0);
    PG_RETURN_TIMESTAMPTZ(idgen::pg::unix_ms_to_timestamptz(idgen::ksuid_unix_seconds(*id) * 1000));
}

IDGEN_FUNCTION(ksuid_lower) {
    TimestampTz ts = PG_GETARG_TIMESTAMPTZ(0);
    auto id = idgen::ksuid_lower(timestamptz_seconds(ts));
    if (!id) return failure.fail(id.error(), kType, timestamptz_to_str(ts));
    return return_ksuid(*id);
}

IDGEN_FUNCTION(ksuid_upper) {
    TimestampTz ts = PG_GETARG_TIMESTAMPTZ(0);
    auto id = idgen::ksuid_upper(timestamptz_seconds(ts));
    if (!id) return failure.fail(id.error(), kType, timestamptz_to_str(ts));
    return return_ksuid(*id);
}

// ---- bytea ------------------------------------------------------------------------------------

IDGEN_FUNCTION(ksuid_to_bytea) {
    const Ksuid* id = arg_ksuid(fcinfo, 0);
    bytea* out = static_cast<bytea*>(palloc(VARHDRSZ + kLen));
    SET_VARSIZE(out, VARHDRSZ + kLen);
    std::memcpy(VARDATA(out), id->bytes, kLen);
    PG_RETURN_BYTEA_P(out);
}

// Exactly 20 bytes; any other length is 22P02, with the value shown as bytea's hex text.
IDGEN_FUNCTION(ksuid_from_bytea) {
    const bytea* in = PG_GETARG_BYTEA_PP(0);
    const std::size_t n = VARSIZE_ANY_EXHDR(in);
    const auto* b = reinterpret_cast<const unsigned char*>(VARDATA_ANY(in));
    if (n == kLen) {
        auto* out = static_cast<Ksuid*>(palloc(kLen));
        std::memcpy(out->bytes, b, kLen);
        PG_RETURN_POINTER(out);
    }
    return failure.fail(idgen::Error::kInvalidSyntax, kType, idgen::pg::bytea_hex_for_message(b, n));
}
