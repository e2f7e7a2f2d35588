#include "core/types/ksuid.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <set>
#include <string>

#include "core/base/entropy.h"
#include "fake_sources.h"

using idgen::Error;
using idgen::Ksuid;
using idgen::KsuidGenerator;
using idgen::test::FixedBytes;

namespace {

std::string fmt(const Ksuid& id) {
    char b[idgen::kKsuidTextLen];
    idgen::ksuid_format(id, b);
    return std::string(b, sizeof b);
}

Error parse_err(const std::string& s) { return idgen::ksuid_parse(s.data(), s.size()).error(); }

std::string hex(const Ksuid& k) {
    static const char* d = "0123456789ABCDEF";
    std::string s;
    for (auto b : k.bytes) {
        s += d[b >> 4];
        s += d[b & 15];
    }
    return s;
}

// base62 of a 160-bit number by schoolbook long division over decimal-free bytes: an independent
// reference for the limb arithmetic in ksuid.cpp.
std::string reference_base62(Ksuid k) {
    static const char* a = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    std::string out;
    for (int d = 0; d < 27; ++d) {
        unsigned rem = 0;
        for (auto& byte : k.bytes) {
            const unsigned cur = (rem << 8) | byte;
            byte = static_cast<std::uint8_t>(cur / 62);
            rem = cur % 62;
        }
        out.insert(out.begin(), a[rem]);
    }
    return out;
}

}  // namespace

// Segment's published example (github.com/segmentio/ksuid README).
TEST(KsuidCodec, SegmentExample) {
    auto k = idgen::ksuid_parse("0ujtsYcgvSTl8PAuAdqWYSMnLOv", 27);
    ASSERT_TRUE(k.ok());
    EXPECT_EQ(hex(*k), "0669F7EFB5A1CD34B5F99D1154FB6853345C9735");
    EXPECT_EQ(idgen::ksuid_unix_seconds(*k), 1507608047);  // 2017-10-10 04:00:47 UTC
    EXPECT_EQ(fmt(*k), "0ujtsYcgvSTl8PAuAdqWYSMnLOv");
}

TEST(KsuidCodec, RangeEnds) {
    Ksuid zero{};
    EXPECT_EQ(fmt(zero), "000000000000000000000000000");
    Ksuid max;
    std::memset(max.bytes, 0xFF, 20);
    EXPECT_EQ(fmt(max), "aWgEPTl1tmebfsQzFP4bxwgy80V");
    auto back = idgen::ksuid_parse("aWgEPTl1tmebfsQzFP4bxwgy80V", 27);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(std::memcmp(back->bytes, max.bytes, 20), 0);
    EXPECT_EQ(idgen::ksuid_unix_seconds(zero), 1400000000);
    EXPECT_EQ(idgen::ksuid_unix_seconds(max), 1400000000 + 4294967295LL);
}

TEST(KsuidCodec, Errors) {
    EXPECT_EQ(parse_err("aWgEPTl1tmebfsQzFP4bxwgy80W"), Error::kOutOfRange);  // 2^160
    EXPECT_EQ(parse_err("aWgEPTl1tmebfsQzFP4bxwgy810"), Error::kOutOfRange);
    EXPECT_EQ(parse_err("zzzzzzzzzzzzzzzzzzzzzzzzzzz"), Error::kOutOfRange);
    EXPECT_EQ(parse_err("b00000000000000000000000000"), Error::kOutOfRange);
    EXPECT_EQ(parse_err("0ujtsYcgvSTl8PAuAdqWYSMnLO"), Error::kInvalidSyntax);
    EXPECT_EQ(parse_err("0ujtsYcgvSTl8PAuAdqWYSMnLOvv"), Error::kInvalidSyntax);
    EXPECT_EQ(parse_err(""), Error::kInvalidSyntax);
    for (char bad : {'-', '_', ' ', '/', ':', '@', '[', '`', '{', '\0', '\xff'}) {
        std::string s = "0ujtsYcgvSTl8PAuAdqWYSMnLOv";
        s[13] = bad;
        EXPECT_EQ(parse_err(s), Error::kInvalidSyntax) << static_cast<int>(bad);
    }
    // A bad character beats an out-of-range value: the whole input is checked first.
    EXPECT_EQ(parse_err("zzzzzzzzzzzzzzzzzzzzzzzzzz-"), Error::kInvalidSyntax);
}

