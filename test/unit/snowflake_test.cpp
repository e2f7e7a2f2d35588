#include "core/types/snowflake.h"

#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>

using idgen::Error;
using idgen::SnowflakeLayout;
using idgen::SnowflakeState;
using idgen::StepKind;

namespace {

SnowflakeLayout named(const char* n) {
    auto l = idgen::snowflake_named_layout(n, std::strlen(n));
    EXPECT_TRUE(l.ok()) << n;
    return *l;
}

std::int64_t pack(const SnowflakeLayout& l, std::int64_t t, std::uint32_t node, std::uint32_t seq) {
    auto r = idgen::snowflake_pack(l, t, node, seq);
    EXPECT_TRUE(r.ok());
    return *r;
}

// Issues one ID with a generous reserve; fails the test on anything but kIssued.
std::int64_t issue(SnowflakeState& st, const SnowflakeLayout& l, std::uint32_t node, std::int64_t now_ms,
                   std::int64_t max_ahead = 1000) {
    auto s = idgen::snowflake_step(st, l, node, now_ms, max_ahead, INT64_MAX);
    EXPECT_TRUE(s.ok());
    EXPECT_EQ(s->kind, StepKind::kIssued);
    return s->id;
}

}  // namespace

// Tweet 1541815603606036480: (id >> 22) + 1288834974657 = 1656432460105 ms (2022-06-28T16:07:40.105Z),
// node (id >> 12) & 1023 = 378, sequence 0. Computed from the published layout, and checked back.
TEST(SnowflakeLayouts, TwitterPublishedExample) {
    const auto l = named("twitter");
    const std::int64_t id = 1541815603606036480;
    EXPECT_EQ(idgen::snowflake_time_ms(l, id), 1656432460105);
    auto p = idgen::snowflake_unpack(l, id);
    EXPECT_EQ(p.node, 378u);
    EXPECT_EQ(p.seq, 0u);
    EXPECT_EQ(pack(l, 1656432460105 - idgen::kTwitterEpochMs, 378, 0), id);
    EXPECT_EQ(l.time_shift, 22);
    EXPECT_EQ(l.node_shift, 12);
    EXPECT_EQ(l.seq_max(), 4095u);
    EXPECT_EQ(l.node_max(), 1023u);
}

// Instagram's engineering post: 1387263000 ms since its epoch, shard 1341, nextval 5001 % 1024 = 905;
// and the same time with sequence 7. Built from the parts, then decoded back.
TEST(SnowflakeLayouts, InstagramPublishedExample) {
    const auto l = named("instagram");
    EXPECT_EQ(l.epoch_ms, 1314220021721);
    const std::int64_t id = pack(l, 1387263000, 1341, 905);
    EXPECT_EQ(id, (std::int64_t{1387263000} << 23) | (1341 << 10) | 905);
    EXPECT_EQ(id, 11637205501278089);
    EXPECT_EQ(idgen::snowflake_time_ms(l, id), 1314220021721 + 1387263000);
    auto p = idgen::snowflake_unpack(l, id);
    EXPECT_EQ(p.node, 1341u);
    EXPECT_EQ(p.seq, 905u);
    const std::int64_t id7 = pack(l, 1387263000, 1341, 7);
    EXPECT_EQ(idgen::snowflake_unpack(l, id7).seq, 7u);
    EXPECT_EQ(idgen::snowflake_unpack(l, id7).node, 1341u);
}

// The instagram layout fills all 64 bits, so only 2^40 ms are usable before the sign bit.
TEST(SnowflakeLayouts, InstagramStopsBeforeTheSignBit) {
    const auto l = idgen::instagram_layout(0);
    EXPECT_EQ(l.time_max, (std::int64_t{1} << 40) - 1);
    EXPECT_EQ(pack(l, l.time_max, 8191, 1023), INT64_MAX);
    EXPECT_EQ(idgen::snowflake_pack(l, l.time_max + 1, 0, 0).error(), Error::kOutOfRange);
    EXPECT_EQ(idgen::snowflake_upper(l, l.time_max).value(), INT64_MAX);
    EXPECT_EQ(idgen::snowflake_lower(l, l.time_max + 1).error(), Error::kTimeOutOfRange);
    // A generator refuses there instead of emitting a negative ID.
    SnowflakeState st;
    auto s = idgen::snowflake_step(st, l, 5, l.time_max + 1, 1000, INT64_MAX);
    EXPECT_EQ(s.error(), Error::kTimeOutOfRange);
    // At the last ms, a full sequence cannot borrow the next one.
    st = SnowflakeState{l.time_max, 1023, l.time_max};
    s = idgen::snowflake_step(st, l, 5, l.time_max, 1000, INT64_MAX);
    EXPECT_EQ(s.error(), Error::kTimeOutOfRange);
}

