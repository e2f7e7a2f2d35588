// id_gen: SQL entry points of the idempotency-key store: idempotency_begin, idempotency_finish,
// idempotency_recovery_point, idempotency_purge (the fingerprint helper is in
// idempotency_fingerprint.cpp).
//
// Who owns a key. Every key is stored under the role calling (GetUserId(), current_user), read
// here and never taken from an argument: under its name (the primary key's first column) and its
// OID (a regrole, which a dump writes as the name), and a row is the caller's only when both are,
// so a new role given an old role's name does not inherit its keys. The table belongs to the
// extension's owner and no other role has a privilege on it: these functions read and write it
// themselves, after finding it from pg_extension by OID (see extension.h), through the path
// PostgreSQL's logical-replication apply worker uses (execReplication.c): an index scan of the
// primary key, the row locked with table_tuple_lock(), and ExecSimpleRelationInsert / Update /
// Delete on an EState, which bring constraints, the partition check, every index, replica
// identity and publication row filters, and row triggers. No SQL text is run, so nothing is
// resolved by name when a request runs, and nothing is planned. What that path does not run
// (statement triggers, row-level security, rules, column defaults) is refused (check_table()).
//
// Concurrency. Every idempotency_begin() of one (role, scope, key) first takes a transaction-level
// lock on it: a lock-manager advisory lock whose tag holds a 64-bit hash of the three (and a class
// number SQL's advisory-lock functions never use), so requests with the same key queue there and
// requests with other keys do not meet. Under that lock it reads the key's row (READ COMMITTED:
// the latest committed state; REPEATABLE READ and SERIALIZABLE: what the transaction's snapshot
// sees, and 40001 when a later version exists, see read_row()) and decides. When a request's work shares
// its transaction with the key (begin, work, finish, commit), the lock is held to the commit and a
// duplicate waits for it (or, with wait => false, fails at once); it then sees the committed
// response, or, after a rollback, no key at all. When a request commits the key first and works
// across transactions (recovery points), the key's row carries the lock instead: `locked_until`,
// renewed by every recovery point. A duplicate then polls the row (sleeping on its latch, so it
// can be cancelled) until the request finishes or its lock runs out, and takes over the key when
// it has run out. idempotency_finish(), idempotency_recovery_point() and idempotency_purge() do not
// take the key lock: they lock the row they read before they write it (FOR UPDATE; without
// waiting for wait => false and for purges), and a row changed or deleted by another transaction
// in between sends them back to read it again (40001 under REPEATABLE READ and SERIALIZABLE).
#include <cstdint>
#include <cstring>

#include "pg/base/boundary.h"
#include "core/requests/idempotency.h"
#include "pg/base/extension.h"

extern "C" {
#include "access/amapi.h"
#include "access/genam.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/skey.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "access/sysattr.h"
#include "catalog/pg_trigger.h"
#include "commands/trigger.h"
#include "storage/bufmgr.h"
#include "executor/executor.h"
#include "parser/parse_relation.h"
#include "storage/predicate.h"
#include "storage/proc.h"
#include "utils/datum.h"
#include "catalog/index.h"
#include "catalog/pg_class.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_constraint.h"
#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "common/pg_prng.h"
#include "executor/tuptable.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "nodes/execnodes.h"
#include "storage/latch.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/inval.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"
#include "utils/wait_event.h"
}

namespace {

// pg_locks shows the key lock as locktype 'advisory' with this objsubid (SQL's advisory-lock
// functions use 1 and 2), objid and classid holding the hash.
constexpr uint16 kKeyLockClass = 18756;

// ---- arguments -------------------------------------------------------------------------------

// A label as an error message shows it: control characters escaped, clipped.
struct Shown {
    char text[300];
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
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
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

enum Col {
    kRole, kRoleId, kScope, kKey, kFingerprint, kState, kResponse, kAttempts, kOriginal, kAttempt, kPoint,
    kLockTimeout, kLockedUntil, kRetention, kCreated, kUpdated, kFinished, kExpires, kNumCols
};
constexpr const char* kColNames[kNumCols] = {
    "role_name", "role_id", "scope", "key", "fingerprint", "state", "response", "attempts", "original_attempt_id",
    "attempt_id", "recovery_point", "lock_timeout", "locked_until", "retention", "created_at", "updated_at",
    "finished_at", "expires_at"};
constexpr Oid kColTypes[kNumCols] = {
    NAMEOID, REGROLEOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID, JSONBOID, INT4OID, TEXTOID, TEXTOID, TEXTOID,
    INTERVALOID, TIMESTAMPTZOID, INTERVALOID, TIMESTAMPTZOID, TIMESTAMPTZOID, TIMESTAMPTZOID, TIMESTAMPTZOID};

// The table, its primary key and expiry index, and where each column is: a per-backend cache.
// What makes it current: no call reads it before it has locked the table (open_table(): by OID,
// the cached one or the one found again through pg_extension) and then processed invalidations
// (AcceptInvalidationMessages). A relcache invalidation of the table or one of its indexes (DROP
// EXTENSION, ALTER EXTENSION UPDATE, ALTER TABLE, REINDEX including CONCURRENTLY, which swaps the
// index OIDs) or a change to any schema marks it stale (the callbacks below), and it is then
// rebuilt from the locked table's relcache entry: every column by name with exactly the type the
// store reads and writes, the indexes from the table's index list. DDL that changes a column
// takes ACCESS EXCLUSIVE, which waits for the caller's lock; REINDEX CONCURRENTLY waits for it
// before it swaps or drops an index. So what a call read from the cache stays true until it ends.
struct Store {
    bool valid;
    Oid db, relid, pkey, expires_index;
    AttrNumber att[kNumCols];
    // The primary key's equality functions and collations, column by column (role_name, scope,
    // key): a scan key compares as the index does, with the collation the key column has now.
    RegProcedure pk_eq[3];
    Oid pk_coll[3];
};
Store g_store;
bool g_store_callbacks = false;

// This backend's purge round: the calls of a purge loop, from the first one (after a call that
// returned done, or one of another kind) to the one that returns done (see idempotency_purge()).
// Pass 0 goes through the expiry index from `expired_from` (the expires_at of the first entry
// the last call did not examine) until it reaches the end (`expired_done`; the round's later calls
// skip it). Pass 1 (older_than) sweeps the heap once, from block `idle_sweep` to its end, then
// (`idle_wrapped`) from block 0 to the block before it; `idle_from` is the first TID not yet read.
// A hint only, never trusted for correctness: it decides which rows a call reads, never whether
// one is deleted. A round belongs to one kind of call (older_than or not and its value, the
// caller's role, every role): a call of another kind starts its own. A (sub)transaction that
// aborts forgets it (purge_xact, purge_subxact), since what its calls deleted is back: the round starts again.
struct PurgeResume {
    Oid db, relid, relfilenode;  // a rewrite (VACUUM FULL, CLUSTER, ALTER TABLE) moves every row
    bool in_round;
    bool has_older_than, every_role;
    NameData role;
    Interval older_than;
    bool expired_done;
    TimestampTz expired_from;
    bool idle_started, idle_wrapped;
    BlockNumber idle_sweep;
    ItemPointerData idle_from;
};
PurgeResume g_purge;
bool g_purge_callbacks = false;
// A purge call examines at most this many rows (and reads at most as many heap blocks) for each
// key of its batch_size.
constexpr int kPurgeRowsPerKey = 10;

void purge_forget() { g_purge.db = InvalidOid; }
// A prepared transaction's deletes are no longer this backend's to count on: it may be rolled
// back (ROLLBACK PREPARED, from any session, at any time), and then what its calls deleted is
// back. So a PREPARE forgets the round as an abort does (a COMMIT PREPARED only costs the next
// call a new round).
void purge_xact(XactEvent event, void*) {
    if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT || event == XACT_EVENT_PRE_PREPARE ||
        event == XACT_EVENT_PREPARE)
        purge_forget();
}
void purge_subxact(SubXactEvent event, SubTransactionId, SubTransactionId, void*) {
    if (event == SUBXACT_EVENT_ABORT_SUB) purge_forget();
}

// The row idempotency_begin() last inserted in this backend, so that the finish (or recovery
// point) of that key in the same transaction, the usual shape of a request (begin, the work,
// finish, commit), fetches it by TID instead of searching the primary key again. A hint, checked
// before it is used: the same top-level transaction, table and role, under READ COMMITTED; the
// version there visible to a new snapshot (so neither updated since nor rolled back with a
// subtransaction); and its role name, scope and key byte for byte the caller's. Anything else
// reads the key through the primary key as before. Cleared by a relcache invalidation of the
// table (a rewrite in the same transaction moves rows).
struct Granted {
    bool valid;
    TransactionId xid;
    Oid relid, role;
    ItemPointerData tid;
};
Granted g_granted;

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

[[noreturn]] void store_missing(const char* what) {
    ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                    errmsg("the id_gen idempotency store is missing or damaged: %s", what),
                    errhint("Update the extension (ALTER EXTENSION id_gen UPDATE) or reinstall it.")));
}

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
            const char* table = quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
                                                           RelationGetRelationName(rel));
            const char* want = format_type_be(kColTypes[c]);
            ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
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
        found = psprintf("%s \"%s\"", TRIGGER_FOR_ROW(t.tgtype) ? "trigger with a transition table" : "statement-level trigger",
                         tgname);
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

