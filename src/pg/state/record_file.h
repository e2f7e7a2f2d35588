// id_gen: the persisted state of a snowflake generator, one file per key under
// $PGDATA/pg_idgen/v2/ (format: src/core/state/state_record.h).
//
// Every function here is noexcept and raises nothing while a file lock is held. The exceptions to
// "raises nothing" come before the lock: opening a file outside the descriptor cache (PostgreSQL's
// descriptor accounting may refuse), and the wait for a lock: it polls (flock LOCK_NB) and sleeps on
// the latch with CHECK_FOR_INTERRUPTS(), so pg_cancel_backend(), statement_timeout and lock_timeout
// end it; that happens with no lock held (no file lock, no LWLock: see OuterLock) and no live C++
// object. The wait is bounded (lock_timeout when set, otherwise 10 s): then kStateLockTimeout.
//
// Descriptors. A backend keeps up to 16 state files open (a cache, counted with PostgreSQL through
// AcquireExternalFD / ReleaseExternalFD). Any other state file is opened with OpenTransientFile, so
// an error anywhere before state_unlock() (a cancelled lock wait) cannot strand it: PostgreSQL
// closes it at transaction or subtransaction abort, which also drops its flock.
//
// A file is trusted only while it is the file its path names: after taking the lock, and again
// before releasing it, the open descriptor's inode is compared with the path's. A file deleted or
// replaced under running backends is noticed and its state carried into the new one
// (state_open_locked); a file created afresh starts its mark at the clock plus `horizon_ms`, the
// furthest any backend may still be issuing from (run-ahead plus the reserve).
#pragma once

#include <cstdint>

#include "core/base/result.h"
#include "core/state/state_record.h"
#include "pg/state/store.h"

namespace idgen::pg {

struct LockedState {
    int fd = -1;
    bool cached = false;  // fd stays open in the per-backend cache; otherwise it is a transient file
    StateRecord rec;      // as read under the lock
    char path[64];        // relative to $PGDATA
    std::uint64_t ino = 0, dev = 0;
};

// Takes a lock by polling `attempt` (which must not block or raise): spins briefly, then sleeps
// 1 ms on the latch between tries with nothing held, so CHECK_FOR_INTERRUPTS() ends the wait on
// pg_cancel_backend() or statement_timeout (it may raise; only trivially destructible locals may be
// live in the callers). Gives up after lock_timeout when set, otherwise 10 s: kStateLockTimeout,
// the message naming `what`. kError from `attempt` (errno set) is kStateIoError.
enum class TryLock { kAcquired, kBusy, kError };
[[nodiscard]] bool wait_for_lock(TryLock (*attempt)(void*), void* arg, const char* what, StateError& err);

// A lock taken together with a state file's lock, always before it: with shared memory, the LWLock
// that serializes the slots' file I/O. An LWLock holds off interrupts (and LWLockAcquire cannot be
// cancelled), so it is never held while waiting: each try takes it without waiting, then tries the
// file lock without waiting, and releases it again when the file is busy; the sleep between tries
// holds neither, so a cancel is honoured within a millisecond, and other keys' I/O is not held up
// by one locked file. Nothing is done under it before the file lock is held, so letting go of it
// between tries changes nothing. `held` says whether this backend holds it now.
struct OuterLock {
    bool (*try_acquire)() = nullptr;  // takes it if free; never blocks or raises
    void (*release)() = nullptr;
    bool held = false;
};

// Opens, locks and reads the state of `key`: creates it when missing (importing and retiring
// 0.1.0's record of the same key), follows a replaced or deleted file (carrying the larger mark
// over), refuses a damaged one (kStateDamaged naming the file). `now_ms` and `horizon_ms` give the
// starting mark of a new file. With `outer`, that lock is taken too (see OuterLock): on true both
// are held (the caller releases `outer` after state_unlock); on false neither is. On false, nothing
// is locked. May raise only before a file lock is held: while waiting for a lock (then `outer` is
// not held either), or opening a file outside the cache (an error then releases `outer`, as every
// LWLock, at abort).
[[nodiscard]] bool state_open_locked(const StateKey& key, std::int64_t now_ms, std::int64_t horizon_ms,
                                     LockedState& out, StateError& err, OuterLock* outer = nullptr);

// Writes `r` (as the record of the locked file). With `durable`, fsyncs it; a failed fsync leaves
// the record flagged kStateNeedsSync (best effort), so no backend trusts its mark until it has been
// rewritten and synced (state_open_locked does that first). Never raises.
[[nodiscard]] bool state_write(LockedState& s, const StateRecord& r, bool durable, StateError& err) noexcept;

// True when the locked descriptor is still the file at its path (checked before trusting what was
// done under the lock). Never raises.
[[nodiscard]] bool state_still_current(const LockedState& s) noexcept;

// Releases the lock (and closes an uncached descriptor). Never raises.
void state_unlock(LockedState& s) noexcept;

// Forgets a cached descriptor whose file was replaced (closes it). Never raises.
void state_forget(const StateKey& key) noexcept;

// Under the key's file lock: raises the record's mark of g.key to `want` unless it already covers
// it (the mark the record stands for is Generator::restore()'s: another server's record counts as
// at least the clock plus the horizon). `mark` is the mark in force afterwards; `raised` says
// whether the record was rewritten: the mark moved, or the record holds this run's live state (the
// file store's) and what it has issued is not above `want`'s unit, so it restarts from the mark
// (boot = 0) though the mark need not move. Either way a live state kept elsewhere (a slot) must
// restart from it when it moved; a slot not above `want`'s unit must too (the caller's). Raises only
// while waiting for the lock. With `outer`, it is taken with the file lock and still held on a true
// return. In file_store.cpp; the shared store uses it too.
[[nodiscard]] bool state_raise_mark(Generator& g, std::int64_t want, std::int64_t now_ms, std::int64_t& mark,
                                    bool& raised, StateError& err, OuterLock* outer = nullptr);

// The takeover clock: when a server (its system identifier and timeline) first takes over state
// another wrote — the first read of a record of another server or timeline (a promoted standby's
// inherited records), or a clocked generator's file created afresh on a timeline after the first —
// the generators' clock reading `now_ms` is fixed in pg_idgen/v2/takeover_<sysid>_<timeline>
// (written and fsync'd before it is used, never rewritten). Every later takeover on that server
// counts from it: `clock_ms` is the larger of `now_ms` and that reading. So a clock stepped back
// after the first takeover (reloaded, or across a restart) cannot lower the horizon a promoted
// standby starts above, for keys it had not read yet as for those whose horizon it had not yet
// written. Plain system calls only, never raises: callable under a state file's lock. False (err
// set) when the file cannot be read or written, or is damaged (kStateDamaged naming it).
[[nodiscard]] bool takeover_clock(std::int64_t now_ms, std::int64_t& clock_ms, StateError& err) noexcept;

// How long the last successful fsync of a state file took, in ms (for sizing the reserve).
[[nodiscard]] std::int64_t state_last_fsync_ms() noexcept;

// The server's identity and timeline, stamped into every record: a record written under another
// system identifier or timeline (a promoted standby, a copied data directory) only counts as a mark
// after the horizon is added. Call outside any lock (they read shared state).
std::uint64_t current_sysid() noexcept;
std::uint32_t current_timeline() noexcept;

}  // namespace idgen::pg
