// id_gen: SQL entry points of base36 text (types base36_64 and base36_128, encode/decode functions).
#include <cstdint>
#include <cstring>

#include "boundary.h"
#include "core/base36.h"
#include "core/bytes.h"

extern "C" {
#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/uuid.h"
}

namespace {

constexpr const char* kType64 = "base36_64";
constexpr const char* kType128 = "base36_128";

Datum return_bytes16(unsigned __int128 v) {
    auto* out = static_cast<pg_uuid_t*>(palloc(UUID_LEN));
    idgen::store_be128(out->data, v);
    return PointerGetDatum(out);
}

// A signed value for an error message ("-5").
const char* int8_text(std::int64_t v, char (&buf)[32]) noexcept {
    snprintf(buf, sizeof buf, INT64_FORMAT, v);  // pg_snprintf (port.h): cannot raise
    return buf;
}

}  // namespace

// ---- base36_64: an int8 in 0 .. 2^63-1 --------------------------------------------------------

IDGEN_FUNCTION(base36_64_in) {
    const char* text = PG_GETARG_CSTRING(0);
    const std::size_t n = std::strlen(text);
    auto v = idgen::base36_decode64(text, n);
    const idgen::Error e = !v ? v.error() : *v > static_cast<std::uint64_t>(INT64_MAX) ? idgen::Error::kOutOfRange
                                                                                    : idgen::Error::kOk;
    if (e != idgen::Error::kOk) {
        return failure.fail(e, kType64, text, n);
    }
    PG_RETURN_INT64(static_cast<std::int64_t>(*v));
}

IDGEN_FUNCTION(base36_64_out) {
    const std::int64_t v = PG_GETARG_INT64(0);
    char* out = static_cast<char*>(palloc(idgen::kBase36Len64 + 1));
    idgen::base36_encode64(static_cast<std::uint64_t>(v), out);
    out[idgen::kBase36Len64] = '\0';
    PG_RETURN_CSTRING(out);
}

IDGEN_FUNCTION(base36_64_recv) {
    StringInfo buf = reinterpret_cast<StringInfo>(PG_GETARG_POINTER(0));
    const std::int64_t v = pq_getmsgint64(buf);
    char num[32];
    if (v < 0) return failure.fail(idgen::Error::kOutOfRange, kType64, int8_text(v, num));
    PG_RETURN_INT64(v);
}

IDGEN_FUNCTION(base36_64_from_int8) {
    const std::int64_t v = PG_GETARG_INT64(0);
    char num[32];
    if (v < 0) return failure.fail(idgen::Error::kOutOfRange, kType64, int8_text(v, num));
    PG_RETURN_INT64(v);
}

IDGEN_FUNCTION(base36_encode_int8) {
    const std::int64_t v = PG_GETARG_INT64(0);
    char num[32];
    if (v < 0) return failure.fail(idgen::Error::kOutOfRange, kType64, int8_text(v, num));
    text* out = static_cast<text*>(palloc(VARHDRSZ + idgen::kBase36Len64));
    SET_VARSIZE(out, VARHDRSZ + idgen::kBase36Len64);
    idgen::base36_encode64(static_cast<std::uint64_t>(v), VARDATA(out));
    PG_RETURN_TEXT_P(out);
}

IDGEN_FUNCTION(base36_decode_int8) {
    const text* t = PG_GETARG_TEXT_PP(0);
    const char* s = VARDATA_ANY(t);
    const std::size_t n = VARSIZE_ANY_EXHDR(t);
    auto v = idgen::base36_decode64(s, n);
    const idgen::Error e = !v ? v.error() : *v > static_cast<std::uint64_t>(INT64_MAX) ? idgen::Error::kOutOfRange
                                                                                    : idgen::Error::kOk;
    if (e != idgen::Error::kOk) {
        return failure.fail(e, kType64, s, n);
    }
    PG_RETURN_INT64(static_cast<std::int64_t>(*v));
}

// ---- base36_128: 16 big-endian bytes (a uuid's, a ulid's) ------------------------------------

IDGEN_FUNCTION(base36_128_in) {
    const char* text = PG_GETARG_CSTRING(0);
    const std::size_t n = std::strlen(text);
    auto v = idgen::base36_decode128(text, n);
    if (!v) {
        return failure.fail(v.error(), kType128, text, n);
    }
    return return_bytes16(*v);
}

IDGEN_FUNCTION(base36_128_out) {
    const auto* id = reinterpret_cast<const pg_uuid_t*>(PG_GETARG_POINTER(0));
    char* out = static_cast<char*>(palloc(idgen::kBase36Len128 + 1));
    idgen::base36_encode128(idgen::load_be128(id->data), out);
    out[idgen::kBase36Len128] = '\0';
    PG_RETURN_CSTRING(out);
}

IDGEN_FUNCTION(base36_encode_128) {
    const auto* id = reinterpret_cast<const pg_uuid_t*>(PG_GETARG_POINTER(0));
    text* out = static_cast<text*>(palloc(VARHDRSZ + idgen::kBase36Len128));
    SET_VARSIZE(out, VARHDRSZ + idgen::kBase36Len128);
    idgen::base36_encode128(idgen::load_be128(id->data), VARDATA(out));
    PG_RETURN_TEXT_P(out);
}

IDGEN_FUNCTION(base36_decode_128) {
    const text* t = PG_GETARG_TEXT_PP(0);
    const char* s = VARDATA_ANY(t);
    const std::size_t n = VARSIZE_ANY_EXHDR(t);
    auto v = idgen::base36_decode128(s, n);
    if (!v) {
        return failure.fail(v.error(), kType128, s, n);
    }
    return return_bytes16(*v);
}