TEST(SnowflakeLayouts, SonyflakeAndJavascript) {
    const auto sony = named("Sonyflake");
    EXPECT_EQ(sony.unit_ms, 10);
    const std::int64_t id = pack(sony, 100, 513, 3);  // time 100 units, machine 513, sequence 3
    EXPECT_EQ(id, (std::int64_t{100} << 24) | (3 << 16) | 513);
    EXPECT_EQ(idgen::snowflake_time_ms(sony, id), idgen::kSonyflakeEpochMs + 1000);
    EXPECT_EQ(idgen::snowflake_unpack(sony, id).node, 513u);
    EXPECT_EQ(idgen::snowflake_unpack(sony, id).seq, 3u);
    EXPECT_EQ(sony.time_max, (std::int64_t{1} << 39) - 1);

    const auto js = named("JAVASCRIPT");
    EXPECT_EQ(pack(js, js.time_max, js.node_max(), js.seq_max()), (std::int64_t{1} << 53) - 1);
    EXPECT_EQ(js.time_max, (std::int64_t{1} << 41) - 1);
    EXPECT_EQ(js.node_max(), 15u);
    EXPECT_EQ(js.seq_max(), 255u);
    EXPECT_FALSE(idgen::snowflake_named_layout("discord", 7).ok());
    EXPECT_FALSE(idgen::snowflake_named_layout("twitterx", 8).ok());
    EXPECT_FALSE(idgen::snowflake_named_layout("twitte", 6).ok());
}

TEST(SnowflakeLayouts, EveryNamedLayoutRoundTrips) {
    for (const char* n : {"twitter", "instagram", "sonyflake", "javascript"}) {
        const auto l = named(n);
        EXPECT_LE(l.time_bits + l.node_bits + l.seq_bits, 64) << n;
        for (std::int64_t t : {std::int64_t{1}, std::int64_t{123456789}, l.time_max}) {
            for (std::uint32_t node : {0u, 1u, l.node_max()}) {
                for (std::uint32_t seq : {0u, 1u, l.seq_max()}) {
                    const std::int64_t id = pack(l, t, node, seq);
                    EXPECT_GE(id, 1);
                    auto p = idgen::snowflake_unpack(l, id);
                    EXPECT_EQ(p.time, t) << n;
                    EXPECT_EQ(p.node, node) << n;
                    EXPECT_EQ(p.seq, seq) << n;
                }
            }
        }
        EXPECT_EQ(idgen::snowflake_pack(l, 0, 0, 0).error(), Error::kOutOfRange) << n;  // 0 is not an ID
        EXPECT_EQ(idgen::snowflake_pack(l, 1, l.node_max() + 1, 0).error(), Error::kOutOfRange) << n;
        EXPECT_EQ(idgen::snowflake_pack(l, 1, 0, l.seq_max() + 1).error(), Error::kOutOfRange) << n;
    }
}

TEST(SnowflakeLayouts, CustomValidation) {
    EXPECT_TRUE(idgen::snowflake_custom_layout(0, 41, 10, 12).ok());
    EXPECT_TRUE(idgen::snowflake_custom_layout(0, 63, 0, 0).ok());
    EXPECT_TRUE(idgen::snowflake_custom_layout(0, 1, 31, 31).ok());
    EXPECT_EQ(idgen::snowflake_custom_layout(0, 41, 12, 11).error(), Error::kOutOfRange);  // 64 bits
    EXPECT_EQ(idgen::snowflake_custom_layout(0, 0, 10, 12).error(), Error::kOutOfRange);
    EXPECT_EQ(idgen::snowflake_custom_layout(0, 41, -1, 12).error(), Error::kOutOfRange);
    EXPECT_EQ(idgen::snowflake_custom_layout(0, 41, 10, 32).error(), Error::kOutOfRange);
    EXPECT_EQ(idgen::snowflake_custom_layout(INT64_MAX, 41, 10, 12).error(), Error::kOutOfRange);
    auto l = *idgen::snowflake_custom_layout(idgen::kTwitterEpochMs, 41, 10, 12);
    const auto tw = named("twitter");
    EXPECT_EQ(l.time_shift, tw.time_shift);
    EXPECT_EQ(idgen::snowflake_time_ms(l, 1541815603606036480), idgen::snowflake_time_ms(tw, 1541815603606036480));
}

