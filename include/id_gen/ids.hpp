// id_gen C++ library: the ID value types and their text codecs.
//
// Every type here is a small value (16 bytes, 8 bytes, or a prefix and 16 bytes) with the same
// bits and the same text as the extension's SQL type of the same name, and is encoded and decoded
// by the same code the extension runs (the library is built from the extension's src/core). Text
// that the SQL type refuses, these refuse with the same SQLSTATE (see id_gen::error).
//
//   C++                  SQL type             text
//   id_gen::Ulid         ulid                 26 Crockford base32 characters
//   id_gen::Uuid         uuid                 8-4-4-4-12 hex (UUIDv7 from the generators)
//   id_gen::Snowflake    snowflake            decimal, 1 .. 2^63-1
//   id_gen::Base36_64    base36_64            13 base36 characters, 0 .. 2^63-1
//   id_gen::Base36_128   base36_128           25 base36 characters, any 128-bit value
//   id_gen::Base62_64    base62_64            11 base62 characters, 0 .. 2^63-1
//   id_gen::Base62_128   base62_128           22 base62 characters, any 128-bit value
//   id_gen::PrefixedId   text (prefixed_*)    <prefix>_<25 base36 or 22 base62 characters>
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

#include "id_gen/error.hpp"

namespace id_gen {

using Bytes16 = std::array<std::uint8_t, 16>;
// Times inside IDs: Unix milliseconds (ULID, UUIDv7, snowflake) or microseconds (UUID times).
using sys_milliseconds = std::chrono::time_point<std::chrono::system_clock, std::chrono::milliseconds>;
using sys_microseconds = std::chrono::time_point<std::chrono::system_clock, std::chrono::microseconds>;

class Uuid;
class Snowflake;

// ---------------------------------------------------------------------------------------------
// ULID: 48 bits of Unix milliseconds, then 80 random bits, big-endian; byte order = time order =
// text order. The same 16 bytes as a uuid (SQL's ulid::uuid cast, to_uuid() here).
class Ulid {
public:
    static constexpr std::size_t text_size = 26;

    constexpr Ulid() noexcept = default;  // all zero bits: 00000000000000000000000000
    constexpr explicit Ulid(const Bytes16& bytes) noexcept : bytes_(bytes) {}

    // 26 Crockford base32 characters, either case. Other lengths and characters (I, L, O, U
    // included) throw errc::invalid_syntax; a first character above '7' errc::out_of_range.
    [[nodiscard]] static Ulid parse(std::string_view text);
    [[nodiscard]] static std::optional<Ulid> try_parse(std::string_view text) noexcept;

    // The smallest and the largest ULID of a millisecond (SQL: ulid_lower, ulid_upper), and one
    // with fresh random bits (SQL: gen_ulid(timestamptz)); errc::time_out_of_range before 1970 or
    // after 10889-08-02.
    [[nodiscard]] static Ulid lower(sys_milliseconds t);
    [[nodiscard]] static Ulid upper(sys_milliseconds t);
    [[nodiscard]] static Ulid random_at(sys_milliseconds t);

    // 26 upper-case characters.
    [[nodiscard]] std::string to_string() const;
    // Writes text_size characters (no terminator) and returns the end.
    char* write(char* out) const noexcept;

    // The time inside the ID (SQL: ulid_time).
    [[nodiscard]] std::int64_t unix_ms() const noexcept;
    [[nodiscard]] sys_milliseconds time() const noexcept { return sys_milliseconds(std::chrono::milliseconds(unix_ms())); }

    [[nodiscard]] constexpr const Bytes16& bytes() const noexcept { return bytes_; }
    [[nodiscard]] Uuid to_uuid() const noexcept;

    friend bool operator==(const Ulid& a, const Ulid& b) noexcept { return a.bytes_ == b.bytes_; }
    friend bool operator!=(const Ulid& a, const Ulid& b) noexcept { return a.bytes_ != b.bytes_; }
    friend bool operator<(const Ulid& a, const Ulid& b) noexcept { return a.bytes_ < b.bytes_; }
    friend bool operator>(const Ulid& a, const Ulid& b) noexcept { return a.bytes_ > b.bytes_; }
    friend bool operator<=(const Ulid& a, const Ulid& b) noexcept { return a.bytes_ <= b.bytes_; }
    friend bool operator>=(const Ulid& a, const Ulid& b) noexcept { return a.bytes_ >= b.bytes_; }

private:
    Bytes16 bytes_{};
};

// ---------------------------------------------------------------------------------------------
// UUID: any RFC 9562 UUID; the generators make version 7 (48 bits of Unix milliseconds, version,
// 12 bits of sub-millisecond fraction, variant, 62 random bits), as PostgreSQL 18's uuidv7().
class Uuid {
public:
    static constexpr std::size_t text_size = 36;

