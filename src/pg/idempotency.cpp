// id_gen: SQL entry points of the idempotency-key store (idempotency_begin, _finish,
// _recovery_point, _purge) and the fingerprint helper.
//
// Who owns a key. Every key is stored under the role calling (GetUserId(), current_user), read
// here and never taken from an argument. The table belongs to the extension's owner and no other
// role has a privilege on it: these functions reach it through the extension's internal SQL
// functions idempotency_key_*(), SECURITY DEFINER with BEGIN ATOMIC bodies, found by OID (see
// extension.h) and called through fmgr, which does not check EXECUTE (revoked from PUBLIC, so no
// role can call them with another role's name).
//
// Concurrency. Every idempotency_begin() of one (role, scope, key) first takes a transaction-level
// lock on it: a lock-manager advisory lock whose tag holds a 64-bit hash of the three (and a class
// number SQL's advisory-lock functions never use), so requests with the same key queue there and
// requests with other keys do not meet. When a request's work shares its transaction with the key
// (begin, work, finish, commit), that lock is held to the commit and a duplicate waits for it (or,
// with wait => false, fails at once); it then sees the committed response, or, after a rollback,
// no key at all. When a request commits the key first and works across transactions (recovery
// points), the key's row carries the lock instead: `locked_until`, renewed by every recovery
// point. A duplicate then polls the row (sleeping on its latch, so it can be cancelled) until the
// request finishes or its lock runs out, and takes over the key when it has run out.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "boundary.h"
#include "core/idempotency.h"
#include "extension.h"

extern "C" {
#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "storage/latch.h"
#include "storage/lock.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"
#include "utils/wait_event.h"
}

namespace {

// pg_locks shows the key lock as locktype 'advisory' with this objsubid (SQL's advisory-lock
// functions use 1 and 2), objid and classid holding the hash.
constexpr uint16 kKeyLockClass = 18756;
constexpr int kMessageValue = 300;  // bytes of a label shown in a message (longer ones end in "...")

// A label argument as the message shows it: escaped, clipped.
struct Shown {
    char text[kMessageValue];
};

bool utf8_database() { return GetDatabaseEncoding() == PG_UTF8; }

Shown shown(const text* t) {
    Shown s;
    idgen::idem_escape_for_message(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t), utf8_database(), s.text, sizeof s.text);
    return s;
}

// A label argument (scope, key, attempt ID, recovery point): 1 to 255 characters without control
// characters. NULL: nullptr when `nullable`, 22004 otherwise.
text* label_arg(FunctionCallInfo fcinfo, int n, const char* what, bool nullable) {
    if (PG_ARGISNULL(n)) {
        if (nullable) return nullptr;
        ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("%s must not be null", what)));
    }
    text* t = PG_GETARG_TEXT_PP(n);
    const char* data = VARDATA_ANY(t);
    const int len = VARSIZE_ANY_EXHDR(t);
    const int chars = pg_mbstrlen_with_len(data, len);
    if (chars < 1 || chars > static_cast<int>(idgen::kIdemLabelMaxChars))
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("%s must be 1 to %d characters long, not %d", what,
                               static_cast<int>(idgen::kIdemLabelMaxChars), chars)));
    if (idgen::idem_control_offset(data, static_cast<std::size_t>(len), utf8_database()) != idgen::kNoControl)
        ereport(ERROR, (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
                        errmsg("invalid input syntax for %s: \"%s\"", what, shown(t).text),
                        errdetail("It contains a control character.")));
    return t;
}

// An interval argument that must be positive and finite (22023), or NULL (22004 unless
// `fallback` is given).
Interval* interval_arg(FunctionCallInfo fcinfo, int n, const char* what, Interval* fallback, bool allow_zero) {
    if (PG_ARGISNULL(n)) {
        if (fallback != nullptr) return fallback;
        ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("%s must not be null", what)));
    }
    Interval* v = PG_GETARG_INTERVAL_P(n);
    Interval zero{};
    const int32 cmp = DatumGetInt32(DirectFunctionCall2(interval_cmp, IntervalPGetDatum(v), IntervalPGetDatum(&zero)));
    if (IDGEN_INTERVAL_IS_INFINITE(v) || cmp < 0 || (cmp == 0 && !allow_zero))
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("%s must be a %s finite interval, not %s", what, allow_zero ? "non-negative" : "positive",
                               DatumGetCString(DirectFunctionCall1(interval_out, IntervalPGetDatum(v))))));
    return v;
}