TEST(SnowflakeRange, LowerUpper) {
    const auto l = named("twitter");
    EXPECT_EQ(*idgen::snowflake_lower(l, idgen::kTwitterEpochMs), 1);  // 0 is not an ID
    EXPECT_EQ(*idgen::snowflake_upper(l, idgen::kTwitterEpochMs), (1 << 22) - 1);
    EXPECT_EQ(idgen::snowflake_lower(l, idgen::kTwitterEpochMs - 1).error(), Error::kTimeOutOfRange);
    const std::int64_t id = 1541815603606036480;
    EXPECT_LE(*idgen::snowflake_lower(l, 1656432460105), id);
    EXPECT_GE(*idgen::snowflake_upper(l, 1656432460105), id);
    EXPECT_GT(*idgen::snowflake_lower(l, 1656432460106), id);
    const auto sony = named("sonyflake");  // 10 ms units: every ms of the unit maps to the same bounds
    EXPECT_EQ(*idgen::snowflake_lower(sony, idgen::kSonyflakeEpochMs + 1000),
              *idgen::snowflake_lower(sony, idgen::kSonyflakeEpochMs + 1009));
    EXPECT_EQ(*idgen::snowflake_upper(sony, idgen::kSonyflakeEpochMs + 1009) + 1,
              *idgen::snowflake_lower(sony, idgen::kSonyflakeEpochMs + 1010));
    EXPECT_EQ(idgen::snowflake_lower(l, INT64_MAX).error(), Error::kTimeOutOfRange);
    EXPECT_EQ(idgen::snowflake_lower(l, INT64_MIN).error(), Error::kTimeOutOfRange);
}

// A custom layout's epoch may be negative (back to -2^53): the distance from it to an instant near
// INT64_MAX (where 'infinity' maps) overflows int64 and must be out of range, not garbage (UB).
TEST(SnowflakeRange, NegativeEpochDoesNotOverflow) {
    auto l = idgen::snowflake_custom_layout(-1104537600000, 41, 10, 12);  // 1935-01-01
    ASSERT_TRUE(l.ok());
    EXPECT_EQ(idgen::snowflake_upper(*l, INT64_MAX).error(), Error::kTimeOutOfRange);
    EXPECT_EQ(idgen::snowflake_lower(*l, INT64_MAX).error(), Error::kTimeOutOfRange);
    EXPECT_EQ(idgen::snowflake_upper(*l, INT64_MAX - 1000).error(), Error::kTimeOutOfRange);
    auto far = idgen::snowflake_custom_layout(-(std::int64_t{1} << 53), 63, 0, 0);
    ASSERT_TRUE(far.ok());
    EXPECT_EQ(idgen::snowflake_lower(*far, INT64_MAX).error(), Error::kTimeOutOfRange);
    EXPECT_EQ(*idgen::snowflake_lower(*l, -1104537600000 + 5), std::int64_t{5} << 22);
}

TEST(SnowflakeText, ParseAndFormat) {
    auto ok = [](const std::string& s) { return idgen::snowflake_parse(s.data(), s.size()); };
    EXPECT_EQ(*ok("1"), 1);
    EXPECT_EQ(*ok("9223372036854775807"), INT64_MAX);
    EXPECT_EQ(*ok("  42\t"), 42);
    EXPECT_EQ(*ok("+7"), 7);
    EXPECT_EQ(*ok("0000000000000000000000001"), 1);
    EXPECT_EQ(ok("0").error(), Error::kOutOfRange);
    EXPECT_EQ(ok("-0").error(), Error::kOutOfRange);
    EXPECT_EQ(ok("-1").error(), Error::kOutOfRange);
    EXPECT_EQ(ok("9223372036854775808").error(), Error::kOutOfRange);
    EXPECT_EQ(ok("18446744073709551616").error(), Error::kOutOfRange);
    EXPECT_EQ(ok("").error(), Error::kInvalidSyntax);
    EXPECT_EQ(ok(" ").error(), Error::kInvalidSyntax);
    EXPECT_EQ(ok("+").error(), Error::kInvalidSyntax);
    EXPECT_EQ(ok("1 2").error(), Error::kInvalidSyntax);
    EXPECT_EQ(ok("0x10").error(), Error::kInvalidSyntax);
    EXPECT_EQ(ok("1e3").error(), Error::kInvalidSyntax);
    EXPECT_EQ(ok(std::string("12\0", 3)).error(), Error::kInvalidSyntax);
    char buf[20];
    EXPECT_EQ(idgen::snowflake_format(INT64_MAX, buf), 19u);
    EXPECT_STREQ(buf, "9223372036854775807");
    EXPECT_EQ(idgen::snowflake_format(1, buf), 1u);
    EXPECT_STREQ(buf, "1");
}

