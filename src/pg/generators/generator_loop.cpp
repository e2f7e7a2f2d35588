// id_gen: the store chosen for this backend, the rare outcomes of the generator loop
// (generator_loop.h), and a mark raised by hand. See state/store.h.
#include <cstdio>

#include "pg/generators/generator_loop.h"
#include "pg/generators/generators.h"

extern "C" {
#include "postgres.h"
#include "miscadmin.h"
}

namespace idgen::pg {
namespace {
char t_detail[200];
}  // namespace

StateStore* g_state_store = nullptr;

StateStore& choose_state_store() {
    StateStore* s = shmem_store();
    if (s == nullptr) s = dsm_store();
    if (s == nullptr) s = &file_store();
    g_state_store = s;
    return *s;
}

const char* snowflake_state_storage_name() { return state_store().name(); }

Error generator_after(Generator& g, Outcome out, const Step& step, const StateError& err, int spins,
                      std::int64_t& now_ms, const char*& detail) {
    switch (out) {
        case Outcome::kIssued:  // handled by the caller
        case Outcome::kNone: detail = "a generator attempt ended without an outcome"; return Error::kNoOutcome;
        case Outcome::kError: detail = err.detail; return err.code;
        case Outcome::kRetry:
            if (spins > 1000) {
                detail = "the generator state kept changing under this backend";
                return Error::kNoOutcome;
            }
            CHECK_FOR_INTERRUPTS();
            return Error::kOk;
        case Outcome::kWait: break;
    }
    // The sequence is used up to the run-ahead limit: wait for the clock, a bounded time. A state
    // that started at the horizon (a new state file, a promoted standby) is up to the horizon ahead
    // of the clock by design: waiting that out is normal, not a clock problem.
    const std::int64_t wait_ms = step.ms - g.clock();
    if (wait_ms > kMaxWaitMs + g.horizon_ms()) {
        snprintf(t_detail, sizeof t_detail,
                 "IDs up to %lld ms ahead of the clock are used up (id_gen.max_run_ahead = %d ms, and the clock "
                 "is behind the IDs already issued)",
                 static_cast<long long>(wait_ms), g_max_run_ahead_ms);
        detail = t_detail;
        return Error::kCapacityExceeded;
    }
    if (wait_ms > 0)
        pg_usleep(static_cast<long>(wait_ms) * 1000L);
    else
        pg_usleep(100L);
    CHECK_FOR_INTERRUPTS();
    now_ms = g.clock();
    return Error::kOk;
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
