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
// call site (fn_extra) and per backend (see "What makes the cache current" below).
//
// Trust. That function is an ordinary SQL function: its owner can CREATE OR REPLACE it. Only a
// superuser could make it, but its owner need not stay one (ALTER ROLE ... NOSUPERUSER, ALTER
// FUNCTION ... OWNER TO), and a spec its owner chose would change the text a superuser's reads
// print and parse, or, with another kind, hand a 16-byte value to the 8-byte codec (a pointer
// printed as a snowflake; an integer stored where a pointer belongs: a crash). So a spec is used
// only when, read now:
//   * the type is an ID type: its input function is id_gen's C function id_type_in (only a
//     superuser can make a C function or a base type);
//   * its spec function (pg_type.typmodin: the link is the path we found it by) is owned by a role
//     that is a superuser now. A demoted owner's function is refused, in every session: nothing
//     tells a body written while its owner was a superuser from one written after, and the owner
//     can rewrite it at any moment. A superuser who has checked the body takes the function over
//     (ALTER FUNCTION ... OWNER TO <superuser>), or drops the type and creates it again;
//   * it is exactly what create_id_type() writes: LANGUAGE sql, no SQL-standard body, one
//     cstring[] argument, int4 result, not set-returning, and the body
//     `SELECT <a schema name>.id_type_typmod_in($1, '<spec>')` with a spec that
//     id_type_spec_parse() accepts (so single spaces, this order, a registry-shaped prefix);
//   * the kind agrees with how pg_type stores the type: ulid and uuidv7 are 16 bytes by reference,
//     char-aligned; snowflake is 8 bytes by value, double-aligned; both plain storage. Neither
//     typlen nor typbyval can be altered on an existing type, so a spec that passed this check
//     stays right for as long as the type exists.
// Anything else is refused with an error naming the type and what to do (42501 for the owner,
// 55000 for the shape, XX000 for a kind that contradicts the storage), never guessed at.
#include <cstdint>
#include <cstring>

#include "core/text/id_type.h"
#include "pg/base/boundary.h"
#include "pg/base/extension.h"

