// id_gen core: AES with the x86-64 AES-NI instructions, for FF1 (src/core/permute/ff1.h).
//
// FF1's ten rounds are ten AES blocks, each waiting for the one before. Through a library call a
// block costs its call, the copies in and out of memory and the library's dispatch; here the
// round keys stay in registers for a whole permutation and each round's block is built, encrypted
// and read back without leaving them (aes_ni.cpp: FF1's radix-2 rounds written for registers;
// the cycle walking is ff1_walk.h, shared with the portable path in ff1.cpp). The stack the
// computation spills to is wiped before each function returns.
//
// The instructions are used only where the CPU has them: available() asks CPUID once. The unit is
// compiled with per-function target attributes, so the build needs no -maes and the rest of the
// code runs on any x86-64 (and on other architectures, where available() is false). OpenSSL
// (src/core/permute/aes_evp.h) stays the fallback, and the tests check one against the other.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/base/result.h"
#include "core/permute/ff1.h"

namespace idgen::aes_ni {

// Round keys of AES-128, -192 or -256 (10, 12 or 14 rounds). Key material: the owner wipes it.
struct Key {
    alignas(16) std::uint8_t round_keys[15][16];
    unsigned rounds;
};

// The CPU has AES-NI and SSSE3 (CPUID leaf 1, ECX bits 25 and 9). False on other architectures.
[[nodiscard]] bool available() noexcept;

// Expands a 16-, 24- or 32-byte key. False (and *out untouched) when !available() or for
// another length.
[[nodiscard]] bool expand_key(const std::uint8_t* key, std::size_t len, Key* out) noexcept;

// The key as a BlockCipher, for the general algorithm and for making plans. Only for a Key filled
// by expand_key() (so only where available()).
[[nodiscard]] ff1::BlockCipher block_cipher(const Key& key) noexcept;

// ff1::binary_encrypt/decrypt and ff1::permute/unpermute with the cipher inlined into the rounds:
// the same values as those functions with block_cipher(key), or with OpenSSL under the same key.
// Only for a Key filled by expand_key().
[[nodiscard]] std::uint64_t binary_encrypt(const Key& key, const ff1::BinaryPlan& plan, std::uint64_t x) noexcept;
[[nodiscard]] std::uint64_t binary_decrypt(const Key& key, const ff1::BinaryPlan& plan, std::uint64_t x) noexcept;
[[nodiscard]] Result<std::uint64_t> permute(const Key& key, const ff1::DomainPlan& plan, std::uint64_t x) noexcept;
[[nodiscard]] Result<std::uint64_t> unpermute(const Key& key, const ff1::DomainPlan& plan, std::uint64_t x) noexcept;

// The permutation (forward) or its inverse of the n consecutive values x, x + 1, ..., x + n - 1,
// into out[0..n-1], in about the time of one: a value's ten AES blocks are one chain, each
// waiting for the one before, while the chains of different values overlap in the AES units.
// kOutOfRange unless 1 <= n <= kRun and all n values are in [1, domain]. For callers that can
// expect the next values to be asked for (a sequence feeding id_permute()).
constexpr unsigned kRun = 8;
[[nodiscard]] Error permute_consecutive(const Key& key, const ff1::DomainPlan& plan, std::uint64_t x, unsigned n,
                                        bool forward, std::uint64_t* out) noexcept;

}  // namespace idgen::aes_ni
