// id_gen C++ library: TraceIds (SQL: bigint from gen_trace_id()). Made on the server (their
// uniqueness rests on server state: the node number and the launch it grants); here they are
// read, checked and written.
//
//   TraceId    Unix seconds mod 2^25 << 38 | node (16 bits) << 22 | counter (22 bits, from 1)
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "id_gen/error.hpp"

namespace id_gen {

class TraceId {
public:
    static constexpr std::size_t max_text_size = 19;

    constexpr TraceId() noexcept = default;  // 0: not an ID (what libpqxx fills before reading)

    // errc::out_of_range unless the value is one a generator makes: positive, counter >= 1.
    [[nodiscard]] static TraceId from_int(std::int64_t value);
    // Decimal text as bigint's input reads it: errc::invalid_syntax, or errc::out_of_range.
    [[nodiscard]] static TraceId parse(std::string_view text);
    [[nodiscard]] static std::optional<TraceId> try_parse(std::string_view text) noexcept;
    // errc::out_of_range unless node <= 65,535 and 1 <= counter <= 4,194,303.
    [[nodiscard]] static TraceId pack(std::int64_t unix_seconds, std::uint32_t node, std::uint32_t counter);

    [[nodiscard]] constexpr std::int64_t value() const noexcept { return value_; }
    [[nodiscard]] std::string to_string() const;
    // SQL: trace_id_node, trace_id_counter, trace_id_time(id, reference): the time field names a
    // second modulo 2^25 (about 388 days); the one nearest the reference is returned.
    [[nodiscard]] std::uint32_t node() const noexcept;
    [[nodiscard]] std::uint32_t counter() const noexcept;
    [[nodiscard]] std::int64_t unix_seconds(std::int64_t reference_unix_seconds) const noexcept;

    friend constexpr bool operator==(TraceId a, TraceId b) noexcept { return a.value_ == b.value_; }
    friend constexpr bool operator!=(TraceId a, TraceId b) noexcept { return a.value_ != b.value_; }
    friend constexpr bool operator<(TraceId a, TraceId b) noexcept { return a.value_ < b.value_; }

private:
    constexpr explicit TraceId(std::int64_t v) noexcept : value_(v) {}
    std::int64_t value_ = 0;
};

}  // namespace id_gen
