#include "core/text/uuid_text.h"

#include "core/base/no_pg_check.h"

namespace idgen {
namespace {

constexpr char kHex[] = "0123456789abcdef";

// Hex digit values, 0xFF for anything else.
struct HexTable {
    std::uint8_t v[256];
    constexpr HexTable() : v() {
        for (auto& x : v) x = 0xFF;
        for (int i = 0; i < 10; ++i) v['0' + i] = static_cast<std::uint8_t>(i);
        for (int i = 0; i < 6; ++i) {
            v['a' + i] = static_cast<std::uint8_t>(10 + i);
            v['A' + i] = static_cast<std::uint8_t>(10 + i);
        }
    }
};
constexpr HexTable kHexValue{};

}  // namespace

Result<Uuid> uuid_parse(const char* s, std::size_t n) noexcept {
    std::size_t i = 0;
    const bool braces = n > 0 && s[0] == '{';
    if (braces) ++i;
    Uuid id{};
    for (std::size_t b = 0; b < 16; ++b) {
        if (n - i < 2) return Error::kInvalidSyntax;
        const std::uint8_t hi = kHexValue.v[static_cast<unsigned char>(s[i])];
        const std::uint8_t lo = kHexValue.v[static_cast<unsigned char>(s[i + 1])];
        if ((hi | lo) & 0xF0u) return Error::kInvalidSyntax;
        id.bytes[b] = static_cast<std::uint8_t>((hi << 4) | lo);
        i += 2;
        // A hyphen may follow every second byte (a group of four digits), except the last.
        if (i < n && s[i] == '-' && (b % 2) == 1 && b < 15) ++i;
    }
    if (braces) {
        if (i == n || s[i] != '}') return Error::kInvalidSyntax;
        ++i;
    }
    if (i != n) return Error::kInvalidSyntax;
    return id;
}

void uuid_format(const Uuid& id, char* out) noexcept {
    std::size_t o = 0;
    for (std::size_t b = 0; b < 16; ++b) {
        if (b == 4 || b == 6 || b == 8 || b == 10) out[o++] = '-';
        out[o++] = kHex[id.bytes[b] >> 4];
        out[o++] = kHex[id.bytes[b] & 15];
    }
}

}  // namespace idgen
