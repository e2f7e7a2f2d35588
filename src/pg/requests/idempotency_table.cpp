// id_gen: the idempotency-key store's arguments and its table: found through the extension,
// checked, and cached per backend. See idempotency_internal.h.
#include "pg/requests/idempotency_internal.h"

namespace idgen::pg::idem {

// ---- arguments -------------------------------------------------------------------------------

namespace {

bool utf8_database() { return GetDatabaseEncoding() == PG_UTF8; }

}  // namespace

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
        ereport(ERROR,
                (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("%s must be 1 to %d characters long, not %d", what,
                                                                  static_cast<int>(idgen::kIdemLabelMaxChars), chars)));
    if (idgen::idem_control_offset(data, static_cast<std::size_t>(len), utf8_database()) != idgen::kNoControl)
        ereport(ERROR, (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
                        errmsg("invalid input syntax for %s: \"%s\"", what, shown(t).text),
                        errdetail("It contains a control character.")));
    return t;
}

// An interval argument that must be positive (or, with allow_zero, not negative) and finite
// (22023); NULL gives `fallback`, or 22004 when there is none.
Interval* interval_arg(FunctionCallInfo fcinfo, int n, const char* what, Interval* fallback, bool allow_zero) {
    if (PG_ARGISNULL(n)) {
        if (fallback != nullptr) return fallback;
        ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("%s must not be null", what)));
    }
    Interval* v = PG_GETARG_INTERVAL_P(n);
    Interval zero{};
    const int32 cmp = DatumGetInt32(DirectFunctionCall2(interval_cmp, IntervalPGetDatum(v), IntervalPGetDatum(&zero)));
    if (IDGEN_INTERVAL_IS_INFINITE(v) || cmp < 0 || (cmp == 0 && !allow_zero))
        ereport(ERROR,
                (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                 errmsg("%s must be a %s finite interval, not %s", what, allow_zero ? "non-negative" : "positive",
                        DatumGetCString(DirectFunctionCall1(interval_out, IntervalPGetDatum(v))))));
    return v;
}

// Writes refuse in a read-only transaction and on a standby (25006), as an INSERT would.
void check_writable(const char* what) {
    PreventCommandIfReadOnly(what);
    PreventCommandDuringRecovery(what);
}

// ---- the table -------------------------------------------------------------------------------

namespace {

constexpr const char* kColNames[kNumCols] = {"role_name",           "role_id",    "scope",          "key",
                                             "fingerprint",         "state",      "response",       "attempts",
                                             "original_attempt_id", "attempt_id", "recovery_point", "lock_timeout",
                                             "locked_until",        "retention",  "created_at",     "updated_at",
                                             "finished_at",         "expires_at"};
constexpr Oid kColTypes[kNumCols] = {NAMEOID,        REGROLEOID,     TEXTOID,        TEXTOID,     TEXTOID,
                                     TEXTOID,        JSONBOID,       INT4OID,        TEXTOID,     TEXTOID,
                                     TEXTOID,        INTERVALOID,    TIMESTAMPTZOID, INTERVALOID, TIMESTAMPTZOID,
                                     TIMESTAMPTZOID, TIMESTAMPTZOID, TIMESTAMPTZOID};

}  // namespace

namespace {

Store g_store;
bool g_store_callbacks = false;

}  // namespace

Granted g_granted;

namespace {

void invalidate_store(Datum, int, uint32) {
    g_store.valid = false;
    g_granted.valid = false;
}
void invalidate_store_rel(Datum, Oid relid) {
    if (relid == InvalidOid || relid == g_store.relid || relid == g_store.pkey || relid == g_store.expires_index) {
        g_store.valid = false;
        g_granted.valid = false;
    }
}

}  // namespace

[[noreturn]] void store_missing(const char* what) {
    ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                    errmsg("the id_gen idempotency store is missing or damaged: %s", what),
                    errhint("Update the extension (ALTER EXTENSION id_gen UPDATE) or reinstall it.")));
}

namespace {

// idempotency_keys, found through the extension: a member of it (nobody else can drop, rename or
// replace it) and a plain table; 55000 otherwise. Takes no lock: open_table() locks it and checks
// again.
Oid find_table() {
    const Oid nsp = idgen::pg::extension_schema();
    if (!OidIsValid(nsp))
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("the id_gen extension is not installed in this database")));
    const Oid relid = idgen::pg::extension_table("idempotency_keys", nsp);
    if (!OidIsValid(relid)) store_missing("idempotency_keys");
    return relid;
}