// The extension's internal functions, found by OID once per call site (fn_extra).
struct Store {
    Oid relid;  // idempotency_keys
    FmgrInfo insert, read, replay, take_over, reuse, finish, recovery, purge_expired, purge_idle;
};

void lookup(FmgrInfo* f, const char* name, int nargs, const Oid* args, const char* user, MemoryContext cxt) {
    fmgr_info_cxt(idgen::pg::extension_function(name, nargs, args, user), f, cxt);
}

Store& store(FunctionCallInfo fcinfo, const char* user) {
    if (fcinfo->flinfo->fn_extra != nullptr) return *static_cast<Store*>(fcinfo->flinfo->fn_extra);
    MemoryContext cxt = fcinfo->flinfo->fn_mcxt;
    auto* s = static_cast<Store*>(MemoryContextAllocZero(cxt, sizeof(Store)));
    const Oid row[8] = {NAMEOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID, INTERVALOID, INTERVALOID, TIMESTAMPTZOID};
    lookup(&s->insert, "idempotency_key_insert", 8, row, user, cxt);
    lookup(&s->take_over, "idempotency_key_take_over", 8, row, user, cxt);
    lookup(&s->reuse, "idempotency_key_reuse", 8, row, user, cxt);
    lookup(&s->read, "idempotency_key_read", 3, row, user, cxt);
    const Oid replay[5] = {NAMEOID, TEXTOID, TEXTOID, TEXTOID, TIMESTAMPTZOID};
    lookup(&s->replay, "idempotency_key_replay", 5, replay, user, cxt);
    const Oid finish[6] = {NAMEOID, TEXTOID, TEXTOID, JSONBOID, TEXTOID, TIMESTAMPTZOID};
    lookup(&s->finish, "idempotency_key_finish", 6, finish, user, cxt);
    const Oid recovery[6] = {NAMEOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID, TIMESTAMPTZOID};
    lookup(&s->recovery, "idempotency_key_recovery_point", 6, recovery, user, cxt);
    const Oid expired[2] = {TIMESTAMPTZOID, INT4OID};
    lookup(&s->purge_expired, "idempotency_key_purge_expired", 2, expired, user, cxt);
    const Oid idle[4] = {NAMEOID, TIMESTAMPTZOID, TIMESTAMPTZOID, INT4OID};
    lookup(&s->purge_idle, "idempotency_key_purge_idle", 4, idle, user, cxt);
    s->relid = get_relname_relid("idempotency_keys", idgen::pg::extension_schema());
    if (!OidIsValid(s->relid))
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("the id_gen table idempotency_keys is missing"),
                        errhint("Update the extension (ALTER EXTENSION id_gen UPDATE) or reinstall it.")));
    fcinfo->flinfo->fn_extra = s;
    return *s;
}

// Calls an internal function (C collation: the table's text columns are COLLATE "C"). A NULL
// argument is a null pointer Datum marked in `nulls`.
Datum call(FmgrInfo* f, int nargs, const Datum* args, const bool* nulls, bool* isnull) {
    LOCAL_FCINFO(fc, 8);
    InitFunctionCallInfoData(*fc, f, nargs, C_COLLATION_OID, nullptr, nullptr);
    for (int i = 0; i < nargs; ++i) {
        fc->args[i].value = args[i];
        fc->args[i].isnull = nulls[i];
    }
    const Datum r = FunctionCallInvoke(fc);
    *isnull = fc->isnull;
    return r;
}

bool call_bool(FmgrInfo* f, int nargs, const Datum* args, const bool* nulls) {
    bool isnull = false;
    const Datum r = call(f, nargs, args, nulls, &isnull);
    return !isnull && DatumGetBool(r);
}

int64 call_int8(FmgrInfo* f, int nargs, const Datum* args, const bool* nulls) {
    bool isnull = false;
    const Datum r = call(f, nargs, args, nulls, &isnull);
    return isnull ? 0 : DatumGetInt64(r);
}

