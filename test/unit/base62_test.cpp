#include "core/text/base62.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "core/text/prefixed.h"

using idgen::Error;
using u128 = unsigned __int128;

namespace {

constexpr char kAlphabet[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

std::string enc64(std::uint64_t v) {
    char b[idgen::kBase62Len64];
    idgen::base62_encode64(v, b);
    return std::string(b, sizeof b);
}

std::string enc128(u128 v) {
    char b[idgen::kBase62Len128];
    idgen::base62_encode128(v, b);
    return std::string(b, sizeof b);
}

// Independent reference: plain repeated division.
std::string ref(u128 v, std::size_t width) {
    std::string s;
    while (v != 0) {
        s.insert(s.begin(), kAlphabet[static_cast<unsigned>(v % 62)]);
        v /= 62;
    }
    while (s.size() < width) s.insert(s.begin(), '0');
    return s;
}

Error dec64_err(const std::string& s) { return idgen::base62_decode64(s.data(), s.size()).error(); }
Error dec128_err(const std::string& s) { return idgen::base62_decode128(s.data(), s.size()).error(); }
std::uint64_t dec64(const std::string& s) {
    auto r = idgen::base62_decode64(s.data(), s.size());
    EXPECT_TRUE(r.ok()) << s;
    return *r;
}
u128 dec128(const std::string& s) {
    auto r = idgen::base62_decode128(s.data(), s.size());
    EXPECT_TRUE(r.ok()) << s;
    return *r;
}

constexpr std::uint64_t kMax64 = ~std::uint64_t{0};
constexpr u128 kMax128 = ~u128{0};

u128 u128_of(std::uint64_t hi, std::uint64_t lo) { return (u128{hi} << 64) | lo; }

}  // namespace

// The alphabet is in ASCII order: that is what makes bytewise text order numeric order.
TEST(Base62, AlphabetIsAsciiOrdered) {
    for (std::size_t i = 1; i < 62; ++i) EXPECT_LT(kAlphabet[i - 1], kAlphabet[i]);
}

TEST(Base62, KnownValues64) {
    EXPECT_EQ(enc64(0), "00000000000");
    EXPECT_EQ(enc64(1), "00000000001");
    EXPECT_EQ(enc64(61), "0000000000z");
    EXPECT_EQ(enc64(62), "00000000010");
    EXPECT_EQ(enc64(1234567890123ULL), "0000LjaL3EZ");
    EXPECT_EQ(enc64(kMax64), "LygHa16AHYF");
    EXPECT_EQ(enc64(kMax64 - 1), "LygHa16AHYE");
    EXPECT_EQ(enc64(static_cast<std::uint64_t>(INT64_MAX)), "AzL8n0Y58m7");
    EXPECT_EQ(enc64(static_cast<std::uint64_t>(INT64_MAX) + 1), "AzL8n0Y58m8");
}

TEST(Base62, KnownValues128) {
    EXPECT_EQ(enc128(0), std::string(22, '0'));
    EXPECT_EQ(enc128(1), std::string(21, '0') + "1");
    EXPECT_EQ(enc128(kMax128), "7n42DGM5Tflk9n8mt7Fhc7");
    EXPECT_EQ(enc128(kMax128 - 1), "7n42DGM5Tflk9n8mt7Fhc6");
    EXPECT_EQ(enc128(kMax64), "00000000000LygHa16AHYF");
    // RFC 9562's UUIDv7 example 017F22E2-79B0-7CC3-98C4-DC0C0C07398F.
    EXPECT_EQ(enc128(u128_of(0x017F22E279B07CC3ULL, 0x98C4DC0C0C07398FULL)), "02p5oQZoHTv0zeY5yG21K3");
}

// Encode -> decode is the identity on every boundary value.
TEST(Base62, BoundaryRoundTrip) {
    for (std::uint64_t v : {std::uint64_t{0}, std::uint64_t{1}, kMax64, kMax64 - 1,
                            static_cast<std::uint64_t>(INT64_MAX), static_cast<std::uint64_t>(INT64_MAX) + 1,
                            std::uint64_t{839299365868340224ULL} - 1, std::uint64_t{839299365868340224ULL}}) {
        EXPECT_EQ(dec64(enc64(v)), v) << enc64(v);
    }
    for (u128 v : {u128{0}, u128{1}, kMax128, kMax128 - 1, u128{kMax64}, u128{kMax64} + 1}) {
        EXPECT_TRUE(dec128(enc128(v)) == v) << enc128(v);
    }
}

// Case is part of the digit: 'a' and 'A' are different values.
TEST(Base62, CaseIsSignificant) {
    EXPECT_EQ(dec64("0000000000A"), 10u);
    EXPECT_EQ(dec64("0000000000a"), 36u);
    EXPECT_EQ(dec64("0000000000Z"), 35u);
    EXPECT_EQ(dec64("0000000000z"), 61u);
    EXPECT_TRUE(dec128(std::string(21, '0') + "a") == 36);
}

// One past the largest value of each width, and the largest text of each width, are out of range.
TEST(Base62, Overflow) {
    EXPECT_EQ(dec64_err("LygHa16AHYG"), Error::kOutOfRange);  // 2^64
    EXPECT_EQ(dec64_err("LygHa16AHZ0"), Error::kOutOfRange);
    EXPECT_EQ(dec64_err("M0000000000"), Error::kOutOfRange);  // leading digit above the maximum's
    EXPECT_EQ(dec64_err("zzzzzzzzzzz"), Error::kOutOfRange);
    EXPECT_LT(dec64("LygHa00000F"), kMax64);                              // same leading digit, lower digits: fine
    EXPECT_EQ(dec128_err("7n42DGM5Tflk9n8mt7Fhc8"), Error::kOutOfRange);  // 2^128
    EXPECT_EQ(dec128_err("7n42DGM5Tflk9n8mt7Fhd0"), Error::kOutOfRange);
    EXPECT_EQ(dec128_err("7n42DGM5Tg0000000000000"), Error::kInvalidSyntax);  // 23 characters
    EXPECT_EQ(dec128_err("7o000000000000000000000"), Error::kInvalidSyntax);
    EXPECT_EQ(dec128_err("7o00000000000000000000"), Error::kOutOfRange);  // head above the maximum's
    EXPECT_EQ(dec128_err("zzzzzzzzzzzzzzzzzzzzzz"), Error::kOutOfRange);
    EXPECT_TRUE(dec128("7n42DGM5Tflk0000000000") < kMax128);  // same head, lower digits: fine
}

// Strict: exactly 11 / 22 characters of 0-9A-Za-z.
TEST(Base62, MalformedClasses) {
    const std::string cases64[] = {
        "",              // empty
        "1",             // short
        "0000000001",    // one short
        "000000000001",  // one long (extra leading zero)
        "-0000000001",
        "+0000000001",  // signs
        " 0000000001",
        "0000000001 ",  // spaces
        "00000000_01",
        "00000000.01",         // punctuation
        "0000000000\xc3\xa4",  // UTF-8, right byte count, not ASCII
        std::string("00000\0"
                    "00001",
                    11),  // NUL inside
        "zzzzzzzzzz!",    // would overflow, but syntax comes first
    };
    for (const std::string& s : cases64) EXPECT_EQ(dec64_err(s), Error::kInvalidSyntax) << s;
    const std::string cases128[] = {
        "",
        "1",
        std::string(21, '0'),
        std::string(23, '0'),
        "-" + std::string(21, '0'),
        std::string(21, '0') + " ",
        std::string(20, '0') + "\xc3\xa4",
        std::string(21, 'z') + "#",
        std::string("0000000000\0"
                    "00000000001",
                    22),
    };
    for (const std::string& s : cases128) EXPECT_EQ(dec128_err(s), Error::kInvalidSyntax) << s;
    // Every byte outside the alphabet is refused in every position.
    for (int c = 0; c < 256; ++c) {
        if (std::strchr(kAlphabet, c) != nullptr && c != 0) continue;
        std::string s64(11, '1'), s128(22, '1');
        s64[static_cast<std::size_t>(c) % 11] = static_cast<char>(c);
        s128[static_cast<std::size_t>(c) % 22] = static_cast<char>(c);
        EXPECT_EQ(dec64_err(s64), Error::kInvalidSyntax) << c;
        EXPECT_EQ(dec128_err(s128), Error::kInvalidSyntax) << c;
    }
}

// 100,000 random pairs: comparing the numbers and comparing their fixed-width text bytewise
// agree; decode inverts encode; the encoder matches a plain reference implementation.
TEST(Base62, TextOrderIsNumericOrder) {
    std::mt19937_64 rng(20261124);
    for (int i = 0; i < 100000; ++i) {
        const int shift = static_cast<int>(rng() % 64);
        const std::uint64_t a = rng() >> (i % 2 ? shift : 0), b = rng() >> (i % 3 ? 0 : shift);
        const std::string ta = enc64(a), tb = enc64(b);
        ASSERT_EQ(a < b, ta < tb) << ta << " " << tb;
        ASSERT_EQ(a == b, ta == tb);
        ASSERT_EQ(dec64(ta), a);
        const u128 x = u128_of(rng(), rng()) >> (i % 2 ? shift : 0);
        const u128 y = u128_of(rng(), rng()) >> (i % 3 ? 0 : shift * 2);
        const std::string tx = enc128(x), ty = enc128(y);
        ASSERT_EQ(x < y, tx < ty) << tx << " " << ty;
        ASSERT_TRUE(dec128(tx) == x);
        if (i % 100 == 0) {
            ASSERT_EQ(tx, ref(x, 22));
            ASSERT_EQ(ta, ref(a, 11));
        }
    }
}

// Prefixed IDs with a base62 body: 22 characters, chosen by the caller, never guessed.
TEST(Base62, PrefixedBody) {
    const std::uint8_t id[16] = {0x01, 0x7F, 0x22, 0xE2, 0x79, 0xB0, 0x7C, 0xC3,
                                 0x98, 0xC4, 0xDC, 0x0C, 0x0C, 0x07, 0x39, 0x8F};
    char out[idgen::kPrefixedMaxLen];
    auto n = idgen::prefixed_format("acct", 4, id, out, idgen::PrefixedBody::kBase62);
    ASSERT_TRUE(n.ok());
    EXPECT_EQ(std::string(out, *n), "acct_02p5oQZoHTv0zeY5yG21K3");
    auto p = idgen::prefixed_parse(out, *n, idgen::PrefixedBody::kBase62);
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(std::string(p->prefix, p->prefix_len), "acct");
    EXPECT_EQ(std::memcmp(p->id, id, 16), 0);
    // The base36 reading of a base62 body, and the reverse, are syntax errors.
    EXPECT_EQ(idgen::prefixed_parse(out, *n).error(), Error::kInvalidSyntax);
    auto n36 = idgen::prefixed_format("acct", 4, id, out);
    ASSERT_TRUE(n36.ok());
    EXPECT_EQ(*n36, 4u + 1 + 25);
    EXPECT_EQ(idgen::prefixed_parse(out, *n36, idgen::PrefixedBody::kBase62).error(), Error::kInvalidSyntax);
    // A base36 body cut to 22 characters is not read as base62 unless asked, and a 16-character
    // prefix with a base62 body is the longest base62 form.
    EXPECT_EQ(idgen::prefixed_parse("acct_0123456789abcdefghijkl", 27).error(), Error::kInvalidSyntax);
    const std::string longest = "abcdefghijklmnop_7n42DGM5Tflk9n8mt7Fhc7";
    EXPECT_TRUE(idgen::prefixed_parse(longest.data(), longest.size(), idgen::PrefixedBody::kBase62).ok());
    const std::string too_long = "abcdefghijklmnopq_7n42DGM5Tflk9n8mt7Fhc7";
    EXPECT_EQ(idgen::prefixed_parse(too_long.data(), too_long.size(), idgen::PrefixedBody::kBase62).error(),
              Error::kInvalidSyntax);
    const std::string over = "acct_7n42DGM5Tflk9n8mt7Fhc8";
    EXPECT_EQ(idgen::prefixed_parse(over.data(), over.size(), idgen::PrefixedBody::kBase62).error(),
              Error::kOutOfRange);
    EXPECT_EQ(idgen::prefixed_format("Acct", 4, id, out, idgen::PrefixedBody::kBase62).error(), Error::kInvalidPrefix);
}
