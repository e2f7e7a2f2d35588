// id_gen: conversions between PostgreSQL timestamptz (microseconds since 2000-01-01) and the
// Unix milliseconds the core works in. Pure arithmetic: nothing here can raise.
#pragma once

#include <cstdint>

extern "C" {
#include "postgres.h"
#include "datatype/timestamp.h"
}

namespace idgen::pg {

inline constexpr std::int64_t kPgEpochUnixMs =
    static_cast<std::int64_t>(POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY * 1000;

// Floor division, so 1969-12-31 23:59:59.9995 maps to -1 ms, not 0. Infinite timestamps map to
// INT64_MIN / INT64_MAX, which every ID kind rejects as out of range.
inline std::int64_t timestamptz_to_unix_ms(TimestampTz ts) noexcept {
    if (TIMESTAMP_IS_NOBEGIN(ts)) return INT64_MIN;
    if (TIMESTAMP_IS_NOEND(ts)) return INT64_MAX;
    std::int64_t ms = ts / 1000;
    if (ts % 1000 < 0) --ms;
    return ms + kPgEpochUnixMs;
}

inline std::int64_t timestamptz_to_unix_us(TimestampTz ts) noexcept { return ts + kPgEpochUnixMs * 1000; }

// Whether Unix ms `ms` is a finite timestamptz (custom layouts and far shard epochs can reach
// past the range; callers raise 22008 otherwise).
inline bool unix_ms_fits_timestamptz(std::int64_t ms) noexcept {
    constexpr std::int64_t kMaxMs = (END_TIMESTAMP / 1000) + kPgEpochUnixMs - 1;
    constexpr std::int64_t kMinMs = (MIN_TIMESTAMP / 1000) + kPgEpochUnixMs + 1;
    return ms >= kMinMs && ms <= kMaxMs;
}

// Valid for every ID kind's time range (at most 2^48 ms, year 10889: far inside timestamptz).
inline TimestampTz unix_ms_to_timestamptz(std::int64_t ms) noexcept { return (ms - kPgEpochUnixMs) * 1000; }

}  // namespace idgen::pg
