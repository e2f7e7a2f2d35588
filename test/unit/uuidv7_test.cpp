#include "core/types/uuidv7.h"

#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>

#include "core/base/bytes.h"
#include "fake_sources.h"

using idgen::Error;
using idgen::Uuid;

namespace {

Uuid from_hex(const std::string& text) {
    Uuid u{};
    std::string h;
    for (char c : text)
        if (c != '-') h += c;
    EXPECT_EQ(h.size(), 32u) << text;
    for (int i = 0; i < 16; ++i) u.bytes[i] = static_cast<std::uint8_t>(std::stoi(h.substr(2 * i, 2), nullptr, 16));
    return u;
}

std::string hex(const Uuid& u) {
    static const char* d = "0123456789abcdef";
    std::string s;
    for (int i = 0; i < 16; ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
        s += d[u.bytes[i] >> 4];
        s += d[u.bytes[i] & 15];
    }
    return s;
}

bool less(const Uuid& a, const Uuid& b) { return std::memcmp(a.bytes, b.bytes, 16) < 0; }

std::int64_t ms_of(const Uuid& u) { return static_cast<std::int64_t>(idgen::load_be64(u.bytes) >> 16); }
unsigned rand_a(const Uuid& u) { return idgen::load_be16(u.bytes + 6) & 0x0FFF; }

// 2022-02-22 19:22:22 UTC, the instant of both RFC 9562 Appendix A examples.
constexpr std::int64_t kRfcExampleUnixUs = 1645557742000000;

}  // namespace

// RFC 9562 Appendix A.6: 017F22E2-79B0-7CC3-98C4-DC0C0C07398F is 2022-02-22 14:22:22.00 -05:00.
TEST(Uuidv7, RfcAppendixExampleV7) {
    Uuid u = from_hex("017F22E2-79B0-7CC3-98C4-DC0C0C07398F");
    EXPECT_EQ(idgen::uuid_version(u), 7);
    auto t = idgen::uuid_time(u);
    ASSERT_TRUE(t.present);
    EXPECT_EQ(t.unix_us, kRfcExampleUnixUs);
    EXPECT_EQ(idgen::uuidv7_time(u).unix_us, kRfcExampleUnixUs);
    // rand_a 0xCC3 read as a method-3 fraction: 3267/4096 ms = 797.6 µs, within the millisecond.
    auto p = idgen::uuidv7_time_precise(u);
    ASSERT_TRUE(p.present);
    EXPECT_EQ(p.unix_us, kRfcExampleUnixUs + 798);
}

// RFC 9562 Appendix A.1: C232AB00-9414-11EC-B3C8-9F6BDECED846 is the same instant as version 1.
TEST(Uuidv7, RfcAppendixExampleV1) {
    Uuid u = from_hex("C232AB00-9414-11EC-B3C8-9F6BDECED846");
    EXPECT_EQ(idgen::uuid_version(u), 1);
    auto t = idgen::uuid_time(u);
    ASSERT_TRUE(t.present);
    EXPECT_EQ(t.unix_us, kRfcExampleUnixUs);
    EXPECT_FALSE(idgen::uuidv7_time(u).present);  // not a v7
    EXPECT_FALSE(idgen::uuidv7_time_precise(u).present);
}

// As PostgreSQL 18: other versions have no time; other variants have neither version nor time.
TEST(Uuidv7, OtherVersionsAndVariants) {
    Uuid v4 = from_hex("f81d4fae-7dec-41d0-a765-00a0c91e6bf6");
    EXPECT_EQ(idgen::uuid_version(v4), 4);
    EXPECT_FALSE(idgen::uuid_time(v4).present);
    Uuid v6 = from_hex("1EC9414C-232A-6B00-B3C8-9F6BDECED846");  // RFC 9562 A.5 (v6: no time in PG18)
    EXPECT_EQ(idgen::uuid_version(v6), 6);
    EXPECT_FALSE(idgen::uuid_time(v6).present);
    // Version 7 nibble but NCS (0b0x), Microsoft (0b110) and future (0b111) variants.
    for (const char* s : {"017f22e2-79b0-7cc3-18c4-dc0c0c07398f", "017f22e2-79b0-7cc3-c8c4-dc0c0c07398f",
                          "017f22e2-79b0-7cc3-e8c4-dc0c0c07398f"}) {
        Uuid u = from_hex(s);
        EXPECT_EQ(idgen::uuid_version(u), -1) << s;
        EXPECT_FALSE(idgen::uuid_time(u).present) << s;
        EXPECT_FALSE(idgen::uuidv7_time(u).present) << s;
    }
    EXPECT_EQ(idgen::uuid_version(from_hex("00000000-0000-0000-0000-000000000000")), -1);  // nil
    EXPECT_EQ(idgen::uuid_version(from_hex("ffffffff-ffff-ffff-ffff-ffffffffffff")), -1);  // max
}

