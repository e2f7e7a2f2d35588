// id_gen core: NanoID (random text over an alphabet, as the nanoid package makes it).
//
// Each character is an index into the alphabet drawn uniformly by mask-and-reject: a random byte
// is masked to the smallest all-ones mask that covers every index (2^k - 1 >= size - 1), and a
// masked value past the alphabet is dropped and another byte drawn. Never `byte % size`, which
// would favour the first 256 % size characters. Bytes come from a ByteSource in batches (the
// extension's and the library's are block-buffered kernel CSPRNG output), not one call per ID.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/base/entropy.h"
#include "core/base/result.h"

namespace idgen {

inline constexpr std::size_t kNanoidMinSize = 1;
inline constexpr std::size_t kNanoidMaxSize = 255;
inline constexpr std::size_t kNanoidDefaultSize = 21;
inline constexpr std::size_t kNanoidMinAlphabet = 2;
inline constexpr std::size_t kNanoidMaxAlphabet = 255;
// The URL-safe 64 characters (nanoid's default alphabet as a set; this order is ours).
inline constexpr char kNanoidDefaultAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";

enum class NanoidAlphabetCheck : std::uint8_t {
    kValid,
    kTooShort,   // fewer than 2 characters
    kTooLong,    // more than 255 characters
    kRepeated,   // a character appears twice
    kMultibyte,  // a byte of a multibyte character (>= 0x80 where multibyte characters exist)
    kNul,        // a zero byte
};

// A checked alphabet: its characters and the mask of its sampling.
struct NanoidAlphabet {
    std::uint8_t chars[kNanoidMaxAlphabet];
    std::uint16_t size;
    std::uint8_t mask;
    std::uint8_t repeated;  // the offending character of kRepeated
};

// Checks `n` bytes as an alphabet of 2 to 255 distinct single-byte characters. With
// `high_bytes_are_characters` false (a multibyte encoding such as UTF-8), bytes >= 0x80 are
// refused: they are parts of multibyte characters.
[[nodiscard]] NanoidAlphabetCheck nanoid_alphabet(const char* s, std::size_t n, bool high_bytes_are_characters,
                                                  NanoidAlphabet& out) noexcept;

// The mask for an alphabet of `size` (2..255) characters: 2^ceil(log2(size)) - 1.
[[nodiscard]] constexpr std::uint8_t nanoid_mask(std::size_t size) noexcept {
    std::uint32_t m = 1;
    while (m < size - 1) m = (m << 1) | 1;
    return static_cast<std::uint8_t>(m);
}

// Writes `size` (1..255) characters of `alphabet` to `out`: kOutOfRange for another size,
// kEntropyFailure if the source fails.
[[nodiscard]] Error nanoid_generate(const NanoidAlphabet& alphabet, std::size_t size, ByteSource& random,
                                    char* out) noexcept;

}  // namespace idgen
