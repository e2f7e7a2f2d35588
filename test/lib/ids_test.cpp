// The library's ID types and codecs: known vectors, round trips, and the same errors (code,
// SQLSTATE, message) as the extension's input functions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "id_gen/id_gen.hpp"

using id_gen::errc;

namespace {

template <class F>
id_gen::error error_of(F&& f) {
    try {
        f();
    } catch (const id_gen::error& e) {
        return e;
    }
    ADD_FAILURE() << "no id_gen::error thrown";
    return id_gen::error(errc::invalid_argument, "none");
}

id_gen::sys_milliseconds at_ms(std::int64_t ms) { return id_gen::sys_milliseconds(std::chrono::milliseconds(ms)); }

std::mt19937_64 rng(20260101);

id_gen::Bytes16 random_bytes() {
    id_gen::Bytes16 b;
    for (auto& x : b) x = static_cast<std::uint8_t>(rng());
    return b;
}

}  // namespace

TEST(LibVersion, MatchesTheHeaderAndTheExtension) {
    EXPECT_STREQ(id_gen::version(), id_gen::compiled_version);
    EXPECT_STREQ(id_gen::version(), ID_GEN_VERSION_STRING);
    const std::string v = id_gen::version();
    EXPECT_EQ(v, std::to_string(ID_GEN_VERSION_MAJOR) + "." + std::to_string(ID_GEN_VERSION_MINOR) + "." +
                     std::to_string(ID_GEN_VERSION_PATCH));
}

// ---- ULID -------------------------------------------------------------------------------------

// The ULID spec's example carries 1469918176385 ms; text comes back upper case.
TEST(LibUlid, SpecExample) {
    const auto u = id_gen::Ulid::parse("01aryz6s41tsv4rrffq69g5fav");
    EXPECT_EQ(u.unix_ms(), 1469918176385);
    EXPECT_EQ(u.time(), at_ms(1469918176385));
    EXPECT_EQ(u.to_string(), "01ARYZ6S41TSV4RRFFQ69G5FAV");
    std::ostringstream os;
    os << u;
    EXPECT_EQ(os.str(), "01ARYZ6S41TSV4RRFFQ69G5FAV");
}

TEST(LibUlid, RoundTripAndOrderOfRandomValues) {
    std::vector<id_gen::Ulid> ids;
    for (int i = 0; i < 2000; ++i) {
        auto b = random_bytes();
        b[0] &= 0x7F;  // any 16 bytes are a ULID
        ids.emplace_back(b);
    }
    for (const auto& u : ids) {
        const std::string s = u.to_string();
        ASSERT_EQ(s.size(), id_gen::Ulid::text_size);
        ASSERT_EQ(id_gen::Ulid::parse(s), u) << s;
        ASSERT_EQ(id_gen::crockford32::encode(u.bytes()), s);
        ASSERT_EQ(id_gen::crockford32::decode(s), u.bytes());
        ASSERT_EQ(u.to_uuid().bytes(), u.bytes());
        ASSERT_EQ(u.to_uuid().to_ulid(), u);
    }
    // Byte order = text order.
    for (std::size_t i = 1; i < ids.size(); ++i)
        ASSERT_EQ(ids[i - 1] < ids[i], ids[i - 1].to_string() < ids[i].to_string());
}

TEST(LibUlid, MalformedTextIs22P02WithTheValue) {
    for (const std::string bad :
         {"", "01ARYZ6S41TSV4RRFFQ69G5FA", "01ARYZ6S41TSV4RRFFQ69G5FAVX", "01ARYZ6S41TSV4RRFFQ69G5FAI",
          "01ARYZ6S41TSV4RRFFQ69G5FAL", "01ARYZ6S41TSV4RRFFQ69G5FAO", "01ARYZ6S41TSV4RRFFQ69G5FAU",
          "01ARYZ6S41TSV4RRFFQ69G5FA ", "01ARYZ6S41-SV4RRFFQ69G5FAV"}) {
        const auto e = error_of([&] { (void)id_gen::Ulid::parse(bad); });
        EXPECT_EQ(e.code(), errc::invalid_syntax) << bad;
        EXPECT_STREQ(e.sqlstate(), "22P02");
        EXPECT_EQ(std::string(e.what()), "invalid input syntax for type ulid: \"" + bad + "\"");
        EXPECT_FALSE(id_gen::Ulid::try_parse(bad).has_value()) << bad;
    }
}