    constexpr Uuid() noexcept = default;  // the nil UUID
    constexpr explicit Uuid(const Bytes16& bytes) noexcept : bytes_(bytes) {}

    // What PostgreSQL's uuid input accepts: 32 hex digits, either case, optionally in braces, with
    // an optional '-' after any group of four digits. Anything else: errc::invalid_syntax.
    [[nodiscard]] static Uuid parse(std::string_view text);
    [[nodiscard]] static std::optional<Uuid> try_parse(std::string_view text) noexcept;

    // The smallest and the largest UUIDv7 of a millisecond; errc::time_out_of_range outside
    // 1970 .. 10889-08-02.
    [[nodiscard]] static Uuid v7_lower(sys_milliseconds t);
    [[nodiscard]] static Uuid v7_upper(sys_milliseconds t);

    // 36 lower-case characters, 8-4-4-4-12, as PostgreSQL prints a uuid.
    [[nodiscard]] std::string to_string() const;
    char* write(char* out) const noexcept;

    // The version field; -1 when the variant is not RFC 9562's (SQL's uuid_extract_version
    // returns NULL there).
    [[nodiscard]] int version() const noexcept;
    // SQL's uuid_time (the extension's uuid_extract_timestamp): the time of a version 1, 6 or 7
    // UUID, nothing for others (PostgreSQL 18's core function does not read version 6).
    [[nodiscard]] std::optional<sys_microseconds> time() const noexcept;
    // SQL's uuidv7_time_precise: version 7 only, the millisecond plus the 12-bit fraction
    // (exact to the microsecond for IDs this library or PostgreSQL 18 made).
    [[nodiscard]] std::optional<sys_microseconds> v7_time_precise() const noexcept;

    [[nodiscard]] constexpr const Bytes16& bytes() const noexcept { return bytes_; }
    [[nodiscard]] Ulid to_ulid() const noexcept { return Ulid(bytes_); }

    friend bool operator==(const Uuid& a, const Uuid& b) noexcept { return a.bytes_ == b.bytes_; }
    friend bool operator!=(const Uuid& a, const Uuid& b) noexcept { return a.bytes_ != b.bytes_; }
    friend bool operator<(const Uuid& a, const Uuid& b) noexcept { return a.bytes_ < b.bytes_; }
    friend bool operator>(const Uuid& a, const Uuid& b) noexcept { return a.bytes_ > b.bytes_; }
    friend bool operator<=(const Uuid& a, const Uuid& b) noexcept { return a.bytes_ <= b.bytes_; }
    friend bool operator>=(const Uuid& a, const Uuid& b) noexcept { return a.bytes_ >= b.bytes_; }

private:
    Bytes16 bytes_{};
};

inline Uuid Ulid::to_uuid() const noexcept { return Uuid(bytes_); }

// ---------------------------------------------------------------------------------------------
// Snowflake layouts: an epoch, a time unit and time | node | sequence widths (sonyflake: time |
// sequence | machine), the same layouts the SQL functions name.
namespace detail {
struct LayoutData {
    std::uint8_t kind;
    std::int64_t epoch_ms;
    std::int64_t unit_ms;
    std::uint8_t time_bits, node_bits, seq_bits;
    std::uint8_t time_shift, node_shift, seq_shift;
    std::int64_t time_max;
};
}  // namespace detail

class SnowflakeLayout {
public:
    static constexpr std::int64_t twitter_epoch_ms = 1288834974657;    // 2010-11-04T01:42:54.657Z
    static constexpr std::int64_t instagram_epoch_ms = 1314220021721;  // 2011-08-24T21:07:01.721Z

