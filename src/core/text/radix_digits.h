// id_gen core: what base36 and base62 text share — an alphabet in ASCII order, its decode table,
// the all-characters check and fixed-width digit chunks of a 64-bit value. Internal to src/core
// (each codec's .cpp); the codecs themselves differ in width, case folding and range checks.
#pragma once

#include <cstddef>
#include <cstdint>

namespace idgen::radix {

// A radix-`Radix` alphabet. `digits` is in ASCII order (so text order = numeric order); with
// `fold_case` the upper-case form of each lower-case digit decodes to the same value.
template <unsigned Radix>
struct Alphabet {
    static constexpr std::uint8_t kNone = 0xFF;
    const char* digits;
    std::uint8_t value[256];

    constexpr Alphabet(const char* d, bool fold_case) : digits(d), value() {
        for (auto& x : value) x = kNone;
        for (unsigned i = 0; i < Radix; ++i) {
            const auto c = static_cast<unsigned char>(d[i]);
            value[c] = static_cast<std::uint8_t>(i);
            if (fold_case && c >= 'a' && c <= 'z') value[c - ('a' - 'A')] = static_cast<std::uint8_t>(i);
        }
    }

    // True when n >= 1 and every character is a digit. Looks at every character (no early exit).
    bool all_digits(const char* s, std::size_t n) const noexcept {
        if (n == 0) return false;
        std::uint8_t bad = 0;
        for (std::size_t i = 0; i < n; ++i)
            bad |= static_cast<std::uint8_t>(value[static_cast<unsigned char>(s[i])] == kNone);
        return bad == 0;
    }

    // The digit value of c, which all_digits has accepted.
    std::uint8_t digit(char c) const noexcept { return value[static_cast<unsigned char>(c)]; }

    // Writes the N low digits of v (v < Radix^N), zero-padded, no terminator.
    template <int N>
    void encode_low(std::uint64_t v, char* out) const noexcept {
        for (int i = N - 1; i >= 0; --i) {
            out[i] = digits[v % Radix];
            v /= Radix;
        }
    }

    // The value of n digits that fit in 64 bits, all accepted by all_digits.
    std::uint64_t decode_small(const char* s, std::size_t n) const noexcept {
        std::uint64_t v = 0;
        for (std::size_t i = 0; i < n; ++i) v = v * Radix + digit(s[i]);
        return v;
    }
};

}  // namespace idgen::radix
