// id_gen C++ library: snowflakes (SQL type snowflake), their layouts and their generator.
#pragma once

#include <chrono>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "id_gen/common.hpp"
#include "id_gen/error.hpp"

namespace id_gen {

class Snowflake;

// Snowflake layouts: an epoch, a time unit and time | node | sequence widths (sonyflake: time |
// sequence | machine), the same layouts the SQL functions name.
namespace detail {
struct LayoutData {
    std::uint8_t kind;
    std::int64_t epoch_ms;
    std::int64_t unit_ms;
    std::uint8_t time_bits, node_bits, seq_bits;
    std::uint8_t time_shift, node_shift, seq_shift;
    std::int64_t time_max;
};
}  // namespace detail

class SnowflakeLayout {
public:
    static constexpr std::int64_t twitter_epoch_ms = 1288834974657;    // 2010-11-04T01:42:54.657Z
    static constexpr std::int64_t instagram_epoch_ms = 1314220021721;  // 2011-08-24T21:07:01.721Z

    // 41 ms | 10 node | 12 sequence since twitter_epoch_ms (the default everywhere).
    [[nodiscard]] static SnowflakeLayout twitter() noexcept;
    // 41 ms | 13 shard | 10 sequence (all 64 bits: 2^40 ms usable) since `epoch_ms`.
    [[nodiscard]] static SnowflakeLayout instagram(std::int64_t epoch_ms = instagram_epoch_ms);
    // 39 × 10 ms | 8 sequence | 16 machine since 2014-09-01.
    [[nodiscard]] static SnowflakeLayout sonyflake() noexcept;
    // 41 ms | 4 node | 8 sequence since 2024-01-01: every ID <= 2^53-1.
    [[nodiscard]] static SnowflakeLayout javascript() noexcept;
    // "twitter", "instagram", "sonyflake", "javascript" (ASCII case-insensitive), as SQL's
    // layout argument; anything else throws errc::invalid_argument.
    [[nodiscard]] static SnowflakeLayout named(std::string_view name);
    // time | node | sequence in milliseconds: time 1..63 bits, node 0..31, sequence 0..31,
    // summing to at most 63, epoch within ±2^53 ms; otherwise errc::invalid_argument.
    [[nodiscard]] static SnowflakeLayout custom(std::int64_t epoch_ms, int time_bits, int node_bits, int sequence_bits);

    [[nodiscard]] std::int64_t epoch_ms() const noexcept { return d_.epoch_ms; }
    [[nodiscard]] std::int64_t unit_ms() const noexcept { return d_.unit_ms; }
    [[nodiscard]] int time_bits() const noexcept { return d_.time_bits; }
    [[nodiscard]] int node_bits() const noexcept { return d_.node_bits; }
    [[nodiscard]] int sequence_bits() const noexcept { return d_.seq_bits; }
    [[nodiscard]] std::uint32_t node_max() const noexcept { return (std::uint32_t{1} << d_.node_bits) - 1; }
    [[nodiscard]] std::uint32_t sequence_max() const noexcept { return (std::uint32_t{1} << d_.seq_bits) - 1; }

    // The smallest / largest ID (any node) whose time unit contains `t` (SQL: snowflake_lower,
    // snowflake_upper); errc::time_out_of_range before the epoch or past the layout's last unit.
    [[nodiscard]] Snowflake lower(sys_milliseconds t) const;
    [[nodiscard]] Snowflake upper(sys_milliseconds t) const;
    // Packs fields (time in layout units since the epoch); errc::out_of_range unless each fits
    // and the result is >= 1.
    [[nodiscard]] Snowflake pack(std::int64_t time_units, std::uint32_t node, std::uint32_t sequence) const;

    [[nodiscard]] const detail::LayoutData& data() const noexcept { return d_; }

    friend bool operator==(const SnowflakeLayout& a, const SnowflakeLayout& b) noexcept {
        return a.d_.kind == b.d_.kind && a.d_.epoch_ms == b.d_.epoch_ms && a.d_.unit_ms == b.d_.unit_ms &&
               a.d_.time_bits == b.d_.time_bits && a.d_.node_bits == b.d_.node_bits && a.d_.seq_bits == b.d_.seq_bits;
    }
    friend bool operator!=(const SnowflakeLayout& a, const SnowflakeLayout& b) noexcept { return !(a == b); }

private:
    explicit SnowflakeLayout(const detail::LayoutData& d) noexcept;
    detail::LayoutData d_;
};

// A 64-bit time-ordered integer ID, 1 .. 2^63-1 (SQL: snowflake). Which bits are time, node and
// sequence depends on the layout, so every decoder takes one (twitter by default, as in SQL).
class Snowflake {
public:
    static constexpr std::size_t max_text_size = 19;

    constexpr Snowflake() noexcept = default;  // 0: not an ID (the server refuses it)

