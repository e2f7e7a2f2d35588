// id_gen C++ library: base62 (SQL types base62_64, base62_128) and its codec.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

#include "id_gen/common.hpp"
#include "id_gen/error.hpp"
#include "id_gen/uuid.hpp"

namespace id_gen {

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

namespace base62 {
// 11 characters for any 64-bit value (the SQL types stop at 2^63-1), 22 for 16 bytes.
[[nodiscard]] std::string encode(std::uint64_t value);
[[nodiscard]] std::string encode(const Bytes16& bytes);
// Exactly 11 / 22 base62 digits: errc::invalid_syntax, or errc::out_of_range above 2^64-1 / 2^128-1.
[[nodiscard]] std::uint64_t decode64(std::string_view text);
[[nodiscard]] Bytes16 decode128(std::string_view text);
}  // namespace base62

// Text output, as to_string().
std::ostream& operator<<(std::ostream& os, Base62_64 id);
std::ostream& operator<<(std::ostream& os, const Base62_128& id);

}  // namespace id_gen
