// id_gen core: xid, the format of the Go package rs/xid (github.com/rs/xid).
//
// 12 bytes, big-endian fields, so byte order is time order for IDs a second or more apart:
//   bytes 0-3    Unix seconds, unsigned 32-bit (1970-01-01 .. 2106-02-07 06:28:15 UTC)
//   bytes 4-6    a machine ID (the extension: derived from the server's system identifier)
//   bytes 7-8    a process ID (the low 16 bits of the process's pid)
//   bytes 9-11   a counter that starts at a random value
// Text: 20 characters of lower-case base32hex (0-9a-v, RFC 4648 §7, in ASCII order), no padding:
// the 96 bits followed by 4 zero bits, so the last character is always '0' or 'g'. Parsing is
// rs/xid's: exactly 20 characters of 0-9a-v (upper case is rejected) whose last character is one of
// the two that 96 bits can end with; text order = byte order under COLLATE "C".
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/base/entropy.h"
#include "core/base/result.h"

namespace idgen {

struct Xid {
    std::uint8_t bytes[12];
};
static_assert(sizeof(Xid) == 12);

inline constexpr std::size_t kXidTextLen = 20;
inline constexpr std::int64_t kXidMaxSeconds = 0xFFFFFFFFLL;
inline constexpr std::uint32_t kXidCounterSpan = 1u << 24;

// kInvalidSyntax for any other length, any character outside 0-9a-v, or a last character other
// than '0' or 'g' (the 4 pad bits must be zero, so each value has one spelling).
[[nodiscard]] Result<Xid> xid_parse(const char* s, std::size_t n) noexcept;

// Writes exactly 20 characters (no NUL).
void xid_format(const Xid& id, char* out) noexcept;

[[nodiscard]] std::uint32_t xid_seconds(const Xid& id) noexcept;
[[nodiscard]] std::uint32_t xid_machine(const Xid& id) noexcept;  // 0 .. 2^24-1
[[nodiscard]] std::uint16_t xid_pid(const Xid& id) noexcept;
[[nodiscard]] std::uint32_t xid_counter(const Xid& id) noexcept;  // 0 .. 2^24-1

// The smallest / largest xid of a Unix second; kTimeOutOfRange outside 0 .. 2^32-1.
[[nodiscard]] Result<Xid> xid_lower(std::int64_t unix_seconds) noexcept;
[[nodiscard]] Result<Xid> xid_upper(std::int64_t unix_seconds) noexcept;

// The 3-byte machine ID for a 64-bit system identifier: the top 24 bits of SplitMix64's finalizer
// over it (the identifier's own low bits are a start time's microseconds and a pid, so they are
// mixed rather than taken as they are).
[[nodiscard]] std::uint32_t xid_machine_from_system_id(std::uint64_t system_identifier) noexcept;

// A generator per process, as rs/xid has one: the machine ID is given; the process ID and the
// counter's random start are taken on the first call and again whenever the caller's pid differs
// from the one they were drawn for (a generator inherited across fork() draws anew).
//
// Unlike rs/xid, whose counter wraps inside a second, IDs of one process strictly increase: the
// timestamp never goes back (a clock that steps back keeps the last second), and when the counter
// would wrap from 0xFFFFFF to 0 the ID moves to the following second instead. Within a second a
// process so never repeats a counter value.
class XidGenerator {
public:
    [[nodiscard]] Result<Xid> next(std::int64_t now_unix_seconds, std::uint32_t machine, int pid,
                                   ByteSource& random) noexcept;

    [[nodiscard]] std::uint32_t counter() const noexcept { return counter_; }
    [[nodiscard]] int owner_pid() const noexcept { return pid_; }

private:
    std::uint32_t counter_ = 0;       // the next counter value
    std::int64_t last_seconds_ = -1;  // timestamp of the last ID
    int pid_ = -1;                    // the process the counter start was drawn for; -1 = none
};

}  // namespace idgen
