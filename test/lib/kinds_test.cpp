// The library's ObjectId, TraceId, DecimalId, ShardId, UUIDv6 and NanoID API without a server:
// published examples, parse/format round trips, decoders, bounds and errors with their SQLSTATEs.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "id_gen/id_gen.hpp"

using id_gen::errc;

namespace {

template <class F>
std::string sqlstate_of(F f) {
    try {
        f();
    } catch (const id_gen::error& e) {
        return e.sqlstate();
    }
    return "none";
}

}  // namespace

// MongoDB's specification example: 507f1f77bcf86cd799439011 has timestamp 0x507f1f77
// (2012-10-17 21:13:27 UTC).
TEST(LibObjectId, ParseFormatDecode) {
    const auto id = id_gen::ObjectId::parse("507F1F77BCF86CD799439011");
    EXPECT_EQ(id.to_string(), "507f1f77bcf86cd799439011");
    EXPECT_EQ(id.unix_seconds(), 0x507f1f77u);
    EXPECT_EQ(id.time().time_since_epoch().count(), 1350508407);
    EXPECT_EQ(sqlstate_of([] { (void)id_gen::ObjectId::parse("507f1f77bcf86cd79943901"); }), "22P02");
    EXPECT_EQ(sqlstate_of([] { (void)id_gen::ObjectId::parse("507f1f77bcf86cd79943901g"); }), "22P02");
    EXPECT_FALSE(id_gen::ObjectId::try_parse(" 507f1f77bcf86cd799439011").has_value());
    const id_gen::sys_seconds t{std::chrono::seconds(1350508407)};
    EXPECT_EQ(id_gen::ObjectId::lower(t).to_string(), "507f1f770000000000000000");
    EXPECT_EQ(id_gen::ObjectId::upper(t).to_string(), "507f1f77ffffffffffffffff");
    EXPECT_LT(id_gen::ObjectId::lower(t), id);
    EXPECT_LT(id, id_gen::ObjectId::upper(t));
    EXPECT_EQ(sqlstate_of([] { (void)id_gen::ObjectId::lower(id_gen::sys_seconds{std::chrono::seconds(-1)}); }),
              "22003");
    EXPECT_EQ(sqlstate_of([] { (void)id_gen::ObjectId::upper(id_gen::sys_seconds{std::chrono::seconds(1LL << 32)}); }),
              "22003");
}

TEST(LibObjectId, GeneratorAtAndClock) {
    std::int64_t now = 1700000000LL * 1000000000;
    id_gen::ObjectIdGenerator g([&] { return now; });
    const auto a = g.next(), b = g.next();
    EXPECT_EQ(a.unix_seconds(), 1700000000u);
    EXPECT_LT(a, b);
    // Same process value (bytes 4-8), counter + 1.
    EXPECT_TRUE(std::equal(a.bytes().begin() + 4, a.bytes().begin() + 9, b.bytes().begin() + 4));
    now -= 5000000000;  // steps back: the timestamp stays
    EXPECT_EQ(g.next().unix_seconds(), 1700000000u);
    const auto at = g.at(id_gen::sys_seconds{std::chrono::seconds(1600000000)});
    EXPECT_EQ(at.unix_seconds(), 1600000000u);
    EXPECT_NE(id_gen::new_objectid(), id_gen::new_objectid());
}

// TraceId: ts << 38 | node << 22 | counter.
TEST(LibTraceId, PackDecodeParse) {
    const std::int64_t s = 1700000000;
    const auto t = id_gen::TraceId::pack(s, 513, 7);
    EXPECT_EQ(t.value(), ((s % (1LL << 25)) << 38) | (513LL << 22) | 7);
    EXPECT_EQ(t.node(), 513u);
    EXPECT_EQ(t.counter(), 7u);
    EXPECT_EQ(t.unix_seconds(s + 100), s);
    EXPECT_EQ(t.unix_seconds(s + (1LL << 25)), s + (1LL << 25));  // read in the period of the reference
    EXPECT_EQ(id_gen::TraceId::parse(t.to_string()), t);
    EXPECT_EQ(id_gen::TraceId::parse(" +" + t.to_string() + " "), t);
    EXPECT_EQ(sqlstate_of([] { (void)id_gen::TraceId::parse("12x"); }), "22P02");
    EXPECT_EQ(sqlstate_of([] { (void)id_gen::TraceId::parse("-5"); }), "22003");
    EXPECT_EQ(sqlstate_of([] { (void)id_gen::TraceId::from_int(1LL << 22); }), "22003");  // counter 0
    EXPECT_EQ(sqlstate_of([] { (void)id_gen::TraceId::pack(0, 65536, 1); }), "22003");
    EXPECT_EQ(sqlstate_of([] { (void)id_gen::TraceId::pack(0, 1, 0); }), "22003");
    EXPECT_FALSE(id_gen::TraceId::try_parse("4194304").has_value());
    EXPECT_TRUE(id_gen::TraceId::try_parse("4194305").has_value());
}

// DecimalId: counter * 10^10 + generator * 10^5 + launch.
TEST(LibDecimalId, PackDecodeParse) {
    const auto d = id_gen::DecimalId::parse("1234500004200007");
    EXPECT_EQ(d.counter(), 123450);
    EXPECT_EQ(d.generator(), 42);
    EXPECT_EQ(d.launch(), 7);
    EXPECT_EQ(id_gen::DecimalId::pack(123450, 42, 7), d);
    EXPECT_EQ(d.to_string(), "1234500004200007");
    EXPECT_EQ(id_gen::DecimalId::pack(922337202, 99999, 99999).value(), 9223372029999999999LL);
    EXPECT_EQ(sqlstate_of([] { (void)id_gen::DecimalId::parse("9999999999"); }), "22003");  // counter 0
    EXPECT_EQ(sqlstate_of([] { (void)id_gen::DecimalId::from_int(9223372030000000000LL); }), "22003");
    EXPECT_EQ(sqlstate_of([] { (void)id_gen::DecimalId::pack(0, 0, 0); }), "22003");
    EXPECT_EQ(sqlstate_of([] { (void)id_gen::DecimalId::parse("1e10"); }), "22P02");
}

