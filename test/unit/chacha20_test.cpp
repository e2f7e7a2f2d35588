// ChaCha20 (RFC 8439), the keystream behind EntropyPool: the RFC's known answers, the eight-block
// vector path against the one-block path and against OpenSSL's ChaCha20, and the pool's output
// properties that depend on it (no batch repeats, keys differ across owners).
#include "core/base/chacha20.h"
#include "core/base/entropy.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace {

std::vector<std::uint8_t> hex(const std::string& s) {
    std::vector<std::uint8_t> out;
    for (std::size_t i = 0; i + 1 < s.size(); i += 2)
        out.push_back(static_cast<std::uint8_t>(std::stoul(s.substr(i, 2), nullptr, 16)));
    return out;
}

std::vector<std::uint8_t> keystream(const std::vector<std::uint8_t>& key, std::uint32_t counter,
                                    const std::vector<std::uint8_t>& nonce, std::size_t nblocks,
                                    idgen::ChaCha20Path path = idgen::ChaCha20Path::kBest) {
    std::vector<std::uint8_t> out(nblocks * idgen::kChaCha20BlockLen);
    idgen::chacha20_blocks(key.data(), counter, nonce.data(), out.data(), nblocks, path);
    return out;
}

constexpr idgen::ChaCha20Path kPaths[] = {idgen::ChaCha20Path::kBest, idgen::ChaCha20Path::kLanes8,
                                          idgen::ChaCha20Path::kLanes4, idgen::ChaCha20Path::kOneBlock};

// OpenSSL's ChaCha20: a 16-byte IV of the 32-bit counter (little-endian) then the 12-byte nonce.
std::vector<std::uint8_t> openssl_keystream(const std::vector<std::uint8_t>& key, std::uint32_t counter,
                                            const std::vector<std::uint8_t>& nonce, std::size_t nblocks) {
    std::uint8_t iv[16];
    for (int i = 0; i < 4; ++i) iv[i] = static_cast<std::uint8_t>(counter >> (8 * i));
    std::memcpy(iv + 4, nonce.data(), 12);
    std::vector<std::uint8_t> zeros(nblocks * 64), out(nblocks * 64);
    EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
    int len = 0;
    EXPECT_EQ(EVP_EncryptInit_ex(ctx, EVP_chacha20(), nullptr, key.data(), iv), 1);
    EXPECT_EQ(EVP_EncryptUpdate(ctx, out.data(), &len, zeros.data(), static_cast<int>(zeros.size())), 1);
    EVP_CIPHER_CTX_free(ctx);
    return out;
}

std::vector<std::uint8_t> key_0_to_31() {
    std::vector<std::uint8_t> k(32);
    for (int i = 0; i < 32; ++i) k[i] = static_cast<std::uint8_t>(i);
    return k;
}

}  // namespace

// RFC 8439 §2.3.2: the block function's test vector.
TEST(ChaCha20, Rfc8439BlockFunctionVector) {
    EXPECT_EQ(keystream(key_0_to_31(), 1, hex("000000090000004a00000000"), 1),
              hex("10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
                  "d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e"));
}

// RFC 8439 §2.4.2: the encryption example; its keystream is plaintext XOR ciphertext.
TEST(ChaCha20, Rfc8439EncryptionExampleKeystream) {
    const std::string plain =
        "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would "
        "be it.";
    const auto cipher =
        hex("6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0bf91b65c5524733ab8f593dabcd62b357"
            "1639d624e65152ab8f530c359f0861d807ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab7793736"
            "5af90bbf74a35be6b40b8eedf2785e42874d");
    ASSERT_EQ(cipher.size(), plain.size());
    const auto ks = keystream(key_0_to_31(), 1, hex("000000000000004a00000000"), 2);
    for (std::size_t i = 0; i < plain.size(); ++i)
        EXPECT_EQ(static_cast<std::uint8_t>(plain[i] ^ ks[i]), cipher[i]) << "byte " << i;
}

// RFC 8439 Appendix A.1, test vector #1: all-zero key and nonce, counter 0; as the first of 16
// blocks through every path (the vector paths put it in lane 0).
TEST(ChaCha20, Rfc8439AppendixA1Vector1) {
    const auto expected =
        hex("76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7"
            "da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586");
    for (const auto path : kPaths) {
        const auto ks = keystream(std::vector<std::uint8_t>(32), 0, std::vector<std::uint8_t>(12), 16, path);
        EXPECT_EQ(std::vector<std::uint8_t>(ks.begin(), ks.begin() + 64), expected) << static_cast<int>(path);
    }
}

