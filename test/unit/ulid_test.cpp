#include "core/types/ulid.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "fake_sources.h"

using idgen::Error;
using idgen::Ulid;

namespace {

std::string fmt(const Ulid& u) {
    char buf[26];
    idgen::ulid_format(u, buf);
    return std::string(buf, 26);
}

Ulid parse_ok(const std::string& s) {
    auto r = idgen::ulid_parse(s.data(), s.size());
    EXPECT_TRUE(r.ok()) << s;
    return *r;
}

Error parse_err(const std::string& s) { return idgen::ulid_parse(s.data(), s.size()).error(); }

std::string hex(const Ulid& u) {
    static const char* d = "0123456789abcdef";
    std::string s;
    for (auto b : u.bytes) {
        s += d[b >> 4];
        s += d[b & 15];
    }
    return s;
}

}  // namespace

// The ULID spec README seeds its generator with time 1469918176385 and shows
// 01ARYZ6S41TSV4RRFFQ69G5FAV; its other example, 01ARZ3NDEKTSV4RRFFQ69G5FAV, carries 1469922850259.
TEST(UlidParse, SpecExampleTime) {
    Ulid u = parse_ok("01ARYZ6S41TSV4RRFFQ69G5FAV");
    EXPECT_EQ(idgen::ulid_time_ms(u), 1469918176385);
    EXPECT_EQ(fmt(u), "01ARYZ6S41TSV4RRFFQ69G5FAV");
    Ulid v = parse_ok("01ARZ3NDEKTSV4RRFFQ69G5FAV");
    EXPECT_EQ(idgen::ulid_time_ms(v), 1469922850259);
    EXPECT_EQ(0, std::memcmp(u.bytes + 6, v.bytes + 6, 10));  // same random part
}

// The spec's timestamp encoding example: 1469918176385 ms is "01ARYZ6S41" (10 characters).
TEST(UlidFormat, SpecTimestampPrefix) {
    auto lo = idgen::ulid_lower(1469918176385);
    ASSERT_TRUE(lo.ok());
    EXPECT_EQ(fmt(*lo).substr(0, 10), "01ARYZ6S41");
    EXPECT_EQ(fmt(*lo).substr(10), "0000000000000000");
}

TEST(UlidParse, BoundaryValues) {
    Ulid zero = parse_ok("00000000000000000000000000");
    EXPECT_EQ(hex(zero), std::string(32, '0'));
    Ulid max = parse_ok("7ZZZZZZZZZZZZZZZZZZZZZZZZZ");
    EXPECT_EQ(hex(max), std::string(32, 'f'));
    Ulid one = parse_ok("00000000000000000000000001");
    EXPECT_EQ(one.bytes[15], 1);
    EXPECT_EQ(fmt(max), "7ZZZZZZZZZZZZZZZZZZZZZZZZZ");
}

TEST(UlidParse, CaseInsensitive) {
    EXPECT_EQ(hex(parse_ok("01arz3ndektsv4rrffq69g5fav")), hex(parse_ok("01ARZ3NDEKTSV4RRFFQ69G5FAV")));
    EXPECT_EQ(hex(parse_ok("01ArZ3nDeKtSv4RrFfQ69g5FaV")), hex(parse_ok("01ARZ3NDEKTSV4RRFFQ69G5FAV")));
}

TEST(UlidParse, OutOfRangeFirstCharacter) {
    EXPECT_EQ(parse_err("80000000000000000000000000"), Error::kOutOfRange);
    EXPECT_EQ(parse_err("ZZZZZZZZZZZZZZZZZZZZZZZZZZ"), Error::kOutOfRange);
    EXPECT_EQ(parse_err("zzzzzzzzzzzzzzzzzzzzzzzzzz"), Error::kOutOfRange);
}

