#include "core/types/nanoid.h"

#include <cstring>

#include "core/base/no_pg_check.h"

namespace idgen {

NanoidAlphabetCheck nanoid_alphabet(const char* s, std::size_t n, bool high_bytes_are_characters,
                                    NanoidAlphabet& out) noexcept {
    std::memset(&out, 0, sizeof out);
    if (n < kNanoidMinAlphabet) return NanoidAlphabetCheck::kTooShort;
    if (n > kNanoidMaxAlphabet) return NanoidAlphabetCheck::kTooLong;
    bool seen[256] = {};
    for (std::size_t i = 0; i < n; ++i) {
        const auto c = static_cast<std::uint8_t>(s[i]);
        if (c == 0) return NanoidAlphabetCheck::kNul;
        if (c >= 0x80 && !high_bytes_are_characters) return NanoidAlphabetCheck::kMultibyte;
        if (seen[c]) {
            out.repeated = c;
            return NanoidAlphabetCheck::kRepeated;
        }
        seen[c] = true;
        out.chars[i] = c;
    }
    out.size = static_cast<std::uint16_t>(n);
    out.mask = nanoid_mask(n);
    return NanoidAlphabetCheck::kValid;
}

Error nanoid_generate(const NanoidAlphabet& alphabet, std::size_t size, ByteSource& random, char* out) noexcept {
    if (size < kNanoidMinSize || size > kNanoidMaxSize) return Error::kOutOfRange;
    if (alphabet.size < kNanoidMinAlphabet || alphabet.size > kNanoidMaxAlphabet) return Error::kOutOfRange;
    // Accepted bytes per byte drawn: size / (mask + 1) (> 1/2). Draw enough for the whole ID in
    // the common case, in one call: the expected count times 1.6, as nanoid's customRandom does.
    std::uint8_t buf[2 * kNanoidMaxSize];
    const std::size_t want = (size * (alphabet.mask + 1u) * 8u) / (alphabet.size * 5u) + 1;
    const std::size_t step = want < sizeof buf ? want : sizeof buf;
    std::size_t done = 0;
    while (done < size) {
        if (!random.fill(buf, step)) return Error::kEntropyFailure;
        for (std::size_t i = 0; i < step && done < size; ++i) {
            const std::uint8_t idx = buf[i] & alphabet.mask;
            if (idx < alphabet.size) out[done++] = static_cast<char>(alphabet.chars[idx]);
        }
    }
    // Unused bytes of the batch are dropped (they are erased from the source's block already).
    std::memset(buf, 0, step);
    return Error::kOk;
}

}  // namespace idgen
