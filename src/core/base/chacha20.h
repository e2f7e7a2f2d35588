// id_gen core: the ChaCha20 block function (RFC 8439 §2.3), the keystream generator behind
// EntropyPool (see entropy.h). Not a cipher API: no encryption, no MAC; the pool only asks for
// keystream blocks under a key it draws from the kernel CSPRNG and replaces after every batch.
#pragma once

#include <cstddef>
#include <cstdint>

namespace idgen {

inline constexpr std::size_t kChaCha20KeyLen = 32;
inline constexpr std::size_t kChaCha20NonceLen = 12;
inline constexpr std::size_t kChaCha20BlockLen = 64;

// Keystream blocks counter, counter + 1, ... (nblocks of them, 64 bytes each) of RFC 8439's ChaCha20
// under `key` (32 bytes) and `nonce` (12 bytes), written to `out`. The 32-bit block counter must not
// wrap: counter + nblocks <= 2^32. Several blocks at a time in vector registers (GCC/Clang vector
// extensions: eight with AVX2, detected at run time, four otherwise), the rest one at a time; every
// path gives RFC 8439's bytes (unit tests: the RFC's vectors and OpenSSL's keystream, per path).
enum class ChaCha20Path { kBest, kLanes8, kLanes4, kOneBlock };
void chacha20_blocks(const std::uint8_t* key, std::uint32_t counter, const std::uint8_t* nonce, std::uint8_t* out,
                     std::size_t nblocks, ChaCha20Path path = ChaCha20Path::kBest) noexcept;
// Whether this CPU can run `path` (kLanes8 needs AVX2 on x86-64; the others run anywhere).
[[nodiscard]] bool chacha20_has_path(ChaCha20Path path) noexcept;

}  // namespace idgen
