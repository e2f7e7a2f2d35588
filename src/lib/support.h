// id_gen C++ library, internal: core results to id_gen::error (the core's error table, the one the
// extension raises from), fork tracking and clocks for the generators, layouts to the core's.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/base/result.h"
#include "core/types/snowflake.h"
#include "id_gen/error.hpp"
#include "id_gen/snowflake.hpp"

namespace id_gen::detail {

// The error the extension raises for core error `e` on input `value` of SQL type `type`.
[[noreturn]] void throw_core_error(idgen::Error e, const char* type, std::string_view value);
[[noreturn]] void throw_error(errc code, const std::string& message);

// A time outside what a format holds, shown as the extension would name the instant.
std::string describe_ms(std::int64_t unix_ms);

// Fork tracking for the generators: the count of fork()s this process's image went through (a
// child sees a new value: the state and random block it inherited belong to the parent).
void watch_forks();
std::uint64_t fork_generation() noexcept;

// A generator's clock (Unix nanoseconds), the system clock when none was given.
std::int64_t read_ns(const Clock& clock);

inline std::int64_t floor_div(std::int64_t a, std::int64_t b) noexcept {
    std::int64_t q = a / b;
    if ((a % b) != 0 && a < 0) --q;
    return q;
}

template <class T>
T value_or_throw(const idgen::Result<T>& r, const char* type, std::string_view value) {
    if (!r) throw_core_error(r.error(), type, value);
    return *r;
}

inline idgen::SnowflakeLayout core_layout(const LayoutData& d) noexcept {
    idgen::SnowflakeLayout l{};
    l.kind = static_cast<idgen::LayoutKind>(d.kind);
    l.epoch_ms = d.epoch_ms;
    l.unit_ms = d.unit_ms;
    l.time_bits = d.time_bits;
    l.node_bits = d.node_bits;
    l.seq_bits = d.seq_bits;
    l.time_shift = d.time_shift;
    l.node_shift = d.node_shift;
    l.seq_shift = d.seq_shift;
    l.time_max = d.time_max;
    return l;
}

inline LayoutData layout_data(const idgen::SnowflakeLayout& l) noexcept {
    return LayoutData{static_cast<std::uint8_t>(l.kind),
                      l.epoch_ms,
                      l.unit_ms,
                      l.time_bits,
                      l.node_bits,
                      l.seq_bits,
                      l.time_shift,
                      l.node_shift,
                      l.seq_shift,
                      l.time_max};
}

}  // namespace id_gen::detail