// A key's row: its values by column (from a copy of the tuple, in the caller's memory context; a
// large response stays a TOAST pointer, so an update that keeps it keeps its TOAST rows), where
// it is, and which transaction wrote it.
struct Row {
    ItemPointerData tid;
    TransactionId xmin;
    Datum v[kNumCols];
    bool null[kNumCols];

    // The row's role is the caller's: same name (the lookup) and same OID. A row under the
    // caller's name with another OID is a former holder's of the name (a role dropped or renamed).
    [[nodiscard]] bool mine() const { return DatumGetObjectId(v[kRoleId]) == GetUserId(); }
    [[nodiscard]] bool done() const { return std::strcmp(TextDatumGetCString(v[kState]), "done") == 0; }
    [[nodiscard]] const text* txt(Col c) const { return null[c] ? nullptr : DatumGetTextPP(v[c]); }
    [[nodiscard]] TimestampTz ts(Col c) const { return null[c] ? DT_NOBEGIN : DatumGetTimestampTz(v[c]); }
};

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

// ---- the executor path -------------------------------------------------------------------------

// One call's executor state for writing idempotency_keys, set up as the logical-replication apply
// worker sets up its own (worker.c: create_edata_for_relation / finish_edata): a one-entry range
// table, a ResultRelInfo with the table's indexes open, an EPQState for BEFORE ROW triggers, and
// an AFTER-trigger query level. `found` holds the row version read and then locked; `out` the
// row to write. Plain data: nothing here has a destructor (an error frees it with the
// transaction's memory and resource owner).
struct Exec {
    EState* estate;
    ResultRelInfo* rri;
    EPQState epq;
    Bitmapset** updated_cols;
    TupleTableSlot* found;
    TupleTableSlot* out;
};

void exec_open(Exec* x, Relation rel) {
    x->estate = CreateExecutorState();
    RangeTblEntry* rte = makeNode(RangeTblEntry);
    rte->rtekind = RTE_RELATION;
    rte->relid = RelationGetRelid(rel);
    rte->relkind = rel->rd_rel->relkind;
    rte->rellockmode = RowExclusiveLock;
    IDGEN_INIT_RANGE_TABLE(x->estate, rte, &x->updated_cols);
    x->rri = makeNode(ResultRelInfo);
    InitResultRelInfo(x->rri, rel, 1, nullptr, 0);
    // As the apply worker does: listed so that ExecGetTriggerResultRel() finds it, and never
    // closed through the EState (the caller holds the relation).
    x->estate->es_opened_result_relations = lappend(x->estate->es_opened_result_relations, x->rri);
    x->estate->es_output_cid = GetCurrentCommandId(true);
    ExecOpenIndices(x->rri, false);
    IDGEN_EPQ_INIT(&x->epq, x->estate);
    x->found = table_slot_create(rel, &x->estate->es_tupleTable);
    x->out = ExecInitExtraTupleSlot(x->estate, RelationGetDescr(rel), &TTSOpsVirtual);
    AfterTriggerBeginQuery();
}

void exec_close(Exec* x) {
    AfterTriggerEndQuery(x->estate);  // fires the AFTER ROW triggers queued by the writes
    EvalPlanQualEnd(&x->epq);
    ExecCloseIndices(x->rri);
    ExecResetTupleTable(x->estate->es_tupleTable, false);
    FreeExecutorState(x->estate);
}

[[noreturn]] void serialization_failure() {
    ereport(ERROR, (errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
                    errmsg("could not serialize access due to concurrent update"),
                    errdetail("Another transaction changed the idempotency key's row after this transaction's "
                              "snapshot was taken."),
                    errhint("Retry the transaction: it will see the key's latest state.")));
}

