#include "core/types/trace_decimal.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>

#include "core/types/snowflake.h"

using idgen::DecimalState;
using idgen::DecimalStepKind;
using idgen::Error;
using idgen::StepKind;

namespace {

// Issues through the trace state layout with the snowflake step, as the server does, and returns
// the TraceId for `node` (0 when the step did not issue).
std::int64_t trace_issue(idgen::SnowflakeState& st, std::uint32_t node, std::int64_t now_ms,
                         std::int64_t max_ahead_ms = 1000) {
    const auto l = idgen::trace_state_layout();
    auto s = idgen::snowflake_step(st, l, 0, now_ms, max_ahead_ms, INT64_MAX);
    EXPECT_TRUE(s.ok());
    if (!s.ok() || s->kind != StepKind::kIssued) return 0;
    auto id = idgen::trace_from_state_id(s->id, node);
    EXPECT_TRUE(id.ok());
    return *id;
}

}  // namespace

// The bit layout: ts << 38 | node << 22 | counter, with the time taken modulo 2^25.
TEST(TraceId, Layout) {
    const std::int64_t s = 1700000000;  // 2023-11-14T22:13:20Z
    auto id = idgen::trace_pack(s, 7, 5);
    ASSERT_TRUE(id.ok());
    EXPECT_EQ(*id, ((s % (1LL << 25)) << 38) | (7LL << 22) | 5);
    EXPECT_EQ(*id, 6123839962090569733LL);
    const auto p = idgen::trace_unpack(*id);
    EXPECT_EQ(p.ts, s % (1LL << 25));
    EXPECT_EQ(p.node, 7u);
    EXPECT_EQ(p.counter, 5u);
    // Seconds one period apart give the same ID: unique within a period only.
    EXPECT_EQ(*idgen::trace_pack(s + idgen::kTracePeriodS, 7, 5), *id);
    // The largest fields fill 63 bits exactly: never the sign bit.
    auto top = idgen::trace_pack(idgen::kTracePeriodS - 1, 65535, 4194303);
    ASSERT_TRUE(top.ok());
    EXPECT_EQ(*top, INT64_MAX);
}

TEST(TraceId, FieldsOutOfRange) {
    EXPECT_EQ(idgen::trace_pack(1, 65536, 1).error(), Error::kOutOfRange);
    EXPECT_EQ(idgen::trace_pack(1, 0, 0).error(), Error::kOutOfRange);  // counter 0: never issued
    EXPECT_EQ(idgen::trace_pack(1, 0, 4194304).error(), Error::kOutOfRange);
    EXPECT_EQ(idgen::trace_pack(-1, 0, 1).error(), Error::kOutOfRange);
    // The smallest: second 0 of a period, node 0, counter 1.
    EXPECT_EQ(*idgen::trace_pack(0, 0, 1), 1);
    EXPECT_EQ(*idgen::trace_pack(idgen::kTracePeriodS, 0, 1), 1);
}

// The time is resolved to the period nearest the reference; a tie goes to the earlier one.
TEST(TraceId, TimeNearestTheReference) {
    const std::int64_t s = 1700000000, P = idgen::kTracePeriodS;
    const std::int64_t id = *idgen::trace_pack(s, 1, 1);
    EXPECT_EQ(idgen::trace_time_s(id, s), s);
    EXPECT_EQ(idgen::trace_time_s(id, s + P / 2), s);
    EXPECT_EQ(idgen::trace_time_s(id, s + P / 2 + 1), s + P);
    EXPECT_EQ(idgen::trace_time_s(id, s - P / 2 + 1), s);
    EXPECT_EQ(idgen::trace_time_s(id, s - P / 2), s - P);
    EXPECT_EQ(idgen::trace_time_s(id, s + 10 * P + 3), s + 10 * P);
    // Before 1970 as a reference (negative seconds) works too.
    EXPECT_EQ(idgen::trace_time_s(*idgen::trace_pack(5, 0, 1), -3), 5);
    // Every residue and many references: the result is congruent and at most half a period away.
    for (std::int64_t ref = s - P; ref < s + P; ref += 977777) {
        for (std::int64_t t = 0; t < P; t += 3333331) {
            const std::int64_t got = idgen::trace_time_s(*idgen::trace_pack(t, 0, 1), ref);
            EXPECT_EQ(((got % P) + P) % P, t);
            EXPECT_LE(got - ref, P / 2);
            EXPECT_GE(got - ref, -P / 2);
        }
    }
}