// Field `n` (1-based) of a record a helper returned.
Datum field(HeapTupleHeader row, int n, bool* isnull) { return GetAttributeByNum(row, static_cast<AttrNumber>(n), isnull); }

Datum opt(const void* p) { return PointerGetDatum(p); }

// The caller: its role name as a `name`.
Name caller_name() {
    Name n = static_cast<Name>(palloc0(NAMEDATALEN));
    namestrcpy(n, GetUserNameFromId(GetUserId(), false));
    return n;
}

// The transaction-level key lock. False when `wait` is false and another transaction holds it.
bool lock_key(const text* scope, const text* key, bool wait) {
    const Oid role = GetUserId();
    const uint32 slen = VARSIZE_ANY_EXHDR(scope), klen = VARSIZE_ANY_EXHDR(key);
    const std::size_t len = sizeof role + sizeof slen + slen + klen;
    auto* buf = static_cast<unsigned char*>(palloc(len));
    std::memcpy(buf, &role, sizeof role);
    std::memcpy(buf + sizeof role, &slen, sizeof slen);
    std::memcpy(buf + sizeof role + sizeof slen, VARDATA_ANY(scope), slen);
    std::memcpy(buf + sizeof role + sizeof slen + slen, VARDATA_ANY(key), klen);
    const uint64 h = hash_bytes_extended(buf, static_cast<int>(len), 0);
    pfree(buf);
    LOCKTAG tag;
    SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, static_cast<uint32>(h >> 32), static_cast<uint32>(h), kKeyLockClass);
    return LockAcquire(&tag, ExclusiveLock, false, !wait) != LOCKACQUIRE_NOT_AVAIL;
}

void in_flight_error(const text* scope, const text* key, const char* detail, const char* hint) {
    ereport(ERROR, (errcode(ERRCODE_LOCK_NOT_AVAILABLE),
                    errmsg("idempotency key \"%s\" is in use by a request in flight", shown(key).text),
                    errdetail("Scope \"%s\": %s", shown(scope).text, detail), errhint("%s", hint)));
}

// One result row of idempotency_begin().
void emit(FunctionCallInfo fcinfo, const char* state, Datum response, bool response_null, int32 attempts,
          Datum original, bool original_null, Datum point, bool point_null) {
    auto* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
    Datum values[6] = {CStringGetTextDatum(state), response, BoolGetDatum(std::strcmp(state, "replay") == 0),
                       Int32GetDatum(attempts), original, point};
    bool nulls[6] = {false, response_null, false, false, original_null, point_null};
    tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

bool fingerprints_equal(const text* a, const text* b) {
    if (a == nullptr || b == nullptr) return a == b;
    return VARSIZE_ANY_EXHDR(a) == VARSIZE_ANY_EXHDR(b) &&
           std::memcmp(VARDATA_ANY(a), VARDATA_ANY(b), VARSIZE_ANY_EXHDR(a)) == 0;
}

// ---- canonical JSON ----------------------------------------------------------------------------

void canon_value(StringInfo out, const JsonbValue* v);

void canon_string(StringInfo out, const char* s, int len) {
    char* z = pnstrdup(s, len);
    escape_json(out, z);
    pfree(z);
}

struct Member {
    const char* key;
    int keylen;
    JsonbValue value;
};

// Byte order of the keys (in a UTF-8 database, Unicode code point order); a prefix sorts first.
int member_cmp(const void* a, const void* b) {
    const auto* x = static_cast<const Member*>(a);
    const auto* y = static_cast<const Member*>(b);
    const int c = std::memcmp(x->key, y->key, static_cast<std::size_t>(Min(x->keylen, y->keylen)));
    if (c != 0) return c;
    return x->keylen < y->keylen ? -1 : x->keylen > y->keylen ? 1 : 0;
}

void canon_container(StringInfo out, JsonbContainer* c) {
    check_stack_depth();
    JsonbIterator* it = JsonbIteratorInit(c);
    JsonbValue v;
    JsonbIteratorToken tok = JsonbIteratorNext(&it, &v, true);
    if (tok == WJB_BEGIN_ARRAY) {
        const bool raw_scalar = v.val.array.rawScalar;
        if (!raw_scalar) appendStringInfoChar(out, '[');
        bool first = true;
        while ((tok = JsonbIteratorNext(&it, &v, true)) == WJB_ELEM) {
            if (!first) appendStringInfoChar(out, ',');
            first = false;
            canon_value(out, &v);
        }
        if (!raw_scalar) appendStringInfoChar(out, ']');
        return;
    }
    if (tok != WJB_BEGIN_OBJECT) elog(ERROR, "unexpected jsonb token %d", static_cast<int>(tok));
    const int n = static_cast<int>(JsonContainerSize(c));
    auto* members = static_cast<Member*>(palloc(sizeof(Member) * (n > 0 ? n : 1)));
    int k = 0;
    while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_END_OBJECT && tok != WJB_DONE) {
        if (tok == WJB_KEY) {
            if (k >= n) elog(ERROR, "jsonb object has more members than it says");
            members[k].key = v.val.string.val;
            members[k].keylen = v.val.string.len;
        } else if (tok == WJB_VALUE) {
            members[k++].value = v;
        }
    }
    qsort(members, static_cast<std::size_t>(k), sizeof(Member), member_cmp);
    appendStringInfoChar(out, '{');
    for (int i = 0; i < k; ++i) {
        if (i > 0) appendStringInfoChar(out, ',');
        canon_string(out, members[i].key, members[i].keylen);
        appendStringInfoChar(out, ':');
        canon_value(out, &members[i].value);
    }
    appendStringInfoChar(out, '}');
    pfree(members);
}