TEST(Uuidv7, ShiftedTimeRangeIsPostgres18s) {
    EXPECT_TRUE(idgen::uuidv7_shifted_time_in_range(0));
    EXPECT_FALSE(idgen::uuidv7_shifted_time_in_range(-1));
    EXPECT_TRUE(idgen::uuidv7_shifted_time_in_range(idgen::kUuidv7MaxMs * 1000));
    EXPECT_FALSE(idgen::uuidv7_shifted_time_in_range(idgen::kUuidv7MaxMs * 1000 + 1));
    EXPECT_FALSE(idgen::uuidv7_shifted_time_in_range(INT64_MIN));
    EXPECT_FALSE(idgen::uuidv7_shifted_time_in_range(INT64_MAX));
}

TEST(Uuidv7, ComposeLayout) {
    idgen::test::FixedBytes ones({0xFF});
    auto u = idgen::uuidv7_compose(0x0123456789AB, 500000, ones);
    ASSERT_TRUE(u.ok());
    EXPECT_EQ(hex(*u), "01234567-89ab-7800-bfff-ffffffffffff");  // fraction 2048 = 0x800; variant 0b10
    idgen::test::FixedBytes zeros({0x00});
    auto z = idgen::uuidv7_compose(0, 0, zeros);
    EXPECT_EQ(hex(*z), "00000000-0000-7000-8000-000000000000");
    EXPECT_EQ(idgen::uuidv7_compose(-1, 0, zeros).error(), Error::kTimeOutOfRange);
    EXPECT_EQ(idgen::uuidv7_compose(idgen::kUuidv7MaxMs + 1, 0, zeros).error(), Error::kTimeOutOfRange);
    EXPECT_TRUE(idgen::uuidv7_compose(idgen::kUuidv7MaxMs, 999999, zeros).ok());
    idgen::test::FixedBytes failing({0});
    failing.set_fail(true);
    EXPECT_EQ(idgen::uuidv7_compose(1, 0, failing).error(), Error::kEntropyFailure);
}

// The fraction is the inverse of its microsecond reading for every whole microsecond, is
// monotonic in the sub-millisecond time, and a 245 ns step always changes it.
TEST(Uuidv7, FractionArithmetic) {
    EXPECT_EQ(idgen::kUuidv7StepNs, 245);
    for (std::int64_t us = 0; us < 1000; ++us)
        ASSERT_EQ(idgen::uuidv7_fraction_us(idgen::uuidv7_fraction(us * 1000)), us) << us;
    for (std::int64_t ns = 0; ns + idgen::kUuidv7StepNs < 1000000; ns += 7) {
        ASSERT_LT(idgen::uuidv7_fraction(ns), idgen::uuidv7_fraction(ns + idgen::kUuidv7StepNs)) << ns;
        const std::int64_t us = idgen::uuidv7_fraction_us(idgen::uuidv7_fraction(ns));
        ASSERT_LE(std::abs(us * 1000 - ns), 1000) << ns;  // within 1 µs of the reading
        ASSERT_LE(us, 999);
    }
    EXPECT_EQ(idgen::uuidv7_fraction(999999), 4095);
    EXPECT_EQ(idgen::uuidv7_fraction_us(4095), 999);
}

// A clock that stands still: strictly increasing IDs, never a duplicate; the generator's time runs
// ahead by 245 ns per ID.
TEST(Uuidv7, ClockStandsStill) {
    idgen::test::FixedBytes same({0x42});  // identical random bits: only the time orders them
    idgen::Uuidv7Generator g;
    const std::int64_t now = 1700000000123456789;
    Uuid prev{};
    for (int i = 0; i < 100000; ++i) {
        auto u = g.next(now, same);
        ASSERT_TRUE(u.ok());
        if (i > 0) {
            ASSERT_TRUE(less(prev, *u)) << i << " " << hex(prev) << " " << hex(*u);
        }
        prev = *u;
    }
    EXPECT_EQ(g.clock().last_ns(), now + 99999 * idgen::kUuidv7StepNs);
    EXPECT_EQ(ms_of(prev), (now + 99999 * idgen::kUuidv7StepNs) / 1000000);
}

