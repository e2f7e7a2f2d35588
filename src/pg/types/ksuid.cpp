// id_gen: SQL entry points of the ksuid type (Segment's KSUID).
#include <cstring>

#include "core/base/bytes.h"
#include "core/base/clock.h"
#include "core/types/ksuid.h"
#include "pg/base/boundary.h"
#include "pg/base/pg_time.h"
#include "pg/generators/backend_entropy.h"
#include "pg/types/byte_type.h"
#include "pg/types/bytea_hex.h"

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

// Per process (a process a backend forks starts afresh, see PerProcess); trivially destructible.
idgen::PerProcess<idgen::KsuidGenerator> g_generator;

std::int64_t timestamptz_seconds(TimestampTz ts) {
    return idgen::ksuid_floor_seconds(idgen::pg::timestamptz_to_unix_ms(ts));
}

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

// ---- binary I/O, comparison, hashing, sorting, min/max (byte_type.h) -----------------------------

IDGEN_BYTE_TYPE_SUPPORT(ksuid, idgen::Ksuid)

// ---- generation, time -------------------------------------------------------------------------

IDGEN_FUNCTION(gen_ksuid) {
    auto id = g_generator.get().next(idgen::unix_time_ns() / 1000000000, idgen::pg::backend_entropy());
    if (!id)
        return failure.fail(id.error(), kType, "the clock is outside 2014-05-13 16:53:20+00 .. 2150-06-19 23:21:35+00");
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