extern "C" {
#include "access/htup_details.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/regproc.h"
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

// Why load_spec() found no usable spec (see "Trust" above). Trivially destructible: it is what
// refuse() raises.
enum class SpecProblem : std::uint8_t {
    kNone,
    kNotIdType,       // no such type, or its input function is not id_type_in
    kNoSpecFunction,  // an ID type without its TYPMOD_IN function
    kOwner,           // the spec function's owner is not a superuser now
    kShape,           // not the function create_id_type() writes
    kKind,            // the spec's kind contradicts the type's storage
};

struct SpecCheck {
    SpecProblem problem = SpecProblem::kNone;
    Oid modin = InvalidOid;
    Oid owner = InvalidOid;
    idgen::IdKind kind = idgen::IdKind::kUlid;  // kKind: what the body says
    int16 typlen = 0;
    bool typbyval = false;
    char typalign = 0;
    char typstorage = 0;
};

// What makes the cache current. A TypeInfo holds what load_spec() read and checked; it is used
// while its generation equals g_generation, which every syscache invalidation of pg_type
// (TYPEOID), pg_proc (PROCOID) or pg_authid (AUTHOID) bumps. Those callbacks run whatever
// session_replication_role is (they are not triggers), for this session's own changes at
// CommandCounterIncrement and for another session's committed changes when this backend processes
// invalidation messages: at the start of each transaction and whenever it takes a lock
// (AcceptInvalidationMessages). So once another session has committed CREATE OR REPLACE of a
// spec function, ALTER FUNCTION ... OWNER TO, ALTER ROLE ... NOSUPERUSER or a DROP of the type,
// this session's next transaction (or an earlier statement that takes a new lock) reloads, and
// load_spec() checks everything again. A statement already
// running, or a transaction that takes no lock it does not already hold, may go on with the spec
// it loaded until it next processes invalidations. That matters little: the spec passed every
// check when it was read (a superuser's, as create_id_type() wrote it), and the change reaches
// the transaction as other DDL committed while it runs does: at its next new lock, or in its next
// transaction. It is never a wrong kind: the kind was checked against typlen and typbyval,
// which cannot change while the type exists, and a dropped type's OID is bumped away (TYPEOID)
// before it can be reused. The generation is taken before the catalog is read, so an
// invalidation that arrives while load_spec() reads (catalog access takes locks) leaves the entry
// stale, and the next call reads again.
std::uint64_t g_generation = 1;  // never 0: 0 marks an entry that has not been loaded
HTAB* g_cache = nullptr;         // type OID -> TypeInfo, per backend

void invalidate(Datum, int, uint32) { ++g_generation; }

const char* kind_name(idgen::IdKind k) {
    switch (k) {
        case idgen::IdKind::kUlid: return "ulid";
        case idgen::IdKind::kUuidv7: return "uuidv7";
        case idgen::IdKind::kSnowflake: return "snowflake";
        case idgen::IdKind::kKsuid: return "ksuid";
        case idgen::IdKind::kXid: return "xid";
    }
    return "?";
}

// Bytes of a by-reference kind's value: 20 for a ksuid, 12 for an xid, 16 for the 128-bit kinds.
int value_size(idgen::IdKind kind) {
    return kind == idgen::IdKind::kKsuid ? 20 : kind == idgen::IdKind::kXid ? 12 : 16;
}

// Where a by-reference kind's bytes are kept in an IdValue.
bool is_wide(idgen::IdKind kind) { return kind == idgen::IdKind::kKsuid || kind == idgen::IdKind::kXid; }

// True when pg_type stores a value of `kind` as create_id_type() made it (LIKE the kind's type).
bool storage_matches(idgen::IdKind kind, const SpecCheck& c) {
    if (c.typstorage != TYPSTORAGE_PLAIN) return false;
    if (kind == idgen::IdKind::kSnowflake) return c.typlen == 8 && c.typbyval && c.typalign == TYPALIGN_DOUBLE;
    return c.typlen == value_size(kind) && !c.typbyval && c.typalign == TYPALIGN_CHAR;
}

// The length of `SELECT <schema>.id_type_typmod_in($1, '` at the start of `body`, with <schema> an
// identifier as quote_identifier() writes one (lower-case letters, digits, _ and $, not starting
// with a digit; or double-quoted, with "" for a quote); 0 when the body does not start so.
std::size_t spec_head_length(const char* body) {
    constexpr const char* kSelect = "SELECT ";
    constexpr const char* kCall = ".id_type_typmod_in($1, '";
    if (std::strncmp(body, kSelect, std::strlen(kSelect)) != 0) return 0;
    const char* p = body + std::strlen(kSelect);
    if (*p == '"') {
        for (++p;; ++p) {
            if (*p == '\0') return 0;
            if (*p == '"') {
                if (p[1] != '"') break;
                ++p;
            }
        }
        ++p;
    } else {
        if (!((*p >= 'a' && *p <= 'z') || *p == '_')) return 0;
        while ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '$') ++p;
    }
    if (std::strncmp(p, kCall, std::strlen(kCall)) != 0) return 0;
    return static_cast<std::size_t>(p - body) + std::strlen(kCall);
}

// True when function `fn` is id_gen's C function id_type_in (a type's input function).
bool is_id_type_in(Oid fn) {
    HeapTuple pt = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn));
    if (!HeapTupleIsValid(pt)) return false;
    const bool c_language = reinterpret_cast<Form_pg_proc>(GETSTRUCT(pt))->prolang == ClanguageId;
    bool isnull = true;
    const Datum src = SysCacheGetAttr(PROCOID, pt, Anum_pg_proc_prosrc, &isnull);
    const bool ours = c_language && !isnull && std::strcmp(TextDatumGetCString(src), "id_type_in") == 0;
    ReleaseSysCache(pt);
    return ours;
}

