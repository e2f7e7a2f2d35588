// id_gen: the locked-file store (15 and 16 without preloading). A key's state is its record under
// $PGDATA/pg_idgen/v2/ (record_file.h), read and written under flock(2) by every backend. To keep
// the lock off the per-ID path, a step hands out a lease of up to `want` IDs of one time unit,
// which the generator issues in its backend. See store.h.
#include <cstdio>

#include "pg/state/record_file.h"
#include "pg/state/store.h"

extern "C" {
#include "postgres.h"
#include "miscadmin.h"
#include "utils/timestamp.h"
}

namespace idgen::pg {
namespace {

char t_detail[200];

// The longest raise() waits for the clock to leave a time unit (the longest unit is 1 s).
constexpr std::int64_t kUnitWaitMaxMs = 2000;

// Whether a record's live state is this server run's own (written since this postmaster started,
// for this epoch, by this server on this timeline).
bool live_here(const StateRecord& r, const StateKey& k) noexcept {
    return r.boot == static_cast<std::int64_t>(PgStartTime) && r.epoch_ms == k.epoch_ms && r.sysid == current_sysid() &&
           r.timeline == current_timeline();
}

void copy_live(StateRecord& r, const LiveState& live) noexcept {
    r.last_time = live.st.last_time;
    r.last_seq = live.st.last_seq;
    r.high_clock = live.st.high_clock;
}

class FileStore final : public StateStore {
public:
    const char* name() const noexcept override { return "files"; }
    bool leases() const noexcept override { return true; }

    // One attempt under the key's file lock: a lease of up to `want` IDs. Raises only while waiting
    // for the lock.
    Outcome run(Generator& g, std::uint32_t want, std::int64_t now_ms, Step& result, StateError& err) override {
        const StateKey& k = g.key;
        LockedState f;
        if (!state_open_locked(k, now_ms, g.horizon_ms(), f, err)) return Outcome::kError;
        // Locked from here: nothing raises.
        StateRecord r = f.rec;
        LiveState live;
        bool ok = true;
        if (live_here(r, k)) {
            live.st = SnowflakeState{r.last_time, r.last_seq, r.high_clock};
            live.mark = r.reserved_ms;
        } else {
            // Written by an earlier server run, another server, or for another epoch: only the mark
            // counts. A mark that moved (a horizon: another server's record) is fixed now, in this
            // server's name: otherwise every attempt until the first ID would compute it again from
            // a later clock, and never reach it.
            std::int64_t start = 0;
            ok = g.restore(r, f.path, now_ms, live, start, err);
            const bool moved = start != r.reserved_ms || r.epoch_ms != k.epoch_ms;
            r.reserved_ms = start;
            r.epoch_ms = k.epoch_ms;
            r.boot = 0;
            live.mark = start;
            if (ok && moved) ok = state_write(f, r, true, err);
        }
        Outcome out = ok ? Outcome::kNone : Outcome::kError;
        // Every round uses the clock as read before the first: after a reserve (write and fsync,
        // however slow) the retried step asks for the same time unit, which the new mark covers, so
        // the second round issues or waits. (0.1.0 read the clock again; a slow fsync let it pass
        // the new mark, and the loop ended with no outcome, which became the ID 0.) The bound is a
        // safeguard.
        for (int round = 0; round < 4 && out == Outcome::kNone; ++round) {
            auto step = g.step(live, now_ms, want);
            if (!step) {
                err.code = step.error();
                err.detail = g.detail;
                out = Outcome::kError;
            } else if (step->kind == StepKind::kWait) {
                result = *step;
                out = Outcome::kWait;
            } else if (step->kind == StepKind::kReserve) {
                // Under the lock, r is what is on disk: the mark only moves forward, and is
                // persisted before the step runs again.
                if (!g.may_mark(r, f.path, err)) {
                    out = Outcome::kError;
                    break;
                }
                const std::int64_t mark = snowflake_mark_to_persist(r.reserved_ms, g.mark_wanted(*step));
                g.marked(live, mark);
                r.reserved_ms = mark;
                r.boot = 0;  // the live state is not this record's until it is written below
                copy_live(r, live);
                if (!state_write(f, r, true, err)) out = Outcome::kError;
            } else {
                // Recorded before any of them is issued (no fsync: a crash ends the server run, and
                // the next run starts from the mark).
                r.boot = static_cast<std::int64_t>(PgStartTime);
                r.epoch_ms = k.epoch_ms;
                copy_live(r, live);
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
                     "no ID after reserving ahead of the clock (last fsync of \"%s\" took %lld ms)", f.path,
                     static_cast<long long>(state_last_fsync_ms()));
            err.detail = t_detail;
            out = Outcome::kError;
        }
        // What was done under the lock only counts if the file is still the one its path names (it
        // may have been deleted or replaced meanwhile): otherwise drop the lease and redo it on the
        // new file, which starts above this one's mark.
        const bool current = state_still_current(f);
        state_unlock(f);
        if (!current) {
            state_forget(k);
            if (out == Outcome::kIssued || out == Outcome::kWait) out = Outcome::kRetry;
        }
        return out;
    }

