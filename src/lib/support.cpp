// id_gen C++ library: core results to id_gen::error, with the SQLSTATEs and texts of the core's
// table (core/base/errors.h), the one the extension raises from; fork tracking; the version.
#include "support.h"

#include <pthread.h>

#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <mutex>

#include "core/base/clock.h"
#include "core/base/errors.h"
#include "id_gen/version.hpp"

namespace id_gen {

const char* version() noexcept { return ID_GEN_VERSION_STRING; }

namespace detail {
namespace {

// Bumped in the child of every fork(): a generator that sees a new value is in another process
// than the one its state and random block belong to.
std::atomic<std::uint64_t> g_fork_generation{0};

void on_fork_child() noexcept { g_fork_generation.fetch_add(1, std::memory_order_relaxed); }

// Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm), for any int64 day count
// the formats can hold.
void civil_from_days(std::int64_t z, std::int64_t& y, unsigned& m, unsigned& d) noexcept {
    z += 719468;
    const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const auto doe = static_cast<unsigned>(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    d = doy - (153 * mp + 2) / 5 + 1;
    m = mp < 10 ? mp + 3 : mp - 9;
    y = static_cast<std::int64_t>(yoe) + era * 400 + (m <= 2);
}

// The library's code for a core error it can meet; the others (generator state, an internal
// error) come from the extension's server-side state only.
errc library_code(idgen::Error e) noexcept {
    using idgen::Error;
    switch (e) {
        case Error::kInvalidSyntax: return errc::invalid_syntax;
        case Error::kOutOfRange: return errc::out_of_range;
        case Error::kTimeOutOfRange:
        case Error::kLayoutExhausted: return errc::time_out_of_range;
        case Error::kEntropyFailure: return errc::entropy_failure;
        case Error::kCapacityExceeded: return errc::capacity_exceeded;
        case Error::kInvalidPrefix: return errc::invalid_prefix;
        case Error::kWrongPrefix: return errc::wrong_prefix;
        default: return errc{};
    }
}

}  // namespace

void watch_forks() {
    static std::once_flag once;
    std::call_once(once, [] { pthread_atfork(nullptr, nullptr, on_fork_child); });
}

std::uint64_t fork_generation() noexcept { return g_fork_generation.load(std::memory_order_relaxed); }

std::int64_t read_ns(const Clock& clock) { return clock ? clock() : idgen::unix_time_ns(); }

std::string describe_ms(std::int64_t ms) {
    std::int64_t days = ms / 86400000, rem = ms % 86400000;
    if (rem < 0) {
        rem += 86400000;
        --days;
    }
    std::int64_t y;
    unsigned mo, d;
    civil_from_days(days, y, mo, d);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04" PRId64 "-%02u-%02u %02u:%02u:%02u.%03u+00", y, mo, d,
                  static_cast<unsigned>(rem / 3600000), static_cast<unsigned>(rem / 60000 % 60),
                  static_cast<unsigned>(rem / 1000 % 60), static_cast<unsigned>(rem % 1000));
    return buf;
}

void throw_error(errc code, const std::string& message) { throw error(code, message); }

void throw_core_error(idgen::Error e, const char* type, std::string_view value) {
    const errc code = library_code(e);
    if (code == errc{})
        throw error(errc::invalid_argument,
                    "id_gen: unexpected error " + std::to_string(static_cast<int>(e)) + " for type " + type);
    char shown[idgen::kShownValueCap];
    const std::size_t shown_len = idgen::clip_shown_value(value.data(), value.size(), shown, idgen::utf8_clip_length);
    std::string message(2 * idgen::kShownValueCap, '\0');
    for (;;) {
        const std::size_t n = idgen::error_message(e, type, shown, shown_len, message.data(), message.size() + 1);
        if (n <= message.size()) {
            message.resize(n);
            break;
        }
        message.resize(n);
    }
    throw error(code, message);
}

}  // namespace detail
}  // namespace id_gen
