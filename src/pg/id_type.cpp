// id_gen: the C entry points of every per-entity ID type made by create_id_type().
//
// One set of entry points serves every such type: id_type_in, id_type_out and id_type_describe
// here; send/recv, comparison, hashing, generators and decoders are the kind's own (the bytes are
// the kind's). What a type is (kind, text format, prefix) is read from the type's own catalog
// entries, never from the prefix registry: a restore (plain, or pg_restore -j) may load a table's
// data before the registry's rows, but it always creates a type, with its functions, in pre-data.
//
// Where it is written: the type's TYPMOD_IN function, `<type>_typmod_in(cstring[])`, a LANGUAGE
// sql function made by create_id_type() whose body is
//   SELECT <extension schema>.id_type_typmod_in($1, 'kind=ulid format=prefixed prefix=acct')
// (it refuses type modifiers when called). pg_type.typmodin links the type to it, so the spec is
// found from the type's OID alone (which an input function receives as its second argument, and
// which an output function finds as the type of its argument) through two syscache lookups
// (TYPEOID, PROCOID), whatever the type or its schema are renamed to, and it is dumped with the
// type, in pre-data. A SET clause on the I/O functions would also carry it, but costs a GUC save
// and restore on every call; this costs a pointer comparison per call: the spec is cached per
// call site (fn_extra) and per backend, and both caches are dropped when pg_type or pg_proc change
// (syscache invalidation callbacks).
#include <cstdint>
#include <cstring>

#include "boundary.h"
#include "core/id_type.h"

extern "C" {
#include "access/htup_details.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/syscache.h"
}

namespace {

// What a per-entity type is. Trivially destructible: it lives in palloc'd memory.
struct TypeInfo {
    Oid type;  // hash key
    std::uint64_t generation;
    idgen::IdTypeSpec spec;
    char name[NAMEDATALEN];
};

std::uint64_t g_generation = 1;  // bumped by every pg_type / pg_proc invalidation
HTAB* g_cache = nullptr;         // type OID -> TypeInfo, per backend

void invalidate(Datum, int, uint32) { ++g_generation; }

// The spec of `type` from its catalog entries; false if it is not a per-entity ID type.
bool load_spec(Oid type, TypeInfo* out) {
    HeapTuple tt = SearchSysCache1(TYPEOID, ObjectIdGetDatum(type));
    if (!HeapTupleIsValid(tt)) return false;
    const auto* t = reinterpret_cast<Form_pg_type>(GETSTRUCT(tt));
    const Oid modin = t->typmodin;
    strlcpy(out->name, NameStr(t->typname), NAMEDATALEN);
    ReleaseSysCache(tt);
    if (!OidIsValid(modin)) return false;
    HeapTuple pt = SearchSysCache1(PROCOID, ObjectIdGetDatum(modin));
    if (!HeapTupleIsValid(pt)) return false;
    bool isnull = true;
    const Datum src = SysCacheGetAttr(PROCOID, pt, Anum_pg_proc_prosrc, &isnull);
    char* body = isnull ? nullptr : TextDatumGetCString(src);
    ReleaseSysCache(pt);
    if (body == nullptr) return false;
    const char* start = std::strstr(body, "'kind=");
    if (start == nullptr) return false;
    ++start;
    const char* end = std::strchr(start, '\'');
    if (end == nullptr) return false;
    auto spec = idgen::id_type_spec_parse(start, static_cast<std::size_t>(end - start));
    if (!spec) return false;
    out->spec = *spec;
    return true;
}

// The TypeInfo of `type`, through the call site's cache, then the backend's; ERROR if `type` is
// not a per-entity ID type.
const TypeInfo& type_info(FunctionCallInfo fcinfo, Oid type) {
    auto* cached = static_cast<TypeInfo*>(fcinfo->flinfo->fn_extra);
    if (cached != nullptr && cached->type == type && cached->generation == g_generation) return *cached;
    if (g_cache == nullptr) {
        CacheRegisterSyscacheCallback(TYPEOID, invalidate, (Datum)0);
        CacheRegisterSyscacheCallback(PROCOID, invalidate, (Datum)0);
        HASHCTL ctl;
        std::memset(&ctl, 0, sizeof ctl);
        ctl.keysize = sizeof(Oid);
        ctl.entrysize = sizeof(TypeInfo);
        g_cache = hash_create("id_gen ID types", 16, &ctl, HASH_ELEM | HASH_BLOBS);
    }
    bool found = false;
    auto* entry = static_cast<TypeInfo*>(hash_search(g_cache, &type, HASH_ENTER, &found));
    if (!found || entry->generation != g_generation) {
        TypeInfo fresh{};
        fresh.type = type;
        if (!load_spec(type, &fresh)) {
            hash_search(g_cache, &type, HASH_REMOVE, nullptr);
            ereport(ERROR, (errcode(ERRCODE_WRONG_OBJECT_TYPE),
                            errmsg("type with OID %u is not an ID type made by create_id_type()", type),
                            errhint("Its TYPMOD_IN function must be the one create_id_type() made.")));
        }
        fresh.generation = g_generation;
        *entry = fresh;
    }
    if (cached == nullptr)
        cached = static_cast<TypeInfo*>(MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, sizeof(TypeInfo)));
    *cached = *entry;
    fcinfo->flinfo->fn_extra = cached;
    return *cached;
}