// The first row of the primary key matching `sk` visible to `snapshot`, into `slot`.
bool scan_pkey(Relation rel, Relation index, Snapshot snapshot, ScanKeyData* sk, TupleTableSlot* slot) {
    IndexScanDesc scan = IDGEN_INDEX_BEGINSCAN(rel, index, snapshot, 3);
    index_rescan(scan, sk, 3, nullptr, 0);
    const bool found = index_getnext_slot(scan, ForwardScanDirection, slot);
    index_endscan(scan);
    return found;
}

void row_from_slot(const Store& st, Relation rel, TupleTableSlot* slot, Row* row) {
    bool should_free = false;
    HeapTuple tup = ExecFetchSlotHeapTuple(slot, false, &should_free);
    row_from_tuple(st, rel, tup, row);
    row->tid = slot->tts_tid;
}

// The key's row as this call decides on it: a search of the primary key with the index's own
// comparison functions and collations. Under READ COMMITTED, the latest committed state (and this
// transaction's own changes). Under REPEATABLE READ and SERIALIZABLE, the version the
// transaction's snapshot sees, read as a SELECT of it would be (under SERIALIZABLE with a SIREAD
// lock on that version, so SSI sees the read); when the latest version differs (another
// transaction inserted, updated or deleted the row since the snapshot: the dirty snapshot finds
// another version or none), 40001, as an UPDATE of the row would raise. False when there is no
// such row.
bool read_row(const Store& st, Relation rel, Exec* x, const NameData* role, const text* scope, const text* key,
              Row* row) {
    const Datum values[3] = {NameGetDatum(role), PointerGetDatum(scope), PointerGetDatum(key)};
    ScanKeyData sk[3];
    for (int i = 0; i < 3; ++i) {
        ScanKeyInit(&sk[i], static_cast<AttrNumber>(i + 1), BTEqualStrategyNumber, st.pk_eq[i], values[i]);
        sk[i].sk_collation = st.pk_coll[i];
    }
    Relation index = index_open(st.pkey, AccessShareLock);
    bool found = false;
    if (!IsolationUsesXactSnapshot()) {
        Snapshot snapshot = RegisterSnapshot(GetLatestSnapshot());
        found = scan_pkey(rel, index, snapshot, sk, x->found);
        if (found) row_from_slot(st, rel, x->found, row);
        UnregisterSnapshot(snapshot);
    } else {
        // The index is searched with a dirty snapshot, which takes no predicate lock (a search
        // with an MVCC snapshot would take a SIREAD lock on every btree page it reads, and
        // transactions beginning distinct keys on one page would fail with 40001: 0.01 to 0.25% of them
        // in bench/idempotency_serializable.sh). Each row version it leads to is then fetched
        // under the transaction's snapshot, which takes the SIREAD lock on the version read and
        // checks for SSI's conflicts out, and under the dirty snapshot, which sees the latest.
        // A key found by neither needs no predicate lock: another transaction can add it only
        // through the primary key, where it meets this one's insert.
        SnapshotData dirty;
        InitDirtySnapshot(dirty);
        Snapshot snapshot = RegisterSnapshot(GetTransactionSnapshot());
        IndexScanDesc scan = IDGEN_INDEX_BEGINSCAN(rel, index, &dirty, 3);
        index_rescan(scan, sk, 3, nullptr, 0);
        IndexFetchTableData* fetch = table_index_fetch_begin(rel);
        bool latest = false;
        ItemPointerData latest_tid;
        ItemPointerSetInvalid(&latest_tid);
        ItemPointer tid;
        while ((tid = index_getnext_tid(scan, ForwardScanDirection)) != nullptr) {
            const ItemPointerData root = *tid;
            ItemPointerData t = root;
            bool call_again = false, all_dead = false;
            if (!found && table_index_fetch_tuple(fetch, &t, snapshot, x->found, &call_again, &all_dead)) {
                found = true;
                row_from_slot(st, rel, x->found, row);
            }
            t = root;
            call_again = false;
            if (!latest && table_index_fetch_tuple(fetch, &t, &dirty, x->found, &call_again, &all_dead)) {
                latest = true;
                latest_tid = x->found->tts_tid;
            }
        }
        table_index_fetch_end(fetch);
        index_endscan(scan);
        UnregisterSnapshot(snapshot);
        if (latest != found || (found && !ItemPointerEquals(&latest_tid, &row->tid))) {
            index_close(index, AccessShareLock);
            serialization_failure();
        }
    }
    ExecClearTuple(x->found);
    index_close(index, AccessShareLock);
    return found;
}

// The key's row when it is the one this transaction's last idempotency_begin() inserted and
// nothing has changed it since (see Granted); false: read it through the primary key.
bool read_granted_row(const Store& st, Relation rel, Exec* x, const NameData* role, const text* scope,
                      const text* key, Row* row) {
    if (!g_granted.valid || IsolationUsesXactSnapshot() || g_granted.relid != st.relid ||
        g_granted.role != GetUserId() || g_granted.xid != GetTopTransactionIdIfAny())
        return false;
    Snapshot snapshot = RegisterSnapshot(GetLatestSnapshot());
    ItemPointerData tid = g_granted.tid;
    bool ok = table_tuple_fetch_row_version(rel, &tid, snapshot, x->found);
    UnregisterSnapshot(snapshot);
    if (ok) {
        row_from_slot(st, rel, x->found, row);
        const auto same = [&](Col c, const text* want) {
            return !row->null[c] && VARSIZE_ANY_EXHDR(DatumGetTextPP(row->v[c])) == VARSIZE_ANY_EXHDR(want) &&
                   std::memcmp(VARDATA_ANY(DatumGetTextPP(row->v[c])), VARDATA_ANY(want), VARSIZE_ANY_EXHDR(want)) == 0;
        };
        ok = !row->null[kRole] && std::strcmp(NameStr(*DatumGetName(row->v[kRole])), NameStr(*role)) == 0 &&
             same(kScope, scope) && same(kKey, key);
    }
    ExecClearTuple(x->found);
    return ok;
}

enum class Locked { kYes, kChanged, kBusy };

