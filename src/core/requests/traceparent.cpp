#include "core/requests/traceparent.h"

#include "core/base/no_pg_check.h"

namespace idgen {

namespace {

int hex_value(char c) noexcept {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;  // upper case is not allowed
}

// Reads 2*n lower-case hex digits into bytes; false on any other character.
bool read_hex(const char* s, std::size_t n, std::uint8_t* bytes) noexcept {
    for (std::size_t i = 0; i < n; ++i) {
        const int hi = hex_value(s[2 * i]);
        const int lo = hex_value(s[2 * i + 1]);
        if (hi < 0 || lo < 0) return false;
        bytes[i] = static_cast<std::uint8_t>(hi << 4 | lo);
    }
    return true;
}

bool all_zero(const std::uint8_t* b, std::size_t n) noexcept {
    for (std::size_t i = 0; i < n; ++i)
        if (b[i] != 0) return false;
    return true;
}

}  // namespace

const char* traceparent_problem_text(TraceparentProblem p) noexcept {
    switch (p) {
        case TraceparentProblem::kNone: return "Valid";
        case TraceparentProblem::kLength:
            return "A traceparent of version 00 is exactly 55 characters, and of a later version at least 55";
        case TraceparentProblem::kVersion: return "The version is not two lower-case hex digits other than ff";
        case TraceparentProblem::kLayout:
            return "The fields are not separated by '-' at characters 3, 36 and 53 (and 56, where a later version has "
                   "more)";
        case TraceparentProblem::kTraceId: return "The trace-id is not 32 lower-case hex digits";
        case TraceparentProblem::kZeroTraceId: return "The trace-id is all zeros";
        case TraceparentProblem::kParentId: return "The parent-id is not 16 lower-case hex digits";
        case TraceparentProblem::kZeroParentId: return "The parent-id is all zeros";
        case TraceparentProblem::kFlags: return "The trace-flags are not two lower-case hex digits";
    }
    return "Invalid";
}

TraceparentProblem traceparent_parse(const char* s, std::size_t n, TraceParent& out) noexcept {
    TraceParent p{};
    if (n < 2) return TraceparentProblem::kLength;
    if (!read_hex(s, 1, &p.version) || p.version == 0xff) return TraceparentProblem::kVersion;
    if (n < kTraceparentLen || (p.version == 0 && n != kTraceparentLen)) return TraceparentProblem::kLength;
    // A later version: its first four fields are version 00's, then the end or '-'.
    if (s[2] != '-' || s[35] != '-' || s[52] != '-' || (n > kTraceparentLen && s[kTraceparentLen] != '-'))
        return TraceparentProblem::kLayout;
    if (!read_hex(s + 3, 16, p.trace_id)) return TraceparentProblem::kTraceId;
    if (all_zero(p.trace_id, 16)) return TraceparentProblem::kZeroTraceId;
    if (!read_hex(s + 36, 8, p.parent_id)) return TraceparentProblem::kParentId;
    if (all_zero(p.parent_id, 8)) return TraceparentProblem::kZeroParentId;
    if (!read_hex(s + 53, 1, &p.flags)) return TraceparentProblem::kFlags;
    if (p.version != 0) p.flags &= kTraceFlagSampled;
    out = p;
    return TraceparentProblem::kNone;
}

void hex_lower(const std::uint8_t* bytes, std::size_t n, char* out) noexcept {
    static constexpr char kHex[] = "0123456789abcdef";
    for (std::size_t i = 0; i < n; ++i) {
        out[2 * i] = kHex[bytes[i] >> 4];
        out[2 * i + 1] = kHex[bytes[i] & 15];
    }
}

void traceparent_format(const TraceParent& p, char* out) noexcept {
    out[0] = '0';
    out[1] = '0';
    out[2] = '-';
    hex_lower(p.trace_id, 16, out + 3);
    out[35] = '-';
    hex_lower(p.parent_id, 8, out + 36);
    out[52] = '-';
    hex_lower(&p.flags, 1, out + 53);
}

Result<TraceParent> traceparent_child(const TraceParent& p, ByteSource& random) noexcept {
    TraceParent c = p;
    c.version = 0;
    c.flags = static_cast<std::uint8_t>(p.flags & kTraceFlagsKnown);
    // A zero parent-id is invalid: draw again (2^-64 per draw).
    for (int tries = 0; tries < 4; ++tries) {
        if (!random.fill(c.parent_id, sizeof c.parent_id)) return Error::kEntropyFailure;
        if (!all_zero(c.parent_id, sizeof c.parent_id)) return c;
    }
    return Error::kEntropyFailure;
}

}  // namespace idgen