TEST(UlidParse, MalformedInputClasses) {
    // Wrong length.
    EXPECT_EQ(parse_err(""), Error::kInvalidSyntax);
    EXPECT_EQ(parse_err("0"), Error::kInvalidSyntax);
    EXPECT_EQ(parse_err(std::string(25, '0')), Error::kInvalidSyntax);
    EXPECT_EQ(parse_err(std::string(27, '0')), Error::kInvalidSyntax);
    // Excluded letters, either case, at every position.
    for (char c : std::string("ILOUilou")) {
        for (std::size_t pos = 0; pos < 26; ++pos) {
            std::string s(26, '0');
            s[pos] = c;
            EXPECT_EQ(parse_err(s), Error::kInvalidSyntax) << s;
        }
    }
    // Punctuation, whitespace, NUL, non-ASCII.
    for (char c : std::string("-_ \t{}!*~=")) {
        std::string s(26, '1');
        s[13] = c;
        EXPECT_EQ(parse_err(s), Error::kInvalidSyntax) << s;
    }
    std::string with_nul(26, '1');
    with_nul[5] = '\0';
    EXPECT_EQ(parse_err(with_nul), Error::kInvalidSyntax);
    std::string high(26, '1');
    high[0] = static_cast<char>(0xC3);
    EXPECT_EQ(parse_err(high), Error::kInvalidSyntax);
    // A bad character outranks an out-of-range first character.
    EXPECT_EQ(parse_err("Z000000000000000000000000U"), Error::kInvalidSyntax);
}

TEST(UlidFormat, RoundTripRandom) {
    std::mt19937_64 rng(42);
    for (int i = 0; i < 100000; ++i) {
        Ulid u{};
        for (auto& b : u.bytes) b = static_cast<std::uint8_t>(rng());
        std::string s = fmt(u);
        ASSERT_EQ(s.size(), 26u);
        ASSERT_LE(s[0], '7');
        Ulid back = parse_ok(s);
        ASSERT_EQ(0, std::memcmp(u.bytes, back.bytes, 16)) << s;
    }
}

TEST(UlidFormat, TextOrderEqualsByteOrder) {
    std::mt19937_64 rng(7);
    for (int i = 0; i < 100000; ++i) {
        Ulid a{}, b{};
        for (auto& x : a.bytes) x = static_cast<std::uint8_t>(rng());
        b = a;
        b.bytes[rng() % 16] ^= static_cast<std::uint8_t>(1 + rng() % 255);
        int bytes_cmp = std::memcmp(a.bytes, b.bytes, 16);
        int text_cmp = fmt(a).compare(fmt(b));
        ASSERT_EQ(bytes_cmp < 0, text_cmp < 0);
        ASSERT_NE(text_cmp, 0);
    }
}

TEST(UlidTime, LowerUpperBoundsAndRange) {
    const std::int64_t ms = 1700000000123;
    auto lo = idgen::ulid_lower(ms);
    auto hi = idgen::ulid_upper(ms);
    ASSERT_TRUE(lo.ok());
    ASSERT_TRUE(hi.ok());
    EXPECT_EQ(idgen::ulid_time_ms(*lo), ms);
    EXPECT_EQ(idgen::ulid_time_ms(*hi), ms);
    EXPECT_LT(std::memcmp(lo->bytes, hi->bytes, 16), 0);
    EXPECT_EQ(hex(*hi).substr(12), std::string(20, 'f'));
    EXPECT_EQ(hex(*lo).substr(12), std::string(20, '0'));
    EXPECT_EQ(idgen::ulid_lower(-1).error(), Error::kTimeOutOfRange);
    EXPECT_EQ(idgen::ulid_upper(idgen::kUlidMaxMs + 1).error(), Error::kTimeOutOfRange);
    EXPECT_TRUE(idgen::ulid_upper(idgen::kUlidMaxMs).ok());
    EXPECT_EQ(fmt(*idgen::ulid_upper(idgen::kUlidMaxMs)), "7ZZZZZZZZZZZZZZZZZZZZZZZZZ");
}

TEST(UlidAt, UsesGivenTimeAndFreshRandom) {
    idgen::test::FixedBytes bytes({0xAB});
    auto u = idgen::ulid_at(1234567, bytes);
    ASSERT_TRUE(u.ok());
    EXPECT_EQ(idgen::ulid_time_ms(*u), 1234567);
    EXPECT_EQ(hex(*u).substr(12), std::string(20, 'a').replace(0, 20, "abababababababababab"));
    bytes.set_fail(true);
    EXPECT_EQ(idgen::ulid_at(1, bytes).error(), Error::kEntropyFailure);
    EXPECT_EQ(idgen::ulid_at(-5, bytes).error(), Error::kTimeOutOfRange);
}