// Locks the row version `old` was read from (FOR UPDATE), into x->found, as the executor locks a
// row before it updates or deletes it. kChanged: the version is no longer the row's latest (read
// it again; under REPEATABLE READ and SERIALIZABLE, 40001 when another transaction changed it,
// unless `skip_changed`); kBusy: `wait` is false and another transaction holds a lock on it.
// Every result table_tuple_lock() gives (heap_lock_tuple's, without a flag) has its answer:
//   TM_Updated, TM_Deleted: another transaction updated or deleted it and committed since it
//     was read (without `wait`, a transaction still in progress is TM_WouldBlock instead);
//   TM_Invisible: this transaction deleted or updated it in an earlier command: a purge's row
//     trigger that deleted another key, or a pass of a purge meeting a row an earlier command
//     deleted (never, since each pass reads with a snapshot taken after the last one's deletes);
//   TM_SelfModified: the same, in the current command (a write nothing here makes before it
//     locks: no SQL runs between a read and its lock but a trigger's, which ends with its own
//     command counter increment);
//   TM_BeingModified: heap_lock_tuple waits it out or answers TM_WouldBlock; another table
//     access method might give it: busy without `wait`, read again with it.
// `snapshot` is what table_tuple_lock() would follow an update chain with (it does not here: no
// TUPLE_LOCK_FLAG_FIND_LAST_VERSION); the latest one unless given.
Locked lock_row(Relation rel, Exec* x, const Row& old, bool wait, bool skip_changed = false,
                Snapshot snapshot = nullptr) {
    TM_FailureData tmfd;
    ItemPointerData tid = old.tid;
    const TM_Result r = table_tuple_lock(rel, &tid, snapshot != nullptr ? snapshot : GetLatestSnapshot(), x->found,
                                         GetCurrentCommandId(false), LockTupleExclusive,
                                         wait ? LockWaitBlock : LockWaitSkip, 0, &tmfd);
    switch (r) {
        case TM_Ok:
            return Locked::kYes;
        case TM_WouldBlock:
            return Locked::kBusy;
        case TM_Updated:
        case TM_Deleted:
            if (!skip_changed && IsolationUsesXactSnapshot()) serialization_failure();
            return Locked::kChanged;
        case TM_Invisible:
        case TM_SelfModified:
            return Locked::kChanged;
        case TM_BeingModified:
            return wait ? Locked::kChanged : Locked::kBusy;
    }
    elog(ERROR, "unexpected result %d locking a row of idempotency_keys", static_cast<int>(r));
    pg_unreachable();
}

// Fills x->out with `row`'s values; the table's other columns from `base` (the locked version,
// for an update) or NULL (an insert). Updated columns are noted for the executor.
void fill_out(const Store& st, Relation rel, Exec* x, const Row& row, TupleTableSlot* base) {
    const TupleDesc desc = RelationGetDescr(rel);
    TupleTableSlot* out = x->out;
    ExecClearTuple(out);
    if (base != nullptr) slot_getallattrs(base);
    for (int i = 0; i < desc->natts; ++i) {
        out->tts_values[i] = base != nullptr ? base->tts_values[i] : (Datum)0;
        out->tts_isnull[i] = base != nullptr ? base->tts_isnull[i] : true;
    }
    Bitmapset* changed = nullptr;
    for (int c = 0; c < kNumCols; ++c) {
        const int i = st.att[c] - 1;
        if (base != nullptr) {
            const Form_pg_attribute a = TupleDescAttr(desc, i);
            const bool same = out->tts_isnull[i] == row.null[c] &&
                              (row.null[c] || datumIsEqual(out->tts_values[i], row.v[c], a->attbyval, a->attlen));
            if (!same) changed = bms_add_member(changed, st.att[c] - FirstLowInvalidHeapAttributeNumber);
        }
        out->tts_values[i] = row.null[c] ? (Datum)0 : row.v[c];
        out->tts_isnull[i] = row.null[c];
    }
    *x->updated_cols = changed;
    ExecStoreVirtualTuple(out);
    x->estate->es_output_cid = GetCurrentCommandId(true);
}

void insert_row(const Store& st, Relation rel, Exec* x, const Row& row) {
    fill_out(st, rel, x, row, nullptr);
    ExecSimpleRelationInsert(x->rri, x->estate, x->out);
    CommandCounterIncrement();  // later reads in this statement see it
}

// Replaces `old` (as read) with `row`: locks it, then updates it through the executor.
// kChanged: read it again; kBusy (only without `wait`): another transaction holds it.
Locked update_row(const Store& st, Relation rel, Exec* x, const Row& old, const Row& row, bool wait = true) {
    const Locked l = lock_row(rel, x, old, wait);
    if (l != Locked::kYes) return l;
    fill_out(st, rel, x, row, x->found);
    EvalPlanQualSetSlot(&x->epq, x->out);
    ExecSimpleRelationUpdate(x->rri, x->estate, &x->epq, x->found, x->out);
    ExecClearTuple(x->out);
    ExecClearTuple(x->found);
    CommandCounterIncrement();
    return Locked::kYes;
}

Datum text_datum(const text* t) { return PointerGetDatum(t); }
Datum ts_datum(TimestampTz t) { return TimestampTzGetDatum(t); }
TimestampTz plus(TimestampTz t, const Interval* i) {
    return DatumGetTimestampTz(DirectFunctionCall2(timestamptz_pl_interval, TimestampTzGetDatum(t), IntervalPGetDatum(i)));
}
Interval* interval_of(const Row& row, Col c) { return DatumGetIntervalP(row.v[c]); }

void set(Row* row, Col c, Datum v) {
    row->v[c] = v;
    row->null[c] = false;
}
void set_text(Row* row, Col c, const text* t) {
    row->v[c] = PointerGetDatum(t);
    row->null[c] = t == nullptr;
}

// A key granted to a request: in flight, held by `attempt` until at + lock_timeout, kept until
// at + retention.
void hold(Row* row, const text* attempt, Interval* lock_timeout, Interval* retention, TimestampTz at) {
    set_text(row, kAttempt, attempt);
    set(row, kLockTimeout, IntervalPGetDatum(lock_timeout));
    set(row, kLockedUntil, ts_datum(plus(at, lock_timeout)));
    set(row, kRetention, IntervalPGetDatum(retention));
    set(row, kUpdated, ts_datum(at));
    set(row, kExpires, ts_datum(plus(at, retention)));
}

// A fresh key: the first request, or one whose key had expired.
void fresh(Row* row, const NameData* role, const text* scope, const text* key, const text* fp, const text* attempt,
           Interval* lock_timeout, Interval* retention, TimestampTz at) {
    for (int c = 0; c < kNumCols; ++c) row->null[c] = true;
    set(row, kRole, NameGetDatum(role));
    set(row, kRoleId, ObjectIdGetDatum(GetUserId()));
    set(row, kScope, text_datum(scope));
    set(row, kKey, text_datum(key));
    set_text(row, kFingerprint, fp);
    set(row, kState, CStringGetTextDatum("in_flight"));
    set(row, kAttempts, Int32GetDatum(1));
    set_text(row, kOriginal, attempt);
    set(row, kCreated, ts_datum(at));
    hold(row, attempt, lock_timeout, retention, at);
}

// ---- the key lock and results ----------------------------------------------------------------

