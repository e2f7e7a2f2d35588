#include "core/types/trace_decimal.h"

#include "core/base/no_pg_check.h"

namespace idgen {
namespace {

constexpr int kTraceNodeShift = kTraceCounterBits;
constexpr int kTraceTimeShift = kTraceCounterBits + kTraceNodeBits;  // 38

std::int64_t floor_mod(std::int64_t a, std::int64_t m) noexcept {
    const std::int64_t r = a % m;
    return r < 0 ? r + m : r;
}

}  // namespace

Result<std::int64_t> trace_pack(std::int64_t unix_s, std::uint32_t node, std::uint32_t counter) noexcept {
    if (unix_s < 0 || node > kTraceNodeMax || counter < 1 || counter > kTraceCounterMax) return Error::kOutOfRange;
    const auto ts = static_cast<std::uint64_t>(unix_s % kTracePeriodS);
    return static_cast<std::int64_t>(ts << kTraceTimeShift | std::uint64_t{node} << kTraceNodeShift | counter);
}

Result<std::int64_t> trace_from_state_id(std::int64_t state_id, std::uint32_t node) noexcept {
    if (state_id < 0) return Error::kOutOfRange;
    return trace_pack(state_id >> kTraceCounterBits, node,
                      static_cast<std::uint32_t>(state_id & static_cast<std::int64_t>(kTraceCounterMax)));
}

TraceParts trace_unpack(std::int64_t id) noexcept {
    const auto u = static_cast<std::uint64_t>(id);
    TraceParts p{};
    p.ts = static_cast<std::int64_t>((u >> kTraceTimeShift) & static_cast<std::uint64_t>(kTracePeriodS - 1));
    p.node = static_cast<std::uint32_t>((u >> kTraceNodeShift) & kTraceNodeMax);
    p.counter = static_cast<std::uint32_t>(u & kTraceCounterMax);
    return p;
}

std::int64_t trace_time_s(std::int64_t id, std::int64_t reference_s) noexcept {
    const std::int64_t ts = trace_unpack(id).ts;
    // How far the reference is past the latest second at or before it with this residue.
    const std::int64_t back = floor_mod(floor_mod(reference_s, kTracePeriodS) - ts, kTracePeriodS);
    // reference_s - back is at or before the reference; the next candidate is a period later.
    return back > kTracePeriodS / 2 ? reference_s - back + kTracePeriodS : reference_s - back;
}

TraceCheck trace_check(std::int64_t id, std::int64_t reference_s, std::int64_t max_skew_s) noexcept {
    if (id <= 0) return TraceCheck::kNotPositive;
    if (trace_unpack(id).counter == 0) return TraceCheck::kZeroCounter;
    const std::int64_t t = trace_time_s(id, reference_s);
    const std::int64_t d = t > reference_s ? t - reference_s : reference_s - t;  // at most half a period
    return d > max_skew_s ? TraceCheck::kSkewed : TraceCheck::kValid;
}

Result<std::int64_t> decimal_pack(std::int64_t counter, std::int64_t generator, std::int64_t launch) noexcept {
    if (counter < 1 || counter > kDecimalCounterMax || generator < 0 || generator > kDecimalGeneratorMax ||
        launch < 0 || launch > kDecimalLaunchMax)
        return Error::kOutOfRange;
    return counter * kDecimalCounterUnit + generator * kDecimalGeneratorUnit + launch;
}

Result<DecimalParts> decimal_unpack(std::int64_t id) noexcept {
    if (id < kDecimalCounterUnit) return Error::kOutOfRange;
    DecimalParts p{};
    p.counter = id / kDecimalCounterUnit;
    p.generator = (id % kDecimalCounterUnit) / kDecimalGeneratorUnit;
    p.launch = id % kDecimalGeneratorUnit;
    if (p.counter > kDecimalCounterMax) return Error::kOutOfRange;
    return p;
}

DecimalStep decimal_step(DecimalState& st, std::int64_t want) noexcept {
    if (st.generator < 0 || st.generator > kDecimalGeneratorMax || st.counter >= kDecimalCounterMax || st.counter < 0)
        return DecimalStep{DecimalStepKind::kNeedGenerator, st.generator, 0, 0};
    const std::int64_t room = kDecimalCounterMax - st.counter;
    const std::int64_t count = want < 1 ? 1 : (want < room ? want : room);
    const DecimalStep s{DecimalStepKind::kIssued, st.generator, st.counter + 1, count};
    st.counter += count;
    return s;
}

Result<std::int64_t> decimal_next_generator(std::int64_t granted) noexcept {
    if (granted < -1) granted = -1;
    if (granted >= kDecimalGeneratorMax) return Error::kCapacityExceeded;
    return granted + 1;
}

}  // namespace idgen
