// id_gen core: NIST FF1 format-preserving encryption (SP 800-38G, section 5.1), the keyed
// permutation behind id_permute().
//
// FF1 is a 10-round Feistel network whose round function is AES in CBC-MAC mode over a block P
// that fixes the parameters (radix, lengths, tweak length) and a block string Q carrying the tweak,
// the round number and one half of the input. The block cipher is passed in (BlockCipher), so the
// core stays free of any library: src/core/permute/aes_evp.h supplies AES from OpenSSL.
//
// Two forms:
//   * encrypt()/decrypt(): numeral strings of any radix 2..65536, the specification's own form,
//     as long as each half fits in 64 bits (radix^ceil(n/2) <= 2^64). The NIST sample vectors run
//     through it.
//   * BinaryPlan: radix 2 on integers of n bits (20 <= n <= 64), with everything that does not
//     depend on the input computed once per key and tweak: the CBC-MAC state after P and after the
//     tweak's full blocks, and the constant bytes of Q's last block. A round then costs one AES
//     block. DomainPlan adds cycle walking to permute [1, N] for any N >= kMinDomain.
//
// Minimum domain: SP 800-38G Rev. 1 (second public draft, 2025) requires radix^minlen >= 1,000,000
// for FF1; the functions here refuse smaller domains (Error::kOutOfRange).
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/base/result.h"

namespace idgen::ff1 {

// One block (16 bytes) encrypted under a fixed key. `encrypt` must not fail or throw.
struct BlockCipher {
    using Fn = void (*)(const void* ctx, const std::uint8_t* in, std::uint8_t* out) noexcept;
    Fn encrypt;
    const void* ctx;
    void operator()(const std::uint8_t* in, std::uint8_t* out) const noexcept { encrypt(ctx, in, out); }
};

constexpr std::uint64_t kMinDomain = 1000000;  // radix^n >= 10^6 (SP 800-38G Rev. 1 draft)
constexpr std::size_t kMaxTweak = 256;         // bytes; the standard allows more, id_gen does not need it
constexpr std::size_t kMaxDigits = 128;        // numerals per string in encrypt()/decrypt()

// FF1 over numeral strings: `in` and `out` hold n numerals, each < radix (out may alias in).
// kInvalidSyntax: a numeral >= radix; kOutOfRange: radix, n or the tweak length outside what is
// supported (radix 2..65536, radix^n >= 10^6, radix^ceil(n/2) <= 2^64, tweak <= kMaxTweak).
[[nodiscard]] Error encrypt(const BlockCipher& aes, const std::uint8_t* tweak, std::size_t tweak_len, unsigned radix,
                            const std::uint16_t* in, std::size_t n, std::uint16_t* out) noexcept;
[[nodiscard]] Error decrypt(const BlockCipher& aes, const std::uint8_t* tweak, std::size_t tweak_len, unsigned radix,
                            const std::uint16_t* in, std::size_t n, std::uint16_t* out) noexcept;

// FF1 with radix 2 over n-bit integers, for one key and one tweak.
struct BinaryPlan {
    std::uint8_t h[16];  // CBC-MAC state after P and the blocks of Q before its last, XOR the
                         // constant bytes of the last block (its round and B bytes are zero here)
    std::uint8_t n, u, v, b;
};
// kOutOfRange: n outside [20, 64] or a tweak longer than kMaxTweak.
[[nodiscard]] Error make_binary_plan(const BlockCipher& aes, const std::uint8_t* tweak, std::size_t tweak_len,
                                     unsigned n, BinaryPlan* plan) noexcept;
// x < 2^n; the result is < 2^n. Equal to encrypt()/decrypt() on the n-bit big-endian numeral string.
[[nodiscard]] std::uint64_t binary_encrypt(const BlockCipher& aes, const BinaryPlan& plan, std::uint64_t x) noexcept;
[[nodiscard]] std::uint64_t binary_decrypt(const BlockCipher& aes, const BinaryPlan& plan, std::uint64_t x) noexcept;

// A permutation of [1, domain]: FF1 over the n bits that hold domain - 1, walking the cycle until
// the value falls below domain (Black and Rogaway, "Ciphers with Arbitrary Finite Domains", 2002).
struct DomainPlan {
    BinaryPlan ff1;
    std::uint64_t domain;
};
// kOutOfRange: domain < kMinDomain, or a tweak longer than kMaxTweak.
[[nodiscard]] Error make_domain_plan(const BlockCipher& aes, const std::uint8_t* tweak, std::size_t tweak_len,
                                     std::uint64_t domain, DomainPlan* plan) noexcept;
// kOutOfRange for x outside [1, domain]; otherwise a value in [1, domain].
[[nodiscard]] Result<std::uint64_t> permute(const BlockCipher& aes, const DomainPlan& plan, std::uint64_t x) noexcept;
[[nodiscard]] Result<std::uint64_t> unpermute(const BlockCipher& aes, const DomainPlan& plan, std::uint64_t x) noexcept;

// The number of bits FF1 works on for a domain: the bit length of domain - 1 (domain >= 2).
[[nodiscard]] unsigned domain_bits(std::uint64_t domain) noexcept;

}  // namespace idgen::ff1
