// id_gen C++ library: UUIDs (SQL type uuid) and the UUIDv7 generator.
#pragma once

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "id_gen/common.hpp"
#include "id_gen/error.hpp"
#include "id_gen/ulid.hpp"

namespace id_gen {

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

// UUIDv7 as PostgreSQL 18's uuidv7(): the clock's millisecond and its sub-millisecond fraction
// in 12 bits (1/4096 ms), then 62 random bits. The generator never uses a time less than 245 ns
// after the last one, so IDs strictly increase even when the clock stands still or steps back
// (their time runs ahead of the clock until it catches up).
class Uuidv7Generator {
public:
    Uuidv7Generator();
    explicit Uuidv7Generator(Clock clock);
    ~Uuidv7Generator();
    Uuidv7Generator(const Uuidv7Generator&) = delete;
    Uuidv7Generator& operator=(const Uuidv7Generator&) = delete;

    // errc::entropy_failure; errc::time_out_of_range after the year 2262.
    [[nodiscard]] Uuid next();

private:
    struct State;
    std::unique_ptr<State> s_;
};

// One process-wide generator (created on first use): IDs strictly increasing across every
// thread of the process.
[[nodiscard]] Uuid new_uuidv7();

// Text output, as to_string().
std::ostream& operator<<(std::ostream& os, const Uuid& id);

}  // namespace id_gen

template <>
struct std::hash<id_gen::Uuid> {
    std::size_t operator()(const id_gen::Uuid& id) const noexcept { return id_gen::detail::hash_bytes16(id.bytes()); }
};
