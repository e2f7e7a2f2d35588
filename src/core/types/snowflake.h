// id_gen core: snowflake IDs (64-bit, time-ordered integers) and their bit layouts.
//
// A layout is an epoch, a time unit, and three fields packed below the sign bit:
//
//   twitter     41 bits of ms since 1288834974657 | 10 node | 12 sequence        (4,096 IDs/ms/node)
//   instagram   41 bits of ms since an epoch | 13 shard | 10 sequence (64 bits)  (1,024 IDs/ms/shard)
//               the top time bit is the sign bit: only 2^40 ms (~34.8 years) are usable
//   sonyflake   39 bits of 10 ms units since 2014-09-01 | 8 sequence | 16 machine (256 IDs/10 ms/machine)
//   javascript  41 bits of ms since 2024-01-01 | 4 node | 8 sequence = 53 bits, so every ID is
//               <= 2^53-1 (a JavaScript safe integer) for 2^41 ms (~69.7 years, until 2093-09)
//               at up to 256 IDs/ms (256,000/s) per node, 16 nodes
//   custom      1 ms units, any epoch, time|node|sequence with widths summing to at most 63
//
// IDs are >= 1 and <= 2^63-1. Generation is a pure step function over a small POD state: the
// caller (src/pg) keeps the state in shared memory or a locked file and passes the clock in.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/base/result.h"

namespace idgen {

inline constexpr std::int64_t kTwitterEpochMs = 1288834974657;     // 2010-11-04T01:42:54.657Z
inline constexpr std::int64_t kInstagramEpochMs = 1314220021721;   // 2011-08-24T21:07:01.721Z
inline constexpr std::int64_t kSonyflakeEpochMs = 1409529600000;   // 2014-09-01T00:00:00Z
inline constexpr std::int64_t kJavascriptEpochMs = 1704067200000;  // 2024-01-01T00:00:00Z
inline constexpr std::int64_t kSnowflakeMax = INT64_MAX;

// kTrace is the generator state behind TraceIds (trace_decimal.h), never a user-visible layout.
enum class LayoutKind : std::uint8_t {
    kTwitter = 1,
    kInstagram = 2,
    kSonyflake = 3,
    kJavascript = 4,
    kCustom = 5,
    kTrace = 6,
    // 7 is the DecimalIds' state key (pg/generators/generators.h: kDecimalStateKind).
    kMonotonicUlid = 8
};

struct SnowflakeLayout {
    LayoutKind kind;
    std::int64_t epoch_ms;  // Unix ms of time 0
    std::int64_t unit_ms;   // length of one time unit (1, or 10 for Sonyflake)
    std::uint8_t time_bits, node_bits, seq_bits;
    std::uint8_t time_shift, node_shift, seq_shift;
    std::int64_t time_max;  // largest usable time value (the sign bit is never set)
    std::uint32_t seq_min;  // first sequence number of a time unit (0; 1 where a counter is never 0)