// The transaction-level key lock (its tag in *tag). False when `wait` is false and another
// transaction holds it.
bool lock_key(const text* scope, const text* key, bool wait, LOCKTAG* tag) {
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
    SET_LOCKTAG_ADVISORY(*tag, MyDatabaseId, static_cast<uint32>(h >> 32), static_cast<uint32>(h), kKeyLockClass);
    return LockAcquire(tag, ExclusiveLock, false, !wait) != LOCKACQUIRE_NOT_AVAIL;
}

[[noreturn]] void in_flight_error(const text* scope, const text* key, const char* detail, const char* hint) {
    ereport(ERROR, (errcode(ERRCODE_LOCK_NOT_AVAILABLE),
                    errmsg("idempotency key \"%s\" is in use by a request in flight", shown(key).text),
                    errdetail("Scope \"%s\": %s", shown(scope).text, detail), errhint("%s", hint)));
    pg_unreachable();
}

// The one result row of idempotency_begin(), from the key's row as it now is.
Datum emit(FunctionCallInfo fcinfo, const char* state, const Row& row) {
    auto* rsinfo = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
    const bool replay = std::strcmp(state, "replay") == 0;
    // Values themselves, never pointers to the row's TOAST.
    const auto own = [&](Col c) { return row.null[c] ? (Datum)0 : PointerGetDatum(PG_DETOAST_DATUM_COPY(row.v[c])); };
    Datum values[6] = {CStringGetTextDatum(state), replay ? own(kResponse) : (Datum)0, BoolGetDatum(replay),
                       row.v[kAttempts], own(kOriginal), own(kPoint)};
    bool nulls[6] = {false, !replay || row.null[kResponse], false, false, row.null[kOriginal], row.null[kPoint]};
    tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
    return (Datum)0;
}

bool fingerprints_equal(const text* a, const text* b) {
    if (a == nullptr || b == nullptr) return a == b;
    return VARSIZE_ANY_EXHDR(a) == VARSIZE_ANY_EXHDR(b) &&
           std::memcmp(VARDATA_ANY(a), VARDATA_ANY(b), VARSIZE_ANY_EXHDR(a)) == 0;
}

Name caller_name() {
    Name n = static_cast<Name>(palloc0(NAMEDATALEN));
    namestrcpy(n, GetUserNameFromId(GetUserId(), false));
    return n;
}

}  // namespace

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
    check_writable("idempotency_begin()");

    // The result's descriptor: the one the caller expects (a FROM item, a target list), which is
    // the function's six columns, when it gives one; else read from the catalogs (which parses
    // the function's OUT arguments from pg_proc on every call).
    {
        const auto* rs = reinterpret_cast<const ReturnSetInfo*>(fcinfo->resultinfo);
        constexpr Oid kResultTypes[6] = {TEXTOID, JSONBOID, BOOLOID, INT4OID, TEXTOID, TEXTOID};
        bool expected = rs != nullptr && IsA(rs, ReturnSetInfo) && rs->expectedDesc != nullptr &&
                        rs->expectedDesc->natts == 6;
        for (int i = 0; expected && i < 6; ++i) expected = TupleDescAttr(rs->expectedDesc, i)->atttypid == kResultTypes[i];
        InitMaterializedSRF(fcinfo, expected ? MAT_SRF_USE_EXPECTED_DESC : 0);
    }
    const Name role = caller_name();
    LOCKTAG tag;
    if (!lock_key(scope, key, wait, &tag))
        in_flight_error(scope, key, "another transaction is running a request with it.",
                        "Retry later, or call idempotency_begin() with wait => true to wait for it.");
    const Store* store = nullptr;
    Relation rel = open_table(store);
    const Store& st = *store;
    Exec x;
    exec_open(&x, rel);

    // A duplicate can poll for as long as the request's lock_timeout: what one reading of the row
    // allocates (its copy, the values of the row to write) is freed before the next, in a context
    // of its own. The result row is copied into the tuplestore before the function returns.
    MemoryContext outer = CurrentMemoryContext;
    MemoryContext pass = AllocSetContextCreate(outer, "id_gen idempotency_begin", ALLOCSET_SMALL_SIZES);
    const auto done_with = [&](const char* state, const Row& row) {
        emit(fcinfo, state, row);
        MemoryContextSwitchTo(outer);
        MemoryContextDelete(pass);
        exec_close(&x);
        table_close(rel, NoLock);
        return (Datum)0;
    };
    // wait => false never waits, for the key lock or for the row: a row another transaction holds
    // (its replay, or a finish not yet committed) is 55P03 at once.
    const auto busy = [&]() {
        in_flight_error(scope, key, "another transaction holds the key's row (a replay or a finish not yet committed).",
                        "Retry later, or call idempotency_begin() with wait => true to wait for it.");
    };
    long sleep_ms = 1;
    // The poll below is no lock wait: the deadlock detector does not see it (a duplicate that
    // holds a lock the key's request then needs waits out the request's lock_timeout). It obeys
    // the session's lock_timeout setting as a lock wait would, from the first poll.
    TimestampTz polling_since = 0;
    for (;;) {
        CHECK_FOR_INTERRUPTS();
        MemoryContextSwitchTo(outer);
        MemoryContextReset(pass);
        MemoryContextSwitchTo(pass);
        const TimestampTz at = GetCurrentTimestamp();
        Row old, row;
        if (!read_row(st, rel, &x, role, scope, key, &old)) {
            fresh(&row, role, scope, key, fingerprint, attempt_id, lock_timeout, retention, at);
            insert_row(st, rel, &x, row);
            g_granted.valid = ItemPointerIsValid(&x.out->tts_tid);
            g_granted.xid = GetTopTransactionIdIfAny();
            g_granted.relid = st.relid;
            g_granted.role = GetUserId();
            g_granted.tid = x.out->tts_tid;
            return done_with("new", row);
        }
        const bool done = old.done();
        // Past its retention and not held: forgotten, the request starts afresh. A key of a former
        // holder of the role's name is another role's, never this one's: it is replaced as well.
        if (!old.mine() || (old.ts(kExpires) <= at && (done || old.ts(kLockedUntil) <= at))) {
            fresh(&row, role, scope, key, fingerprint, attempt_id, lock_timeout, retention, at);
            const Locked l = update_row(st, rel, &x, old, row, wait);
            if (l == Locked::kBusy) busy();
            if (l == Locked::kChanged) continue;
            return done_with("new", row);
        }
        if (!fingerprints_equal(fingerprint, old.txt(kFingerprint)))
            ereport(ERROR, (errcode(ERRCODE_INTEGRITY_CONSTRAINT_VIOLATION),
                            errmsg("idempotency key \"%s\" was used with another request", shown(key).text),
                            errdetail("Scope \"%s\": the request's fingerprint differs from the one recorded with the key.",
                                      shown(scope).text),
                            errhint("Send a new request with a new key.")));
        row = old;
        set(&row, kAttempts, Int32GetDatum(DatumGetInt32(old.v[kAttempts]) + 1));
        if (done) {
            // A replay is a use of the key: idempotency_purge(older_than) must not take a key
            // retried a moment ago for an idle one, or the next retry would run the request
            // again. updated_at is in no index, so the update stays heap-only.
            set(&row, kUpdated, ts_datum(at));
            const Locked l = update_row(st, rel, &x, old, row, wait);
            if (l == Locked::kBusy) busy();
            if (l == Locked::kChanged) continue;
            // A replay changes nothing a duplicate must wait for (its attempt count is a row
            // update, which serializes replays by itself): the key's lock goes at once, so a
            // transaction replaying many keys does not hold a lock for each.
            LockRelease(&tag, ExclusiveLock, false);
            return done_with("replay", row);
        }
        // In flight.
        if (TransactionIdIsCurrentTransactionId(old.xmin))
            ereport(ERROR, (errcode(ERRCODE_LOCK_NOT_AVAILABLE),
                            errmsg("idempotency key \"%s\" is already in flight in this transaction", shown(key).text),
                            errdetail("Scope \"%s\": idempotency_begin() was called with it before in this transaction.",
                                      shown(scope).text)));
        const TimestampTz locked_until = old.ts(kLockedUntil);
        if (locked_until <= at) {
            // Its request died (or is too slow): this one holds the key now, and resumes from the
            // last recovery point, if there is one.
            hold(&row, attempt_id, lock_timeout, retention, at);
            const Locked l = update_row(st, rel, &x, old, row, wait);
            if (l == Locked::kBusy) busy();
            if (l == Locked::kChanged) continue;
            return done_with(row.null[kPoint] ? "new" : "resume", row);
        }
        const text* holder = old.txt(kAttempt);
        if (!wait)
            in_flight_error(scope, key,
                            holder != nullptr ? psprintf("attempt \"%s\" holds it until %s.", shown(holder).text,
                                                         timestamptz_to_str(locked_until))
                                              : psprintf("a request holds it until %s.", timestamptz_to_str(locked_until)),
                            "Retry later, or call idempotency_begin() with wait => true to wait for it.");
        // Wait for the request to finish or its lock to run out, reading the row again.
        long left_ms = static_cast<long>((locked_until - at) / 1000) + 1;
        if (polling_since == 0) polling_since = at;
        if (LockTimeout > 0) {
            const long waited_ms = static_cast<long>((at - polling_since) / 1000);
            if (waited_ms >= LockTimeout)
                in_flight_error(scope, key,
                                psprintf("waited lock_timeout (%d ms) for the request that holds it until %s.",
                                         LockTimeout, timestamptz_to_str(locked_until)),
                                "Retry later; lock_timeout bounds this wait as it bounds a lock wait.");
            left_ms = Min(left_ms, LockTimeout - waited_ms);
        }
        (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, Max(1L, Min(sleep_ms, left_ms)),
                        PG_WAIT_EXTENSION);
        ResetLatch(MyLatch);
        sleep_ms = Min(sleep_ms * 2, 100L);
    }
}

