// libFuzzer target: the correlation-ID check, its escaping, the derived IDs and the traceparent
// parser. Invariants: never crash; an ID is accepted exactly when it is 1 to 128 characters of the
// alphabet; escaped text never holds a control character, a bracket or a byte above 0x7e; a child
// or combination of a valid ID is valid and starts with it; a log message's text holds no tag
// marker once neutralised, and a tag is placed at the end of its first line; an accepted
// traceparent has the documented shape and re-formats to its own fields.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "core/requests/correlation.h"
#include "core/requests/traceparent.h"

namespace {

class Bytes final : public idgen::ByteSource {
public:
    Bytes(const std::uint8_t* d, std::size_t n) : d_(d), n_(n) {}
    bool fill(std::uint8_t* out, std::size_t n) noexcept override {
        for (std::size_t i = 0; i < n; ++i) out[i] = n_ ? d_[(pos_++) % n_] : 0x5a;
        return true;
    }

private:
    const std::uint8_t* d_;
    std::size_t n_;
    std::size_t pos_ = 0;
};

bool hex_lower_char(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const char* s = reinterpret_cast<const char*>(data);

    // The ID rule.
    bool all_ok = size >= 1 && size <= idgen::kCorrelationIdMaxLen;
    for (std::size_t i = 0; i < size && all_ok; ++i) all_ok = idgen::correlation_id_char(data[i]);
    if (idgen::correlation_id_valid(s, size) != all_ok) __builtin_trap();

    // Escaping.
    char shown[64];
    const std::size_t w = idgen::correlation_escape(s, size, shown, sizeof shown);
    if (w >= sizeof shown || shown[w] != '\0') __builtin_trap();
    for (std::size_t i = 0; i < w; ++i) {
        const auto c = static_cast<unsigned char>(shown[i]);
        if (c < 0x20 || c >= 0x7f || c == '[' || c == ']') __builtin_trap();
    }

    // Derived IDs.
    char out[idgen::kCorrelationIdMaxLen];
    Bytes random(data, size);
    const std::uint64_t number = size * 7919u + 1;
    std::size_t digits = 1;
    for (std::uint64_t v = number; v >= 10; v /= 10) ++digits;
    auto kid = idgen::correlation_child_counted(s, size, number, out);
    if (kid.ok() != (all_ok && size + 1 + digits <= idgen::kCorrelationIdMaxLen)) __builtin_trap();
    if (kid.ok() && (*kid != size + 1 + digits || !idgen::correlation_id_valid(out, *kid) ||
                     std::memcmp(out, s, size) != 0 || out[size] != '.'))
        __builtin_trap();
    auto rnd = idgen::correlation_child_random(s, size, random, out);
    if (rnd.ok() && (!all_ok || *rnd != size + 1 + idgen::kCorrelationRandomLen ||
                     !idgen::correlation_id_valid(out, *rnd) || std::memcmp(out, s, size) != 0))
        __builtin_trap();
    const std::size_t half = size / 2;
    auto comb = idgen::correlation_combine(s, half, s + half, size - half, out);
    if (comb.ok() && (!idgen::correlation_id_valid(out, *comb) || *comb != size + 1 || out[half] != '+'))
        __builtin_trap();
    char tag[idgen::kCorrelationLogTagMax + 1];
    const std::size_t tl = idgen::correlation_log_tag(s, size, tag, sizeof tag);
    if ((tl != 0) != all_ok || (tl != 0 && tl != size + 11)) __builtin_trap();

    // Log lines: a session's text holds no marker once neutralised, keeps its length and changes
    // only at the markers' '='; the tag goes before the first line feed; a message is taken as
    // already tagged only when its one marker is the tag's, at the end of its first line.
    {
        std::string t(s, size);
        const std::size_t count = idgen::correlation_neutralise(t.data(), t.size());
        if (t.size() != size || idgen::correlation_marker_find(t.data(), t.size()) != size) __builtin_trap();
        std::size_t changed = 0;
        for (std::size_t i = 0; i < size; ++i) {
            if (t[i] == s[i]) continue;
            if (s[i] != '=' || t[i] != '~' || i + 1 < idgen::kCorrelationMarkerLen) __builtin_trap();
            ++changed;
        }
        if (changed != count || (count == 0) != (idgen::correlation_marker_find(s, size) == size)) __builtin_trap();
        const std::size_t at = idgen::correlation_tag_offset(s, size);
        if (at > size || std::memchr(s, '\n', at) != nullptr || (at < size && s[at] != '\n')) __builtin_trap();
        if (tl != 0) {
            // Tagging what was neutralised: the result is taken as tagged, and holds the marker once
            // outside the ID.
            std::string m = t.substr(0, at) + std::string(tag, tl) + t.substr(at);
            if (!idgen::correlation_already_tagged(m.data(), m.size(), tag, tl)) __builtin_trap();
            if (idgen::correlation_already_tagged(t.data(), t.size(), tag, tl)) __builtin_trap();
        }
        if (idgen::correlation_already_tagged(s, size, tag, tl)) {
            const std::size_t a = idgen::correlation_tag_offset(s, size);
            if (tl == 0 || a < tl || std::memcmp(s + a - tl, tag, tl) != 0) __builtin_trap();
        }
    }

    // traceparent.
    idgen::TraceParent p{};
    if (idgen::traceparent_parse(s, size, p) == idgen::TraceparentProblem::kNone) {
        if (size < idgen::kTraceparentLen || p.version == 0xff) __builtin_trap();
        if (p.version == 0 && size != idgen::kTraceparentLen) __builtin_trap();
        if (size > idgen::kTraceparentLen && s[idgen::kTraceparentLen] != '-') __builtin_trap();
        for (std::size_t i = 0; i < idgen::kTraceparentLen; ++i) {
            const bool dash = i == 2 || i == 35 || i == 52;
            if (dash ? s[i] != '-' : !hex_lower_char(s[i])) __builtin_trap();
        }
        char f[idgen::kTraceparentLen];
        idgen::traceparent_format(p, f);
        // The ids re-format to the input's; version 00 re-formats to the whole input.
        if (std::memcmp(f + 2, s + 2, 51) != 0) __builtin_trap();
        if (p.version == 0 && std::memcmp(f, s, idgen::kTraceparentLen) != 0) __builtin_trap();
        auto c = idgen::traceparent_child(p, random);
        if (c.ok()) {
            idgen::traceparent_format(*c, f);
            idgen::TraceParent back{};
            if (idgen::traceparent_parse(f, sizeof f, back) != idgen::TraceparentProblem::kNone) __builtin_trap();
            if (std::memcmp(back.trace_id, p.trace_id, 16) != 0) __builtin_trap();
        }
    }
    return 0;
}
