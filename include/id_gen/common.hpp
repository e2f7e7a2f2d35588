// id_gen C++ library: what every kind's header uses: 16 bytes, time points, clocks.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>

namespace id_gen {

using Bytes16 = std::array<std::uint8_t, 16>;
// Times inside IDs: Unix milliseconds (ULID, UUIDv7, snowflake) or microseconds (UUID times).
using sys_milliseconds = std::chrono::time_point<std::chrono::system_clock, std::chrono::milliseconds>;
using sys_microseconds = std::chrono::time_point<std::chrono::system_clock, std::chrono::microseconds>;

// A clock: Unix time in nanoseconds. Generators read the system clock (CLOCK_REALTIME) unless
// given another one (tests use this to stand the clock still or step it back).
using Clock = std::function<std::int64_t()>;

namespace detail {
inline std::size_t hash_bytes16(const Bytes16& b) noexcept {
    std::uint64_t hi, lo;
    std::memcpy(&hi, b.data(), 8);
    std::memcpy(&lo, b.data() + 8, 8);
    return std::hash<std::uint64_t>{}(hi ^ (lo * 0x9E3779B97F4A7C15ULL));
}
}  // namespace detail

}  // namespace id_gen
