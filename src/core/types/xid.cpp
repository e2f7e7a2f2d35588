#include "core/types/xid.h"

#include "core/base/bytes.h"
#include "core/base/no_pg_check.h"

namespace idgen {
namespace {

constexpr char kAlphabet[] = "0123456789abcdefghijklmnopqrstuv";

struct DecodeTable {
    std::uint8_t v[256];
    constexpr DecodeTable() : v() {
        for (auto& x : v) x = 0xFF;
        for (int i = 0; i < 32; ++i) v[static_cast<unsigned char>(kAlphabet[i])] = static_cast<std::uint8_t>(i);
    }
};
constexpr DecodeTable kDecode{};

Xid with_seconds(std::uint32_t s, std::uint8_t fill) noexcept {
    Xid id;
    id.bytes[0] = static_cast<std::uint8_t>(s >> 24);
    id.bytes[1] = static_cast<std::uint8_t>(s >> 16);
    id.bytes[2] = static_cast<std::uint8_t>(s >> 8);
    id.bytes[3] = static_cast<std::uint8_t>(s);
    for (int i = 4; i < 12; ++i) id.bytes[i] = fill;
    return id;
}

bool seconds_fit(std::int64_t s) noexcept { return s >= 0 && s <= kXidMaxSeconds; }

}  // namespace

// The 96 bits are two groups: bytes 0-4 (40 bits, chars 0-7) and bytes 5-11 (56 bits + 4 pad
// bits, chars 8-19).
Result<Xid> xid_parse(const char* s, std::size_t n) noexcept {
    if (n != kXidTextLen) return Error::kInvalidSyntax;
    std::uint8_t any_bad = 0;
    std::uint64_t a = 0, b = 0;
    for (std::size_t i = 0; i < 8; ++i) {
        const std::uint8_t d = kDecode.v[static_cast<unsigned char>(s[i])];
        any_bad |= d;
        a = (a << 5) | (d & 31u);
    }
    for (std::size_t i = 8; i < 20; ++i) {
        const std::uint8_t d = kDecode.v[static_cast<unsigned char>(s[i])];
        any_bad |= d;
        b = (b << 5) | (d & 31u);
    }
    if ((any_bad & 0x80u) || (b & 0xF) != 0) return Error::kInvalidSyntax;
    b >>= 4;
    Xid id;
    for (int i = 4; i >= 0; --i, a >>= 8) id.bytes[i] = static_cast<std::uint8_t>(a);
    for (int i = 11; i >= 5; --i, b >>= 8) id.bytes[i] = static_cast<std::uint8_t>(b);
    return id;
}

void xid_format(const Xid& id, char* out) noexcept {
    std::uint64_t a = 0, b = 0;
    for (int i = 0; i < 5; ++i) a = (a << 8) | id.bytes[i];
    for (int i = 5; i < 12; ++i) b = (b << 8) | id.bytes[i];
    b <<= 4;
    for (int i = 7; i >= 0; --i, a >>= 5) out[i] = kAlphabet[a & 31u];
    for (int i = 19; i >= 8; --i, b >>= 5) out[i] = kAlphabet[b & 31u];
}

std::uint32_t xid_seconds(const Xid& id) noexcept {
    return (static_cast<std::uint32_t>(id.bytes[0]) << 24) | (static_cast<std::uint32_t>(id.bytes[1]) << 16) |
           (static_cast<std::uint32_t>(id.bytes[2]) << 8) | id.bytes[3];
}

std::uint32_t xid_machine(const Xid& id) noexcept {
    return (static_cast<std::uint32_t>(id.bytes[4]) << 16) | (static_cast<std::uint32_t>(id.bytes[5]) << 8) |
           id.bytes[6];
}

std::uint16_t xid_pid(const Xid& id) noexcept { return load_be16(id.bytes + 7); }

std::uint32_t xid_counter(const Xid& id) noexcept {
    return (static_cast<std::uint32_t>(id.bytes[9]) << 16) | (static_cast<std::uint32_t>(id.bytes[10]) << 8) |
           id.bytes[11];
}

Result<Xid> xid_lower(std::int64_t unix_seconds) noexcept {
    if (!seconds_fit(unix_seconds)) return Error::kTimeOutOfRange;
    return with_seconds(static_cast<std::uint32_t>(unix_seconds), 0x00);
}

Result<Xid> xid_upper(std::int64_t unix_seconds) noexcept {
    if (!seconds_fit(unix_seconds)) return Error::kTimeOutOfRange;
    return with_seconds(static_cast<std::uint32_t>(unix_seconds), 0xFF);
}

std::uint32_t xid_machine_from_system_id(std::uint64_t z) noexcept {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return static_cast<std::uint32_t>(z >> 40);
}

Result<Xid> XidGenerator::next(std::int64_t now, std::uint32_t machine, int pid, ByteSource& random) noexcept {
    if (pid != pid_) {
        std::uint8_t r[3];
        if (!random.fill(r, sizeof r)) return Error::kEntropyFailure;
        counter_ = (static_cast<std::uint32_t>(r[0]) << 16) | (static_cast<std::uint32_t>(r[1]) << 8) | r[2];
        last_seconds_ = -1;
        pid_ = pid;
    }
    std::int64_t s = now > last_seconds_ ? now : last_seconds_;
    // The counter wrapped since the last ID: staying in that second could repeat or go below it.
    if (s == last_seconds_ && counter_ == 0) ++s;
    if (!seconds_fit(s)) return Error::kTimeOutOfRange;
    last_seconds_ = s;
    Xid id = with_seconds(static_cast<std::uint32_t>(s), 0);
    id.bytes[4] = static_cast<std::uint8_t>(machine >> 16);
    id.bytes[5] = static_cast<std::uint8_t>(machine >> 8);
    id.bytes[6] = static_cast<std::uint8_t>(machine);
    id.bytes[7] = static_cast<std::uint8_t>(static_cast<unsigned>(pid) >> 8);
    id.bytes[8] = static_cast<std::uint8_t>(pid);
    id.bytes[9] = static_cast<std::uint8_t>(counter_ >> 16);
    id.bytes[10] = static_cast<std::uint8_t>(counter_ >> 8);
    id.bytes[11] = static_cast<std::uint8_t>(counter_);
    counter_ = (counter_ + 1) & (kXidCounterSpan - 1);
    return id;
}

}  // namespace idgen
