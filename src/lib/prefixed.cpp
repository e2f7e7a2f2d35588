// id_gen C++ library: prefixed typed IDs over src/core (the code of prefixed_format(), prefixed_parse()).
#include <cstring>
#include <ostream>

#include "core/text/prefixed.h"
#include "id_gen/prefixed.hpp"
#include "support.h"

namespace id_gen {
namespace {

constexpr const char* kPrefixed = "prefixed ID";

}  // namespace

using detail::throw_core_error;
using detail::value_or_throw;

// ---- PrefixedId ----------------------------------------------------------------------------

namespace {
idgen::PrefixedBody core_body(PrefixedBody b) noexcept {
    return b == PrefixedBody::base62 ? idgen::PrefixedBody::kBase62 : idgen::PrefixedBody::kBase36;
}
}  // namespace

PrefixedId::PrefixedId(std::string_view prefix, const Uuid& id, PrefixedBody body) : body_(body), id_(id) {
    if (!idgen::prefix_valid(prefix.data(), prefix.size()))
        throw_core_error(idgen::Error::kInvalidPrefix, kPrefixed, prefix);
    std::memcpy(prefix_, prefix.data(), prefix.size());
    prefix_len_ = static_cast<std::uint8_t>(prefix.size());
}

bool PrefixedId::valid_prefix(std::string_view prefix) noexcept {
    return idgen::prefix_valid(prefix.data(), prefix.size());
}

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

std::ostream& operator<<(std::ostream& os, const PrefixedId& id) {
    return id.prefix().empty() ? os << "(no prefix)" : os << id.to_string();
}

}  // namespace id_gen
