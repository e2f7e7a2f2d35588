// id_gen C++ library: xid (the rs/xid format), the SQL type rsxid.
//
// 12 bytes: 4-byte big-endian Unix seconds, a 3-byte machine ID, a 2-byte process ID and a 3-byte
// counter. Text: 20 lower-case base32hex characters (0-9a-v); upper case and a last character
// other than '0' or 'g' are refused, as by rs/xid and the extension. Byte order = text order.
// Encoded and decoded by the extension's own code (src/core/types/xid), with the extension's errors.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "id_gen/error.hpp"

namespace id_gen {

using Bytes12 = std::array<std::uint8_t, 12>;
using xid_seconds = std::chrono::time_point<std::chrono::system_clock, std::chrono::seconds>;

class Xid {
public:
    static constexpr std::size_t text_size = 20;

    constexpr Xid() noexcept = default;  // all zero bits: 00000000000000000000
    constexpr explicit Xid(const Bytes12& bytes) noexcept : bytes_(bytes) {}

    // errc::invalid_syntax for anything but 20 characters of 0-9a-v ending in '0' or 'g'.
    [[nodiscard]] static Xid parse(std::string_view text);
    [[nodiscard]] static std::optional<Xid> try_parse(std::string_view text) noexcept;

    // The smallest and the largest xid of a second (SQL: xid_lower, xid_upper);
    // errc::time_out_of_range outside 1970 .. 2106-02-07 06:28:15 UTC.
    [[nodiscard]] static Xid lower(xid_seconds t);
    [[nodiscard]] static Xid upper(xid_seconds t);

    [[nodiscard]] std::string to_string() const;
    char* write(char* out) const noexcept;

    // The fields (SQL: xid_time, xid_machine, xid_pid, xid_counter).
    [[nodiscard]] std::int64_t unix_seconds() const noexcept;
    [[nodiscard]] xid_seconds time() const noexcept { return xid_seconds(std::chrono::seconds(unix_seconds())); }
    [[nodiscard]] std::uint32_t machine() const noexcept;
    [[nodiscard]] std::uint16_t pid() const noexcept;
    [[nodiscard]] std::uint32_t counter() const noexcept;

    [[nodiscard]] constexpr const Bytes12& bytes() const noexcept { return bytes_; }

    friend bool operator==(const Xid& a, const Xid& b) noexcept { return a.bytes_ == b.bytes_; }
    friend bool operator!=(const Xid& a, const Xid& b) noexcept { return a.bytes_ != b.bytes_; }
    friend bool operator<(const Xid& a, const Xid& b) noexcept { return a.bytes_ < b.bytes_; }
    friend bool operator>(const Xid& a, const Xid& b) noexcept { return a.bytes_ > b.bytes_; }
    friend bool operator<=(const Xid& a, const Xid& b) noexcept { return a.bytes_ <= b.bytes_; }
    friend bool operator>=(const Xid& a, const Xid& b) noexcept { return a.bytes_ >= b.bytes_; }

private:
    Bytes12 bytes_{};
};

// xids as gen_xid() makes them: the given 3-byte machine ID, the low 16 bits of the process ID,
// and a counter that starts at a random value. IDs of one generator strictly increase in the
// order issued (a counter that would wrap within a second moves to the next second; a clock that
// steps back keeps the last second). next() may be called from any number of threads (one lock
// per object). After fork() the child reads its own process ID and draws a new counter start.
// Two generators in one process share the process ID: give them different machine IDs, or share
// one generator.
class XidGenerator {
public:
    using Clock = std::function<std::int64_t()>;  // Unix time in nanoseconds

    // errc::invalid_argument if `machine` is above 0xFFFFFF.
    explicit XidGenerator(std::uint32_t machine);
    XidGenerator(std::uint32_t machine, Clock clock);
    ~XidGenerator();
    XidGenerator(const XidGenerator&) = delete;
    XidGenerator& operator=(const XidGenerator&) = delete;

    // errc::entropy_failure; errc::time_out_of_range after 2106-02-07 06:28:15 UTC.
    [[nodiscard]] Xid next();
    [[nodiscard]] std::uint32_t machine() const noexcept;

    // A machine ID the way the extension derives its own from a 64-bit system identifier
    // (SQL: xid_server_machine() on the server with that identifier).
    [[nodiscard]] static std::uint32_t machine_from_system_identifier(std::uint64_t system_identifier) noexcept;

private:
    struct State;
    std::unique_ptr<State> s_;
};

}  // namespace id_gen

template <>
struct std::hash<id_gen::Xid> {
    std::size_t operator()(const id_gen::Xid& x) const noexcept;
};
