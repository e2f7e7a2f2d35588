// FF1 (NIST SP 800-38G) over AES, on both paths the extension takes: OpenSSL (the fallback, forced
// here by choosing it) and the AES-NI instructions (where the CPU has them; skipped elsewhere). The
// published sample vectors, the binary fast path against the general algorithm (across paths too),
// bijection on whole domains, cycle walking, the minimum domain, and statistical tests of a
// counter's permuted outputs; AES-NI's block function against FIPS 197's examples and OpenSSL.
#include "core/permute/ff1.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/permute/aes_evp.h"
#include "core/permute/aes_ni.h"

using idgen::Error;
namespace ff1 = idgen::ff1;

namespace {

std::vector<std::uint8_t> hex(const std::string& s) {
    std::vector<std::uint8_t> out;
    for (std::size_t i = 0; i + 1 < s.size(); i += 2)
        out.push_back(static_cast<std::uint8_t>(std::stoi(s.substr(i, 2), nullptr, 16)));
    return out;
}

enum class Path { kOpenSsl, kAesNi };

// One key on one path: an OpenSSL context, or AES-NI round keys with FF1's radix-2 rounds and the
// permutation through aes_ni.h's inlined functions.
struct Aes {
    Path path;
    EVP_CIPHER_CTX* ctx = nullptr;
    idgen::aes_ni::Key ni{};
    bool ok = false;
    Aes(const std::vector<std::uint8_t>& key, Path p) : path(p) {
        if (p == Path::kOpenSsl) {
            ctx = idgen::aes::context_new(key.data(), key.size());
            ok = ctx != nullptr;
        } else {
            ok = idgen::aes_ni::expand_key(key.data(), key.size(), &ni);
        }
    }
    ~Aes() { idgen::aes::context_free(ctx); }
    Aes(const Aes&) = delete;
    Aes& operator=(const Aes&) = delete;
    ff1::BlockCipher cipher() const {
        return path == Path::kOpenSsl ? idgen::aes::block_cipher(ctx) : idgen::aes_ni::block_cipher(ni);
    }
    std::uint64_t binary_encrypt(const ff1::BinaryPlan& plan, std::uint64_t x) const {
        return path == Path::kOpenSsl ? ff1::binary_encrypt(cipher(), plan, x)
                                      : idgen::aes_ni::binary_encrypt(ni, plan, x);
    }
    std::uint64_t binary_decrypt(const ff1::BinaryPlan& plan, std::uint64_t x) const {
        return path == Path::kOpenSsl ? ff1::binary_decrypt(cipher(), plan, x)
                                      : idgen::aes_ni::binary_decrypt(ni, plan, x);
    }
    idgen::Result<std::uint64_t> permute(const ff1::DomainPlan& plan, std::uint64_t x) const {
        return path == Path::kOpenSsl ? ff1::permute(cipher(), plan, x) : idgen::aes_ni::permute(ni, plan, x);
    }
    idgen::Result<std::uint64_t> unpermute(const ff1::DomainPlan& plan, std::uint64_t x) const {
        return path == Path::kOpenSsl ? ff1::unpermute(cipher(), plan, x) : idgen::aes_ni::unpermute(ni, plan, x);
    }
};

class Ff1 : public ::testing::TestWithParam<Path> {
protected:
    void SetUp() override {
        if (GetParam() == Path::kAesNi && !idgen::aes_ni::available()) GTEST_SKIP() << "this CPU has no AES-NI";
    }
};

INSTANTIATE_TEST_SUITE_P(Paths, Ff1, ::testing::Values(Path::kOpenSsl, Path::kAesNi),
                         [](const ::testing::TestParamInfo<Path>& info) {
                             return std::string(info.param == Path::kOpenSsl ? "OpenSsl" : "AesNi");
                         });

std::vector<std::uint8_t> test_key() {
    std::vector<std::uint8_t> k(32);
    for (int i = 0; i < 32; ++i) k[i] = static_cast<std::uint8_t>(0xA0 + i * 7);
    return k;
}

// Numerals of "0-9a-z" text.
std::vector<std::uint16_t> numerals(const std::string& s) {
    std::vector<std::uint16_t> out;
    for (char c : s) out.push_back(static_cast<std::uint16_t>(c <= '9' ? c - '0' : c - 'a' + 10));
    return out;
}
std::string text(const std::vector<std::uint16_t>& x) {
    std::string s;
    for (auto d : x) s.push_back(static_cast<char>(d < 10 ? '0' + d : 'a' + d - 10));
    return s;
}

struct Sample {
    const char* name;
    const char* key;
    unsigned radix;
    const char* tweak;
    const char* plaintext;
    const char* ciphertext;
};

// NIST's FF1 samples: "FF1samples.pdf", Cryptographic Standards and Guidelines, Examples with
// Intermediate Values (csrc.nist.gov/projects/cryptographic-standards-and-guidelines/example-values),
// Samples 1 to 9.
const Sample kSamples[] = {
    {"Sample 1", "2B7E151628AED2A6ABF7158809CF4F3C", 10, "", "0123456789", "2433477484"},
    {"Sample 2", "2B7E151628AED2A6ABF7158809CF4F3C", 10, "39383736353433323130", "0123456789", "6124200773"},
    {"Sample 3", "2B7E151628AED2A6ABF7158809CF4F3C", 36, "3737373770717273373737", "0123456789abcdefghi",
     "a9tv40mll9kdu509eum"},
    {"Sample 4", "2B7E151628AED2A6ABF7158809CF4F3CEF4359D8D580AA4F", 10, "", "0123456789", "2830668132"},
    {"Sample 5", "2B7E151628AED2A6ABF7158809CF4F3CEF4359D8D580AA4F", 10, "39383736353433323130", "0123456789",
     "2496655549"},
    {"Sample 6", "2B7E151628AED2A6ABF7158809CF4F3CEF4359D8D580AA4F", 36, "3737373770717273373737",
     "0123456789abcdefghi", "xbj3kv35jrawxv32ysr"},
    {"Sample 7", "2B7E151628AED2A6ABF7158809CF4F3CEF4359D8D580AA4F7F036D6F04FC6A94", 10, "", "0123456789",
     "6657667009"},
    {"Sample 8", "2B7E151628AED2A6ABF7158809CF4F3CEF4359D8D580AA4F7F036D6F04FC6A94", 10, "39383736353433323130",
     "0123456789", "1001623463"},
    {"Sample 9", "2B7E151628AED2A6ABF7158809CF4F3CEF4359D8D580AA4F7F036D6F04FC6A94", 36, "3737373770717273373737",
     "0123456789abcdefghi", "xs8a0azh2avyalyzuwd"},
};

TEST_P(Ff1, NistSampleVectors) {
    for (const auto& s : kSamples) {
        SCOPED_TRACE(s.name);
        Aes aes(hex(s.key), GetParam());
        ASSERT_TRUE(aes.ok);
        const auto tweak = hex(s.tweak);
        const auto pt = numerals(s.plaintext);
        std::vector<std::uint16_t> ct(pt.size()), back(pt.size());
        ASSERT_EQ(ff1::encrypt(aes.cipher(), tweak.data(), tweak.size(), s.radix, pt.data(), pt.size(), ct.data()),
                  Error::kOk);
        EXPECT_EQ(text(ct), s.ciphertext);
        ASSERT_EQ(ff1::decrypt(aes.cipher(), tweak.data(), tweak.size(), s.radix, ct.data(), ct.size(), back.data()),
                  Error::kOk);
        EXPECT_EQ(text(back), s.plaintext);
    }
}

TEST_P(Ff1, RefusesDomainsBelowOneMillionAndBadNumerals) {
    Aes aes(test_key(), GetParam());
    ASSERT_TRUE(aes.ok);
    std::vector<std::uint16_t> x(6, 1), y(6);
    // 10^5 < 10^6: refused; 10^6: the minimum.
    EXPECT_EQ(ff1::encrypt(aes.cipher(), nullptr, 0, 10, x.data(), 5, y.data()), Error::kOutOfRange);
    EXPECT_EQ(ff1::encrypt(aes.cipher(), nullptr, 0, 10, x.data(), 6, y.data()), Error::kOk);
    // 2^19 < 10^6 <= 2^20.
    std::vector<std::uint16_t> bits(20, 1), out(20);
    EXPECT_EQ(ff1::encrypt(aes.cipher(), nullptr, 0, 2, bits.data(), 19, out.data()), Error::kOutOfRange);
    EXPECT_EQ(ff1::encrypt(aes.cipher(), nullptr, 0, 2, bits.data(), 20, out.data()), Error::kOk);
    ff1::BinaryPlan bp;
    EXPECT_EQ(ff1::make_binary_plan(aes.cipher(), nullptr, 0, 19, &bp), Error::kOutOfRange);
    EXPECT_EQ(ff1::make_binary_plan(aes.cipher(), nullptr, 0, 65, &bp), Error::kOutOfRange);
    ff1::DomainPlan dp;
    EXPECT_EQ(ff1::make_domain_plan(aes.cipher(), nullptr, 0, 999999, &dp), Error::kOutOfRange);
    EXPECT_EQ(ff1::make_domain_plan(aes.cipher(), nullptr, 0, 1000000, &dp), Error::kOk);
    // A numeral not below the radix is malformed input.
    x[2] = 10;
    EXPECT_EQ(ff1::encrypt(aes.cipher(), nullptr, 0, 10, x.data(), 6, y.data()), Error::kInvalidSyntax);
    // Tweaks up to kMaxTweak bytes.
    std::vector<std::uint8_t> tweak(ff1::kMaxTweak + 1, 7);
    EXPECT_EQ(ff1::make_binary_plan(aes.cipher(), tweak.data(), tweak.size(), 32, &bp), Error::kOutOfRange);
    EXPECT_EQ(ff1::make_binary_plan(aes.cipher(), tweak.data(), ff1::kMaxTweak, 32, &bp), Error::kOk);
}

// The precomputed radix-2 path equals the general algorithm on the same bits, for every width and
// for tweaks that end inside a block, on a block boundary and across several blocks.
TEST_P(Ff1, BinaryPlanEqualsTheGeneralAlgorithm) {
    Aes aes(test_key(), GetParam());
    ASSERT_TRUE(aes.ok);
    std::mt19937_64 rng(42);
    for (unsigned n : {20u, 21u, 31u, 32u, 33u, 47u, 53u, 63u, 64u}) {
        for (std::size_t tlen : {0u, 1u, 11u, 12u, 13u, 16u, 27u, 40u, 256u}) {
            SCOPED_TRACE("n=" + std::to_string(n) + " tweak=" + std::to_string(tlen));
            std::vector<std::uint8_t> tweak(tlen);
            for (auto& t : tweak) t = static_cast<std::uint8_t>(rng());
            ff1::BinaryPlan plan;
            ASSERT_EQ(ff1::make_binary_plan(aes.cipher(), tweak.data(), tlen, n, &plan), Error::kOk);
            for (int k = 0; k < 20; ++k) {
                const std::uint64_t x = n == 64 ? rng() : rng() & ((std::uint64_t{1} << n) - 1);
                std::vector<std::uint16_t> in(n), out(n);
                for (unsigned j = 0; j < n; ++j) in[j] = static_cast<std::uint16_t>((x >> (n - 1 - j)) & 1);
                ASSERT_EQ(ff1::encrypt(aes.cipher(), tweak.data(), tlen, 2, in.data(), n, out.data()), Error::kOk);
                std::uint64_t expect = 0;
                for (unsigned j = 0; j < n; ++j) expect = (expect << 1) | out[j];
                const std::uint64_t got = aes.binary_encrypt(plan, x);
                ASSERT_EQ(got, expect) << "x=" << x;
                ASSERT_EQ(aes.binary_decrypt(plan, got), x);
            }
        }
    }
}

// Every value of the domain comes out exactly once, and unpermute inverts permute: N = 10^6 (20
// bits, cycle walking over 2^20), N = 2^20 (no walking) and N = 2^20 + 1 (21 bits, about half the
// steps walk on).
TEST_P(Ff1, BijectionOnWholeDomains) {
    Aes aes(test_key(), GetParam());
    ASSERT_TRUE(aes.ok);
    const std::uint8_t tweak[] = {'o', 'r', 'd', 'e', 'r', 's', '_', 's', 'e', 'q'};
    for (std::uint64_t domain : {std::uint64_t{1000000}, std::uint64_t{1} << 20, (std::uint64_t{1} << 20) + 1}) {
        SCOPED_TRACE("domain=" + std::to_string(domain));
        ff1::DomainPlan plan;
        ASSERT_EQ(ff1::make_domain_plan(aes.cipher(), tweak, sizeof tweak, domain, &plan), Error::kOk);
        std::vector<bool> seen(domain + 1, false);
        std::uint64_t fixed_points = 0;
        for (std::uint64_t x = 1; x <= domain; ++x) {
            auto y = aes.permute(plan, x);
            ASSERT_TRUE(y.ok());
            ASSERT_GE(*y, 1u);
            ASSERT_LE(*y, domain);
            ASSERT_FALSE(seen[*y]) << "value " << *y << " came out twice";
            seen[*y] = true;
            if (*y == x) ++fixed_points;
            if (x % 97 == 0) {
                auto back = aes.unpermute(plan, *y);
                ASSERT_TRUE(back.ok());
                ASSERT_EQ(*back, x);
            }
        }
        // A random permutation has about one fixed point (Poisson(1)); an identity-like map has many.
        EXPECT_LT(fixed_points, 10u);
    }
}

TEST_P(Ff1, DomainBoundsAndCycleWalking) {
    Aes aes(test_key(), GetParam());
    ASSERT_TRUE(aes.ok);
    const std::uint64_t max63 = 9223372036854775807ULL, max53 = 9007199254740991ULL;
    EXPECT_EQ(ff1::domain_bits(max63), 63u);
    EXPECT_EQ(ff1::domain_bits(max53), 53u);
    EXPECT_EQ(ff1::domain_bits(1000000), 20u);
    EXPECT_EQ(ff1::domain_bits(1u << 20), 20u);
    EXPECT_EQ(ff1::domain_bits((1u << 20) + 1), 21u);
    for (std::uint64_t domain : {max63, max53, std::uint64_t{1000003}, std::uint64_t{5000000000}}) {
        SCOPED_TRACE("domain=" + std::to_string(domain));
        ff1::DomainPlan plan;
        ASSERT_EQ(ff1::make_domain_plan(aes.cipher(), reinterpret_cast<const std::uint8_t*>("t"), 1, domain, &plan),
                  Error::kOk);
        EXPECT_EQ(aes.permute(plan, 0).error(), Error::kOutOfRange);
        EXPECT_EQ(aes.permute(plan, domain + 1).error(), Error::kOutOfRange);
        EXPECT_EQ(aes.unpermute(plan, 0).error(), Error::kOutOfRange);
        EXPECT_EQ(aes.unpermute(plan, domain + 1).error(), Error::kOutOfRange);
        std::mt19937_64 rng(domain);
        std::vector<std::uint64_t> xs = {1, 2, domain - 1, domain};
        for (int k = 0; k < 2000; ++k) xs.push_back(1 + rng() % domain);
        for (auto x : xs) {
            auto y = aes.permute(plan, x);
            ASSERT_TRUE(y.ok());
            ASSERT_GE(*y, 1u);
            ASSERT_LE(*y, domain);
            auto back = aes.unpermute(plan, *y);
            ASSERT_TRUE(back.ok());
            ASSERT_EQ(*back, x);
        }
    }
}

// Two tweaks (two sequences under one key) give unrelated permutations: their outputs for the same
// counter values agree no more often than chance.
TEST_P(Ff1, TweaksGiveDifferentPermutations) {
    Aes aes(test_key(), GetParam());
    ASSERT_TRUE(aes.ok);
    ff1::DomainPlan a, b;
    ASSERT_EQ(ff1::make_domain_plan(aes.cipher(), reinterpret_cast<const std::uint8_t*>("orders_seq"), 10, 1000000, &a),
              Error::kOk);
    ASSERT_EQ(
        ff1::make_domain_plan(aes.cipher(), reinterpret_cast<const std::uint8_t*>("invoices_seq"), 12, 1000000, &b),
        Error::kOk);
    int same = 0;
    for (std::uint64_t x = 1; x <= 100000; ++x) same += *aes.permute(a, x) == *aes.permute(b, x);
    EXPECT_LT(same, 5);  // chance: 0.1 expected
}

double chi2(const std::vector<std::uint64_t>& counts, double expected) {
    double s = 0;
    for (auto c : counts) s += (c - expected) * (c - expected) / expected;
    return s;
}

// 1M outputs of the counter 1..1000000 under the [1, 2^63-1] domain. Thresholds: for 255 degrees of
// freedom, the chi-squared statistic lies in [190.8, 330.5] with probability 0.998 (p = 0.001 in
// each tail; Wilson-Hilferty). Each bit position is one with probability 1/2: 1M trials give
// 500000 +- 500 (one sigma); the bound is 5 sigma.
TEST_P(Ff1, CounterOutputsPassRandomnessTests) {
    Aes aes(test_key(), GetParam());
    ASSERT_TRUE(aes.ok);
    ff1::DomainPlan plan;
    const char* tweak = "orders_seq";
    ASSERT_EQ(ff1::make_domain_plan(aes.cipher(), reinterpret_cast<const std::uint8_t*>(tweak), 10,
                                    9223372036854775807ULL, &plan),
              Error::kOk);
    constexpr int kN = 1000000;
    std::vector<std::uint64_t> bytes(256, 0), top(256, 0), pairs(256, 0), ones(63, 0);
    std::uint64_t prev = 0;
    for (std::uint64_t x = 1; x <= kN; ++x) {
        const std::uint64_t y = *aes.permute(plan, x) - 1;           // uniform over [0, 2^63 - 1)
        for (int j = 0; j < 7; ++j) ++bytes[(y >> (8 * j)) & 0xFF];  // the 7 low bytes
        ++top[y >> 55];                                              // the top 8 of 63 bits
        if (x > 1) ++pairs[((prev >> 59) << 4) | (y >> 59)];         // successive values' top 4 bits
        for (int j = 0; j < 63; ++j) ones[j] += (y >> j) & 1;
        prev = y;
    }
    const double lo = 190.8, hi = 330.5;
    const double c_bytes = chi2(bytes, 7.0 * kN / 256), c_top = chi2(top, 1.0 * kN / 256),
                 c_pairs = chi2(pairs, (kN - 1.0) / 256);
    RecordProperty("chi2_bytes", std::to_string(c_bytes));
    EXPECT_GT(c_bytes, lo);
    EXPECT_LT(c_bytes, hi);
    EXPECT_GT(c_top, lo);
    EXPECT_LT(c_top, hi);
    EXPECT_GT(c_pairs, lo);
    EXPECT_LT(c_pairs, hi);
    std::printf("chi2: bytes %.1f, top byte %.1f, successive pairs %.1f (bounds %.1f..%.1f)\n", c_bytes, c_top, c_pairs,
                lo, hi);
    for (int j = 0; j < 63; ++j) {
        EXPECT_GT(ones[j], 497500u) << "bit " << j;
        EXPECT_LT(ones[j], 502500u) << "bit " << j;
    }
}

// FIPS 197, Appendix C: AES-128, -192 and -256 of the block 00112233...ff under the keys 000102...,
// on both paths.
TEST(AesNi, Fips197Examples) {
    if (!idgen::aes_ni::available()) GTEST_SKIP() << "this CPU has no AES-NI";
    const auto plain = hex("00112233445566778899aabbccddeeff");
    const struct {
        const char* key;
        const char* cipher;
    } cases[] = {
        {"000102030405060708090a0b0c0d0e0f", "69c4e0d86a7b0430d8cdb78070b4c55a"},
        {"000102030405060708090a0b0c0d0e0f1011121314151617", "dda97ca4864cdfe06eaf70a0ec0d7191"},
        {"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", "8ea2b7ca516745bfeafc49904b496089"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.key);
        for (Path p : {Path::kOpenSsl, Path::kAesNi}) {
            Aes aes(hex(c.key), p);
            ASSERT_TRUE(aes.ok);
            std::uint8_t out[16];
            aes.cipher()(plain.data(), out);
            EXPECT_EQ(std::vector<std::uint8_t>(out, out + 16), hex(c.cipher))
                << (p == Path::kAesNi ? "AES-NI" : "OpenSSL");
        }
    }
}

// Random keys of every length and random blocks: AES-NI's block equals OpenSSL's.
TEST(AesNi, BlocksEqualOpenSsl) {
    if (!idgen::aes_ni::available()) GTEST_SKIP() << "this CPU has no AES-NI";
    std::mt19937_64 rng(7);
    for (std::size_t len : {16u, 24u, 32u}) {
        for (int k = 0; k < 50; ++k) {
            std::vector<std::uint8_t> key(len);
            for (auto& b : key) b = static_cast<std::uint8_t>(rng());
            Aes evp(key, Path::kOpenSsl), ni(key, Path::kAesNi);
            ASSERT_TRUE(evp.ok && ni.ok);
            for (int j = 0; j < 20; ++j) {
                std::uint8_t in[16], a[16], b[16];
                for (auto& x : in) x = static_cast<std::uint8_t>(rng());
                evp.cipher()(in, a);
                ni.cipher()(in, b);
                ASSERT_EQ(std::memcmp(a, b, 16), 0) << "key length " << len;
            }
        }
    }
}

// The inlined AES-NI permutation gives OpenSSL's values, for every width, tweaks ending inside a
// block, on a boundary and across blocks, and domains with and without cycle walking.
TEST(AesNi, PermutationEqualsOpenSsl) {
    if (!idgen::aes_ni::available()) GTEST_SKIP() << "this CPU has no AES-NI";
    std::mt19937_64 rng(11);
    for (std::size_t len : {16u, 24u, 32u}) {
        std::vector<std::uint8_t> key(len);
        for (auto& b : key) b = static_cast<std::uint8_t>(rng());
        Aes evp(key, Path::kOpenSsl), ni(key, Path::kAesNi);
        ASSERT_TRUE(evp.ok && ni.ok);
        for (std::size_t tlen : {0u, 5u, 11u, 12u, 16u, 40u}) {
            std::vector<std::uint8_t> tweak(tlen);
            for (auto& t : tweak) t = static_cast<std::uint8_t>(rng());
            for (unsigned n = 20; n <= 64; ++n) {
                ff1::BinaryPlan plan;
                ASSERT_EQ(ff1::make_binary_plan(evp.cipher(), tweak.data(), tlen, n, &plan), Error::kOk);
                for (int k = 0; k < 10; ++k) {
                    const std::uint64_t x = n == 64 ? rng() : rng() & ((std::uint64_t{1} << n) - 1);
                    const std::uint64_t y = evp.binary_encrypt(plan, x);
                    ASSERT_EQ(ni.binary_encrypt(plan, x), y) << "n=" << n << " x=" << x;
                    ASSERT_EQ(ni.binary_decrypt(plan, y), x) << "n=" << n;
                }
            }
            for (std::uint64_t domain : {std::uint64_t{1000000}, std::uint64_t{1000003},
                                         std::uint64_t{9007199254740991}, std::uint64_t{9223372036854775807}}) {
                ff1::DomainPlan plan;
                ASSERT_EQ(ff1::make_domain_plan(ni.cipher(), tweak.data(), tlen, domain, &plan), Error::kOk);
                for (int k = 0; k < 200; ++k) {
                    const std::uint64_t x = 1 + rng() % domain;
                    const auto a = evp.permute(plan, x), b = ni.permute(plan, x);
                    ASSERT_TRUE(a.ok() && b.ok());
                    ASSERT_EQ(*a, *b) << "domain=" << domain << " x=" << x;
                    ASSERT_EQ(*ni.unpermute(plan, *b), x);
                    ASSERT_EQ(*evp.unpermute(plan, *b), x);
                }
                EXPECT_EQ(ni.permute(plan, 0).error(), Error::kOutOfRange);
                EXPECT_EQ(ni.unpermute(plan, domain + 1).error(), Error::kOutOfRange);
            }
        }
    }
}

// Runs of consecutive values made together equal the values one by one, both ways, on domains
// where some values walk (10^6 on 20 bits, 1000003 on 20 bits) and where none do, up to the
// domain's last value; runs that would leave [1, domain] are refused.
TEST(AesNi, ConsecutiveRunsEqualOneByOne) {
    if (!idgen::aes_ni::available()) GTEST_SKIP() << "this CPU has no AES-NI";
    std::mt19937_64 rng(13);
    for (std::size_t len : {16u, 32u}) {
        std::vector<std::uint8_t> key(len);
        for (auto& b : key) b = static_cast<std::uint8_t>(rng());
        Aes evp(key, Path::kOpenSsl), ni(key, Path::kAesNi);
        ASSERT_TRUE(evp.ok && ni.ok);
        for (std::uint64_t domain : {std::uint64_t{1000000}, std::uint64_t{1000003}, std::uint64_t{1} << 20,
                                     std::uint64_t{9007199254740991}, std::uint64_t{9223372036854775807}}) {
            SCOPED_TRACE("domain=" + std::to_string(domain));
            ff1::DomainPlan plan;
            ASSERT_EQ(
                ff1::make_domain_plan(ni.cipher(), reinterpret_cast<const std::uint8_t*>("seq"), 3, domain, &plan),
                Error::kOk);
            std::vector<std::uint64_t> starts = {1, domain - idgen::aes_ni::kRun + 1};
            for (int k = 0; k < 300; ++k) starts.push_back(1 + rng() % (domain - idgen::aes_ni::kRun + 1));
            for (bool forward : {true, false}) {
                for (std::uint64_t x : starts) {
                    for (unsigned n : {1u, 3u, idgen::aes_ni::kRun}) {
                        std::uint64_t out[idgen::aes_ni::kRun] = {};
                        ASSERT_EQ(idgen::aes_ni::permute_consecutive(ni.ni, plan, x, n, forward, out), Error::kOk);
                        for (unsigned j = 0; j < n; ++j) {
                            const auto one = forward ? evp.permute(plan, x + j) : evp.unpermute(plan, x + j);
                            ASSERT_TRUE(one.ok());
                            ASSERT_EQ(out[j], *one) << "x=" << x << " j=" << j << " forward=" << forward;
                        }
                    }
                }
            }
            std::uint64_t out[idgen::aes_ni::kRun];
            EXPECT_EQ(idgen::aes_ni::permute_consecutive(ni.ni, plan, 0, 1, true, out), Error::kOutOfRange);
            EXPECT_EQ(idgen::aes_ni::permute_consecutive(ni.ni, plan, 1, 0, true, out), Error::kOutOfRange);
            EXPECT_EQ(idgen::aes_ni::permute_consecutive(ni.ni, plan, 1, idgen::aes_ni::kRun + 1, true, out),
                      Error::kOutOfRange);
            EXPECT_EQ(idgen::aes_ni::permute_consecutive(ni.ni, plan, domain, 2, false, out), Error::kOutOfRange);
            EXPECT_EQ(idgen::aes_ni::permute_consecutive(ni.ni, plan, domain + 1, 1, true, out), Error::kOutOfRange);
            EXPECT_EQ(idgen::aes_ni::permute_consecutive(ni.ni, plan, domain, 1, true, out), Error::kOk);
            EXPECT_EQ(out[0], *evp.permute(plan, domain));
        }
    }
}

// Only AES's key lengths; and nothing at all on a CPU without the instructions.
TEST(AesNi, ExpandKeyRefusesWhatItCannotServe) {
    std::vector<std::uint8_t> key(33, 1);
    idgen::aes_ni::Key k{};
    for (std::size_t len : {0u, 8u, 15u, 17u, 31u, 33u})
        EXPECT_FALSE(idgen::aes_ni::expand_key(key.data(), len, &k)) << len;
    EXPECT_EQ(idgen::aes_ni::expand_key(key.data(), 16, &k), idgen::aes_ni::available());
}

}  // namespace