    bool raise(Generator& g, std::int64_t want_ms, std::int64_t now_ms, std::int64_t& mark, StateError& err) override {
        // Leases other backends hold were taken in a clock unit at most the current one, and each
        // issues only IDs of its own unit or later, while the clock stays in the unit it was taken
        // in. So a lease can serve an ID of `want_ms`'s unit or earlier only when that unit is the
        // clock's or later: then the raise waits for the clock to leave the current unit.
        const bool within_reach_of_leases = g.unit_of(want_ms) >= g.unit_of(g.clock());
        bool written = false;
        if (!state_raise_mark(g, want_ms, now_ms, mark, written, err)) return false;
        if (written || within_reach_of_leases) {
            // Once the clock has left this unit, every lease taken before the raise is stale, so no
            // ID at or below the mark follows. A unit lasts up to 1 s (TraceIds): the wait is
            // bounded by time, not by a count of sleeps, and cancellable.
            const std::int64_t start = g.clock();
            const std::int64_t unit = g.unit_of(start);
            while (g.unit_of(g.clock()) <= unit && g.clock() - start < kUnitWaitMaxMs) {
                pg_usleep(500L);
                CHECK_FOR_INTERRUPTS();
            }
        }
        return true;
    }
};

FileStore g_file_store;

}  // namespace

StateStore& file_store() noexcept { return g_file_store; }

bool state_raise_mark(Generator& g, std::int64_t want, std::int64_t now_ms, std::int64_t& mark, bool& raised,
                      StateError& err, OuterLock* outer) {
    const StateKey& k = g.key;
    for (int attempt = 0; attempt < 4; ++attempt) {
        LockedState f;
        if (!state_open_locked(k, now_ms, g.horizon_ms(), f, err, outer)) return false;
        // Locked from here: nothing raises. The mark the record stands for, as a restart would
        // read it (another server's or timeline's record: at least the clock plus the horizon).
        StateRecord r = f.rec;
        LiveState unused;
        std::int64_t have = 0;
        bool ok = g.restore(r, f.path, now_ms, unused, have, err);
        const bool moves = ok && want > have;
        mark = moves ? want : have;
        // The saved mark leads what was issued by the reserve (a TraceId's by up to a second): a
        // `want` below it may still be at or above what this run has issued. The live state (this
        // run's record) then restarts from the mark too, whether it moved or not.
        const bool restart = ok && live_here(r, k) && r.last_time <= g.unit_of(want);
        raised = moves || restart;
        if (raised) {
            // Only the mark counts from now on (boot = 0): every backend restarts from it.
            r.reserved_ms = mark;
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

}  // namespace idgen::pg
