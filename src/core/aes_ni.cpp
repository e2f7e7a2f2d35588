#include "aes_ni.h"

#include <cstring>

#include "ff1_rounds.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

#include "no_pg_check.h"

namespace idgen::aes_ni {

#if defined(__x86_64__)

// Every function that uses the instructions carries the target attribute (the translation unit is
// compiled for plain x86-64); each is reached only after available() said yes.
#define IDGEN_AES_NI __attribute__((target("aes")))

namespace {

bool detect() noexcept {
    unsigned a = 0, b = 0, c = 0, d = 0;
    return __get_cpuid(1, &a, &b, &c, &d) != 0 && (c & bit_AES) != 0;
}

inline __m128i load(const std::uint8_t* p) noexcept { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }

// FIPS 197's SubWord, by the S-box of AESKEYGENASSIST (no table: no key-dependent memory access).
// The instruction substitutes the word in bits 32..63 into bits 0..31.
IDGEN_AES_NI std::uint32_t sub_word(std::uint32_t w) noexcept {
    const __m128i v = _mm_set_epi32(0, 0, static_cast<int>(w), 0);
    return static_cast<std::uint32_t>(_mm_cvtsi128_si32(_mm_aeskeygenassist_si128(v, 0)));
}

// The round keys of an Nr-round AES, loaded into registers once per call.
template <unsigned Nr>
struct Schedule {
    __m128i k[Nr + 1];
    IDGEN_AES_NI explicit Schedule(const Key& key) noexcept {
#pragma GCC unroll 15
        for (unsigned r = 0; r <= Nr; ++r) k[r] = load(key.round_keys[r]);
    }
    // AES of a block that is already XORed with the first round key.
    IDGEN_AES_NI __m128i finish(__m128i s) const noexcept {
#pragma GCC unroll 15
        for (unsigned r = 1; r < Nr; ++r) s = _mm_aesenc_si128(s, k[r]);
        return _mm_aesenclast_si128(s, k[Nr]);
    }
};

// The round function of ff1_rounds.h. The block is plan.h with the round's tail XORed into its
// last 8 bytes (big-endian, so byte-swapped into the high half of the register); plan.h and the
// first round key are XORed once per call.
template <unsigned Nr>
struct Round {
    const Schedule<Nr>& s;
    __m128i h;
    const ff1::BinaryPlan& plan;
    IDGEN_AES_NI Round(const Schedule<Nr>& schedule, const ff1::BinaryPlan& p) noexcept
        : s(schedule), h(_mm_xor_si128(load(p.h), schedule.k[0])), plan(p) {}
    IDGEN_AES_NI std::uint64_t operator()(unsigned i, std::uint64_t half) const noexcept {
        const std::uint64_t t = __builtin_bswap64(ff1::rounds::tail(plan, i, half));
        const __m128i r = s.finish(_mm_xor_si128(h, _mm_set_epi64x(static_cast<long long>(t), 0)));
        return __builtin_bswap64(static_cast<std::uint64_t>(_mm_cvtsi128_si64(r)));  // R's first 8 bytes
    }
};

// flatten: the rounds of ff1_rounds.h and the AES of each are inlined here, where the target
// attribute allows the instructions, so the round keys stay in registers across all ten rounds.
template <unsigned Nr>
IDGEN_AES_NI __attribute__((flatten)) std::uint64_t binary_nr(const Key& key, const ff1::BinaryPlan& plan,
                                                                std::uint64_t x, bool forward) noexcept {
    const Schedule<Nr> s(key);
    Round<Nr> y(s, plan);
    return forward ? ff1::rounds::binary_encrypt(plan, x, y) : ff1::rounds::binary_decrypt(plan, x, y);
}

template <unsigned Nr>
IDGEN_AES_NI __attribute__((flatten)) Result<std::uint64_t> permute_nr(const Key& key, const ff1::DomainPlan& plan,
                                                                         std::uint64_t x, bool forward) noexcept {
    const Schedule<Nr> s(key);
    Round<Nr> y(s, plan.ff1);
    return forward ? ff1::rounds::permute(plan, x, y) : ff1::rounds::unpermute(plan, x, y);
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

std::uint64_t binary_encrypt(const Key& key, const ff1::BinaryPlan& plan, std::uint64_t x) noexcept {
    switch (key.rounds) {
        case 10: return binary_nr<10>(key, plan, x, true);
        case 12: return binary_nr<12>(key, plan, x, true);
        default: return binary_nr<14>(key, plan, x, true);
    }
}

std::uint64_t binary_decrypt(const Key& key, const ff1::BinaryPlan& plan, std::uint64_t x) noexcept {
    switch (key.rounds) {
        case 10: return binary_nr<10>(key, plan, x, false);
        case 12: return binary_nr<12>(key, plan, x, false);
        default: return binary_nr<14>(key, plan, x, false);
    }
}

Result<std::uint64_t> permute(const Key& key, const ff1::DomainPlan& plan, std::uint64_t x) noexcept {
    switch (key.rounds) {
        case 10: return permute_nr<10>(key, plan, x, true);
        case 12: return permute_nr<12>(key, plan, x, true);
        default: return permute_nr<14>(key, plan, x, true);
    }
}

Result<std::uint64_t> unpermute(const Key& key, const ff1::DomainPlan& plan, std::uint64_t x) noexcept {
    switch (key.rounds) {
        case 10: return permute_nr<10>(key, plan, x, false);
        case 12: return permute_nr<12>(key, plan, x, false);
        default: return permute_nr<14>(key, plan, x, false);
    }
}

#else  // not x86-64: no AES-NI. expand_key() never succeeds, so nothing below is ever reached.

bool available() noexcept { return false; }

bool expand_key(const std::uint8_t*, std::size_t, Key*) noexcept { return false; }

ff1::BlockCipher block_cipher(const Key&) noexcept { __builtin_trap(); }

std::uint64_t binary_encrypt(const Key&, const ff1::BinaryPlan&, std::uint64_t) noexcept { __builtin_trap(); }
std::uint64_t binary_decrypt(const Key&, const ff1::BinaryPlan&, std::uint64_t) noexcept { __builtin_trap(); }
Result<std::uint64_t> permute(const Key&, const ff1::DomainPlan&, std::uint64_t) noexcept { __builtin_trap(); }
Result<std::uint64_t> unpermute(const Key&, const ff1::DomainPlan&, std::uint64_t) noexcept { __builtin_trap(); }

#endif

}  // namespace idgen::aes_ni
