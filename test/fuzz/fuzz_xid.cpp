// libFuzzer target: the xid (rs/xid) text parser, formatter and generator.
// Invariants: never crash; an input is accepted exactly when it is 20 characters of 0-9a-v ending
// in '0' or 'g', and then formats back to the same text; any 12 bytes format to text that parses
// back to them; text order is byte order; a generator driven by the input's clock readings gives
// strictly increasing IDs carrying the given machine and pid.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/base/entropy.h"
#include "core/types/xid.h"

namespace {

bool is_b32hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'v'); }

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
    bool shape = size == idgen::kXidTextLen;
    for (std::size_t i = 0; shape && i < size; ++i) shape = is_b32hex(s[i]);
    shape = shape && (s[19] == '0' || s[19] == 'g');
    auto parsed = idgen::xid_parse(s, size);
    if (parsed.ok() != shape) __builtin_trap();
    if (!parsed.ok() && parsed.error() != idgen::Error::kInvalidSyntax) __builtin_trap();
    if (parsed.ok()) {
        char back[20];
        idgen::xid_format(*parsed, back);
        if (std::memcmp(back, s, 20) != 0) __builtin_trap();
    }
    if (size >= 24) {
        idgen::Xid a, b;
        std::memcpy(a.bytes, data, 12);
        std::memcpy(b.bytes, data + 12, 12);
        char ta[20], tb[20];
        idgen::xid_format(a, ta);
        idgen::xid_format(b, tb);
        auto back = idgen::xid_parse(ta, 20);
        if (!back.ok() || std::memcmp(back->bytes, a.bytes, 12) != 0) __builtin_trap();
        const int c = std::memcmp(a.bytes, b.bytes, 12), t = std::memcmp(ta, tb, 20);
        if ((c < 0) != (t < 0) || (c == 0) != (t == 0)) __builtin_trap();
    }
    if (size >= 3) {
        InputBytes random(data, 3);
        idgen::XidGenerator g;
        idgen::Xid prev{};
        for (std::size_t i = 3; i < size && i < 3 + 64; ++i) {
            auto id = g.next(1600000000 + static_cast<std::int8_t>(data[i]), 0xABCDEF, 0x1234, random);
            if (!id.ok()) __builtin_trap();
            if (i > 3 && std::memcmp(prev.bytes, id->bytes, 12) >= 0) __builtin_trap();
            if (idgen::xid_machine(*id) != 0xABCDEF || idgen::xid_pid(*id) != 0x1234) __builtin_trap();
            prev = *id;
        }
    }
    return 0;
}