// A fake clock that stands still: the sequence counts up, then the next ms is borrowed.
TEST(SnowflakeGenerator, SequenceOverflowMovesToTheNextMs) {
    const auto l = named("twitter");
    SnowflakeState st;
    const std::int64_t now = idgen::kTwitterEpochMs + 1000000;
    std::set<std::int64_t> seen;
    std::int64_t prev = 0;
    for (int i = 0; i < 4096 * 3; ++i) {
        const std::int64_t id = issue(st, l, 7, now);
        EXPECT_GT(id, prev);
        prev = id;
        seen.insert(id);
        auto p = idgen::snowflake_unpack(l, id);
        EXPECT_EQ(p.node, 7u);
        EXPECT_EQ(p.time, 1000000 + i / 4096);
        EXPECT_EQ(p.seq, static_cast<std::uint32_t>(i % 4096));
    }
    EXPECT_EQ(seen.size(), 4096u * 3);
}

// Run-ahead is bounded: past it the step asks to wait until the clock reaches a given ms.
TEST(SnowflakeGenerator, RunAheadBoundAsksToWait) {
    const auto l = named("instagram");
    SnowflakeState st;
    const std::int64_t now = l.epoch_ms + 5000;
    // max_ahead 2 ms: time units 5000, 5001, 5002 are usable, 1024 IDs each.
    for (int i = 0; i < 1024 * 3; ++i) issue(st, l, 1, now, 2);
    auto s = idgen::snowflake_step(st, l, 1, now, 2, INT64_MAX);
    ASSERT_TRUE(s.ok());
    EXPECT_EQ(s->kind, StepKind::kWait);
    EXPECT_EQ(s->ms, l.epoch_ms + 5001);  // unit 5003 is acceptable once the clock reads 5001
    // The state did not move; once the clock advances, issuing resumes in unit 5003.
    auto s2 = idgen::snowflake_step(st, l, 1, now + 1, 2, INT64_MAX);
    ASSERT_TRUE(s2.ok());
    ASSERT_EQ(s2->kind, StepKind::kIssued);
    EXPECT_EQ(idgen::snowflake_unpack(l, s2->id).time, 5003);
    EXPECT_EQ(idgen::snowflake_unpack(l, s2->id).seq, 0u);
    // max_ahead 0: a full ms waits for the next one.
    SnowflakeState z;
    for (int i = 0; i < 1024; ++i) issue(z, l, 1, now, 0);
    auto w = idgen::snowflake_step(z, l, 1, now, 0, INT64_MAX);
    EXPECT_EQ(w->kind, StepKind::kWait);
    EXPECT_EQ(w->ms, l.epoch_ms + 5001);
}

// A clock that steps back keeps the last time (it behaves as a clock standing still).
TEST(SnowflakeGenerator, ClockSteppingBackKeepsTheLastTime) {
    const auto l = named("twitter");
    SnowflakeState st;
    const std::int64_t t0 = idgen::kTwitterEpochMs + 10000000;
    const std::int64_t a = issue(st, l, 1, t0);
    const std::int64_t b = issue(st, l, 1, t0 - 60000);  // one minute back
    EXPECT_GT(b, a);
    EXPECT_EQ(idgen::snowflake_unpack(l, b).time, idgen::snowflake_unpack(l, a).time);
    // Run-ahead is measured from the highest reading seen, not from the stepped-back clock.
    for (int i = 0; i < 4096 * 2; ++i) EXPECT_GT(issue(st, l, 1, t0 - 60000, 5), b);
    auto w = idgen::snowflake_step(st, l, 1, t0 - 60000, 5, INT64_MAX);
    for (int i = 0; i < 4096 * 4 && w->kind == StepKind::kIssued; ++i)
        w = idgen::snowflake_step(st, l, 1, t0 - 60000, 5, INT64_MAX);
    ASSERT_EQ(w->kind, StepKind::kWait);
    EXPECT_EQ(w->ms, t0 + 1);  // the real clock must catch up with the run-ahead window
    // Once the clock is back past the last time, IDs follow the clock again.
    const std::int64_t c = issue(st, l, 1, t0 + 100);
    EXPECT_EQ(idgen::snowflake_unpack(l, c).time, 10000100);
    EXPECT_EQ(idgen::snowflake_unpack(l, c).seq, 0u);
}

// IDs are issued only at or below the persisted mark; after a restart, generation starts past it
// even when the clock went back.
TEST(SnowflakeGenerator, ReserveAndRestart) {
    const auto l = named("twitter");
    SnowflakeState st;
    const std::int64_t now = idgen::kTwitterEpochMs + 777777;
    auto s = idgen::snowflake_step(st, l, 1, now, 1000, INT64_MIN);
    ASSERT_EQ(s->kind, StepKind::kReserve);
    EXPECT_EQ(s->ms, now);
    EXPECT_EQ(st.last_time, -1);  // nothing issued yet
    s = idgen::snowflake_step(st, l, 1, now, 1000, now + 30);
    ASSERT_EQ(s->kind, StepKind::kIssued);
    const std::int64_t last = s->id;

    SnowflakeState after;  // a restart: only the mark survives
    idgen::snowflake_state_restore(after, l, now + 30);
    const std::int64_t next = issue(after, l, 1, now - 5000);  // clock went back 5 s
    EXPECT_GT(next, last);
    EXPECT_EQ(idgen::snowflake_unpack(l, next).time, 777777 + 31);
    // A mark before the epoch means nothing was issued.
    SnowflakeState fresh;
    idgen::snowflake_state_restore(fresh, l, INT64_MIN);
    EXPECT_EQ(fresh.last_time, -1);
}