// The spec of `type` from its catalog entries, checked as "Trust" above says; false, with the
// reason in `why`, when there is none to use.
bool load_spec(Oid type, TypeInfo* out, SpecCheck* why) {
    *why = SpecCheck{};
    HeapTuple tt = SearchSysCache1(TYPEOID, ObjectIdGetDatum(type));
    if (!HeapTupleIsValid(tt)) {
        why->problem = SpecProblem::kNotIdType;
        return false;
    }
    const auto* t = reinterpret_cast<Form_pg_type>(GETSTRUCT(tt));
    const Oid input = t->typinput;
    why->modin = t->typmodin;
    why->typlen = t->typlen;
    why->typbyval = t->typbyval;
    why->typalign = t->typalign;
    why->typstorage = t->typstorage;
    strlcpy(out->name, NameStr(t->typname), NAMEDATALEN);
    ReleaseSysCache(tt);
    if (!is_id_type_in(input)) {
        why->problem = SpecProblem::kNotIdType;
        return false;
    }
    HeapTuple pt = OidIsValid(why->modin) ? SearchSysCache1(PROCOID, ObjectIdGetDatum(why->modin)) : nullptr;
    if (!HeapTupleIsValid(pt)) {
        why->problem = SpecProblem::kNoSpecFunction;
        return false;
    }
    const auto* p = reinterpret_cast<Form_pg_proc>(GETSTRUCT(pt));
    why->owner = p->proowner;
    const bool signature = p->prolang == SQLlanguageId && p->prokind == PROKIND_FUNCTION && !p->proretset &&
                           p->pronargs == 1 && p->proargtypes.values[0] == CSTRINGARRAYOID && p->prorettype == INT4OID;
    bool isnull = true;
    (void)SysCacheGetAttr(PROCOID, pt, Anum_pg_proc_prosqlbody, &isnull);
    const bool sql_standard_body = !isnull;
    const Datum src = SysCacheGetAttr(PROCOID, pt, Anum_pg_proc_prosrc, &isnull);
    char* body = isnull ? nullptr : TextDatumGetCString(src);
    ReleaseSysCache(pt);
    if (!superuser_arg(why->owner)) {
        why->problem = SpecProblem::kOwner;
        return false;
    }
    why->problem = SpecProblem::kShape;
    if (!signature || sql_standard_body || body == nullptr) return false;
    // The text create_id_type() writes: format('SELECT @extschema@.id_type_typmod_in($1, %L)',
    // spec), with @extschema@ the schema the extension was installed in, as quote_identifier()
    // writes it. Any schema name is accepted there: the body is text, and a later rename of the
    // extension's schema (which its owner, often not a superuser, may do) must not make every ID
    // type unreadable; what is trusted is the owner (a superuser, above) and the spec.
    const std::size_t head_len = spec_head_length(body);
    const std::size_t body_len = std::strlen(body);
    if (head_len == 0 || body_len < head_len + 2 || std::strcmp(body + body_len - 2, "')") != 0) return false;
    // A spec the parser accepts has no quote, so the literal is exactly the spec.
    auto spec = idgen::id_type_spec_parse(body + head_len, body_len - head_len - 2);
    if (!spec) return false;
    if (!storage_matches(spec->kind, *why)) {
        why->problem = SpecProblem::kKind;
        why->kind = spec->kind;
        return false;
    }
    why->problem = SpecProblem::kNone;
    out->spec = *spec;
    return true;
}