    // 41 ms | 10 node | 12 sequence since twitter_epoch_ms (the default everywhere).
    [[nodiscard]] static SnowflakeLayout twitter() noexcept;
    // 41 ms | 13 shard | 10 sequence (all 64 bits: 2^40 ms usable) since `epoch_ms`.
    [[nodiscard]] static SnowflakeLayout instagram(std::int64_t epoch_ms = instagram_epoch_ms);
    // 39 × 10 ms | 8 sequence | 16 machine since 2014-09-01.
    [[nodiscard]] static SnowflakeLayout sonyflake() noexcept;
    // 41 ms | 4 node | 8 sequence since 2024-01-01: every ID <= 2^53-1.
    [[nodiscard]] static SnowflakeLayout javascript() noexcept;
    // "twitter", "instagram", "sonyflake", "javascript" (ASCII case-insensitive), as SQL's
    // layout argument; anything else throws errc::invalid_argument.
    [[nodiscard]] static SnowflakeLayout named(std::string_view name);
    // time | node | sequence in milliseconds: time 1..63 bits, node 0..31, sequence 0..31,
    // summing to at most 63, epoch within ±2^53 ms; otherwise errc::invalid_argument.
    [[nodiscard]] static SnowflakeLayout custom(std::int64_t epoch_ms, int time_bits, int node_bits, int sequence_bits);

    [[nodiscard]] std::int64_t epoch_ms() const noexcept { return d_.epoch_ms; }
    [[nodiscard]] std::int64_t unit_ms() const noexcept { return d_.unit_ms; }
    [[nodiscard]] int time_bits() const noexcept { return d_.time_bits; }
    [[nodiscard]] int node_bits() const noexcept { return d_.node_bits; }
    [[nodiscard]] int sequence_bits() const noexcept { return d_.seq_bits; }
    [[nodiscard]] std::uint32_t node_max() const noexcept { return (std::uint32_t{1} << d_.node_bits) - 1; }
    [[nodiscard]] std::uint32_t sequence_max() const noexcept { return (std::uint32_t{1} << d_.seq_bits) - 1; }

    // The smallest / largest ID (any node) whose time unit contains `t` (SQL: snowflake_lower,
    // snowflake_upper); errc::time_out_of_range before the epoch or past the layout's last unit.
    [[nodiscard]] Snowflake lower(sys_milliseconds t) const;
    [[nodiscard]] Snowflake upper(sys_milliseconds t) const;
    // Packs fields (time in layout units since the epoch); errc::out_of_range unless each fits
    // and the result is >= 1.
    [[nodiscard]] Snowflake pack(std::int64_t time_units, std::uint32_t node, std::uint32_t sequence) const;

    [[nodiscard]] const detail::LayoutData& data() const noexcept { return d_; }

    friend bool operator==(const SnowflakeLayout& a, const SnowflakeLayout& b) noexcept {
        return a.d_.kind == b.d_.kind && a.d_.epoch_ms == b.d_.epoch_ms && a.d_.unit_ms == b.d_.unit_ms &&
               a.d_.time_bits == b.d_.time_bits && a.d_.node_bits == b.d_.node_bits && a.d_.seq_bits == b.d_.seq_bits;
    }
    friend bool operator!=(const SnowflakeLayout& a, const SnowflakeLayout& b) noexcept { return !(a == b); }

private:
    explicit SnowflakeLayout(const detail::LayoutData& d) noexcept;
    detail::LayoutData d_;
};

// A 64-bit time-ordered integer ID, 1 .. 2^63-1 (SQL: snowflake). Which bits are time, node and
// sequence depends on the layout, so every decoder takes one (twitter by default, as in SQL).
class Snowflake {
public:
    static constexpr std::size_t max_text_size = 19;

    constexpr Snowflake() noexcept = default;  // 0: not an ID (the server refuses it)

    // errc::out_of_range unless 1 <= value <= 2^63-1.
    [[nodiscard]] static Snowflake from_int(std::int64_t value);
    // Decimal text as SQL reads it (surrounding spaces and a '+' allowed): errc::invalid_syntax,
    // or errc::out_of_range for 0, negatives and values above 2^63-1.
    [[nodiscard]] static Snowflake parse(std::string_view text);
    [[nodiscard]] static std::optional<Snowflake> try_parse(std::string_view text) noexcept;
    // 1 to 13 base36 characters (SQL: snowflake_from_base36).
    [[nodiscard]] static Snowflake from_base36(std::string_view text);

    [[nodiscard]] constexpr std::int64_t value() const noexcept { return value_; }
    [[nodiscard]] std::string to_string() const;
    // 13 lower-case base36 characters (SQL: snowflake_to_base36).
    [[nodiscard]] std::string to_base36() const;