// Finding: backend A asks for mark 1100 and waits for the file lock; backend B writes mark 1200
// and issues IDs up to it; A must not then write 1100 over it. The decision the writer makes under
// the lock never moves the persisted mark back.
TEST(SnowflakeGenerator, PersistedMarkNeverMovesBack) {
    EXPECT_EQ(idgen::snowflake_mark_to_persist(1200, 1100), 1200);  // stale, smaller request: keep
    EXPECT_EQ(idgen::snowflake_mark_to_persist(1200, 1200), 1200);
    EXPECT_EQ(idgen::snowflake_mark_to_persist(1200, 1300), 1300);
    EXPECT_EQ(idgen::snowflake_mark_to_persist(INT64_MIN, 5), 5);  // first mark of a fresh state
    // End to end: IDs issued up to B's mark stay below everything after a restart from the kept mark.
    const auto l = named("twitter");
    const std::int64_t now = idgen::kTwitterEpochMs + 1000000;
    SnowflakeState st;
    std::int64_t last = 0;
    for (std::int64_t ms = now; ms <= now + 200; ++ms) last = idgen::snowflake_step(st, l, 1, ms, 1000, now + 200)->id;
    SnowflakeState after;
    idgen::snowflake_state_restore(after, l, idgen::snowflake_mark_to_persist(now + 200, now + 100));
    EXPECT_GT(issue(after, l, 1, now - 60000), last);
}

// Finding: a shard re-created (or its registry row replaced) with an epoch D ms later must not
// restart its time field D lower: IDs of the old epoch would be issued again.
TEST(SnowflakeGenerator, LaterEpochKeepsIdsAboveTheOldOnes) {
    const std::int64_t e1 = idgen::kJavascriptEpochMs, d = 86400000;  // one day later
    const auto old_layout = idgen::instagram_layout(e1);
    const auto new_layout = idgen::instagram_layout(e1 + d);
    const std::int64_t now = e1 + 400LL * 86400000;
    SnowflakeState st;
    std::int64_t last = 0;
    for (int i = 0; i < 5000; ++i) last = issue(st, old_layout, 7, now);
    const std::int64_t mark = now + 100;  // what was persisted under the old epoch
    // Same clock, later epoch: restored from the restated mark, every new ID is above the old ones.
    SnowflakeState after;
    idgen::snowflake_state_restore(after, new_layout, idgen::snowflake_mark_for_epoch(mark, e1, e1 + d));
    auto s = idgen::snowflake_step(after, new_layout, 7, now, 1000, INT64_MAX);
    ASSERT_TRUE(s.ok());
    ASSERT_EQ(s->kind, StepKind::kIssued);
    EXPECT_GT(s->id, last);
    // Without restating, the mark in Unix ms would let the time field restart a day lower.
    SnowflakeState naive;
    idgen::snowflake_state_restore(naive, new_layout, mark);
    EXPECT_LT(issue(naive, new_layout, 7, now), last);
    // Earlier epochs, equal epochs, no mark, overflow.
    EXPECT_EQ(idgen::snowflake_mark_for_epoch(mark, e1, e1 - d), mark);
    EXPECT_EQ(idgen::snowflake_mark_for_epoch(mark, e1, e1), mark);
    EXPECT_EQ(idgen::snowflake_mark_for_epoch(mark, e1, e1 + d), mark + d);
    EXPECT_EQ(idgen::snowflake_mark_for_epoch(INT64_MIN, e1, e1 + d), INT64_MIN);
    EXPECT_EQ(idgen::snowflake_mark_for_epoch(INT64_MAX - 5, 0, 10), INT64_MAX);
    EXPECT_EQ(idgen::snowflake_mark_for_epoch(5, INT64_MIN + 1, INT64_MAX), INT64_MAX);
    // A saturated mark restores without overflow, even for an epoch before 1970.
    SnowflakeState sat;
    idgen::snowflake_state_restore(sat, idgen::instagram_layout(-1000000), INT64_MAX);
    EXPECT_EQ(sat.last_time, idgen::instagram_layout(-1000000).time_max);
}