// Raises the error for a type load_spec() refused. Every local is trivially destructible (C
// strings in palloc'd memory), as are the callers', so ereport may longjmp from here.
[[noreturn]] void refuse(Oid type, const SpecCheck& why) {
    if (why.problem == SpecProblem::kNotIdType)
        ereport(ERROR, (errcode(ERRCODE_WRONG_OBJECT_TYPE),
                        errmsg("type with OID %u is not an ID type made by create_id_type()", type),
                        errhint("Its input function must be the one create_id_type() made.")));
    const char* tname = format_type_be(type);
    if (why.problem == SpecProblem::kNoSpecFunction)
        ereport(ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE), errmsg("ID type %s has no spec function", tname),
                 errdetail("create_id_type() keeps the type's kind, text format and prefix in its TYPMOD_IN function, "
                           "<type>_typmod_in(cstring[])."),
                 errhint("Drop the type and create it again with create_id_type().")));
    const char* fname = format_procedure(why.modin);
    switch (why.problem) {
        case SpecProblem::kOwner:
            ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                            errmsg("ID type %s cannot be used: its spec function %s is owned by role \"%s\", which is "
                                   "not a superuser",
                                   tname, fname, GetUserNameFromId(why.owner, false)),
                            errdetail("The function's body holds the type's kind, text format and prefix, and its "
                                      "owner can replace it; id_gen trusts it only while a superuser owns it."),
                            errhint("If its body is still the one create_id_type() wrote, a superuser can take the "
                                    "function over (ALTER FUNCTION %s OWNER TO <superuser>); otherwise drop the type "
                                    "and create it again with create_id_type().",
                                    fname)));
            break;
        case SpecProblem::kKind:
            ereport(
                ERROR,
                (errcode(ERRCODE_INTERNAL_ERROR),
                 errmsg("ID type %s cannot be used: its spec function %s says kind %s, but the type is stored as %s",
                        tname, fname, kind_name(why.kind),
                        why.typlen == 16 && !why.typbyval   ? "16 bytes by reference (ulid or uuidv7)"
                        : why.typlen == 8 && why.typbyval   ? "8 bytes by value (snowflake)"
                        : why.typlen == 20 && !why.typbyval ? "20 bytes by reference (ksuid)"
                        : why.typlen == 12 && !why.typbyval ? "12 bytes by reference (xid)"
                                                            : "no kind stores it"),
                 errdetail("The function's body was changed after create_id_type() made the type."),
                 errhint("A superuser must give %s back the body create_id_type() wrote, or drop the type and create "
                         "it again.",
                         fname)));
            break;
        default:
            ereport(
                ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("ID type %s cannot be used: its spec function %s is not the one create_id_type() made", tname,
                        fname),
                 errdetail("It must be LANGUAGE sql, take cstring[], return integer and have the body SELECT <schema "
                           "of id_gen>.id_type_typmod_in($1, 'kind=<kind> format=<format> prefix=<prefix>')."),
                 errhint("A superuser must give it back the body create_id_type() wrote, or drop the type and create "
                         "it again.")));
    }
    pg_unreachable();
}

// The TypeInfo of `type`, through the call site's cache, then the backend's; ERROR if `type` is
// not a per-entity ID type or its spec is refused (load_spec()).
const TypeInfo& type_info(FunctionCallInfo fcinfo, Oid type) {
    auto* cached = static_cast<TypeInfo*>(fcinfo->flinfo->fn_extra);
    if (cached != nullptr && cached->type == type && cached->generation == g_generation) return *cached;
    if (g_cache == nullptr) {
        CacheRegisterSyscacheCallback(TYPEOID, invalidate, (Datum)0);
        CacheRegisterSyscacheCallback(PROCOID, invalidate, (Datum)0);
        CacheRegisterSyscacheCallback(AUTHOID, invalidate, (Datum)0);
        HASHCTL ctl;
        std::memset(&ctl, 0, sizeof ctl);
        ctl.keysize = sizeof(Oid);
        ctl.entrysize = sizeof(TypeInfo);
        g_cache = hash_create("id_gen ID types", 16, &ctl, HASH_ELEM | HASH_BLOBS);
    }
    bool found = false;
    auto* entry = static_cast<TypeInfo*>(hash_search(g_cache, &type, HASH_ENTER, &found));
    if (!found) entry->generation = 0;  // not loaded: an error in load_spec() must not leave it usable
    if (entry->generation != g_generation) {
        const std::uint64_t generation = g_generation;
        TypeInfo fresh{};
        fresh.type = type;
        SpecCheck why;
        if (!load_spec(type, &fresh, &why)) {
            hash_search(g_cache, &type, HASH_REMOVE, nullptr);
            refuse(type, why);
        }
        fresh.generation = generation;
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
        ereport(ERROR,
                (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                 errmsg("input function of type %s called for type with OID %u", format_type_be(returns), type)));
    return type;
}

idgen::IdValue value_of(const idgen::IdTypeSpec& spec, Datum d) {
    idgen::IdValue v{};
    if (spec.kind == idgen::IdKind::kSnowflake) {
        v.i64 = DatumGetInt64(d);
    } else {
        std::memcpy(is_wide(spec.kind) ? v.wide : v.bytes, DatumGetPointer(d),
                    static_cast<std::size_t>(value_size(spec.kind)));
    }
    return v;
}

}  // namespace

