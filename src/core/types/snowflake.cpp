#include "core/types/snowflake.h"

#include "core/base/no_pg_check.h"

namespace idgen {
namespace {

SnowflakeLayout make(LayoutKind kind, std::int64_t epoch, std::int64_t unit, int tb, int nb, int sb,
                     bool seq_above_node) {
    SnowflakeLayout l{};
    l.kind = kind;
    l.epoch_ms = epoch;
    l.unit_ms = unit;
    l.time_bits = static_cast<std::uint8_t>(tb);
    l.node_bits = static_cast<std::uint8_t>(nb);
    l.seq_bits = static_cast<std::uint8_t>(sb);
    if (seq_above_node) {  // sonyflake: time | sequence | machine
        l.node_shift = 0;
        l.seq_shift = static_cast<std::uint8_t>(nb);
    } else {  // time | node | sequence
        l.seq_shift = 0;
        l.node_shift = static_cast<std::uint8_t>(sb);
    }
    l.time_shift = static_cast<std::uint8_t>(nb + sb);
    // The largest time whose IDs stay below 2^63: the field's own maximum, cut by the sign bit.
    const std::int64_t by_width = tb >= 63 ? INT64_MAX : (std::int64_t{1} << tb) - 1;
    const std::int64_t by_sign = INT64_MAX >> l.time_shift;
    l.time_max = by_width < by_sign ? by_width : by_sign;
    return l;
}

bool name_is(const char* s, std::size_t n, const char* lit) noexcept {
    std::size_t i = 0;
    for (; i < n; ++i) {
        if (lit[i] == '\0') return false;
        char c = s[i];
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        if (c != lit[i]) return false;
    }
    return lit[i] == '\0';
}

// Floor division (the divisor is positive).
std::int64_t floor_div(std::int64_t a, std::int64_t b) noexcept {
    std::int64_t q = a / b;
    if ((a % b) != 0 && a < 0) --q;
    return q;
}

// The time unit containing Unix ms `ms`, or kTimeOutOfRange; guards against overflow near INT64 limits.
Result<std::int64_t> unit_of(const SnowflakeLayout& l, std::int64_t ms) noexcept {
    if (ms < l.epoch_ms) return Error::kTimeOutOfRange;
    // ms >= epoch, but a custom layout's epoch may be negative (down to -2^53), so the distance
    // can still overflow near INT64_MAX (an infinite timestamp maps there).
    std::int64_t since = 0;
    if (__builtin_sub_overflow(ms, l.epoch_ms, &since)) return Error::kTimeOutOfRange;
    const std::int64_t t = floor_div(since, l.unit_ms);
    if (t > l.time_max) return Error::kTimeOutOfRange;
    return t;
}

std::int64_t compose(const SnowflakeLayout& l, std::int64_t t, std::uint32_t node, std::uint32_t seq) noexcept {
    return static_cast<std::int64_t>((static_cast<std::uint64_t>(t) << l.time_shift) |
                                     (static_cast<std::uint64_t>(node) << l.node_shift) |
                                     (static_cast<std::uint64_t>(seq) << l.seq_shift));
}

}  // namespace

SnowflakeLayout twitter_layout() noexcept { return make(LayoutKind::kTwitter, kTwitterEpochMs, 1, 41, 10, 12, false); }

SnowflakeLayout instagram_layout(std::int64_t epoch_ms) noexcept {
    return make(LayoutKind::kInstagram, epoch_ms, 1, 41, 13, 10, false);
}

SnowflakeLayout shard_block_layout(std::int64_t epoch_ms, int seq_bits) noexcept {
    if (seq_bits < 0) seq_bits = 0;
    if (seq_bits > 10) seq_bits = 10;
    return make(LayoutKind::kInstagram, epoch_ms, 1, 41, 23 - seq_bits, seq_bits, false);
}

SnowflakeLayout trace_state_layout() noexcept {
    SnowflakeLayout l = make(LayoutKind::kTrace, 0, 1000, 41, 0, 22, false);
    l.seq_min = 1;
    return l;
}

SnowflakeLayout monotonic_ulid_state_layout() noexcept {
    return make(LayoutKind::kMonotonicUlid, 0, 1, 47, 0, 16, false);
}

Result<SnowflakeLayout> snowflake_named_layout(const char* name, std::size_t len) noexcept {
    if (name_is(name, len, "twitter")) return twitter_layout();
    if (name_is(name, len, "instagram")) return instagram_layout(kInstagramEpochMs);
    if (name_is(name, len, "sonyflake")) return make(LayoutKind::kSonyflake, kSonyflakeEpochMs, 10, 39, 16, 8, true);
    if (name_is(name, len, "javascript")) return make(LayoutKind::kJavascript, kJavascriptEpochMs, 1, 41, 4, 8, false);
    return Error::kInvalidSyntax;
}

Result<SnowflakeLayout> snowflake_custom_layout(std::int64_t epoch_ms, int time_bits, int node_bits,
                                                int seq_bits) noexcept {
    if (time_bits < 1 || time_bits > 63 || node_bits < 0 || node_bits > 31 || seq_bits < 0 || seq_bits > 31)
        return Error::kOutOfRange;
    if (time_bits + node_bits + seq_bits > 63) return Error::kOutOfRange;
    // The epoch must leave room for the whole time range in int64 Unix ms.
    if (epoch_ms < -(std::int64_t{1} << 53) || epoch_ms > (std::int64_t{1} << 53)) return Error::kOutOfRange;
    return make(LayoutKind::kCustom, epoch_ms, 1, time_bits, node_bits, seq_bits, false);
}

Result<std::int64_t> snowflake_pack(const SnowflakeLayout& l, std::int64_t time, std::uint32_t node,
                                    std::uint32_t seq) noexcept {
    if (time < 0 || time > l.time_max || node > l.node_max() || seq > l.seq_max()) return Error::kOutOfRange;
    const std::int64_t id = compose(l, time, node, seq);
    if (id < 1) return Error::kOutOfRange;
    return id;
}

SnowflakeParts snowflake_unpack(const SnowflakeLayout& l, std::int64_t id) noexcept {
    const auto u = static_cast<std::uint64_t>(id);
    SnowflakeParts p{};
    const std::uint64_t tmask = l.time_bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << l.time_bits) - 1;
    p.time = static_cast<std::int64_t>((u >> l.time_shift) & tmask);
    p.node = static_cast<std::uint32_t>((u >> l.node_shift) & l.node_max());
    p.seq = static_cast<std::uint32_t>((u >> l.seq_shift) & l.seq_max());
    return p;
}