    // SQL: snowflake_time, snowflake_node, snowflake_sequence.
    [[nodiscard]] std::int64_t unix_ms(const SnowflakeLayout& layout = SnowflakeLayout::twitter()) const noexcept;
    [[nodiscard]] sys_milliseconds time(const SnowflakeLayout& layout = SnowflakeLayout::twitter()) const noexcept {
        return sys_milliseconds(std::chrono::milliseconds(unix_ms(layout)));
    }
    [[nodiscard]] std::uint32_t node(const SnowflakeLayout& layout = SnowflakeLayout::twitter()) const noexcept;
    [[nodiscard]] std::uint32_t sequence(const SnowflakeLayout& layout = SnowflakeLayout::twitter()) const noexcept;

    friend constexpr bool operator==(Snowflake a, Snowflake b) noexcept { return a.value_ == b.value_; }
    friend constexpr bool operator!=(Snowflake a, Snowflake b) noexcept { return a.value_ != b.value_; }
    friend constexpr bool operator<(Snowflake a, Snowflake b) noexcept { return a.value_ < b.value_; }
    friend constexpr bool operator>(Snowflake a, Snowflake b) noexcept { return a.value_ > b.value_; }
    friend constexpr bool operator<=(Snowflake a, Snowflake b) noexcept { return a.value_ <= b.value_; }
    friend constexpr bool operator>=(Snowflake a, Snowflake b) noexcept { return a.value_ >= b.value_; }

private:
    constexpr explicit Snowflake(std::int64_t v) noexcept : value_(v) {}
    friend class SnowflakeLayout;
    friend class SnowflakeGenerator;
    std::int64_t value_ = 0;
};

// ---------------------------------------------------------------------------------------------
// base36: lower-case 0-9a-z, fixed width (13 characters for 64 bits, 25 for 128) so that text
// order = numeric order; read in either case, shorter input and extra leading zeros accepted.

// SQL base36_64: a non-negative bigint (0 .. 2^63-1) whose text is base36.
class Base36_64 {
public:
    static constexpr std::size_t text_size = 13;

    constexpr Base36_64() noexcept = default;
    // errc::out_of_range for a negative value.
    [[nodiscard]] static Base36_64 from_int(std::int64_t value);
    [[nodiscard]] static Base36_64 parse(std::string_view text);
    [[nodiscard]] static std::optional<Base36_64> try_parse(std::string_view text) noexcept;

    [[nodiscard]] constexpr std::int64_t value() const noexcept { return value_; }
    [[nodiscard]] std::string to_string() const;

    friend constexpr bool operator==(Base36_64 a, Base36_64 b) noexcept { return a.value_ == b.value_; }
    friend constexpr bool operator!=(Base36_64 a, Base36_64 b) noexcept { return a.value_ != b.value_; }
    friend constexpr bool operator<(Base36_64 a, Base36_64 b) noexcept { return a.value_ < b.value_; }

private:
    constexpr explicit Base36_64(std::int64_t v) noexcept : value_(v) {}
    std::int64_t value_ = 0;
};

// SQL base36_128: 16 bytes (a uuid's or a ulid's) whose text is base36.
class Base36_128 {
public:
    static constexpr std::size_t text_size = 25;

    constexpr Base36_128() noexcept = default;
    constexpr explicit Base36_128(const Bytes16& bytes) noexcept : bytes_(bytes) {}
    explicit Base36_128(const Uuid& id) noexcept : bytes_(id.bytes()) {}
    explicit Base36_128(const Ulid& id) noexcept : bytes_(id.bytes()) {}

    [[nodiscard]] static Base36_128 parse(std::string_view text);
    [[nodiscard]] static std::optional<Base36_128> try_parse(std::string_view text) noexcept;

    [[nodiscard]] std::string to_string() const;
    [[nodiscard]] constexpr const Bytes16& bytes() const noexcept { return bytes_; }
    [[nodiscard]] Uuid to_uuid() const noexcept { return Uuid(bytes_); }
    [[nodiscard]] Ulid to_ulid() const noexcept { return Ulid(bytes_); }