void canon_value(StringInfo out, const JsonbValue* v) {
    switch (v->type) {
        case jbvNull:
            appendStringInfoString(out, "null");
            return;
        case jbvBool:
            appendStringInfoString(out, v->val.boolean ? "true" : "false");
            return;
        case jbvNumeric:
            // Exact decimal, no exponent, no trailing zeros: 1.50, 1.5e0 and 15e-1 are all 1.5.
            appendStringInfoString(out, numeric_normalize(v->val.numeric));
            return;
        case jbvString:
            canon_string(out, v->val.string.val, v->val.string.len);
            return;
        case jbvBinary:
            canon_container(out, v->val.binary.data);
            return;
        default:
            elog(ERROR, "unexpected jsonb value type %d", static_cast<int>(v->type));
    }
}

// The value a JSON Pointer (already checked) selects in `jb`; false when it selects nothing.
bool resolve(Jsonb* jb, const char* p, std::size_t n, JsonbValue* result) {
    JsonbValue cur;
    if (JB_ROOT_IS_SCALAR(jb)) {
        if (!JsonbExtractScalar(&jb->root, &cur)) return false;
    } else {
        cur.type = jbvBinary;
        cur.val.binary.data = &jb->root;
        cur.val.binary.len = static_cast<int>(VARSIZE(jb) - VARHDRSZ);
    }
    char* tok = static_cast<char*>(palloc(n + 1));
    std::size_t pos = 0;
    while (pos < n) {
        const std::size_t len = idgen::json_pointer_token(p, n, &pos, tok);
        if (cur.type != jbvBinary) return false;
        JsonbContainer* c = cur.val.binary.data;
        JsonbValue* next = nullptr;
        if (JsonContainerIsObject(c)) {
            JsonbValue k;
            k.type = jbvString;
            k.val.string.val = tok;
            k.val.string.len = static_cast<int>(len);
            next = findJsonbValueFromContainer(c, JB_FOBJECT, &k);
        } else if (JsonContainerIsArray(c)) {
            auto index = idgen::json_pointer_index(tok, len);
            if (!index) return false;
            next = getIthJsonbValueFromContainer(c, *index);
        }
        if (next == nullptr) return false;
        cur = *next;
    }
    *result = cur;
    return true;
}

struct JsonPointer {
    const char* p;
    int len;
};

int pointer_cmp(const void* a, const void* b) {
    const auto* x = static_cast<const JsonPointer*>(a);
    const auto* y = static_cast<const JsonPointer*>(b);
    const int c = std::memcmp(x->p, y->p, static_cast<std::size_t>(Min(x->len, y->len)));
    if (c != 0) return c;
    return x->len < y->len ? -1 : x->len > y->len ? 1 : 0;
}

}  // namespace

