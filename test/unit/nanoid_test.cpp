#include "core/types/nanoid.h"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "fake_sources.h"

using idgen::Error;
using idgen::NanoidAlphabet;
using idgen::NanoidAlphabetCheck;

namespace {

NanoidAlphabet alphabet(const std::string& s, bool high = false) {
    NanoidAlphabet a{};
    EXPECT_EQ(idgen::nanoid_alphabet(s.data(), s.size(), high, a), NanoidAlphabetCheck::kValid) << s;
    return a;
}

std::string alnum(int n) {
    const std::string all = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_-";
    return all.substr(0, static_cast<std::size_t>(n));
}

// Pearson's χ² statistic of `n` characters' counts against the uniform distribution.
double chi_squared(const std::array<long, 256>& counts, int k, long n) {
    const double expected = static_cast<double>(n) / k;
    double chi = 0;
    for (int i = 0; i < k; ++i) chi += (counts[i] - expected) * (counts[i] - expected) / expected;
    return chi;
}

// The biased sampler mask-and-reject replaces: byte % size. Used to show the test can fail.
class ModuloSampler {
public:
    explicit ModuloSampler(int k) : k_(k) {}
    int next(idgen::ByteSource& r) {
        std::uint8_t b;
        EXPECT_TRUE(r.fill(&b, 1));
        return b % k_;
    }

private:
    int k_;
};

// χ² critical values for 1,000,000 characters, k - 1 degrees of freedom, at p = 1e-6 in each
// tail (a correct sampler fails one run in 500,000): computed from the regularized incomplete
// gamma function.
struct Threshold {
    int k;
    double low, high;
};
constexpr Threshold kThresholds[] = {{64, 23.2, 131.4}, {62, 22.0, 128.5}, {36, 8.4, 89.9}};
constexpr long kChars = 1'000'000;

}  // namespace

TEST(Nanoid, MaskCoversEveryIndexAndNoMore) {
    EXPECT_EQ(idgen::nanoid_mask(2), 1);
    EXPECT_EQ(idgen::nanoid_mask(3), 3);
    EXPECT_EQ(idgen::nanoid_mask(4), 3);
    EXPECT_EQ(idgen::nanoid_mask(36), 63);
    EXPECT_EQ(idgen::nanoid_mask(62), 63);
    EXPECT_EQ(idgen::nanoid_mask(64), 63);
    EXPECT_EQ(idgen::nanoid_mask(65), 127);
    EXPECT_EQ(idgen::nanoid_mask(129), 255);
    EXPECT_EQ(idgen::nanoid_mask(255), 255);
    for (std::size_t k = 2; k <= 255; ++k) {
        const unsigned m = idgen::nanoid_mask(k);
        EXPECT_GE(m, k - 1);
        EXPECT_LT(m / 2, k - 1) << k;  // the smallest such mask
        EXPECT_EQ(m & (m + 1), 0u);    // all ones
    }
}

TEST(Nanoid, AlphabetRules) {
    NanoidAlphabet a{};
    EXPECT_EQ(idgen::nanoid_alphabet("", 0, false, a), NanoidAlphabetCheck::kTooShort);
    EXPECT_EQ(idgen::nanoid_alphabet("a", 1, false, a), NanoidAlphabetCheck::kTooShort);
    EXPECT_EQ(idgen::nanoid_alphabet("ab", 2, false, a), NanoidAlphabetCheck::kValid);
    EXPECT_EQ(a.size, 2);
    EXPECT_EQ(idgen::nanoid_alphabet("abcb", 4, false, a), NanoidAlphabetCheck::kRepeated);
    EXPECT_EQ(a.repeated, 'b');
    EXPECT_EQ(idgen::nanoid_alphabet("ab\xc3\xa9", 4, false, a), NanoidAlphabetCheck::kMultibyte);
    EXPECT_EQ(idgen::nanoid_alphabet("ab\xc3\xa9", 4, true, a), NanoidAlphabetCheck::kValid);
    EXPECT_EQ(idgen::nanoid_alphabet("a\0b", 3, false, a), NanoidAlphabetCheck::kNul);
    std::string all;
    for (int c = 1; c < 256; ++c) all += static_cast<char>(c);
    EXPECT_EQ(idgen::nanoid_alphabet(all.data(), all.size(), true, a), NanoidAlphabetCheck::kValid);
    EXPECT_EQ(a.size, 255);
    EXPECT_EQ(a.mask, 255);
    std::string too_long = all + "x";
    EXPECT_EQ(idgen::nanoid_alphabet(too_long.data(), too_long.size(), true, a), NanoidAlphabetCheck::kTooLong);
    const std::string def = idgen::kNanoidDefaultAlphabet;
    EXPECT_EQ(def.size(), 64u);
    EXPECT_EQ(idgen::nanoid_alphabet(def.data(), def.size(), false, a), NanoidAlphabetCheck::kValid);
}

