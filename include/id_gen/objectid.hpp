// id_gen C++ library: MongoDB ObjectIds (SQL: objectid).
//
// 12 bytes: 4-byte big-endian Unix seconds, a 5-byte random value per process, a 3-byte counter
// that starts at a random value. Text: 24 hex digits, either case in, lower case out. Byte order
// is MongoDB's order (and SQL's).
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "id_gen/error.hpp"

namespace id_gen {

using Bytes12 = std::array<std::uint8_t, 12>;
using sys_seconds = std::chrono::time_point<std::chrono::system_clock, std::chrono::seconds>;

class ObjectId {
public:
    static constexpr std::size_t text_size = 24;

    constexpr ObjectId() noexcept = default;  // all zero bits
    constexpr explicit ObjectId(const Bytes12& bytes) noexcept : bytes_(bytes) {}

    // Exactly 24 hex digits, either case: errc::invalid_syntax otherwise (SQL: objectid_in).
    [[nodiscard]] static ObjectId parse(std::string_view text);
    [[nodiscard]] static std::optional<ObjectId> try_parse(std::string_view text) noexcept;
    // The smallest / largest ObjectId of a second (SQL: objectid_lower, objectid_upper);
    // errc::time_out_of_range outside 1970-01-01 .. 2106-02-07 06:28:15.
    [[nodiscard]] static ObjectId lower(sys_seconds t);
    [[nodiscard]] static ObjectId upper(sys_seconds t);

    [[nodiscard]] std::string to_string() const;  // 24 lower-case hex digits
    // SQL: objectid_time.
    [[nodiscard]] std::uint32_t unix_seconds() const noexcept;
    [[nodiscard]] sys_seconds time() const noexcept { return sys_seconds(std::chrono::seconds(unix_seconds())); }
    [[nodiscard]] constexpr const Bytes12& bytes() const noexcept { return bytes_; }

    friend bool operator==(const ObjectId& a, const ObjectId& b) noexcept { return a.bytes_ == b.bytes_; }
    friend bool operator!=(const ObjectId& a, const ObjectId& b) noexcept { return a.bytes_ != b.bytes_; }
    friend bool operator<(const ObjectId& a, const ObjectId& b) noexcept { return a.bytes_ < b.bytes_; }
    friend bool operator>(const ObjectId& a, const ObjectId& b) noexcept { return a.bytes_ > b.bytes_; }
    friend bool operator<=(const ObjectId& a, const ObjectId& b) noexcept { return a.bytes_ <= b.bytes_; }
    friend bool operator>=(const ObjectId& a, const ObjectId& b) noexcept { return a.bytes_ >= b.bytes_; }

private:
    Bytes12 bytes_{};
};

// ObjectIds as the ObjectId specification (and gen_objectid()) makes them: the random value and
// the counter's start are drawn on first use and again in a child process after fork(); within
// one generator the timestamp never goes back (a clock that steps back keeps the last second),
// and when a second has used all 2^24 counter values the next ID moves to the following second.
// next() may be called from many threads at once (one lock per generator).
class ObjectIdGenerator {
public:
    // `clock`: Unix nanoseconds (default: the system clock).
    explicit ObjectIdGenerator(std::function<std::int64_t()> clock = {});
    ~ObjectIdGenerator();
    ObjectIdGenerator(const ObjectIdGenerator&) = delete;
    ObjectIdGenerator& operator=(const ObjectIdGenerator&) = delete;

    // errc::entropy_failure; errc::time_out_of_range after 2106-02-07.
    [[nodiscard]] ObjectId next();
    // An ID for a given second with this generator's random value and next counter value (SQL:
    // gen_objectid(timestamptz)).
    [[nodiscard]] ObjectId at(sys_seconds t);

private:
    struct State;
    std::unique_ptr<State> s_;
};

// The process-wide ObjectIdGenerator.
[[nodiscard]] ObjectId new_objectid();

}  // namespace id_gen

template <>
struct std::hash<id_gen::ObjectId> {
    std::size_t operator()(const id_gen::ObjectId& id) const noexcept {
        std::size_t h = 1469598103934665603ULL;
        for (auto b : id.bytes()) h = (h ^ b) * 1099511628211ULL;
        return h;
    }
};
