#include "core/text/id_type.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "core/text/uuid_text.h"
#include "typeid_vectors.h"

using idgen::Error;
using idgen::IdKind;
using idgen::IdTextFormat;
using idgen::IdTypeSpec;

namespace {

IdTypeSpec spec(const std::string& s) {
    auto r = idgen::id_type_spec_parse(s.data(), s.size());
    EXPECT_TRUE(r.ok()) << s;
    return r.ok() ? *r : IdTypeSpec{};
}

std::string format(const IdTypeSpec& sp, const idgen::IdValue& v) {
    char out[idgen::kIdTypeTextMaxLen];
    return std::string(out, idgen::id_type_format(sp, v, out));
}

idgen::Result<idgen::IdValue> parse(const IdTypeSpec& sp, const std::string& s, idgen::WrongPrefix* w = nullptr) {
    return idgen::id_type_parse(sp, s.data(), s.size(), w);
}

std::string hex_uuid(const std::uint8_t (&b)[16]) {
    idgen::Uuid u;
    std::memcpy(u.bytes, b, 16);
    char out[idgen::kUuidTextLen];
    idgen::uuid_format(u, out);
    return std::string(out, sizeof out);
}

}  // namespace

// Every valid example of the TypeID spec decodes to its prefix and UUID, and the UUID encodes back
// to the same text.
TEST(TypeIdSpec, ValidExamples) {
    for (const auto& v : typeid_spec::kValid) {
        const std::string text = v.typeid_text;
        auto t = idgen::typeid_parse(text.data(), text.size());
        ASSERT_TRUE(t.ok()) << v.name;
        EXPECT_EQ(std::string(t->prefix, t->prefix_len), v.prefix) << v.name;
        EXPECT_EQ(hex_uuid(t->id), v.uuid) << v.name;
        auto u = idgen::uuid_parse(v.uuid, std::strlen(v.uuid));
        ASSERT_TRUE(u.ok());
        char suffix[idgen::kTypeidSuffixLen];
        idgen::typeid_encode_suffix(u->bytes, suffix);
        const std::string prefix = v.prefix;
        EXPECT_EQ((prefix.empty() ? "" : prefix + "_") + std::string(suffix, sizeof suffix), text) << v.name;
    }
}

TEST(TypeIdSpec, InvalidExamples) {
    for (const auto& v : typeid_spec::kInvalid) {
        const std::string text = v.typeid_text;
        auto t = idgen::typeid_parse(text.data(), text.size());
        EXPECT_FALSE(t.ok()) << v.name;
        // The one that is only too large is out of range; the others are malformed.
        EXPECT_EQ(t.error(), std::strcmp(v.name, "suffix-overflow") == 0 ? Error::kOutOfRange : Error::kInvalidSyntax)
            << v.name;
    }
}

// A typeid-format type reads the spec's examples with its own prefix and refuses the invalid ones.
TEST(IdType, TypeidFormatReadsSpecExamples) {
    const IdTypeSpec sp = spec("kind=uuidv7 format=typeid prefix=prefix");
    for (const auto& v : typeid_spec::kValid) {
        if (std::strcmp(v.prefix, "prefix") != 0) continue;
        auto r = parse(sp, v.typeid_text);
        ASSERT_TRUE(r.ok()) << v.name;
        EXPECT_EQ(hex_uuid(r->bytes), v.uuid);
        EXPECT_EQ(format(sp, *r), v.typeid_text);
    }
    for (const auto& v : typeid_spec::kInvalid) EXPECT_FALSE(parse(sp, v.typeid_text).ok()) << v.name;
}