    [[nodiscard]] std::uint32_t node_max() const noexcept { return (std::uint32_t{1} << node_bits) - 1; }
    [[nodiscard]] std::uint32_t seq_max() const noexcept { return (std::uint32_t{1} << seq_bits) - 1; }
};

// Built-in layouts by name ("twitter", "instagram", "sonyflake", "javascript"; ASCII case-insensitive).
// The instagram layout uses Instagram's published epoch; shards pass their own (instagram_layout).
[[nodiscard]] Result<SnowflakeLayout> snowflake_named_layout(const char* name, std::size_t len) noexcept;
[[nodiscard]] SnowflakeLayout twitter_layout() noexcept;
[[nodiscard]] SnowflakeLayout instagram_layout(std::int64_t epoch_ms) noexcept;
// A shard's layout seen from a server holding a block of 2^seq_bits (0..10) of its sequence
// numbers: 41 time | (23 - seq_bits) shard and block position | seq_bits sequence. The bits are
// the instagram layout's; node = shard << (10 - seq_bits) | block start >> seq_bits.
[[nodiscard]] SnowflakeLayout shard_block_layout(std::int64_t epoch_ms, int seq_bits) noexcept;
// The state layout of TraceIds: whole Unix seconds (41 bits, no wrap) | 22-bit counter from 1, no
// node field. A step's ID is (seconds << 22 | counter); trace_from_state_id() makes the TraceId.
[[nodiscard]] SnowflakeLayout trace_state_layout() noexcept;
// The state layout of gen_monotonic_ulid(): Unix ms (47 bits, up to the year 6429) | 16-bit
// counter from 0, no node field. A step's ID is (ms << 16 | counter), the first 64 bits of the
// ULID (ulid_from_state_id(), ulid.h).
[[nodiscard]] SnowflakeLayout monotonic_ulid_state_layout() noexcept;

// time|node|sequence in 1 ms units. kOutOfRange unless every width is in range (time 1..63,
// node 0..31, sequence 0..31) and the widths sum to at most 63.
[[nodiscard]] Result<SnowflakeLayout> snowflake_custom_layout(std::int64_t epoch_ms, int time_bits, int node_bits,
                                                              int seq_bits) noexcept;

struct SnowflakeParts {
    std::int64_t time;  // in layout units since the epoch
    std::uint32_t node;
    std::uint32_t seq;
};

// Packs fields that must already fit (kOutOfRange otherwise, and for the value 0).
[[nodiscard]] Result<std::int64_t> snowflake_pack(const SnowflakeLayout& l, std::int64_t time, std::uint32_t node,
                                                  std::uint32_t seq) noexcept;
[[nodiscard]] SnowflakeParts snowflake_unpack(const SnowflakeLayout& l, std::int64_t id) noexcept;
// Unix ms of the start of the ID's time unit.
[[nodiscard]] std::int64_t snowflake_time_ms(const SnowflakeLayout& l, std::int64_t id) noexcept;

// The smallest / largest ID whose time unit contains Unix ms `ms` (any node, any sequence);
// kTimeOutOfRange when that unit is before the epoch or past the layout's last usable unit.
[[nodiscard]] Result<std::int64_t> snowflake_lower(const SnowflakeLayout& l, std::int64_t ms) noexcept;
[[nodiscard]] Result<std::int64_t> snowflake_upper(const SnowflakeLayout& l, std::int64_t ms) noexcept;

// Decimal text: optional surrounding spaces, optional sign, digits. kInvalidSyntax for malformed
// text, kOutOfRange for a value outside [1, 2^63-1].
[[nodiscard]] Result<std::int64_t> snowflake_parse(const char* text, std::size_t len) noexcept;
// Writes the decimal form and a NUL; returns its length (at most 19). `out` holds 20 bytes.
std::size_t snowflake_format(std::int64_t id, char* out) noexcept;

// ---------------------------------------------------------------------------------------------
// Generation.
//
// State shared by every issuer of one (layout, node) or (database, shard): the last time unit and
// sequence issued, and the highest clock reading seen (so a clock that steps back behaves as a
// clock that stands still).
struct SnowflakeState {
    std::int64_t last_time = -1;  // -1: nothing issued
    std::int64_t last_seq = 0;
    std::int64_t high_clock = -1;  // highest clock reading seen, in layout units
};

// After a restart: everything up to Unix ms `reserved_ms` may have been issued, so the next ID
// starts in a later time unit whatever the clock says.
void snowflake_state_restore(SnowflakeState& st, const SnowflakeLayout& l, std::int64_t reserved_ms) noexcept;

// A start at a horizon (a new state file, or state written by another server): everything up to
// `reserved_ms` may have been issued, *and* the clock is taken as it reads now (`now_ms`), not as
// the mark, so the run-ahead allowance is measured from the real clock: the first ID waits until
// it is within the allowance. That keeps every ID within max_run_ahead of the clock, so a server
// that starts at another's horizon can rely on that bound in turn.
void snowflake_state_restore_at_horizon(SnowflakeState& st, const SnowflakeLayout& l, std::int64_t reserved_ms,
                                        std::int64_t now_ms) noexcept;

// The persisted high-water mark only ever moves forward. `persisted_ms` is the mark last written
// for this generator (same epoch), `wanted_ms` the one a step asked for. Returns the mark to
// write, never below `persisted_ms`; when it equals `persisted_ms` nothing needs writing. (Two
// backends can ask for marks in one order and reach the file in the other: the later, smaller
// request must not overwrite the larger mark, or IDs issued up to it could be reissued after a
// restart with the clock gone back.)
[[nodiscard]] std::int64_t snowflake_mark_to_persist(std::int64_t persisted_ms, std::int64_t wanted_ms) noexcept;

// A mark persisted while the generator's epoch was `from_epoch_ms`, restated for `to_epoch_ms`
// (a shard re-created, or its registry row replaced, with another epoch). What must be preserved
// is the *time field* (the mark minus the epoch): every ID issued under the old epoch has a time
// field at or below it, so with a later epoch the mark moves later by the difference. The result
// is never below `reserved_ms` and saturates at INT64_MAX; INT64_MIN (no mark) stays as is.
[[nodiscard]] std::int64_t snowflake_mark_for_epoch(std::int64_t reserved_ms, std::int64_t from_epoch_ms,
                                                    std::int64_t to_epoch_ms) noexcept;

enum class StepKind : std::uint8_t {
    kIssued,   // `id` is new; the state has been advanced
    kWait,     // the sequence is full up to the run-ahead limit: retry once the clock reaches `ms`
    kReserve,  // the ID would be later than `reserved_ms`: persist a reserve >= `ms`, then retry
};
struct Step {
    StepKind kind;
    std::int64_t id;      // kIssued: the first ID of the lease
    std::int64_t ms;      // kIssued: Unix ms of the IDs' time unit; kWait / kReserve: see above
    std::uint32_t count;  // kIssued: the lease is `count` IDs, sequence numbers seq(id) .. seq(id)+count-1
};

// One generation step. `now_ms` is the clock; `max_ahead_ms` bounds how far past the highest clock
// reading the time field may run when a time unit's sequence is used up; `reserved_ms` is the
// persisted high-water mark (IDs are only issued at or below it). The state only changes on
// kIssued. A full sequence moves to the next time unit, never wraps. Errors: kOutOfRange (node
// does not fit), kTimeOutOfRange (clock before the epoch, or the layout's time field exhausted:
// for instagram the sign bit would be reached).
//
// Leases: with `want` > 1 a kIssued step hands out up to `want` consecutive sequence numbers of one
// time unit (never more than the unit has left), recorded in the state as issued. The caller may
// issue them one by one (snowflake_lease_next) without touching the shared state again.
[[nodiscard]] Result<Step> snowflake_step(SnowflakeState& st, const SnowflakeLayout& l, std::uint32_t node,
                                          std::int64_t now_ms, std::int64_t max_ahead_ms, std::int64_t reserved_ms,
                                          std::uint32_t want = 1) noexcept;

// A block of IDs leased from shared generator state, issued locally by one backend.
struct SnowflakeLease {
    std::int64_t next_id = 0;      // the next ID to hand out; 0 = no lease
    std::uint32_t left = 0;        // IDs left in the lease
    std::int64_t unit = -1;        // the lease's time unit (layout units since the epoch)
    std::int64_t clock_unit = -1;  // the clock's unit when the lease was taken
    std::uint32_t size = 0;        // how many IDs the lease had
};

// Starts a lease from a kIssued step taken when the clock read `now_ms`.
void snowflake_lease_start(SnowflakeLease& lease, const SnowflakeLayout& l, const Step& step,
                           std::int64_t now_ms) noexcept;
// The next ID of the lease, or 0 when the lease is used up or stale. A lease only serves while the
// clock is still in the unit it was taken in (or behind it): so an ID's time is never earlier than
// the clock's unit when it was handed out, as without leases, and IDs handed out one clock unit or
// more apart are ordered across backends even while the generator runs ahead of the clock. (Within
// one clock unit, backends' leases interleave.) A returned ID is always >= 1.
[[nodiscard]] std::int64_t snowflake_lease_next(SnowflakeLease& lease, const SnowflakeLayout& l,
                                                std::int64_t now_ms) noexcept;

}  // namespace idgen