    // errc::out_of_range unless 1 <= value <= 2^63-1.
    [[nodiscard]] static Snowflake from_int(std::int64_t value);
    // Decimal text as SQL reads it (surrounding spaces and a '+' allowed): errc::invalid_syntax,
    // or errc::out_of_range for 0, negatives and values above 2^63-1.
    [[nodiscard]] static Snowflake parse(std::string_view text);
    [[nodiscard]] static std::optional<Snowflake> try_parse(std::string_view text) noexcept;
    // 1 to 13 base36 characters (SQL: snowflake_from_base36).
    [[nodiscard]] static Snowflake from_base36(std::string_view text);

    [[nodiscard]] constexpr std::int64_t value() const noexcept { return value_; }
    [[nodiscard]] std::string to_string() const;
    // 13 lower-case base36 characters (SQL: snowflake_to_base36).
    [[nodiscard]] std::string to_base36() const;

    // SQL: snowflake_time, snowflake_node, snowflake_sequence.
    [[nodiscard]] std::int64_t unix_ms(const SnowflakeLayout& layout = SnowflakeLayout::twitter()) const noexcept;
    [[nodiscard]] sys_milliseconds time(const SnowflakeLayout& layout = SnowflakeLayout::twitter()) const noexcept {
        return sys_milliseconds(std::chrono::milliseconds(unix_ms(layout)));
    }
    [[nodiscard]] std::uint32_t node(const SnowflakeLayout& layout = SnowflakeLayout::twitter()) const noexcept;
    [[nodiscard]] std::uint32_t sequence(const SnowflakeLayout& layout = SnowflakeLayout::twitter()) const noexcept;

    friend constexpr bool operator==(Snowflake a, Snowflake b) noexcept { return a.value_ == b.value_; }
    friend constexpr bool operator!=(Snowflake a, Snowflake b) noexcept { return a.value_ != b.value_; }
    friend constexpr bool operator<(Snowflake a, Snowflake b) noexcept { return a.value_ < b.value_; }
    friend constexpr bool operator>(Snowflake a, Snowflake b) noexcept { return a.value_ > b.value_; }
    friend constexpr bool operator<=(Snowflake a, Snowflake b) noexcept { return a.value_ <= b.value_; }
    friend constexpr bool operator>=(Snowflake a, Snowflake b) noexcept { return a.value_ >= b.value_; }

private:
    constexpr explicit Snowflake(std::int64_t v) noexcept : value_(v) {}
    friend class SnowflakeLayout;
    friend class SnowflakeGenerator;
    std::int64_t value_ = 0;
};

struct SnowflakeOptions {
    // How far an ID's time may run ahead of the clock when a time unit's sequence is used up
    // (0 to 60 s); beyond it, next() sleeps until the clock catches up. As id_gen.max_run_ahead.
    std::chrono::milliseconds max_run_ahead{1000};
    // The longest next() waits for the clock before it throws errc::capacity_exceeded (a clock
    // that stepped far back would otherwise block it until the clock is back).
    std::chrono::milliseconds max_wait{2000};
    Clock clock;  // empty: the system clock
};

// Snowflakes for one node number of one layout. The state lives in this object: IDs are unique
// among the IDs of this object. Uniqueness across processes and servers is the node number's
// job: give every generator that issues into the same ID space (this process's, other
// processes', and each database server's id_gen.node_id) its own node number.
//
// Across a restart of the process: the first ID of a new generator is more than max_run_ahead
// after the clock reading at construction, so it is above every ID an earlier generator of the
// same node issued before it was destroyed (those were at most max_run_ahead ahead of the clock),
// as long as the system clock did not step back between the two.
class SnowflakeGenerator {
public:
    // errc::invalid_argument if `node` does not fit the layout, or max_run_ahead is outside 0..60 s.
    explicit SnowflakeGenerator(std::uint32_t node, const SnowflakeLayout& layout = SnowflakeLayout::twitter(),
                                SnowflakeOptions options = {});
    ~SnowflakeGenerator();
    SnowflakeGenerator(const SnowflakeGenerator&) = delete;
    SnowflakeGenerator& operator=(const SnowflakeGenerator&) = delete;

    // At capacity (4,096 IDs in one ms for twitter) the time field moves on ahead of the clock,
    // up to max_run_ahead; then next() sleeps (without holding the lock) until the clock catches
    // up. errc::capacity_exceeded after max_wait; errc::time_out_of_range before the layout's
    // epoch or once its time field is used up; errc::forked in a child process after fork().
    [[nodiscard]] Snowflake next();

    [[nodiscard]] std::uint32_t node() const noexcept;
    [[nodiscard]] const SnowflakeLayout& layout() const noexcept;

private:
    struct State;
    std::unique_ptr<State> s_;
};

// Text output, as to_string().
std::ostream& operator<<(std::ostream& os, Snowflake id);

}  // namespace id_gen

template <>
struct std::hash<id_gen::Snowflake> {
    std::size_t operator()(id_gen::Snowflake id) const noexcept { return std::hash<std::int64_t>{}(id.value()); }
};
