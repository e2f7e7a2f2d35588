// id_gen: SQL entry points of base62 text (types base62_64 and base62_128, encode/decode functions).
#include <cstdint>
#include <cstring>

#include "boundary.h"
#include "core/base62.h"
#include "core/bytes.h"

extern "C" {
#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/uuid.h"
}

namespace {

constexpr const char* kType64 = "base62_64";
constexpr const char* kType128 = "base62_128";

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

// base62_64 holds 0 .. 2^63-1: a decoded value above that is out of range for the type.
idgen::Error check64(const idgen::Result<std::uint64_t>& v) noexcept {
    if (!v) return v.error();
    return *v > static_cast<std::uint64_t>(INT64_MAX) ? idgen::Error::kOutOfRange : idgen::Error::kOk;
}

}  // namespace

// ---- base62_64: an int8 in 0 .. 2^63-1 --------------------------------------------------------

IDGEN_FUNCTION(base62_64_in) {
    const char* text = PG_GETARG_CSTRING(0);
    const std::size_t n = std::strlen(text);
    auto v = idgen::base62_decode64(text, n);
    const idgen::Error e = check64(v);
    if (e != idgen::Error::kOk) return failure.fail(e, kType64, text, n);
    PG_RETURN_INT64(static_cast<std::int64_t>(*v));
}

IDGEN_FUNCTION(base62_64_out) {
    const std::int64_t v = PG_GETARG_INT64(0);
    char* out = static_cast<char*>(palloc(idgen::kBase62Len64 + 1));
    idgen::base62_encode64(static_cast<std::uint64_t>(v), out);
    out[idgen::kBase62Len64] = '\0';
    PG_RETURN_CSTRING(out);
}

IDGEN_FUNCTION(base62_64_recv) {
    StringInfo buf = reinterpret_cast<StringInfo>(PG_GETARG_POINTER(0));
    const std::int64_t v = pq_getmsgint64(buf);
    char num[32];
    if (v < 0) return failure.fail(idgen::Error::kOutOfRange, kType64, int8_text(v, num));
    PG_RETURN_INT64(v);
}

IDGEN_FUNCTION(base62_64_from_int8) {
    const std::int64_t v = PG_GETARG_INT64(0);
    char num[32];
    if (v < 0) return failure.fail(idgen::Error::kOutOfRange, kType64, int8_text(v, num));
    PG_RETURN_INT64(v);
}

IDGEN_FUNCTION(base62_encode_int8) {
    const std::int64_t v = PG_GETARG_INT64(0);
    char num[32];
    if (v < 0) return failure.fail(idgen::Error::kOutOfRange, kType64, int8_text(v, num));
    text* out = static_cast<text*>(palloc(VARHDRSZ + idgen::kBase62Len64));
    SET_VARSIZE(out, VARHDRSZ + idgen::kBase62Len64);
    idgen::base62_encode64(static_cast<std::uint64_t>(v), VARDATA(out));
    PG_RETURN_TEXT_P(out);
}

IDGEN_FUNCTION(base62_decode_int8) {
    const text* t = PG_GETARG_TEXT_PP(0);
    const char* s = VARDATA_ANY(t);
    const std::size_t n = VARSIZE_ANY_EXHDR(t);
    auto v = idgen::base62_decode64(s, n);
    const idgen::Error e = check64(v);
    if (e != idgen::Error::kOk) return failure.fail(e, kType64, s, n);
    PG_RETURN_INT64(static_cast<std::int64_t>(*v));
}

// ---- base62_128: 16 big-endian bytes (a uuid's, a ulid's) ------------------------------------

IDGEN_FUNCTION(base62_128_in) {
    const char* text = PG_GETARG_CSTRING(0);
    const std::size_t n = std::strlen(text);
    auto v = idgen::base62_decode128(text, n);
    if (!v) return failure.fail(v.error(), kType128, text, n);
    return return_bytes16(*v);
}

IDGEN_FUNCTION(base62_128_out) {
    const auto* id = reinterpret_cast<const pg_uuid_t*>(PG_GETARG_POINTER(0));
    char* out = static_cast<char*>(palloc(idgen::kBase62Len128 + 1));
    idgen::base62_encode128(idgen::load_be128(id->data), out);
    out[idgen::kBase62Len128] = '\0';
    PG_RETURN_CSTRING(out);
}

IDGEN_FUNCTION(base62_encode_128) {
    const auto* id = reinterpret_cast<const pg_uuid_t*>(PG_GETARG_POINTER(0));
    text* out = static_cast<text*>(palloc(VARHDRSZ + idgen::kBase62Len128));
    SET_VARSIZE(out, VARHDRSZ + idgen::kBase62Len128);
    idgen::base62_encode128(idgen::load_be128(id->data), VARDATA(out));
    PG_RETURN_TEXT_P(out);
}

IDGEN_FUNCTION(base62_decode_128) {
    const text* t = PG_GETARG_TEXT_PP(0);
    const char* s = VARDATA_ANY(t);
    const std::size_t n = VARSIZE_ANY_EXHDR(t);
    auto v = idgen::base62_decode128(s, n);
    if (!v) return failure.fail(v.error(), kType128, s, n);
    return return_bytes16(*v);
}