TEST(SnowflakeGenerator, Errors) {
    const auto l = named("twitter");
    SnowflakeState st;
    EXPECT_EQ(idgen::snowflake_step(st, l, 1024, idgen::kTwitterEpochMs + 1, 1000, INT64_MAX).error(),
              Error::kOutOfRange);
    EXPECT_EQ(idgen::snowflake_step(st, l, 1, idgen::kTwitterEpochMs - 1, 1000, INT64_MAX).error(),
              Error::kTimeOutOfRange);
    // At the epoch with node 0 the value 0 is skipped: the first ID is 1.
    EXPECT_EQ(issue(st, l, 0, idgen::kTwitterEpochMs), 1);
    EXPECT_EQ(issue(st, l, 0, idgen::kTwitterEpochMs), 2);
}

// Sonyflake counts 10 ms units: 256 IDs per unit, then the next unit.
TEST(SnowflakeGenerator, SonyflakeUnits) {
    const auto l = named("sonyflake");
    SnowflakeState st;
    const std::int64_t now = l.epoch_ms + 123456789;
    std::int64_t prev = 0;
    for (int i = 0; i < 256 * 2; ++i) {
        const std::int64_t id = issue(st, l, 65535, now, 1000);
        EXPECT_GT(id, prev);
        prev = id;
        EXPECT_EQ(idgen::snowflake_unpack(l, id).node, 65535u);
        EXPECT_EQ(idgen::snowflake_unpack(l, id).time, 12345678 + i / 256);
    }
}

// Leases: a step with want > 1 hands out consecutive sequence numbers of one unit, never more than
// the unit has left, records them as issued, and the lease serves them in order.
TEST(SnowflakeLease, ConsecutiveWithinOneUnit) {
    const auto l = named("twitter");
    SnowflakeState st;
    const std::int64_t now = idgen::kTwitterEpochMs + 5000;
    auto s = idgen::snowflake_step(st, l, 3, now, 1000, INT64_MAX, 100);
    ASSERT_TRUE(s.ok());
    ASSERT_EQ(s->kind, StepKind::kIssued);
    EXPECT_EQ(s->count, 100u);
    EXPECT_EQ(st.last_seq, 99);
    idgen::SnowflakeLease lease;
    idgen::snowflake_lease_start(lease, l, *s, now);
    std::int64_t prev = 0;
    for (std::uint32_t i = 0; i < 100; ++i) {
        const std::int64_t id = idgen::snowflake_lease_next(lease, l, now);
        ASSERT_GT(id, prev);
        const auto p = idgen::snowflake_unpack(l, id);
        EXPECT_EQ(p.seq, i);
        EXPECT_EQ(p.node, 3u);
        EXPECT_EQ(p.time, 5000);
        prev = id;
    }
    EXPECT_EQ(idgen::snowflake_lease_next(lease, l, now), 0);  // used up
    // The next step continues after the lease; a lease never crosses into the next unit.
    auto s2 = idgen::snowflake_step(st, l, 3, now, 1000, INT64_MAX, 5000);
    ASSERT_EQ(s2->kind, StepKind::kIssued);
    EXPECT_EQ(idgen::snowflake_unpack(l, s2->id).seq, 100u);
    EXPECT_EQ(s2->count, 4096u - 100u);
    EXPECT_GT(s2->id, prev);
}

// A lease goes stale once the clock passes its unit (its IDs would be dated before the clock's
// unit); a clock standing still or going back keeps it.
TEST(SnowflakeLease, StaleOncePastItsUnit) {
    const auto l = named("sonyflake");  // 10 ms units, sequence above the node
    SnowflakeState st;
    const std::int64_t now = idgen::kSonyflakeEpochMs + 12345;  // unit 1234
    auto s = idgen::snowflake_step(st, l, 9, now, 1000, INT64_MAX, 32);
    ASSERT_EQ(s->kind, StepKind::kIssued);
    idgen::SnowflakeLease lease;
    idgen::snowflake_lease_start(lease, l, *s, now);
    const std::int64_t a = idgen::snowflake_lease_next(lease, l, now - 5000);  // clock went back
    const std::int64_t b = idgen::snowflake_lease_next(lease, l, now + 4);     // same 10 ms unit
    EXPECT_GT(a, 0);
    EXPECT_GT(b, a);
    EXPECT_EQ(idgen::snowflake_unpack(l, b).seq, idgen::snowflake_unpack(l, a).seq + 1);
    EXPECT_EQ(idgen::snowflake_unpack(l, b).node, 9u);
    EXPECT_EQ(idgen::snowflake_lease_next(lease, l, now + 10), 0);  // next unit: stale
    EXPECT_EQ(lease.left, 0u);
    EXPECT_EQ(idgen::snowflake_lease_next(lease, l, now), 0);  // and stays dropped
}

