// libFuzzer target: the KSUID text parser, formatter and generator.
// Invariants: never crash; an input is accepted exactly when it is 27 characters of 0-9A-Za-z whose
// value fits 160 bits (else kInvalidSyntax for the shape, kOutOfRange for the value), and then
// formats back to the same text; any 20 bytes format to text that parses back to them; text order
// of two formatted IDs is their byte order; a generator driven by the input's bytes and clock
// readings gives strictly increasing IDs.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/base/entropy.h"
#include "core/types/ksuid.h"

namespace {

bool is_b62(char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

class InputBytes final : public idgen::ByteSource {
public:
    InputBytes(const std::uint8_t* d, std::size_t n) : d_(d), n_(n) {}
    bool fill(std::uint8_t* out, std::size_t n) noexcept override {
        for (std::size_t i = 0; i < n; ++i) out[i] = pos_ < n_ ? d_[pos_++] : 0xFF;
        return true;
    }

private:
    const std::uint8_t* d_;
    std::size_t n_;
    std::size_t pos_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const char* s = reinterpret_cast<const char*>(data);
    bool shape = size == idgen::kKsuidTextLen;
    for (std::size_t i = 0; shape && i < size; ++i) shape = is_b62(s[i]);
    auto parsed = idgen::ksuid_parse(s, size);
    if (!shape && (parsed.ok() || parsed.error() != idgen::Error::kInvalidSyntax)) __builtin_trap();
    if (shape) {
        const bool in_range = std::memcmp(s, "aWgEPTl1tmebfsQzFP4bxwgy80V", 27) <= 0;
        if (parsed.ok() != in_range) __builtin_trap();
        if (!parsed.ok() && parsed.error() != idgen::Error::kOutOfRange) __builtin_trap();
        if (parsed.ok()) {
            char back[27];
            idgen::ksuid_format(*parsed, back);
            if (std::memcmp(back, s, 27) != 0) __builtin_trap();
        }
    }
    if (size >= 40) {
        idgen::Ksuid a, b;
        std::memcpy(a.bytes, data, 20);
        std::memcpy(b.bytes, data + 20, 20);
        char ta[27], tb[27];
        idgen::ksuid_format(a, ta);
        idgen::ksuid_format(b, tb);
        auto back = idgen::ksuid_parse(ta, 27);
        if (!back.ok() || std::memcmp(back->bytes, a.bytes, 20) != 0) __builtin_trap();
        const int c = std::memcmp(a.bytes, b.bytes, 20), t = std::memcmp(ta, tb, 27);
        if ((c < 0) != (t < 0) || (c == 0) != (t == 0)) __builtin_trap();
    }
    if (size >= 16) {
        InputBytes random(data, size);
        idgen::KsuidGenerator g;
        idgen::Ksuid prev{};
        bool have = false;
        for (std::size_t i = 0; i < size && i < 64; ++i) {
            auto id = g.next(1600000000 + static_cast<std::int8_t>(data[i]), random);
            if (!id.ok()) __builtin_trap();
            if (have && std::memcmp(prev.bytes, id->bytes, 20) >= 0) __builtin_trap();
            prev = *id;
            have = true;
        }
    }
    return 0;
}
