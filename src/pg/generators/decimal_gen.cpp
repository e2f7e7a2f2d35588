// id_gen: the DecimalId generator over the state store. The launch's record: its mark is the
// largest generator number ever handed out (-1: none; fsync'd before use); the live state is
// (generator number, last counter), trusted only within the server run that wrote it. A step with
// no generator (a new server run) or a used-up counter asks for a new mark: the next generator
// number. See generators.h and state/store.h.
#include <cstdio>
#include <type_traits>

#include "core/base/entropy.h"
#include "core/types/trace_decimal.h"
#include "pg/generators/generator_loop.h"
#include "pg/generators/generators.h"
#include "pg/state/record_file.h"

extern "C" {
#include "postgres.h"
#include "miscadmin.h"
}

namespace idgen::pg {
namespace {

char t_detail[200];

// Without shared memory: a backend's lease of counters of the server run's generator.
struct DecimalLease {
    int pid = -1;
    std::uint32_t launch = 0;
    std::int64_t generator = -1;
    std::int64_t next = 0;
    std::int64_t left = 0;
    std::int64_t want = 1;
};
DecimalLease g_lease;
constexpr std::int64_t kLeaseCap = 1024;

// The generator's key, a base so it is built before Generator refers to it.
struct DecimalKey {
    StateKey own_key;
};

class DecimalGen final : private DecimalKey, public Generator {
public:
    explicit DecimalGen(std::uint32_t launch) noexcept
        : DecimalKey{StateKey{kDecimalStateKind, 0, static_cast<std::int32_t>(launch), 0}},
          Generator(own_key),
          launch_(launch) {}

    DecimalRefusal refusal = DecimalRefusal::kNone;

    // No clock: a new file starts with no generator number granted (-1).
    std::int64_t clock() const noexcept override { return -1; }
    std::int64_t horizon_ms() const noexcept override { return 0; }

    // A new server run starts without a generator; its first step takes the next number.
    bool restore(const StateRecord& r, const char* path, std::int64_t, LiveState& live, std::int64_t& start,
                 StateError& err) noexcept override {
        if (!may_mark(r, path, err)) return false;
        live.st = SnowflakeState{-1, 0, -1};
        live.mark = r.reserved_ms;
        start = r.reserved_ms;
        return true;
    }

    Result<Step> step(LiveState& live, std::int64_t, std::uint32_t want) noexcept override {
        DecimalState st{live.st.last_time, live.st.last_seq};
        const DecimalStep s = decimal_step(st, want);
        if (s.kind == DecimalStepKind::kIssued) {
            live.st.last_seq = st.counter;
            return Step{StepKind::kIssued, s.first, s.generator, static_cast<std::uint32_t>(s.count)};
        }
        auto next = decimal_next_generator(live.mark);
        if (!next) {
            refusal = DecimalRefusal::kGeneratorsUsedUp;
            snprintf(t_detail, sizeof t_detail, "all 100000 generator numbers of launch %u are used up", launch_);
            detail = t_detail;
            return Error::kCapacityExceeded;
        }
        return Step{StepKind::kReserve, 0, *next, 0};
    }

    // The launch's record was written by this server on this timeline (or holds no generator yet):
    // otherwise the server it came from may have used generator numbers since.
    bool may_mark(const StateRecord& r, const char* path, StateError& err) noexcept override {
        if (r.reserved_ms < 0 || (r.sysid == current_sysid() && r.timeline == current_timeline())) return true;
        refusal = DecimalRefusal::kForeignRecord;
        err.code = Error::kCapacityExceeded;
        snprintf(t_detail, sizeof t_detail, "the generator counter in \"%s\" was written by another server or timeline",
                 path);
        err.detail = t_detail;
        return false;
    }

    // The new generator number is persisted: its counter starts at 0.
    void marked(LiveState& live, std::int64_t mark) noexcept override {
        live.mark = mark;
        live.st = SnowflakeState{mark, 0, -1};
    }

    std::int64_t lease_next(std::int64_t) noexcept override {
        DecimalLease& l = g_lease;
        // Per process (process_id(), not MyProcPid: a process a backend forks must not issue its lease).
        const int pid = process_id();
        if (l.pid != pid || l.launch != launch_) l = DecimalLease{pid, launch_, -1, 0, 0, 1};
        if (l.left == 0) return 0;
        --l.left;
        return id_at(l.next++, l.generator);
    }
    std::uint32_t lease_want() noexcept override { return static_cast<std::uint32_t>(g_lease.want); }
    void lease_start(const Step& s, std::int64_t) noexcept override {
        g_lease.generator = s.ms;
        g_lease.next = s.id;
        g_lease.left = s.count;
        if (g_lease.want < kLeaseCap) g_lease.want *= 2;
    }
    std::int64_t id_of(const Step& s) noexcept override { return id_at(s.id, s.ms); }
    std::int64_t unit_of(std::int64_t) const noexcept override { return 0; }

private:
    // 0 for a field out of range (never an ID).
    std::int64_t id_at(std::int64_t counter, std::int64_t generator) const noexcept {
        auto id = decimal_pack(counter, generator, launch_);
        return id ? *id : 0;
    }

    std::uint32_t launch_;
};
static_assert(std::is_trivially_destructible_v<DecimalGen>);

}  // namespace

Result<std::int64_t> decimal_issue(std::uint32_t launch, const char*& detail, DecimalRefusal& refusal) {
    DecimalGen g(launch);
    auto id = generator_issue(g, detail);
    refusal = id ? DecimalRefusal::kNone : g.refusal;
    return id;
}

}  // namespace idgen::pg