// A lease taken while the generator runs ahead of the clock (a new state starts at the horizon)
// still goes stale when the clock moves one unit: so IDs handed out a unit or more apart are ordered
// across backends, however far ahead the IDs are dated.
TEST(SnowflakeLease, RunAheadLeaseLivesOneClockUnit) {
    const auto l = named("twitter");
    SnowflakeState st;
    const std::int64_t now = idgen::kTwitterEpochMs + 100000;
    idgen::snowflake_state_restore(st, l, now + 2000);  // restarted 2 s ahead of the clock
    auto s = idgen::snowflake_step(st, l, 1, now, 1000, INT64_MAX, 64);
    ASSERT_EQ(s->kind, StepKind::kIssued);
    EXPECT_EQ(idgen::snowflake_unpack(l, s->id).time, 102001);
    idgen::SnowflakeLease a;
    idgen::snowflake_lease_start(a, l, *s, now);
    EXPECT_EQ(idgen::snowflake_lease_next(a, l, now), s->id);
    // A clock unit later a is stale, and the next lease is above all of a's.
    EXPECT_EQ(idgen::snowflake_lease_next(a, l, now + 1), 0);
    auto s2 = idgen::snowflake_step(st, l, 1, now + 1, 1000, INT64_MAX, 64);
    ASSERT_EQ(s2->kind, StepKind::kIssued);
    EXPECT_GT(s2->id, s->id + 63);  // after the whole of a's lease (sequence is the low field)
}

// Many backends taking leases of mixed sizes from one state, interleaved, while the clock moves
// and steps back: every ID is unique, >= 1, and each backend's IDs increase.
TEST(SnowflakeLease, InterleavedLeasesNeverRepeat) {
    const auto l = named("javascript");  // 256 per ms: leases and run-ahead meet often
    SnowflakeState st;
    constexpr int kBackends = 5;
    idgen::SnowflakeLease leases[kBackends];
    std::int64_t last[kBackends] = {};
    std::set<std::int64_t> seen;
    std::int64_t clock = idgen::kJavascriptEpochMs;  // time 0, node 0: the ID 0 must be skipped
    std::uint32_t x = 12345;
    for (int i = 0; i < 200000; ++i) {
        x = x * 1103515245u + 12345u;
        const int b = static_cast<int>((x >> 16) % kBackends);
        if ((x >> 8) % 97 == 0) clock += 1;
        if ((x >> 8) % 1009 == 0) clock -= 3;  // a step back
        std::int64_t id = idgen::snowflake_lease_next(leases[b], l, clock);
        if (id == 0) {
            auto s = idgen::snowflake_step(st, l, 0, clock, 50, INT64_MAX, 1 + (x >> 20) % 40);
            ASSERT_TRUE(s.ok());
            if (s->kind == StepKind::kWait) {
                clock = s->ms;
                continue;
            }
            ASSERT_EQ(s->kind, StepKind::kIssued);
            idgen::snowflake_lease_start(leases[b], l, *s, clock);
            id = idgen::snowflake_lease_next(leases[b], l, clock);
        }
        ASSERT_GE(id, 1);
        ASSERT_GT(id, last[b]);
        last[b] = id;
        ASSERT_TRUE(seen.insert(id).second) << "repeated " << id;
    }
    EXPECT_GT(seen.size(), 100000u);
}

// snowflake_upper of a layout with no node or sequence bits has no ID in unit 0 (it would be 0).
TEST(SnowflakeLayouts, UpperNeverZero) {
    auto l = idgen::snowflake_custom_layout(1000, 8, 0, 0);
    ASSERT_TRUE(l.ok());
    EXPECT_EQ(idgen::snowflake_upper(*l, 1000).error(), Error::kTimeOutOfRange);
    EXPECT_EQ(*idgen::snowflake_upper(*l, 1001), 1);
    EXPECT_EQ(*idgen::snowflake_lower(*l, 1001), 1);
}

// Error::kOk is not an outcome: a Result built from it is an error, never the value 0.
TEST(ResultType, OkErrorIsNoOutcome) {
    idgen::Result<std::int64_t> r(Error::kOk);
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.error(), Error::kNoOutcome);
    idgen::Result<std::int64_t> v(std::int64_t{0});
    EXPECT_TRUE(v.ok());
}

