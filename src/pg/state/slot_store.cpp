// id_gen: generator state in a shared segment (the main shared memory when preloaded, a DSM
// registry segment on 17+ otherwise): a table of slots, one per key in use since startup, each
// holding the key's live state. See store.h.
//
// `mutex` (a spinlock) guards the slots: the fast path (find the slot, one pure step) holds only
// it. The LWLock serializes the rare file I/O: loading a slot's mark after startup and persisting a
// new mark. Nothing that can raise, and no system call, runs under the spinlock. The LWLock is taken
// only together with the key's file lock and never waited for (OuterLock in record_file.h): an
// LWLock holds off interrupts, so a wait for a file another process holds locked (0.1.0 code, a
// backup tool, a stuck fsync) under it would hold a cancel off for the whole 10 s bound, and every
// other key's I/O with it.
#include "pg/state/slot_store.h"

#include <cstring>
#include <new>

#include "pg/state/record_file.h"

extern "C" {
#include "postgres.h"
#include "miscadmin.h"
#include "storage/lwlock.h"
#include "storage/spin.h"
}

namespace idgen::pg {
namespace {

using Shared = SharedSegment;
using Slot = SharedSlot;
Slot* find_slot(Shared* sh, const StateKey& k) noexcept { return shared_find_slot(sh, k); }
bool live(const Slot* s, const StateKey& k) noexcept { return shared_slot_live(s, k); }

// The LWLock that serializes the slots' file I/O, as the OuterLock of a key's file lock. Another
// backend may hold it through a slow fsync, and an LWLock wait cannot be interrupted: so it is only
// ever tried, together with the file lock, and the wait between tries sleeps on the latch with
// neither held (pg_cancel_backend(), statement_timeout and lock_timeout end it; bounded).
LWLock* t_io_lock = nullptr;
bool try_io_lock() noexcept { return LWLockConditionalAcquire(t_io_lock, LW_EXCLUSIVE); }
void release_io_lock() noexcept { LWLockRelease(t_io_lock); }
void release_if_held(OuterLock& io) noexcept {
    if (io.held) io.release();
    io.held = false;
}

class SharedStore final : public StateStore {
public:
    SharedStore(Shared* sh, const char* name) noexcept : sh_(sh), name_(name) {}
    const char* name() const noexcept override { return name_; }
    bool leases() const noexcept override { return false; }

    Outcome run(Generator& g, std::uint32_t, std::int64_t now_ms, Step& out, StateError& err) override {
        std::int64_t id = 0;
        return shared_run<true>(sh_, g, now_ms, id, out, err);
    }

    // Out of line (the per-ID path is shared_attempt()): what an attempt found, when it did not
    // simply issue.
    __attribute__((noinline)) Outcome after_attempt(Generator& g, SharedFast f, const Result<Step>& step,
                                                    std::int64_t now_ms, Step& out, StateError& err) {
        if (f == SharedFast::kFull) {
            err.code = Error::kCapacityExceeded;
            err.detail =
                "all 4096 shared-memory generator slots are in use (each node layout, each (database, "
                "shard) and each launch used since the server started takes one); restart the server to "
                "free them";
            return Outcome::kError;
        }
        if (f == SharedFast::kStepped && !step) {
            err.code = step.error();
            err.detail = g.detail;
            return Outcome::kError;
        }
        if (f == SharedFast::kStepped && step->kind != StepKind::kReserve) {
            out = *step;
            return step->kind == StepKind::kIssued ? Outcome::kIssued : Outcome::kWait;
        }
        return slow_round(g, now_ms, err);
    }

    bool raise(Generator& g, std::int64_t want_ms, std::int64_t now_ms, std::int64_t& mark, StateError& err) override {
        // Under the LWLock (taken with the file lock): no backend loads or extends this key's slot
        // while its file changes. The slot is unloaded when the mark moved, or when what it has
        // issued is not above `want_ms`'s unit (the saved mark leads the slot by the reserve, so a
        // `want_ms` below it may still be ahead of the IDs issued): the next call reloads it from
        // the file, whose mark covers `want_ms`, as the first call after a restart does.
        OuterLock io{try_io_lock, release_io_lock, false};
        bool raised = false;
        const bool ok = state_raise_mark(g, want_ms, now_ms, mark, raised, err, &io);
        if (ok) {
            const std::int64_t unit = g.unit_of(want_ms);
            SpinLockAcquire(&sh_->mutex);
            Slot* s = find_slot(sh_, g.key);
            if (s != nullptr && (raised || (live(s, g.key) && s->live.st.last_time <= unit))) s->loaded = false;
            SpinLockRelease(&sh_->mutex);
        }
        release_if_held(io);
        return ok;
    }

private:
    __attribute__((noinline)) Outcome slow_round(Generator& g, std::int64_t now_ms, StateError& err) {
        OuterLock io{try_io_lock, release_io_lock, false};
        const bool ok = io_round(g, now_ms, io, err);
        release_if_held(io);
        return ok ? Outcome::kRetry : Outcome::kError;  // the fast path again
    }