TEST(IdType, PrefixRules) {
    for (const char* p : {"a", "acct", "abcdefghijklmnop", "ab_cd", "a_b_c"})
        EXPECT_TRUE(idgen::typeid_prefix_valid(p, std::strlen(p))) << p;
    EXPECT_TRUE(idgen::typeid_prefix_valid("", 0));
    for (const char* p : {"A", "a1", "_a", "a_", "a.b", "1"})
        EXPECT_FALSE(idgen::typeid_prefix_valid(p, std::strlen(p))) << p;
    // Prefixed format: the registry's rule. TypeID format: letters only (both rules).
    EXPECT_TRUE(idgen::id_type_prefix_valid(IdKind::kUlid, IdTextFormat::kPrefixed, "acct2", 5));
    EXPECT_FALSE(idgen::id_type_prefix_valid(IdKind::kUlid, IdTextFormat::kTypeid, "acct2", 5));
    EXPECT_FALSE(idgen::id_type_prefix_valid(IdKind::kUlid, IdTextFormat::kTypeid, "ac_ct", 5));
    EXPECT_FALSE(idgen::id_type_prefix_valid(IdKind::kUlid, IdTextFormat::kPrefixed, "ac_ct", 5));
    EXPECT_TRUE(idgen::id_type_prefix_valid(IdKind::kUuidv7, IdTextFormat::kTypeid, "acct", 4));
    EXPECT_FALSE(idgen::id_type_prefix_valid(IdKind::kSnowflake, IdTextFormat::kTypeid, "acct", 4));
    EXPECT_FALSE(idgen::id_type_prefix_valid(IdKind::kUlid, IdTextFormat::kPrefixed, "abcdefghijklmnopq", 17));
}

TEST(IdType, SpecStrings) {
    const IdTypeSpec s = spec("kind=snowflake format=prefixed prefix=evt");
    EXPECT_EQ(s.kind, IdKind::kSnowflake);
    EXPECT_EQ(s.format, IdTextFormat::kPrefixed);
    EXPECT_EQ(std::string(s.prefix, s.prefix_len), "evt");
    for (const char* bad : {"", "kind=ulid", "kind=ulid format=prefixed", "kind=ulid format=prefixed prefix=",
                            "kind=uuidv4 format=prefixed prefix=a", "kind=ulid format=json prefix=a",
                            "kind=ulid format=prefixed prefix=a ", "kind=ulid format=prefixed prefix=A",
                            "kind=snowflake format=typeid prefix=a", "kind=ulid format=typeid prefix=a1",
                            "format=prefixed kind=ulid prefix=a", "kind=ulid  format=prefixed prefix=a"})
        EXPECT_FALSE(idgen::id_type_spec_parse(bad, std::strlen(bad)).ok()) << bad;
}

// Round trips of random values in every kind and format; text order equals value order.
TEST(IdType, RoundTripsAndOrder) {
    std::mt19937_64 rng(42);
    for (const char* text : {"kind=ulid format=prefixed prefix=acct", "kind=uuidv7 format=prefixed prefix=a1",
                             "kind=ulid format=typeid prefix=acct", "kind=uuidv7 format=typeid prefix=ord"}) {
        const IdTypeSpec sp = spec(text);
        std::string previous;
        idgen::IdValue prev_v{};
        for (int i = 0; i < 2000; ++i) {
            idgen::IdValue v{};
            for (auto& b : v.bytes) b = static_cast<std::uint8_t>(rng());
            const std::string s = format(sp, v);
            auto back = parse(sp, s);
            ASSERT_TRUE(back.ok()) << s;
            EXPECT_EQ(0, std::memcmp(back->bytes, v.bytes, 16)) << s;
            if (i > 0) {
                EXPECT_EQ(std::memcmp(prev_v.bytes, v.bytes, 16) < 0, previous < s) << s;
            }
            previous = s;
            prev_v = v;
        }
    }
    const IdTypeSpec sp = spec("kind=snowflake format=prefixed prefix=evt");
    for (std::int64_t x : {std::int64_t{1}, std::int64_t{123}, INT64_MAX, std::int64_t{1} << 40}) {
        idgen::IdValue v{};
        v.i64 = x;
        const std::string s = format(sp, v);
        EXPECT_EQ(s.size(), 4u + 13u);
        auto back = parse(sp, s);
        ASSERT_TRUE(back.ok()) << s;
        EXPECT_EQ(back->i64, x);
    }
}

