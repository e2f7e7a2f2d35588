// id_gen core: correlation IDs, the text that follows one unit of work through every log line.
//
// A correlation ID is 1 to 128 ASCII characters from a fixed set: letters, digits and
// `- _ . : / + = @`. Nothing else: no control character, no space, no `[` or `]`, no quote or
// backslash, nothing outside ASCII. Every server log line of a backend can carry it (as
// ` [corr_id=<id>]`), so this rule is what keeps a client from forging log lines or breaking the
// bracketed tag (log injection). UUIDs, ULIDs, W3C trace-ids, base64 and base64url text all fit.
//
// Derived IDs keep their parent as a prefix, so a search for the parent finds its descendants:
//   child by counter   <parent>.<n>             n = 1, 2, ... (a shared or a local counter table)
//   child, local only  <parent>.<n>-<tag>       tag: 8 random characters fixed per process
//   child by random    <parent>.<10 random characters>  (50 bits)
//   combination        <first>+<second>
// Random characters are Crockford base32, lower case (0-9 a-h j k m n p-t v-z).
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/base/entropy.h"
#include "core/base/result.h"

namespace idgen {

inline constexpr std::size_t kCorrelationIdMaxLen = 128;
inline constexpr std::size_t kCorrelationRandomLen = 10;  // 50 bits
inline constexpr std::size_t kCorrelationTagLen = 8;      // 40 bits

// True for the characters a correlation ID may contain.
[[nodiscard]] constexpr bool correlation_id_char(unsigned char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == '.' || c == ':' || c == '/' || c == '+' || c == '=' || c == '@';
}

enum class CorrelationIdProblem : std::uint8_t { kNone, kEmpty, kTooLong, kBadCharacter };

struct CorrelationIdCheck {
    CorrelationIdProblem problem;
    std::size_t position;  // of the first character not allowed (kBadCharacter)
};

// Checks s[0..n) against the rule above.
[[nodiscard]] CorrelationIdCheck correlation_id_check(const char* s, std::size_t n) noexcept;
[[nodiscard]] inline bool correlation_id_valid(const char* s, std::size_t n) noexcept {
    return correlation_id_check(s, n).problem == CorrelationIdProblem::kNone;
}

// Makes any bytes safe to show in a message: printable ASCII is kept except `\`, `[` and `]`;
// those and everything else (control characters, bytes above 0x7f) become \xHH. Writes at most cap - 1 characters and a
// NUL (cap >= 8); input that does not fit is cut and ends in "...". Returns the length written.
std::size_t correlation_escape(const char* s, std::size_t n, char* out, std::size_t cap) noexcept;

// `len` random Crockford base32 characters (lower case, 5 bits each); false if `random` failed.
[[nodiscard]] bool correlation_random_text(ByteSource& random, char* out, std::size_t len) noexcept;

// Children and combinations. `out` has room for kCorrelationIdMaxLen characters (no NUL is
// written); the result's length is returned. kInvalidSyntax if an input is not a valid ID (or the
// tag is not kCorrelationTagLen ID characters), kOutOfRange if the result would be longer than
// kCorrelationIdMaxLen, kEntropyFailure if no random bytes could be had.
[[nodiscard]] Result<std::size_t> correlation_child_counted(const char* parent, std::size_t n, std::uint64_t number,
                                                            char* out) noexcept;
[[nodiscard]] Result<std::size_t> correlation_child_tagged(const char* parent, std::size_t n, std::uint64_t number,
                                                           const char* tag, char* out) noexcept;
[[nodiscard]] Result<std::size_t> correlation_child_random(const char* parent, std::size_t n, ByteSource& random,
                                                           char* out) noexcept;
[[nodiscard]] Result<std::size_t> correlation_combine(const char* first, std::size_t n1, const char* second,
                                                      std::size_t n2, char* out) noexcept;

// The tag the log hook appends to a message: " [corr_id=<id>]". Returns its length, or 0 when
// it does not fit in cap - 1 or `id` is not a valid ID (nothing is then written but a NUL).
inline constexpr std::size_t kCorrelationLogTagMax = sizeof(" [corr_id=]") - 1 + kCorrelationIdMaxLen;
std::size_t correlation_log_tag(const char* id, std::size_t n, char* out, std::size_t cap) noexcept;

// Log lines. The tag ends the first line of a message (the line that starts the entry in every
// log format), and no text a session writes can look like one: in it, every "corr_id=" (ASCII
// letters in any case, so also "[corr_id=", "old_corr_id=" and "CORR_ID=") has its '=' replaced
// by '~', in place (the length does not change, so this cannot fail). A line holds "corr_id="
// only where the log hook wrote a tag (or a linking line of its own).
inline constexpr char kCorrelationMarker[] = "corr_id=";
inline constexpr std::size_t kCorrelationMarkerLen = sizeof kCorrelationMarker - 1;

// Offset of the first occurrence of the marker (ASCII case-insensitive) in s[0..n), or n.
[[nodiscard]] std::size_t correlation_marker_find(const char* s, std::size_t n) noexcept;

// Rewrites every occurrence of the marker in s[0..n) in place ('=' becomes '~'); returns how many.
// Afterwards s holds none (the rewrite cannot make a new one).
std::size_t correlation_neutralise(char* s, std::size_t n) noexcept;

// Where the tag goes in message s[0..n): before its first line feed, or at its end.
[[nodiscard]] std::size_t correlation_tag_offset(const char* s, std::size_t n) noexcept;

// True when message s[0..n) already carries `tag` (of length tl, as correlation_log_tag() wrote
// it) where the hook puts it, and holds the marker nowhere else: a message that our hook already
// handled and that comes back to be reported again (a parallel worker's, a remote server's).
[[nodiscard]] bool correlation_already_tagged(const char* s, std::size_t n, const char* tag, std::size_t tl) noexcept;

// ---------------------------------------------------------------------------------------------
// Counters for children by number, one per parent, in a fixed table of slots keyed by a 64-bit
// hash of the parent (the caller provides the memory: PostgreSQL shared memory, or a per-process
// table, and the mutual exclusion).
//
// The guarantee: for one hash, the numbers returned are strictly increasing for the life of the
// table, whatever else happens to it. A parent's slot lives in a window of kCorrelationProbe
// slots from its hash; when that window is full, the least recently used slot in it is evicted
// and `floor` is raised to at least the evicted counter, and a slot taken afresh starts above
// `floor`. So a parent whose slot was evicted continues above every number it was given (not at
// 1), and parents that share a hash share a counter: their numbers are unique but not
// consecutive. Until the first eviction, every parent counts 1, 2, 3, ...
struct CorrelationCounterSlot {
    std::uint64_t hash;  // 0 = free
    std::uint64_t last;  // the last number handed out
    std::uint64_t used;  // the table's clock at the last use (for eviction)
};

struct CorrelationCounterHead {
    std::uint64_t floor;  // every slot taken afresh starts above it
    std::uint64_t clock;  // ticks once per call
    std::uint64_t evictions;
};

inline constexpr std::size_t kCorrelationProbe = 16;

// FNV-1a over the bytes, never 0 (0 marks a free slot).
[[nodiscard]] std::uint64_t correlation_hash(const char* s, std::size_t n) noexcept;

// The next number for `hash` (see above); `nslots` >= kCorrelationProbe. 0 only if the counter
// would pass 2^64 - 1 (never, in practice).
[[nodiscard]] std::uint64_t correlation_counter_next(CorrelationCounterHead& head, CorrelationCounterSlot* slots,
                                                     std::size_t nslots, std::uint64_t hash) noexcept;

}  // namespace idgen
