// id_gen core: the cycle walking of the [1, N] permutation (Black and Rogaway, "Ciphers with
// Arbitrary Finite Domains", 2002), written once over FF1 on the domain's bits. Internal to
// ff1.cpp (AES through an ff1::BlockCipher) and aes_ni.cpp (AES-NI in registers).
#pragma once

#include <cstdint>

#include "core/permute/ff1.h"

namespace idgen::ff1::walk {

// `step` is FF1 (or its inverse) on plan.ff1.n bits. The walk ends: the cycle through x - 1
// (< domain) comes back to it.
template <class Step>
inline Result<std::uint64_t> run(const DomainPlan& plan, std::uint64_t x, const Step& step) noexcept {
    if (x < 1 || x > plan.domain) return Error::kOutOfRange;
    std::uint64_t z = x - 1;
    do {
        z = step(z);
    } while (z >= plan.domain);
    return z + 1;
}

}  // namespace idgen::ff1::walk
