// id_gen C++ library: prefixed typed IDs (SQL: prefixed_format, prefixed_parse, prefixed_split).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

#include "id_gen/base36.hpp"
#include "id_gen/error.hpp"
#include "id_gen/uuid.hpp"

namespace id_gen {

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
std::ostream& operator<<(std::ostream& os, const PrefixedId& id);

}  // namespace id_gen