// <type>_in(cstring, oid, int4): the prefixed (or TypeID) text, or the kind's bare text.
IDGEN_FUNCTION(id_type_in) {
    const char* text = PG_GETARG_CSTRING(0);
    const TypeInfo& info = type_info(fcinfo, input_type(fcinfo));
    const std::size_t n = std::strlen(text);
    auto* bytes = info.spec.kind == idgen::IdKind::kSnowflake
                      ? nullptr
                      : static_cast<std::uint8_t*>(palloc(value_size(info.spec.kind)));
    idgen::WrongPrefix wrong{};
    auto v = idgen::id_type_parse(info.spec, text, n, &wrong);
    if (!v) {
        if (v.error() == idgen::Error::kWrongPrefix) {
            char message[320];
            snprintf(message, sizeof message, "type %s expects prefix \"%.*s\", found \"%.*s\" in \"%.*s\"", info.name,
                     static_cast<int>(info.spec.prefix_len), info.spec.prefix, static_cast<int>(wrong.len),
                     wrong.prefix, static_cast<int>(n > 100 ? 100 : n), text);
            return failure.fail(v.error(), info.name, message);
        }
        return failure.fail(v.error(), info.name, text, n);
    }
    if (bytes == nullptr) return Int64GetDatum(v->i64);
    std::memcpy(bytes, is_wide(info.spec.kind) ? v->wide : v->bytes,
                static_cast<std::size_t>(value_size(info.spec.kind)));
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
    ereport(ERROR,
            (errcode(ERRCODE_SYNTAX_ERROR), errmsg("an ID type made by create_id_type() takes no type modifier")));
    PG_RETURN_INT32(-1);
}

// id_type_describe(regtype, OUT kind, OUT format, OUT prefix): what a per-entity type is, as its
// I/O functions read it; NULL when the type is not one, and the I/O functions' error when they
// refuse its spec (drop_id_type() frees the prefix it reads here: never one another role wrote).
IDGEN_FUNCTION(id_type_describe) {
    const Oid type = PG_GETARG_OID(0);
    TupleDesc tupdesc;
    if (get_call_result_type(fcinfo, nullptr, &tupdesc) != TYPEFUNC_COMPOSITE)
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("id_type_describe must return a record")));
    tupdesc = BlessTupleDesc(tupdesc);
    TypeInfo info{};
    SpecCheck why;
    if (!load_spec(type, &info, &why)) {
        if (why.problem == SpecProblem::kNotIdType) PG_RETURN_NULL();
        refuse(type, why);  // never a spec the type's I/O functions would refuse
    }
    Datum values[3] = {CStringGetTextDatum(kind_name(info.spec.kind)),
                       CStringGetTextDatum(info.spec.format == idgen::IdTextFormat::kTypeid ? "typeid" : "prefixed"),
                       PointerGetDatum(cstring_to_text_with_len(info.spec.prefix, info.spec.prefix_len))};
    bool nulls[3] = {false, false, false};
    return HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls));
}
