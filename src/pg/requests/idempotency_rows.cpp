// id_gen: the idempotency-key store's executor path: a key's row read, locked, inserted and
// updated as the logical-replication apply worker writes rows. See idempotency_internal.h.
#include "pg/requests/idempotency_internal.h"

namespace idgen::pg::idem {

// ---- the executor path -------------------------------------------------------------------------

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

namespace {

[[noreturn]] void serialization_failure() {
    ereport(ERROR,
            (errcode(ERRCODE_T_R_SERIALIZATION_FAILURE), errmsg("could not serialize access due to concurrent update"),
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

}  // namespace

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
bool read_granted_row(const Store& st, Relation rel, Exec* x, const NameData* role, const text* scope, const text* key,
                      Row* row) {
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
Locked lock_row(Relation rel, Exec* x, const Row& old, bool wait, bool skip_changed, Snapshot snapshot) {
    TM_FailureData tmfd;
    ItemPointerData tid = old.tid;
    const TM_Result r =
        table_tuple_lock(rel, &tid, snapshot != nullptr ? snapshot : GetLatestSnapshot(), x->found,
                         GetCurrentCommandId(false), LockTupleExclusive, wait ? LockWaitBlock : LockWaitSkip, 0, &tmfd);
    switch (r) {
        case TM_Ok: return Locked::kYes;
        case TM_WouldBlock: return Locked::kBusy;
        case TM_Updated:
        case TM_Deleted:
            if (!skip_changed && IsolationUsesXactSnapshot()) serialization_failure();
            return Locked::kChanged;
        case TM_Invisible:
        case TM_SelfModified: return Locked::kChanged;
        case TM_BeingModified: return wait ? Locked::kChanged : Locked::kBusy;
    }
    elog(ERROR, "unexpected result %d locking a row of idempotency_keys", static_cast<int>(r));
    pg_unreachable();
}

namespace {

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

}  // namespace

void insert_row(const Store& st, Relation rel, Exec* x, const Row& row) {
    fill_out(st, rel, x, row, nullptr);
    ExecSimpleRelationInsert(x->rri, x->estate, x->out);
    CommandCounterIncrement();  // later reads in this statement see it
}

// Replaces `old` (as read) with `row`: locks it, then updates it through the executor.
// kChanged: read it again; kBusy (only without `wait`): another transaction holds it.
Locked update_row(const Store& st, Relation rel, Exec* x, const Row& old, const Row& row, bool wait) {
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
    return DatumGetTimestampTz(
        DirectFunctionCall2(timestamptz_pl_interval, TimestampTzGetDatum(t), IntervalPGetDatum(i)));
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

Name caller_name() {
    Name n = static_cast<Name>(palloc0(NAMEDATALEN));
    namestrcpy(n, GetUserNameFromId(GetUserId(), false));
    return n;
}

}  // namespace idgen::pg::idem
