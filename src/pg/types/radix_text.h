// id_gen: the SQL glue that base36 and base62 text share (type I/O, casts, encode/decode
// functions), written once over a codec trait. Each codec's file defines its trait and one
// IDGEN_FUNCTION per SQL name that calls the matching template below; what differs between the
// codecs (alphabet, width, strictness) lives in src/core.
//
// A codec trait C provides:
//   kType64, kType128   the SQL type names, for error messages
//   kLen64, kLen128     the fixed output widths
//   encode64/128, decode64/128   the src/core functions
// Every template follows the boundary's shape (boundary.h): PostgreSQL calls first with trivially
// destructible locals, then noexcept core calls, then the result or failure.fail(...).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "core/base/bytes.h"
#include "pg/base/boundary.h"

extern "C" {
#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/uuid.h"
}

namespace idgen::pg::radix_text {

inline Datum return_bytes16(unsigned __int128 v) {
    auto* out = static_cast<pg_uuid_t*>(palloc(UUID_LEN));
    idgen::store_be128(out->data, v);
    return PointerGetDatum(out);
}

// A signed value for an error message ("-5").
inline const char* int8_text(std::int64_t v, char (&buf)[32]) noexcept {
    snprintf(buf, sizeof buf, INT64_FORMAT, v);  // pg_snprintf (port.h): cannot raise
    return buf;
}

// The 64-bit types hold 0 .. 2^63-1 (an int8): a decoded value above that is out of range.
inline idgen::Error check64(const idgen::Result<std::uint64_t>& v) noexcept {
    if (!v) return v.error();
    return *v > static_cast<std::uint64_t>(INT64_MAX) ? idgen::Error::kOutOfRange : idgen::Error::kOk;
}

// Text of n bytes to an int8 (type input, decode function).
template <class C>
Datum decode64(const char* s, std::size_t n, Failure& failure) {
    auto v = C::decode64(s, n);
    const idgen::Error e = check64(v);
    if (e != idgen::Error::kOk) return failure.fail(e, C::kType64, s, n);
    return Int64GetDatum(static_cast<std::int64_t>(*v));
}

// Text of n bytes to 16 bytes (type input, decode function).
template <class C>
Datum decode128(const char* s, std::size_t n, Failure& failure) {
    auto v = C::decode128(s, n);
    if (!v) return failure.fail(v.error(), C::kType128, s, n);
    return return_bytes16(*v);
}

// A negative int8 is out of range for the 64-bit type (binary input, casts, encode).
template <class C>
bool reject_negative(std::int64_t v, Failure& failure) {
    if (v >= 0) return false;
    char num[32];
    failure.fail(idgen::Error::kOutOfRange, C::kType64, int8_text(v, num));
    return true;
}

// ---- the SQL-visible shapes ------------------------------------------------------------------

template <class C>
Datum in64(FunctionCallInfo fcinfo, Failure& failure) {
    const char* text = PG_GETARG_CSTRING(0);
    return decode64<C>(text, std::strlen(text), failure);
}

template <class C>
Datum out64(FunctionCallInfo fcinfo, Failure&) {
    const std::int64_t v = PG_GETARG_INT64(0);
    char* out = static_cast<char*>(palloc(C::kLen64 + 1));
    C::encode64(static_cast<std::uint64_t>(v), out);
    out[C::kLen64] = '\0';
    PG_RETURN_CSTRING(out);
}

// binary input (recv) and the int8 cast share this: an int8, checked for sign.
template <class C>
Datum checked_int8(std::int64_t v, Failure& failure) {
    if (reject_negative<C>(v, failure)) return (Datum)0;
    return Int64GetDatum(v);
}

template <class C>
Datum recv64(FunctionCallInfo fcinfo, Failure& failure) {
    StringInfo buf = reinterpret_cast<StringInfo>(PG_GETARG_POINTER(0));
    return checked_int8<C>(pq_getmsgint64(buf), failure);
}

template <class C>
Datum from_int8(FunctionCallInfo fcinfo, Failure& failure) {
    return checked_int8<C>(PG_GETARG_INT64(0), failure);
}

template <class C>
Datum encode_int8(FunctionCallInfo fcinfo, Failure& failure) {
    const std::int64_t v = PG_GETARG_INT64(0);
    if (reject_negative<C>(v, failure)) return (Datum)0;
    text* out = static_cast<text*>(palloc(VARHDRSZ + C::kLen64));
    SET_VARSIZE(out, VARHDRSZ + C::kLen64);
    C::encode64(static_cast<std::uint64_t>(v), VARDATA(out));
    PG_RETURN_TEXT_P(out);
}

template <class C>
Datum decode_int8(FunctionCallInfo fcinfo, Failure& failure) {
    const text* t = PG_GETARG_TEXT_PP(0);
    return decode64<C>(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t), failure);
}