// The type of argument 0 of the function being called (an output function's own type).
Oid arg0_type(FunctionCallInfo fcinfo) {
    auto* cached = static_cast<TypeInfo*>(fcinfo->flinfo->fn_extra);
    if (cached != nullptr) return cached->type;
    HeapTuple pt = SearchSysCache1(PROCOID, ObjectIdGetDatum(fcinfo->flinfo->fn_oid));
    if (!HeapTupleIsValid(pt)) elog(ERROR, "cache lookup failed for function %u", fcinfo->flinfo->fn_oid);
    const auto* p = reinterpret_cast<Form_pg_proc>(GETSTRUCT(pt));
    const Oid type = p->pronargs > 0 ? p->proargtypes.values[0] : InvalidOid;
    ReleaseSysCache(pt);
    return type;
}

// The type an input function was asked for (its second argument), checked once per call site
// against the type the function returns: called by hand with another type's OID, it would build
// a value of the other type's layout (8 bytes by value where 16 by reference are expected).
Oid input_type(FunctionCallInfo fcinfo) {
    const Oid type = PG_GETARG_OID(1);
    auto* cached = static_cast<TypeInfo*>(fcinfo->flinfo->fn_extra);
    if (cached != nullptr && cached->type == type) return type;
    HeapTuple pt = SearchSysCache1(PROCOID, ObjectIdGetDatum(fcinfo->flinfo->fn_oid));
    if (!HeapTupleIsValid(pt)) elog(ERROR, "cache lookup failed for function %u", fcinfo->flinfo->fn_oid);
    const Oid returns = reinterpret_cast<Form_pg_proc>(GETSTRUCT(pt))->prorettype;
    ReleaseSysCache(pt);
    if (returns != type)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("input function of type %s called for type with OID %u", format_type_be(returns), type)));
    return type;
}

idgen::IdValue value_of(const idgen::IdTypeSpec& spec, Datum d) {
    idgen::IdValue v{};
    if (spec.kind == idgen::IdKind::kSnowflake) {
        v.i64 = DatumGetInt64(d);
    } else {
        std::memcpy(v.bytes, DatumGetPointer(d), 16);
    }
    return v;
}

const char* kind_name(idgen::IdKind k) {
    switch (k) {
        case idgen::IdKind::kUlid: return "ulid";
        case idgen::IdKind::kUuidv7: return "uuidv7";
        case idgen::IdKind::kSnowflake: return "snowflake";
    }
    return "?";
}

}  // namespace

// <type>_in(cstring, oid, int4): the prefixed (or TypeID) text, or the kind's bare text.
IDGEN_FUNCTION(id_type_in) {
    const char* text = PG_GETARG_CSTRING(0);
    const TypeInfo& info = type_info(fcinfo, input_type(fcinfo));
    const std::size_t n = std::strlen(text);
    auto* bytes = info.spec.kind == idgen::IdKind::kSnowflake ? nullptr : static_cast<std::uint8_t*>(palloc(16));
    idgen::WrongPrefix wrong{};
    auto v = idgen::id_type_parse(info.spec, text, n, &wrong);
    if (!v) {
        if (v.error() == idgen::Error::kWrongPrefix) {
            char message[320];
            snprintf(message, sizeof message, "type %s expects prefix \"%.*s\", found \"%.*s\" in \"%.*s\"",
                     info.name, static_cast<int>(info.spec.prefix_len), info.spec.prefix, static_cast<int>(wrong.len),
                     wrong.prefix, static_cast<int>(n > 100 ? 100 : n), text);
            return failure.fail(v.error(), info.name, message);
        }
        return failure.fail(v.error(), info.name, text, n);
    }
    if (bytes == nullptr) return Int64GetDatum(v->i64);
    std::memcpy(bytes, v->bytes, 16);
    return PointerGetDatum(bytes);
}

// <type>_out(<type>): the prefixed (or TypeID) text.
IDGEN_FUNCTION(id_type_out) {
    const TypeInfo& info = type_info(fcinfo, arg0_type(fcinfo));
    const idgen::IdValue v = value_of(info.spec, PG_GETARG_DATUM(0));
    char* out = static_cast<char*>(palloc(idgen::kIdTypeTextMaxLen + 1));
    const std::size_t n = idgen::id_type_format(info.spec, v, out);
    out[n] = '\0';
    PG_RETURN_CSTRING(out);
}

// id_type_typmod_in(cstring[], spec text): the body of every <type>_typmod_in(); a per-entity
// type takes no modifier.
IDGEN_FUNCTION(id_type_typmod_in) {
    ereport(ERROR, (errcode(ERRCODE_SYNTAX_ERROR), errmsg("an ID type made by create_id_type() takes no type modifier")));
    PG_RETURN_INT32(-1);
}

// id_type_describe(regtype, OUT kind, OUT format, OUT prefix): what a per-entity type is, as its
// I/O functions read it; no row when the type is not one.
IDGEN_FUNCTION(id_type_describe) {
    const Oid type = PG_GETARG_OID(0);
    TupleDesc tupdesc;
    if (get_call_result_type(fcinfo, nullptr, &tupdesc) != TYPEFUNC_COMPOSITE)
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("id_type_describe must return a record")));
    tupdesc = BlessTupleDesc(tupdesc);
    TypeInfo info{};
    if (!load_spec(type, &info)) PG_RETURN_NULL();
    Datum values[3] = {CStringGetTextDatum(kind_name(info.spec.kind)),
                       CStringGetTextDatum(info.spec.format == idgen::IdTextFormat::kTypeid ? "typeid" : "prefixed"),
                       PointerGetDatum(cstring_to_text_with_len(info.spec.prefix, info.spec.prefix_len))};
    bool nulls[3] = {false, false, false};
    return HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls));
}
