// id_gen: snowflake generator state in shared memory (preloaded) or in locked files (not preloaded),
// and the persisted high-water mark that survives restarts. See snowflake_state.h.
#include "snowflake_state.h"


#include <cerrno>
#include <cstdio>
#include <cstring>

#include "boundary.h"
#include "core/clock.h"
#include "core/trace_decimal.h"
#include "state_file.h"

extern "C" {
#include "access/xact.h"
#include "access/xlog.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "utils/guc.h"
#include "utils/timestamp.h"
}

namespace idgen::pg {

int g_node_id = -1;
int g_launch_id = -1;
int g_max_run_ahead_ms = 1000;
int g_test_clock_offset_ms = 0;
bool g_enable_test_clock = false;

namespace {

// How far ahead of use a new mark is persisted: 100 ms, more when fsync is slow (twice the last
// fsync's duration on top), at most kReserveAheadMaxMs: fewer fsyncs on a slow disk. (Correctness
// does not depend on it: the step retried after a reserve uses the clock read before it.)
constexpr std::int64_t kReserveAheadMaxMs = 250;
std::int64_t reserve_ahead_ms() noexcept {
    const std::int64_t v = kReserveAheadMs + 2 * state_last_fsync_ms();
    return v > kReserveAheadMaxMs ? kReserveAheadMaxMs : v;
}

// The furthest ahead of its clock any backend may have issued: the run-ahead allowance, the
// largest reserve, and one time unit. A state file created afresh (first use, deleted, replaced)
// and a record from another server (a promoted standby, a copied data directory) start there.
std::int64_t horizon_ms(const SnowflakeLayout& l) noexcept {
    return static_cast<std::int64_t>(g_max_run_ahead_ms) + kReserveAheadMaxMs + l.unit_ms;
}

char t_detail[200];

bool same_key(const StateKey& a, const StateKey& b) noexcept {
    return a.kind == b.kind && a.db == b.db && a.number == b.number && a.epoch_ms == b.epoch_ms;
}

// ---------------------------------------------------------------------------------------------
// Shared memory: the main segment when preloaded; on PostgreSQL 17 and later, without preloading,
// a segment of the dynamic shared memory registry (created by the first backend that needs it).
constexpr int kSlots = 4096;  // node layouts + (database, shard) pairs in use since startup

struct Slot {
    StateKey key;
    bool used;
    bool loaded;
    SnowflakeState st;
    std::int64_t reserved_ms;
};
// `mutex` (a spinlock) guards the slots: the fast path (find the slot, one pure step) holds only
// it. `lock` (an LWLock) serializes the rare file I/O: loading a slot's mark after startup and
// persisting a new mark. Nothing that can raise, and no system call, runs under the spinlock. The
// LWLock is taken only together with the key's file lock and never waited for (io_lock(),
// OuterLock in state_file.h): an LWLock holds off interrupts, so a wait for a file another process
// holds locked (0.1.0 code, a backup tool, a stuck fsync) under it would hold a cancel off for
// the whole 10 s bound, and every other key's I/O with it.
struct Shared {
    slock_t mutex;
    int tranche;      // the LWLock tranche of `own_lock` (DSM registry segments)
    LWLock own_lock;  // used in a DSM segment, which each backend may map at another address
    Slot slots[kSlots];
};
Shared* g_shared = nullptr;
LWLock* g_lock = nullptr;  // this backend's pointer to the segment's LWLock
bool g_shared_is_dsm = false;

std::uint32_t key_hash(const StateKey& k) noexcept {
    std::uint64_t h = 1469598103934665603ULL;
    auto mix = [&h](std::uint64_t v) {
        h ^= v;
        h *= 1099511628211ULL;
    };
    mix(k.kind);
    mix(k.db);
    mix(static_cast<std::uint32_t>(k.number));
    return static_cast<std::uint32_t>(h ^ (h >> 32));
}

// Finds or claims the slot of `k` (same kind/db/number; the epoch is checked by the caller).
Slot* find_slot(const StateKey& k) noexcept {
    std::uint32_t i = key_hash(k) % kSlots;
    for (int probes = 0; probes < kSlots; ++probes, i = (i + 1) % kSlots) {
        Slot& s = g_shared->slots[i];
        if (!s.used) {
            s.used = true;
            s.loaded = false;
            s.key = k;
            return &s;
        }
        if (s.key.kind == k.kind && s.key.db == k.db && s.key.number == k.number) return &s;
    }
    return nullptr;
}

// The test offset moves shared (and persisted) state for every backend, so it only counts on a
// server started for testing (id_gen.enable_test_clock), never from a session's SET alone.
std::int64_t clock_ms() noexcept { return unix_time_ms() + (g_enable_test_clock ? g_test_clock_offset_ms : 0); }

// What one attempt ended in. kNone is not an outcome: a loop that ends there reports an error, so
// "nothing happened" can never be read as an ID (0.1.0 turned it into the ID 0).
enum class Outcome { kNone, kIssued, kWait, kRetry, kError };

enum class Fast { kDone, kNeedLoad, kNeedReserve };

// The state a record stands for in this server run when its live state is not this run's. The mark
// is restated for the key's epoch; a record written by another server or timeline (a promoted
// standby, a copy of the data directory: its writer may have issued up to the horizon since) counts
// as at least the clock plus the horizon. Generation starts after the mark. While the mark is
// within the horizon of the clock (a new file, a restart, a failover) the clock is read as it is,
// so IDs stay within max_run_ahead of the clock (the first call may wait up to the reserve for
// that): the bound a server starting at another's horizon relies on. A mark beyond the horizon
// means the clock stepped back: then the generator behaves as a clock standing still at the mark.
// `mark` returns the mark it started from (at least the record's, restated).
SnowflakeState restored_state(const StateRecord& r, const StateKey& k, const SnowflakeLayout& l,
                              std::int64_t now_ms, std::int64_t& mark) noexcept {
    mark = snowflake_mark_for_epoch(r.reserved_ms, r.epoch_ms, k.epoch_ms);
    std::int64_t h = INT64_MAX;
    (void)__builtin_add_overflow(now_ms, horizon_ms(l), &h);
    if ((r.sysid != current_sysid() || r.timeline != current_timeline()) && h > mark) mark = h;
    SnowflakeState st{};
    if (mark <= h) snowflake_state_restore_at_horizon(st, l, mark, now_ms);
    else snowflake_state_restore(st, l, mark);
    return st;
}

// The fast path, under the spinlock: pure computation on the slot. kNeedLoad / kNeedReserve ask
// the caller to do file I/O (under the LWLock, without the spinlock) and retry.
Fast attempt_shared_fast(const StateKey& k, const SnowflakeLayout& l, std::uint32_t node, std::int64_t now_ms,
                         Outcome& out, Step& result, std::int64_t& reserve_ms, StateError& err) noexcept {
    Slot* s = find_slot(k);
    if (s == nullptr) {
        err.code = Error::kCapacityExceeded;
        err.detail = "all 4096 shared-memory generator slots are in use (each node layout and each (database, shard) "
                     "used since the server started takes one); restart the server to free them";
        out = Outcome::kError;
        return Fast::kDone;
    }
    if (!s->loaded || !same_key(s->key, k)) return Fast::kNeedLoad;
    auto step = snowflake_step(s->st, l, node, now_ms, g_max_run_ahead_ms, s->reserved_ms);
    if (!step) {
        err.code = step.error();
        out = Outcome::kError;
        return Fast::kDone;
    }
    switch (step->kind) {
        case StepKind::kIssued:
            result = *step;
            out = Outcome::kIssued;
            return Fast::kDone;
        case StepKind::kWait:
            result = *step;
            out = Outcome::kWait;
            return Fast::kDone;
        case StepKind::kReserve:
            break;
    }
    reserve_ms = step->ms + reserve_ahead_ms();
    return Fast::kNeedReserve;
}

// The slow path, under the LWLock `io` and the key's file lock, taken together (so only one
// backend does file I/O for the slots at a time); takes the spinlock only around reads and writes
// of the slot. Raises only while waiting for the locks (interrupts), with neither held. On return
// `io` is held when io.held says so: the caller releases it.
bool shared_io(const StateKey& k, const SnowflakeLayout& l, Fast need, std::int64_t reserve_ms, OuterLock& io,
               StateError& err) {
    const std::int64_t now_ms = clock_ms();
    LockedState f;
    if (!state_open_locked(k, now_ms, horizon_ms(l), f, err, &io)) return false;
    bool ok = true;
    if (need == Fast::kNeedLoad) {
        SpinLockAcquire(&g_shared->mutex);
        Slot* s = find_slot(k);
        const bool still = s != nullptr && (!s->loaded || !same_key(s->key, k));
        SpinLockRelease(&g_shared->mutex);
        if (still) {
            // First use since startup (or the shard was re-created with another epoch): start after
            // the persisted high-water mark. The first ID is above it, so it needs a new mark, which
            // is written and fsync'd before it is issued: nothing is issued on a mark this run has
            // not seen synced.
            std::int64_t mark = 0;
            const SnowflakeState st = restored_state(f.rec, k, l, now_ms, mark);
            SpinLockAcquire(&g_shared->mutex);
            s->key = k;
            s->st = st;
            // The mark on disk (restated for this epoch); the first reserve writes above it.
            s->reserved_ms = snowflake_mark_for_epoch(f.rec.reserved_ms, f.rec.epoch_ms, k.epoch_ms);
            s->loaded = true;
            SpinLockRelease(&g_shared->mutex);
        }
    } else {
        // reserve_ms was computed under the spinlock before this backend got the LWLock; another
        // backend may have persisted a larger mark since and issued IDs up to it. Every write of a
        // slot's mark happens under the LWLock and is copied into the slot right after, so the
        // slot's mark read now is the one on disk: write only if ours is larger (never move back).
        SpinLockAcquire(&g_shared->mutex);
        Slot* s = find_slot(k);
        const bool live = s != nullptr && s->loaded && same_key(s->key, k);
        const std::int64_t persisted = live ? s->reserved_ms : INT64_MIN;
        SpinLockRelease(&g_shared->mutex);
        // Not live: the slot was reloaded for another epoch meanwhile; the retry reloads it.
        std::int64_t mark = snowflake_mark_to_persist(persisted, reserve_ms);
        // The file may hold a larger mark (carried over from a replaced file): never write less.
        if (f.rec.epoch_ms == k.epoch_ms) mark = snowflake_mark_to_persist(f.rec.reserved_ms, mark);
        if (live && mark != persisted) {
            // Persist the new mark first; only then may IDs up to it be issued.
            StateRecord r{};
            r.epoch_ms = k.epoch_ms;
            r.reserved_ms = mark;
            ok = state_write(f, r, true, err);
            // Trust it only if the file is still the one its path names.
            if (ok && state_still_current(f)) {
                SpinLockAcquire(&g_shared->mutex);
                s = find_slot(k);
                if (s != nullptr && same_key(s->key, k) && s->reserved_ms < mark) s->reserved_ms = mark;
                SpinLockRelease(&g_shared->mutex);
            }
        }
    }
    state_unlock(f);
    return ok;
}

// One attempt against the state file, under its lock: takes a lease of up to `want` IDs. Raises
// only while waiting for the lock.
Outcome attempt_file(const StateKey& k, const SnowflakeLayout& l, std::uint32_t node, std::uint32_t want,
                     std::int64_t now_ms, Step& result, StateError& err) {
    LockedState f;
    if (!state_open_locked(k, now_ms, horizon_ms(l), f, err)) return Outcome::kError;
    // Locked from here: nothing raises.
    StateRecord r = f.rec;
    SnowflakeState st{};
    if (r.boot == static_cast<std::int64_t>(PgStartTime) && r.epoch_ms == k.epoch_ms && r.sysid == current_sysid() &&
        r.timeline == current_timeline()) {
        st.last_time = r.last_time;
        st.last_seq = r.last_seq;
        st.high_clock = r.high_clock;
    } else {
        // Written by an earlier server run, another server, or for another epoch: only the mark
        // counts (see restored_state). The first ID is above it, so a new mark is fsync'd first.
        std::int64_t mark = 0;
        st = restored_state(r, k, l, now_ms, mark);
        const bool moved = mark != r.reserved_ms || r.epoch_ms != k.epoch_ms;
        r.reserved_ms = mark;
        r.epoch_ms = k.epoch_ms;
        r.boot = 0;
        // A horizon (another server's record) is fixed now, in this server's name: otherwise every
        // attempt until the first ID would compute it again from a later clock, and never reach it.
        if (moved && !state_write(f, r, true, err)) {
            state_unlock(f);
            return Outcome::kError;
        }
    }
    Outcome out = Outcome::kNone;
    // Every round uses the clock as read before the first: after a reserve (write and fsync, however
    // slow) the retried step asks for the same time unit, which the new mark covers, so the second
    // round issues or waits. (0.1.0 read the clock again; a slow fsync let it pass the new mark, and
    // the loop ended with no outcome, which became the ID 0.) The bound is a safeguard.
    for (int round = 0; round < 4 && out == Outcome::kNone; ++round) {
        auto step = snowflake_step(st, l, node, now_ms, g_max_run_ahead_ms, r.reserved_ms, want);
        if (!step) {
            err.code = step.error();
            out = Outcome::kError;
        } else if (step->kind == StepKind::kWait) {
            result = *step;
            out = Outcome::kWait;
        } else if (step->kind == StepKind::kReserve) {
            // Under the lock, r is what is on disk: the mark only moves forward.
            r.reserved_ms = snowflake_mark_to_persist(r.reserved_ms, step->ms + reserve_ahead_ms());
            r.boot = 0;  // the live state below is not written yet
            if (!state_write(f, r, true, err)) out = Outcome::kError;
        } else {
            r.boot = static_cast<std::int64_t>(PgStartTime);
            r.epoch_ms = k.epoch_ms;
            r.last_time = st.last_time;
            r.last_seq = st.last_seq;
            r.high_clock = st.high_clock;
            if (!state_write(f, r, false, err)) {
                out = Outcome::kError;
            } else {
                result = *step;
                out = Outcome::kIssued;
            }
        }
    }
    if (out == Outcome::kNone) {
        err.code = Error::kStateIoError;
        snprintf(t_detail, sizeof t_detail,
                 "no ID after reserving ahead of the clock (last fsync of \"%s\" took %lld ms)",
                 f.path, static_cast<long long>(state_last_fsync_ms()));
        err.detail = t_detail;
        out = Outcome::kError;
    }
    // What was done under the lock only counts if the file is still the one its path names (it may
    // have been deleted or replaced meanwhile): otherwise drop the lease and redo it on the new file,
    // which starts above this one's mark.
    const bool current = state_still_current(f);
    state_unlock(f);
    if (!current) {
        state_forget(k);
        if (out == Outcome::kIssued || out == Outcome::kWait) out = Outcome::kRetry;
    }
    return out;
}

// The LWLock that serializes the slots' file I/O, as the OuterLock of a key's file lock. Another
// backend may hold it through a slow fsync, and an LWLock wait cannot be interrupted
// (LWLockAcquire holds interrupts): so it is only ever tried, together with the file lock, and the
// wait between tries (wait_for_lock) sleeps on the latch with neither held, which lets
// pg_cancel_backend(), statement_timeout and lock_timeout end it; bounded (kStateLockTimeout).
// What holds: no backend waits for anything, file or LWLock, while it holds the LWLock.
bool try_io_lock() noexcept { return LWLockConditionalAcquire(g_lock, LW_EXCLUSIVE); }
void release_io_lock() noexcept { LWLockRelease(g_lock); }
OuterLock io_lock() noexcept { return OuterLock{try_io_lock, release_io_lock, false}; }
void release_if_held(OuterLock& io) noexcept {
    if (io.held) io.release();
    io.held = false;
}

// Per-backend leases (without preloading): a block of one time unit's sequence numbers taken from
// the shared state under the file lock, then issued here without touching the file. The size
// doubles while leases are used up within their unit, and halves when one goes stale unused, up
// to an eighth of the unit's capacity (so 8 busy backends share a unit without running ahead).
struct BackendLease {
    StateKey key;
    SnowflakeLease lease;
    std::uint32_t want;
};
constexpr int kMaxLeases = 16;
BackendLease g_leases[kMaxLeases];
int g_lease_count = 0;
int g_lease_pid = -1;

BackendLease& lease_for(const StateKey& k) noexcept {
    if (g_lease_pid != MyProcPid) {
        g_lease_count = 0;
        g_lease_pid = MyProcPid;
    }
    for (int i = 0; i < g_lease_count; ++i)
        if (same_key(g_leases[i].key, k)) return g_leases[i];
    if (g_lease_count == kMaxLeases) g_lease_count = 0;  // forget all: unused leases are only skipped IDs
    g_leases[g_lease_count] = BackendLease{k, SnowflakeLease{}, 1};
    return g_leases[g_lease_count++];
}

std::uint32_t lease_cap(const SnowflakeLayout& l) noexcept {
    const std::uint32_t c = (l.seq_max() + 1) / 8;
    return c < 1 ? 1 : c;
}

shmem_request_hook_type prev_shmem_request_hook = nullptr;
shmem_startup_hook_type prev_shmem_startup_hook = nullptr;

void request_hook() {
    if (prev_shmem_request_hook) prev_shmem_request_hook();
    snowflake_request_shmem();
}

void startup_hook() {
    if (prev_shmem_startup_hook) prev_shmem_startup_hook();
    snowflake_attach_shmem();
}

}  // namespace

void snowflake_define_settings() {
    DefineCustomIntVariable("id_gen.node_id",
                            "Node number of this server for gen_snowflake() (-1: unset).",
                            "Unique per server among all servers issuing snowflakes into the same ID space; "
                            "a standby shares its primary's number and refuses to generate.",
                            &g_node_id, -1, -1, 65535, PGC_SIGHUP, 0, nullptr, nullptr, nullptr);
    DefineCustomIntVariable("id_gen.launch_id",
                            "Launch number of this server for gen_decimal_id() (-1: unset).",
                            "1 to 99999, unique per server among all servers issuing DecimalIds into the same "
                            "ID space; 0 only on test servers (id_gen.enable_test_clock = on).",
                            &g_launch_id, -1, -1, 99999, PGC_SIGHUP, 0, nullptr, nullptr, nullptr);
    DefineCustomIntVariable("id_gen.max_run_ahead",
                            "How far a snowflake's time may run ahead of the clock when a time unit's "
                            "sequence numbers are used up.",
                            "Beyond it the generator waits for the clock (at most 1 s per call).",
                            &g_max_run_ahead_ms, 1000, 0, 60000, PGC_SIGHUP, GUC_UNIT_MS, nullptr, nullptr, nullptr);
    // PGC_POSTMASTER can only be defined while preloading (later is FATAL); without preloading the
    // closest server-level context is SIGHUP (postgresql.conf / ALTER SYSTEM + reload).
    DefineCustomBoolVariable("id_gen.enable_test_clock",
                             "Testing only: lets id_gen.test_clock_offset shift the generators' clock.",
                             "Off in production: the offset moves the shared, persisted high-water mark of "
                             "every generator. Set it in postgresql.conf of test clusters only.",
                             &g_enable_test_clock, false,
                             process_shared_preload_libraries_in_progress ? PGC_POSTMASTER : PGC_SIGHUP,
                             GUC_NOT_IN_SAMPLE, nullptr, nullptr, nullptr);
    DefineCustomIntVariable("id_gen.test_clock_offset",
                            "Testing only: shifts the clock the snowflake generators read.",
                            "No effect unless the server runs with id_gen.enable_test_clock = on.",
                            &g_test_clock_offset_ms, 0, -86400000, 86400000, PGC_SUSET,
                            GUC_UNIT_MS | GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE, nullptr, nullptr, nullptr);
    MarkGUCPrefixReserved("id_gen");
    if (process_shared_preload_libraries_in_progress) {
        prev_shmem_request_hook = shmem_request_hook;
        shmem_request_hook = request_hook;
        prev_shmem_startup_hook = shmem_startup_hook;
        shmem_startup_hook = startup_hook;
    }
}

void snowflake_request_shmem() {
    RequestAddinShmemSpace(sizeof(Shared));
    RequestNamedLWLockTranche("id_gen", 1);
}

void snowflake_attach_shmem() {
    bool found = false;
    LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
    auto* sh = static_cast<Shared*>(ShmemInitStruct("id_gen snowflake state", sizeof(Shared), &found));
    if (!found) {
        std::memset(static_cast<void*>(sh), 0, sizeof(Shared));
        SpinLockInit(&sh->mutex);
    }
    LWLockRelease(AddinShmemInitLock);
    g_lock = &(GetNamedLWLockTranche("id_gen"))->lock;
    g_shared = sh;
}

#if IDGEN_HAVE_DSM_REGISTRY
namespace {
void init_dsm_state(void* ptr) {
    auto* sh = static_cast<Shared*>(ptr);
    std::memset(ptr, 0, sizeof(Shared));
    SpinLockInit(&sh->mutex);
    sh->tranche = LWLockNewTrancheId();
    LWLockInitialize(&sh->own_lock, sh->tranche);
}
}  // namespace
#endif

// Without preloading, on 17+: attach the DSM registry segment (created on first use). May raise
// (out of memory): called before any lock is taken.
static void attach_dsm_if_available() {
#if IDGEN_HAVE_DSM_REGISTRY
    if (g_shared != nullptr) return;
    bool found = false;
    auto* sh = static_cast<Shared*>(GetNamedDSMSegment("id_gen snowflake state", sizeof(Shared), init_dsm_state, &found));
    LWLockRegisterTranche(sh->tranche, "id_gen");
    g_lock = &sh->own_lock;
    g_shared_is_dsm = true;
    g_shared = sh;
#endif
}

const char* snowflake_state_storage_name() {
    if (g_shared != nullptr && g_shared_is_dsm) return "dsm registry";
    if (g_shared != nullptr) return "shared memory";
    attach_dsm_if_available();
    return g_shared != nullptr ? "dsm registry" : "files";
}

void require_writable(const char* what) {
    if (RecoveryInProgress())
        ereport(ERROR, (errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
                        errmsg("cannot call %s during recovery", what),
                        errhint("A standby shares its primary's node and shard numbers: IDs issued here could "
                                "also be issued by the primary. Generate IDs on the primary.")));
    if (XactReadOnly)
        ereport(ERROR, (errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
                        errmsg("cannot call %s in a read-only transaction", what),
                        errhint("Generators write shared state; call it in a read-write transaction on the primary.")));
}

Result<std::int64_t> snowflake_issue(const StateKey& key, const SnowflakeLayout& layout, std::uint32_t node,
                                     const char*& detail) {
    detail = "";
    attach_dsm_if_available();
    BackendLease* bl = g_shared == nullptr ? &lease_for(key) : nullptr;
    // One clock reading until the call has to wait for the clock: a step retried after a reserve
    // (however slow its fsync) then asks for the unit the new mark covers.
    std::int64_t now_ms = clock_ms();
    for (int spins = 0;; ++spins) {
        Step step{};
        StateError err;
        Outcome out = Outcome::kNone;
        std::int64_t id = 0;
        if (g_shared != nullptr) {
            std::int64_t reserve_ms = 0;
            SpinLockAcquire(&g_shared->mutex);
            const Fast f = attempt_shared_fast(key, layout, node, now_ms, out, step, reserve_ms, err);
            SpinLockRelease(&g_shared->mutex);
            if (f != Fast::kDone) {
                OuterLock io = io_lock();
                const bool ok = shared_io(key, layout, f, reserve_ms, io, err);
                release_if_held(io);
                out = ok ? Outcome::kRetry : Outcome::kError;  // retry the fast path
            }
            if (out == Outcome::kIssued) id = step.id;
        } else {
            const std::uint32_t had = bl->lease.left;
            id = snowflake_lease_next(bl->lease, layout, now_ms);
            if (id == 0) {
                // Used up within its unit: ask for more next time; gone stale unused: ask for less.
                if (had == 0 && bl->lease.size == bl->want && bl->want < lease_cap(layout)) bl->want *= 2;
                else if (had > 0 && bl->want > 1) bl->want /= 2;
                out = attempt_file(key, layout, node, bl->want, now_ms, step, err);
                if (out == Outcome::kIssued) {
                    snowflake_lease_start(bl->lease, layout, step, now_ms);
                    id = snowflake_lease_next(bl->lease, layout, now_ms);
                }
            } else {
                out = Outcome::kIssued;
            }
        }
        switch (out) {
            case Outcome::kIssued:
                // The boundary's invariant: an ID is >= 1 (0 is never an ID, whatever went wrong).
                if (id >= 1) return id;
                detail = "a generator step issued no ID";
                return Error::kNoOutcome;
            case Outcome::kError:
                detail = err.detail;
                return err.code;
            case Outcome::kNone:
                detail = "a generator attempt ended without an outcome";
                return Error::kNoOutcome;
            case Outcome::kRetry:
                if (spins > 1000) {
                    detail = "the generator state kept changing under this backend";
                    return Error::kNoOutcome;
                }
                CHECK_FOR_INTERRUPTS();
                continue;
            case Outcome::kWait:
                break;
        }
        // The sequence is used up to the run-ahead limit: wait for the clock, a bounded time. A
        // state that started at the horizon (a new state file, a promoted standby) is up to the
        // horizon ahead of the clock by design: waiting that out is normal, not a clock problem.
        const std::int64_t wait_ms = step.ms - clock_ms();
        if (wait_ms > kMaxWaitMs + horizon_ms(layout)) {
            snprintf(t_detail, sizeof t_detail,
                     "IDs up to %lld ms ahead of the clock are used up (id_gen.max_run_ahead = %d ms, and "
                     "the clock is behind the IDs already issued)",
                     static_cast<long long>(wait_ms), g_max_run_ahead_ms);
            detail = t_detail;
            return Error::kCapacityExceeded;
        }
        if (wait_ms > 0) pg_usleep(static_cast<long>(wait_ms) * 1000L);
        else pg_usleep(100L);
        CHECK_FOR_INTERRUPTS();
        now_ms = clock_ms();
    }
}

void require_mark_within_reach(std::int64_t mark_ms, const char* id_text, const char* what) {
    const std::int64_t now_ms = clock_ms();
    if (mark_ms > now_ms && mark_ms - now_ms > kMaxRaiseAheadMs)
        ereport(ERROR,
                (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
                 errmsg("ID %s is %lld s ahead of the clock, more than a day", id_text,
                        static_cast<long long>((mark_ms - now_ms) / 1000)),
                 errdetail("Past the raised mark, %s would issue at most id_gen.max_run_ahead worth of IDs and then "
                           "refuse until the clock reaches it.",
                           what),
                 errhint("Check the ID and the clocks. IDs of a server whose clock was that far ahead cannot be "
                         "continued here: give this server another id_gen.node_id (shards: other shard numbers).")));
}

namespace {

// Under the key's file lock: raises the record's mark to `want` unless it already covers it.
// `mark` is the mark in force afterwards; `raised` says whether it moved (then the live state,
// wherever it is kept, must restart from it). A record written by another server or timeline (a
// pg_idgen/ copied from an old cluster) stands for at least the clock plus the horizon, as in
// restored_state(). Raises only while waiting for the lock. With `outer` (the LWLock, preloaded),
// it is taken with the file lock and still held on a true return (see OuterLock).
bool raise_in_file(const StateKey& k, const SnowflakeLayout& l, std::int64_t want, std::int64_t now_ms,
                   std::int64_t& mark, bool& raised, StateError& err, OuterLock* outer = nullptr) {
    for (int attempt = 0; attempt < 4; ++attempt) {
        LockedState f;
        if (!state_open_locked(k, now_ms, horizon_ms(l), f, err, outer)) return false;
        // Locked from here: nothing raises.
        StateRecord r = f.rec;
        std::int64_t have = snowflake_mark_for_epoch(r.reserved_ms, r.epoch_ms, k.epoch_ms);
        if (r.sysid != current_sysid() || r.timeline != current_timeline()) {
            std::int64_t h = INT64_MAX;
            (void)__builtin_add_overflow(now_ms, horizon_ms(l), &h);
            if (h > have) have = h;
        }
        raised = want > have;
        mark = raised ? want : have;
        bool ok = true;
        if (raised) {
            // Only the mark counts from now on (boot = 0): every backend restarts from it.
            r.reserved_ms = want;
            r.epoch_ms = k.epoch_ms;
            r.boot = 0;
            ok = state_write(f, r, true, err);
        }
        const bool current = state_still_current(f);
        state_unlock(f);
        if (!ok) return false;
        if (current) return true;
        // The file was replaced meanwhile: raise the one its path names now.
        state_forget(k);
    }
    err.code = Error::kStateIoError;
    err.detail = "the generator state file kept being replaced while its mark was raised";
    return false;
}

}  // namespace

Result<std::int64_t> snowflake_raise_mark(const StateKey& key, const SnowflakeLayout& layout, std::int64_t mark_ms,
                                          const char*& detail) {
    detail = "";
    attach_dsm_if_available();
    StateError err;
    std::int64_t mark = 0;
    bool raised = false;
    const std::int64_t now_ms = clock_ms();
    if (g_shared != nullptr) {
        // Under the LWLock that serializes the slots' file I/O (taken with the file lock): no
        // backend loads or extends this key's slot while its file changes. A raised mark unloads
        // the slot, so the next call reloads it from the file, as the first call after a restart
        // does.
        OuterLock io = io_lock();
        const bool ok = raise_in_file(key, layout, mark_ms, now_ms, mark, raised, err, &io);
        if (ok && raised) {
            SpinLockAcquire(&g_shared->mutex);
            Slot* s = find_slot(key);
            if (s != nullptr) s->loaded = false;
            SpinLockRelease(&g_shared->mutex);
        }
        release_if_held(io);
        if (!ok) {
            detail = err.detail;
            return err.code;
        }
        return mark;
    }
    if (!raise_in_file(key, layout, mark_ms, now_ms, mark, raised, err)) {
        detail = err.detail;
        return err.code;
    }
    if (raised) {
        // Other backends may hold leases taken before the raise, of the clock's current unit; a
        // lease serves only while the clock stays in the unit it was taken in. Once the clock has
        // left this unit, every such lease is stale, so no ID below the mark follows this call.
        const auto unit_of = [&layout](std::int64_t ms) {
            return ms >= layout.epoch_ms ? (ms - layout.epoch_ms) / layout.unit_ms : -1;
        };
        const std::int64_t unit = unit_of(clock_ms());
        for (int i = 0; i < 1000 && unit_of(clock_ms()) <= unit; ++i) {
            pg_usleep(500L);
            CHECK_FOR_INTERRUPTS();
        }
    }
    return mark;
}

// ---------------------------------------------------------------------------------------------
// DecimalIds (see snowflake_state.h). The launch's record: reserved_ms = the largest generator
// number ever handed out (-1: none; fsync'd before use); boot, last_time, last_seq = the live
// generator and its last leased counter, trusted only within the server run that wrote them
// (state files without shared memory).

namespace {

char t_decimal_detail[200];

// The launch's record was written by this server on this timeline (or holds no generator yet).
bool decimal_record_ours(const StateRecord& r) noexcept {
    return r.reserved_ms < 0 || (r.sysid == current_sysid() && r.timeline == current_timeline());
}

// Under the key's file lock: the next generator number, persisted (written and fsync'd) into `r`
// and the file before it is returned. False with err set, or with `refusal` set (err.code =
// kCapacityExceeded).
bool decimal_take_generator(LockedState& f, StateRecord& r, std::uint32_t launch, std::int64_t& gen,
                            DecimalRefusal& refusal, StateError& err) noexcept {
    auto next = decimal_next_generator(r.reserved_ms);
    if (!next) {
        refusal = DecimalRefusal::kGeneratorsUsedUp;
        err.code = Error::kCapacityExceeded;
        snprintf(t_decimal_detail, sizeof t_decimal_detail,
                 "all 100000 generator numbers of launch %u are used up", launch);
        err.detail = t_decimal_detail;
        return false;
    }
    r.reserved_ms = *next;
    r.boot = 0;  // the live state below is not this record's until it is written
    r.last_time = *next;
    r.last_seq = 0;
    if (!state_write(f, r, true, err)) return false;
    gen = *next;
    return true;
}

bool decimal_refuse_foreign(DecimalRefusal& refusal, StateError& err, const char* path) noexcept {
    refusal = DecimalRefusal::kForeignRecord;
    err.code = Error::kCapacityExceeded;
    snprintf(t_decimal_detail, sizeof t_decimal_detail,
             "the generator counter in \"%s\" was written by another server or timeline", path);
    err.detail = t_decimal_detail;
    return false;
}

// Shared memory: under the LWLock `io` and the key's file lock (taken together, see OuterLock),
// give the slot of `k` a new generator unless another backend already did (the slot is usable
// again). Raises only while waiting for the locks, with neither held. On return `io` is held when
// io.held says so: the caller releases it.
bool decimal_shared_refill(const StateKey& k, std::uint32_t launch, DecimalRefusal& refusal, OuterLock& io,
                           StateError& err) {
    for (int attempt = 0; attempt < 4; ++attempt) {
        LockedState f;
        if (!state_open_locked(k, -1, 0, f, err, &io)) return false;
        // Locked from here: nothing raises.
        SpinLockAcquire(&g_shared->mutex);
        Slot* s = find_slot(k);
        const bool usable = s != nullptr && s->loaded && same_key(s->key, k) && s->st.last_time >= 0 &&
                            s->st.last_seq < kDecimalCounterMax;
        SpinLockRelease(&g_shared->mutex);
        if (usable) {
            state_unlock(f);
            return true;
        }
        StateRecord r = f.rec;
        std::int64_t gen = -1;
        bool ok = decimal_record_ours(r) ? decimal_take_generator(f, r, launch, gen, refusal, err)
                                         : decimal_refuse_foreign(refusal, err, f.path);
        const bool current = state_still_current(f);
        state_unlock(f);
        if (!ok) return false;
        if (!current) {
            state_forget(k);  // the file was replaced meanwhile: take the number from the new one
            continue;
        }
        SpinLockAcquire(&g_shared->mutex);
        s = find_slot(k);
        if (s != nullptr) {
            s->key = k;
            s->loaded = true;
            s->st.last_time = gen;
            s->st.last_seq = 0;
            s->st.high_clock = -1;
            s->reserved_ms = gen;
        }
        SpinLockRelease(&g_shared->mutex);
        return true;
    }
    err.code = Error::kStateIoError;
    err.detail = "the DecimalId generator state file kept being replaced";
    return false;
}

// Without shared memory: a backend's lease of counters of the server run's generator.
struct DecimalLease {
    int pid = -1;
    std::uint32_t launch = 0;
    std::int64_t generator = -1;
    std::int64_t next = 0;
    std::int64_t left = 0;
    std::int64_t want = 1;
};
DecimalLease g_decimal_lease;
constexpr std::int64_t kDecimalLeaseCap = 1024;

// Under the key's file lock: leases up to `want` counters of this server run's generator, taking a
// new generator first when the run has none yet or its counter is used up. Raises only while
// waiting for the lock.
bool decimal_file_lease(const StateKey& k, std::uint32_t launch, std::int64_t want, DecimalStep& out,
                        DecimalRefusal& refusal, StateError& err) {
    for (int attempt = 0; attempt < 4; ++attempt) {
        LockedState f;
        if (!state_open_locked(k, -1, 0, f, err)) return false;
        // Locked from here: nothing raises.
        StateRecord r = f.rec;
        bool ok = decimal_record_ours(r);
        if (!ok) decimal_refuse_foreign(refusal, err, f.path);
        DecimalState st{};
        if (ok && r.boot == static_cast<std::int64_t>(PgStartTime)) st = DecimalState{r.last_time, r.last_seq};
        DecimalStep step = decimal_step(st, want);
        if (ok && step.kind == DecimalStepKind::kNeedGenerator) {
            std::int64_t gen = -1;
            ok = decimal_take_generator(f, r, launch, gen, refusal, err);
            st = DecimalState{gen, 0};
            step = decimal_step(st, want);
        }
        if (ok && step.kind == DecimalStepKind::kIssued) {
            // Recorded before any of them is issued (no fsync: a crash ends the server run, and the
            // next run takes a new generator number).
            r.boot = static_cast<std::int64_t>(PgStartTime);
            r.last_time = st.generator;
            r.last_seq = st.counter;
            ok = state_write(f, r, false, err);
        } else if (ok) {
            ok = false;
            err.code = Error::kNoOutcome;
            err.detail = "a DecimalId step with a new generator issued nothing";
        }
        const bool current = state_still_current(f);
        state_unlock(f);
        if (!ok) return false;
        if (!current) {
            state_forget(k);
            continue;
        }
        out = step;
        return true;
    }
    err.code = Error::kStateIoError;
    err.detail = "the DecimalId generator state file kept being replaced";
    return false;
}

}  // namespace

Result<std::int64_t> decimal_issue(std::uint32_t launch, const char*& detail, DecimalRefusal& refusal) {
    detail = "";
    refusal = DecimalRefusal::kNone;
    attach_dsm_if_available();
    const StateKey key{kDecimalStateKind, 0, static_cast<std::int32_t>(launch), 0};
    StateError err;
    if (g_shared != nullptr) {
        for (int spins = 0; spins < 1000; ++spins) {
            bool need = false, full = false;
            DecimalStep step{};
            SpinLockAcquire(&g_shared->mutex);
            Slot* s = find_slot(key);
            if (s == nullptr) {
                full = true;
            } else if (!s->loaded || !same_key(s->key, key)) {
                need = true;
            } else {
                DecimalState st{s->st.last_time, s->st.last_seq};
                step = decimal_step(st, 1);
                if (step.kind == DecimalStepKind::kIssued) s->st.last_seq = st.counter;
                else need = true;
            }
            SpinLockRelease(&g_shared->mutex);
            if (full) {
                detail = "all 4096 shared-memory generator slots are in use; restart the server to free them";
                return Error::kCapacityExceeded;
            }
            if (!need) {
                auto id = decimal_pack(step.first, step.generator, launch);
                if (!id) {
                    detail = "a DecimalId field out of range";
                    return Error::kNoOutcome;
                }
                return *id;
            }
            OuterLock io = io_lock();
            const bool ok = decimal_shared_refill(key, launch, refusal, io, err);
            release_if_held(io);
            if (!ok) {
                detail = err.detail;
                return err.code;
            }
            CHECK_FOR_INTERRUPTS();
        }
        detail = "the DecimalId generator state kept changing under this backend";
        return Error::kNoOutcome;
    }
    DecimalLease& l = g_decimal_lease;
    if (l.pid != MyProcPid || l.launch != launch) l = DecimalLease{MyProcPid, launch, -1, 0, 0, 1};
    if (l.left == 0) {
        DecimalStep step{};
        if (!decimal_file_lease(key, launch, l.want, step, refusal, err)) {
            detail = err.detail;
            return err.code;
        }
        l.generator = step.generator;
        l.next = step.first;
        l.left = step.count;
        if (l.want < kDecimalLeaseCap) l.want *= 2;
    }
    auto id = decimal_pack(l.next, l.generator, launch);
    if (!id) {
        detail = "a DecimalId field out of range";
        return Error::kNoOutcome;
    }
    ++l.next;
    --l.left;
    return *id;
}

}  // namespace idgen::pg
