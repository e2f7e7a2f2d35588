// id_gen: where generator state lives, shared by every backend of the server: one interface, one
// implementation per store, and the generators written once over it.
//
// The interface (StateStore). A generator's state is keyed (StateKey) and has two parts: a live
// state (LiveState: the core's step state and the mark as persisted) and a persisted high-water
// mark in a record under $PGDATA/pg_idgen/v2/ (record_file.h). A store runs one call in four moves:
//   1. load the key's live state (the store's own copy when it is this server run's; otherwise
//      Generator::restore() from the persisted record),
//   2. run the generator's pure core step (Generator::step()) under the key's exclusion,
//   3. when the step asks for a mark above the persisted one (kReserve), write and fsync the mark
//      first, and only then run the step again: nothing is issued above a mark not synced,
//   4. release the exclusion. What was issued is handed back to the generator (a Step).
// A store that hands out more than one ID per step (leases()) expects the generator to keep the
// rest in this backend and issue them itself (Generator::lease_*).
// The stores (chosen once per backend, state_store()):
//  * shared memory (slot_store_shmem.cpp, when preloaded) and the DSM registry
//    (slot_store_dsm.cpp, 17+ without preloading): one slot table in a shared segment
//    (slot_store.cpp). Exclusion: a spinlock around the pure step; the record's I/O under an
//    LWLock taken with the file lock.
//  * locked files (file_store.cpp, 15/16 without preloading): exclusion is flock(2) on the key's
//    file; the live state is the record itself; a step leases up to `want` IDs.
// The generators (src/pg/generators/: generators.h): snowflake layouts, shards, TraceIds and
// gen_monotonic_ulid() (snowflake_gen.cpp) and DecimalIds (decimal_gen.cpp) implement Generator; generator_loop.h drives
// any of them over any store (the wait for the clock and retries out of line in
// generator_loop.cpp, with the hand-raised marks). Following gen_snowflake(): types/snowflake.cpp
// -> snowflake_issue (generators/snowflake_gen.cpp) -> generator_issue (generators/generator_loop.h)
// -> StateStore::run (one store's file) -> SnowflakeGen::step -> snowflake_step
// (core/types/snowflake.cpp), and back. With a shared store the per-ID path (spinlock,
// slot, step) is shared_run() in slot_store.h, inline in generator_issue with the generator's
// step called directly (what StateStore::run of the shared stores also runs); only the rare
// outcomes go through out-of-line and virtual calls.
//
// Why no ID repeats (the argument the tests check):
//  1. Every read-modify-write of a key's state happens under one mutual exclusion for the whole
//     server: the spinlock on the slot (one shared segment, every backend attached), or flock(2)
//     on the key's file (one file per key in $PGDATA; flock excludes across processes). A
//     descriptor is trusted only while its inode is the one the path names, checked after taking
//     the lock and again before releasing it; a deleted or replaced file is reopened and its mark
//     carried into the new one. Within a run, the state is therefore a single sequence of steps,
//     whatever the number of backends or databases.
//  2. A snowflake step only issues (time, sequence) pairs lexicographically greater than the
//     state's last pair, and the store keeps the last one before the exclusion is released. A lease
//     is a run of such pairs handed to one backend, so leases are disjoint; a backend issues its
//     lease's pairs in order, and only while the clock has not passed the lease's time unit. An ID
//     is a function of (time, node, sequence) with disjoint bit fields. gen_monotonic_ulid()'s
//     generator takes no lease of more than its call's own pair, so its pairs are issued in the
//     order the calls took the exclusion, across every backend: one order for the server.
//  3. Across runs: no pair is issued with a time later than the persisted mark, which is written
//     and fsync'd first (a failed fsync flags the record, and the next locker rewrites and fsyncs
//     it before anything is issued); a new run starts from the mark with its unit marked full
//     (Generator::restore), so its first pair needs a new mark (synced in this run). The mark on
//     disk is the largest ever granted: stores never write a smaller one. A file created afresh
//     and a record written by another server or timeline (a promoted standby) start at the clock
//     plus the horizon: the run-ahead allowance plus the largest reserve plus a unit. The clock
//     there is at least the one the server read at its first such takeover, fixed on disk then
//     (takeover_clock, record_file.h): a clock that steps back after it (reloaded, or across a
//     restart) does not lower the start of keys taken over later.
//  4. Across epochs (a shard re-created with another epoch): a mark written under epoch E1 is
//     restated for epoch E2 keeping its time field (snowflake_mark_for_epoch).
//  5. Across an upgrade from 0.1.0: the first v2 record of a key takes over the 0.1.0 record's
//     mark under 0.1.0's own lock and poisons it (record_file.cpp).
//  6. A mark raised by hand (StateStore::raise) is written and fsync'd under the key's locks like
//     any other, and the live state restarts from it as after a restart (shared memory: the slot
//     is unloaded; files: boot = 0). The decision is taken against what the live state has issued,
//     not the saved mark (which leads it by the reserve): a raise to a unit at or above the live
//     state's last one restarts it from the larger of the two marks even when the saved mark need
//     not move. The file store returns only once the clock has left the time unit of the call when
//     the raise reaches the clock's unit, so no lease taken before it serves after it.
//  7. DecimalIds: the mark is the largest generator number granted; a step that has no generator
//     (a new run) or has used up its counter asks for the next number, persisted first.
// Not covered: two servers with the same node number (a copied data directory that keeps its
// system identifier and timeline), which is a configuration error the server cannot see.
#pragma once

#include <cstdint>

#include "core/base/result.h"
#include "core/state/state_record.h"
#include "core/types/snowflake.h"

