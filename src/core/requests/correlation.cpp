#include "core/requests/correlation.h"

#include <cstring>

#include "core/base/no_pg_check.h"

namespace idgen {

namespace {

constexpr char kCrockfordLower[] = "0123456789abcdefghjkmnpqrstvwxyz";

// Writes the decimal digits of v at out; returns how many.
std::size_t put_decimal(std::uint64_t v, char* out) noexcept {
    char tmp[20];
    std::size_t n = 0;
    do {
        tmp[n++] = static_cast<char>('0' + v % 10);
        v /= 10;
    } while (v != 0);
    for (std::size_t i = 0; i < n; ++i) out[i] = tmp[n - 1 - i];
    return n;
}

std::size_t decimal_len(std::uint64_t v) noexcept {
    std::size_t n = 1;
    while (v >= 10) {
        v /= 10;
        ++n;
    }
    return n;
}

}  // namespace

CorrelationIdCheck correlation_id_check(const char* s, std::size_t n) noexcept {
    if (n == 0) return {CorrelationIdProblem::kEmpty, 0};
    for (std::size_t i = 0; i < n && i <= kCorrelationIdMaxLen; ++i)
        if (!correlation_id_char(static_cast<unsigned char>(s[i]))) return {CorrelationIdProblem::kBadCharacter, i};
    if (n > kCorrelationIdMaxLen) return {CorrelationIdProblem::kTooLong, 0};
    return {CorrelationIdProblem::kNone, 0};
}

std::size_t correlation_escape(const char* s, std::size_t n, char* out, std::size_t cap) noexcept {
    static constexpr char kHex[] = "0123456789abcdef";
    if (cap < 8) {
        if (cap > 0) out[0] = '\0';
        return 0;
    }
    auto plain = [](unsigned char c) { return c >= 0x20 && c < 0x7f && c != '\\' && c != '[' && c != ']'; };
    std::size_t total = 0;
    for (std::size_t i = 0; i < n && total < cap; ++i) total += plain(static_cast<unsigned char>(s[i])) ? 1 : 4;
    // Everything, or as much as leaves room for "...".
    const std::size_t room = total <= cap - 1 ? cap - 1 : cap - 1 - 3;
    std::size_t w = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (w + (plain(c) ? 1 : 4) > room) break;
        if (plain(c)) {
            out[w++] = static_cast<char>(c);
        } else {
            out[w++] = '\\';
            out[w++] = 'x';
            out[w++] = kHex[c >> 4];
            out[w++] = kHex[c & 15];
        }
    }
    if (total > cap - 1) {
        std::memcpy(out + w, "...", 3);
        w += 3;
    }
    out[w] = '\0';
    return w;
}

bool correlation_random_text(ByteSource& random, char* out, std::size_t len) noexcept {
    // 5 bits per character from a 64-bit draw per 12 characters (60 of its bits are used).
    std::size_t i = 0;
    while (i < len) {
        std::uint8_t b[8];
        if (!random.fill(b, sizeof b)) return false;
        std::uint64_t v = 0;
        std::memcpy(&v, b, sizeof v);
        for (int k = 0; k < 12 && i < len; ++k, ++i) {
            out[i] = kCrockfordLower[v & 31];
            v >>= 5;
        }
    }
    return true;
}

Result<std::size_t> correlation_child_counted(const char* parent, std::size_t n, std::uint64_t number,
                                              char* out) noexcept {
    if (!correlation_id_valid(parent, n)) return Error::kInvalidSyntax;
    if (n + 1 + decimal_len(number) > kCorrelationIdMaxLen) return Error::kOutOfRange;
    std::memcpy(out, parent, n);
    out[n] = '.';
    return n + 1 + put_decimal(number, out + n + 1);
}

Result<std::size_t> correlation_child_tagged(const char* parent, std::size_t n, std::uint64_t number, const char* tag,
                                             char* out) noexcept {
    if (!correlation_id_valid(parent, n) || !correlation_id_valid(tag, kCorrelationTagLen))
        return Error::kInvalidSyntax;
    if (n + 1 + decimal_len(number) + 1 + kCorrelationTagLen > kCorrelationIdMaxLen) return Error::kOutOfRange;
    std::memcpy(out, parent, n);
    std::size_t w = n;
    out[w++] = '.';
    w += put_decimal(number, out + w);
    out[w++] = '-';
    std::memcpy(out + w, tag, kCorrelationTagLen);
    return w + kCorrelationTagLen;
}

Result<std::size_t> correlation_child_random(const char* parent, std::size_t n, ByteSource& random,
                                             char* out) noexcept {
    if (!correlation_id_valid(parent, n)) return Error::kInvalidSyntax;
    if (n + 1 + kCorrelationRandomLen > kCorrelationIdMaxLen) return Error::kOutOfRange;
    std::memcpy(out, parent, n);
    out[n] = '.';
    if (!correlation_random_text(random, out + n + 1, kCorrelationRandomLen)) return Error::kEntropyFailure;
    return n + 1 + kCorrelationRandomLen;
}

