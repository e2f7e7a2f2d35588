// The ULID text codec against a deliberately naive reference: the 128 bits, preceded by two zero
// bits, read 5 at a time from the most significant end. Round-trip tests cannot catch a codec that
// is a bijection but the wrong one (e.g. groups swapped); this pins every bit position.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>

#include "core/types/ulid.h"

namespace {

constexpr char kAlphabet[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

int bit_at(const idgen::Ulid& u, int i) {  // i = 0 is the most significant of 128 bits
    return (u.bytes[i / 8] >> (7 - i % 8)) & 1;
}

std::string reference_format(const idgen::Ulid& u) {
    std::string out;
    for (int c = 0; c < 26; ++c) {
        int v = 0;
        for (int k = 0; k < 5; ++k) {
            const int pos = c * 5 + k - 2;  // two leading zero bits
            v = (v << 1) | (pos < 0 ? 0 : bit_at(u, pos));
        }
        out += kAlphabet[v];
    }
    return out;
}

idgen::Ulid single_bit(int i) {
    idgen::Ulid u{};
    u.bytes[i / 8] = static_cast<std::uint8_t>(0x80u >> (i % 8));
    return u;
}

std::string format(const idgen::Ulid& u) {
    char out[idgen::kUlidTextLen];
    idgen::ulid_format(u, out);
    return std::string(out, sizeof out);
}

TEST(UlidCodecReference, EverySingleBitFormatsAndParsesLikeTheReference) {
    for (int i = 0; i < 128; ++i) {
        const idgen::Ulid u = single_bit(i);
        const std::string ref = reference_format(u);
        ASSERT_EQ(format(u), ref) << "bit " << i;
        auto back = idgen::ulid_parse(ref.data(), ref.size());
        ASSERT_TRUE(back) << ref;
        ASSERT_EQ(std::string(reinterpret_cast<const char*>(back->bytes), 16),
                  std::string(reinterpret_cast<const char*>(u.bytes), 16))
            << "bit " << i;
    }
}

TEST(UlidCodecReference, RandomValuesMatchTheReference) {
    std::mt19937_64 rng(20240229);
    for (int n = 0; n < 100000; ++n) {
        idgen::Ulid u{};
        for (auto& b : u.bytes) b = static_cast<std::uint8_t>(rng());
        const std::string ref = reference_format(u);
        ASSERT_EQ(format(u), ref);
        auto back = idgen::ulid_parse(ref.data(), ref.size());
        ASSERT_TRUE(back);
        ASSERT_EQ(format(*back), ref);
    }
}

// Every character at every position: accepted exactly when it is a Crockford digit (either case),
// and the out-of-range rule applies to the first position only.
TEST(UlidCodecReference, EveryByteAtEveryPosition) {
    const std::string base = "01ARZ3NDEKTSV4RRFFQ69G5FAV";
    for (int pos = 0; pos < 26; ++pos) {
        for (int ch = 0; ch < 256; ++ch) {
            std::string s = base;
            s[pos] = static_cast<char>(ch);
            const char upper = (ch >= 'a' && ch <= 'z') ? static_cast<char>(ch - 32) : static_cast<char>(ch);
            const auto* found = ch == 0 ? nullptr : std::strchr(kAlphabet, upper);
            auto r = idgen::ulid_parse(s.data(), s.size());
            if (found == nullptr) {
                ASSERT_FALSE(r) << pos << " " << ch;
                ASSERT_EQ(r.error(), idgen::Error::kInvalidSyntax) << pos << " " << ch;
            } else if (pos == 0 && found - kAlphabet > 7) {
                ASSERT_FALSE(r) << ch;
                ASSERT_EQ(r.error(), idgen::Error::kOutOfRange) << ch;
            } else {
                ASSERT_TRUE(r) << pos << " " << ch;
                std::string expect = base;
                expect[pos] = upper;
                ASSERT_EQ(format(*r), expect);
            }
        }
    }
}

}  // namespace
