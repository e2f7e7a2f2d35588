// libFuzzer target: the TraceId and DecimalId codecs (no text parser: both are bigints; this
// checks their arithmetic on every input). Invariants: never crash or overflow (UBSan); any
// positive TraceId with a counter unpacks and packs back to itself; its time read near any
// reference a timestamptz can hold is congruent modulo 2^25 and at most half a period away; any
// DecimalId that unpacks packs back to itself, and what packs unpacks.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/types/trace_decimal.h"

namespace {
std::int64_t take(const std::uint8_t*& p, std::size_t& n) {
    std::int64_t v = 0;
    const std::size_t k = n < 8 ? n : 8;
    std::memcpy(&v, p, k);
    p += k;
    n -= k;
    return v;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::int64_t id = take(data, size);
    // References as the SQL functions pass them: whole seconds of a finite timestamptz (|s| < 2^44).
    const std::int64_t ref = take(data, size) % (std::int64_t{1} << 44);
    const std::int64_t skew = take(data, size) & ((std::int64_t{1} << 40) - 1);
    const std::int64_t P = idgen::kTracePeriodS;

    const auto p = idgen::trace_unpack(id);
    if (p.ts < 0 || p.ts >= P || p.node > idgen::kTraceNodeMax || p.counter > idgen::kTraceCounterMax) __builtin_trap();
    const auto check = idgen::trace_check(id, ref, skew);
    if (id > 0 && p.counter >= 1) {
        auto back = idgen::trace_pack(p.ts, p.node, p.counter);
        if (!back.ok() || *back != id) __builtin_trap();
        const std::int64_t t = idgen::trace_time_s(id, ref);
        if ((((t % P) + P) % P) != p.ts) __builtin_trap();
        if (t - ref > P / 2 || ref - t > P / 2) __builtin_trap();
        const std::int64_t d = t > ref ? t - ref : ref - t;
        if ((check == idgen::TraceCheck::kValid) != (d <= skew)) __builtin_trap();
    } else if (check == idgen::TraceCheck::kValid) {
        __builtin_trap();
    }

    auto dp = idgen::decimal_unpack(id);
    if (dp.ok()) {
        auto re = idgen::decimal_pack(dp->counter, dp->generator, dp->launch);
        if (!re.ok() || *re != id) __builtin_trap();
    }
    const std::int64_t c = take(data, size), g = take(data, size), l = take(data, size);
    auto packed = idgen::decimal_pack(c, g, l);
    if (packed.ok()) {
        auto un = idgen::decimal_unpack(*packed);
        if (!un.ok() || un->counter != c || un->generator != g || un->launch != l) __builtin_trap();
    }
    return 0;
}