// idempotency_fingerprint(payload jsonb, paths text[] DEFAULT NULL) -> text: the SHA-256, in
// lower-case hex, of the payload's canonical JSON (no whitespace, object members sorted by key,
// numbers as exact decimals), or, with paths, of the canonical JSON of the object mapping each
// JSON Pointer that selects something to what it selects.
IDGEN_FUNCTION(idempotency_fingerprint) {
    if (PG_ARGISNULL(0)) PG_RETURN_NULL();
    Jsonb* jb = PG_GETARG_JSONB_P(0);
    StringInfoData out;
    initStringInfo(&out);
    if (PG_ARGISNULL(1)) {
        canon_container(&out, &jb->root);
    } else {
        ArrayType* arr = PG_GETARG_ARRAYTYPE_P(1);
        Datum* elems = nullptr;
        bool* elem_nulls = nullptr;
        int n = 0;
        deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, &elems, &elem_nulls, &n);
        auto* ptrs = static_cast<JsonPointer*>(palloc(sizeof(JsonPointer) * (n > 0 ? n : 1)));
        for (int i = 0; i < n; ++i) {
            if (elem_nulls[i])
                ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                                errmsg("a path of idempotency_fingerprint() must not be null")));
            const text* t = DatumGetTextPP(elems[i]);
            ptrs[i] = {VARDATA_ANY(t), static_cast<int>(VARSIZE_ANY_EXHDR(t))};
            if (!idgen::json_pointer_check(ptrs[i].p, static_cast<std::size_t>(ptrs[i].len)))
                ereport(ERROR, (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
                                errmsg("invalid input syntax for a JSON pointer: \"%s\"", shown(t).text),
                                errdetail("A JSON pointer (RFC 6901) is empty or starts with \"/\", and every \"~\" "
                                          "in it is followed by \"0\" or \"1\".")));
        }
        qsort(ptrs, static_cast<std::size_t>(n), sizeof(JsonPointer), pointer_cmp);
        appendStringInfoChar(&out, '{');
        bool first = true;
        for (int i = 0; i < n; ++i) {
            if (i > 0 && pointer_cmp(&ptrs[i - 1], &ptrs[i]) == 0) continue;
            JsonbValue v;
            if (!resolve(jb, ptrs[i].p, static_cast<std::size_t>(ptrs[i].len), &v)) continue;
            if (!first) appendStringInfoChar(&out, ',');
            first = false;
            canon_string(&out, ptrs[i].p, ptrs[i].len);
            appendStringInfoChar(&out, ':');
            canon_value(&out, &v);
        }
        appendStringInfoChar(&out, '}');
    }
    // The bytes hashed are UTF-8 whatever the database encoding.
    const char* utf8 = pg_server_to_any(out.data, out.len, PG_UTF8);
    const std::size_t len = utf8 == out.data ? static_cast<std::size_t>(out.len) : std::strlen(utf8);
    auto* in = static_cast<bytea*>(palloc(VARHDRSZ + len));
    SET_VARSIZE(in, VARHDRSZ + len);
    std::memcpy(VARDATA(in), utf8, len);
    bytea* digest = DatumGetByteaPP(DirectFunctionCall1(sha256_bytea, PointerGetDatum(in)));
    static constexpr char kHex[] = "0123456789abcdef";
    const auto* d = reinterpret_cast<const unsigned char*>(VARDATA_ANY(digest));
    const int dlen = static_cast<int>(VARSIZE_ANY_EXHDR(digest));
    text* result = static_cast<text*>(palloc(VARHDRSZ + 2 * dlen));
    SET_VARSIZE(result, VARHDRSZ + 2 * dlen);
    char* o = VARDATA(result);
    for (int i = 0; i < dlen; ++i) {
        o[2 * i] = kHex[d[i] >> 4];
        o[2 * i + 1] = kHex[d[i] & 15];
    }
    PG_RETURN_TEXT_P(result);
}