TEST(IdType, BareForms) {
    auto r = parse(spec("kind=ulid format=prefixed prefix=acct"), "01ARZ3NDEKTSV4RRFFQ69G5FAV");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(hex_uuid(r->bytes), "01563e3a-b5d3-d676-4c61-efb99302bd5b");
    r = parse(spec("kind=uuidv7 format=typeid prefix=ord"), "01890a5d-ac96-774b-bcce-b302099a8057");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(format(spec("kind=uuidv7 format=typeid prefix=ord"), *r), "ord_01h455vb4pex5vsknk084sn02q");
    r = parse(spec("kind=uuidv7 format=typeid prefix=ord"), "01h455vb4pex5vsknk084sn02q");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(hex_uuid(r->bytes), "01890a5d-ac96-774b-bcce-b302099a8057");
    r = parse(spec("kind=snowflake format=prefixed prefix=evt"), "123");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->i64, 123);
}

TEST(IdType, Errors) {
    const IdTypeSpec acct = spec("kind=ulid format=prefixed prefix=acct");
    idgen::WrongPrefix w{};
    auto r = parse(acct, "ord_0000000000000000000000001", &w);
    EXPECT_EQ(r.error(), Error::kWrongPrefix);
    EXPECT_EQ(std::string(w.prefix, w.len), "ord");
    // Another type's prefix is named whatever the body (another format's, or malformed).
    EXPECT_EQ(parse(acct, "ord_000000000000000000000001").error(), Error::kWrongPrefix);
    EXPECT_EQ(parse(acct, "ord_01h455vb4pex5vsknk084sn02q").error(), Error::kWrongPrefix);
    EXPECT_EQ(parse(acct, "or.d_0000000000000000000000001").error(), Error::kInvalidSyntax);
    EXPECT_EQ(parse(acct, "acct_000000000000000000000001").error(), Error::kInvalidSyntax);    // 24 characters
    EXPECT_EQ(parse(acct, "acct_00000000000000000000000001").error(), Error::kInvalidSyntax);  // 26
    EXPECT_EQ(parse(acct, "acct_zzzzzzzzzzzzzzzzzzzzzzzzz").error(), Error::kOutOfRange);
    EXPECT_EQ(parse(acct, "_0000000000000000000000001").error(), Error::kInvalidSyntax);
    EXPECT_EQ(parse(acct, "Acct_0000000000000000000000001").error(), Error::kInvalidSyntax);
    EXPECT_EQ(parse(acct, "").error(), Error::kInvalidSyntax);
    const IdTypeSpec evt = spec("kind=snowflake format=prefixed prefix=evt");
    EXPECT_EQ(parse(evt, "evt_0000000000000").error(), Error::kOutOfRange);  // 0
    EXPECT_EQ(parse(evt, "evt_1y2p0ij32e8e8").error(), Error::kOutOfRange);  // 2^63
    EXPECT_EQ(parse(evt, "evt_1y2p0ij32e8e7").ok(), true);                   // 2^63 - 1
    EXPECT_EQ(parse(evt, "0").error(), Error::kOutOfRange);
    EXPECT_EQ(parse(evt, "evt_00000000001").error(), Error::kInvalidSyntax);  // fixed width
    const IdTypeSpec ord = spec("kind=uuidv7 format=typeid prefix=ord");
    EXPECT_EQ(parse(ord, "ord_8zzzzzzzzzzzzzzzzzzzzzzzzz").error(), Error::kOutOfRange);
    EXPECT_EQ(parse(ord, "ord_01H455VB4PEX5VSKNK084SN02Q").error(), Error::kInvalidSyntax);
    EXPECT_EQ(parse(ord, "pre_fix_01h455vb4pex5vsknk084sn02q", &w).error(), Error::kWrongPrefix);
    EXPECT_EQ(std::string(w.prefix, w.len), "pre_fix");
}
