// id_gen core: TraceId and DecimalId, two 63-bit integer IDs from "Pattern: ID Generation".
//
// TraceId   ts << 38 | node << 22 | counter
//           ts: Unix seconds modulo 2^25 (the field wraps every 2^25 s, about 388.4 days),
//           node: 16 bits (id_gen.node_id), counter: 22 bits, 1 .. 4,194,303 (never 0, so no ID
//           is 0). Unique within one wrap period; the time it encodes is read relative to a
//           reference time (the period nearest to it).
// DecimalId counter * 10^10 + generator * 10^5 + launch, read in decimal as c...cggggglllll:
//           counter 1 .. 922,337,202, generator 0 .. 99,999, launch 0 .. 99,999 (0 for tests).
//           The largest is 9,223,372,029,999,999,999 < 2^63.
//
// Generation state lives in src/pg (shared memory or a locked file). TraceIds are made by the
// snowflake step over trace_state_layout() (whole seconds, counter from 1), whose state IDs are
// turned into TraceIds here. DecimalIds are made by decimal_step() below.
#pragma once

#include <cstdint>

#include "core/base/result.h"

namespace idgen {

inline constexpr int kTraceTimeBits = 25;
inline constexpr int kTraceNodeBits = 16;
inline constexpr int kTraceCounterBits = 22;
inline constexpr std::int64_t kTracePeriodS = std::int64_t{1} << kTraceTimeBits;  // 33,554,432 s
inline constexpr std::uint32_t kTraceNodeMax = (1u << kTraceNodeBits) - 1;        // 65,535
inline constexpr std::uint32_t kTraceCounterMax = (1u << kTraceCounterBits) - 1;  // 4,194,303

struct TraceParts {
    std::int64_t ts;  // Unix seconds modulo 2^25
    std::uint32_t node;
    std::uint32_t counter;
};

// A TraceId from whole Unix seconds (any, >= 0: taken modulo 2^25), a node and a counter.
// kOutOfRange when a field does not fit (node > 65,535, counter 0 or > 4,194,303, seconds < 0).
[[nodiscard]] Result<std::int64_t> trace_pack(std::int64_t unix_s, std::uint32_t node, std::uint32_t counter) noexcept;
// The TraceId of a state ID of trace_state_layout() (Unix seconds << 22 | counter) and a node.
// kOutOfRange as trace_pack.
[[nodiscard]] Result<std::int64_t> trace_from_state_id(std::int64_t state_id, std::uint32_t node) noexcept;
[[nodiscard]] TraceParts trace_unpack(std::int64_t id) noexcept;

// The Unix second an ID's 25-bit time stands for: of the seconds congruent to it modulo 2^25, the
// one nearest `reference_s` (at exactly half a period either way, the earlier one). References
// are whole seconds of a finite timestamptz (|reference_s| < 2^44); nothing overflows there.
[[nodiscard]] std::int64_t trace_time_s(std::int64_t id, std::int64_t reference_s) noexcept;

enum class TraceCheck : std::uint8_t {
    kValid,
    kNotPositive,  // 0, or the top bit set (a negative bigint)
    kZeroCounter,  // the counter field is 0: no generator issues that
    kSkewed,       // the time it stands for is more than the allowed skew from the reference
};
// Checks an ID seen at `reference_s`: positive, counter >= 1, and its time within `max_skew_s`
// (>= 0) of the reference.
[[nodiscard]] TraceCheck trace_check(std::int64_t id, std::int64_t reference_s, std::int64_t max_skew_s) noexcept;

// ---------------------------------------------------------------------------------------------
inline constexpr std::int64_t kDecimalCounterMax = 922'337'202;
inline constexpr std::int64_t kDecimalGeneratorMax = 99'999;
inline constexpr std::int64_t kDecimalLaunchMax = 99'999;
inline constexpr std::int64_t kDecimalCounterUnit = 10'000'000'000;  // 10^10
inline constexpr std::int64_t kDecimalGeneratorUnit = 100'000;       // 10^5

struct DecimalParts {
    std::int64_t counter;
    std::int64_t generator;
    std::int64_t launch;
};

// kOutOfRange unless counter is 1..922,337,202, generator 0..99,999 and launch 0..99,999.
[[nodiscard]] Result<std::int64_t> decimal_pack(std::int64_t counter, std::int64_t generator,
                                                std::int64_t launch) noexcept;
// kOutOfRange for an ID no generator makes: below 10^10 (counter 0) or above the largest.
[[nodiscard]] Result<DecimalParts> decimal_unpack(std::int64_t id) noexcept;

// One generator's live state: its number (-1: none yet) and the last counter handed out.
struct DecimalState {
    std::int64_t generator = -1;
    std::int64_t counter = 0;
};
enum class DecimalStepKind : std::uint8_t {
    kIssued,         // counters first .. first+count-1 of `generator` are handed out
    kNeedGenerator,  // no generator, or its counter is used up: take a new generator number
};
struct DecimalStep {
    DecimalStepKind kind;
    std::int64_t generator;
    std::int64_t first;  // first counter of the lease
    std::int64_t count;  // how many counters the lease holds (>= 1)
};
// Hands out up to `want` (>= 1) consecutive counters of the state's generator, never past
// kDecimalCounterMax; the state records them as used.
[[nodiscard]] DecimalStep decimal_step(DecimalState& st, std::int64_t want) noexcept;

// The generator number after `granted` (the largest ever handed out on this launch, -1 for none).
// kCapacityExceeded when all 100,000 are used up.
[[nodiscard]] Result<std::int64_t> decimal_next_generator(std::int64_t granted) noexcept;

}  // namespace idgen