// idempotency_begin(scope, key, fingerprint, wait, attempt_id, lock_timeout, retention)
//   -> TABLE(state, response, replayed, attempts, original_attempt_id, recovery_point)
IDGEN_FUNCTION(idempotency_begin) {
    text* scope = label_arg(fcinfo, 0, "scope", false);
    text* key = label_arg(fcinfo, 1, "idempotency key", false);
    text* fingerprint = nullptr;
    if (!PG_ARGISNULL(2)) {
        fingerprint = PG_GETARG_TEXT_PP(2);
        const int chars = pg_mbstrlen_with_len(VARDATA_ANY(fingerprint), VARSIZE_ANY_EXHDR(fingerprint));
        if (chars < 1 || chars > static_cast<int>(idgen::kIdemFingerprintMaxChars))
            ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                            errmsg("fingerprint must be 1 to %d characters long, not %d",
                                   static_cast<int>(idgen::kIdemFingerprintMaxChars), chars)));
    }
    if (PG_ARGISNULL(3)) ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("wait must not be null")));
    const bool wait = PG_GETARG_BOOL(3);
    text* attempt_id = label_arg(fcinfo, 4, "attempt ID", true);
    Interval* lock_timeout = interval_arg(fcinfo, 5, "lock_timeout", nullptr, false);
    auto* day = static_cast<Interval*>(palloc0(sizeof(Interval)));
    day->time = INT64CONST(24) * USECS_PER_HOUR;
    Interval* retention = interval_arg(fcinfo, 6, "retention", day, false);

    Store& st = store(fcinfo, "idempotency_begin()");
    InitMaterializedSRF(fcinfo, 0);
    Name role = caller_name();
    if (!lock_key(scope, key, wait))
        in_flight_error(scope, key, "another transaction is running a request with it.",
                        "Retry later, or call idempotency_begin() with wait => true to wait for it.");

    long sleep_ms = 1;
    for (;;) {
        CHECK_FOR_INTERRUPTS();
        const TimestampTz at = GetCurrentTimestamp();
        const Datum grant[8] = {NameGetDatum(role),        PointerGetDatum(scope),    PointerGetDatum(key),
                                opt(fingerprint),          opt(attempt_id),           IntervalPGetDatum(lock_timeout),
                                IntervalPGetDatum(retention), TimestampTzGetDatum(at)};
        const bool grant_nulls[8] = {false, false, false, fingerprint == nullptr, attempt_id == nullptr,
                                     false, false, false};
        if (call_bool(&st.insert, 8, grant, grant_nulls)) {
            emit(fcinfo, "new", 0, true, 1, opt(attempt_id), attempt_id == nullptr, 0, true);
            return (Datum)0;
        }
        bool isnull = false;
        const Datum rd = call(&st.read, 3, grant, grant_nulls, &isnull);
        if (isnull) continue;  // deleted (purged) since the insert saw it
        const HeapTupleHeader row = DatumGetHeapTupleHeader(rd);
        bool n_state, n_fp, n_attempts, n_holder, n_locked, n_expires, n_xmin;
        const char* state = TextDatumGetCString(field(row, 1, &n_state));
        const Datum fp_d = field(row, 2, &n_fp);
        const text* stored_fp = n_fp ? nullptr : DatumGetTextPP(fp_d);
        (void)field(row, 3, &n_attempts);
        const Datum holder = field(row, 4, &n_holder);
        const Datum locked_d = field(row, 5, &n_locked);
        const TimestampTz locked_until = n_locked ? DT_NOBEGIN : DatumGetTimestampTz(locked_d);
        const TimestampTz expires_at = DatumGetTimestampTz(field(row, 6, &n_expires));
        const TransactionId xmin = DatumGetTransactionId(field(row, 7, &n_xmin));
        const bool done = std::strcmp(state, "done") == 0;

        // Past its retention and not held: forgotten, the request starts afresh.
        if (expires_at <= at && (done || locked_until <= at)) {
            if (call_bool(&st.reuse, 8, grant, grant_nulls)) {
                emit(fcinfo, "new", 0, true, 1, opt(attempt_id), attempt_id == nullptr, 0, true);
                return (Datum)0;
            }
            continue;
        }
        if (!fingerprints_equal(fingerprint, stored_fp))
            ereport(ERROR, (errcode(ERRCODE_INTEGRITY_CONSTRAINT_VIOLATION),
                            errmsg("idempotency key \"%s\" was used with another request", shown(key).text),
                            errdetail("Scope \"%s\": the request's fingerprint differs from the one recorded with the key.",
                                      shown(scope).text),
                            errhint("Send a new request with a new key.")));
        if (done) {
            const Datum args[5] = {grant[0], grant[1], grant[2], grant[3], grant[7]};
            const bool nulls[5] = {false, false, false, fingerprint == nullptr, false};
            const Datum r = call(&st.replay, 5, args, nulls, &isnull);
            if (isnull) continue;
            const HeapTupleHeader rep = DatumGetHeapTupleHeader(r);
            bool n_resp, n_att, n_orig, n_point;
            const Datum resp = field(rep, 1, &n_resp);
            const int32 attempts = DatumGetInt32(field(rep, 2, &n_att));
            const Datum orig = field(rep, 3, &n_orig);
            const Datum point = field(rep, 4, &n_point);
            emit(fcinfo, "replay", resp, n_resp, attempts, orig, n_orig, point, n_point);
            return (Datum)0;
        }
        // In flight.
        if (TransactionIdIsCurrentTransactionId(xmin))
            ereport(ERROR, (errcode(ERRCODE_LOCK_NOT_AVAILABLE),
                            errmsg("idempotency key \"%s\" is already in flight in this transaction", shown(key).text),
                            errdetail("Scope \"%s\": idempotency_begin() was called with it before in this transaction.",
                                      shown(scope).text)));
        if (locked_until <= at) {
            const Datum r = call(&st.take_over, 8, grant, grant_nulls, &isnull);
            if (isnull) continue;
            const HeapTupleHeader tk = DatumGetHeapTupleHeader(r);
            bool n_att, n_orig, n_point;
            const int32 attempts = DatumGetInt32(field(tk, 1, &n_att));
            const Datum orig = field(tk, 2, &n_orig);
            const Datum point = field(tk, 3, &n_point);
            emit(fcinfo, n_point ? "new" : "resume", 0, true, attempts, orig, n_orig, point, n_point);
            return (Datum)0;
        }
        if (!wait)
            in_flight_error(scope, key,
                            !n_holder ? psprintf("attempt \"%s\" holds it until %s.", shown(DatumGetTextPP(holder)).text,
                                                   timestamptz_to_str(locked_until))
                                        : psprintf("a request holds it until %s.", timestamptz_to_str(locked_until)),
                            "Retry later, or call idempotency_begin() with wait => true to wait for it.");
        if (IsolationUsesXactSnapshot())
            in_flight_error(scope, key,
                            psprintf("a request holds it until %s, and this transaction's snapshot cannot see it finish.",
                                     timestamptz_to_str(locked_until)),
                            "Call idempotency_begin() in a READ COMMITTED transaction to wait, or retry later.");
        // Wait for the request to finish or its lock to run out, polling the row.
        const long left_ms = static_cast<long>((locked_until - at) / 1000) + 1;
        (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, Min(sleep_ms, left_ms),
                        PG_WAIT_EXTENSION);
        ResetLatch(MyLatch);
        sleep_ms = Min(sleep_ms * 2, 100L);
    }
}