Result<std::size_t> correlation_combine(const char* first, std::size_t n1, const char* second, std::size_t n2,
                                        char* out) noexcept {
    if (!correlation_id_valid(first, n1) || !correlation_id_valid(second, n2)) return Error::kInvalidSyntax;
    if (n1 + 1 + n2 > kCorrelationIdMaxLen) return Error::kOutOfRange;
    std::memcpy(out, first, n1);
    out[n1] = '+';
    std::memcpy(out + n1 + 1, second, n2);
    return n1 + 1 + n2;
}

std::size_t correlation_log_tag(const char* id, std::size_t n, char* out, std::size_t cap) noexcept {
    static constexpr char kOpen[] = " [corr_id=";
    constexpr std::size_t kOpenLen = sizeof kOpen - 1;
    if (cap == 0) return 0;
    out[0] = '\0';
    if (!correlation_id_valid(id, n) || kOpenLen + n + 1 > cap - 1) return 0;
    std::memcpy(out, kOpen, kOpenLen);
    std::memcpy(out + kOpenLen, id, n);
    out[kOpenLen + n] = ']';
    out[kOpenLen + n + 1] = '\0';
    return kOpenLen + n + 1;
}

std::size_t correlation_marker_find(const char* s, std::size_t n) noexcept {
    if (n < kCorrelationMarkerLen) return n;
    for (std::size_t i = 0; i + kCorrelationMarkerLen <= n; ++i) {
        std::size_t k = 0;
        while (k < kCorrelationMarkerLen) {
            auto c = static_cast<unsigned char>(s[i + k]);
            if (c >= 'A' && c <= 'Z') c = static_cast<unsigned char>(c - 'A' + 'a');
            if (c != static_cast<unsigned char>(kCorrelationMarker[k])) break;
            ++k;
        }
        if (k == kCorrelationMarkerLen) return i;
    }
    return n;
}

std::size_t correlation_neutralise(char* s, std::size_t n) noexcept {
    std::size_t count = 0;
    std::size_t at = 0;
    while (at < n) {
        const std::size_t i = correlation_marker_find(s + at, n - at);
        if (i == n - at) break;
        s[at + i + kCorrelationMarkerLen - 1] = '~';
        at += i + kCorrelationMarkerLen;
        ++count;
    }
    return count;
}

std::size_t correlation_tag_offset(const char* s, std::size_t n) noexcept {
    const void* nl = std::memchr(s, '\n', n);
    return nl == nullptr ? n : static_cast<std::size_t>(static_cast<const char*>(nl) - s);
}

bool correlation_already_tagged(const char* s, std::size_t n, const char* tag, std::size_t tl) noexcept {
    const std::size_t at = correlation_tag_offset(s, n);
    if (tl == 0 || at < tl || std::memcmp(s + at - tl, tag, tl) != 0) return false;
    // The tag's own marker is the first; no other anywhere.
    const std::size_t own = at - tl;
    if (correlation_marker_find(s, own) != own) return false;
    const std::size_t after = own + tl - 1;  // past "corr_id=" of the tag: its ID and ']' hold none
    return correlation_marker_find(s + after, n - after) == n - after;
}

std::uint64_t correlation_hash(const char* s, std::size_t n) noexcept {
    std::uint64_t h = 1469598103934665603ULL;
    for (std::size_t i = 0; i < n; ++i) {
        h ^= static_cast<unsigned char>(s[i]);
        h *= 1099511628211ULL;
    }
    return h == 0 ? 1 : h;
}

std::uint64_t correlation_counter_next(CorrelationCounterHead& head, CorrelationCounterSlot* slots, std::size_t nslots,
                                       std::uint64_t hash) noexcept {
    if (hash == 0) hash = 1;
    const std::uint64_t now = ++head.clock;
    const std::size_t window = nslots < kCorrelationProbe ? nslots : kCorrelationProbe;
    const std::size_t start = static_cast<std::size_t>(hash % nslots);
    CorrelationCounterSlot* free_slot = nullptr;
    CorrelationCounterSlot* oldest = nullptr;
    for (std::size_t k = 0; k < window; ++k) {
        CorrelationCounterSlot& s = slots[(start + k) % nslots];
        if (s.hash == hash) {
            if (s.last == UINT64_MAX) return 0;
            s.used = now;
            return ++s.last;
        }
        if (s.hash == 0) {
            if (free_slot == nullptr) free_slot = &s;
        } else if (oldest == nullptr || s.used < oldest->used) {
            oldest = &s;
        }
    }
    CorrelationCounterSlot* s = free_slot;
    if (s == nullptr) {
        // Evict the least recently used slot of the window; its parent, should it come back,
        // starts above everything it was given.
        s = oldest;
        if (s->last > head.floor) head.floor = s->last;
        ++head.evictions;
    }
    if (head.floor == UINT64_MAX) return 0;
    s->hash = hash;
    s->last = head.floor + 1;
    s->used = now;
    return s->last;
}

}  // namespace idgen
