// id_gen C++ library: DecimalIds (SQL: bigint from gen_decimal_id()). Made on the server (their
// uniqueness rests on server state: the launch and the generator numbers it grants); here they
// are read, checked and written.
//
//   DecimalId  counter * 10^10 + generator * 10^5 + launch, in decimal c...cggggglllll
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "id_gen/error.hpp"

namespace id_gen {

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
