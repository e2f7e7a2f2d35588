#include "core/permute/aes_ni.h"

#include <cstring>

#include "core/permute/ff1_walk.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

#include "core/base/no_pg_check.h"

namespace idgen::aes_ni {

#if defined(__x86_64__)

// Every function that uses the instructions carries the target attribute (the translation unit is
// compiled for plain x86-64); each is reached only after available() said yes.
#define IDGEN_AES_NI __attribute__((target("aes,ssse3")))

namespace {

bool detect() noexcept {
    unsigned a = 0, b = 0, c = 0, d = 0;
    return __get_cpuid(1, &a, &b, &c, &d) != 0 && (c & bit_AES) != 0 && (c & bit_SSSE3) != 0;
}

inline __m128i load(const std::uint8_t* p) noexcept { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }

// FIPS 197's SubWord, by the S-box of AESKEYGENASSIST (no table: no key-dependent memory access).
// The instruction substitutes the word in bits 32..63 into bits 0..31.
IDGEN_AES_NI std::uint32_t sub_word(std::uint32_t w) noexcept {
    const __m128i v = _mm_set_epi32(0, 0, static_cast<int>(w), 0);
    return static_cast<std::uint32_t>(_mm_cvtsi128_si32(_mm_aeskeygenassist_si128(v, 0)));
}

// FF1's radix-2 rounds (ff1.cpp's binary_encrypt/binary_decrypt, SP 800-38G Algorithm 7 with
// the plan's precomputation) on L values at once, with the Nr-round AES of each round in
// registers. The halves A and B live in the low 64 bits of vector registers, so a round never
// leaves them: the block is round i's constant (plan.h XOR [i] in its place XOR the first round
// key) XOR B byte-swapped into the block's last 8 bytes (B has b <= 4 bytes and [i] sits just
// before them); y is R's first 8 bytes byte-swapped back (d = 8 for every n in [20, 64]); then
// C = A + y or B - y mod 2^m. Within one value each round waits for the one before (ten AES
// blocks of latency); the L values' blocks are independent, so they share that wait: the AES
// units are pipelined (an AESENC issues every cycle or two and takes about four).
template <unsigned Nr, unsigned L>
IDGEN_AES_NI void binary_lanes(const Key& key, const ff1::BinaryPlan& plan, const std::uint64_t* x, std::uint64_t* out,
                               bool forward) noexcept {
    __m128i k[Nr + 1];
#pragma GCC unroll 15
    for (unsigned r = 0; r <= Nr; ++r) k[r] = load(key.round_keys[r]);
    // Byte-reversals of the low 64 bits into the high 64 bits, and of the low 64 bits in place.
    const __m128i to_tail = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, -1, -1, -1, -1, -1, -1, -1, -1);
    const __m128i from_head = _mm_set_epi8(-1, -1, -1, -1, -1, -1, -1, -1, 0, 1, 2, 3, 4, 5, 6, 7);
    const __m128i h = _mm_xor_si128(load(plan.h), k[0]);
    __m128i round_const[10];
    for (unsigned i = 0; i < 10; ++i) {
        const auto ib = static_cast<long long>(static_cast<std::uint64_t>(i) << (8 * plan.b));
        round_const[i] = _mm_xor_si128(h, _mm_shuffle_epi8(_mm_cvtsi64_si128(ib), to_tail));
    }
    const unsigned u = plan.u, v = plan.v;  // both <= 32
    const __m128i mask_u = _mm_cvtsi64_si128(static_cast<long long>((std::uint64_t{1} << u) - 1));
    const __m128i mask_v = _mm_cvtsi64_si128(static_cast<long long>((std::uint64_t{1} << v) - 1));
    __m128i a[L], b[L], s[L];
#pragma GCC unroll 8
    for (unsigned j = 0; j < L; ++j) {
        a[j] = _mm_cvtsi64_si128(static_cast<long long>(x[j] >> v));
        b[j] = _mm_cvtsi64_si128(static_cast<long long>(x[j] & ((std::uint64_t{1} << v) - 1)));
    }
#pragma GCC unroll 10
    for (unsigned k9 = 0; k9 < 10; ++k9) {
        const unsigned i = forward ? k9 : 9 - k9;
        const __m128i mask = i % 2 == 0 ? mask_u : mask_v;
        // Encrypting, B goes into the block; decrypting, A does.
#pragma GCC unroll 8
        for (unsigned j = 0; j < L; ++j)
            s[j] = _mm_xor_si128(round_const[i], _mm_shuffle_epi8(forward ? b[j] : a[j], to_tail));
#pragma GCC unroll 15
        for (unsigned r = 1; r < Nr; ++r)
#pragma GCC unroll 8
            for (unsigned j = 0; j < L; ++j) s[j] = _mm_aesenc_si128(s[j], k[r]);
#pragma GCC unroll 8
        for (unsigned j = 0; j < L; ++j) {
            const __m128i y = _mm_shuffle_epi8(_mm_aesenclast_si128(s[j], k[Nr]), from_head);
            if (forward) {
                const __m128i c = _mm_and_si128(_mm_add_epi64(a[j], y), mask);
                a[j] = b[j];
                b[j] = c;
            } else {
                const __m128i c = _mm_and_si128(_mm_sub_epi64(b[j], y), mask);
                b[j] = a[j];
                a[j] = c;
            }
        }
    }
#pragma GCC unroll 8
    for (unsigned j = 0; j < L; ++j)
        out[j] = (static_cast<std::uint64_t>(_mm_cvtsi128_si64(a[j])) << v) |
                 static_cast<std::uint64_t>(_mm_cvtsi128_si64(b[j]));
}

template <unsigned Nr>
IDGEN_AES_NI __attribute__((noinline)) std::uint64_t binary_nr(const Key& key, const ff1::BinaryPlan& plan,
                                                               std::uint64_t x, bool forward) noexcept {
    std::uint64_t y;
    binary_lanes<Nr, 1>(key, plan, &x, &y, forward);
    return y;
}

template <unsigned Nr>
IDGEN_AES_NI __attribute__((noinline)) Result<std::uint64_t> permute_nr(const Key& key, const ff1::DomainPlan& plan,
                                                                        std::uint64_t x, bool forward) noexcept {
    return ff1::walk::run(plan, x,
                          [&](std::uint64_t z) IDGEN_AES_NI { return binary_nr<Nr>(key, plan.ff1, z, forward); });
}

// kRun values at once; a value whose step leaves the domain walks on by itself (ff1_walk.h).
template <unsigned Nr>
IDGEN_AES_NI __attribute__((noinline)) void consecutive_nr(const Key& key, const ff1::DomainPlan& plan, std::uint64_t x,
                                                           unsigned n, bool forward, std::uint64_t* out) noexcept {
    std::uint64_t z[kRun], w[kRun];
    for (unsigned j = 0; j < kRun; ++j) z[j] = x - 1 + (j < n ? j : 0);  // lanes past n repeat the first
    binary_lanes<Nr, kRun>(key, plan.ff1, z, w, forward);
    for (unsigned j = 0; j < n; ++j) {
        while (w[j] >= plan.domain) w[j] = binary_nr<Nr>(key, plan.ff1, w[j], forward);
        out[j] = w[j] + 1;
    }
}

// The kernels above hold round keys and AES states in vector registers, and the compiler spills
// what does not fit in the sixteen of them to the stack. Each public function below calls one
// kernel (never inlined into it), then scrub_stack(), whose frame covers the kernel's and is
// wiped: no key material is left in the stack after a call. Optimised builds (gcc and clang, -O2
// and -O3) reach about 0.5 KB below the caller for one value and 1.2 KB for a run (a run calls
// the one-value rounds for a value that walks); the sizes leave twice that. Unoptimised builds
// use far more.
#ifdef __OPTIMIZE__
constexpr std::size_t kScrubOne = 1024, kScrubRun = 2048;
#else
constexpr std::size_t kScrubOne = 32768, kScrubRun = 32768;
#endif
template <std::size_t Bytes>
__attribute__((noinline)) void scrub_stack() noexcept {
    unsigned char area[Bytes];
    explicit_bzero(area, sizeof area);
    __asm__ __volatile__("" : : "r"(area) : "memory");
}

IDGEN_AES_NI void encrypt_block(const void* ctx, const std::uint8_t* in, std::uint8_t* out) noexcept {
    const Key& key = *static_cast<const Key*>(ctx);
    __m128i s = _mm_xor_si128(load(in), load(key.round_keys[0]));
    for (unsigned r = 1; r < key.rounds; ++r) s = _mm_aesenc_si128(s, load(key.round_keys[r]));
    s = _mm_aesenclast_si128(s, load(key.round_keys[key.rounds]));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), s);
}

