// id_gen C++ library: generators. Each object is the extension's core generator (the same code
// gen_ulid(), gen_uuidv7() and gen_snowflake() run) behind one mutex, with its own block of
// kernel randomness.
#include "id_gen/generators.hpp"

#include <pthread.h>

#include <atomic>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "core/base/clock.h"
#include "core/base/entropy.h"
#include "core/types/snowflake.h"
#include "core/types/ulid.h"
#include "core/types/uuidv7.h"
#include "support.h"

namespace id_gen {
namespace {

// Bumped in the child of every fork(): a generator that sees a new value is in another process
// than the one its state and random block belong to.
std::atomic<std::uint64_t> g_fork_generation{0};

void on_fork_child() noexcept { g_fork_generation.fetch_add(1, std::memory_order_relaxed); }

void watch_forks() {
    static std::once_flag once;
    std::call_once(once, [] { pthread_atfork(nullptr, nullptr, on_fork_child); });
}

std::uint64_t fork_generation() noexcept { return g_fork_generation.load(std::memory_order_relaxed); }

std::int64_t read_ns(const Clock& clock) { return clock ? clock() : idgen::unix_time_ns(); }

std::int64_t floor_div(std::int64_t a, std::int64_t b) noexcept {
    std::int64_t q = a / b;
    if ((a % b) != 0 && a < 0) --q;
    return q;
}

Ulid wrap(const idgen::Ulid& c) noexcept {
    Bytes16 b;
    std::memcpy(b.data(), c.bytes, 16);
    return Ulid(b);
}

Uuid wrap(const idgen::Uuid& c) noexcept {
    Bytes16 b;
    std::memcpy(b.data(), c.bytes, 16);
    return Uuid(b);
}

}  // namespace

// ---- ULID ----------------------------------------------------------------------------------

struct UlidGenerator::State {
    std::mutex mu;
    Clock clock;
    idgen::UlidGenerator gen;
    idgen::EntropyPool pool;
    std::uint64_t fork_gen = 0;
};

UlidGenerator::UlidGenerator() : UlidGenerator(Clock{}) {}

UlidGenerator::UlidGenerator(Clock clock) : s_(std::make_unique<State>()) {
    watch_forks();
    s_->clock = std::move(clock);
    s_->fork_gen = fork_generation();
    s_->pool.set_owner(static_cast<int>(s_->fork_gen));
}

UlidGenerator::~UlidGenerator() = default;

Ulid UlidGenerator::next() {
    std::lock_guard<std::mutex> lock(s_->mu);
    const std::uint64_t fg = fork_generation();
    if (fg != s_->fork_gen) {
        // In a child: the parent continues from the same last ID, so start over with fresh bits.
        s_->gen = idgen::UlidGenerator{};
        s_->fork_gen = fg;
        s_->pool.set_owner(static_cast<int>(fg));
    }
    const std::int64_t ms = floor_div(read_ns(s_->clock), idgen::kNsPerMs);
    auto id = s_->gen.next(ms, s_->pool);
    if (!id) detail::throw_core_error(id.error(), "ulid", detail::describe_ms(ms));
    return wrap(*id);
}

// ---- UUIDv7 --------------------------------------------------------------------------------

struct Uuidv7Generator::State {
    std::mutex mu;
    Clock clock;
    idgen::Uuidv7Generator gen;
    idgen::EntropyPool pool;
    std::uint64_t fork_gen = 0;
};

Uuidv7Generator::Uuidv7Generator() : Uuidv7Generator(Clock{}) {}

Uuidv7Generator::Uuidv7Generator(Clock clock) : s_(std::make_unique<State>()) {
    watch_forks();
    s_->clock = std::move(clock);
    s_->fork_gen = fork_generation();
    s_->pool.set_owner(static_cast<int>(s_->fork_gen));
}

Uuidv7Generator::~Uuidv7Generator() = default;

Uuid Uuidv7Generator::next() {
    std::lock_guard<std::mutex> lock(s_->mu);
    const std::uint64_t fg = fork_generation();
    if (fg != s_->fork_gen) {
        // The time discipline may continue in the child; the random block must not.
        s_->fork_gen = fg;
        s_->pool.set_owner(static_cast<int>(fg));
    }
    auto id = s_->gen.next(read_ns(s_->clock), s_->pool);
    if (!id) detail::throw_core_error(id.error(), "uuid", "the clock is past the year 2262");
    return wrap(*id);
}

// ---- snowflake -----------------------------------------------------------------------------

struct SnowflakeGenerator::State {
    std::mutex mu;
    Clock clock;
    SnowflakeLayout layout;
    idgen::SnowflakeLayout core;
    std::uint32_t node;
    std::int64_t max_ahead_ms;
    std::int64_t max_wait_ms;
    idgen::SnowflakeState st;
    std::uint64_t fork_gen = 0;

