// id_gen: the snowflake generator (node layouts, shards, TraceIds) over the state store: how a
// persisted record restarts it, its core step with the reserve ahead of use, and the leases a
// backend holds where the store hands them out. See generators.h and state/store.h.
#include <type_traits>

#include "core/base/entropy.h"
#include "core/types/snowflake.h"
#include "pg/generators/generator_loop.h"
#include "pg/generators/generators.h"
#include "pg/state/record_file.h"

extern "C" {
#include "postgres.h"
#include "miscadmin.h"
}

namespace idgen::pg {
namespace {

// How far ahead of use a new mark is persisted: 100 ms, more when fsync is slow (twice the last
// fsync's duration on top), at most kReserveAheadMaxMs: fewer fsyncs on a slow disk. (Correctness
// does not depend on it: the step retried after a reserve uses the clock read before it.)
std::int64_t reserve_ahead_ms() noexcept {
    const std::int64_t v = kReserveAheadMs + 2 * state_last_fsync_ms();
    return v > kReserveAheadMaxMs ? kReserveAheadMaxMs : v;
}

// Per-backend leases (stores with leases): a block of one time unit's sequence numbers taken from
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
    // Per process (process_id(), not MyProcPid: a process a backend forks must not issue its leases).
    const int pid = process_id();
    if (g_lease_pid != pid) {
        g_lease_count = 0;
        g_lease_pid = pid;
    }
    for (int i = 0; i < g_lease_count; ++i)
        if (same_key(g_leases[i].key, k)) return g_leases[i];
    if (g_lease_count == kMaxLeases) g_lease_count = 0;  // forget all: unused leases are only skipped IDs
    g_leases[g_lease_count] = BackendLease{k, SnowflakeLease{}, 1};
    return g_leases[g_lease_count++];
}

class SnowflakeGen final : public Generator {
public:
    SnowflakeGen(const StateKey& k, const SnowflakeLayout& l, std::uint32_t node, bool one = false) noexcept
        : Generator(k), l_(&l), node_(node), one_(one) {}

    std::int64_t clock() const noexcept override { return generator_clock_ms(); }

    // The furthest ahead of its clock any backend may have issued: the run-ahead allowance, the
    // largest reserve, and one time unit. A state file created afresh (first use, deleted,
    // replaced) and a record from another server (a promoted standby, a copied data directory)
    // start there.
    std::int64_t horizon_ms() const noexcept override {
        return static_cast<std::int64_t>(g_max_run_ahead_ms) + kReserveAheadMaxMs + l_->unit_ms;
    }

    // The mark is restated for the key's epoch; a record written by another server or timeline (a
    // promoted standby, a copy of the data directory: its writer may have issued up to the horizon
    // since) counts as at least the clock plus the horizon, the clock being at least the one this
    // server read when it first took over such state (takeover_clock(): a clock stepped back since,
    // reloaded or across a restart, does not lower it). Generation starts after the mark. While
    // the mark is within the horizon of the clock (a new file, a restart, a failover) the clock is
    // read as it is, so IDs stay within max_run_ahead of the clock (the first call may wait up to
    // the reserve for that): the bound a server starting at another's horizon relies on. A mark
    // beyond the horizon means the clock stepped back: then the generator behaves as a clock
    // standing still at the mark.
    bool restore(const StateRecord& r, const char*, std::int64_t now_ms, LiveState& live, std::int64_t& start,
                 StateError& err) noexcept override {
        live.mark = snowflake_mark_for_epoch(r.reserved_ms, r.epoch_ms, key.epoch_ms);
        start = live.mark;
        std::int64_t h = INT64_MAX;
        (void)__builtin_add_overflow(now_ms, horizon_ms(), &h);
        if (r.sysid != current_sysid() || r.timeline != current_timeline()) {
            std::int64_t from = now_ms;
            if (!takeover_clock(now_ms, from, err)) return false;
            std::int64_t other = INT64_MAX;
            (void)__builtin_add_overflow(from, horizon_ms(), &other);
            if (other > start) start = other;
        }
        live.st = SnowflakeState{};
        if (start <= h)
            snowflake_state_restore_at_horizon(live.st, *l_, start, now_ms);
        else
            snowflake_state_restore(live.st, *l_, start);
        return true;
    }

    Result<Step> step(LiveState& live, std::int64_t now_ms, std::uint32_t want) noexcept override {
        return snowflake_step(live.st, *l_, node_, now_ms, g_max_run_ahead_ms, live.mark, want);
    }
    // A new mark leads use by the reserve.
    std::int64_t mark_wanted(const Step& reserve) noexcept override { return reserve.ms + reserve_ahead_ms(); }

    std::int64_t lease_next(std::int64_t now_ms) noexcept override {
        if (bl_ == nullptr) bl_ = &lease_for(key);
        const std::uint32_t had = bl_->lease.left;
        const std::int64_t id = snowflake_lease_next(bl_->lease, *l_, now_ms);
        if (id == 0 && !one_) {
            // Used up within its unit: ask for more next time; gone stale unused: ask for less.
            if (had == 0 && bl_->lease.size == bl_->want && bl_->want < lease_cap())
                bl_->want *= 2;
            else if (had > 0 && bl_->want > 1)
                bl_->want /= 2;
        }
        return id;
    }
    std::uint32_t lease_want() noexcept override { return one_ ? 1 : bl_->want; }
    void lease_start(const Step& s, std::int64_t now_ms) noexcept override {
        snowflake_lease_start(bl_->lease, *l_, s, now_ms);
    }
    std::int64_t id_of(const Step& s) noexcept override { return s.id; }
    std::int64_t unit_of(std::int64_t ms) const noexcept override {
        return ms >= l_->epoch_ms ? (ms - l_->epoch_ms) / l_->unit_ms : -1;
    }

private:
    std::uint32_t lease_cap() const noexcept {
        const std::uint32_t c = (l_->seq_max() + 1) / 8;
        return c < 1 ? 1 : c;
    }

    const SnowflakeLayout* l_;  // the caller's, for the call
    std::uint32_t node_;
    bool one_;  // one ID per step: no lease of more than the call's own ID
    BackendLease* bl_ = nullptr;
};
// A wait inside the loop may raise (CHECK_FOR_INTERRUPTS) with the generator live on the stack.
static_assert(std::is_trivially_destructible_v<SnowflakeGen>);

}  // namespace

Result<std::int64_t> snowflake_issue(const StateKey& key, const SnowflakeLayout& layout, std::uint32_t node,
                                     const char*& detail) {
    SnowflakeGen g(key, layout, node);
    return generator_issue(g, detail);
}

Result<std::int64_t> snowflake_issue_in_order(const StateKey& key, const SnowflakeLayout& layout, const char*& detail) {
    SnowflakeGen g(key, layout, 0, true);
    return generator_issue(g, detail);
}

Result<std::int64_t> snowflake_raise_mark(const StateKey& key, const SnowflakeLayout& layout, std::int64_t mark_ms,
                                          const char*& detail) {
    SnowflakeGen g(key, layout, 0);
    return generator_raise_mark(g, mark_ms, detail);
}

}  // namespace idgen::pg