// FIPS 197, section 5.2 (KeyExpansion), on little-endian words: word i holds bytes 4i..4i+3 of
// the schedule, so RotWord is a rotation right by 8 bits and Rcon's byte is the low one.
IDGEN_AES_NI void expand(const std::uint8_t* key, std::size_t len, Key* out) noexcept {
    const unsigned nk = static_cast<unsigned>(len / 4), nr = nk + 6, total = 4 * (nr + 1);
    std::uint32_t w[60];
    std::memcpy(w, key, len);
    std::uint32_t rcon = 1;
    for (unsigned i = nk; i < total; ++i) {
        std::uint32_t t = w[i - 1];
        if (i % nk == 0) {
            t = sub_word((t >> 8) | (t << 24)) ^ rcon;
            rcon = ((rcon << 1) ^ ((rcon & 0x80) != 0 ? 0x1B : 0)) & 0xFF;
        } else if (nk > 6 && i % nk == 4) {
            t = sub_word(t);
        }
        w[i] = w[i - nk] ^ t;
    }
    std::memcpy(out->round_keys, w, 4 * total);
    out->rounds = nr;
    explicit_bzero(w, sizeof w);
}

}  // namespace

bool available() noexcept {
    static const bool has = detect();
    return has;
}

bool expand_key(const std::uint8_t* key, std::size_t len, Key* out) noexcept {
    if (!available() || (len != 16 && len != 24 && len != 32)) return false;
    expand(key, len, out);
    return true;
}