    State(const SnowflakeLayout& l, std::uint32_t n) : layout(l), core(detail::core_layout(l.data())), node(n) {}
};

SnowflakeGenerator::SnowflakeGenerator(std::uint32_t node, const SnowflakeLayout& layout, SnowflakeOptions options)
    : s_(std::make_unique<State>(layout, node)) {
    watch_forks();
    if (node > layout.node_max())
        detail::throw_error(errc::invalid_argument, "snowflake node " + std::to_string(node) +
                                                        " does not fit the layout (0 to " +
                                                        std::to_string(layout.node_max()) + ")");
    const auto ahead = options.max_run_ahead.count();
    if (ahead < 0 || ahead > 60000)
        detail::throw_error(errc::invalid_argument,
                            "max_run_ahead " + std::to_string(ahead) + " ms is outside 0 .. 60000 ms");
    if (options.max_wait.count() < 0)
        detail::throw_error(errc::invalid_argument, "max_wait must not be negative");
    s_->clock = std::move(options.clock);
    s_->max_ahead_ms = ahead;
    s_->max_wait_ms = options.max_wait.count();
    s_->fork_gen = fork_generation();
    // An earlier generator of this node (before a restart) may have issued IDs up to
    // max_run_ahead past its clock, and its clock was before ours: start above that horizon,
    // with the run-ahead measured from the real clock (the extension starts a new state file so).
    const std::int64_t now_ms = floor_div(read_ns(s_->clock), idgen::kNsPerMs);
    idgen::snowflake_state_restore_at_horizon(s_->st, s_->core, now_ms + ahead, now_ms);
}

SnowflakeGenerator::~SnowflakeGenerator() = default;

std::uint32_t SnowflakeGenerator::node() const noexcept { return s_->node; }
const SnowflakeLayout& SnowflakeGenerator::layout() const noexcept { return s_->layout; }

Snowflake SnowflakeGenerator::next() {
    // The wait budget is real time (a steady clock), whatever clock the generator reads; it starts
    // at the first wait (the clock is not read on the fast path).
    std::optional<std::chrono::steady_clock::time_point> started;
    for (;;) {
        std::int64_t now_ms, wait_until_ms;
        {
            std::lock_guard<std::mutex> lock(s_->mu);
            if (fork_generation() != s_->fork_gen)
                detail::throw_error(errc::forked,
                                    "snowflake generator for node " + std::to_string(s_->node) +
                                        " used in a child process after fork(): the parent issues the same IDs; "
                                        "create a generator with a node number of its own in the child");
            now_ms = floor_div(read_ns(s_->clock), idgen::kNsPerMs);
            auto step = idgen::snowflake_step(s_->st, s_->core, s_->node, now_ms, s_->max_ahead_ms, INT64_MAX);
            if (!step) {
                if (now_ms < s_->core.epoch_ms)
                    detail::throw_error(errc::time_out_of_range,
                                        "cannot issue a snowflake: the clock (" + detail::describe_ms(now_ms) +
                                            ") is before the layout's epoch (" +
                                            detail::describe_ms(s_->core.epoch_ms) + ")");
                detail::throw_error(errc::time_out_of_range,
                                    "cannot issue another snowflake: the layout's time field is used up at " +
                                        detail::describe_ms(now_ms));
            }
            if (step->kind == idgen::StepKind::kIssued) return Snowflake(step->id);
            wait_until_ms = step->ms;  // kWait (kReserve cannot happen: nothing is persisted)
        }
        const auto now = std::chrono::steady_clock::now();
        if (!started) started = now;
        const auto waited = now - *started;
        const auto budget = std::chrono::milliseconds(s_->max_wait_ms) - waited;
        if (budget <= std::chrono::milliseconds::zero())
            detail::throw_error(errc::capacity_exceeded,
                                "snowflake generator capacity exceeded: waited " +
                                    std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(waited).count()) +
                                    " ms for the clock (" + detail::describe_ms(now_ms) +
                                    ") to reach the IDs already issued");
        std::chrono::nanoseconds nap = std::chrono::milliseconds(wait_until_ms - now_ms);
        if (nap < std::chrono::microseconds(50)) nap = std::chrono::microseconds(50);
        if (nap > budget) nap = budget;
        std::this_thread::sleep_for(nap);
    }
}

// ---- process-wide --------------------------------------------------------------------------

// Never destroyed: a thread may still call them while static objects are being torn down.
Ulid new_ulid() {
    static UlidGenerator* const g = new UlidGenerator();
    return g->next();
}

Uuid new_uuidv7() {
    static Uuidv7Generator* const g = new Uuidv7Generator();
    return g->next();
}

}  // namespace id_gen