// A clock that steps back (e.g. NTP) by a second: IDs keep increasing; the generator keeps its
// time until the clock has caught up, then follows the clock again.
TEST(Uuidv7, ClockStepsBack) {
    idgen::test::FixedBytes same({0x00});
    idgen::Uuidv7Generator g;
    const std::int64_t t0 = 1700000000000000000;
    auto a = g.next(t0, same);
    auto b = g.next(t0 - 1000000000, same);  // one second back
    auto c = g.next(t0 - 999999999, same);
    ASSERT_TRUE(a.ok() && b.ok() && c.ok());
    EXPECT_TRUE(less(*a, *b));
    EXPECT_TRUE(less(*b, *c));
    EXPECT_EQ(ms_of(*b), t0 / 1000000);
    auto d = g.next(t0 + 5000000, same);  // clock caught up and passed: follows it exactly
    EXPECT_EQ(ms_of(*d), t0 / 1000000 + 5);
    EXPECT_EQ(rand_a(*d), 0u);
    EXPECT_TRUE(less(*c, *d));
}

TEST(Uuidv7, ClockAdvancesNormally) {
    idgen::test::FixedBytes r({0x5A, 0xA5, 0x3C});
    idgen::Uuidv7Generator g;
    const std::int64_t t0 = 1700000000000250000;  // .25 ms into a millisecond
    auto u = g.next(t0, r);
    ASSERT_TRUE(u.ok());
    EXPECT_EQ(ms_of(*u), t0 / 1000000);
    EXPECT_EQ(rand_a(*u), idgen::uuidv7_fraction(250000));
    EXPECT_EQ(idgen::uuid_version(*u), 7);
    EXPECT_EQ(u->bytes[8] & 0xC0, 0x80);
    // The precise reading recovers the clock to the microsecond.
    EXPECT_EQ(idgen::uuidv7_time_precise(*u).unix_us, t0 / 1000);
}

TEST(Uuidv7, ClockRangeEnd) {
    idgen::test::FixedBytes r({1});
    idgen::Uuidv7Generator g;
    ASSERT_TRUE(g.next(INT64_MAX - 100, r).ok());
    EXPECT_EQ(g.next(0, r).error(), Error::kTimeOutOfRange);  // never wraps to a smaller time
}

TEST(Uuidv7, LowerUpperBracketTheMillisecond) {
    const std::int64_t ms = 1645557742000;
    auto lo = idgen::uuidv7_lower(ms), hi = idgen::uuidv7_upper(ms);
    ASSERT_TRUE(lo.ok() && hi.ok());
    EXPECT_EQ(hex(*lo), "017f22e2-79b0-7000-8000-000000000000");
    EXPECT_EQ(hex(*hi), "017f22e2-79b0-7fff-bfff-ffffffffffff");
    idgen::test::FixedBytes r({0x00, 0xFF, 0x13, 0x77});
    for (std::int64_t sub = 0; sub < 1000000; sub += 997) {
        auto u = idgen::uuidv7_compose(ms, sub, r);
        ASSERT_FALSE(less(*u, *lo));
        ASSERT_FALSE(less(*hi, *u));
    }
    EXPECT_TRUE(less(*hi, *idgen::uuidv7_lower(ms + 1)));
    EXPECT_EQ(idgen::uuidv7_lower(-1).error(), Error::kTimeOutOfRange);
    EXPECT_EQ(idgen::uuidv7_upper(idgen::kUuidv7MaxMs + 1).error(), Error::kTimeOutOfRange);
    EXPECT_EQ(hex(*idgen::uuidv7_upper(idgen::kUuidv7MaxMs)), "ffffffff-ffff-7fff-bfff-ffffffffffff");
}

// Version 1 bit positions: time_hi is read from the low 12 bits of bytes 6-7, not the version.
TEST(Uuidv7, V1FieldOrder) {
    // 60-bit count 0x1EC9414C232AB00 (the RFC example) encoded with time_low first.
    Uuid u = from_hex("c232ab00-9414-11ec-8000-000000000000");
    EXPECT_EQ(idgen::uuid_time(u).unix_us, kRfcExampleUnixUs);
    // Gregorian epoch itself: 1582-10-15 = Unix -12219292800 s.
    Uuid g = from_hex("00000000-0000-1000-8000-000000000000");
    EXPECT_EQ(idgen::uuid_time(g).unix_us, -12219292800LL * 1000000);
}
