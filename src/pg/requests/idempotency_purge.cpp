// id_gen: SQL entry point idempotency_purge() of the idempotency-key store. See
// idempotency_internal.h.
#include "pg/requests/idempotency_internal.h"

using namespace idgen::pg::idem;

namespace {

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

}  // namespace

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
    if (PG_ARGISNULL(1))
        ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("batch_size must not be null")));
    const int32 batch = PG_GETARG_INT32(1);
    if (batch < 1)
        ereport(ERROR,
                (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("batch_size must be at least 1, not %d", batch)));
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
        pr.has_older_than == (older_than != nullptr) && pr.every_role == every_role &&
        std::strcmp(NameStr(pr.role), NameStr(*role)) == 0 &&
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
            pr.idle_sweep = nblocks == 0
                                ? 0
                                : static_cast<BlockNumber>(pg_prng_uint64_range(&pg_global_prng_state, 0, nblocks - 1));
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
