// id_gen: SQL entry points of the idempotency-key store's requests: idempotency_begin(),
// idempotency_finish(), idempotency_recovery_point(). See idempotency_internal.h.
#include "pg/requests/idempotency_internal.h"

using namespace idgen::pg::idem;

namespace {

// pg_locks shows the key lock as locktype 'advisory' with this objsubid (SQL's advisory-lock
// functions use 1 and 2), objid and classid holding the hash.
constexpr uint16 kKeyLockClass = 18756;

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
    Datum values[6] = {CStringGetTextDatum(state),
                       replay ? own(kResponse) : (Datum)0,
                       BoolGetDatum(replay),
                       row.v[kAttempts],
                       own(kOriginal),
                       own(kPoint)};
    bool nulls[6] = {false, !replay || row.null[kResponse], false, false, row.null[kOriginal], row.null[kPoint]};
    tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
    return (Datum)0;
}

bool fingerprints_equal(const text* a, const text* b) {
    if (a == nullptr || b == nullptr) return a == b;
    return VARSIZE_ANY_EXHDR(a) == VARSIZE_ANY_EXHDR(b) &&
           std::memcmp(VARDATA_ANY(a), VARDATA_ANY(b), VARSIZE_ANY_EXHDR(a)) == 0;
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
        bool expected =
            rs != nullptr && IsA(rs, ReturnSetInfo) && rs->expectedDesc != nullptr && rs->expectedDesc->natts == 6;
        for (int i = 0; expected && i < 6; ++i)
            expected = TupleDescAttr(rs->expectedDesc, i)->atttypid == kResultTypes[i];
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
            ereport(ERROR,
                    (errcode(ERRCODE_INTEGRITY_CONSTRAINT_VIOLATION),
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
            ereport(ERROR,
                    (errcode(ERRCODE_LOCK_NOT_AVAILABLE),
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
                            holder != nullptr
                                ? psprintf("attempt \"%s\" holds it until %s.", shown(holder).text,
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
void update_in_flight(const text* scope, const text* key, const text* attempt_id, Jsonb* response, const text* point,
                      const char* action) {
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
            ereport(ERROR,
                    (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
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
