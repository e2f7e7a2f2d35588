// id_gen C++ library: base62 over src/core (the extension's base62 types).
#include <cstdint>
#include <ostream>

#include "core/base/bytes.h"
#include "core/text/base62.h"
#include "id_gen/base62.hpp"
#include "support.h"

namespace id_gen {
namespace {

constexpr const char* kBase62_64 = "base62_64";
constexpr const char* kBase62_128 = "base62_128";

}  // namespace

using detail::throw_core_error;
using detail::value_or_throw;

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
std::ostream& operator<<(std::ostream& os, Base62_64 id) { return os << id.to_string(); }
std::ostream& operator<<(std::ostream& os, const Base62_128& id) { return os << id.to_string(); }

}  // namespace id_gen