TEST(Nanoid, SizesAndSourceFailure) {
    idgen::EntropyPool pool;
    pool.set_owner(1);
    const NanoidAlphabet a = alphabet(idgen::kNanoidDefaultAlphabet);
    char out[256];
    EXPECT_EQ(idgen::nanoid_generate(a, 0, pool, out), Error::kOutOfRange);
    EXPECT_EQ(idgen::nanoid_generate(a, 256, pool, out), Error::kOutOfRange);
    for (std::size_t size : {1, 21, 255}) {
        std::memset(out, 0, sizeof out);
        ASSERT_EQ(idgen::nanoid_generate(a, size, pool, out), Error::kOk);
        EXPECT_EQ(std::strlen(out), size);
        for (std::size_t i = 0; i < size; ++i) EXPECT_NE(std::strchr(idgen::kNanoidDefaultAlphabet, out[i]), nullptr);
    }
    idgen::test::FixedBytes failing({0});
    failing.set_fail(true);
    EXPECT_EQ(idgen::nanoid_generate(a, 21, failing, out), Error::kEntropyFailure);
}

// Mask-and-reject with known bytes: a masked value past the alphabet is dropped, never folded.
TEST(Nanoid, RejectsMaskedValuesPastTheAlphabet) {
    const NanoidAlphabet a = alphabet("abc");  // mask 3: value 3 is rejected
    idgen::test::FixedBytes bytes({0x03, 0x07, 0xFF, 0x00, 0x01, 0x06, 0x04});
    char out[4] = {};
    ASSERT_EQ(idgen::nanoid_generate(a, 4, bytes, out), Error::kOk);
    // 3, 3, 3 rejected; 0 -> a, 1 -> b, 6 & 3 = 2 -> c, 4 & 3 = 0 -> a.
    EXPECT_EQ(std::string(out, 4), "abca");
}

// One batch draw per ID in the common case (the source is block-buffered CSPRNG output): a
// 21-character default-alphabet ID needs no rejection, so exactly one fill() call.
TEST(Nanoid, DrawsInBatches) {
    const NanoidAlphabet a = alphabet(idgen::kNanoidDefaultAlphabet);
    idgen::test::FixedBytes bytes({0x00, 0x3F, 0x15});
    char out[21];
    ASSERT_EQ(idgen::nanoid_generate(a, 21, bytes, out), Error::kOk);
    EXPECT_EQ(bytes.calls(), 1);
}

// Pearson's χ² over 1,000,000 characters for alphabets of 64, 62 and 36 characters, from the
// kernel CSPRNG through the block-buffered pool: within the two-sided p = 1e-6 bounds. The same
// statistic for byte % size (the sampler mask-and-reject avoids) is far past the upper bound,
// so the test has the power to see modulo bias.
TEST(Nanoid, ChiSquaredUniformity) {
    idgen::EntropyPool pool;
    pool.set_owner(2);
    for (const Threshold& t : kThresholds) {
        const std::string chars = alnum(t.k);
        const NanoidAlphabet a = alphabet(chars);
        std::array<long, 256> counts{};
        std::vector<char> buf(250);
        long n = 0;
        while (n < kChars) {
            ASSERT_EQ(idgen::nanoid_generate(a, buf.size(), pool, buf.data()), Error::kOk);
            for (char c : buf) ++counts[chars.find(c)];
            n += static_cast<long>(buf.size());
        }
        ASSERT_EQ(n, kChars);
        const double chi = chi_squared(counts, t.k, n);
        EXPECT_GT(chi, t.low) << t.k << " characters";
        EXPECT_LT(chi, t.high) << t.k << " characters";
        std::printf("[ chi2 ] alphabet %d: %.1f (bounds %.1f .. %.1f)\n", t.k, chi, t.low, t.high);

        if (t.k != 64) {
            ModuloSampler m(t.k);
            std::array<long, 256> mc{};
            for (long i = 0; i < kChars; ++i) ++mc[m.next(pool)];
            EXPECT_GT(chi_squared(mc, t.k, kChars), t.high * 5) << "modulo sampling must be detected";
        }
    }
}

TEST(Nanoid, DistinctIds) {
    idgen::EntropyPool pool;
    pool.set_owner(3);
    const NanoidAlphabet a = alphabet(idgen::kNanoidDefaultAlphabet);
    std::set<std::string> seen;
    char out[21];
    for (int i = 0; i < 100000; ++i) {
        ASSERT_EQ(idgen::nanoid_generate(a, 21, pool, out), Error::kOk);
        EXPECT_TRUE(seen.insert(std::string(out, 21)).second);
    }
}
