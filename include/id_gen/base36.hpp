// id_gen C++ library: base36 (SQL types base36_64, base36_128) and its codec.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

#include "id_gen/common.hpp"
#include "id_gen/error.hpp"
#include "id_gen/uuid.hpp"

namespace id_gen {

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

namespace base36 {
// 13 characters for any 64-bit value (the SQL types stop at 2^63-1), 25 for 16 bytes.
[[nodiscard]] std::string encode(std::uint64_t value);
[[nodiscard]] std::string encode(const Bytes16& bytes);
// 1 or more base36 digits: errc::invalid_syntax, or errc::out_of_range above 2^64-1 / 2^128-1.
[[nodiscard]] std::uint64_t decode64(std::string_view text);
[[nodiscard]] Bytes16 decode128(std::string_view text);
}  // namespace base36

// Text output, as to_string().
std::ostream& operator<<(std::ostream& os, Base36_64 id);
std::ostream& operator<<(std::ostream& os, const Base36_128& id);

}  // namespace id_gen
