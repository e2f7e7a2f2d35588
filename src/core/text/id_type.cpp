#include "core/text/id_type.h"

#include <cstring>

#include "core/base/bytes.h"
#include "core/text/base36.h"
#include "core/text/prefixed.h"
#include "core/text/uuid_text.h"
#include "core/types/ksuid.h"
#include "core/types/snowflake.h"
#include "core/types/ulid.h"
#include "core/types/xid.h"
#include "core/base/no_pg_check.h"

namespace idgen {

namespace {

constexpr char kAlphabet[] = "0123456789abcdefghjkmnpqrstvwxyz";

// The value of each lower-case TypeID character; -1 for every other byte (upper case, the
// Crockford aliases i, l, o, u, and anything else).
struct DigitTable {
    std::int8_t v[256];
    constexpr DigitTable() : v() {
        for (int i = 0; i < 256; ++i) v[i] = -1;
        for (int i = 0; i < 32; ++i) v[static_cast<unsigned char>(kAlphabet[i])] = static_cast<std::int8_t>(i);
    }
};
constexpr DigitTable kDigits;

int typeid_digit(char c) noexcept { return kDigits.v[static_cast<unsigned char>(c)]; }

bool is_lower(char c) noexcept { return c >= 'a' && c <= 'z'; }

bool equal(const char* a, std::size_t an, const char* b, std::size_t bn) noexcept {
    return an == bn && std::memcmp(a, b, an) == 0;
}

// Reads the body of `<prefix>_<body>` for the spec's kind and format.
Result<IdValue> parse_body(const IdTypeSpec& spec, const char* s, std::size_t n) noexcept {
    IdValue v{};
    if (spec.format == IdTextFormat::kTypeid) {
        auto ok = typeid_decode_suffix(s, n, v.bytes);
        if (!ok) return ok.error();
        return v;
    }
    if (spec.kind == IdKind::kSnowflake) {
        if (n != kBase36Len64) return Error::kInvalidSyntax;
        auto d = base36_decode64(s, n);
        if (!d) return d.error();
        if (*d < 1 || *d > static_cast<std::uint64_t>(INT64_MAX)) return Error::kOutOfRange;
        v.i64 = static_cast<std::int64_t>(*d);
        return v;
    }
    if (spec.kind == IdKind::kKsuid) {
        auto k = ksuid_parse(s, n);
        if (!k) return k.error();
        std::memcpy(v.wide, k->bytes, sizeof k->bytes);
        return v;
    }
    if (spec.kind == IdKind::kXid) {
        auto x = xid_parse(s, n);
        if (!x) return x.error();
        std::memcpy(v.wide, x->bytes, sizeof x->bytes);
        return v;
    }
    if (n != kBase36Len128) return Error::kInvalidSyntax;
    auto d = base36_decode128(s, n);
    if (!d) return d.error();
    store_be128(v.bytes, *d);
    return v;
}

// Reads the kind's own text: a ULID, a uuid, a decimal snowflake (and, for a typeid-format type,
// a bare 26-character suffix).
Result<IdValue> parse_bare(const IdTypeSpec& spec, const char* s, std::size_t n) noexcept {
    IdValue v{};
    switch (spec.kind) {
        case IdKind::kSnowflake: {
            auto d = snowflake_parse(s, n);
            if (!d) return d.error();
            v.i64 = *d;
            return v;
        }
        case IdKind::kUlid: {
            auto u = ulid_parse(s, n);
            if (!u) return u.error();
            std::memcpy(v.bytes, u->bytes, 16);
            return v;
        }
        case IdKind::kUuidv7: {
            if (spec.format == IdTextFormat::kTypeid && n == kTypeidSuffixLen) return parse_body(spec, s, n);
            auto u = uuid_parse(s, n);
            if (!u) return u.error();
            std::memcpy(v.bytes, u->bytes, 16);
            return v;
        }
        case IdKind::kKsuid:
        case IdKind::kXid: return parse_body(spec, s, n);  // the ID's own text is the prefixed body
    }
    return Error::kInvalidSyntax;
}

}  // namespace

bool typeid_prefix_valid(const char* p, std::size_t n) noexcept {
    if (n == 0) return true;
    if (n > kTypeidPrefixMaxLen || !is_lower(p[0]) || !is_lower(p[n - 1])) return false;
    for (std::size_t i = 1; i + 1 < n; ++i) {
        if (!is_lower(p[i]) && p[i] != '_') return false;
    }
    return true;
}

bool id_type_prefix_valid(IdKind kind, IdTextFormat format, const char* p, std::size_t n) noexcept {
    if (!prefix_valid(p, n)) return false;  // the registry's rule
    if (format == IdTextFormat::kPrefixed) return true;
    if (kind == IdKind::kSnowflake || kind == IdKind::kKsuid || kind == IdKind::kXid)
        return false;  // TypeID holds 128 bits
    return typeid_prefix_valid(p, n);
}

Result<IdTypeSpec> id_type_spec_parse(const char* s, std::size_t n) noexcept {
    IdTypeSpec spec{};
    const char* end = s + n;
    auto field = [&](const char* key, const char*& value, std::size_t& len) noexcept {
        const std::size_t k = std::strlen(key);
        if (static_cast<std::size_t>(end - s) < k || std::memcmp(s, key, k) != 0) return false;
        s += k;
        value = s;
        while (s < end && *s != ' ') ++s;
        len = static_cast<std::size_t>(s - value);
        if (s < end) ++s;  // the space
        return true;
    };
    const char* v;
    std::size_t len;
    if (!field("kind=", v, len)) return Error::kInvalidSyntax;
    if (equal(v, len, "ulid", 4))
        spec.kind = IdKind::kUlid;
    else if (equal(v, len, "uuidv7", 6))
        spec.kind = IdKind::kUuidv7;
    else if (equal(v, len, "snowflake", 9))
        spec.kind = IdKind::kSnowflake;
    else if (equal(v, len, "ksuid", 5))
        spec.kind = IdKind::kKsuid;
    else if (equal(v, len, "xid", 3))
        spec.kind = IdKind::kXid;
    else
        return Error::kInvalidSyntax;
    if (!field("format=", v, len)) return Error::kInvalidSyntax;
    if (equal(v, len, "prefixed", 8))
        spec.format = IdTextFormat::kPrefixed;
    else if (equal(v, len, "typeid", 6))
        spec.format = IdTextFormat::kTypeid;
    else
        return Error::kInvalidSyntax;
    if (!field("prefix=", v, len) || v + len != end) return Error::kInvalidSyntax;
    if (!id_type_prefix_valid(spec.kind, spec.format, v, len)) return Error::kInvalidSyntax;
    spec.prefix_len = static_cast<std::uint8_t>(len);
    std::memcpy(spec.prefix, v, len);
    return spec;
}

void typeid_encode_suffix(const std::uint8_t (&id)[16], char* out) noexcept {
    const unsigned __int128 v = load_be128(id);
    // 26 digits of 5 bits = 130 bits: the first digit carries the top 3.
    for (int i = 25; i >= 0; --i) {
        out[i] = kAlphabet[static_cast<unsigned>((v >> (5 * (25 - i))) & 31)];
    }
}

Result<bool> typeid_decode_suffix(const char* s, std::size_t n, std::uint8_t (&id)[16]) noexcept {
    if (n != kTypeidSuffixLen) return Error::kInvalidSyntax;
    unsigned __int128 v = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const int d = typeid_digit(s[i]);
        if (d < 0) return Error::kInvalidSyntax;
        v = (v << 5) | static_cast<unsigned>(d);
    }
    if (typeid_digit(s[0]) > 7) return Error::kOutOfRange;
    store_be128(id, v);
    return true;
}