// ShardId: 41 ms since the epoch | 13 shard | 10 sequence.
TEST(LibShardId, DecodeAndGenerate) {
    const std::int64_t epoch = id_gen::ShardId::default_epoch_ms;
    const auto id = id_gen::ShardId::from_int((123456789LL << 23) | (5000LL << 10) | 77);
    EXPECT_EQ(id.shard(), 5000u);
    EXPECT_EQ(id.sequence(), 77u);
    EXPECT_EQ(id.unix_ms(), epoch + 123456789);
    EXPECT_EQ(id.unix_ms(0), 123456789);
    EXPECT_EQ(id_gen::ShardId::parse(id.to_string()), id);
    EXPECT_EQ(sqlstate_of([] { (void)id_gen::ShardId::from_int(0); }), "22003");
    EXPECT_EQ(sqlstate_of([] { id_gen::ShardIdGenerator g(8192); }), "22023");
    const auto before_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    id_gen::ShardIdGenerator g(8191, epoch);
    id_gen::ShardId prev = g.next();
    EXPECT_EQ(prev.shard(), 8191u);
    // A new generator starts past its run-ahead allowance (1 s), as SnowflakeGenerator does.
    EXPECT_GT(prev.unix_ms(epoch), before_ms + 1000);
    for (int i = 0; i < 3000; ++i) {  // past 1,024 per ms
        const auto n = g.next();
        EXPECT_LT(prev, n);
        EXPECT_EQ(n.shard(), 8191u);
        prev = n;
    }
}

// RFC 9562 Appendix A: the v6 example and its v1 twin.
TEST(LibUuidv6, RfcExampleAndConversions) {
    const auto v6 = id_gen::Uuid::parse("1EC9414C-232A-6B00-B3C8-9F6BDECED846");
    const auto v1 = id_gen::Uuid::parse("C232AB00-9414-11EC-B3C8-9F6BDECED846");
    EXPECT_EQ(v6.version(), 6);
    ASSERT_TRUE(v6.time().has_value());
    EXPECT_EQ(v6.time()->time_since_epoch().count(), 1645557742000000);
    EXPECT_EQ(id_gen::uuid_v6_to_v1(v6), v1);
    EXPECT_EQ(id_gen::uuid_v1_to_v6(v1), v6);
    EXPECT_EQ(sqlstate_of([&] { (void)id_gen::uuid_v1_to_v6(v6); }), "22023");
    EXPECT_EQ(sqlstate_of([&] { (void)id_gen::uuid_v6_to_v1(v1); }), "22023");
    EXPECT_EQ(sqlstate_of([] { (void)id_gen::uuid_v6_to_v1(id_gen::Uuid()); }), "22023");
}

TEST(LibUuidv6, GeneratorLayoutAndClock) {
    std::int64_t now = 1645557742000000000;
    id_gen::Uuidv6Generator g([&] { return now; });
    id_gen::Uuid prev = g.next();
    EXPECT_EQ(prev.to_string().substr(0, 18), "1ec9414c-232a-6b00");
    for (int i = 0; i < 1000; ++i) {
        if (i == 500) now -= 1000000000;
        const auto id = g.next();
        EXPECT_LT(prev, id);
        EXPECT_EQ(id.version(), 6);
        EXPECT_EQ(id.bytes()[8] & 0xC0, 0x80);
        EXPECT_EQ(id.bytes()[10] & 1, 1);  // multicast bit
        EXPECT_EQ(id_gen::uuid_v1_to_v6(id_gen::uuid_v6_to_v1(id)), id);
        prev = id;
    }
    EXPECT_NE(id_gen::new_uuidv6(), id_gen::new_uuidv6());
}

TEST(LibNanoid, AlphabetsSizesErrors) {
    id_gen::NanoidGenerator def;
    const std::string a = def.next();
    EXPECT_EQ(a.size(), 21u);
    EXPECT_EQ(a.find_first_not_of(id_gen::NanoidGenerator::default_alphabet), std::string::npos);
    EXPECT_EQ(def.next(255).size(), 255u);
    id_gen::NanoidGenerator hex("0123456789abcdef", 32);
    const std::string h = hex.next();
    EXPECT_EQ(h.size(), 32u);
    EXPECT_EQ(h.find_first_not_of("0123456789abcdef"), std::string::npos);
    EXPECT_EQ(sqlstate_of([] { id_gen::NanoidGenerator g("a"); }), "22023");
    EXPECT_EQ(sqlstate_of([] { id_gen::NanoidGenerator g("abca"); }), "22023");
    EXPECT_EQ(sqlstate_of([] { id_gen::NanoidGenerator g(std::string(256, 'x')); }), "22023");
    EXPECT_EQ(sqlstate_of([] { id_gen::NanoidGenerator g("ab", 0); }), "22023");
    EXPECT_EQ(sqlstate_of([] { id_gen::NanoidGenerator g("ab", 256); }), "22023");
    EXPECT_EQ(sqlstate_of([&] { (void)def.next(0); }), "22023");
    std::set<std::string> seen;
    for (int i = 0; i < 10000; ++i) EXPECT_TRUE(seen.insert(id_gen::new_nanoid()).second);
}
