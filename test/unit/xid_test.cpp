#include "core/types/xid.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "fake_sources.h"

using idgen::Error;
using idgen::Xid;
using idgen::XidGenerator;
using idgen::test::FixedBytes;

namespace {

std::string fmt(const Xid& id) {
    char b[idgen::kXidTextLen];
    idgen::xid_format(id, b);
    return std::string(b, sizeof b);
}

Error parse_err(const std::string& s) { return idgen::xid_parse(s.data(), s.size()).error(); }

Xid of(std::initializer_list<int> bytes) {
    Xid x{};
    int i = 0;
    for (int b : bytes) x.bytes[i++] = static_cast<std::uint8_t>(b);
    return x;
}

// RFC 4648 base32hex over the 96 bits plus 4 zero bits, bit by bit: an independent reference.
std::string reference(const Xid& x) {
    static const char* a = "0123456789abcdefghijklmnopqrstuv";
    std::string out;
    for (int c = 0; c < 20; ++c) {
        int v = 0;
        for (int k = 0; k < 5; ++k) {
            const int bit = c * 5 + k;
            v = (v << 1) | (bit < 96 ? (x.bytes[bit / 8] >> (7 - bit % 8)) & 1 : 0);
        }
        out += a[v];
    }
    return out;
}

}  // namespace

// rs/xid's tests (id_test.go): the string of its first vector, and the fields of all three.
TEST(XidCodec, RsXidVectors) {
    const Xid a = of({0x4d, 0x88, 0xe1, 0x5b, 0x60, 0xf4, 0x86, 0xe4, 0x28, 0x41, 0x2d, 0xc9});
    EXPECT_EQ(fmt(a), "9m4e2mr0ui3e8a215n4g");
    EXPECT_EQ(idgen::xid_seconds(a), 1300816219u);
    EXPECT_EQ(idgen::xid_machine(a), 0x60f486u);
    EXPECT_EQ(idgen::xid_pid(a), 0xe428);
    EXPECT_EQ(idgen::xid_counter(a), 4271561u);
    const Xid zero{};
    EXPECT_EQ(fmt(zero), "00000000000000000000");
    const Xid c = of({0x00, 0x00, 0x00, 0x00, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0x00, 0x00, 0x01});
    EXPECT_EQ(idgen::xid_seconds(c), 0u);
    EXPECT_EQ(idgen::xid_machine(c), 0xaabbccu);
    EXPECT_EQ(idgen::xid_pid(c), 0xddee);
    EXPECT_EQ(idgen::xid_counter(c), 1u);
    auto back = idgen::xid_parse("9m4e2mr0ui3e8a215n4g", 20);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(std::memcmp(back->bytes, a.bytes, 12), 0);
}

TEST(XidCodec, Errors) {
    EXPECT_EQ(parse_err("9m4e2mr0ui3e8a215n4"), Error::kInvalidSyntax);
    EXPECT_EQ(parse_err("9m4e2mr0ui3e8a215n4g0"), Error::kInvalidSyntax);
    EXPECT_EQ(parse_err(""), Error::kInvalidSyntax);
    EXPECT_EQ(parse_err("9M4E2MR0UI3E8A215N4G"), Error::kInvalidSyntax);  // upper case, as rs/xid
    EXPECT_EQ(parse_err("9m4e2mr0ui3e8a215n4w"), Error::kInvalidSyntax);
    // The last character carries 1 data bit and 4 pad bits: only '0' and 'g' are canonical.
    for (char last = 0; last < 127; ++last) {
        std::string s = "9m4e2mr0ui3e8a215n4g";
        s[19] = last;
        EXPECT_EQ(idgen::xid_parse(s.data(), s.size()).ok(), last == '0' || last == 'g') << last;
    }
    for (char bad : {'-', 'w', 'z', 'A', 'V', ' ', '\0', '\xff'}) {
        std::string s = "9m4e2mr0ui3e8a215n4g";
        s[5] = bad;
        EXPECT_EQ(parse_err(s), Error::kInvalidSyntax) << static_cast<int>(bad);
    }
}

TEST(XidCodec, RandomValuesMatchReferenceRoundTripAndOrder) {
    std::mt19937_64 rng(7);
    Xid prev{};
    std::string prev_text = fmt(prev);
    for (int i = 0; i < 20000; ++i) {
        Xid x;
        for (auto& b : x.bytes) b = static_cast<std::uint8_t>(rng());
        if (i % 5 == 0) std::memcpy(x.bytes, prev.bytes, 9);
        const std::string t = fmt(x);
        ASSERT_EQ(t, reference(x));
        auto back = idgen::xid_parse(t.data(), t.size());
        ASSERT_TRUE(back.ok()) << t;
        ASSERT_EQ(std::memcmp(back->bytes, x.bytes, 12), 0);
        const int c = std::memcmp(x.bytes, prev.bytes, 12);
        ASSERT_EQ(c < 0, t < prev_text);
        prev = x;
        prev_text = t;
    }
}

TEST(XidBounds, LowerUpper) {
    EXPECT_EQ(fmt(*idgen::xid_lower(1300816219)), "9m4e2mo0000000000000");
    EXPECT_EQ(fmt(*idgen::xid_upper(1300816219)), "9m4e2mvvvvvvvvvvvvvg");
    EXPECT_EQ(idgen::xid_lower(-1).error(), Error::kTimeOutOfRange);
    EXPECT_EQ(idgen::xid_upper(0x100000000LL).error(), Error::kTimeOutOfRange);
}