TEST(LibUlid, AboveOneHundredTwentyEightBitsIs22003) {
    const auto e = error_of([] { (void)id_gen::Ulid::parse("80000000000000000000000000"); });
    EXPECT_EQ(e.code(), errc::out_of_range);
    EXPECT_STREQ(e.sqlstate(), "22003");
    EXPECT_EQ(std::string(e.what()), "value \"80000000000000000000000000\" is out of range for type ulid");
    id_gen::Bytes16 ones;
    ones.fill(0xFF);
    EXPECT_EQ(id_gen::Ulid::parse("7ZZZZZZZZZZZZZZZZZZZZZZZZZ").bytes(), ones);
}

TEST(LibUlid, LowerUpperAndRandomAtBoundTheirMillisecond) {
    const auto t = at_ms(1700000000123);
    const auto lo = id_gen::Ulid::lower(t), hi = id_gen::Ulid::upper(t);
    EXPECT_EQ(lo.unix_ms(), 1700000000123);
    EXPECT_EQ(hi.unix_ms(), 1700000000123);
    EXPECT_LT(lo, hi);
    EXPECT_LT(id_gen::Ulid::upper(at_ms(1700000000122)), lo);
    EXPECT_LT(hi, id_gen::Ulid::lower(at_ms(1700000000124)));
    std::set<id_gen::Ulid> seen;
    for (int i = 0; i < 100; ++i) {
        const auto r = id_gen::Ulid::random_at(t);
        EXPECT_LE(lo, r);
        EXPECT_LE(r, hi);
        seen.insert(r);
    }
    EXPECT_EQ(seen.size(), 100u);
    for (auto bad : {std::int64_t{-1}, std::int64_t{1} << 48}) {
        for (auto f : {&id_gen::Ulid::lower, &id_gen::Ulid::upper, &id_gen::Ulid::random_at}) {
            const auto e = error_of([&] { (void)f(at_ms(bad)); });
            EXPECT_EQ(e.code(), errc::time_out_of_range) << bad;
            EXPECT_STREQ(e.sqlstate(), "22003");
        }
    }
    EXPECT_EQ(id_gen::Ulid::upper(at_ms((std::int64_t{1} << 48) - 1)).to_string(), "7ZZZZZZZZZZZZZZZZZZZZZZZZZ");
}

// Fresh random bits: each of the 80 random bits is set in about half of many ULIDs of one
// millisecond (a constant or mostly-zero source fails this; 4,000 draws put a fair bit within
// 40-60% with overwhelming probability).
TEST(LibUlid, RandomBitsAreBalanced) {
    constexpr int kDraws = 4000;
    std::vector<int> ones(80, 0);
    for (int i = 0; i < kDraws; ++i) {
        const auto b = id_gen::Ulid::random_at(at_ms(1700000000000)).bytes();
        for (int bit = 0; bit < 80; ++bit) ones[bit] += (b[6 + bit / 8] >> (7 - bit % 8)) & 1;
    }
    for (int bit = 0; bit < 80; ++bit) {
        EXPECT_GT(ones[bit], kDraws * 40 / 100) << "bit " << bit;
        EXPECT_LT(ones[bit], kDraws * 60 / 100) << "bit " << bit;
    }
}

// ---- UUID -------------------------------------------------------------------------------------