Result<TypeId> typeid_parse(const char* s, std::size_t n) noexcept {
    TypeId out{};
    std::size_t sep = n;
    for (std::size_t i = n; i > 0; --i) {
        if (s[i - 1] == '_') {
            sep = i - 1;
            break;
        }
    }
    const char* suffix = s;
    std::size_t suffix_len = n;
    if (sep != n) {
        if (sep == 0) return Error::kInvalidSyntax;  // a separator with an empty prefix
        if (!typeid_prefix_valid(s, sep)) return Error::kInvalidSyntax;
        out.prefix_len = static_cast<std::uint8_t>(sep);
        std::memcpy(out.prefix, s, sep);
        suffix = s + sep + 1;
        suffix_len = n - sep - 1;
    }
    auto ok = typeid_decode_suffix(suffix, suffix_len, out.id);
    if (!ok) return ok.error();
    return out;
}

std::size_t id_type_format(const IdTypeSpec& spec, const IdValue& v, char* out) noexcept {
    std::memcpy(out, spec.prefix, spec.prefix_len);
    std::size_t n = spec.prefix_len;
    out[n++] = '_';
    if (spec.format == IdTextFormat::kTypeid) {
        typeid_encode_suffix(v.bytes, out + n);
        return n + kTypeidSuffixLen;
    }
    if (spec.kind == IdKind::kSnowflake) {
        base36_encode64(static_cast<std::uint64_t>(v.i64), out + n);
        return n + kBase36Len64;
    }
    if (spec.kind == IdKind::kKsuid) {
        Ksuid k;
        std::memcpy(k.bytes, v.wide, sizeof k.bytes);
        ksuid_format(k, out + n);
        return n + kKsuidTextLen;
    }
    if (spec.kind == IdKind::kXid) {
        Xid x;
        std::memcpy(x.bytes, v.wide, sizeof x.bytes);
        xid_format(x, out + n);
        return n + kXidTextLen;
    }
    base36_encode128(load_be128(v.bytes), out + n);
    return n + kBase36Len128;
}

Result<IdValue> id_type_parse(const IdTypeSpec& spec, const char* s, std::size_t n, WrongPrefix* wrong) noexcept {
    std::size_t sep = n;
    for (std::size_t i = n; i > 0; --i) {
        if (s[i - 1] == '_') {
            sep = i - 1;
            break;
        }
    }
    if (sep == n) return parse_bare(spec, s, n);
    if (!equal(s, sep, spec.prefix, spec.prefix_len)) {
        // Another prefix: name it when a type could have it (whatever the body, which may be in
        // another type's format), so the error says which entity's ID this is.
        if (sep > 0 && (prefix_valid(s, sep) || typeid_prefix_valid(s, sep))) {
            if (wrong != nullptr) {
                wrong->len = static_cast<std::uint8_t>(sep);
                std::memcpy(wrong->prefix, s, sep);
            }
            return Error::kWrongPrefix;
        }
        return Error::kInvalidSyntax;
    }
    return parse_body(spec, s + sep + 1, n - sep - 1);
}

}  // namespace idgen

static_assert(idgen::kIdTypeTextMaxLen == idgen::kIdTypePrefixMaxLen + 1 + idgen::kKsuidTextLen);
