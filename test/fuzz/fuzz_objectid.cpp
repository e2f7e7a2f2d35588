// libFuzzer target: the ObjectId text parser, formatter and generator.
// Invariants: never crash; an input is accepted exactly when it is 24 characters of 0-9a-fA-F, and
// then formats back to the same text in lower case; any 12 bytes format to text that parses back
// to them; the text order (bytewise) of two formatted IDs is their byte order; a generator driven
// by the input's bytes gives distinct IDs whose timestamps never go back.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/base/entropy.h"
#include "core/types/objectid.h"

namespace {

bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

// Hands out the fuzzer's bytes (zeros once they run out).
class InputBytes final : public idgen::ByteSource {
public:
    InputBytes(const std::uint8_t* d, std::size_t n) : d_(d), n_(n) {}
    bool fill(std::uint8_t* out, std::size_t n) noexcept override {
        for (std::size_t i = 0; i < n; ++i) out[i] = pos_ < n_ ? d_[pos_++] : 0;
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

    bool shape = size == idgen::kObjectIdTextLen;
    for (std::size_t i = 0; shape && i < size; ++i) shape = is_hex(s[i]);
    auto parsed = idgen::objectid_parse(s, size);
    if (parsed.ok() != shape) __builtin_trap();
    if (!parsed.ok() && parsed.error() != idgen::Error::kInvalidSyntax) __builtin_trap();
    if (parsed.ok()) {
        char back[idgen::kObjectIdTextLen];
        idgen::objectid_format(*parsed, back);
        for (std::size_t i = 0; i < size; ++i)
            if (back[i] != lower(s[i])) __builtin_trap();
    }

    if (size >= 24) {
        idgen::ObjectId a, b;
        std::memcpy(a.bytes, data, 12);
        std::memcpy(b.bytes, data + 12, 12);
        char ta[24], tb[24];
        idgen::objectid_format(a, ta);
        idgen::objectid_format(b, tb);
        auto back = idgen::objectid_parse(ta, sizeof ta);
        if (!back.ok() || std::memcmp(back->bytes, a.bytes, 12) != 0) __builtin_trap();
        const int c = std::memcmp(a.bytes, b.bytes, 12);
        const int t = std::memcmp(ta, tb, 24);
        if ((c < 0) != (t < 0) || (c == 0) != (t == 0)) __builtin_trap();
    }

    // The generator, with its random value, counter start and clock readings from the input.
    if (size >= 8) {
        InputBytes random(data, 8);
        idgen::ObjectIdGenerator g;
        idgen::ObjectId prev{};
        for (std::size_t i = 8; i + 1 < size && i < 8 + 2 * 64; i += 2) {
            const std::int64_t now = 1700000000 + static_cast<std::int8_t>(data[i]);
            auto id = data[i + 1] & 1 ? g.at(now, 7, random) : g.next(now, 7, random);
            if (!id.ok()) __builtin_trap();
            if (i > 8 && std::memcmp(id->bytes, prev.bytes, 12) == 0) __builtin_trap();
            if (std::memcmp(id->bytes + 4, data, 5) != 0) __builtin_trap();  // the process value
            prev = *id;
        }
    }
    return 0;
}
