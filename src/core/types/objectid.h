// id_gen core: MongoDB ObjectId (BSON type 0x07).
//
// 12 bytes, big-endian fields, so byte order (memcmp) is MongoDB's order:
//   bytes 0-3   seconds since the Unix epoch, unsigned 32-bit (1970-01-01 .. 2106-02-07 06:28:15 UTC)
//   bytes 4-8   a random value drawn once per process (here: per backend, redrawn after fork)
//   bytes 9-11  a counter that starts at a random value, +1 per ID, wrapping 0xFFFFFF -> 0
// Text: 24 hex digits, lower case out, either case in.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/base/entropy.h"
#include "core/base/result.h"

namespace idgen {

struct ObjectId {
    std::uint8_t bytes[12];
};
static_assert(sizeof(ObjectId) == 12);

inline constexpr std::size_t kObjectIdTextLen = 24;
inline constexpr std::int64_t kObjectIdMaxSeconds = 0xFFFFFFFFLL;
inline constexpr std::uint32_t kObjectIdCounterSpan = 1u << 24;

// Exactly 24 characters of 0-9a-fA-F, nothing else (no spaces, no prefix): kInvalidSyntax otherwise.
[[nodiscard]] Result<ObjectId> objectid_parse(const char* s, std::size_t n) noexcept;

// Writes exactly 24 lower-case hex characters (no NUL).
void objectid_format(const ObjectId& id, char* out) noexcept;

// The timestamp field as an unsigned number of seconds.
[[nodiscard]] std::uint32_t objectid_seconds(const ObjectId& id) noexcept;

// The smallest / largest ObjectId whose timestamp is `unix_seconds`; kTimeOutOfRange outside
// 0 .. 2^32-1.
[[nodiscard]] Result<ObjectId> objectid_lower(std::int64_t unix_seconds) noexcept;
[[nodiscard]] Result<ObjectId> objectid_upper(std::int64_t unix_seconds) noexcept;

// Seconds from Unix milliseconds, rounded down (so -1 ms is second -1, out of range).
[[nodiscard]] constexpr std::int64_t objectid_floor_seconds(std::int64_t unix_ms) noexcept {
    return unix_ms >= 0 ? unix_ms / 1000 : -((-(unix_ms + 1)) / 1000) - 1;
}

// The calling process's id, for ObjectIdGenerator: process_id() (entropy.h), read once and again
// after every fork().
[[nodiscard]] int objectid_process_id() noexcept;

// A generator as the ObjectId specification describes it, per process.
//
// The random value and the counter's start are drawn on the first call and again whenever the
// caller's process id differs from the one they were drawn for: a generator inherited across
// fork() never hands its random value to the child.
//
// next() makes IDs for the current time. Within one process its timestamps never go back (a
// clock that steps back keeps the last second), and when one second has used every counter value
// (2^24 IDs) the next ID moves to the following second, so a process never repeats an ID.
// at() makes an ID for a given time with the same random value and the next counter value, as
// the drivers' ObjectId-from-time constructors that fill every field do; two at() IDs for the same
// second repeat only when 2^24 counter steps lie between them.
class ObjectIdGenerator {
public:
    [[nodiscard]] Result<ObjectId> next(std::int64_t now_unix_seconds, int pid, ByteSource& random) noexcept;
    [[nodiscard]] Result<ObjectId> at(std::int64_t unix_seconds, int pid, ByteSource& random) noexcept;

    // For tests: the state as drawn (valid after the first ID).
    [[nodiscard]] const std::uint8_t* process_random() const noexcept { return random_; }
    [[nodiscard]] std::uint32_t counter() const noexcept { return counter_; }
    [[nodiscard]] int owner_pid() const noexcept { return pid_; }

private:
    [[nodiscard]] bool ensure_seeded(int pid, ByteSource& random) noexcept;
    ObjectId make(std::uint32_t seconds) noexcept;

    std::uint8_t random_[5] = {};
    std::uint32_t counter_ = 0;          // the next counter value, 0 .. 2^24-1
    std::int64_t last_seconds_ = -1;     // timestamp of the last next() ID
    std::uint32_t steps_in_second_ = 0;  // counter steps (by next() and at()) since that second's first ID
    int pid_ = -1;                       // the process the random value was drawn for; -1 = none
};

}  // namespace idgen