namespace {

// Stores the response (finish) or a recovery point of a key in flight, held by `attempt_id`
// when one is given; 55000 saying why when the key is not in that state.
void update_in_flight(const text* scope, const text* key, const text* attempt_id, Jsonb* response,
                      const text* point, const char* action) {
    const Name role = caller_name();
    const Store* store = nullptr;
    Relation rel = open_table(store);
    const Store& st = *store;
    Exec x;
    exec_open(&x, rel);
    bool granted = true;  // first try the row this transaction's begin inserted
    for (;;) {
        CHECK_FOR_INTERRUPTS();
        const TimestampTz at = GetCurrentTimestamp();
        Row old;
        const Shown k = shown(key), s = shown(scope);
        bool found = granted && read_granted_row(st, rel, &x, role, scope, key, &old);
        granted = false;
        if (!found) found = read_row(st, rel, &x, role, scope, key, &old);
        if (!found || !old.mine())
            ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                            errmsg("cannot %s idempotency key \"%s\": it is not in flight", action, k.text),
                            errdetail("Scope \"%s\" has no such key for role \"%s\" (never begun, or purged).", s.text,
                                      NameStr(*role)),
                            errhint("Call idempotency_begin() first.")));
        if (old.done())
            ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                            errmsg("cannot %s idempotency key \"%s\": its request has finished", action, k.text),
                            errdetail("Scope \"%s\": the key's response is stored; retries replay it.", s.text)));
        const text* holder = old.txt(kAttempt);
        if (attempt_id != nullptr && !fingerprints_equal(attempt_id, holder))
            ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                            errmsg("cannot %s idempotency key \"%s\": another attempt holds it", action, k.text),
                            errdetail("Scope \"%s\": the key is held by attempt \"%s\", not by attempt \"%s\" (its "
                                      "lock ran out and a retry took the key over).",
                                      s.text, holder == nullptr ? "(none)" : shown(holder).text, shown(attempt_id).text)));
        // Neither changes an indexed column (expires_at counts from the begin that granted the
        // key), so with room on the page (fillfactor) the new version is heap-only (HOT).
        Row row = old;
        set(&row, kUpdated, ts_datum(at));
        if (point != nullptr) {
            set_text(&row, kPoint, point);
            set(&row, kLockedUntil, ts_datum(plus(at, interval_of(old, kLockTimeout))));
        } else {
            set(&row, kState, CStringGetTextDatum("done"));
            row.v[kResponse] = PointerGetDatum(response);
            row.null[kResponse] = response == nullptr;
            row.null[kLockedUntil] = true;
            set(&row, kFinished, ts_datum(at));
        }
        if (update_row(st, rel, &x, old, row) == Locked::kYes) break;
    }
    exec_close(&x);
    table_close(rel, NoLock);
}

}  // namespace

// idempotency_finish(scope, key, response jsonb, attempt_id text DEFAULT NULL) -> void
IDGEN_FUNCTION(idempotency_finish) {
    text* scope = label_arg(fcinfo, 0, "scope", false);
    text* key = label_arg(fcinfo, 1, "idempotency key", false);
    Jsonb* response = PG_ARGISNULL(2) ? nullptr : PG_GETARG_JSONB_P(2);
    text* attempt_id = label_arg(fcinfo, 3, "attempt ID", true);
    check_writable("idempotency_finish()");
    update_in_flight(scope, key, attempt_id, response, nullptr, "finish");
    PG_RETURN_VOID();
}

