// id_gen core: the wall clock, read by src/pg and passed into generators as plain numbers so
// unit tests can stand the clock still or step it back.
#pragma once

#include <cstdint>
#include <ctime>

namespace idgen {

// Nanoseconds since the Unix epoch (CLOCK_REALTIME; vDSO, no system call).
inline std::int64_t unix_time_ns() noexcept {
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

inline std::int64_t unix_time_ms() noexcept { return unix_time_ns() / 1000000; }

}  // namespace idgen
