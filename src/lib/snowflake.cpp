// id_gen C++ library: snowflakes, their layouts and their generator over src/core (the code gen_snowflake() runs).
#include <chrono>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <thread>

#include "core/base/clock.h"
#include "core/text/base36.h"
#include "core/types/snowflake.h"
#include "core/types/uuidv7.h"
#include "id_gen/base36.hpp"
#include "id_gen/snowflake.hpp"
#include "support.h"

namespace id_gen {
namespace {

std::int64_t ms_of(sys_milliseconds t) noexcept { return t.time_since_epoch().count(); }

// A time point as the SQL functions show it in their errors.
std::string time_text(sys_milliseconds t) { return detail::describe_ms(ms_of(t)); }

constexpr const char* kSnowflake = "snowflake";

}  // namespace

using detail::floor_div;
using detail::fork_generation;
using detail::read_ns;
using detail::throw_core_error;
using detail::value_or_throw;
using detail::watch_forks;

// ---- SnowflakeLayout -----------------------------------------------------------------------

SnowflakeLayout::SnowflakeLayout(const detail::LayoutData& d) noexcept : d_(d) {}

SnowflakeLayout SnowflakeLayout::twitter() noexcept {
    return SnowflakeLayout(detail::layout_data(idgen::twitter_layout()));
}

SnowflakeLayout SnowflakeLayout::instagram(std::int64_t epoch_ms) {
    // The same epoch range as a custom layout (the time field is 41 bits, 1 ms units).
    if (epoch_ms < -(std::int64_t{1} << 53) || epoch_ms > (std::int64_t{1} << 53))
        detail::throw_error(errc::invalid_argument,
                            "snowflake epoch " + std::to_string(epoch_ms) + " ms is outside -2^53 .. 2^53 ms");
    return SnowflakeLayout(detail::layout_data(idgen::instagram_layout(epoch_ms)));
}

SnowflakeLayout SnowflakeLayout::sonyflake() noexcept { return named("sonyflake"); }
SnowflakeLayout SnowflakeLayout::javascript() noexcept { return named("javascript"); }

SnowflakeLayout SnowflakeLayout::named(std::string_view name) {
    auto l = idgen::snowflake_named_layout(name.data(), name.size());
    if (!l)
        detail::throw_error(errc::invalid_argument,
                            "unknown snowflake layout \"" + std::string(name) +
                                "\" (twitter, instagram, sonyflake or javascript, or a custom layout)");
    return SnowflakeLayout(detail::layout_data(*l));
}

SnowflakeLayout SnowflakeLayout::custom(std::int64_t epoch_ms, int time_bits, int node_bits, int sequence_bits) {
    auto l = idgen::snowflake_custom_layout(epoch_ms, time_bits, node_bits, sequence_bits);
    if (!l)
        detail::throw_error(errc::invalid_argument,
                            "invalid snowflake layout: time " + std::to_string(time_bits) + " bits, node " +
                                std::to_string(node_bits) + " bits, sequence " + std::to_string(sequence_bits) +
                                " bits, epoch " + std::to_string(epoch_ms) +
                                " ms (time 1-63, node 0-31, sequence 0-31, at most 63 in all; epoch within ±2^53 ms)");
    return SnowflakeLayout(detail::layout_data(*l));
}

Snowflake SnowflakeLayout::lower(sys_milliseconds t) const {
    return Snowflake(
        value_or_throw(idgen::snowflake_lower(detail::core_layout(d_), ms_of(t)), kSnowflake, time_text(t)));
}

Snowflake SnowflakeLayout::upper(sys_milliseconds t) const {
    return Snowflake(
        value_or_throw(idgen::snowflake_upper(detail::core_layout(d_), ms_of(t)), kSnowflake, time_text(t)));
}

Snowflake SnowflakeLayout::pack(std::int64_t time_units, std::uint32_t node, std::uint32_t sequence) const {
    auto id = idgen::snowflake_pack(detail::core_layout(d_), time_units, node, sequence);
    if (!id)
        detail::throw_error(errc::out_of_range, "snowflake fields out of range for the layout: time " +
                                                    std::to_string(time_units) + ", node " + std::to_string(node) +
                                                    ", sequence " + std::to_string(sequence));
    return Snowflake(*id);
}

// ---- Snowflake -----------------------------------------------------------------------------

Snowflake Snowflake::from_int(std::int64_t value) {
    if (value < 1) throw_core_error(idgen::Error::kOutOfRange, kSnowflake, std::to_string(value));
    return Snowflake(value);
}

Snowflake Snowflake::parse(std::string_view text) {
    return Snowflake(value_or_throw(idgen::snowflake_parse(text.data(), text.size()), kSnowflake, text));
}

std::optional<Snowflake> Snowflake::try_parse(std::string_view text) noexcept {
    auto r = idgen::snowflake_parse(text.data(), text.size());
    if (!r) return std::nullopt;
    return Snowflake(*r);
}

Snowflake Snowflake::from_base36(std::string_view text) {
    auto v = idgen::base36_decode64(text.data(), text.size());
    if (!v) throw_core_error(v.error(), kSnowflake, text);
    if (*v == 0 || *v > static_cast<std::uint64_t>(INT64_MAX))
        throw_core_error(idgen::Error::kOutOfRange, kSnowflake, text);
    return Snowflake(static_cast<std::int64_t>(*v));
}

std::string Snowflake::to_string() const {
    char buf[20];
    const std::size_t n = idgen::snowflake_format(value_, buf);
    return std::string(buf, n);
}

std::string Snowflake::to_base36() const { return base36::encode(static_cast<std::uint64_t>(value_)); }

std::int64_t Snowflake::unix_ms(const SnowflakeLayout& layout) const noexcept {
    return idgen::snowflake_time_ms(detail::core_layout(layout.data()), value_);
}

std::uint32_t Snowflake::node(const SnowflakeLayout& layout) const noexcept {
    return idgen::snowflake_unpack(detail::core_layout(layout.data()), value_).node;
}

std::uint32_t Snowflake::sequence(const SnowflakeLayout& layout) const noexcept {
    return idgen::snowflake_unpack(detail::core_layout(layout.data()), value_).seq;
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
    if (options.max_wait.count() < 0) detail::throw_error(errc::invalid_argument, "max_wait must not be negative");
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
                    detail::throw_error(errc::time_out_of_range, "cannot issue a snowflake: the clock (" +
                                                                     detail::describe_ms(now_ms) +
                                                                     ") is before the layout's epoch (" +
                                                                     detail::describe_ms(s_->core.epoch_ms) + ")");
                detail::throw_core_error(idgen::Error::kLayoutExhausted, "snowflake",
                                         "the layout's time field is used up at " + detail::describe_ms(now_ms));
            }
            if (step->kind == idgen::StepKind::kIssued) return Snowflake(step->id);
            wait_until_ms = step->ms;  // kWait (kReserve cannot happen: nothing is persisted)
        }
        const auto now = std::chrono::steady_clock::now();
        if (!started) started = now;
        const auto waited = now - *started;
        const auto budget = std::chrono::milliseconds(s_->max_wait_ms) - waited;
        if (budget <= std::chrono::milliseconds::zero())
            detail::throw_core_error(
                idgen::Error::kCapacityExceeded, "snowflake",
                "waited " + std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(waited).count()) +
                    " ms for the clock (" + detail::describe_ms(now_ms) + ") to reach the IDs already issued");
        std::chrono::nanoseconds nap = std::chrono::milliseconds(wait_until_ms - now_ms);
        if (nap < std::chrono::microseconds(50)) nap = std::chrono::microseconds(50);
        if (nap > budget) nap = budget;
        std::this_thread::sleep_for(nap);
    }
}

std::ostream& operator<<(std::ostream& os, Snowflake id) { return os << id.to_string(); }

}  // namespace id_gen
