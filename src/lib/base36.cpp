// id_gen C++ library: base36 over src/core (the extension's base36 types).
#include <cstdint>
#include <ostream>

#include "core/base/bytes.h"
#include "core/text/base36.h"
#include "id_gen/base36.hpp"
#include "support.h"

namespace id_gen {
namespace {

constexpr const char* kBase36_64 = "base36_64";
constexpr const char* kBase36_128 = "base36_128";

}  // namespace

using detail::throw_core_error;
using detail::value_or_throw;

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

std::ostream& operator<<(std::ostream& os, Base36_64 id) { return os << id.to_string(); }
std::ostream& operator<<(std::ostream& os, const Base36_128& id) { return os << id.to_string(); }

}  // namespace id_gen