// Every path (eight lanes with AVX2, four lanes, one block at a time) gives OpenSSL's keystream
// and the same bytes as blocks made one at a time, for random keys, nonces and counters, over
// lengths that mix the vector and the one-block loops; and the RFC's 16-block run (Appendix A.1's
// key) through each path.
TEST(ChaCha20, EveryPathMatchesOneBlockPathAndOpenSsl) {
    if (!idgen::chacha20_has_path(idgen::ChaCha20Path::kLanes8))
        std::printf("note: no AVX2 here, the eight-lane path falls back to four\n");
    std::mt19937_64 rng(20);
    for (int round = 0; round < 200; ++round) {
        const idgen::ChaCha20Path path = kPaths[round % 4];
        std::vector<std::uint8_t> key(32), nonce(12);
        for (auto& b : key) b = static_cast<std::uint8_t>(rng());
        for (auto& b : nonce) b = static_cast<std::uint8_t>(rng());
        const auto counter = static_cast<std::uint32_t>(rng() % 1000000);
        const std::size_t n = 1 + rng() % 30;
        const auto all = keystream(key, counter, nonce, n, path);
        for (std::size_t b = 0; b < n; ++b) {
            const auto one =
                keystream(key, counter + static_cast<std::uint32_t>(b), nonce, 1, idgen::ChaCha20Path::kOneBlock);
            ASSERT_EQ(0, std::memcmp(one.data(), all.data() + 64 * b, 64)) << "block " << b << " of " << n;
        }
        EXPECT_EQ(all, openssl_keystream(key, counter, nonce, n));
    }
}

// The pool's output over several reseeds (kReseedBytes each): no 16-byte chunk repeats (a batch made
// twice under one key, or a key not replaced, would repeat 4 KiB), and each byte value's count is
// within a loose bound of uniform (a zeroed or half-filled buffer would not be).
TEST(EntropyPoolChaCha, NoChunkRepeatsAcrossBatchesAndReseeds) {
    idgen::EntropyPool pool;
    pool.set_owner(1);
    const std::size_t total = 3 * idgen::EntropyPool::kReseedBytes + 1000;
    std::vector<std::uint8_t> out(total);
    for (std::size_t at = 0; at < total;) {
        const std::size_t n = std::min<std::size_t>(total - at, 1 + at % 37);  // odd sizes cross batch edges
        ASSERT_TRUE(pool.fill(out.data() + at, n));
        at += n;
    }
    std::set<std::string> chunks;
    for (std::size_t at = 0; at + 16 <= total; at += 16)
        ASSERT_TRUE(chunks.insert(std::string(reinterpret_cast<const char*>(out.data() + at), 16)).second)
            << "at " << at;
    std::vector<std::size_t> count(256);
    for (auto b : out) ++count[b];
    const double expected = static_cast<double>(total) / 256;
    for (int v = 0; v < 256; ++v) {
        EXPECT_GT(count[v], expected * 0.95) << v;
        EXPECT_LT(count[v], expected * 1.05) << v;
    }
}

// Two pools (two backends) never share a key: their first batches differ, as do the batches of one
// pool's copy after an owner change (fork), past the first refill too.
TEST(EntropyPoolChaCha, PoolsAndForkedCopiesDiffer) {
    idgen::EntropyPool a, b;
    a.set_owner(1);
    b.set_owner(2);
    std::vector<std::uint8_t> x(10000), y(10000);
    ASSERT_TRUE(a.fill(x.data(), x.size()));
    ASSERT_TRUE(b.fill(y.data(), y.size()));
    EXPECT_NE(x, y);
    idgen::EntropyPool child = a;
    child.set_owner(3);
    ASSERT_TRUE(a.fill(x.data(), x.size()));
    ASSERT_TRUE(child.fill(y.data(), y.size()));
    EXPECT_NE(x, y);
    // An unchanged copy repeats (so the difference above is the reseed, not chance).
    idgen::EntropyPool same = a;
    same.set_owner(1);
    ASSERT_TRUE(a.fill(x.data(), x.size()));
    ASSERT_TRUE(same.fill(y.data(), y.size()));
    EXPECT_EQ(x, y);
}

// Between kernel keys the pool is a deterministic generator (a copy repeats it), and a new kernel key
// is drawn exactly after kReseedBytes: two copies agree on the last batch of a MiB and differ from the
// next byte on.
TEST(EntropyPoolChaCha, NewKernelKeyEveryReseedBytes) {
    idgen::EntropyPool pool;
    pool.set_owner(1);
    std::vector<std::uint8_t> sink(idgen::EntropyPool::kReseedBytes - idgen::EntropyPool::kBlock);
    ASSERT_TRUE(pool.fill(sink.data(), sink.size()));  // 255 batches
    idgen::EntropyPool copy = pool;
    std::vector<std::uint8_t> x(idgen::EntropyPool::kBlock), y(idgen::EntropyPool::kBlock);
    ASSERT_TRUE(pool.fill(x.data(), x.size()));
    ASSERT_TRUE(copy.fill(y.data(), y.size()));
    EXPECT_EQ(x, y);  // the 256th batch: the same key chain
    x.resize(64);
    y.resize(64);
    ASSERT_TRUE(pool.fill(x.data(), x.size()));
    ASSERT_TRUE(copy.fill(y.data(), y.size()));
    EXPECT_NE(x, y);  // the next batch: each drew its own kernel key
}