namespace {

// Why a key could not be finished or given a recovery point (55000).
void not_in_flight_error(Store& st, Datum* args, bool* nulls, const text* scope, const text* key,
                         const text* attempt_id, const char* action) {
    bool isnull = false;
    const Datum rd = call(&st.read, 3, args, nulls, &isnull);
    const Shown k = shown(key), s = shown(scope);
    if (isnull)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("cannot %s idempotency key \"%s\": it is not in flight", action, k.text),
                        errdetail("Scope \"%s\" has no such key for role \"%s\" (never begun, or purged).", s.text,
                                  GetUserNameFromId(GetUserId(), false)),
                        errhint("Call idempotency_begin() first.")));
    const HeapTupleHeader row = DatumGetHeapTupleHeader(rd);
    bool n_state, n_holder;
    const char* state = TextDatumGetCString(field(row, 1, &n_state));
    const Datum holder = field(row, 4, &n_holder);
    if (std::strcmp(state, "done") == 0)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("cannot %s idempotency key \"%s\": its request has finished", action, k.text),
                        errdetail("Scope \"%s\": the key's response is stored; retries replay it.", s.text)));
    // In flight, held by another attempt (or begun again since this call looked).
    ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                    errmsg("cannot %s idempotency key \"%s\": another attempt holds it", action, k.text),
                    errdetail("Scope \"%s\": the key is held by attempt \"%s\", not by attempt \"%s\" (its lock "
                              "ran out and a retry took the key over).",
                              s.text, n_holder ? "(none)" : shown(DatumGetTextPP(holder)).text,
                              attempt_id == nullptr ? "(none)" : shown(attempt_id).text)));
}

}  // namespace

