#include "core/text/prefixed.h"

#include <cstring>

#include "core/base/bytes.h"
#include "core/base/no_pg_check.h"

namespace idgen {

bool prefix_valid(const char* p, std::size_t n) noexcept {
    if (n == 0 || n > kPrefixMaxLen) return false;
    if (p[0] < 'a' || p[0] > 'z') return false;
    for (std::size_t i = 1; i < n; ++i) {
        const char c = p[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) return false;
    }
    return true;
}

std::size_t prefixed_format_valid(const char* prefix, std::size_t prefix_len, const std::uint8_t (&id)[16], char* out,
                                  PrefixedBody body) noexcept {
    std::memcpy(out, prefix, prefix_len);
    out[prefix_len] = '_';
    if (body == PrefixedBody::kBase62) {
        base62_encode128(load_be128(id), out + prefix_len + 1);
    } else {
        base36_encode128(load_be128(id), out + prefix_len + 1);
    }
    return prefix_len + 1 + prefixed_body_len(body);
}

Result<std::size_t> prefixed_format(const char* prefix, std::size_t prefix_len, const std::uint8_t (&id)[16], char* out,
                                    PrefixedBody body) noexcept {
    if (!prefix_valid(prefix, prefix_len)) return Error::kInvalidPrefix;
    return prefixed_format_valid(prefix, prefix_len, id, out, body);
}

Result<PrefixedId> prefixed_parse(const char* s, std::size_t n, PrefixedBody body_encoding) noexcept {
    const std::size_t body_len = prefixed_body_len(body_encoding);
    if (n < 1 + 1 + body_len || n > kPrefixMaxLen + 1 + body_len) return Error::kInvalidSyntax;
    const std::size_t prefix_len = n - 1 - body_len;
    if (s[prefix_len] != '_' || !prefix_valid(s, prefix_len)) return Error::kInvalidSyntax;
    auto body = body_encoding == PrefixedBody::kBase62 ? base62_decode128(s + prefix_len + 1, body_len)
                                                       : base36_decode128(s + prefix_len + 1, body_len);
    if (!body) return body.error();
    PrefixedId out{};
    out.prefix_len = static_cast<std::uint8_t>(prefix_len);
    std::memcpy(out.prefix, s, prefix_len);
    store_be128(out.id, *body);
    return out;
}

}  // namespace idgen