TEST(KsuidCodec, RandomValuesMatchReferenceAndRoundTripAndOrder) {
    std::mt19937_64 rng(42);
    Ksuid prev{};
    std::string prev_text = fmt(prev);
    for (int i = 0; i < 20000; ++i) {
        Ksuid k;
        for (auto& b : k.bytes) b = static_cast<std::uint8_t>(rng());
        if (i % 7 == 0) std::memcpy(k.bytes, prev.bytes, 10);  // long shared prefixes
        const std::string t = fmt(k);
        ASSERT_EQ(t, reference_base62(k)) << hex(k);
        auto back = idgen::ksuid_parse(t.data(), t.size());
        ASSERT_TRUE(back.ok());
        ASSERT_EQ(std::memcmp(back->bytes, k.bytes, 20), 0);
        const int c = std::memcmp(k.bytes, prev.bytes, 20);
        ASSERT_EQ(c < 0, t < prev_text);
        ASSERT_EQ(c == 0, t == prev_text);
        prev = k;
        prev_text = t;
    }
}

TEST(KsuidBounds, LowerUpperAndRange) {
    auto lo = idgen::ksuid_lower(1507608047);
    auto hi = idgen::ksuid_upper(1507608047);
    ASSERT_TRUE(lo.ok() && hi.ok());
    EXPECT_EQ(hex(*lo), "0669F7EF00000000000000000000000000000000");
    EXPECT_EQ(hex(*hi), "0669F7EFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF");
    EXPECT_EQ(idgen::ksuid_lower(1399999999).error(), Error::kTimeOutOfRange);
    EXPECT_EQ(idgen::ksuid_upper(idgen::kKsuidMaxUnixSeconds + 1).error(), Error::kTimeOutOfRange);
    EXPECT_TRUE(idgen::ksuid_upper(idgen::kKsuidMaxUnixSeconds).ok());
    EXPECT_EQ(idgen::ksuid_floor_seconds(-1), -1);
    EXPECT_EQ(idgen::ksuid_floor_seconds(1999), 1);
}

TEST(KsuidGenerator, FreshPayloadPerSecondThenIncrements) {
    FixedBytes bytes({0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x80, 0x90, 0xA0, 0xB0, 0xC0, 0xD0, 0xE0, 0xF0, 0xFE});
    KsuidGenerator g;
    auto a = g.next(1507608047, bytes);
    auto b = g.next(1507608047, bytes);  // same second: payload + 1
    auto c = g.next(1507608040, bytes);  // the clock stepped back: still payload + 1, same second
    ASSERT_TRUE(a.ok() && b.ok() && c.ok());
    EXPECT_EQ(hex(*a), "0669F7EF102030405060708090A0B0C0D0E0F0FE");
    EXPECT_EQ(hex(*b), "0669F7EF102030405060708090A0B0C0D0E0F0FF");
    EXPECT_EQ(hex(*c), "0669F7EF102030405060708090A0B0C0D0E0F100");
    EXPECT_EQ(bytes.calls(), 1);
    auto d = g.next(1507608048, bytes);  // a new second: fresh payload
    ASSERT_TRUE(d.ok());
    EXPECT_EQ(idgen::ksuid_unix_seconds(*d), 1507608048);
    EXPECT_EQ(bytes.calls(), 2);
}

TEST(KsuidGenerator, ExhaustedPayloadBorrowsTheNextSecond) {
    FixedBytes ones({0xFF});
    KsuidGenerator g;
    auto a = g.next(1600000000, ones);  // payload all ones
    auto b = g.next(1600000000, ones);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(idgen::ksuid_unix_seconds(*b), 1600000001);
    EXPECT_LT(std::memcmp(a->bytes, b->bytes, 20), 0);
}

TEST(KsuidGenerator, CarryIntoHighPayloadWord) {
    FixedBytes bytes({0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF});
    KsuidGenerator g;
    auto a = g.next(1600000000, bytes);
    auto b = g.next(1600000000, bytes);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(hex(*b).substr(8), "00000000000000020000000000000000");
}