namespace idgen::pg {

struct StateKey {
    std::uint8_t kind;    // LayoutKind, or kDecimalStateKind
    std::uint32_t db;     // 0 for node-level keys
    std::int32_t number;  // 0 for node layouts, the shard number for shards, the launch for DecimalIds
    std::int64_t epoch_ms;
};

[[nodiscard]] inline bool same_key(const StateKey& a, const StateKey& b) noexcept {
    return a.kind == b.kind && a.db == b.db && a.number == b.number && a.epoch_ms == b.epoch_ms;
}

// Context for errors: what went wrong, in words (a static per-backend buffer).
struct StateError {
    Error code = Error::kNoOutcome;
    const char* detail = "";
};

// A key's live state: the core's step state (DecimalIds: last_time = generator number, last_seq =
// its last counter) and the mark the store has persisted for it.
struct LiveState {
    SnowflakeState st;
    std::int64_t mark = INT64_MIN;
};

// A generator as a store sees it: pure functions of plain data, called under the key's exclusion
// (nothing here raises, waits or does I/O).
class Generator {
public:
    // `k` must outlive the generator (a generator lives for one call). Held by reference: a copy
    // of a key the caller has just written would be read back before its stores have landed.
    explicit Generator(const StateKey& k) noexcept : key(k) {}
    const StateKey& key;
    const char* detail = "";  // words for the last failed step (a static buffer), else ""

    // The clock as this generator reads it (-1 for one without a clock); the starting mark of a
    // state file created afresh is clock + horizon_ms().
    [[nodiscard]] virtual std::int64_t clock() const noexcept = 0;
    [[nodiscard]] virtual std::int64_t horizon_ms() const noexcept = 0;
    // The state a persisted record stands for when its live state is not this server run's (another
    // run, server, timeline or epoch): `live.st` to step from, `start_mark` the mark it counts as
    // (at least the record's, restated: a file store persists it when it moved), `live.mark` the
    // record's own mark restated for this key. False (err set) when the record is refused.
    [[nodiscard]] virtual bool restore(const StateRecord& r, const char* path, std::int64_t now_ms, LiveState& live,
                                       std::int64_t& start_mark, StateError& err) noexcept = 0;
    // One core step over `live` (want >= 1): kIssued (up to `want` IDs), kWait (until ms), or
    // kReserve: persist a mark >= mark_wanted(step) (marked() is then told), and step again.
    [[nodiscard]] virtual Result<Step> step(LiveState& live, std::int64_t now_ms, std::uint32_t want) noexcept = 0;
    [[nodiscard]] virtual std::int64_t mark_wanted(const Step& reserve) noexcept { return reserve.ms; }
    // Before a new mark is written over record `r`: false (err set) refuses it.
    [[nodiscard]] virtual bool may_mark(const StateRecord& r, const char* path, StateError& err) noexcept {
        (void)r, (void)path, (void)err;
        return true;
    }
    // The mark `mark` has been persisted for `live`.
    virtual void marked(LiveState& live, std::int64_t mark) noexcept { live.mark = mark; }

    // The generator's side of a lease (stores with leases()): the next ID of the lease held in this
    // backend (0: none left), how many to ask for next, and the start of a lease from a step.
    [[nodiscard]] virtual std::int64_t lease_next(std::int64_t now_ms) noexcept = 0;
    [[nodiscard]] virtual std::uint32_t lease_want() noexcept = 0;
    virtual void lease_start(const Step& s, std::int64_t now_ms) noexcept = 0;
    // The ID of a kIssued step of one ID (stores without leases); 0 if none.
    [[nodiscard]] virtual std::int64_t id_of(const Step& s) noexcept = 0;
    // The time unit Unix ms `ms` falls in (a lease serves only within the clock's unit).
    [[nodiscard]] virtual std::int64_t unit_of(std::int64_t ms) const noexcept = 0;

protected:
    ~Generator() = default;
};

// What one attempt of a store ended in. kNone is not an outcome: a loop that ends there reports an
// error, so "nothing happened" can never be read as an ID (0.1.0 turned it into the ID 0).
enum class Outcome { kNone, kIssued, kWait, kRetry, kError };

class StateStore {
public:
    [[nodiscard]] virtual const char* name() const noexcept = 0;
    // Whether a step may hand out more than one ID (kept in the backend: Generator::lease_*).
    [[nodiscard]] virtual bool leases() const noexcept = 0;
    // One attempt: load, step under the key's exclusion (marks persisted first), release. kIssued
    // with `out` the step; kWait with out.ms; kRetry: call again. Raises only while waiting for a
    // lock (interrupts), with no lock held.
    [[nodiscard]] virtual Outcome run(Generator& g, std::uint32_t want, std::int64_t now_ms, Step& out,
                                      StateError& err) = 0;
    // Raises the persisted mark of g.key to at least `want_ms` and restarts the live state from it;
    // `mark` is the mark in force. Raises only while waiting for a lock.
    [[nodiscard]] virtual bool raise(Generator& g, std::int64_t want_ms, std::int64_t now_ms, std::int64_t& mark,
                                     StateError& err) = 0;

protected:
    ~StateStore() = default;
};

// The store of this backend: shared memory when preloaded, the DSM registry on 17+ (attached on
// first use: may raise, out of memory), locked files otherwise; chosen once per backend (a DSM
// attach that raised is retried on the next call). Call before any lock is taken.
StateStore& choose_state_store();
extern StateStore* g_state_store;  // null until chosen
inline StateStore& state_store() { return g_state_store != nullptr ? *g_state_store : choose_state_store(); }

// The stores (each in its own file). shmem_store() is null unless preloaded; dsm_store() is null
// before 17. May raise (attaching the DSM segment).
StateStore* shmem_store() noexcept;
StateStore* dsm_store();
StateStore& file_store() noexcept;

}  // namespace idgen::pg
