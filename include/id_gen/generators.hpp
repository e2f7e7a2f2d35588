// id_gen C++ library: generators.
//
// Thread safety and order, per generator object:
//   * next() may be called from any number of threads at once. Each object has one lock; every
//     ID is issued under it, so the IDs one object issues are unique and strictly increasing in
//     the order they were issued: an ID returned before another call began is smaller than that
//     call's ID, whichever threads made the calls.
//   * Two objects are independent (no shared state, no shared lock): give each thread its own
//     generator for no contention, at the price of order across threads within a millisecond.
//     new_ulid() and new_uuidv7() use one process-wide generator each.
//   * Randomness comes from the kernel CSPRNG (getrandom(2)), drawn in 4 KiB blocks per object;
//     bytes are erased from the block as they are handed out.
//   * After fork(), a ULID or UUIDv7 generator in the child drops its random block and (ULID) its
//     last ID, so parent and child never issue the same ID. A snowflake generator refuses in the
//     child (errc::forked): parent and child would share the node number. As with any mutex, a
//     generator that another thread was using at the moment of fork() stays locked in the child.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>

#include "id_gen/ids.hpp"

namespace id_gen {

// A clock: Unix time in nanoseconds. Generators read the system clock (CLOCK_REALTIME) unless
// given another one (tests use this to stand the clock still or step it back).
using Clock = std::function<std::int64_t()>;

// ULIDs: the clock's millisecond and 80 random bits. Within one millisecond, or when the clock
// stands still or steps back, the next ID is the last one plus 1 (in its 80-bit random part;
// when that part is all ones, the next millisecond), so IDs never repeat or go down: the same
// rule as gen_ulid() within one database session.
class UlidGenerator {
public:
    UlidGenerator();
    explicit UlidGenerator(Clock clock);
    ~UlidGenerator();
    UlidGenerator(const UlidGenerator&) = delete;
    UlidGenerator& operator=(const UlidGenerator&) = delete;

    // errc::entropy_failure if the kernel gives no random bytes; errc::time_out_of_range after
    // the year 10889.
    [[nodiscard]] Ulid next();

private:
    struct State;
    std::unique_ptr<State> s_;
};

// UUIDv7 as PostgreSQL 18's uuidv7(): the clock's millisecond and its sub-millisecond fraction
// in 12 bits (1/4096 ms), then 62 random bits. The generator never uses a time less than 245 ns
// after the last one, so IDs strictly increase even when the clock stands still or steps back
// (their time runs ahead of the clock until it catches up).
class Uuidv7Generator {
public:
    Uuidv7Generator();
    explicit Uuidv7Generator(Clock clock);
    ~Uuidv7Generator();
    Uuidv7Generator(const Uuidv7Generator&) = delete;
    Uuidv7Generator& operator=(const Uuidv7Generator&) = delete;

    // errc::entropy_failure; errc::time_out_of_range after the year 2262.
    [[nodiscard]] Uuid next();

private:
    struct State;
    std::unique_ptr<State> s_;
};

struct SnowflakeOptions {
    // How far an ID's time may run ahead of the clock when a time unit's sequence is used up
    // (0 to 60 s); beyond it, next() sleeps until the clock catches up. As id_gen.max_run_ahead.
    std::chrono::milliseconds max_run_ahead{1000};
    // The longest next() waits for the clock before it throws errc::capacity_exceeded (a clock
    // that stepped far back would otherwise block it until the clock is back).
    std::chrono::milliseconds max_wait{2000};
    Clock clock;  // empty: the system clock
};

// Snowflakes for one node number of one layout. The state lives in this object: IDs are unique
// among the IDs of this object. Uniqueness across processes and servers is the node number's
// job: give every generator that issues into the same ID space (this process's, other
// processes', and each database server's id_gen.node_id) its own node number.
//
// Across a restart of the process: the first ID of a new generator is more than max_run_ahead
// after the clock reading at construction, so it is above every ID an earlier generator of the
// same node issued before it was destroyed (those were at most max_run_ahead ahead of the clock),
// as long as the system clock did not step back between the two.
class SnowflakeGenerator {
public:
    // errc::invalid_argument if `node` does not fit the layout, or max_run_ahead is outside 0..60 s.
    explicit SnowflakeGenerator(std::uint32_t node, const SnowflakeLayout& layout = SnowflakeLayout::twitter(),
                                SnowflakeOptions options = {});
    ~SnowflakeGenerator();
    SnowflakeGenerator(const SnowflakeGenerator&) = delete;
    SnowflakeGenerator& operator=(const SnowflakeGenerator&) = delete;

    // At capacity (4,096 IDs in one ms for twitter) the time field moves on ahead of the clock,
    // up to max_run_ahead; then next() sleeps (without holding the lock) until the clock catches
    // up. errc::capacity_exceeded after max_wait; errc::time_out_of_range before the layout's
    // epoch or once its time field is used up; errc::forked in a child process after fork().
    [[nodiscard]] Snowflake next();

    [[nodiscard]] std::uint32_t node() const noexcept;
    [[nodiscard]] const SnowflakeLayout& layout() const noexcept;

private:
    struct State;
    std::unique_ptr<State> s_;
};

// One process-wide generator each (created on first use): IDs strictly increasing across every
// thread of the process.
[[nodiscard]] Ulid new_ulid();
[[nodiscard]] Uuid new_uuidv7();

}  // namespace id_gen
