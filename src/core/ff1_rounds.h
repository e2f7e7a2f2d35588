// id_gen core: the rounds of FF1's radix-2 path and the cycle walking of the [1, N] permutation,
// written once over the round function. Internal to ff1.cpp (AES through an ff1::BlockCipher)
// and aes_ni.cpp (AES-NI instructions inlined into the rounds).
//
// The round function y(i, half) is PRF's output for round i, whose last block of Q ends with [i]
// and the b <= 4 bytes of `half`: the first 8 bytes, big-endian, of
//     AES(plan.h XOR (0^8 || [ (i << 8b) XOR half ]^8))
// (d = 8 for every n in [20, 64], so y is those 8 bytes). Everything else of the block was folded
// into plan.h by make_binary_plan().
#pragma once

#include <cstdint>

#include "ff1.h"

namespace idgen::ff1::rounds {

inline std::uint64_t mask(unsigned bits) noexcept {
    return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
}

// The value XORed into the last 8 bytes (big-endian) of plan.h in round i.
inline std::uint64_t tail(const BinaryPlan& plan, unsigned i, std::uint64_t half) noexcept {
    return (static_cast<std::uint64_t>(i) << (8 * plan.b)) ^ half;
}

template <class Y>
inline std::uint64_t binary_encrypt(const BinaryPlan& plan, std::uint64_t x, Y& y) noexcept {
    const unsigned u = plan.u, v = plan.v;
    std::uint64_t a = x >> v, b = x & mask(v);
    for (unsigned i = 0; i < 10; ++i) {
        const unsigned m = (i % 2 == 0) ? u : v;
        const std::uint64_t c = (a + y(i, b)) & mask(m);
        a = b;
        b = c;
    }
    return (a << v) | b;
}

template <class Y>
inline std::uint64_t binary_decrypt(const BinaryPlan& plan, std::uint64_t x, Y& y) noexcept {
    const unsigned u = plan.u, v = plan.v;
    std::uint64_t a = x >> v, b = x & mask(v);
    for (unsigned i = 10; i-- > 0;) {
        const unsigned m = (i % 2 == 0) ? u : v;
        const std::uint64_t c = (b - y(i, a)) & mask(m);
        b = a;
        a = c;
    }
    return (a << v) | b;
}

// Cycle walking ends: the cycle through x - 1 (< domain) comes back to it.
template <class Y>
inline Result<std::uint64_t> permute(const DomainPlan& plan, std::uint64_t x, Y& y) noexcept {
    if (x < 1 || x > plan.domain) return Error::kOutOfRange;
    std::uint64_t z = x - 1;
    do {
        z = binary_encrypt(plan.ff1, z, y);
    } while (z >= plan.domain);
    return z + 1;
}

template <class Y>
inline Result<std::uint64_t> unpermute(const DomainPlan& plan, std::uint64_t x, Y& y) noexcept {
    if (x < 1 || x > plan.domain) return Error::kOutOfRange;
    std::uint64_t z = x - 1;
    do {
        z = binary_decrypt(plan.ff1, z, y);
    } while (z >= plan.domain);
    return z + 1;
}

}  // namespace idgen::ff1::rounds
