// id_gen core: the text forms of per-entity ID types (create_id_type()) and TypeID.
//
// A per-entity type is one of five kinds (ulid, uuidv7: 128 bits; snowflake: 64 bits, 1..2^63-1;
// ksuid: 160 bits; xid: 96 bits, the rsxid type) with a prefix. Its text is one of two formats:
//   * prefixed: `<prefix>_<body>`, the body in fixed-width lower-case base36 (25 characters for
//     128 bits, as prefixed_format() writes them; 13 for a snowflake; for a ksuid its own 27
//     base62 characters and for an xid its own 20 base32hex ones, in order under COLLATE "C"), so
//     text order = ID order;
//   * typeid (128-bit kinds only): TypeID 0.3, `<prefix>_` and 26 lower-case Crockford base32
//     characters of the 16 bytes (alphabet 0-9a-hjkmnp-tv-z, no aliases, first character <= '7').
// Either format also reads the kind's own bare text (a ULID, a uuid, a decimal snowflake, a KSUID,
// an xid).
//
// Prefixes: the prefix registry's rule is ^[a-z][a-z0-9]{0,15}$; TypeID's is ^([a-z]([a-z_]{0,61}[a-z])?)?$.
// A typeid-format type's prefix must pass both, i.e. 1 to 16 lower-case letters.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/base/result.h"

namespace idgen {

enum class IdKind : std::uint8_t { kUlid, kUuidv7, kSnowflake, kKsuid, kXid };
enum class IdTextFormat : std::uint8_t { kPrefixed, kTypeid };

inline constexpr std::size_t kTypeidPrefixMaxLen = 63;
inline constexpr std::size_t kTypeidSuffixLen = 26;
inline constexpr std::size_t kIdTypePrefixMaxLen = 16;
// The longest text of a per-entity type: a 16-character prefix, '_', a 27-character KSUID (longer
// than a 26-character TypeID suffix or 25 base36 characters).
inline constexpr std::size_t kIdTypeTextMaxLen = kIdTypePrefixMaxLen + 1 + 27;

// What a per-entity type is: its kind, its text format and its prefix.
struct IdTypeSpec {
    IdKind kind;
    IdTextFormat format;
    std::uint8_t prefix_len;
    char prefix[kIdTypePrefixMaxLen];
};

// True when p[0..n) is a prefix TypeID 0.3 accepts (empty included).
[[nodiscard]] bool typeid_prefix_valid(const char* p, std::size_t n) noexcept;

// True when p[0..n) may be the prefix of a type of this kind and format (see above).
[[nodiscard]] bool id_type_prefix_valid(IdKind kind, IdTextFormat format, const char* p, std::size_t n) noexcept;

// The spec string a type carries in its catalog entry: "kind=<ulid|uuidv7|snowflake|ksuid|xid>
// format=<prefixed|typeid> prefix=<prefix>" (single spaces, this order). kInvalidSyntax for
// anything else, including a prefix the kind and format do not allow.
[[nodiscard]] Result<IdTypeSpec> id_type_spec_parse(const char* s, std::size_t n) noexcept;

// TypeID 0.3: the 26-character suffix of 16 bytes (lower case), and the way back: exactly 26
// characters of the lower-case alphabet (kInvalidSyntax otherwise), first <= '7' (kOutOfRange).
void typeid_encode_suffix(const std::uint8_t (&id)[16], char* out) noexcept;
[[nodiscard]] Result<bool> typeid_decode_suffix(const char* s, std::size_t n, std::uint8_t (&id)[16]) noexcept;

struct TypeId {
    std::uint8_t prefix_len;
    char prefix[kTypeidPrefixMaxLen];
    std::uint8_t id[16];
};

// A whole TypeID: `prefix_suffix`, or a bare suffix (empty prefix), split at the last '_'.
[[nodiscard]] Result<TypeId> typeid_parse(const char* s, std::size_t n) noexcept;

// The value of a per-entity type: 16 bytes for the 128-bit kinds, a snowflake in `i64`, or the 20
// bytes of a KSUID or the 12 of an xid at the start of `wide`.
struct IdValue {
    std::uint8_t bytes[16];
    std::int64_t i64;
    std::uint8_t wide[20];
};

// Writes the text of `v` for `spec` into out (room for kIdTypeTextMaxLen) and returns its length.
[[nodiscard]] std::size_t id_type_format(const IdTypeSpec& spec, const IdValue& v, char* out) noexcept;

// What id_type_parse() found when it failed with kWrongPrefix: the prefix the text carries.
struct WrongPrefix {
    std::uint8_t len;
    char prefix[kTypeidPrefixMaxLen];
};

// Reads the type's text (either format's own, or the kind's bare text). kWrongPrefix (with the
// prefix found in `wrong`) when the text carries another prefix that a type could have, whatever
// its body; kInvalidSyntax / kOutOfRange as the kind's parser says otherwise.
[[nodiscard]] Result<IdValue> id_type_parse(const IdTypeSpec& spec, const char* s, std::size_t n,
                                            WrongPrefix* wrong) noexcept;

}  // namespace idgen