TEST(TraceId, Check) {
    const std::int64_t s = 1700000000;
    const std::int64_t id = *idgen::trace_pack(s, 1, 1);
    EXPECT_EQ(idgen::trace_check(0, s, 86400), idgen::TraceCheck::kNotPositive);
    EXPECT_EQ(idgen::trace_check(id | INT64_MIN, s, 86400), idgen::TraceCheck::kNotPositive);
    EXPECT_EQ(idgen::trace_check(id & ~std::int64_t{0x3FFFFF}, s, 86400), idgen::TraceCheck::kZeroCounter);
    EXPECT_EQ(idgen::trace_check(id, s + 86400, 86400), idgen::TraceCheck::kValid);
    EXPECT_EQ(idgen::trace_check(id, s + 86401, 86400), idgen::TraceCheck::kSkewed);
    EXPECT_EQ(idgen::trace_check(id, s - 86401, 86400), idgen::TraceCheck::kSkewed);
    EXPECT_EQ(idgen::trace_check(id, s - 86400, 86400), idgen::TraceCheck::kValid);
    EXPECT_EQ(idgen::trace_check(id, s, 0), idgen::TraceCheck::kValid);
}

// The generator: a counter from 1 per second; a full second (4,194,303 IDs) borrows the next one
// within the run-ahead allowance, then asks to wait for the clock, as snowflakes do.
TEST(TraceId, GeneratorCountsFromOneAndWaitsWhenASecondIsFull) {
    const auto l = idgen::trace_state_layout();
    idgen::SnowflakeState st;
    const std::int64_t now_ms = 1700000000500;
    std::int64_t prev = 0;
    for (std::uint32_t i = 1; i <= idgen::kTraceCounterMax; ++i) {
        const std::int64_t id = trace_issue(st, 3, now_ms);
        if (i == 1 || i == idgen::kTraceCounterMax || i % 100000 == 0) {
            const auto p = idgen::trace_unpack(id);
            ASSERT_EQ(p.counter, i);
            ASSERT_EQ(p.node, 3u);
            ASSERT_EQ(idgen::trace_time_s(id, 1700000000), 1700000000);
        }
        ASSERT_GT(id, prev);
        prev = id;
    }
    // The second is full: the next ID is in the next second, counter 1 again.
    const std::int64_t next = trace_issue(st, 3, now_ms);
    EXPECT_EQ(idgen::trace_time_s(next, 1700000000), 1700000001);
    EXPECT_EQ(idgen::trace_unpack(next).counter, 1u);
    // With no run-ahead allowed, a full second asks to wait for the next one.
    idgen::SnowflakeState z;
    z.last_time = 1700000000;
    z.last_seq = idgen::kTraceCounterMax;
    z.high_clock = 1700000000;
    auto w = idgen::snowflake_step(z, l, 0, now_ms, 0, INT64_MAX);
    ASSERT_TRUE(w.ok());
    EXPECT_EQ(w->kind, StepKind::kWait);
    EXPECT_EQ(w->ms, 1700000001000);
}

// A clock that steps back, and a restart from a persisted mark, never repeat an ID.
TEST(TraceId, ClockStepBackAndRestart) {
    idgen::SnowflakeState st;
    std::set<std::int64_t> seen;
    for (int i = 0; i < 1000; ++i) ASSERT_TRUE(seen.insert(trace_issue(st, 1, 1700000005000)).second);
    for (int i = 0; i < 1000; ++i) ASSERT_TRUE(seen.insert(trace_issue(st, 1, 1700000001000)).second);
    // A restart: only the mark survives; the next IDs are in a later second.
    idgen::SnowflakeState again;
    idgen::snowflake_state_restore(again, idgen::trace_state_layout(), 1700000005999);
    const std::int64_t id = trace_issue(again, 1, 1700000005000);
    EXPECT_TRUE(seen.insert(id).second);
    EXPECT_EQ(idgen::trace_time_s(id, 1700000000), 1700000006);
    EXPECT_EQ(idgen::trace_unpack(id).counter, 1u);
}

// The state layout's counter starts at 1 in every unit, so no TraceId is 0, even at second 0 of a
// period with node 0.
TEST(TraceId, NeverZero) {
    idgen::SnowflakeState st;
    const std::int64_t id = trace_issue(st, 0, idgen::kTracePeriodS * 1000 * 50);
    EXPECT_EQ(id, 1);
}

TEST(DecimalId, Layout) {
    auto id = idgen::decimal_pack(12345, 7, 42);
    ASSERT_TRUE(id.ok());
    EXPECT_EQ(*id, 123450000700042LL);
    auto p = idgen::decimal_unpack(*id);
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(p->counter, 12345);
    EXPECT_EQ(p->generator, 7);
    EXPECT_EQ(p->launch, 42);
    auto top = idgen::decimal_pack(922337202, 99999, 99999);
    ASSERT_TRUE(top.ok());
    EXPECT_EQ(*top, 9223372029999999999LL);
    EXPECT_LT(*top, INT64_MAX);
    EXPECT_EQ(*idgen::decimal_pack(1, 0, 0), 10000000000LL);
}