    friend bool operator==(const Base36_128& a, const Base36_128& b) noexcept { return a.bytes_ == b.bytes_; }
    friend bool operator!=(const Base36_128& a, const Base36_128& b) noexcept { return a.bytes_ != b.bytes_; }
    friend bool operator<(const Base36_128& a, const Base36_128& b) noexcept { return a.bytes_ < b.bytes_; }

private:
    Bytes16 bytes_{};
};

// ---------------------------------------------------------------------------------------------
// base62: 0-9A-Za-z in ASCII order, fixed width (11 characters for 64 bits, 22 for 128), so that
// under a bytewise comparison (COLLATE "C") text order = numeric order. Input is strict: exactly
// that many characters, case-sensitive ('a' and 'A' are different digits).

// SQL base62_64: a non-negative bigint (0 .. 2^63-1) whose text is base62.
class Base62_64 {
public:
    static constexpr std::size_t text_size = 11;

    constexpr Base62_64() noexcept = default;
    // errc::out_of_range for a negative value.
    [[nodiscard]] static Base62_64 from_int(std::int64_t value);
    [[nodiscard]] static Base62_64 parse(std::string_view text);
    [[nodiscard]] static std::optional<Base62_64> try_parse(std::string_view text) noexcept;

    [[nodiscard]] constexpr std::int64_t value() const noexcept { return value_; }
    [[nodiscard]] std::string to_string() const;

    friend constexpr bool operator==(Base62_64 a, Base62_64 b) noexcept { return a.value_ == b.value_; }
    friend constexpr bool operator!=(Base62_64 a, Base62_64 b) noexcept { return a.value_ != b.value_; }
    friend constexpr bool operator<(Base62_64 a, Base62_64 b) noexcept { return a.value_ < b.value_; }

private:
    constexpr explicit Base62_64(std::int64_t v) noexcept : value_(v) {}
    std::int64_t value_ = 0;
};

// SQL base62_128: 16 bytes (a uuid's or a ulid's) whose text is base62.
class Base62_128 {
public:
    static constexpr std::size_t text_size = 22;

    constexpr Base62_128() noexcept = default;
    constexpr explicit Base62_128(const Bytes16& bytes) noexcept : bytes_(bytes) {}
    explicit Base62_128(const Uuid& id) noexcept : bytes_(id.bytes()) {}
    explicit Base62_128(const Ulid& id) noexcept : bytes_(id.bytes()) {}

    [[nodiscard]] static Base62_128 parse(std::string_view text);
    [[nodiscard]] static std::optional<Base62_128> try_parse(std::string_view text) noexcept;

    [[nodiscard]] std::string to_string() const;
    [[nodiscard]] constexpr const Bytes16& bytes() const noexcept { return bytes_; }
    [[nodiscard]] Uuid to_uuid() const noexcept { return Uuid(bytes_); }
    [[nodiscard]] Ulid to_ulid() const noexcept { return Ulid(bytes_); }

    friend bool operator==(const Base62_128& a, const Base62_128& b) noexcept { return a.bytes_ == b.bytes_; }
    friend bool operator!=(const Base62_128& a, const Base62_128& b) noexcept { return a.bytes_ != b.bytes_; }
    friend bool operator<(const Base62_128& a, const Base62_128& b) noexcept { return a.bytes_ < b.bytes_; }

private:
    Bytes16 bytes_{};
};

namespace base36 {
// 13 characters for any 64-bit value (the SQL types stop at 2^63-1), 25 for 16 bytes.
[[nodiscard]] std::string encode(std::uint64_t value);
[[nodiscard]] std::string encode(const Bytes16& bytes);
// 1 or more base36 digits: errc::invalid_syntax, or errc::out_of_range above 2^64-1 / 2^128-1.
[[nodiscard]] std::uint64_t decode64(std::string_view text);
[[nodiscard]] Bytes16 decode128(std::string_view text);
}  // namespace base36

namespace base62 {
// 11 characters for any 64-bit value (the SQL types stop at 2^63-1), 22 for 16 bytes.
[[nodiscard]] std::string encode(std::uint64_t value);
[[nodiscard]] std::string encode(const Bytes16& bytes);
// Exactly 11 / 22 base62 digits: errc::invalid_syntax, or errc::out_of_range above 2^64-1 / 2^128-1.
[[nodiscard]] std::uint64_t decode64(std::string_view text);
[[nodiscard]] Bytes16 decode128(std::string_view text);
}  // namespace base62

// Crockford base32 as ULIDs use it: 16 bytes <-> 26 characters (0-9 A-H J K M N P-T V-Z).
namespace crockford32 {
[[nodiscard]] std::string encode(const Bytes16& bytes);
[[nodiscard]] Bytes16 decode(std::string_view text);
}  // namespace crockford32

// ---------------------------------------------------------------------------------------------
// Prefixed typed IDs: `<prefix>_<body>` (acct_0b6ol7g0qk5tbhc8y8hbzs2sf). The prefix is 1 to 16
// lower-case ASCII letters and digits, starting with a letter; the body is the 16-byte ID in
// base36 (25 characters, the default) or base62 (22 characters), as the caller says, never guessed
// from the length (SQL: prefixed_format, prefixed_parse, prefixed_split and their body argument).
enum class PrefixedBody : std::uint8_t { base36, base62 };

class PrefixedId {
public:
    static constexpr std::size_t max_prefix_size = 16;
    static constexpr std::size_t max_text_size = max_prefix_size + 1 + Base36_128::text_size;