// idempotency_finish(scope, key, response jsonb, attempt_id text DEFAULT NULL) -> void
IDGEN_FUNCTION(idempotency_finish) {
    text* scope = label_arg(fcinfo, 0, "scope", false);
    text* key = label_arg(fcinfo, 1, "idempotency key", false);
    Jsonb* response = PG_ARGISNULL(2) ? nullptr : PG_GETARG_JSONB_P(2);
    text* attempt_id = label_arg(fcinfo, 3, "attempt ID", true);
    Store& st = store(fcinfo, "idempotency_finish()");
    Datum args[6] = {NameGetDatum(caller_name()), PointerGetDatum(scope), PointerGetDatum(key),
                     opt(response), opt(attempt_id), TimestampTzGetDatum(GetCurrentTimestamp())};
    bool nulls[6] = {false, false, false, response == nullptr, attempt_id == nullptr, false};
    if (!call_bool(&st.finish, 6, args, nulls)) not_in_flight_error(st, args, nulls, scope, key, attempt_id, "finish");
    PG_RETURN_VOID();
}

// idempotency_recovery_point(scope, key, point text, attempt_id text DEFAULT NULL) -> void
IDGEN_FUNCTION(idempotency_recovery_point) {
    text* scope = label_arg(fcinfo, 0, "scope", false);
    text* key = label_arg(fcinfo, 1, "idempotency key", false);
    text* point = label_arg(fcinfo, 2, "recovery point", false);
    text* attempt_id = label_arg(fcinfo, 3, "attempt ID", true);
    Store& st = store(fcinfo, "idempotency_recovery_point()");
    Datum args[6] = {NameGetDatum(caller_name()), PointerGetDatum(scope), PointerGetDatum(key),
                     PointerGetDatum(point), opt(attempt_id), TimestampTzGetDatum(GetCurrentTimestamp())};
    bool nulls[6] = {false, false, false, false, attempt_id == nullptr, false};
    if (!call_bool(&st.recovery, 6, args, nulls))
        not_in_flight_error(st, args, nulls, scope, key, attempt_id, "record a recovery point of");
    PG_RETURN_VOID();
}

// idempotency_purge(older_than interval DEFAULT NULL, batch_size int DEFAULT 1000) -> bigint
IDGEN_FUNCTION(idempotency_purge) {
    Interval* older_than = PG_ARGISNULL(0) ? nullptr : interval_arg(fcinfo, 0, "older_than", nullptr, true);
    if (PG_ARGISNULL(1)) ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("batch_size must not be null")));
    const int32 batch = PG_GETARG_INT32(1);
    if (batch < 1)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("batch_size must be at least 1, not %d", batch)));
    Store& st = store(fcinfo, "idempotency_purge()");
    const TimestampTz at = GetCurrentTimestamp();
    const Datum expired[2] = {TimestampTzGetDatum(at), Int32GetDatum(batch)};
    const bool expired_nulls[2] = {false, false};
    int64 n = call_int8(&st.purge_expired, 2, expired, expired_nulls);
    if (older_than != nullptr && n < batch) {
        // Keys the caller could delete itself: its own, or every role's with DELETE on the table.
        const bool every_role = pg_class_aclcheck(st.relid, GetUserId(), ACL_DELETE) == ACLCHECK_OK;
        const Datum cutoff = DirectFunctionCall2(timestamptz_mi_interval, TimestampTzGetDatum(at),
                                                 IntervalPGetDatum(older_than));
        const Datum idle[4] = {every_role ? (Datum)0 : NameGetDatum(caller_name()), cutoff, TimestampTzGetDatum(at),
                               Int32GetDatum(static_cast<int32>(batch - n))};
        const bool idle_nulls[4] = {every_role, false, false, false};
        n += call_int8(&st.purge_idle, 4, idle, idle_nulls);
    }
    PG_RETURN_INT64(n);
}