TEST(DecimalId, OutOfRange) {
    EXPECT_EQ(idgen::decimal_pack(0, 0, 1).error(), Error::kOutOfRange);
    EXPECT_EQ(idgen::decimal_pack(922337203, 0, 1).error(), Error::kOutOfRange);
    EXPECT_EQ(idgen::decimal_pack(1, 100000, 1).error(), Error::kOutOfRange);
    EXPECT_EQ(idgen::decimal_pack(1, -1, 1).error(), Error::kOutOfRange);
    EXPECT_EQ(idgen::decimal_pack(1, 0, 100000).error(), Error::kOutOfRange);
    EXPECT_EQ(idgen::decimal_pack(1, 0, -1).error(), Error::kOutOfRange);
    EXPECT_EQ(idgen::decimal_unpack(9999999999LL).error(), Error::kOutOfRange);
    EXPECT_EQ(idgen::decimal_unpack(0).error(), Error::kOutOfRange);
    EXPECT_EQ(idgen::decimal_unpack(-10000000001LL).error(), Error::kOutOfRange);
    EXPECT_EQ(idgen::decimal_unpack(9223372030000000000LL).error(), Error::kOutOfRange);
    EXPECT_EQ(idgen::decimal_unpack(INT64_MAX).error(), Error::kOutOfRange);
}

// Every (counter, generator, launch) maps to its own ID: spot-check neighbours of each field.
TEST(DecimalId, DistinctFieldsDistinctIds) {
    std::set<std::int64_t> seen;
    for (std::int64_t c : {1LL, 2LL, 922337201LL, 922337202LL})
        for (std::int64_t g : {0LL, 1LL, 99998LL, 99999LL})
            for (std::int64_t l : {0LL, 1LL, 99998LL, 99999LL}) {
                auto id = idgen::decimal_pack(c, g, l);
                ASSERT_TRUE(id.ok());
                ASSERT_TRUE(seen.insert(*id).second);
                auto p = idgen::decimal_unpack(*id);
                ASSERT_TRUE(p.ok());
                EXPECT_EQ(p->counter, c);
                EXPECT_EQ(p->generator, g);
                EXPECT_EQ(p->launch, l);
            }
}

// A generator hands out counters 1..922,337,202 in leases, then asks for a new generator number.
TEST(DecimalId, StepLeasesAndExhaustion) {
    DecimalState st;
    EXPECT_EQ(idgen::decimal_step(st, 1).kind, DecimalStepKind::kNeedGenerator);
    st.generator = 4;
    auto a = idgen::decimal_step(st, 1);
    EXPECT_EQ(a.kind, DecimalStepKind::kIssued);
    EXPECT_EQ(a.first, 1);
    EXPECT_EQ(a.count, 1);
    auto b = idgen::decimal_step(st, 100);
    EXPECT_EQ(b.first, 2);
    EXPECT_EQ(b.count, 100);
    EXPECT_EQ(st.counter, 101);
    // Near the end, a lease is cut at the last counter; then the generator is used up.
    st.counter = idgen::kDecimalCounterMax - 3;
    auto c = idgen::decimal_step(st, 1000);
    EXPECT_EQ(c.kind, DecimalStepKind::kIssued);
    EXPECT_EQ(c.first, idgen::kDecimalCounterMax - 2);
    EXPECT_EQ(c.count, 3);
    EXPECT_EQ(idgen::decimal_step(st, 1).kind, DecimalStepKind::kNeedGenerator);
    EXPECT_EQ(st.counter, idgen::kDecimalCounterMax);
    // A want below 1 is one.
    DecimalState d{0, 0};
    EXPECT_EQ(idgen::decimal_step(d, 0).count, 1);
}

TEST(DecimalId, GeneratorNumbers) {
    EXPECT_EQ(*idgen::decimal_next_generator(-1), 0);
    EXPECT_EQ(*idgen::decimal_next_generator(0), 1);
    EXPECT_EQ(*idgen::decimal_next_generator(99998), 99999);
    EXPECT_EQ(idgen::decimal_next_generator(99999).error(), Error::kCapacityExceeded);
    EXPECT_EQ(idgen::decimal_next_generator(INT64_MAX).error(), Error::kCapacityExceeded);
    // A fresh state file's mark (no generator yet) counts as none.
    EXPECT_EQ(*idgen::decimal_next_generator(INT64_MIN), 0);
}
