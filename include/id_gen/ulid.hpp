// id_gen C++ library: ULIDs (SQL type ulid), their Crockford base32 text and their generator.
#pragma once

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "id_gen/common.hpp"
#include "id_gen/error.hpp"

namespace id_gen {

class Uuid;

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
    [[nodiscard]] sys_milliseconds time() const noexcept {
        return sys_milliseconds(std::chrono::milliseconds(unix_ms()));
    }

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

// Crockford base32 as ULIDs use it: 16 bytes <-> 26 characters (0-9 A-H J K M N P-T V-Z).
namespace crockford32 {
[[nodiscard]] std::string encode(const Bytes16& bytes);
[[nodiscard]] Bytes16 decode(std::string_view text);
}  // namespace crockford32

// ULIDs: the clock's millisecond and 80 random bits. Within one millisecond, or when the clock
// stands still or steps back, the next ID is the last one plus 1 (in its 80-bit random part;
// when that part is all ones, the next millisecond), so IDs never repeat or go down: the same
// rule as gen_ulid() within one database session.
class UlidGenerator {
public:
    UlidGenerator();
    explicit UlidGenerator(Clock clock);
    ~UlidGenerator();
    UlidGenerator(const UlidGenerator&) = delete;
    UlidGenerator& operator=(const UlidGenerator&) = delete;

    // errc::entropy_failure if the kernel gives no random bytes; errc::time_out_of_range after
    // the year 10889.
    [[nodiscard]] Ulid next();

private:
    struct State;
    std::unique_ptr<State> s_;
};

// One process-wide generator (created on first use): IDs strictly increasing across every
// thread of the process.
[[nodiscard]] Ulid new_ulid();

// Text output, as to_string().
std::ostream& operator<<(std::ostream& os, const Ulid& id);

}  // namespace id_gen

template <>
struct std::hash<id_gen::Ulid> {
    std::size_t operator()(const id_gen::Ulid& id) const noexcept { return id_gen::detail::hash_bytes16(id.bytes()); }
};

// Ulid::to_uuid() is defined with Uuid.
#include "id_gen/uuid.hpp"
