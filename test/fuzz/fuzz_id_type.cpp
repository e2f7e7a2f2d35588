// libFuzzer target: the text parsers of per-entity ID types (create_id_type()) in every kind and
// format, and the TypeID 0.3 parser. Invariants: never crash; only the documented errors; TypeID
// text that parses re-encodes to itself (it has one spelling); a type's text that parses formats
// to text that parses back to the same value, and a prefixed input with the type's own prefix
// formats back to itself (base36 bodies lower-cased; KSUID and xid bodies exactly).
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/text/id_type.h"

namespace {

const char* const kSpecs[] = {
    "kind=ulid format=prefixed prefix=acct",     "kind=uuidv7 format=prefixed prefix=o2",
    "kind=snowflake format=prefixed prefix=evt", "kind=ulid format=typeid prefix=acct",
    "kind=uuidv7 format=typeid prefix=prefix",   "kind=ksuid format=prefixed prefix=k",
    "kind=xid format=prefixed prefix=ses",
};

bool wide(const idgen::IdTypeSpec& sp) { return sp.kind == idgen::IdKind::kKsuid || sp.kind == idgen::IdKind::kXid; }

bool same_value(const idgen::IdTypeSpec& sp, const idgen::IdValue& a, const idgen::IdValue& b) {
    if (wide(sp)) return std::memcmp(a.wide, b.wide, sizeof a.wide) == 0;
    return sp.kind == idgen::IdKind::kSnowflake ? a.i64 == b.i64 : std::memcmp(a.bytes, b.bytes, 16) == 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const char* s = reinterpret_cast<const char*>(data + 1);
    const std::size_t n = size - 1;

    auto t = idgen::typeid_parse(s, n);
    if (t.ok()) {
        if (!idgen::typeid_prefix_valid(t->prefix, t->prefix_len)) __builtin_trap();
        char out[idgen::kTypeidPrefixMaxLen + 1 + idgen::kTypeidSuffixLen];
        std::size_t len = 0;
        if (t->prefix_len > 0) {
            std::memcpy(out, t->prefix, t->prefix_len);
            out[t->prefix_len] = '_';
            len = t->prefix_len + 1u;
        }
        idgen::typeid_encode_suffix(t->id, out + len);
        len += idgen::kTypeidSuffixLen;
        if (len != n || std::memcmp(out, s, n) != 0) __builtin_trap();
    } else if (t.error() != idgen::Error::kInvalidSyntax && t.error() != idgen::Error::kOutOfRange) {
        __builtin_trap();
    }

    const char* spec_text = kSpecs[data[0] % (sizeof kSpecs / sizeof kSpecs[0])];
    auto sp = idgen::id_type_spec_parse(spec_text, std::strlen(spec_text));
    if (!sp.ok()) __builtin_trap();
    idgen::WrongPrefix wrong{};
    auto v = idgen::id_type_parse(*sp, s, n, &wrong);
    if (v.ok()) {
        char out[idgen::kIdTypeTextMaxLen];
        const std::size_t len = idgen::id_type_format(*sp, *v, out);
        auto back = idgen::id_type_parse(*sp, out, len, nullptr);
        if (!back.ok() || !same_value(*sp, *v, *back)) __builtin_trap();
        const std::size_t plen = sp->prefix_len;
        if (n > plen && std::memcmp(s, sp->prefix, plen) == 0 && s[plen] == '_') {
            if (len != n) __builtin_trap();
            for (std::size_t i = 0; i < n; ++i) {
                char c = s[i];
                // Base36 bodies are read in either case and written in lower case; a KSUID's or an
                // xid's own text has one spelling.
                if (sp->format == idgen::IdTextFormat::kPrefixed && !wide(*sp) && c >= 'A' && c <= 'Z')
                    c = static_cast<char>(c - 'A' + 'a');
                if (out[i] != c) __builtin_trap();
            }
        }
    } else if (v.error() == idgen::Error::kWrongPrefix) {
        if (wrong.len == 0 || wrong.len > idgen::kTypeidPrefixMaxLen) __builtin_trap();
        if (wrong.len == sp->prefix_len && std::memcmp(wrong.prefix, sp->prefix, wrong.len) == 0) __builtin_trap();
    } else if (v.error() != idgen::Error::kInvalidSyntax && v.error() != idgen::Error::kOutOfRange) {
        __builtin_trap();
    }
    return 0;
}