template <class C>
Datum in128(FunctionCallInfo fcinfo, Failure& failure) {
    const char* text = PG_GETARG_CSTRING(0);
    return decode128<C>(text, std::strlen(text), failure);
}

template <class C>
Datum out128(FunctionCallInfo fcinfo, Failure&) {
    const auto* id = reinterpret_cast<const pg_uuid_t*>(PG_GETARG_POINTER(0));
    char* out = static_cast<char*>(palloc(C::kLen128 + 1));
    C::encode128(idgen::load_be128(id->data), out);
    out[C::kLen128] = '\0';
    PG_RETURN_CSTRING(out);
}

template <class C>
Datum encode_128(FunctionCallInfo fcinfo, Failure&) {
    const auto* id = reinterpret_cast<const pg_uuid_t*>(PG_GETARG_POINTER(0));
    text* out = static_cast<text*>(palloc(VARHDRSZ + C::kLen128));
    SET_VARSIZE(out, VARHDRSZ + C::kLen128);
    C::encode128(idgen::load_be128(id->data), VARDATA(out));
    PG_RETURN_TEXT_P(out);
}

template <class C>
Datum decode_128(FunctionCallInfo fcinfo, Failure& failure) {
    const text* t = PG_GETARG_TEXT_PP(0);
    return decode128<C>(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t), failure);
}

}  // namespace idgen::pg::radix_text

// Defines the ten SQL entry points of one codec: PREFIX_64_in, PREFIX_64_out, PREFIX_64_recv,
// PREFIX_64_from_int8, PREFIX_encode_int8, PREFIX_decode_int8, PREFIX_128_in, PREFIX_128_out,
// PREFIX_encode_128, PREFIX_decode_128 (the C names the SQL script binds).
#define IDGEN_RADIX_TEXT_FUNCTIONS(PREFIX, CODEC)                                                                 \
    IDGEN_FUNCTION(PREFIX##_64_in) { return ::idgen::pg::radix_text::in64<CODEC>(fcinfo, failure); }              \
    IDGEN_FUNCTION(PREFIX##_64_out) { return ::idgen::pg::radix_text::out64<CODEC>(fcinfo, failure); }            \
    IDGEN_FUNCTION(PREFIX##_64_recv) { return ::idgen::pg::radix_text::recv64<CODEC>(fcinfo, failure); }          \
    IDGEN_FUNCTION(PREFIX##_64_from_int8) { return ::idgen::pg::radix_text::from_int8<CODEC>(fcinfo, failure); }  \
    IDGEN_FUNCTION(PREFIX##_encode_int8) { return ::idgen::pg::radix_text::encode_int8<CODEC>(fcinfo, failure); } \
    IDGEN_FUNCTION(PREFIX##_decode_int8) { return ::idgen::pg::radix_text::decode_int8<CODEC>(fcinfo, failure); } \
    IDGEN_FUNCTION(PREFIX##_128_in) { return ::idgen::pg::radix_text::in128<CODEC>(fcinfo, failure); }            \
    IDGEN_FUNCTION(PREFIX##_128_out) { return ::idgen::pg::radix_text::out128<CODEC>(fcinfo, failure); }          \
    IDGEN_FUNCTION(PREFIX##_encode_128) { return ::idgen::pg::radix_text::encode_128<CODEC>(fcinfo, failure); }   \
    IDGEN_FUNCTION(PREFIX##_decode_128) { return ::idgen::pg::radix_text::decode_128<CODEC>(fcinfo, failure); }
