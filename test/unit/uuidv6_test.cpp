#include "core/types/uuidv6.h"

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

constexpr std::int64_t kRfcExampleUnixUs = 1645557742000000;  // 2022-02-22 19:22:22 UTC
constexpr std::int64_t kRfcExampleNs = kRfcExampleUnixUs * 1000;

}  // namespace

// RFC 9562 Appendix A.5: 1EC9414C-232A-6B00-B3C8-9F6BDECED846 is 2022-02-22 14:22:22.00 -05:00,
// and A.1's version 1 example C232AB00-9414-11EC-B3C8-9F6BDECED846 is the same ID as version 1.
TEST(Uuidv6, RfcAppendixExample) {
    const Uuid v6 = from_hex("1EC9414C-232A-6B00-B3C8-9F6BDECED846");
    const Uuid v1 = from_hex("C232AB00-9414-11EC-B3C8-9F6BDECED846");
    EXPECT_EQ(idgen::uuid_version(v6), 6);
    auto t = idgen::uuid_time_v167(v6);
    ASSERT_TRUE(t.present);
    EXPECT_EQ(t.unix_us, kRfcExampleUnixUs);
    EXPECT_EQ(idgen::uuidv6_ticks(v6), idgen::uuidv1_ticks(v1));
    EXPECT_EQ(idgen::uuidv6_ticks(v6), 0x1EC9414C232AB00);
    auto to1 = idgen::uuid_v6_to_v1(v6);
    ASSERT_TRUE(to1.ok);
    EXPECT_EQ(hex(to1.id), "c232ab00-9414-11ec-b3c8-9f6bdeced846");
    auto to6 = idgen::uuid_v1_to_v6(v1);
    ASSERT_TRUE(to6.ok);
    EXPECT_EQ(hex(to6.id), "1ec9414c-232a-6b00-b3c8-9f6bdeced846");
    // The composed fields give the same bytes.
    auto c = idgen::uuidv6_compose(0x1EC9414C232AB00, 0x33C8, 0x9F6BDECED846);
    ASSERT_TRUE(c.ok());
    EXPECT_EQ(hex(*c), "1ec9414c-232a-6b00-b3c8-9f6bdeced846");
    // The v1/v7 reader of PostgreSQL 18 does not read version 6; ours reads all three.
    EXPECT_FALSE(idgen::uuid_time(v6).present);
    EXPECT_EQ(idgen::uuid_time_v167(v1).unix_us, kRfcExampleUnixUs);
    EXPECT_EQ(idgen::uuid_time_v167(from_hex("017F22E2-79B0-7CC3-98C4-DC0C0C07398F")).unix_us, kRfcExampleUnixUs);
}

TEST(Uuidv6, ConversionsRefuseOtherVersionsAndVariants) {
    const Uuid v6 = from_hex("1EC9414C-232A-6B00-B3C8-9F6BDECED846");
    const Uuid v1 = from_hex("C232AB00-9414-11EC-B3C8-9F6BDECED846");
    EXPECT_FALSE(idgen::uuid_v1_to_v6(v6).ok);
    EXPECT_FALSE(idgen::uuid_v6_to_v1(v1).ok);
    EXPECT_FALSE(idgen::uuid_v1_to_v6(from_hex("017F22E2-79B0-7CC3-98C4-DC0C0C07398F")).ok);
    // Version nibble 1 or 6, but NCS / Microsoft / future variants: not RFC 9562 UUIDs.
    for (std::uint8_t var : {0x00, 0x40, 0xC0, 0xE0}) {
        Uuid a = v1, b = v6;
        a.bytes[8] = static_cast<std::uint8_t>((a.bytes[8] & 0x1F) | var);
        b.bytes[8] = static_cast<std::uint8_t>((b.bytes[8] & 0x1F) | var);
        EXPECT_FALSE(idgen::uuid_v1_to_v6(a).ok) << hex(a);
        EXPECT_FALSE(idgen::uuid_v6_to_v1(b).ok) << hex(b);
        EXPECT_FALSE(idgen::uuid_time_v167(a).present);
        EXPECT_FALSE(idgen::uuid_time_v167(b).present);
    }
}

// Every bit pattern of the 60-bit timestamp survives v6 -> v1 -> v6 and v1 -> v6 -> v1; bytes
// 8-15 are untouched; the time the two versions show is the same.
TEST(Uuidv6, ConversionsAreLossless) {
    idgen::test::FixedBytes random({0x5a, 0x13, 0xf0, 0x0d, 0x99, 0xee, 0x01, 0x77, 0x42});
    std::uint64_t x = 0x9E3779B97F4A7C15ULL;
    for (int i = 0; i < 20000; ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        const auto ticks = static_cast<std::int64_t>(x & ((std::uint64_t{1} << 60) - 1));
        auto v6 = idgen::uuidv6_compose(ticks, static_cast<std::uint16_t>(x >> 3), x * 31);
        ASSERT_TRUE(v6.ok());
        EXPECT_EQ(idgen::uuidv6_ticks(*v6), ticks);
        auto v1 = idgen::uuid_v6_to_v1(*v6);
        ASSERT_TRUE(v1.ok);
        EXPECT_EQ(idgen::uuid_version(v1.id), 1);
        EXPECT_EQ(idgen::uuidv1_ticks(v1.id), ticks);
        EXPECT_EQ(std::memcmp(v1.id.bytes + 8, v6->bytes + 8, 8), 0);
        EXPECT_EQ(idgen::uuid_time_v167(v1.id).unix_us, idgen::uuid_time_v167(*v6).unix_us);
        EXPECT_EQ(idgen::uuid_time(v1.id).unix_us, idgen::uuid_time_v167(v1.id).unix_us);
        auto back = idgen::uuid_v1_to_v6(v1.id);
        ASSERT_TRUE(back.ok);
        EXPECT_EQ(std::memcmp(back.id.bytes, v6->bytes, 16), 0);
    }
}

