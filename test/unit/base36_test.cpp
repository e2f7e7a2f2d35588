#include "core/text/base36.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

using idgen::Error;
using u128 = unsigned __int128;

namespace {

std::string enc64(std::uint64_t v) {
    char b[idgen::kBase36Len64];
    idgen::base36_encode64(v, b);
    return std::string(b, sizeof b);
}

std::string enc128(u128 v) {
    char b[idgen::kBase36Len128];
    idgen::base36_encode128(v, b);
    return std::string(b, sizeof b);
}

// Independent reference: plain repeated division.
std::string ref(u128 v, std::size_t width) {
    std::string s;
    while (v != 0) {
        s.insert(s.begin(), "0123456789abcdefghijklmnopqrstuvwxyz"[static_cast<unsigned>(v % 36)]);
        v /= 36;
    }
    while (s.size() < width) s.insert(s.begin(), '0');
    return s;
}

Error dec64_err(const std::string& s) { return idgen::base36_decode64(s.data(), s.size()).error(); }
Error dec128_err(const std::string& s) { return idgen::base36_decode128(s.data(), s.size()).error(); }
std::uint64_t dec64(const std::string& s) {
    auto r = idgen::base36_decode64(s.data(), s.size());
    EXPECT_TRUE(r.ok()) << s;
    return *r;
}
u128 dec128(const std::string& s) {
    auto r = idgen::base36_decode128(s.data(), s.size());
    EXPECT_TRUE(r.ok()) << s;
    return *r;
}

constexpr std::uint64_t kMax64 = ~std::uint64_t{0};
constexpr u128 kMax128 = ~u128{0};

}  // namespace

TEST(Base36, KnownValues64) {
    EXPECT_EQ(enc64(0), "0000000000000");
    EXPECT_EQ(enc64(1), "0000000000001");
    EXPECT_EQ(enc64(35), "000000000000z");
    EXPECT_EQ(enc64(36), "0000000000010");
    EXPECT_EQ(enc64(kMax64), "3w5e11264sgsf");
    EXPECT_EQ(enc64(kMax64 - 1), "3w5e11264sgse");
    EXPECT_EQ(enc64(static_cast<std::uint64_t>(INT64_MAX)), "1y2p0ij32e8e7");
}

TEST(Base36, KnownValues128) {
    EXPECT_EQ(enc128(0), std::string(25, '0'));
    EXPECT_EQ(enc128(1), std::string(24, '0') + "1");
    EXPECT_EQ(enc128(kMax128), "f5lxx1zz5pnorynqglhzmsp33");
    EXPECT_EQ(enc128(kMax128 - 1), "f5lxx1zz5pnorynqglhzmsp32");
}

// The 128-bit encoding divides by 36^12 in 64-bit words: values around the chunk boundaries
// (36^12, 36^24, 2^64, a high word of 36^12 and its multiples) against plain repeated division.
TEST(Base36, Encode128AtChunkBoundaries) {
    const u128 p12 = 4738381338321616896ULL, p24 = p12 * p12;
    for (u128 base : {p12, p24, u128{1} << 64, p12 << 64, (p12 * 3) << 64, p24 * 15, kMax128 / p12, kMax128 / 2}) {
        for (int d = -2; d <= 2; ++d) {
            const u128 v = base + static_cast<u128>(static_cast<__int128>(d));
            ASSERT_EQ(enc128(v), ref(v, 25));
            ASSERT_TRUE(dec128(enc128(v)) == v);
        }
    }
}

// The 128-bit encoding's quotient by 36^12 is a multiplication by a 105-bit reciprocal: exact only
// if the reciprocal and the shift are right for every value. Against plain repeated division: random
// values of every bit length, and a multiple of 36^12 (where a quotient off by one shows first) and
// its neighbours for random multipliers over the whole range, the largest ones included.
TEST(Base36, Encode128MatchesRepeatedDivisionEverywhere) {
    std::mt19937_64 rng(36);
    const u128 p12 = 4738381338321616896ULL;
    for (int i = 0; i < 200000; ++i) {
        u128 v = (static_cast<u128>(rng()) << 64) | rng();
        v >>= i % 128;
        ASSERT_EQ(enc128(v), ref(v, 25));
        const u128 k = ((static_cast<u128>(rng()) << 64) | rng()) % (kMax128 / p12 + 1) >> (i % 67);
        const u128 m = k * p12;
        for (int d = -1; d <= 1; ++d) {
            const u128 w = m + static_cast<u128>(static_cast<__int128>(d));
            if (d < 0 && m == 0) continue;
            ASSERT_EQ(enc128(w), ref(w, 25));
        }
    }
    const u128 last = (kMax128 / p12) * p12;  // the largest multiple
    for (u128 v : {last - 1, last, last + 1, kMax128 - (u128{1} << 24), kMax128 >> 1, (kMax128 >> 24) << 24})
        ASSERT_EQ(enc128(v), ref(v, 25));
}