    PrefixedId() noexcept = default;  // no prefix: to_string() throws errc::invalid_prefix
    // errc::invalid_prefix for a prefix that breaks the rule.
    PrefixedId(std::string_view prefix, const Uuid& id, PrefixedBody body = PrefixedBody::base36);

    [[nodiscard]] static bool valid_prefix(std::string_view prefix) noexcept;
    // Any prefix (SQL: prefixed_split): errc::invalid_syntax for another shape, errc::out_of_range
    // for a body above 2^128-1.
    [[nodiscard]] static PrefixedId parse(std::string_view text, PrefixedBody body = PrefixedBody::base36);
    [[nodiscard]] static std::optional<PrefixedId> try_parse(std::string_view text,
                                                             PrefixedBody body = PrefixedBody::base36) noexcept;
    // The prefix must be `expected` (SQL: prefixed_parse): errc::wrong_prefix naming both.
    [[nodiscard]] static PrefixedId parse(std::string_view expected, std::string_view text,
                                          PrefixedBody body = PrefixedBody::base36);

    [[nodiscard]] std::string_view prefix() const noexcept { return {prefix_, prefix_len_}; }
    [[nodiscard]] const Uuid& id() const noexcept { return id_; }
    // How to_string() writes the body (as given, or as parsed).
    [[nodiscard]] PrefixedBody body() const noexcept { return body_; }
    [[nodiscard]] std::string to_string() const;

    // The same prefix and ID, whichever body encoding writes it.
    friend bool operator==(const PrefixedId& a, const PrefixedId& b) noexcept {
        return a.prefix() == b.prefix() && a.id_ == b.id_;
    }
    friend bool operator!=(const PrefixedId& a, const PrefixedId& b) noexcept { return !(a == b); }
    friend bool operator<(const PrefixedId& a, const PrefixedId& b) noexcept {
        return a.prefix() != b.prefix() ? a.prefix() < b.prefix() : a.id_ < b.id_;
    }

private:
    char prefix_[max_prefix_size] = {};
    std::uint8_t prefix_len_ = 0;
    PrefixedBody body_ = PrefixedBody::base36;
    Uuid id_;
};

// Text output, as to_string().
std::ostream& operator<<(std::ostream& os, const Ulid& id);
std::ostream& operator<<(std::ostream& os, const Uuid& id);
std::ostream& operator<<(std::ostream& os, Snowflake id);
std::ostream& operator<<(std::ostream& os, Base36_64 id);
std::ostream& operator<<(std::ostream& os, const Base36_128& id);
std::ostream& operator<<(std::ostream& os, Base62_64 id);
std::ostream& operator<<(std::ostream& os, const Base62_128& id);
std::ostream& operator<<(std::ostream& os, const PrefixedId& id);

namespace detail {
inline std::size_t hash_bytes16(const Bytes16& b) noexcept {
    std::uint64_t hi, lo;
    std::memcpy(&hi, b.data(), 8);
    std::memcpy(&lo, b.data() + 8, 8);
    return std::hash<std::uint64_t>{}(hi ^ (lo * 0x9E3779B97F4A7C15ULL));
}
}  // namespace detail

}  // namespace id_gen

template <>
struct std::hash<id_gen::Ulid> {
    std::size_t operator()(const id_gen::Ulid& id) const noexcept { return id_gen::detail::hash_bytes16(id.bytes()); }
};
template <>
struct std::hash<id_gen::Uuid> {
    std::size_t operator()(const id_gen::Uuid& id) const noexcept { return id_gen::detail::hash_bytes16(id.bytes()); }
};
template <>
struct std::hash<id_gen::Snowflake> {
    std::size_t operator()(id_gen::Snowflake id) const noexcept { return std::hash<std::int64_t>{}(id.value()); }
};
