// id_gen core: the W3C Trace Context `traceparent` header (https://www.w3.org/TR/trace-context/).
//
//   00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01
//   version-trace_id(32 hex)-parent_id(16 hex)-trace_flags(2 hex)
//
// Parsing follows the specification's rules: every field is lower-case hex; version `ff` is
// invalid; an all-zero trace-id or parent-id is invalid; version 00 is exactly 55 characters. A
// later version (01 to fe) is read as version 00 is, from its first 55 characters, which must be
// followed by the end or by `-` (more fields, which are not read); of its flags only `sampled`
// is kept. Anything else is invalid.
//
// A child (what this process sends on, for work it spawns) keeps the trace-id, gets a new random
// parent-id, and is written as version 00 with the flags this specification level knows (sampled,
// 0x01, and Level 2's random trace-id, 0x02; other bits are cleared, as the specification requires
// of flags a vendor does not know).
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/base/entropy.h"
#include "core/base/result.h"

namespace idgen {

inline constexpr std::size_t kTraceparentLen = 55;
inline constexpr std::uint8_t kTraceFlagSampled = 0x01;
inline constexpr std::uint8_t kTraceFlagRandom = 0x02;
inline constexpr std::uint8_t kTraceFlagsKnown = kTraceFlagSampled | kTraceFlagRandom;

struct TraceParent {
    std::uint8_t version;
    std::uint8_t trace_id[16];
    std::uint8_t parent_id[8];
    std::uint8_t flags;  // version 00: the byte as sent; later versions: the sampled bit only
};

enum class TraceparentProblem : std::uint8_t {
    kNone,
    kLength,        // version 00 not 55 characters, or any version shorter than 55
    kVersion,       // not two lower-case hex digits, or ff
    kLayout,        // a `-` missing where a field ends
    kTraceId,       // not 32 lower-case hex digits
    kZeroTraceId,   // all zeros
    kParentId,      // not 16 lower-case hex digits
    kZeroParentId,  // all zeros
    kFlags,         // not two lower-case hex digits
};

// What is wrong with a traceparent, in words (for error details).
[[nodiscard]] const char* traceparent_problem_text(TraceparentProblem p) noexcept;

// Parses s[0..n): `problem` says why it was refused (kNone when `out` was filled).
[[nodiscard]] TraceparentProblem traceparent_parse(const char* s, std::size_t n, TraceParent& out) noexcept;

// Writes the version 00 header of p (55 characters, no NUL), with p.flags as given.
void traceparent_format(const TraceParent& p, char* out) noexcept;

// Lower-case hex of n bytes (2n characters, no NUL).
void hex_lower(const std::uint8_t* bytes, std::size_t n, char* out) noexcept;

// A child of p: same trace-id, a new random non-zero parent-id, version 00, flags & known bits.
// kEntropyFailure if no random bytes could be had.
[[nodiscard]] Result<TraceParent> traceparent_child(const TraceParent& p, ByteSource& random) noexcept;

}  // namespace idgen
