#include "ulid.h"

#include "bytes.h"
#include "no_pg_check.h"

namespace idgen {
namespace {

constexpr char kAlphabet[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

// Crockford digit values, 0xFF for anything else. Upper and lower case are accepted; the
// ambiguous I, L, O and U are not (the ULID spec excludes them from its alphabet).
struct DecodeTable {
    std::uint8_t v[256];
    constexpr DecodeTable() : v() {
        for (auto& x : v) x = 0xFF;
        for (int i = 0; i < 32; ++i) {
            auto c = static_cast<unsigned char>(kAlphabet[i]);
            v[c] = static_cast<std::uint8_t>(i);
            if (c >= 'A' && c <= 'Z') v[c + ('a' - 'A')] = static_cast<std::uint8_t>(i);
        }
    }
};
constexpr DecodeTable kDecode{};

Ulid compose(std::int64_t ms, std::uint16_t rand_hi, std::uint64_t rand_lo) noexcept {
    Ulid id{};
    const std::uint64_t hi = (static_cast<std::uint64_t>(ms) << 16) | rand_hi;
    store_be64(id.bytes, hi);
    store_be64(id.bytes + 8, rand_lo);
    return id;
}

}  // namespace

Result<Ulid> ulid_parse(const char* text, std::size_t len) noexcept {
    if (len != kUlidTextLen) return Error::kInvalidSyntax;
    unsigned __int128 v = 0;
    std::uint8_t any_bad = 0;
    for (std::size_t i = 0; i < kUlidTextLen; ++i) {
        const std::uint8_t d = kDecode.v[static_cast<unsigned char>(text[i])];
        any_bad |= static_cast<std::uint8_t>(d == 0xFF);
        v = (v << 5) | (d & 31u);
    }
    if (any_bad) return Error::kInvalidSyntax;
    if (kDecode.v[static_cast<unsigned char>(text[0])] > 7) return Error::kOutOfRange;
    Ulid id{};
    store_be64(id.bytes, static_cast<std::uint64_t>(v >> 64));
    store_be64(id.bytes + 8, static_cast<std::uint64_t>(v));
    return id;
}

void ulid_format(const Ulid& id, char* out) noexcept {
    unsigned __int128 v = (static_cast<unsigned __int128>(load_be64(id.bytes)) << 64) | load_be64(id.bytes + 8);
    for (std::size_t i = kUlidTextLen; i-- > 0;) {
        out[i] = kAlphabet[static_cast<unsigned>(v) & 31u];
        v >>= 5;
    }
}

std::int64_t ulid_time_ms(const Ulid& id) noexcept {
    return static_cast<std::int64_t>(load_be64(id.bytes) >> 16);
}

Result<Ulid> ulid_lower(std::int64_t ms) noexcept {
    if (ms < 0 || ms > kUlidMaxMs) return Error::kTimeOutOfRange;
    return compose(ms, 0, 0);
}

Result<Ulid> ulid_upper(std::int64_t ms) noexcept {
    if (ms < 0 || ms > kUlidMaxMs) return Error::kTimeOutOfRange;
    return compose(ms, 0xFFFF, ~std::uint64_t{0});
}

Result<Ulid> ulid_at(std::int64_t ms, ByteSource& random) noexcept {
    if (ms < 0 || ms > kUlidMaxMs) return Error::kTimeOutOfRange;
    std::uint8_t r[10];
    if (!random.fill(r, sizeof r)) return Error::kEntropyFailure;
    return compose(ms, load_be16(r), load_be64(r + 2));
}

Result<Ulid> UlidGenerator::next(std::int64_t now_ms, ByteSource& random) noexcept {
    std::int64_t ms = now_ms < 0 ? 0 : now_ms;
    if (last_ms_ >= 0 && ms <= last_ms_) {
        // Same or earlier millisecond: continue the last ID's sequence.
        if (rand_lo_ != ~std::uint64_t{0}) {
            ++rand_lo_;
            return compose(last_ms_, rand_hi_, rand_lo_);
        }
        if (rand_hi_ != 0xFFFF) {
            ++rand_hi_;
            rand_lo_ = 0;
            return compose(last_ms_, rand_hi_, rand_lo_);
        }
        ms = last_ms_ + 1;  // 80 bits exhausted: borrow the next millisecond
    }
    if (ms > kUlidMaxMs) return Error::kTimeOutOfRange;
    std::uint8_t r[10];
    if (!random.fill(r, sizeof r)) return Error::kEntropyFailure;
    last_ms_ = ms;
    rand_hi_ = load_be16(r);
    rand_lo_ = load_be64(r + 2);
    return compose(last_ms_, rand_hi_, rand_lo_);
}

}  // namespace idgen