TEST(UlidGenerator, NewMillisecondTakesFreshRandom) {
    idgen::test::FixedBytes bytes({0x11, 0x22, 0x33});
    idgen::UlidGenerator g;
    auto a = g.next(1000, bytes);
    auto b = g.next(1001, bytes);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(idgen::ulid_time_ms(*a), 1000);
    EXPECT_EQ(idgen::ulid_time_ms(*b), 1001);
    EXPECT_EQ(bytes.calls(), 2);
}

TEST(UlidGenerator, ClockStandingStillIncrementsByOne) {
    idgen::test::FixedBytes bytes({0x00});
    idgen::UlidGenerator g;
    auto prev = g.next(5000, bytes);
    ASSERT_TRUE(prev.ok());
    for (int i = 0; i < 1000; ++i) {
        auto cur = g.next(5000, bytes);
        ASSERT_TRUE(cur.ok());
        ASSERT_LT(std::memcmp(prev->bytes, cur->bytes, 16), 0);
        ASSERT_EQ(idgen::ulid_time_ms(*cur), 5000);
        ASSERT_EQ(cur->bytes[15], static_cast<std::uint8_t>(prev->bytes[15] + 1));
        prev = cur;
    }
    EXPECT_EQ(bytes.calls(), 1);  // no randomness drawn within the millisecond
}

TEST(UlidGenerator, ClockSteppingBackKeepsLastTime) {
    idgen::test::FixedBytes bytes({0x42});
    idgen::UlidGenerator g;
    auto a = g.next(10000, bytes);
    auto b = g.next(9000, bytes);
    auto c = g.next(1, bytes);
    ASSERT_TRUE(a.ok() && b.ok() && c.ok());
    EXPECT_EQ(idgen::ulid_time_ms(*b), 10000);
    EXPECT_EQ(idgen::ulid_time_ms(*c), 10000);
    EXPECT_LT(std::memcmp(a->bytes, b->bytes, 16), 0);
    EXPECT_LT(std::memcmp(b->bytes, c->bytes, 16), 0);
    auto d = g.next(10001, bytes);
    ASSERT_TRUE(d.ok());
    EXPECT_EQ(idgen::ulid_time_ms(*d), 10001);
}

TEST(UlidGenerator, LowWordCarryIntoHighBits) {
    // Random part 0x00FF FFFFFFFFFFFFFFFF: the next increment carries into the top 16 bits.
    idgen::test::FixedBytes bytes({0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF});
    idgen::UlidGenerator g;
    auto a = g.next(77, bytes);
    auto b = g.next(77, bytes);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(hex(*a).substr(12), "00ffffffffffffffffff");
    EXPECT_EQ(hex(*b).substr(12), "01000000000000000000");
    EXPECT_EQ(idgen::ulid_time_ms(*b), 77);
}

TEST(UlidGenerator, RandomPartAtMaximumMovesToNextMillisecond) {
    idgen::test::FixedBytes bytes({0xFF});
    idgen::UlidGenerator g;
    auto a = g.next(500, bytes);  // random part all ones
    ASSERT_TRUE(a.ok());
    EXPECT_EQ(hex(*a).substr(12), std::string(20, 'f'));
    auto b = g.next(500, bytes);  // cannot add 1: borrows ms 501, never wraps
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(idgen::ulid_time_ms(*b), 501);
    EXPECT_LT(std::memcmp(a->bytes, b->bytes, 16), 0);
    auto c = g.next(500, bytes);  // the clock is still behind: continue from 501
    ASSERT_TRUE(c.ok());
    EXPECT_EQ(idgen::ulid_time_ms(*c), 502);  // 501's random part is all ones again
    EXPECT_LT(std::memcmp(b->bytes, c->bytes, 16), 0);
}