// RFC 9562 Appendix A: the version 7 example (2022-02-22 19:22:22 UTC) and the version 1 one.
TEST(LibUuid, Rfc9562Examples) {
    const auto v7 = id_gen::Uuid::parse("017F22E2-79B0-7CC3-98C4-DC0C0C07398F");
    EXPECT_EQ(v7.to_string(), "017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
    EXPECT_EQ(v7.version(), 7);
    ASSERT_TRUE(v7.time().has_value());
    EXPECT_EQ(v7.time()->time_since_epoch().count(), 1645557742000000);
    // rand_a 0xCC3 read as a fraction of the millisecond: 3267/4096 ms = 797.6 µs.
    ASSERT_TRUE(v7.v7_time_precise().has_value());
    EXPECT_EQ(v7.v7_time_precise()->time_since_epoch().count(), 1645557742000798);
    EXPECT_EQ(v7.to_ulid().to_uuid(), v7);

    const auto v1 = id_gen::Uuid::parse("C232AB00-9414-11EC-B3C8-9F6BDECED846");
    EXPECT_EQ(v1.version(), 1);
    ASSERT_TRUE(v1.time().has_value());
    EXPECT_EQ(v1.time()->time_since_epoch().count(), 1645557742000000);
    EXPECT_FALSE(v1.v7_time_precise().has_value());

    const auto v4 = id_gen::Uuid::parse("919108f7-52d1-4320-9bac-f847db4148a8");
    EXPECT_EQ(v4.version(), 4);
    EXPECT_FALSE(v4.time().has_value());
    // Variant not RFC 9562's: no version (SQL's uuid_extract_version is NULL).
    EXPECT_EQ(id_gen::Uuid::parse("919108f7-52d1-4320-dbac-f847db4148a8").version(), -1);
    EXPECT_EQ(id_gen::Uuid().version(), -1);
}

// The spellings PostgreSQL's uuid input accepts (its documentation's list) and a few it refuses.
TEST(LibUuid, AcceptsWhatPostgresAccepts) {
    const auto want = id_gen::Uuid::parse("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
    for (const char* ok : {"A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11", "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}",
                           "a0eebc999c0b4ef8bb6d6bb9bd380a11", "a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11",
                           "{a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11}"})
        EXPECT_EQ(id_gen::Uuid::parse(ok), want) << ok;
    for (const std::string bad : {"", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a111",
                                  " a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11-",
                                  "a0eebc9-99c0b-4ef8-bb6d-6bb9bd380a11", "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
                                  "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}", "a0eebc99--9c0b-4ef8-bb6d-6bb9bd380a11",
                                  "g0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "{{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}}"}) {
        const auto e = error_of([&] { (void)id_gen::Uuid::parse(bad); });
        EXPECT_EQ(e.code(), errc::invalid_syntax) << bad;
        EXPECT_EQ(std::string(e.what()), "invalid input syntax for type uuid: \"" + bad + "\"");
        EXPECT_FALSE(id_gen::Uuid::try_parse(bad).has_value()) << bad;
    }
}

TEST(LibUuid, V7LowerUpper) {
    const auto lo = id_gen::Uuid::v7_lower(at_ms(1645557742000)), hi = id_gen::Uuid::v7_upper(at_ms(1645557742000));
    EXPECT_EQ(lo.to_string(), "017f22e2-79b0-7000-8000-000000000000");
    EXPECT_EQ(hi.to_string(), "017f22e2-79b0-7fff-bfff-ffffffffffff");
    EXPECT_EQ(error_of([] { (void)id_gen::Uuid::v7_lower(at_ms(-1)); }).code(), errc::time_out_of_range);
}

// ---- snowflake --------------------------------------------------------------------------------

// Tweet 1541815603606036480: 2022-06-28 16:07:40.105 UTC, node 378, sequence 0.
TEST(LibSnowflake, PublishedTweet) {
    const auto id = id_gen::Snowflake::parse("1541815603606036480");
    EXPECT_EQ(id.value(), 1541815603606036480);
    EXPECT_EQ(id.unix_ms(), 1656432460105);
    EXPECT_EQ(id.time(), at_ms(1656432460105));
    EXPECT_EQ(id.node(), 378u);
    EXPECT_EQ(id.sequence(), 0u);
    EXPECT_EQ(id.to_string(), "1541815603606036480");
}

// Instagram's post: 1387263000 ms after their epoch, shard 1341, sequence 5001 % 1024 = 905.
TEST(LibSnowflake, PublishedInstagramId) {
    const auto l = id_gen::SnowflakeLayout::instagram();
    const auto id = l.pack(1387263000, 1341, 5001 % 1024);
    EXPECT_EQ(id.value(), 11637205501278089);
    EXPECT_EQ(id.unix_ms(l), id_gen::SnowflakeLayout::instagram_epoch_ms + 1387263000);
    EXPECT_EQ(id.node(l), 1341u);
    EXPECT_EQ(id.sequence(l), 905u);
    EXPECT_EQ(id_gen::SnowflakeLayout::named("Instagram"), l);
}

TEST(LibSnowflake, TextRulesAndErrors) {
    EXPECT_EQ(id_gen::Snowflake::parse(" +42 ").value(), 42);
    EXPECT_EQ(id_gen::Snowflake::parse("9223372036854775807").value(), INT64_MAX);
    for (const char* bad : {"", "abc", "12a", "1 2", "--1"}) {
        const auto e = error_of([&] { (void)id_gen::Snowflake::parse(bad); });
        EXPECT_EQ(e.code(), errc::invalid_syntax) << bad;
        EXPECT_EQ(std::string(e.what()), std::string("invalid input syntax for type snowflake: \"") + bad + "\"");
    }
    for (const char* big : {"0", "-1", "-0", "9223372036854775808"}) {
        const auto e = error_of([&] { (void)id_gen::Snowflake::parse(big); });
        EXPECT_EQ(e.code(), errc::out_of_range) << big;
        EXPECT_EQ(std::string(e.what()), std::string("value \"") + big + "\" is out of range for type snowflake");
    }
    EXPECT_EQ(error_of([] { (void)id_gen::Snowflake::from_int(0); }).code(), errc::out_of_range);
    EXPECT_EQ(id_gen::Snowflake::from_int(1295).to_base36(), "00000000000zz");
    EXPECT_EQ(id_gen::Snowflake::from_base36("ZZ").value(), 1295);
    EXPECT_EQ(error_of([] { (void)id_gen::Snowflake::from_base36("0"); }).code(), errc::out_of_range);
    EXPECT_EQ(error_of([] { (void)id_gen::Snowflake::from_base36("1y2p0ij32e8e8"); }).code(),
              errc::out_of_range);  // 2^63
}

TEST(LibSnowflake, Layouts) {
    const auto js = id_gen::SnowflakeLayout::javascript();
    EXPECT_EQ(js.time_bits() + js.node_bits() + js.sequence_bits(), 53);
    // The last ID of the javascript layout is a JavaScript safe integer.
    const std::int64_t last_ms = js.epoch_ms() + (std::int64_t{1} << 41) - 1;
    EXPECT_EQ(js.upper(at_ms(last_ms)).value(), (std::int64_t{1} << 53) - 1);
    EXPECT_EQ(error_of([&] { (void)js.upper(at_ms(last_ms + 1)); }).code(), errc::time_out_of_range);
    EXPECT_EQ(error_of([&] { (void)js.lower(at_ms(js.epoch_ms() - 1)); }).code(), errc::time_out_of_range);

    const auto sf = id_gen::SnowflakeLayout::sonyflake();
    EXPECT_EQ(sf.unit_ms(), 10);
    EXPECT_EQ(sf.node_max(), 65535u);
    const auto id = sf.pack(123456, 4242, 7);
    EXPECT_EQ(id.node(sf), 4242u);
    EXPECT_EQ(id.sequence(sf), 7u);
    EXPECT_EQ(id.unix_ms(sf), sf.epoch_ms() + 1234560);

    const auto c = id_gen::SnowflakeLayout::custom(1600000000000, 40, 5, 6);
    const auto lo = c.lower(at_ms(1600000000000 + 77)), hi = c.upper(at_ms(1600000000000 + 77));
    EXPECT_EQ(lo.unix_ms(c), 1600000000077);
    EXPECT_EQ(hi.node(c), 31u);
    EXPECT_EQ(hi.sequence(c), 63u);
    EXPECT_EQ(hi.value() - lo.value(), (1 << 11) - 1);

    for (auto bad : {std::array<int, 3>{0, 5, 5}, {41, 32, 0}, {41, 10, 13}, {64, 0, 0}})
        EXPECT_EQ(error_of([&] { (void)id_gen::SnowflakeLayout::custom(0, bad[0], bad[1], bad[2]); }).code(),
                  errc::invalid_argument);
    const auto e = error_of([] { (void)id_gen::SnowflakeLayout::named("tweeter"); });
    EXPECT_EQ(e.code(), errc::invalid_argument);
    EXPECT_STREQ(e.sqlstate(), "22023");
    EXPECT_EQ(error_of([&] { (void)c.pack(1, 32, 0); }).code(), errc::out_of_range);
    EXPECT_EQ(error_of([&] { (void)c.pack(0, 0, 0); }).code(), errc::out_of_range);  // the value 0
}

// ---- base36 -----------------------------------------------------------------------------------

TEST(LibBase36, SixtyFourBits) {
    EXPECT_EQ(id_gen::Base36_64::from_int(1234567890123).to_string(), "00000fr5hugnf");
    EXPECT_EQ(id_gen::Base36_64::parse("zz").value(), 1295);
    EXPECT_EQ(id_gen::Base36_64::parse("0000000000000000ZZ").value(), 1295);  // extra leading zeros
    EXPECT_EQ(id_gen::Base36_64::from_int(INT64_MAX).to_string(), "1y2p0ij32e8e7");
    EXPECT_EQ(id_gen::Base36_64::parse("1y2p0ij32e8e7").value(), INT64_MAX);
    auto e = error_of([] { (void)id_gen::Base36_64::parse("1y2p0ij32e8e8"); });
    EXPECT_EQ(e.code(), errc::out_of_range);
    EXPECT_EQ(std::string(e.what()), "value \"1y2p0ij32e8e8\" is out of range for type base36_64");
    e = error_of([] { (void)id_gen::Base36_64::parse("-1"); });
    EXPECT_EQ(e.code(), errc::invalid_syntax);
    EXPECT_EQ(std::string(e.what()), "invalid input syntax for type base36_64: \"-1\"");
    EXPECT_EQ(error_of([] { (void)id_gen::Base36_64::from_int(-1); }).code(), errc::out_of_range);
    EXPECT_EQ(id_gen::base36::encode(UINT64_MAX), "3w5e11264sgsf");
    EXPECT_EQ(id_gen::base36::decode64("3w5e11264sgsf"), UINT64_MAX);
    EXPECT_EQ(error_of([] { (void)id_gen::base36::decode64("3w5e11264sgsg"); }).code(), errc::out_of_range);
    // Fixed width: text order = numeric order.
    std::vector<std::int64_t> v;
    for (int i = 0; i < 1000; ++i) v.push_back(static_cast<std::int64_t>(rng() >> 1));
    for (std::size_t i = 1; i < v.size(); ++i) {
        const auto a = id_gen::Base36_64::from_int(v[i - 1]), b = id_gen::Base36_64::from_int(v[i]);
        ASSERT_EQ(a.to_string().size(), 13u);
        ASSERT_EQ(v[i - 1] < v[i], a.to_string() < b.to_string());
        ASSERT_EQ(id_gen::Base36_64::parse(a.to_string()), a);
    }
}

TEST(LibBase36, OneHundredTwentyEightBits) {
    const auto u = id_gen::Uuid::parse("017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
    const id_gen::Base36_128 b(u);
    const std::string s = b.to_string();
    EXPECT_EQ(s.size(), 25u);
    EXPECT_EQ(id_gen::Base36_128::parse(s).to_uuid(), u);
    EXPECT_EQ(id_gen::Base36_128::parse(s).to_ulid(), u.to_ulid());
    EXPECT_EQ(id_gen::base36::decode128(s), u.bytes());
    EXPECT_EQ(id_gen::Base36_128(id_gen::Bytes16{}).to_string(), std::string(25, '0'));
    id_gen::Bytes16 ones;
    ones.fill(0xFF);
    EXPECT_EQ(id_gen::Base36_128(ones).to_string(), "f5lxx1zz5pnorynqglhzmsp33");
    const auto e = error_of([] { (void)id_gen::Base36_128::parse("f5lxx1zz5pnorynqglhzmsp34"); });
    EXPECT_EQ(e.code(), errc::out_of_range);
    EXPECT_EQ(std::string(e.what()), "value \"f5lxx1zz5pnorynqglhzmsp34\" is out of range for type base36_128");
    EXPECT_FALSE(id_gen::Base36_128::try_parse("").has_value());
}

TEST(LibBase62, SixtyFourBits) {
    EXPECT_EQ(id_gen::Base62_64::from_int(1234567890123).to_string(), "0000LjaL3EZ");
    EXPECT_EQ(id_gen::Base62_64::parse("0000LjaL3EZ").value(), 1234567890123);
    // Case is part of the digit.
    EXPECT_EQ(id_gen::Base62_64::parse("0000000000a").value(), 36);
    EXPECT_EQ(id_gen::Base62_64::parse("0000000000A").value(), 10);
    EXPECT_EQ(id_gen::Base62_64::from_int(INT64_MAX).to_string(), "AzL8n0Y58m7");
    auto e = error_of([] { (void)id_gen::Base62_64::parse("AzL8n0Y58m8"); });
    EXPECT_EQ(e.code(), errc::out_of_range);
    EXPECT_EQ(std::string(e.what()), "value \"AzL8n0Y58m8\" is out of range for type base62_64");
    // Strict: exactly 11 characters of 0-9A-Za-z.
    for (const char* bad : {"", "LjaL3EZ", "00000LjaL3EZ", "0000LjaL3E-", " 000LjaL3EZ"}) {
        e = error_of([&] { (void)id_gen::Base62_64::parse(bad); });
        EXPECT_EQ(e.code(), errc::invalid_syntax) << bad;
        EXPECT_EQ(std::string(e.what()), std::string("invalid input syntax for type base62_64: \"") + bad + "\"");
        EXPECT_FALSE(id_gen::Base62_64::try_parse(bad).has_value()) << bad;
    }
    EXPECT_EQ(error_of([] { (void)id_gen::Base62_64::from_int(-1); }).code(), errc::out_of_range);
    EXPECT_EQ(id_gen::base62::encode(UINT64_MAX), "LygHa16AHYF");
    EXPECT_EQ(id_gen::base62::decode64("LygHa16AHYF"), UINT64_MAX);
    EXPECT_EQ(error_of([] { (void)id_gen::base62::decode64("LygHa16AHYG"); }).code(), errc::out_of_range);
    // Fixed width, ASCII-ordered alphabet: bytewise text order = numeric order.
    for (int i = 0; i < 1000; ++i) {
        const auto a = id_gen::Base62_64::from_int(static_cast<std::int64_t>(rng() >> 1));
        const auto b = id_gen::Base62_64::from_int(static_cast<std::int64_t>(rng() >> 1));
        ASSERT_EQ(a.to_string().size(), 11u);
        ASSERT_EQ(a < b, a.to_string() < b.to_string());
        ASSERT_EQ(id_gen::Base62_64::parse(a.to_string()), a);
    }
}

TEST(LibBase62, OneHundredTwentyEightBits) {
    const auto u = id_gen::Uuid::parse("017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
    EXPECT_EQ(id_gen::Base62_128(u).to_string(), "02p5oQZoHTv0zeY5yG21K3");
    EXPECT_EQ(id_gen::Base62_128::parse("02p5oQZoHTv0zeY5yG21K3").to_uuid(), u);
    EXPECT_EQ(id_gen::base62::decode128("02p5oQZoHTv0zeY5yG21K3"), u.bytes());
    id_gen::Bytes16 ones;
    ones.fill(0xFF);
    EXPECT_EQ(id_gen::base62::encode(ones), "7n42DGM5Tflk9n8mt7Fhc7");
    const auto e = error_of([] { (void)id_gen::Base62_128::parse("7n42DGM5Tflk9n8mt7Fhc8"); });
    EXPECT_EQ(e.code(), errc::out_of_range);
    EXPECT_EQ(std::string(e.what()), "value \"7n42DGM5Tflk9n8mt7Fhc8\" is out of range for type base62_128");
    EXPECT_EQ(error_of([] { (void)id_gen::Base62_128::parse("02p5oQZoHTv0zeY5yG21K"); }).code(), errc::invalid_syntax);
    EXPECT_FALSE(id_gen::Base62_128::try_parse("02p5oQZoHTv0zeY5yG21K_").has_value());
    for (int i = 0; i < 1000; ++i) {
        const id_gen::Base62_128 a(random_bytes()), b(random_bytes());
        ASSERT_EQ(a < b, a.to_string() < b.to_string());
        ASSERT_EQ(id_gen::Base62_128::parse(a.to_string()), a);
    }
}

// ---- prefixed ---------------------------------------------------------------------------------

// The body encoding is the caller's: base62 bodies are 22 characters, never guessed from length.
TEST(LibPrefixed, Base62Bodies) {
    const auto u = id_gen::Uuid::parse("017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
    const id_gen::PrefixedId p("acct", u, id_gen::PrefixedBody::base62);
    EXPECT_EQ(p.to_string(), "acct_02p5oQZoHTv0zeY5yG21K3");
    EXPECT_EQ(p.body(), id_gen::PrefixedBody::base62);
    const auto back = id_gen::PrefixedId::parse("acct", "acct_02p5oQZoHTv0zeY5yG21K3", id_gen::PrefixedBody::base62);
    EXPECT_EQ(back.id(), u);
    EXPECT_EQ(back.to_string(), "acct_02p5oQZoHTv0zeY5yG21K3");
    EXPECT_EQ(back, id_gen::PrefixedId("acct", u));  // the same ID, whichever body writes it
    // A base62 body is not a base36 one, and the other way round.
    EXPECT_EQ(error_of([] { (void)id_gen::PrefixedId::parse("acct_02p5oQZoHTv0zeY5yG21K3"); }).code(),
              errc::invalid_syntax);
    const std::string b36 = id_gen::PrefixedId("acct", u).to_string();
    EXPECT_EQ(error_of([&] { (void)id_gen::PrefixedId::parse(b36, id_gen::PrefixedBody::base62); }).code(),
              errc::invalid_syntax);
    EXPECT_FALSE(id_gen::PrefixedId::try_parse("acct_02p5oqZoHTv0zeY5yG21K", id_gen::PrefixedBody::base62).has_value());
}

TEST(LibPrefixed, FormatParseAndErrors) {
    const auto u = id_gen::Uuid::parse("017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
    const std::string body = id_gen::Base36_128(u).to_string();
    const id_gen::PrefixedId p("acct", u);
    EXPECT_EQ(p.to_string(), "acct_" + body);
    EXPECT_EQ(p.prefix(), "acct");
    EXPECT_EQ(id_gen::PrefixedId::parse("acct_" + body), p);
    EXPECT_EQ(id_gen::PrefixedId::parse("acct", "acct_" + body).id(), u);
    // The body is read in either case, the prefix is lower case only.
    EXPECT_EQ(id_gen::PrefixedId::parse("acct_" + id_gen::Base36_128(u).to_string()).id(), u);
    std::string upper_body = body;
    for (auto& c : upper_body) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    EXPECT_EQ(id_gen::PrefixedId::parse("acct_" + upper_body), p);
    for (const std::string& bad : {"ACCT_" + body, "acct" + body, "acct_" + body.substr(1), "_" + body, "1acct_" + body,
                                   "acct_usr_" + body, "abcdefghijklmnopq_" + body}) {
        const auto e = error_of([&] { (void)id_gen::PrefixedId::parse(bad); });
        EXPECT_EQ(e.code(), errc::invalid_syntax) << bad;
        EXPECT_EQ(std::string(e.what()), "invalid input syntax for type prefixed ID: \"" + bad + "\"");
    }
    EXPECT_EQ(error_of([&] { (void)id_gen::PrefixedId::parse("acct_f5lxx1zz5pnorynqglhzmsp34"); }).code(),
              errc::out_of_range);

    auto e = error_of([&] { (void)id_gen::PrefixedId::parse("acct", "usr_" + body); });
    EXPECT_EQ(e.code(), errc::wrong_prefix);
    EXPECT_STREQ(e.sqlstate(), "22P02");
    EXPECT_EQ(
        std::string(e.what()),
        "invalid input syntax for a prefixed ID: expected prefix \"acct\", found \"usr\" in \"usr_" + body + "\"");

    for (const char* bad : {"", "Acct", "1acct", "acct_x", "abcdefghijklmnopq"}) {
        e = error_of([&] { id_gen::PrefixedId q(bad, u); });
        EXPECT_EQ(e.code(), errc::invalid_prefix) << bad;
        EXPECT_STREQ(e.sqlstate(), "22023");
        EXPECT_EQ(std::string(e.what()), std::string("invalid prefix \"") + bad + "\"");
        EXPECT_FALSE(id_gen::PrefixedId::valid_prefix(bad));
    }
    EXPECT_TRUE(id_gen::PrefixedId::valid_prefix("abcdefghijklmnop"));
    EXPECT_EQ(error_of([] { (void)id_gen::PrefixedId().to_string(); }).code(), errc::invalid_prefix);
}

TEST(LibError, SqlstatesAreTheExtensions) {
    EXPECT_STREQ(id_gen::error::sqlstate_of(errc::invalid_syntax), "22P02");
    EXPECT_STREQ(id_gen::error::sqlstate_of(errc::wrong_prefix), "22P02");
    EXPECT_STREQ(id_gen::error::sqlstate_of(errc::out_of_range), "22003");
    EXPECT_STREQ(id_gen::error::sqlstate_of(errc::time_out_of_range), "22003");
    EXPECT_STREQ(id_gen::error::sqlstate_of(errc::invalid_prefix), "22023");
    EXPECT_STREQ(id_gen::error::sqlstate_of(errc::invalid_argument), "22023");
    EXPECT_STREQ(id_gen::error::sqlstate_of(errc::capacity_exceeded), "54000");
    EXPECT_STREQ(id_gen::error::sqlstate_of(errc::entropy_failure), "58000");
    EXPECT_STREQ(id_gen::error::sqlstate_of(errc::forked), "55000");
}
