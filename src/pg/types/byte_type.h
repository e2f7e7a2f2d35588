// id_gen: the support functions every fixed-length ID type compared byte by byte shares (objectid,
// ksuid, rsxid): binary input and output (the bytes themselves), the six comparison operators,
// the btree comparison and its sort support (abbreviated keys: the first 8 bytes as an unsigned
// number, so ordering by them is ordering by the bytes), hash and hash_extended over the bytes
// (types with the same bytes hash alike, as the binary-coercible rsxid <-> objectid cast needs),
// and the min()/max() transition functions.
//
//   IDGEN_BYTE_TYPE_SUPPORT(objectid, idgen::ObjectId)
// defines objectid_recv, objectid_send, objectid_eq/ne/lt/le/gt/ge, objectid_cmp,
// objectid_sortsupport, objectid_hash, objectid_hash_extended, objectid_smaller, objectid_larger
// for a trivially copyable struct whose only member is `unsigned char bytes[N]`.
#pragma once

#include <cstring>
#include <type_traits>

#include "core/base/bytes.h"
#include "pg/base/boundary.h"

extern "C" {
#include "common/hashfn.h"
#include "libpq/pqformat.h"
#include "utils/sortsupport.h"
}

namespace idgen::pg::byte_type {

template <typename T>
const T* arg(FunctionCallInfo fcinfo, int n) {
    return reinterpret_cast<const T*>(PG_GETARG_POINTER(n));
}

template <typename T>
int cmp(const T* a, const T* b) {
    return std::memcmp(a->bytes, b->bytes, sizeof(T));
}

template <typename T>
int fastcmp(Datum x, Datum y, SortSupport) {
    return cmp(reinterpret_cast<const T*>(DatumGetPointer(x)), reinterpret_cast<const T*>(DatumGetPointer(y)));
}

template <typename T>
Datum abbrev_convert(Datum original, SortSupport) {
    return static_cast<Datum>(idgen::load_be64(reinterpret_cast<const T*>(DatumGetPointer(original))->bytes));
}

inline bool abbrev_abort(int, SortSupport) { return false; }

template <typename T>
void sortsupport(SortSupport ssup) {
    ssup->comparator = fastcmp<T>;
    if (ssup->abbreviate && sizeof(Datum) >= 8) {
        ssup->abbrev_converter = abbrev_convert<T>;
        ssup->abbrev_abort = abbrev_abort;
        ssup->abbrev_full_comparator = fastcmp<T>;
        ssup->comparator = ssup_datum_unsigned_cmp;
    }
}

template <typename T>
Datum recv(StringInfo buf) {
    auto* out = static_cast<T*>(palloc(sizeof(T)));
    std::memcpy(out->bytes, pq_getmsgbytes(buf, sizeof(T)), sizeof(T));  // fewer bytes left: 08P01
    return PointerGetDatum(out);
}

template <typename T>
bytea* send(const T* id) {
    StringInfoData buf;
    pq_begintypsend(&buf);
    pq_sendbytes(&buf, reinterpret_cast<const char*>(id->bytes), sizeof(T));
    return pq_endtypsend(&buf);
}

template <typename T>
constexpr bool kFits = std::is_trivially_copyable_v<T> && sizeof(T) >= 8 && sizeof(T) == sizeof(T::bytes);

}  // namespace idgen::pg::byte_type

#define IDGEN_BYTE_TYPE_SUPPORT(prefix, T)                                                                      \
    static_assert(::idgen::pg::byte_type::kFits<T>, #T " is not a plain array of at least 8 bytes");            \
    static inline int prefix##_compare(FunctionCallInfo fcinfo) {                                               \
        return ::idgen::pg::byte_type::cmp(::idgen::pg::byte_type::arg<T>(fcinfo, 0),                           \
                                           ::idgen::pg::byte_type::arg<T>(fcinfo, 1));                          \
    }                                                                                                           \
    IDGEN_FUNCTION(prefix##_recv) {                                                                             \
        return ::idgen::pg::byte_type::recv<T>(reinterpret_cast<StringInfo>(PG_GETARG_POINTER(0)));             \
    }                                                                                                           \
    IDGEN_FUNCTION(prefix##_send) {                                                                             \
        PG_RETURN_BYTEA_P(::idgen::pg::byte_type::send(::idgen::pg::byte_type::arg<T>(fcinfo, 0)));             \
    }                                                                                                           \
    IDGEN_FUNCTION(prefix##_eq) { PG_RETURN_BOOL(prefix##_compare(fcinfo) == 0); }                              \
    IDGEN_FUNCTION(prefix##_ne) { PG_RETURN_BOOL(prefix##_compare(fcinfo) != 0); }                              \
    IDGEN_FUNCTION(prefix##_lt) { PG_RETURN_BOOL(prefix##_compare(fcinfo) < 0); }                               \
    IDGEN_FUNCTION(prefix##_le) { PG_RETURN_BOOL(prefix##_compare(fcinfo) <= 0); }                              \
    IDGEN_FUNCTION(prefix##_gt) { PG_RETURN_BOOL(prefix##_compare(fcinfo) > 0); }                               \
    IDGEN_FUNCTION(prefix##_ge) { PG_RETURN_BOOL(prefix##_compare(fcinfo) >= 0); }                              \
    IDGEN_FUNCTION(prefix##_cmp) {                                                                              \
        const int c = prefix##_compare(fcinfo);                                                                 \
        PG_RETURN_INT32(c < 0 ? -1 : (c > 0 ? 1 : 0));                                                          \
    }                                                                                                           \
    IDGEN_FUNCTION(prefix##_sortsupport) {                                                                      \
        ::idgen::pg::byte_type::sortsupport<T>(reinterpret_cast<SortSupport>(PG_GETARG_POINTER(0)));            \
        PG_RETURN_VOID();                                                                                       \
    }                                                                                                           \
    IDGEN_FUNCTION(prefix##_hash) {                                                                             \
        return hash_any(::idgen::pg::byte_type::arg<T>(fcinfo, 0)->bytes, static_cast<int>(sizeof(T)));         \
    }                                                                                                           \
    IDGEN_FUNCTION(prefix##_hash_extended) {                                                                    \
        return hash_any_extended(::idgen::pg::byte_type::arg<T>(fcinfo, 0)->bytes, static_cast<int>(sizeof(T)), \
                                 PG_GETARG_INT64(1));                                                           \
    }                                                                                                           \
    /* min()/max() transitions return one of their inputs: no copy. */                                          \
    IDGEN_FUNCTION(prefix##_smaller) {                                                                          \
        PG_RETURN_POINTER(prefix##_compare(fcinfo) <= 0 ? PG_GETARG_POINTER(0) : PG_GETARG_POINTER(1));         \
    }                                                                                                           \
    IDGEN_FUNCTION(prefix##_larger) {                                                                           \
        PG_RETURN_POINTER(prefix##_compare(fcinfo) >= 0 ? PG_GETARG_POINTER(0) : PG_GETARG_POINTER(1));         \
    }