ff1::BlockCipher block_cipher(const Key& key) noexcept { return ff1::BlockCipher{&encrypt_block, &key}; }

namespace {

std::uint64_t binary(const Key& key, const ff1::BinaryPlan& plan, std::uint64_t x, bool forward) noexcept {
    const std::uint64_t y = key.rounds == 10   ? binary_nr<10>(key, plan, x, forward)
                            : key.rounds == 12 ? binary_nr<12>(key, plan, x, forward)
                                               : binary_nr<14>(key, plan, x, forward);
    scrub_stack<kScrubOne>();
    return y;
}

Result<std::uint64_t> walk(const Key& key, const ff1::DomainPlan& plan, std::uint64_t x, bool forward) noexcept {
    const Result<std::uint64_t> y = key.rounds == 10   ? permute_nr<10>(key, plan, x, forward)
                                    : key.rounds == 12 ? permute_nr<12>(key, plan, x, forward)
                                                       : permute_nr<14>(key, plan, x, forward);
    scrub_stack<kScrubOne>();
    return y;
}

}  // namespace

std::uint64_t binary_encrypt(const Key& key, const ff1::BinaryPlan& plan, std::uint64_t x) noexcept {
    return binary(key, plan, x, true);
}

std::uint64_t binary_decrypt(const Key& key, const ff1::BinaryPlan& plan, std::uint64_t x) noexcept {
    return binary(key, plan, x, false);
}

Result<std::uint64_t> permute(const Key& key, const ff1::DomainPlan& plan, std::uint64_t x) noexcept {
    return walk(key, plan, x, true);
}

Result<std::uint64_t> unpermute(const Key& key, const ff1::DomainPlan& plan, std::uint64_t x) noexcept {
    return walk(key, plan, x, false);
}

Error permute_consecutive(const Key& key, const ff1::DomainPlan& plan, std::uint64_t x, unsigned n, bool forward,
                          std::uint64_t* out) noexcept {
    if (n < 1 || n > kRun || x < 1 || x > plan.domain || n - 1 > plan.domain - x) return Error::kOutOfRange;
    switch (key.rounds) {
        case 10: consecutive_nr<10>(key, plan, x, n, forward, out); break;
        case 12: consecutive_nr<12>(key, plan, x, n, forward, out); break;
        default: consecutive_nr<14>(key, plan, x, n, forward, out); break;
    }
    scrub_stack<kScrubRun>();
    return Error::kOk;
}

#else  // not x86-64: no AES-NI. expand_key() never succeeds, so nothing below is ever reached.

bool available() noexcept { return false; }

bool expand_key(const std::uint8_t*, std::size_t, Key*) noexcept { return false; }

ff1::BlockCipher block_cipher(const Key&) noexcept { __builtin_trap(); }

std::uint64_t binary_encrypt(const Key&, const ff1::BinaryPlan&, std::uint64_t) noexcept { __builtin_trap(); }
std::uint64_t binary_decrypt(const Key&, const ff1::BinaryPlan&, std::uint64_t) noexcept { __builtin_trap(); }
Result<std::uint64_t> permute(const Key&, const ff1::DomainPlan&, std::uint64_t) noexcept { __builtin_trap(); }
Result<std::uint64_t> unpermute(const Key&, const ff1::DomainPlan&, std::uint64_t) noexcept { __builtin_trap(); }
Error permute_consecutive(const Key&, const ff1::DomainPlan&, std::uint64_t, unsigned, bool, std::uint64_t*) noexcept {
    __builtin_trap();
}

#endif

}  // namespace idgen::aes_ni
