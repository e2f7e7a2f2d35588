// id_gen C++ library: ID types and codecs over src/core (the extension's own encoders).
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <ostream>

#include "core/text/base36.h"
#include "core/text/base62.h"
#include "core/base/bytes.h"
#include "core/base/entropy.h"
#include "core/text/prefixed.h"
#include "core/types/snowflake.h"
#include "core/types/ulid.h"
#include "core/text/uuid_text.h"
#include "core/types/uuidv6.h"
#include "core/types/uuidv7.h"
#include "id_gen/version.hpp"
#include "support.h"

namespace id_gen {

const char* version() noexcept { return ID_GEN_VERSION_STRING; }

namespace detail {
namespace {

// The offending input as the extension shows it: at most 252 bytes (cut before a UTF-8
// continuation byte), then "...".
std::string shown(std::string_view v) {
    constexpr std::size_t kCap = 256;
    if (v.size() < kCap) return std::string(v);
    std::size_t keep = kCap - 4;
    while (keep > 0 && (static_cast<unsigned char>(v[keep]) & 0xC0u) == 0x80u) --keep;
    return std::string(v.substr(0, keep)) + "...";
}

// Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm), for any int64 day count
// the formats can hold.
void civil_from_days(std::int64_t z, std::int64_t& y, unsigned& m, unsigned& d) noexcept {
    z += 719468;
    const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const auto doe = static_cast<unsigned>(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    d = doy - (153 * mp + 2) / 5 + 1;
    m = mp < 10 ? mp + 3 : mp - 9;
    y = static_cast<std::int64_t>(yoe) + era * 400 + (m <= 2);
}

}  // namespace

std::string describe_ms(std::int64_t ms) {
    std::int64_t days = ms / 86400000, rem = ms % 86400000;
    if (rem < 0) {
        rem += 86400000;
        --days;
    }
    std::int64_t y;
    unsigned mo, d;
    civil_from_days(days, y, mo, d);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04" PRId64 "-%02u-%02u %02u:%02u:%02u.%03u+00", y, mo, d,
                  static_cast<unsigned>(rem / 3600000), static_cast<unsigned>(rem / 60000 % 60),
                  static_cast<unsigned>(rem / 1000 % 60), static_cast<unsigned>(rem % 1000));
    return buf;
}

void throw_error(errc code, const std::string& message) { throw error(code, message); }

void throw_core_error(idgen::Error e, const char* type, std::string_view value) {
    using idgen::Error;
    const std::string v = shown(value);
    switch (e) {
        case Error::kInvalidSyntax:
            throw error(errc::invalid_syntax, "invalid input syntax for type " + std::string(type) + ": \"" + v + "\"");
        case Error::kOutOfRange:
            throw error(errc::out_of_range, "value \"" + v + "\" is out of range for type " + type);
        case Error::kTimeOutOfRange:
        case Error::kLayoutExhausted:
            throw error(errc::time_out_of_range, "timestamp \"" + v + "\" is out of range for type " + type);
        case Error::kEntropyFailure:
            throw error(errc::entropy_failure, "could not read random bytes from the kernel for type " + std::string(type));
        case Error::kCapacityExceeded:
            throw error(errc::capacity_exceeded, std::string(type) + " generator capacity exceeded: " + v);
        case Error::kInvalidPrefix:
            throw error(errc::invalid_prefix, "invalid prefix \"" + v + "\"");
        case Error::kWrongPrefix:
            throw error(errc::wrong_prefix, "invalid input syntax for a prefixed ID: " + v);
        default:
            throw error(errc::invalid_argument, "id_gen: unexpected error " + std::to_string(static_cast<int>(e)) +
                                                    " for type " + type);
    }
}

}  // namespace detail

using detail::throw_core_error;
using detail::value_or_throw;

namespace {

idgen::Ulid core(const Ulid& u) noexcept {
    idgen::Ulid c{};
    std::memcpy(c.bytes, u.bytes().data(), 16);
    return c;
}
Ulid wrap(const idgen::Ulid& c) noexcept {
    Bytes16 b;
    std::memcpy(b.data(), c.bytes, 16);
    return Ulid(b);
}
idgen::Uuid core(const Uuid& u) noexcept {
    idgen::Uuid c{};
    std::memcpy(c.bytes, u.bytes().data(), 16);
    return c;
}
Uuid wrap(const idgen::Uuid& c) noexcept {
    Bytes16 b;
    std::memcpy(b.data(), c.bytes, 16);
    return Uuid(b);
}

std::int64_t ms_of(sys_milliseconds t) noexcept { return t.time_since_epoch().count(); }

// A time point as the SQL functions show it in their errors.
std::string time_text(sys_milliseconds t) { return detail::describe_ms(ms_of(t)); }

constexpr const char* kUlid = "ulid";
constexpr const char* kUuid = "uuid";
constexpr const char* kSnowflake = "snowflake";
constexpr const char* kBase36_64 = "base36_64";
constexpr const char* kBase36_128 = "base36_128";
constexpr const char* kBase62_64 = "base62_64";
constexpr const char* kBase62_128 = "base62_128";
constexpr const char* kPrefixed = "prefixed ID";

}  // namespace

// ---- Ulid ----------------------------------------------------------------------------------

Ulid Ulid::parse(std::string_view text) {
    return wrap(value_or_throw(idgen::ulid_parse(text.data(), text.size()), kUlid, text));
}

std::optional<Ulid> Ulid::try_parse(std::string_view text) noexcept {
    auto r = idgen::ulid_parse(text.data(), text.size());
    if (!r) return std::nullopt;
    return wrap(*r);
}

Ulid Ulid::lower(sys_milliseconds t) { return wrap(value_or_throw(idgen::ulid_lower(ms_of(t)), kUlid, time_text(t))); }
Ulid Ulid::upper(sys_milliseconds t) { return wrap(value_or_throw(idgen::ulid_upper(ms_of(t)), kUlid, time_text(t))); }

Ulid Ulid::random_at(sys_milliseconds t) {
    // A one-off draw: straight from the kernel, no pool kept.
    struct Kernel final : idgen::ByteSource {
        bool fill(std::uint8_t* out, std::size_t n) noexcept override { return idgen::os_random(out, n); }
    } kernel;
    return wrap(value_or_throw(idgen::ulid_at(ms_of(t), kernel), kUlid, time_text(t)));
}

std::string Ulid::to_string() const {
    std::string s(text_size, '\0');
    write(s.data());
    return s;
}

char* Ulid::write(char* out) const noexcept {
    idgen::ulid_format(core(*this), out);
    return out + text_size;
}

std::int64_t Ulid::unix_ms() const noexcept { return idgen::ulid_time_ms(core(*this)); }

// ---- Uuid ----------------------------------------------------------------------------------

Uuid Uuid::parse(std::string_view text) {
    return wrap(value_or_throw(idgen::uuid_parse(text.data(), text.size()), kUuid, text));
}

std::optional<Uuid> Uuid::try_parse(std::string_view text) noexcept {
    auto r = idgen::uuid_parse(text.data(), text.size());
    if (!r) return std::nullopt;
    return wrap(*r);
}

Uuid Uuid::v7_lower(sys_milliseconds t) { return wrap(value_or_throw(idgen::uuidv7_lower(ms_of(t)), kUuid, time_text(t))); }
Uuid Uuid::v7_upper(sys_milliseconds t) { return wrap(value_or_throw(idgen::uuidv7_upper(ms_of(t)), kUuid, time_text(t))); }

std::string Uuid::to_string() const {
    std::string s(text_size, '\0');
    write(s.data());
    return s;
}

char* Uuid::write(char* out) const noexcept {
    idgen::uuid_format(core(*this), out);
    return out + text_size;
}

int Uuid::version() const noexcept { return idgen::uuid_version(core(*this)); }

std::optional<sys_microseconds> Uuid::time() const noexcept {
    const idgen::UuidTime t = idgen::uuid_time_v167(core(*this));
    if (!t.present) return std::nullopt;
    return sys_microseconds(std::chrono::microseconds(t.unix_us));
}

std::optional<sys_microseconds> Uuid::v7_time_precise() const noexcept {
    const idgen::UuidTime t = idgen::uuidv7_time_precise(core(*this));
    if (!t.present) return std::nullopt;
    return sys_microseconds(std::chrono::microseconds(t.unix_us));
}

// ---- SnowflakeLayout -----------------------------------------------------------------------

SnowflakeLayout::SnowflakeLayout(const detail::LayoutData& d) noexcept : d_(d) {}

SnowflakeLayout SnowflakeLayout::twitter() noexcept { return SnowflakeLayout(detail::layout_data(idgen::twitter_layout())); }

SnowflakeLayout SnowflakeLayout::instagram(std::int64_t epoch_ms) {
    // The same epoch range as a custom layout (the time field is 41 bits, 1 ms units).
    if (epoch_ms < -(std::int64_t{1} << 53) || epoch_ms > (std::int64_t{1} << 53))
        detail::throw_error(errc::invalid_argument, "snowflake epoch " + std::to_string(epoch_ms) +
                                                        " ms is outside -2^53 .. 2^53 ms");
    return SnowflakeLayout(detail::layout_data(idgen::instagram_layout(epoch_ms)));
}

SnowflakeLayout SnowflakeLayout::sonyflake() noexcept { return named("sonyflake"); }
SnowflakeLayout SnowflakeLayout::javascript() noexcept { return named("javascript"); }

SnowflakeLayout SnowflakeLayout::named(std::string_view name) {
    auto l = idgen::snowflake_named_layout(name.data(), name.size());
    if (!l)
        detail::throw_error(errc::invalid_argument,
                            "unknown snowflake layout \"" + std::string(name) +
                                "\" (twitter, instagram, sonyflake or javascript, or a custom layout)");
    return SnowflakeLayout(detail::layout_data(*l));
}

SnowflakeLayout SnowflakeLayout::custom(std::int64_t epoch_ms, int time_bits, int node_bits, int sequence_bits) {
    auto l = idgen::snowflake_custom_layout(epoch_ms, time_bits, node_bits, sequence_bits);
    if (!l)
        detail::throw_error(errc::invalid_argument,
                            "invalid snowflake layout: time " + std::to_string(time_bits) + " bits, node " +
                                std::to_string(node_bits) + " bits, sequence " + std::to_string(sequence_bits) +
                                " bits, epoch " + std::to_string(epoch_ms) +
                                " ms (time 1-63, node 0-31, sequence 0-31, at most 63 in all; epoch within ±2^53 ms)");
    return SnowflakeLayout(detail::layout_data(*l));
}

Snowflake SnowflakeLayout::lower(sys_milliseconds t) const {
    return Snowflake(value_or_throw(idgen::snowflake_lower(detail::core_layout(d_), ms_of(t)), kSnowflake, time_text(t)));
}

Snowflake SnowflakeLayout::upper(sys_milliseconds t) const {
    return Snowflake(value_or_throw(idgen::snowflake_upper(detail::core_layout(d_), ms_of(t)), kSnowflake, time_text(t)));
}

Snowflake SnowflakeLayout::pack(std::int64_t time_units, std::uint32_t node, std::uint32_t sequence) const {
    auto id = idgen::snowflake_pack(detail::core_layout(d_), time_units, node, sequence);
    if (!id)
        detail::throw_error(errc::out_of_range, "snowflake fields out of range for the layout: time " +
                                                    std::to_string(time_units) + ", node " + std::to_string(node) +
                                                    ", sequence " + std::to_string(sequence));
    return Snowflake(*id);
}

// ---- Snowflake -----------------------------------------------------------------------------

Snowflake Snowflake::from_int(std::int64_t value) {
    if (value < 1) throw_core_error(idgen::Error::kOutOfRange, kSnowflake, std::to_string(value));
    return Snowflake(value);
}

Snowflake Snowflake::parse(std::string_view text) {
    return Snowflake(value_or_throw(idgen::snowflake_parse(text.data(), text.size()), kSnowflake, text));
}

std::optional<Snowflake> Snowflake::try_parse(std::string_view text) noexcept {
    auto r = idgen::snowflake_parse(text.data(), text.size());
    if (!r) return std::nullopt;
    return Snowflake(*r);
}

Snowflake Snowflake::from_base36(std::string_view text) {
    auto v = idgen::base36_decode64(text.data(), text.size());
    if (!v) throw_core_error(v.error(), kSnowflake, text);
    if (*v == 0 || *v > static_cast<std::uint64_t>(INT64_MAX)) throw_core_error(idgen::Error::kOutOfRange, kSnowflake, text);
    return Snowflake(static_cast<std::int64_t>(*v));
}

std::string Snowflake::to_string() const {
    char buf[20];
    const std::size_t n = idgen::snowflake_format(value_, buf);
    return std::string(buf, n);
}

std::string Snowflake::to_base36() const { return base36::encode(static_cast<std::uint64_t>(value_)); }

std::int64_t Snowflake::unix_ms(const SnowflakeLayout& layout) const noexcept {
    return idgen::snowflake_time_ms(detail::core_layout(layout.data()), value_);
}

std::uint32_t Snowflake::node(const SnowflakeLayout& layout) const noexcept {
    return idgen::snowflake_unpack(detail::core_layout(layout.data()), value_).node;
}

std::uint32_t Snowflake::sequence(const SnowflakeLayout& layout) const noexcept {
    return idgen::snowflake_unpack(detail::core_layout(layout.data()), value_).seq;
}

// ---- base36 --------------------------------------------------------------------------------

Base36_64 Base36_64::from_int(std::int64_t value) {
    if (value < 0) throw_core_error(idgen::Error::kOutOfRange, kBase36_64, std::to_string(value));
    return Base36_64(value);
}

Base36_64 Base36_64::parse(std::string_view text) {
    auto v = idgen::base36_decode64(text.data(), text.size());
    if (!v) throw_core_error(v.error(), kBase36_64, text);
    if (*v > static_cast<std::uint64_t>(INT64_MAX)) throw_core_error(idgen::Error::kOutOfRange, kBase36_64, text);
    return Base36_64(static_cast<std::int64_t>(*v));
}

std::optional<Base36_64> Base36_64::try_parse(std::string_view text) noexcept {
    auto v = idgen::base36_decode64(text.data(), text.size());
    if (!v || *v > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
    return Base36_64(static_cast<std::int64_t>(*v));
}

std::string Base36_64::to_string() const { return base36::encode(static_cast<std::uint64_t>(value_)); }

Base36_128 Base36_128::parse(std::string_view text) { return Base36_128(base36::decode128(text)); }

std::optional<Base36_128> Base36_128::try_parse(std::string_view text) noexcept {
    auto v = idgen::base36_decode128(text.data(), text.size());
    if (!v) return std::nullopt;
    Bytes16 b;
    idgen::store_be128(b.data(), *v);
    return Base36_128(b);
}

std::string Base36_128::to_string() const { return base36::encode(bytes_); }

namespace base36 {

std::string encode(std::uint64_t value) {
    std::string s(idgen::kBase36Len64, '\0');
    idgen::base36_encode64(value, s.data());
    return s;
}

std::string encode(const Bytes16& bytes) {
    std::string s(idgen::kBase36Len128, '\0');
    idgen::base36_encode128(idgen::load_be128(bytes.data()), s.data());
    return s;
}

std::uint64_t decode64(std::string_view text) {
    return value_or_throw(idgen::base36_decode64(text.data(), text.size()), "base36", text);
}

Bytes16 decode128(std::string_view text) {
    auto v = value_or_throw(idgen::base36_decode128(text.data(), text.size()), kBase36_128, text);
    Bytes16 b;
    idgen::store_be128(b.data(), v);
    return b;
}

}  // namespace base36

// ---- base62 --------------------------------------------------------------------------------

Base62_64 Base62_64::from_int(std::int64_t value) {
    if (value < 0) throw_core_error(idgen::Error::kOutOfRange, kBase62_64, std::to_string(value));
    return Base62_64(value);
}

Base62_64 Base62_64::parse(std::string_view text) {
    auto v = idgen::base62_decode64(text.data(), text.size());
    if (!v) throw_core_error(v.error(), kBase62_64, text);
    if (*v > static_cast<std::uint64_t>(INT64_MAX)) throw_core_error(idgen::Error::kOutOfRange, kBase62_64, text);
    return Base62_64(static_cast<std::int64_t>(*v));
}

std::optional<Base62_64> Base62_64::try_parse(std::string_view text) noexcept {
    auto v = idgen::base62_decode64(text.data(), text.size());
    if (!v || *v > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
    return Base62_64(static_cast<std::int64_t>(*v));
}

std::string Base62_64::to_string() const { return base62::encode(static_cast<std::uint64_t>(value_)); }

Base62_128 Base62_128::parse(std::string_view text) {
    auto v = value_or_throw(idgen::base62_decode128(text.data(), text.size()), kBase62_128, text);
    Bytes16 b;
    idgen::store_be128(b.data(), v);
    return Base62_128(b);
}

std::optional<Base62_128> Base62_128::try_parse(std::string_view text) noexcept {
    auto v = idgen::base62_decode128(text.data(), text.size());
    if (!v) return std::nullopt;
    Bytes16 b;
    idgen::store_be128(b.data(), *v);
    return Base62_128(b);
}

std::string Base62_128::to_string() const { return base62::encode(bytes_); }

namespace base62 {

std::string encode(std::uint64_t value) {
    std::string s(idgen::kBase62Len64, '\0');
    idgen::base62_encode64(value, s.data());
    return s;
}

std::string encode(const Bytes16& bytes) {
    std::string s(idgen::kBase62Len128, '\0');
    idgen::base62_encode128(idgen::load_be128(bytes.data()), s.data());
    return s;
}

std::uint64_t decode64(std::string_view text) {
    return value_or_throw(idgen::base62_decode64(text.data(), text.size()), "base62", text);
}

Bytes16 decode128(std::string_view text) {
    auto v = value_or_throw(idgen::base62_decode128(text.data(), text.size()), kBase62_128, text);
    Bytes16 b;
    idgen::store_be128(b.data(), v);
    return b;
}

}  // namespace base62

namespace crockford32 {

std::string encode(const Bytes16& bytes) { return Ulid(bytes).to_string(); }
Bytes16 decode(std::string_view text) { return Ulid::parse(text).bytes(); }

}  // namespace crockford32

// ---- PrefixedId ----------------------------------------------------------------------------

namespace {
idgen::PrefixedBody core_body(PrefixedBody b) noexcept {
    return b == PrefixedBody::base62 ? idgen::PrefixedBody::kBase62 : idgen::PrefixedBody::kBase36;
}
}  // namespace

PrefixedId::PrefixedId(std::string_view prefix, const Uuid& id, PrefixedBody body) : body_(body), id_(id) {
    if (!idgen::prefix_valid(prefix.data(), prefix.size())) throw_core_error(idgen::Error::kInvalidPrefix, kPrefixed, prefix);
    std::memcpy(prefix_, prefix.data(), prefix.size());
    prefix_len_ = static_cast<std::uint8_t>(prefix.size());
}

bool PrefixedId::valid_prefix(std::string_view prefix) noexcept { return idgen::prefix_valid(prefix.data(), prefix.size()); }

namespace {
PrefixedId from_core(const idgen::PrefixedId& p, PrefixedBody body) {
    Bytes16 b;
    std::memcpy(b.data(), p.id, 16);
    return PrefixedId(std::string_view(p.prefix, p.prefix_len), Uuid(b), body);
}
}  // namespace

PrefixedId PrefixedId::parse(std::string_view text, PrefixedBody body) {
    return from_core(value_or_throw(idgen::prefixed_parse(text.data(), text.size(), core_body(body)), kPrefixed, text),
                     body);
}

std::optional<PrefixedId> PrefixedId::try_parse(std::string_view text, PrefixedBody body) noexcept {
    auto r = idgen::prefixed_parse(text.data(), text.size(), core_body(body));
    if (!r) return std::nullopt;
    return from_core(*r, body);
}

PrefixedId PrefixedId::parse(std::string_view expected, std::string_view text, PrefixedBody body) {
    // As SQL's prefixed_parse: the expected prefix first, then the shape, then the match.
    if (!idgen::prefix_valid(expected.data(), expected.size()))
        throw_core_error(idgen::Error::kInvalidPrefix, kPrefixed, expected);
    PrefixedId p = parse(text, body);
    if (p.prefix() != expected)
        throw_core_error(idgen::Error::kWrongPrefix, kPrefixed,
                         "expected prefix \"" + std::string(expected) + "\", found \"" + std::string(p.prefix()) +
                             "\" in \"" + std::string(text) + "\"");
    return p;
}

std::string PrefixedId::to_string() const {
    char buf[max_text_size];
    std::uint8_t id[16];
    std::memcpy(id, id_.bytes().data(), 16);
    auto n = idgen::prefixed_format(prefix_, prefix_len_, id, buf, core_body(body_));
    if (!n) throw_core_error(n.error(), kPrefixed, prefix());
    return std::string(buf, *n);
}

// ---- streams -------------------------------------------------------------------------------

std::ostream& operator<<(std::ostream& os, const Ulid& id) { return os << id.to_string(); }
std::ostream& operator<<(std::ostream& os, const Uuid& id) { return os << id.to_string(); }
std::ostream& operator<<(std::ostream& os, Snowflake id) { return os << id.to_string(); }
std::ostream& operator<<(std::ostream& os, Base36_64 id) { return os << id.to_string(); }
std::ostream& operator<<(std::ostream& os, const Base36_128& id) { return os << id.to_string(); }
std::ostream& operator<<(std::ostream& os, Base62_64 id) { return os << id.to_string(); }
std::ostream& operator<<(std::ostream& os, const Base62_128& id) { return os << id.to_string(); }
std::ostream& operator<<(std::ostream& os, const PrefixedId& id) {
    return id.prefix().empty() ? os << "(no prefix)" : os << id.to_string();
}

}  // namespace id_gen