// idempotency_recovery_point(scope, key, point text, attempt_id text DEFAULT NULL) -> void
IDGEN_FUNCTION(idempotency_recovery_point) {
    text* scope = label_arg(fcinfo, 0, "scope", false);
    text* key = label_arg(fcinfo, 1, "idempotency key", false);
    text* point = label_arg(fcinfo, 2, "recovery point", false);
    text* attempt_id = label_arg(fcinfo, 3, "attempt ID", true);
    check_writable("idempotency_recovery_point()");
    update_in_flight(scope, key, attempt_id, nullptr, point, "record a recovery point of");
    PG_RETURN_VOID();
}

// idempotency_purge(older_than interval DEFAULT NULL, batch_size int DEFAULT 1000,
//                   OUT deleted bigint, OUT done boolean)
//
// One bounded step of a purge round per call. Pass 0: keys of every role past their retention
// and not held. Pass 1 (older_than): keys not updated for older_than and not held, of the
// caller's role only, or of every role when the caller may DELETE from idempotency_keys (the
// keys it could delete itself). A call deletes up to batch_size keys and examines up to
// kPurgeRowsPerKey * batch_size rows (pass 0's index entries and pass 1's heap rows together)
// in as many heap blocks at most; it goes on from where this backend's last call of the round
// stopped (g_purge) and returns `done` when the round has read everything: every row the expiry
// index had up to the call's time, and with older_than the whole heap once. A loop calls it,
// each call in its own short transaction, until done: a round reads the table about once, and
// no call's work or memory follows the table's size (a row's memory is freed before the next).
// A row another transaction has locked or changed is skipped, never waited for; the deletions'
// row locks last until the caller's transaction ends.
//
// What a pass reads: under READ COMMITTED a snapshot taken when the pass starts, after the
// earlier pass's deletes (so pass 1 never meets a row pass 0 deleted); under REPEATABLE READ and
// SERIALIZABLE the transaction's snapshot, as a DELETE there would: a key committed after it is
// not seen, so not deleted, and one changed since is skipped (where a DELETE would fail with
// 40001). Under SERIALIZABLE pass 0's index scan takes the predicate locks any index scan takes;
// pass 1's TID range scan takes none, as the executor's TID range scan does not, and checks its
// rows for SSI conflicts out; each delete checks for conflicts in.
IDGEN_FUNCTION(idempotency_purge) {
    Interval* older_than = PG_ARGISNULL(0) ? nullptr : interval_arg(fcinfo, 0, "older_than", nullptr, true);
    if (PG_ARGISNULL(1)) ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("batch_size must not be null")));
    const int32 batch = PG_GETARG_INT32(1);
    if (batch < 1)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("batch_size must be at least 1, not %d", batch)));
    check_writable("idempotency_purge()");
    TupleDesc result_desc = nullptr;
    if (get_call_result_type(fcinfo, nullptr, &result_desc) != TYPEFUNC_COMPOSITE || result_desc->natts != 2)
        store_missing("idempotency_purge() does not return (deleted bigint, done boolean)");
    result_desc = BlessTupleDesc(result_desc);
    const Store* store = nullptr;
    Relation rel = open_table(store);
    const Store& st = *store;
    const TimestampTz at = GetCurrentTimestamp();
    const bool every_role = pg_class_aclcheck(st.relid, GetUserId(), ACL_DELETE) == ACLCHECK_OK;
    const Name role = caller_name();
    TimestampTz cutoff = DT_NOBEGIN;
    if (older_than != nullptr) {
        Interval neg;
        neg.time = -older_than->time;
        neg.day = -older_than->day;
        neg.month = -older_than->month;
        cutoff = plus(at, &neg);
    }
    int64 deleted = 0;
    int64 rows_left = static_cast<int64>(batch) * kPurgeRowsPerKey;
    Exec x;
    exec_open(&x, rel);
    if (!g_purge_callbacks) {
        RegisterXactCallback(purge_xact, nullptr);
        RegisterSubXactCallback(purge_subxact, nullptr);
        g_purge_callbacks = true;
    }
    // A round of another kind (older_than or not and its value, role, every role), or of
    // another table or of the table before a rewrite, is not this call's: it starts its own.
    PurgeResume& pr = g_purge;
    const bool same_kind =
        pr.db == MyDatabaseId && pr.relid == st.relid && pr.relfilenode == rel->rd_rel->relfilenode && pr.in_round &&
        pr.has_older_than == (older_than != nullptr) &&
        pr.every_role == every_role && std::strcmp(NameStr(pr.role), NameStr(*role)) == 0 &&
        (older_than == nullptr || (pr.older_than.time == older_than->time && pr.older_than.day == older_than->day &&
                                   pr.older_than.month == older_than->month));
    if (!same_kind) {
        pr.db = MyDatabaseId;
        pr.relid = st.relid;
        pr.relfilenode = rel->rd_rel->relfilenode;
        pr.in_round = true;
        pr.has_older_than = older_than != nullptr;
        pr.every_role = every_role;
        namestrcpy(&pr.role, NameStr(*role));
        if (older_than != nullptr) pr.older_than = *older_than;
        pr.expired_done = false;
        pr.expired_from = DT_NOBEGIN;
        pr.idle_started = false;
        pr.idle_wrapped = false;
    }
    // What one row costs (its copy, the delete's allocations) is freed before the next.
    MemoryContext outer = CurrentMemoryContext;
    MemoryContext per_row = AllocSetContextCreate(outer, "id_gen idempotency_purge row", ALLOCSET_DEFAULT_SIZES);
    TupleTableSlot* slot = table_slot_create(rel, &x.estate->es_tupleTable);
    // A pass's snapshot: see above. Under REPEATABLE READ and SERIALIZABLE the transaction's,
    // whose command ID the command counter increment between the passes brings forward.
    const auto pass_snapshot = []() {
        return RegisterSnapshot(IsolationUsesXactSnapshot() ? GetTransactionSnapshot() : GetLatestSnapshot());
    };
    // One candidate row, in slot: deleted (through the executor) unless held, or (pass 1) not
    // idle long enough or another role's, or locked or changed by another transaction.
    const auto consider = [&](bool idle_pass, Snapshot snapshot) {
        CHECK_FOR_INTERRUPTS();
        --rows_left;
        MemoryContextReset(per_row);
        MemoryContextSwitchTo(per_row);
        Row row;
        row_from_slot(st, rel, slot, &row);
        bool go = row.done() || row.ts(kLockedUntil) <= at;  // not held
        if (go && idle_pass)
            go = row.ts(kUpdated) <= cutoff &&
                 (every_role || (row.mine() && std::strcmp(NameStr(*DatumGetName(row.v[kRole])), NameStr(*role)) == 0));
        if (go && lock_row(rel, &x, row, false, true, snapshot) == Locked::kYes) {
            EvalPlanQualSetSlot(&x.epq, x.found);
            x.estate->es_output_cid = GetCurrentCommandId(true);
            ExecSimpleRelationDelete(x.rri, x.estate, &x.epq, x.found);
            ExecClearTuple(x.found);
            ++deleted;
        }
        MemoryContextSwitchTo(outer);
    };
    // Pass 0: expired keys, a range scan of the expiry index from where the round's last call
    // stopped. A call stops at the first entry it does not examine (the batch is full, or its
    // rows are spent and the entry's expires_at is past the last one examined: the next call
    // starts at that expires_at and re-reads no entry of an earlier one), so a call reads about
    // the entries it examines, not those of every key deleted before it.
    if (!pr.expired_done) {
        Snapshot snapshot = pass_snapshot();
        Relation index = index_open(st.expires_index, AccessShareLock);
        ScanKeyData sk[2];
        ScanKeyInit(&sk[0], 1, BTGreaterEqualStrategyNumber, F_TIMESTAMPTZ_GE, TimestampTzGetDatum(pr.expired_from));
        ScanKeyInit(&sk[1], 1, BTLessEqualStrategyNumber, F_TIMESTAMPTZ_LE, TimestampTzGetDatum(at));
        IndexScanDesc scan = IDGEN_INDEX_BEGINSCAN(rel, index, snapshot, 2);
        scan->xs_want_itup = true;  // the entry's expires_at, also for an entry of no visible row
        index_rescan(scan, sk, 2, nullptr, 0);
        TimestampTz last = DT_NOBEGIN;
        bool stopped = false;
        // index_getnext_slot()'s loop, spelled out so that an entry whose row this snapshot does
        // not see (a key deleted by an earlier call or round, its entry not yet removed by
        // VACUUM) costs the budget like a row: a call's reads stay bounded however many there are.
        for (;;) {
            CHECK_FOR_INTERRUPTS();
            if (index_getnext_tid(scan, ForwardScanDirection) == nullptr) break;
            bool isnull = false;
            const Datum e = index_getattr(scan->xs_itup, 1, scan->xs_itupdesc, &isnull);
            const TimestampTz expires = isnull ? DT_NOBEGIN : DatumGetTimestampTz(e);
            if (deleted >= batch || (rows_left <= 0 && expires > last)) {
                pr.expired_from = expires;
                stopped = true;
                break;
            }
            last = expires;
            bool seen = false;
            do {  // the entry's HOT chain (an MVCC snapshot sees one member at most)
                if (index_fetch_heap(scan, slot)) {
                    seen = true;
                    consider(false, snapshot);
                }
            } while (scan->xs_heap_continue);
            if (!seen) --rows_left;
        }
        index_endscan(scan);
        index_close(index, AccessShareLock);
        UnregisterSnapshot(snapshot);
        pr.expired_done = !stopped;
        CommandCounterIncrement();
    }
    // Pass 1 (older_than): idle keys. No index serves updated_at (one would cost every finish its
    // heap-only update), so the round sweeps the heap in TID ranges, once: from a block chosen
    // at random when the round starts (so calls of rounds that never finish, a lone call per
    // session, still reach every block over time) to the end, then from block 0 to that block.
    // Each call goes on from the first TID the last one did not read, and reads at most the
    // rows and blocks left of its budget.
    bool idle_done = older_than == nullptr;
    if (older_than != nullptr && pr.expired_done && deleted < batch && rows_left > 0) {
        const BlockNumber nblocks = RelationGetNumberOfBlocks(rel);
        if (!pr.idle_started) {
            pr.idle_started = true;
            pr.idle_wrapped = false;
            pr.idle_sweep = nblocks == 0 ? 0 : static_cast<BlockNumber>(pg_prng_uint64_range(&pg_global_prng_state, 0, nblocks - 1));
            ItemPointerSet(&pr.idle_from, pr.idle_sweep, FirstOffsetNumber);
        }
        uint64 blocks_left = static_cast<uint64>(batch) * kPurgeRowsPerKey;
        // The last block of the leg the sweep is in: the table's (before the wrap) or the one
        // before the sweep's first (after it). Past it: to the wrap, or the sweep is done.
        BlockNumber leg_end = 0;
        const auto settle = [&]() {
            for (;;) {
                if (nblocks == 0) {
                    idle_done = true;
                    return;
                }
                leg_end = pr.idle_wrapped ? pr.idle_sweep - 1 : nblocks - 1;
                if (ItemPointerGetBlockNumberNoCheck(&pr.idle_from) <= leg_end) return;
                if (pr.idle_wrapped || pr.idle_sweep == 0) {
                    idle_done = true;
                    return;
                }
                pr.idle_wrapped = true;
                ItemPointerSet(&pr.idle_from, 0, FirstOffsetNumber);
            }
        };
        settle();
        Snapshot snapshot = pass_snapshot();
        while (!idle_done && deleted < batch && rows_left > 0 && blocks_left > 0) {
            const BlockNumber from = ItemPointerGetBlockNumberNoCheck(&pr.idle_from);
            const BlockNumber to = static_cast<BlockNumber>(Min(static_cast<uint64>(leg_end), from + blocks_left - 1));
            ItemPointerData hi;
            ItemPointerSet(&hi, to, MaxOffsetNumber);
            TableScanDesc scan = table_beginscan_tidrange(rel, snapshot, &pr.idle_from, &hi);
            bool stopped = false;
            while (table_scan_getnextslot_tidrange(scan, ForwardScanDirection, slot)) {
                if (deleted >= batch || rows_left <= 0) {
                    pr.idle_from = slot->tts_tid;  // the first row not examined
                    stopped = true;
                    break;
                }
                const ItemPointerData tid = slot->tts_tid;
                consider(true, snapshot);
                ItemPointerSet(&pr.idle_from, ItemPointerGetBlockNumber(&tid), ItemPointerGetOffsetNumber(&tid) + 1);
            }
            table_endscan(scan);
            if (stopped) break;
            // The range was read to its end.
            blocks_left -= to - from + 1;
            ItemPointerSet(&pr.idle_from, to + 1, FirstOffsetNumber);
            settle();
        }
        UnregisterSnapshot(snapshot);
        CommandCounterIncrement();
    }
    const bool done = pr.expired_done && idle_done;
    if (done) pr.in_round = false;  // the next call starts a new round
    MemoryContextDelete(per_row);
    exec_close(&x);
    table_close(rel, NoLock);
    Datum values[2] = {Int64GetDatum(deleted), BoolGetDatum(done)};
    bool nulls[2] = {false, false};
    PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(result_desc, values, nulls)));
}