TEST(KsuidGenerator, ErrorsOutsideRangeAndOnEntropyFailure) {
    FixedBytes bytes({1});
    KsuidGenerator g;
    EXPECT_EQ(g.next(1399999999, bytes).error(), Error::kTimeOutOfRange);
    EXPECT_EQ(g.next(idgen::kKsuidMaxUnixSeconds + 1, bytes).error(), Error::kTimeOutOfRange);
    bytes.set_fail(true);
    EXPECT_EQ(g.next(1600000000, bytes).error(), Error::kEntropyFailure);
    EXPECT_EQ(idgen::ksuid_at(1600000000, bytes).error(), Error::kEntropyFailure);
    bytes.set_fail(false);
    EXPECT_EQ(idgen::ksuid_at(1399999999, bytes).error(), Error::kTimeOutOfRange);
    auto k = idgen::ksuid_at(1600000000, bytes);
    ASSERT_TRUE(k.ok());
    EXPECT_EQ(idgen::ksuid_unix_seconds(*k), 1600000000);
}

TEST(KsuidGenerator, ManyFromTheKernelAreDistinctAndIncreasing) {
    idgen::EntropyPool pool;
    pool.set_owner(1);
    KsuidGenerator g;
    std::set<std::string> seen;
    std::string prev;
    for (int i = 0; i < 10000; ++i) {
        auto k = g.next(1600000000 + i / 3000, pool);
        ASSERT_TRUE(k.ok());
        const std::string t = fmt(*k);
        ASSERT_GT(t, prev);
        seen.insert(t);
        prev = t;
    }
    EXPECT_EQ(seen.size(), 10000u);
}

// A per-entity type of kind ksuid (create_id_type(kind => 'ksuid')): its spec, its prefixed text
// (the KSUID's own 27 characters after the prefix), the bare KSUID, and no TypeID format.
#include "core/text/id_type.h"

TEST(KsuidIdType, SpecTextAndErrors) {
    const std::string spec_text = "kind=ksuid format=prefixed prefix=evt";
    auto spec = idgen::id_type_spec_parse(spec_text.data(), spec_text.size());
    ASSERT_TRUE(spec.ok());
    EXPECT_EQ(spec->kind, idgen::IdKind::kKsuid);
    const std::string typeid_spec = "kind=ksuid format=typeid prefix=evt";
    EXPECT_FALSE(idgen::id_type_spec_parse(typeid_spec.data(), typeid_spec.size()).ok());
    EXPECT_FALSE(idgen::id_type_prefix_valid(idgen::IdKind::kKsuid, idgen::IdTextFormat::kTypeid, "evt", 3));

    const std::string text = "evt_0ujtsYcgvSTl8PAuAdqWYSMnLOv";
    auto v = idgen::id_type_parse(*spec, text.data(), text.size(), nullptr);
    ASSERT_TRUE(v.ok());
    Ksuid k;
    std::memcpy(k.bytes, v->wide, 20);
    EXPECT_EQ(hex(k), "0669F7EFB5A1CD34B5F99D1154FB6853345C9735");
    char out[idgen::kIdTypeTextMaxLen];
    const std::size_t n = idgen::id_type_format(*spec, *v, out);
    EXPECT_EQ(std::string(out, n), text);
    auto bare = idgen::id_type_parse(*spec, text.data() + 4, text.size() - 4, nullptr);
    ASSERT_TRUE(bare.ok());
    EXPECT_EQ(std::memcmp(bare->wide, v->wide, 20), 0);
    // The longest text: a 16-character prefix.
    const std::string long_spec = "kind=ksuid format=prefixed prefix=abcdefghijklmnop";
    auto ls = idgen::id_type_spec_parse(long_spec.data(), long_spec.size());
    ASSERT_TRUE(ls.ok());
    EXPECT_EQ(idgen::id_type_format(*ls, *v, out), idgen::kIdTypeTextMaxLen);
    const std::string short_body = "evt_0ujtsYcgvSTl8PAuAdqWYSMnLO", big = "evt_aWgEPTl1tmebfsQzFP4bxwgy80W",
                      other = "acct_0ujtsYcgvSTl8PAuAdqWYSMnLOv";
    EXPECT_EQ(idgen::id_type_parse(*spec, short_body.data(), short_body.size(), nullptr).error(),
              Error::kInvalidSyntax);
    EXPECT_EQ(idgen::id_type_parse(*spec, big.data(), big.size(), nullptr).error(), Error::kOutOfRange);
    idgen::WrongPrefix wrong{};
    EXPECT_EQ(idgen::id_type_parse(*spec, other.data(), other.size(), &wrong).error(), Error::kWrongPrefix);
    EXPECT_EQ(std::string(wrong.prefix, wrong.len), "acct");
}
