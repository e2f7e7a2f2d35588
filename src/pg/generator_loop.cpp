// id_gen: the one loop every generator runs over its store: issue an ID (from this backend's lease
// where the store hands out leases), wait for the clock when the run-ahead allowance is used up,
// retry when the state changed under the call; and a mark raised by hand. See state_store.h.
#include <cstdio>

#include "generators.h"

extern "C" {
#include "postgres.h"
#include "miscadmin.h"
}

namespace idgen::pg {
namespace {
char t_detail[200];
}  // namespace

// Chosen once per backend (a DSM attach that raised is retried on the next call).
StateStore& state_store() {
    static StateStore* chosen = nullptr;
    if (chosen != nullptr) return *chosen;
    StateStore* s = shmem_store();
    if (s == nullptr) s = dsm_store();
    if (s == nullptr) s = &file_store();
    chosen = s;
    return *s;
}

const char* snowflake_state_storage_name() { return state_store().name(); }

Result<std::int64_t> generator_issue(Generator& g, const char*& detail) {
    detail = "";
    StateStore& store = state_store();
    const bool leases = store.leases();
    // One clock reading until the call has to wait for the clock: a step retried after a reserve
    // (however slow its fsync) then asks for the unit the new mark covers.
    std::int64_t now_ms = g.clock();
    for (int spins = 0;; ++spins) {
        std::int64_t id = leases ? g.lease_next(now_ms) : 0;
        if (id != 0) return id;
        Step step{};
        StateError err;
        const Outcome out = store.run(g, leases ? g.lease_want() : 1, now_ms, step, err);
        switch (out) {
            case Outcome::kIssued:
                if (leases) {
                    g.lease_start(step, now_ms);
                    id = g.lease_next(now_ms);
                } else {
                    id = g.id_of(step);
                }
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
        const std::int64_t wait_ms = step.ms - g.clock();
        if (wait_ms > kMaxWaitMs + g.horizon_ms()) {
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
        now_ms = g.clock();
    }
}

Result<std::int64_t> generator_raise_mark(Generator& g, std::int64_t mark_ms, const char*& detail) {
    detail = "";
    StateStore& store = state_store();
    StateError err;
    std::int64_t mark = 0;
    if (!store.raise(g, mark_ms, g.clock(), mark, err)) {
        detail = err.detail;
        return err.code;
    }
    return mark;
}

}  // namespace idgen::pg