TEST(UlidGenerator, FailuresLeaveStateUntouched) {
    idgen::test::FixedBytes bytes({0x10});
    idgen::UlidGenerator g;
    bytes.set_fail(true);
    EXPECT_EQ(g.next(100, bytes).error(), Error::kEntropyFailure);
    bytes.set_fail(false);
    auto a = g.next(100, bytes);
    ASSERT_TRUE(a.ok());
    EXPECT_EQ(idgen::ulid_time_ms(*a), 100);
    EXPECT_EQ(g.next(idgen::kUlidMaxMs + 1, bytes).error(), Error::kTimeOutOfRange);
    auto b = g.next(100, bytes);
    ASSERT_TRUE(b.ok());
    EXPECT_LT(std::memcmp(a->bytes, b->bytes, 16), 0);
}

TEST(UlidGenerator, StrictlyIncreasingUnderJitteryClock) {
    idgen::EntropyPool pool;
    pool.set_owner(1);
    idgen::UlidGenerator g;
    std::mt19937 rng(3);
    std::int64_t clock = 1700000000000;
    Ulid prev{};
    for (int i = 0; i < 200000; ++i) {
        clock += static_cast<int>(rng() % 5) - 2;  // forwards, still and backwards
        auto u = g.next(clock, pool);
        ASSERT_TRUE(u.ok());
        if (i > 0) {
            ASSERT_LT(std::memcmp(prev.bytes, u->bytes, 16), 0);
        }
        prev = *u;
    }
}

TEST(EntropyPool, DistinctDrawsAndRefillAcrossBlocks) {
    idgen::EntropyPool pool;
    pool.set_owner(1);
    std::set<std::string> seen;
    for (int i = 0; i < 2000; ++i) {  // 20,000 bytes: several refills
        std::uint8_t b[10];
        ASSERT_TRUE(pool.fill(b, sizeof b));
        ASSERT_TRUE(seen.insert(std::string(reinterpret_cast<char*>(b), 10)).second);
    }
    std::vector<std::uint8_t> big(3 * idgen::EntropyPool::kBlock + 7);
    ASSERT_TRUE(pool.fill(big.data(), big.size()));
    EXPECT_GT(std::count(big.begin(), big.end(), 0), 0);  // zeros occur in random data...
    EXPECT_LT(std::count(big.begin(), big.end(), 0), static_cast<long>(big.size() / 64));  // ...rarely
}

// gen_monotonic_ulid()'s ULIDs: the state ID (ms << 16 | counter) is the first 64 bits, then 64
// fresh random bits; the state layout has 47 time bits of Unix ms, no node, a 16-bit counter.
TEST(UlidFromStateId, FirstSixtyFourBitsAreTheStateId) {
    idgen::test::FixedBytes bytes({0xC3, 0x5A});
    const std::int64_t ms = 1469922850259;  // the spec example's time
    const std::int64_t sid = (ms << 16) | 0x1234;
    auto u = idgen::ulid_from_state_id(sid, bytes);
    ASSERT_TRUE(u.ok());
    EXPECT_EQ(idgen::ulid_time_ms(*u), ms);
    EXPECT_EQ(hex(*u).substr(12, 4), "1234");
    EXPECT_EQ(hex(*u).substr(16), "c35ac35ac35ac35a");
    EXPECT_EQ(idgen::ulid_state_id(*u), sid);
    EXPECT_EQ(fmt(*u).substr(0, 10), "01ARZ3NDEK");
    // Larger state IDs give larger ULIDs whatever the random bits.
    idgen::test::FixedBytes high({0xFF});
    idgen::test::FixedBytes low({0x00});
    auto a = idgen::ulid_from_state_id(sid, high);
    auto b = idgen::ulid_from_state_id(sid + 1, low);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_LT(fmt(*a), fmt(*b));
    EXPECT_EQ(idgen::ulid_from_state_id(-1, bytes).error(), Error::kOutOfRange);
    bytes.set_fail(true);
    EXPECT_EQ(idgen::ulid_from_state_id(sid, bytes).error(), Error::kEntropyFailure);
    // A ULID past 47 bits of ms is no state ID.
    EXPECT_EQ(idgen::ulid_state_id(parse_ok("7ZZZZZZZZZZZZZZZZZZZZZZZZZ")), -1);
}