TEST(XidMachine, FromSystemIdentifierIsStableAnd24Bits) {
    EXPECT_EQ(idgen::xid_machine_from_system_id(7311122334455667788ull),
              idgen::xid_machine_from_system_id(7311122334455667788ull));
    EXPECT_NE(idgen::xid_machine_from_system_id(7311122334455667788ull),
              idgen::xid_machine_from_system_id(7311122334455667789ull));
    for (std::uint64_t s = 0; s < 1000; ++s) EXPECT_LT(idgen::xid_machine_from_system_id(s * 0x1000), 1u << 24);
}

TEST(XidGenerator, FieldsCounterAndMonotonicity) {
    FixedBytes start({0x12, 0x34, 0x56});
    XidGenerator g;
    auto a = g.next(1300816219, 0x60f486, 0x1e428, start);  // pid keeps its low 16 bits
    auto b = g.next(1300816219, 0x60f486, 0x1e428, start);
    auto c = g.next(1300816200, 0x60f486, 0x1e428, start);  // the clock stepped back
    ASSERT_TRUE(a.ok() && b.ok() && c.ok());
    EXPECT_EQ(idgen::xid_machine(*a), 0x60f486u);
    EXPECT_EQ(idgen::xid_pid(*a), 0xe428);
    EXPECT_EQ(idgen::xid_counter(*a), 0x123456u);
    EXPECT_EQ(idgen::xid_counter(*b), 0x123457u);
    EXPECT_EQ(idgen::xid_seconds(*c), 1300816219u);
    EXPECT_LT(std::memcmp(a->bytes, b->bytes, 12), 0);
    EXPECT_LT(std::memcmp(b->bytes, c->bytes, 12), 0);
    EXPECT_EQ(start.calls(), 1);
}

TEST(XidGenerator, CounterWrapMovesToTheNextSecond) {
    FixedBytes start({0xFF, 0xFF, 0xFE});
    XidGenerator g;
    auto a = g.next(1000, 1, 2, start);  // counter FFFFFE
    auto b = g.next(1000, 1, 2, start);  // FFFFFF
    auto c = g.next(1000, 1, 2, start);  // would wrap to 0 in second 1000: second 1001 instead
    auto d = g.next(1000, 1, 2, start);
    ASSERT_TRUE(a.ok() && b.ok() && c.ok() && d.ok());
    EXPECT_EQ(idgen::xid_seconds(*b), 1000u);
    EXPECT_EQ(idgen::xid_seconds(*c), 1001u);
    EXPECT_EQ(idgen::xid_counter(*c), 0u);
    EXPECT_EQ(idgen::xid_seconds(*d), 1001u);
    EXPECT_EQ(idgen::xid_counter(*d), 1u);
    EXPECT_LT(std::memcmp(b->bytes, c->bytes, 12), 0);
}

TEST(XidGenerator, AnotherPidRedrawsTheCounter) {
    FixedBytes start({0x00, 0x00, 0x05, 0x00, 0x00, 0x09});
    XidGenerator g;
    auto a = g.next(1000, 1, 100, start);
    auto b = g.next(1000, 1, 101, start);  // as after fork(): a new pid
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(idgen::xid_counter(*a), 5u);
    EXPECT_EQ(idgen::xid_counter(*b), 9u);
    EXPECT_EQ(idgen::xid_pid(*b), 101);
    EXPECT_EQ(g.owner_pid(), 101);
}

TEST(XidGenerator, Errors) {
    FixedBytes start({1, 2, 3});
    XidGenerator g;
    EXPECT_EQ(g.next(0x100000000LL, 1, 2, start).error(), Error::kTimeOutOfRange);
    XidGenerator h;
    start.set_fail(true);
    EXPECT_EQ(h.next(1000, 1, 2, start).error(), Error::kEntropyFailure);
}

// A per-entity type of kind xid (create_id_type(kind => 'xid')).
#include "core/text/id_type.h"

TEST(XidIdType, SpecTextAndErrors) {
    const std::string spec_text = "kind=xid format=prefixed prefix=ses";
    auto spec = idgen::id_type_spec_parse(spec_text.data(), spec_text.size());
    ASSERT_TRUE(spec.ok());
    EXPECT_EQ(spec->kind, idgen::IdKind::kXid);
    const std::string typeid_spec = "kind=xid format=typeid prefix=ses";
    EXPECT_FALSE(idgen::id_type_spec_parse(typeid_spec.data(), typeid_spec.size()).ok());
    const std::string text = "ses_9m4e2mr0ui3e8a215n4g";
    auto v = idgen::id_type_parse(*spec, text.data(), text.size(), nullptr);
    ASSERT_TRUE(v.ok());
    EXPECT_EQ(v->wide[0], 0x4d);
    EXPECT_EQ(v->wide[11], 0xc9);
    char out[idgen::kIdTypeTextMaxLen];
    EXPECT_EQ(std::string(out, idgen::id_type_format(*spec, *v, out)), text);
    auto bare = idgen::id_type_parse(*spec, text.data() + 4, text.size() - 4, nullptr);
    ASSERT_TRUE(bare.ok());
    EXPECT_EQ(std::memcmp(bare->wide, v->wide, 12), 0);
    const std::string upper = "ses_9M4E2MR0UI3E8A215N4G";
    EXPECT_EQ(idgen::id_type_parse(*spec, upper.data(), upper.size(), nullptr).error(), Error::kInvalidSyntax);
}