// Each 12-digit chunk is written from a 64-bit fixed-point fraction of chunk / 36^12, a pair of
// digits per multiplication by 36^2: a fraction a little low or too high shows first just below
// or at a multiple of 36^2, 36^4, ... 36^10 (a pair about to carry). Such chunks in the low, the
// middle and the top place of a 128-bit value, and as a 64-bit value, against repeated division.
TEST(Base36, EncodeChunksAtEveryPairCarry) {
    std::mt19937_64 rng(1296);
    const u128 p12 = 4738381338321616896ULL;
    std::uint64_t step = 1;
    for (int j = 1; j <= 6; ++j) {
        step *= 36 * 36;  // 36^(2j)
        for (int i = 0; i < 20000; ++i) {
            const std::uint64_t m = rng() % (static_cast<std::uint64_t>(p12) / step + 1);
            for (int d = -1; d <= 1; ++d) {
                const std::uint64_t x = m * step + static_cast<std::uint64_t>(d);
                if (x >= static_cast<std::uint64_t>(p12)) continue;  // -1 of 0, or past the chunk
                const u128 hi = rng() % 16, mid = rng() % static_cast<std::uint64_t>(p12);
                for (u128 v : {u128{x}, x * p12 + mid, (hi * p12 + x) * p12 + mid, (hi * p12 + mid) * p12 + x})
                    ASSERT_EQ(enc128(v), ref(v, 25));
                const std::uint64_t w = x + static_cast<std::uint64_t>(p12) * (rng() % 3);  // below 2^64
                ASSERT_EQ(enc64(w), ref(w, 13));
            }
        }
    }
}

// Encode -> decode is the identity on every boundary value.
TEST(Base36, BoundaryRoundTrip) {
    for (std::uint64_t v : {std::uint64_t{0}, std::uint64_t{1}, kMax64, kMax64 - 1,
                            static_cast<std::uint64_t>(INT64_MAX), static_cast<std::uint64_t>(INT64_MAX) + 1}) {
        EXPECT_EQ(dec64(enc64(v)), v);
    }
    for (u128 v : {u128{0}, u128{1}, kMax128, kMax128 - 1, u128{kMax64}, u128{kMax64} + 1}) {
        EXPECT_TRUE(dec128(enc128(v)) == v) << enc128(v);
    }
}

TEST(Base36, DecodeAcceptsEitherCaseShortAndPadded) {
    EXPECT_EQ(dec64("Z"), 35u);
    EXPECT_EQ(dec64("z"), 35u);
    EXPECT_EQ(dec64("3W5E11264SGSF"), kMax64);
    EXPECT_EQ(dec64("10"), 36u);
    EXPECT_EQ(dec64("0000000000000000000010"), 36u);  // extra leading zeros: the value decides
    EXPECT_TRUE(dec128("F5LXX1ZZ5PNORYNQGLHZMSP33") == kMax128);
    EXPECT_TRUE(dec128("1") == 1);
    EXPECT_TRUE(dec128("000000000000000000000000000000001") == 1);
}

TEST(Base36, Overflow) {
    EXPECT_EQ(dec64_err("3w5e11264sgsg"), Error::kOutOfRange);  // 2^64
    EXPECT_EQ(dec64_err("zzzzzzzzzzzzz"), Error::kOutOfRange);
    EXPECT_EQ(dec64_err("10000000000000"), Error::kOutOfRange);              // 36^13
    EXPECT_EQ(dec128_err("f5lxx1zz5pnorynqglhzmsp34"), Error::kOutOfRange);  // 2^128
    EXPECT_EQ(dec128_err("zzzzzzzzzzzzzzzzzzzzzzzzz"), Error::kOutOfRange);
    EXPECT_EQ(dec128_err("10000000000000000000000000"), Error::kOutOfRange);
}

TEST(Base36, InvalidCharacters) {
    const std::string cases[] = {"",
                                 "-1",
                                 "+1",
                                 " 1",
                                 "1 ",
                                 "a_b",
                                 "a.b",
                                 "\xc3\xa4",
                                 std::string("1\0"
                                             "2",
                                             3),
                                 "1f#"};
    for (const std::string& s : cases) {
        EXPECT_EQ(dec64_err(s), Error::kInvalidSyntax) << s;
        EXPECT_EQ(dec128_err(s), Error::kInvalidSyntax) << s;
    }
    // Syntax is checked before the value: an overlong string with a bad character is 22P02.
    EXPECT_EQ(dec64_err("zzzzzzzzzzzzzzzzzzzz!"), Error::kInvalidSyntax);
}

// 100,000 random pairs: comparing the numbers and comparing their fixed-width text agree, and
// the encoder matches a plain reference implementation.
TEST(Base36, TextOrderIsNumericOrder) {
    std::mt19937_64 rng(20241121);
    for (int i = 0; i < 100000; ++i) {
        // Mix full-width values with small ones so that the padding is exercised.
        const int shift = static_cast<int>(rng() % 64);
        const std::uint64_t a = rng() >> (i % 2 ? shift : 0), b = rng() >> (i % 3 ? 0 : shift);
        const std::string ta = enc64(a), tb = enc64(b);
        ASSERT_EQ(a < b, ta < tb) << ta << " " << tb;
        ASSERT_EQ(a == b, ta == tb);
        ASSERT_EQ(dec64(ta), a);
        const u128 x = ((u128{rng()} << 64) | rng()) >> (i % 2 ? shift : 0);
        const u128 y = ((u128{rng()} << 64) | rng()) >> (i % 3 ? 0 : shift * 2);
        const std::string tx = enc128(x), ty = enc128(y);
        ASSERT_EQ(x < y, tx < ty) << tx << " " << ty;
        ASSERT_TRUE(dec128(tx) == x);
        if (i % 100 == 0) {
            ASSERT_EQ(tx, ref(x, 25));
            ASSERT_EQ(ta, ref(a, 13));
        }
    }
}