// Fills the cache from `rel` (idempotency_keys, locked, invalidations processed). A column that is
// missing is 55000; one whose type is not the store's is 0A000 naming it and how to change it back.
void rebuild_store(Relation rel) {
    g_store.valid = false;
    if (rel->rd_rel->relkind != RELKIND_RELATION) store_missing("idempotency_keys is not a plain table");
    const TupleDesc desc = RelationGetDescr(rel);
    for (int c = 0; c < kNumCols; ++c) {
        Form_pg_attribute found = nullptr;
        for (int i = 0; i < desc->natts && found == nullptr; ++i) {
            const Form_pg_attribute a = TupleDescAttr(desc, i);
            if (!a->attisdropped && std::strcmp(NameStr(a->attname), kColNames[c]) == 0) found = a;
        }
        if (found == nullptr) store_missing(psprintf("column \"%s\" of idempotency_keys", kColNames[c]));
        if (found->atttypid != kColTypes[c]) {
            const char* table =
                quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)), RelationGetRelationName(rel));
            const char* want = format_type_be(kColTypes[c]);
            ereport(ERROR,
                    (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                     errmsg("the id_gen idempotency store cannot use table %s: column \"%s\" has type %s, not %s",
                            table, kColNames[c], format_type_be(found->atttypid), want),
                     errdetail("The store reads and writes the table's rows itself, with the column types it "
                               "was created with."),
                     errhint("Change it back: ALTER TABLE %s ALTER COLUMN %s TYPE %s USING %s::%s.", table,
                             quote_identifier(kColNames[c]), want, quote_identifier(kColNames[c]), want)));
        }
        g_store.att[c] = found->attnum;
    }
    const Oid pkey = IDGEN_PRIMARY_KEY_INDEX(rel);
    if (!OidIsValid(pkey)) store_missing("the primary key of idempotency_keys");
    {
        Relation index = index_open(pkey, AccessShareLock);
        const Col pk_cols[3] = {kRole, kScope, kKey};
        bool ok = IndexRelationGetNumberOfKeyAttributes(index) == 3;
        for (int i = 0; ok && i < 3; ++i) {
            ok = index->rd_index->indkey.values[i] == g_store.att[pk_cols[i]];
            const Oid op = ok ? get_opfamily_member(index->rd_opfamily[i], index->rd_opcintype[i],
                                                    index->rd_opcintype[i], BTEqualStrategyNumber)
                              : InvalidOid;
            ok = ok && OidIsValid(op);
            if (ok) {
                g_store.pk_eq[i] = get_opcode(op);
                g_store.pk_coll[i] = index->rd_indcollation[i];
            }
        }
        index_close(index, AccessShareLock);
        if (!ok) store_missing("the primary key of idempotency_keys is not (role_name, scope, key)");
    }
    Oid expires_index = InvalidOid;
    List* indexes = RelationGetIndexList(rel);
    ListCell* lc;
    foreach (lc, indexes) {
        const char* name = get_rel_name(lfirst_oid(lc));
        if (name != nullptr && std::strcmp(name, "idempotency_keys_expires_at") == 0) expires_index = lfirst_oid(lc);
    }
    list_free(indexes);
    if (!OidIsValid(expires_index)) store_missing("idempotency_keys_expires_at");
    g_store.relid = RelationGetRelid(rel);
    g_store.pkey = pkey;
    g_store.expires_index = expires_index;
    g_store.db = MyDatabaseId;
    g_store.valid = true;
}