// A start at a horizon: every ID is above the horizon mark, and none leads the real clock by more
// than the run-ahead allowance: the first call waits until that holds (a restart from this
// server's own mark instead behaves as a clock standing still at the mark).
TEST(SnowflakeGenerator, HorizonStartKeepsTheRunAheadBound) {
    const auto l = named("twitter");
    const std::int64_t now = idgen::kTwitterEpochMs + 500000;
    const std::int64_t horizon = now + 1000 + 250 + 1;
    SnowflakeState st;
    idgen::snowflake_state_restore_at_horizon(st, l, horizon, now);
    auto w = idgen::snowflake_step(st, l, 1, now, 1000, INT64_MAX);
    ASSERT_EQ(w->kind, StepKind::kWait);
    EXPECT_EQ(w->ms, horizon + 1 - 1000);
    auto s = idgen::snowflake_step(st, l, 1, w->ms, 1000, INT64_MAX);
    ASSERT_EQ(s->kind, StepKind::kIssued);
    EXPECT_EQ(idgen::snowflake_time_ms(l, s->id), horizon + 1);
    EXPECT_LE(idgen::snowflake_time_ms(l, s->id) - w->ms, 1000);
    // The plain restore lets IDs continue right after the mark (clock standing still there).
    SnowflakeState r;
    idgen::snowflake_state_restore(r, l, horizon);
    auto s2 = idgen::snowflake_step(r, l, 1, now, 1000, INT64_MAX);
    ASSERT_EQ(s2->kind, StepKind::kIssued);
    EXPECT_EQ(idgen::snowflake_time_ms(l, s2->id), horizon + 1);
}

// A node's block of a shard's sequence field: the block layout's IDs are the instagram layout's
// IDs of (shard, block start + sequence), for every block size; the time limit is the same.
TEST(SnowflakeLayouts, ShardBlockLayoutIsInstagramBits) {
    const std::int64_t epoch = 1704067200000;
    const auto full = idgen::instagram_layout(epoch);
    for (int bits = 0; bits <= 10; ++bits) {
        const auto b = idgen::shard_block_layout(epoch, bits);
        EXPECT_EQ(b.time_max, full.time_max) << bits;
        EXPECT_EQ(b.seq_max(), (1u << bits) - 1) << bits;
        const std::uint32_t shard = 8191, lo = 1024 - (1u << bits);
        for (std::uint32_t s : {0u, (1u << bits) - 1}) {
            auto mine = idgen::snowflake_pack(b, 123456789, (shard << (10 - bits)) | (lo >> bits), s);
            auto ref = idgen::snowflake_pack(full, 123456789, shard, lo + s);
            ASSERT_TRUE(mine.ok() && ref.ok()) << bits;
            EXPECT_EQ(*mine, *ref) << bits;
            const auto parts = idgen::snowflake_unpack(full, *mine);
            EXPECT_EQ(parts.node, shard);
            EXPECT_EQ(parts.seq, lo + s);
        }
    }
    // Out-of-range widths are clamped to the field, never past the shard bits.
    EXPECT_EQ(idgen::shard_block_layout(epoch, 11).seq_bits, 10);
    EXPECT_EQ(idgen::shard_block_layout(epoch, -1).seq_bits, 0);
}

// gen_monotonic_ulid()'s state layout: Unix ms in 47 bits, no node, 65,536 IDs per ms counted
// from 0; a step's ID is ms << 16 | counter; the 65,537th ID of a ms borrows the next ms.
TEST(SnowflakeLayout, MonotonicUlidState) {
    const SnowflakeLayout l = idgen::monotonic_ulid_state_layout();
    EXPECT_EQ(l.kind, idgen::LayoutKind::kMonotonicUlid);
    EXPECT_EQ(l.epoch_ms, 0);
    EXPECT_EQ(l.unit_ms, 1);
    EXPECT_EQ(l.node_bits, 0);
    EXPECT_EQ(l.seq_max(), 65535u);
    EXPECT_EQ(l.seq_min, 0u);
    EXPECT_EQ(l.time_max, (std::int64_t{1} << 47) - 1);
    SnowflakeState st{};
    const std::int64_t ms = 1700000000123;
    std::int64_t last = 0;
    for (int k = 0; k < 65537; ++k) {
        auto s = idgen::snowflake_step(st, l, 0, ms, 1000, INT64_MAX, 1);
        ASSERT_TRUE(s.ok());
        ASSERT_EQ(s->kind, StepKind::kIssued);
        ASSERT_GT(s->id, last);
        if (k == 0) {
            EXPECT_EQ(s->id, ms << 16);
        } else if (k == 65535) {
            EXPECT_EQ(s->id, (ms << 16) | 65535);
        } else if (k == 65536) {
            EXPECT_EQ(s->id, (ms + 1) << 16);
        }
        last = s->id;
    }
    // Past 47 bits of ms (the year 6429): no ID.
    SnowflakeState late{};
    EXPECT_EQ(idgen::snowflake_step(late, l, 0, std::int64_t{1} << 47, 1000, INT64_MAX, 1).error(),
              Error::kTimeOutOfRange);
}
