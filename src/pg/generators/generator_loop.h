// id_gen: the one loop every generator runs over its store: issue an ID (from this backend's lease
// where the store hands out leases), wait for the clock when the run-ahead allowance is used up,
// retry when the state changed under the call. A template over the generator's concrete (final)
// class, so its own calls on the per-ID path are direct; with a shared store (shared memory, the
// DSM registry) the whole per-ID path (spinlock, slot, pure step) is inline here
// (state/slot_store.h). The rare outcomes are out of line (generator_loop.cpp,
// state/slot_store.cpp). See state/store.h.
#pragma once

#include <cstdint>

#include "core/base/result.h"
#include "pg/state/slot_store.h"
#include "pg/state/store.h"

namespace idgen::pg {

// After an attempt that issued nothing: kError/kNone/too many kRetry set `detail` and return the
// error (kOk: go on); kWait waits for the clock (bounded; may raise on an interrupt, with only
// trivially destructible locals live) and rereads it into `now_ms`.
[[nodiscard]] Error generator_after(Generator& g, Outcome out, const Step& step, const StateError& err, int spins,
                                    std::int64_t& now_ms, const char*& detail);

// One ID of `g`. Core failures come back as an Error with a description in `detail` (a static or
// thread-local buffer). May raise only while waiting (for a lock, or the clock: interrupts).
template <class G>
[[nodiscard]] Result<std::int64_t> generator_issue(G& g, const char*& detail) {
    detail = "";
    StateStore& store = state_store();
    // One clock reading until the call has to wait for the clock: a step retried after a reserve
    // (however slow its fsync) then asks for the unit the new mark covers.
    std::int64_t now_ms = g.clock();
    if (SharedSegment* const sh = g_shared_segment; sh != nullptr) {
        for (int spins = 0;; ++spins) {
            std::int64_t id = 0;
            Step step{};
            StateError err;
            const Outcome out = shared_run<false>(sh, g, now_ms, id, step, err);
            if (out == Outcome::kIssued) {
                if (id == 0) id = g.id_of(step);  // issued out of line (the step in `step`)
                // The boundary's invariant: an ID is >= 1 (0 is never an ID, whatever went wrong).
                if (id >= 1) return id;
                detail = "a generator step issued no ID";
                return Error::kNoOutcome;
            }
            const Error e = generator_after(g, out, step, err, spins, now_ms, detail);
            if (e != Error::kOk) return e;
        }
    }
    const bool leases = store.leases();
    for (int spins = 0;; ++spins) {
        std::int64_t id = leases ? g.lease_next(now_ms) : 0;
        if (id != 0) return id;
        Step step{};
        StateError err;
        const Outcome out = store.run(g, leases ? g.lease_want() : 1, now_ms, step, err);
        if (out == Outcome::kIssued) {
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
        }
        const Error e = generator_after(g, out, step, err, spins, now_ms, detail);
        if (e != Error::kOk) return e;
    }
}

}  // namespace idgen::pg
