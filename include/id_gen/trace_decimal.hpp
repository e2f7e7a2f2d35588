// id_gen C++ library: TraceId and DecimalId (SQL: bigint from gen_trace_id() / gen_decimal_id()).
// Both are made on the server (their uniqueness rests on server state: the node number, the
// launch and the generator numbers it grants); here they are read, checked and written.
//
//   TraceId    Unix seconds mod 2^25 << 38 | node (16 bits) << 22 | counter (22 bits, from 1)
//   DecimalId  counter * 10^10 + generator * 10^5 + launch, in decimal c...cggggglllll
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

class DecimalId {
public:
    static constexpr std::size_t max_text_size = 19;

    constexpr DecimalId() noexcept = default;  // 0: not an ID (what libpqxx fills before reading)

    // errc::out_of_range for a value no generator makes (below 10^10, or above
    // 9,223,372,029,999,999,999).
    [[nodiscard]] static DecimalId from_int(std::int64_t value);
    [[nodiscard]] static DecimalId parse(std::string_view text);
    [[nodiscard]] static std::optional<DecimalId> try_parse(std::string_view text) noexcept;
    // errc::out_of_range unless counter 1..922,337,202, generator and launch 0..99,999.
    [[nodiscard]] static DecimalId pack(std::int64_t counter, std::int64_t generator, std::int64_t launch);

    [[nodiscard]] constexpr std::int64_t value() const noexcept { return value_; }
    [[nodiscard]] std::string to_string() const;
    // SQL: decimal_id_counter, decimal_id_generator, decimal_id_launch.
    [[nodiscard]] std::int64_t counter() const noexcept;
    [[nodiscard]] std::int64_t generator() const noexcept;
    [[nodiscard]] std::int64_t launch() const noexcept;

    friend constexpr bool operator==(DecimalId a, DecimalId b) noexcept { return a.value_ == b.value_; }
    friend constexpr bool operator!=(DecimalId a, DecimalId b) noexcept { return a.value_ != b.value_; }
    friend constexpr bool operator<(DecimalId a, DecimalId b) noexcept { return a.value_ < b.value_; }

private:
    constexpr explicit DecimalId(std::int64_t v) noexcept : value_(v) {}
    std::int64_t value_ = 0;
};

}  // namespace id_gen
