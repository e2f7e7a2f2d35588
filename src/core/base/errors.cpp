#include "core/base/errors.h"

#include <cstdio>
#include <cstring>

#include "core/base/no_pg_check.h"

namespace idgen {

namespace {

constexpr const char* kNoIdIssued = "No ID was issued.";

constexpr ErrorText kTable[] = {
    {Error::kInvalidSyntax, "22P02", "invalid input syntax for type {type}: \"{value}\"", nullptr, nullptr, true},
    {Error::kOutOfRange, "22003", "value \"{value}\" is out of range for type {type}", nullptr, nullptr, true},
    {Error::kTimeOutOfRange, "22003", "timestamp \"{value}\" is out of range for type {type}", nullptr, nullptr, true},
    {Error::kEntropyFailure, "58000", "could not read random bytes from the kernel for type {type}", nullptr, nullptr,
     false},
    {Error::kCapacityExceeded, "54000", "{type} generator capacity exceeded: {value}", nullptr, nullptr, false},
    {Error::kInvalidPrefix, "22023", "invalid prefix \"{value}\"", nullptr,
     "A prefix is 1 to 16 lower-case ASCII letters or digits, starting with a letter.", false},
    // value: what was expected and what was found
    {Error::kWrongPrefix, "22P02", "invalid input syntax for a prefixed ID: {value}", nullptr, nullptr, true},
    // value: why (the clock before the epoch, or past the layout's last time unit)
    {Error::kLayoutExhausted, "22003", "cannot issue another {type}: {value}", nullptr, nullptr, false},
    {Error::kStateIoError, "58030", "{type} generator state: {value}", kNoIdIssued,
     "Check the disk and the server log. A state record whose write or fsync failed is rewritten and "
     "fsync'd before the next ID is issued; until that succeeds, the generator refuses.",
     false},
    {Error::kStateDamaged, "XX001", "{type} generator state: {value}",
     "No ID was issued: the file holds the high-water mark that keeps IDs from repeating after a restart, "
     "and it cannot be read.",
     "Restore the file from a backup of the data directory. If the server's clock is known to be past every "
     "ID this generator issued (for snowflakes: the time of the largest ID, plus id_gen.max_run_ahead), "
     "remove the file instead: a new one starts at the clock plus id_gen.max_run_ahead plus 1 s.",
     false},
    {Error::kStateLockTimeout, "55P03", "{type} generator state: {value}", kNoIdIssued, nullptr, false},
    {Error::kNoOutcome, "XX000", "id_gen internal error: {value}", kNoIdIssued, nullptr, false},
};

static_assert(sizeof kTable / sizeof kTable[0] == kErrorCodeCount, "one entry per error code");

constexpr bool in_enum_order() {
    for (int i = 0; i < kErrorCodeCount; ++i)
        if (static_cast<int>(kTable[i].code) != i + 1) return false;
    return true;
}
static_assert(in_enum_order(), "the table lists the codes in the enum's order");

// Appends s[0..n) to out[0..cap) at *len (keeping room for the NUL); counts every byte.
void put(char* out, std::size_t cap, std::size_t& len, const char* s, std::size_t n) noexcept {
    if (n == 0) return;
    if (len + 1 < cap) {
        const std::size_t room = cap - 1 - len;
        std::memcpy(out + len, s, n < room ? n : room);
    }
    len += n;
}

}  // namespace

const ErrorText* error_text(Error e) noexcept {
    const int i = static_cast<int>(e) - 1;
    if (i < 0 || i >= kErrorCodeCount) return nullptr;
    return &kTable[i];
}

std::size_t error_message(Error e, const char* type, const char* value, std::size_t value_len, char* out,
                          std::size_t cap) noexcept {
    const ErrorText* t = error_text(e);
    if (t == nullptr) {
        const int n = std::snprintf(out, cap, "id_gen: unknown error code %d", static_cast<int>(e));
        return n < 0 ? 0 : static_cast<std::size_t>(n);
    }
    if (type == nullptr) type = "id";
    if (value == nullptr) value_len = 0;
    static constexpr char kType[] = "{type}";
    static constexpr char kValue[] = "{value}";
    std::size_t len = 0;
    for (const char* p = t->message; *p != '\0';) {
        if (std::strncmp(p, kType, sizeof kType - 1) == 0) {
            put(out, cap, len, type, std::strlen(type));
            p += sizeof kType - 1;
        } else if (std::strncmp(p, kValue, sizeof kValue - 1) == 0) {
            put(out, cap, len, value, value_len);
            p += sizeof kValue - 1;
        } else {
            put(out, cap, len, p, 1);
            ++p;
        }
    }
    if (cap > 0) out[len < cap ? len : cap - 1] = '\0';
    return len;
}

std::size_t utf8_clip_length(const char* s, std::size_t n, std::size_t limit) noexcept {
    if (n <= limit) return n;
    std::size_t keep = limit;
    while (keep > 0 && (static_cast<unsigned char>(s[keep]) & 0xC0u) == 0x80u) --keep;
    return keep;
}

std::size_t clip_shown_value(const char* src, std::size_t n, char (&dst)[kShownValueCap], ClipLength clip) noexcept {
    if (src == nullptr) {
        dst[0] = '\0';
        return 0;
    }
    if (n < kShownValueCap) {
        std::memcpy(dst, src, n);
        dst[n] = '\0';
        return n;
    }
    std::size_t keep = clip(src, n, kShownValueCap - 4);
    if (keep > kShownValueCap - 4) keep = kShownValueCap - 4;
    std::memcpy(dst, src, keep);
    std::memcpy(dst + keep, "...", 4);
    return keep + 3;
}

}  // namespace idgen