TEST(Uuidv6, TimestampRange) {
    EXPECT_EQ(idgen::uuidv6_compose(-1, 0, 0).error(), Error::kTimeOutOfRange);
    EXPECT_EQ(idgen::uuidv6_compose(idgen::kUuidv6MaxTicks + 1, 0, 0).error(), Error::kTimeOutOfRange);
    auto first = idgen::uuidv6_compose(0, 0, 0);
    ASSERT_TRUE(first.ok());
    EXPECT_EQ(hex(*first), "00000000-0000-6000-8000-000000000000");
    EXPECT_EQ(idgen::uuid_time_v167(*first).unix_us, -idgen::kGregorianToUnixTicks / 10);
    auto last = idgen::uuidv6_compose(idgen::kUuidv6MaxTicks, 0xFFFF, ~0ULL);
    ASSERT_TRUE(last.ok());
    EXPECT_EQ(hex(*last), "ffffffff-ffff-6fff-bfff-ffffffffffff");
    // The Unix epoch is 0x01B21DD213814000 ticks.
    auto epoch = idgen::uuidv6_compose(0x01B21DD213814000, 0, 0);
    EXPECT_EQ(idgen::uuid_time_v167(*epoch).unix_us, 0);
    // A generator's clock is int64 Unix ns (1677-09-21 .. 2262-04-11): inside the 60-bit range at
    // both ends, the earliest reading included.
    idgen::test::FixedBytes random({1, 2, 3});
    idgen::Uuidv6Generator g;
    auto early = g.next(INT64_MIN, random);
    ASSERT_TRUE(early.ok());
    EXPECT_EQ(idgen::uuidv6_ticks(*early), INT64_MIN / 100 - 1 + idgen::kGregorianToUnixTicks);
    auto late = g.next(INT64_MAX, random);
    ASSERT_TRUE(late.ok());
    EXPECT_EQ(idgen::uuidv6_ticks(*late), INT64_MAX / 100 + idgen::kGregorianToUnixTicks);
}

// Layout of generated IDs: version, variant, multicast bit, time of the clock reading (to 100 ns).
TEST(Uuidv6, GeneratedLayout) {
    idgen::test::FixedBytes zeros({0x00});
    idgen::test::FixedBytes ones({0xFF});
    idgen::Uuidv6Generator g;
    auto a = g.next(kRfcExampleNs, zeros);
    ASSERT_TRUE(a.ok());
    EXPECT_EQ(hex(*a), "1ec9414c-232a-6b00-8000-010000000000");  // multicast bit set even from zero bits
    auto b = g.next(kRfcExampleNs + 1000, ones);
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(hex(*b), "1ec9414c-232a-6b0a-bfff-ffffffffffff");
    EXPECT_EQ(idgen::uuid_version(*b), 6);
    EXPECT_EQ(idgen::uuid_time_v167(*b).unix_us, kRfcExampleUnixUs + 1);
    // A failing source issues nothing and leaves the clock where it was.
    idgen::test::FixedBytes failing({0});
    failing.set_fail(true);
    EXPECT_EQ(g.next(kRfcExampleNs + 5000, failing).error(), Error::kEntropyFailure);
    EXPECT_EQ(g.last_ticks(), idgen::uuidv6_ticks(*b));
}

// A clock that stands still or steps back: timestamps run ahead by one tick per ID, strictly
// increasing, and rejoin the clock once it passes them.
TEST(Uuidv6, MonotonicWhenTheClockStallsOrStepsBack) {
    idgen::EntropyPool pool;
    pool.set_owner(1);
    idgen::Uuidv6Generator g;
    Uuid prev{};
    std::set<std::string> seen;
    std::int64_t now = kRfcExampleNs;
    for (int i = 0; i < 5000; ++i) {
        if (i == 1000) now -= 1000000000;  // one second back
        if (i % 7 == 0) now += 50;         // half a tick: often no new tick
        auto id = g.next(now, pool);
        ASSERT_TRUE(id.ok());
        if (i > 0) {
            EXPECT_TRUE(less(prev, *id)) << i;
        }
        EXPECT_TRUE(seen.insert(hex(*id)).second);
        prev = *id;
    }
    // After the clock moves past the run-ahead, the ID's time is the clock's again.
    auto later = g.next(kRfcExampleNs + 10'000'000'000, pool);
    ASSERT_TRUE(later.ok());
    EXPECT_EQ(idgen::uuid_time_v167(*later).unix_us, kRfcExampleUnixUs + 10'000'000);
}