std::int64_t snowflake_time_ms(const SnowflakeLayout& l, std::int64_t id) noexcept {
    return l.epoch_ms + snowflake_unpack(l, id).time * l.unit_ms;
}

Result<std::int64_t> snowflake_lower(const SnowflakeLayout& l, std::int64_t ms) noexcept {
    auto t = unit_of(l, ms);
    if (!t) return t.error();
    const std::int64_t id = compose(l, *t, 0, 0);
    return id < 1 ? 1 : id;
}

Result<std::int64_t> snowflake_upper(const SnowflakeLayout& l, std::int64_t ms) noexcept {
    auto t = unit_of(l, ms);
    if (!t) return t.error();
    const std::int64_t id = compose(l, *t, l.node_max(), l.seq_max());
    // A layout without node and sequence bits has no ID in its first unit (that would be 0).
    if (id < 1) return Error::kTimeOutOfRange;
    return id;
}

Result<std::int64_t> snowflake_parse(const char* s, std::size_t n) noexcept {
    std::size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '\f' || s[i] == '\v')) ++i;
    bool neg = false;
    if (i < n && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
    const std::size_t digits_at = i;
    std::uint64_t v = 0;
    bool overflow = false;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; ++i) {
        const auto d = static_cast<std::uint64_t>(s[i] - '0');
        if (v > (static_cast<std::uint64_t>(INT64_MAX) - d) / 10)
            overflow = true;
        else
            v = v * 10 + d;
    }
    if (i == digits_at) return Error::kInvalidSyntax;
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '\f' || s[i] == '\v')) ++i;
    if (i != n) return Error::kInvalidSyntax;
    if (overflow || neg || v == 0) return Error::kOutOfRange;  // "-0" and "0" are out of range too
    return static_cast<std::int64_t>(v);
}

std::size_t snowflake_format(std::int64_t id, char* out) noexcept {
    char tmp[20];
    std::size_t n = 0;
    auto v = static_cast<std::uint64_t>(id < 0 ? 0 : id);
    do {
        tmp[n++] = static_cast<char>('0' + v % 10);
        v /= 10;
    } while (v != 0);
    for (std::size_t i = 0; i < n; ++i) out[i] = tmp[n - 1 - i];
    out[n] = '\0';
    return n;
}

void snowflake_state_restore(SnowflakeState& st, const SnowflakeLayout& l, std::int64_t reserved_ms) noexcept {
    if (reserved_ms < l.epoch_ms) return;  // nothing of this layout can have been issued
    std::int64_t since = 0;
    std::int64_t t = __builtin_sub_overflow(reserved_ms, l.epoch_ms, &since) ? l.time_max : floor_div(since, l.unit_ms);
    if (t > l.time_max) t = l.time_max;
    // Treat the reserved unit as used up: the next ID takes a later unit.
    if (t > st.last_time || (t == st.last_time && st.last_seq < l.seq_max())) {
        st.last_time = t;
        st.last_seq = l.seq_max();
    }
    if (st.high_clock < t) st.high_clock = t;
}

void snowflake_state_restore_at_horizon(SnowflakeState& st, const SnowflakeLayout& l, std::int64_t reserved_ms,
                                        std::int64_t now_ms) noexcept {
    snowflake_state_restore(st, l, reserved_ms);
    const std::int64_t now = now_ms >= l.epoch_ms ? floor_div(now_ms - l.epoch_ms, l.unit_ms) : -1;
    if (st.high_clock > now) st.high_clock = now;
}