    // The slow path, under the LWLock `io` and the key's file lock, taken together (so only one
    // backend does file I/O for the slots at a time); the spinlock only around reads and writes of
    // the slot. Loads the slot when it is not this key's live state, then runs the step on a copy:
    // if it asks for a mark, the mark is persisted first and then published to the slot (the fast
    // path retries). Raises only while waiting for the locks, with neither held.
    // Out of line: the fast path in run() keeps a small frame.
    __attribute__((noinline)) bool io_round(Generator& g, std::int64_t now_ms, OuterLock& io, StateError& err) {
        const StateKey& k = g.key;
        const std::int64_t clock_ms = g.clock();
        LockedState f;
        if (!state_open_locked(k, clock_ms, g.horizon_ms(), f, err, &io)) return false;
        // Locked from here: nothing raises.
        LiveState copy;
        SpinLockAcquire(&sh_->mutex);
        Slot* s = find_slot(sh_, k);
        const bool loaded = live(s, k);
        if (loaded) copy = s->live;
        SpinLockRelease(&sh_->mutex);
        if (s == nullptr) {  // every slot taken: the fast path says so
            state_unlock(f);
            return true;
        }
        bool ok = true;
        if (!loaded) {
            // First use since startup (or the shard was re-created with another epoch): start after
            // the persisted high-water mark. The first ID is above it, so it needs a new mark, which
            // is written and fsync'd before it is issued: nothing is issued on a mark this run has
            // not seen synced. The slot's mark is the one on disk (restated for this epoch).
            std::int64_t start = 0;
            ok = g.restore(f.rec, f.path, clock_ms, copy, start, err);
            if (ok) {
                SpinLockAcquire(&sh_->mutex);
                s = find_slot(sh_, k);
                if (s != nullptr && !live(s, k)) {
                    s->key = k;
                    s->live = copy;
                    s->loaded = true;
                }
                SpinLockRelease(&sh_->mutex);
            }
        }
        // Every write of a slot's mark happens under the LWLock and is copied into the slot right
        // after, so the copy's mark is the one on disk, unless the file holds a larger one (carried
        // over from a replaced file, synced when it was carried): count that one.
        if (ok && f.rec.epoch_ms == k.epoch_ms && f.rec.reserved_ms > copy.mark) {
            copy.mark = f.rec.reserved_ms;
            publish_mark(g, copy.mark, false);
        }
        Result<Step> step = ok ? g.step(copy, now_ms, 1) : Result<Step>(Error::kNoOutcome);
        if (ok && step && step->kind == StepKind::kReserve) {
            // Persist the new mark first; only then may IDs up to it be issued. The record's mark
            // only moves forward.
            const std::int64_t mark = snowflake_mark_to_persist(copy.mark, g.mark_wanted(*step));
            StateRecord r = f.rec;
            r.epoch_ms = k.epoch_ms;
            r.reserved_ms = mark;
            r.boot = 0;
            ok = g.may_mark(f.rec, f.path, err) && state_write(f, r, true, err);
            // Trust it only if the file is still the one its path names.
            if (ok && state_still_current(f)) publish_mark(g, mark, true);
        }
        // Other step outcomes on the copy (issued, wait, an error) leave the slot alone: the fast
        // path runs the step again on the slot itself.
        state_unlock(f);
        return ok;
    }

    // Copies a persisted mark into the slot of g.key, if it is still live and behind it. `granted`:
    // a new mark this backend persisted (the generator is told), not one found on disk.
    void publish_mark(Generator& g, std::int64_t mark, bool granted) noexcept {
        SpinLockAcquire(&sh_->mutex);
        Slot* s = find_slot(sh_, g.key);
        if (live(s, g.key) && s->live.mark < mark) {
            if (granted)
                g.marked(s->live, mark);
            else
                s->live.mark = mark;
        }
        SpinLockRelease(&sh_->mutex);
    }

    Shared* sh_;
    const char* name_;
};

alignas(SharedStore) unsigned char t_store_buf[sizeof(SharedStore)];
SharedStore* t_store = nullptr;

}  // namespace

SharedSegment* g_shared_segment = nullptr;

Outcome shared_after_attempt(Generator& g, SharedFast f, const Result<Step>& r, std::int64_t now_ms, Step& out,
                             StateError& err) {
    return t_store->after_attempt(g, f, r, now_ms, out, err);
}

std::size_t shared_segment_size() noexcept { return sizeof(Shared); }

void shared_segment_init(void* segment, bool own_lock) {
    auto* sh = static_cast<Shared*>(segment);
    std::memset(segment, 0, sizeof(Shared));
    SpinLockInit(&sh->mutex);
    if (own_lock) {
        sh->tranche = LWLockNewTrancheId();
        LWLockInitialize(&sh->own_lock, sh->tranche);
    }
}

LWLock* shared_segment_own_lock(void* segment) {
    auto* sh = static_cast<Shared*>(segment);
    LWLockRegisterTranche(sh->tranche, "id_gen");
    return &sh->own_lock;
}

StateStore& shared_store(void* segment, LWLock* io_lock, const char* name) {
    if (t_store == nullptr) {
        t_io_lock = io_lock;
        t_store = new (t_store_buf) SharedStore(static_cast<Shared*>(segment), name);
        g_shared_segment = static_cast<Shared*>(segment);
    }
    return *t_store;
}

}  // namespace idgen::pg