// The store writes through the executor's own single-row path (execReplication.c, as the
// logical-replication apply worker does): row triggers (a foreign key's included), CHECK and NOT
// NULL constraints, stored generated columns, the partition constraint, every index (expression,
// partial, exclusion), replica identity and publication row filters all apply, as to a plain
// INSERT, UPDATE or DELETE. What that path does not run would be bypassed silently, so every call
// refuses while the table has one, with 0A000 (55000 is what finish and recovery points return
// for a key that is not in flight, a condition of a request; this one is the table's, until a
// superuser undoes it):
//   - a statement-level trigger (INSERT, UPDATE or DELETE; enabled or not) or a row trigger with
//     a transition table: ExecSimpleRelation* fire row triggers only, with no transition capture;
//   - row-level security: it applies policies to queries, which the store does not run;
//   - a rule: rules rewrite queries;
//   - a column the store does not write with a default or an identity: the store would leave it
//     NULL where an INSERT would take its default (a column without one is NULL, as in an INSERT
//     that omits it; its NOT NULL raises 23502 as there).
// The checks read the relcache entry of the table the caller has just opened and locked: creating
// any of these invalidates it, and their DDL takes a lock that conflicts with the caller's.
void check_table(const Store& st, Relation rel) {
    const char* found = nullptr;
    const char* hint = nullptr;
    const TupleDesc desc = RelationGetDescr(rel);
    // The table's name, for a message: built only when one is raised (every call comes here).
    const auto table_name = [&]() {
        return quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)), RelationGetRelationName(rel));
    };
    for (int i = 0; rel->trigdesc != nullptr && i < rel->trigdesc->numtriggers && found == nullptr; ++i) {
        const Trigger& t = rel->trigdesc->triggers[i];
        const bool dml = (t.tgtype & (TRIGGER_TYPE_INSERT | TRIGGER_TYPE_UPDATE | TRIGGER_TYPE_DELETE)) != 0;
        if (!dml) continue;  // TRUNCATE: the store never truncates
        if (TRIGGER_FOR_ROW(t.tgtype) && t.tgoldtable == nullptr && t.tgnewtable == nullptr) continue;
        // The trigger's name is copied before table_name()'s catalog lookup, which can process
        // invalidations and rebuild the relcache entry that t belongs to.
        const char* tgname = pstrdup(t.tgname);
        found =
            psprintf("%s \"%s\"",
                     TRIGGER_FOR_ROW(t.tgtype) ? "trigger with a transition table" : "statement-level trigger", tgname);
        const char* table = table_name();
        hint = psprintf("Drop it: DROP TRIGGER %s ON %s.", quote_identifier(tgname), table);
    }
    if (found != nullptr) {
    } else if (rel->rd_rel->relrowsecurity) {
        found = "row-level security enabled";
        hint = psprintf("Disable it: ALTER TABLE %s DISABLE ROW LEVEL SECURITY.", table_name());
    } else if (rel->rd_rules != nullptr && rel->rd_rules->numLocks > 0) {
        found = "a rule";
        hint = psprintf("Drop it: DROP RULE ... ON %s (pg_rules lists it).", table_name());
    } else {
        for (int i = 0; i < desc->natts && found == nullptr; ++i) {
            const Form_pg_attribute a = TupleDescAttr(desc, i);
            if (a->attisdropped || a->attgenerated != '\0' || (!a->atthasdef && a->attidentity == '\0')) continue;
            int c = 0;
            while (c < kNumCols && st.att[c] != a->attnum) ++c;
            if (c == kNumCols) {
                // Copied before table_name(), as the trigger's name above.
                const char* column = pstrdup(NameStr(a->attname));
                found = psprintf("column \"%s\" with a default, which the store does not write", column);
                const char* table = table_name();
                hint = psprintf("Drop its default (ALTER TABLE %s ALTER COLUMN %s DROP DEFAULT) or the column.", table,
                                quote_identifier(column));
            }
        }
    }
    if (found == nullptr) return;
    const char* table = table_name();
    ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                    errmsg("the id_gen idempotency store cannot use table %s: it has %s", table, found),
                    errdetail("The store writes the table's rows through the executor's single-row path, as logical "
                              "replication applies changes: statement-level triggers, row-level security, rules "
                              "and column defaults would be bypassed."),
                    errhint("%s", hint)));
}

}  // namespace

// The table, locked and opened for writing, with the store cache made current (see Store) and the
// table checked; `st` is the cache, valid until the caller's transaction ends. The order is the
// point: lock, then invalidations, then the cache.
Relation open_table(const Store*& st) {
    if (!g_store_callbacks) {
        CacheRegisterRelcacheCallback(invalidate_store_rel, (Datum)0);
        CacheRegisterSyscacheCallback(NAMESPACEOID, invalidate_store, (Datum)0);
        g_store_callbacks = true;
    }
    for (int tries = 0;; ++tries) {
        const Oid relid = g_store.valid && g_store.db == MyDatabaseId ? g_store.relid : find_table();
        LockRelationOid(relid, RowExclusiveLock);
        // LockRelationOid processes invalidations when the lock is new; this transaction may
        // already have held it (an earlier call), so process them in any case.
        AcceptInvalidationMessages();
        Relation rel = try_table_open(relid, NoLock);
        if (rel != nullptr && !(g_store.valid && g_store.db == MyDatabaseId && g_store.relid == relid)) {
            if (find_table() == relid) rebuild_store(rel);
        }
        if (rel != nullptr && g_store.valid && g_store.db == MyDatabaseId && g_store.relid == relid) {
            check_table(g_store, rel);
            st = &g_store;
            return rel;
        }
        // Dropped or replaced between finding it and locking it: find it again.
        if (rel != nullptr) table_close(rel, NoLock);
        UnlockRelationOid(relid, RowExclusiveLock);
        g_store.valid = false;
        if (tries >= 2) store_missing("idempotency_keys keeps being replaced");
    }
}

void row_from_tuple(const Store& st, Relation rel, HeapTuple tup, Row* row) {
    HeapTuple copy = heap_copytuple(tup);
    const int natts = RelationGetDescr(rel)->natts;
    auto* values = static_cast<Datum*>(palloc(sizeof(Datum) * natts));
    auto* nulls = static_cast<bool*>(palloc(sizeof(bool) * natts));
    heap_deform_tuple(copy, RelationGetDescr(rel), values, nulls);
    for (int c = 0; c < kNumCols; ++c) {
        row->v[c] = values[st.att[c] - 1];
        row->null[c] = nulls[st.att[c] - 1];
    }
    row->tid = tup->t_self;
    row->xmin = HeapTupleHeaderGetXmin(tup->t_data);
}

}  // namespace idgen::pg::idem