std::int64_t snowflake_mark_to_persist(std::int64_t persisted_ms, std::int64_t wanted_ms) noexcept {
    return wanted_ms > persisted_ms ? wanted_ms : persisted_ms;
}

std::int64_t snowflake_mark_for_epoch(std::int64_t reserved_ms, std::int64_t from_epoch_ms,
                                      std::int64_t to_epoch_ms) noexcept {
    // An earlier epoch (or none, or no mark): the Unix-ms mark already keeps time fields above.
    if (reserved_ms == INT64_MIN || to_epoch_ms <= from_epoch_ms) return reserved_ms;
    std::int64_t shift = 0, moved = 0;
    if (__builtin_sub_overflow(to_epoch_ms, from_epoch_ms, &shift)) return INT64_MAX;
    if (__builtin_add_overflow(reserved_ms, shift, &moved)) return INT64_MAX;
    return moved;
}

Result<Step> snowflake_step(SnowflakeState& st, const SnowflakeLayout& l, std::uint32_t node, std::int64_t now_ms,
                            std::int64_t max_ahead_ms, std::int64_t reserved_ms, std::uint32_t want) noexcept {
    if (node > l.node_max()) return Error::kOutOfRange;
    if (now_ms < l.epoch_ms) return Error::kTimeOutOfRange;
    // The clock in layout units; never below the highest reading seen (a clock stepping back
    // stands still instead).
    std::int64_t now = floor_div(now_ms - l.epoch_ms, l.unit_ms);
    if (now < st.high_clock) now = st.high_clock;

    std::int64_t t;
    std::int64_t seq;
    if (st.last_time >= now) {
        t = st.last_time;
        seq = st.last_seq + 1;
        if (seq > static_cast<std::int64_t>(l.seq_max())) {  // unit used up: borrow the next one
            if (t >= l.time_max) return Error::kTimeOutOfRange;
            ++t;
            seq = l.seq_min;
        }
    } else {
        t = now;
        seq = l.seq_min;
    }
    if (t > l.time_max) return Error::kTimeOutOfRange;
    // The value 0 is not an ID: at time 0, node 0 the first sequence number is skipped.
    if (compose(l, t, node, static_cast<std::uint32_t>(seq)) == 0) {
        if (seq < static_cast<std::int64_t>(l.seq_max())) {
            seq = 1;
        } else {
            ++t;
            seq = l.seq_min;
        }
    }
    // Run-ahead: the time field may lead the clock by at most max_ahead_ms.
    const std::int64_t ahead_units = t - now;
    if (ahead_units > 0 && ahead_units * l.unit_ms > max_ahead_ms) {
        // Retry when the clock has reached the unit that makes this lead acceptable.
        const std::int64_t need_units = t - floor_div(max_ahead_ms, l.unit_ms);
        return Step{StepKind::kWait, 0, l.epoch_ms + need_units * l.unit_ms, 0};
    }
    const std::int64_t t_ms = l.epoch_ms + t * l.unit_ms;
    if (t_ms > reserved_ms) return Step{StepKind::kReserve, 0, t_ms, 0};
    // The lease: `want` sequence numbers from `seq`, at most up to the unit's last one.
    const std::int64_t room = static_cast<std::int64_t>(l.seq_max()) - seq + 1;
    const std::int64_t count = want < 1 ? 1 : (static_cast<std::int64_t>(want) < room ? want : room);
    st.last_time = t;
    st.last_seq = seq + count - 1;
    if (st.high_clock < now) st.high_clock = now;
    return Step{StepKind::kIssued, compose(l, t, node, static_cast<std::uint32_t>(seq)), t_ms,
                static_cast<std::uint32_t>(count)};
}

void snowflake_lease_start(SnowflakeLease& lease, const SnowflakeLayout& l, const Step& step,
                           std::int64_t now_ms) noexcept {
    lease.next_id = step.id;
    lease.left = step.count;
    lease.unit = snowflake_unpack(l, step.id).time;
    lease.clock_unit = now_ms >= l.epoch_ms ? floor_div(now_ms - l.epoch_ms, l.unit_ms) : -1;
    lease.size = step.count;
}

std::int64_t snowflake_lease_next(SnowflakeLease& lease, const SnowflakeLayout& l, std::int64_t now_ms) noexcept {
    if (lease.left == 0 || lease.next_id < 1) return 0;
    // Stale once the clock has left the unit it read when the lease was taken (a clock that went
    // back keeps it; the lease's own unit is at or after that one).
    if (now_ms >= l.epoch_ms && floor_div(now_ms - l.epoch_ms, l.unit_ms) > lease.clock_unit) {
        lease.left = 0;
        return 0;
    }
    const std::int64_t id = lease.next_id;
    --lease.left;
    // Consecutive sequence numbers of one unit: the sequence field's step in the packed ID.
    lease.next_id += std::int64_t{1} << l.seq_shift;
    return id;
}

}  // namespace idgen
