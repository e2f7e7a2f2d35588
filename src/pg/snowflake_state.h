// id_gen: where snowflake generator state lives, shared by every backend of the server.
//
// A generator is keyed by (kind, database, number, epoch): one per node layout for the whole
// cluster (database 0; every database of a server shares its node number), one per
// (database, shard, epoch) for shard next_id(), and one per (database, shard block, epoch) for a
// shard issued from a block of its sequence field on a cluster (shard.cpp).
//
//  * Preloaded (shared_preload_libraries = 'id_gen'): the state is a slot in PostgreSQL shared
//    memory, guarded by one LWLock.
//  * Not preloaded: the state is a record in a file under $PGDATA/pg_idgen/v2/ (state_file.h),
//    read and written under flock(2) by every backend. To keep the lock off the per-ID path, a
//    backend leases a block of one time unit's sequence numbers under the lock and issues them
//    itself while the clock is still in that unit.
//
// In both modes a high-water mark (Unix ms) is written to that file and fsync'd before any ID
// later than it is issued, 100 ms ahead of use (more when fsync is slow); after a restart a
// generator starts after it, so no ID is reissued even if the clock went back.
//
// Why no ID repeats (the argument the tests check):
//  1. Every read-modify-write of a key's state happens under one mutual exclusion for the whole
//     server: the spinlock on the slot (preloaded: one shared segment, every backend attached), or
//     flock(2) on the key's file (not preloaded: one file per key in $PGDATA; flock excludes across
//     processes). A descriptor is trusted only while its inode is the one the path names, checked
//     after taking the lock and again before releasing it; a deleted or replaced file is reopened
//     and its mark carried into the new one. Within a run, the state is therefore a single sequence
//     of snowflake_step() calls, whatever the number of backends or databases.
//  2. snowflake_step() only issues (time, sequence) pairs lexicographically greater than the
//     state's last pair, and stores the last one before the lock is released. A lease is a run of
//     such pairs handed to one backend, so leases are disjoint; a backend issues its lease's pairs
//     in order, and only while the clock has not passed the lease's time unit. An ID is a function
//     of (time, node, sequence) with disjoint bit fields, so distinct pairs give distinct IDs.
//  3. Across runs: no pair is issued with a time later than the persisted mark, which is written
//     and fsync'd first (a failed fsync flags the record, and the next locker rewrites and fsyncs
//     it before anything is issued); a new run starts from the mark with its unit marked full, so
//     its first pair needs a new mark (synced in this run) and is after every pair of every earlier
//     run. The mark on disk is the largest ever granted: writers never write a smaller one
//     (snowflake_mark_to_persist). A file created afresh (first use, deleted, replaced) and a
//     record written by another server or timeline (a promoted standby) start at the clock plus the
//     horizon: the run-ahead allowance plus the largest reserve, the furthest any backend can have
//     issued ahead of its clock.
//  4. Across epochs (a shard re-created with another epoch): a mark written under epoch E1 is
//     restated for epoch E2 keeping its time field (snowflake_mark_for_epoch), so every ID after
//     the change is above every ID before it, whichever epoch is later.
//  5. Across an upgrade from 0.1.0 (its records live in $PGDATA/pg_idgen/): the first v2 record of
//     a key takes over the 0.1.0 record's mark, under 0.1.0's own lock, and replaces it with a
//     record that leaves 0.1.0 code nothing to issue (legacy_poison), so a backend still running
//     the old library refuses instead of repeating IDs.
//  6. A mark raised by hand (snowflake_raise_mark: IDs made elsewhere, restored here) is written and
//     fsync'd under the key's locks like any other, and the live state restarts from it as after a
//     restart (shared memory: the slot is unloaded, so the next call reloads it; files: boot = 0).
//     Without shared memory the call returns only once the clock has left the time unit it was
//     made in, so no lease taken before it serves after it.
// Not covered: two servers with the same node number (a copied data directory that keeps its
// system identifier and timeline), which is a configuration error the server cannot see.
#pragma once

#include <cstdint>

#include "core/result.h"
#include "core/snowflake.h"

namespace idgen::pg {

struct StateKey {
    std::uint8_t kind;     // LayoutKind
    std::uint32_t db;      // 0 for node layouts
    std::int32_t number;   // 0 for node layouts, the shard number for shards
    std::int64_t epoch_ms;
};

// Settings, defined in _PG_init.
extern int g_node_id;            // id_gen.node_id, -1 = unset
extern int g_launch_id;          // id_gen.launch_id (gen_decimal_id()), -1 = unset
extern int g_max_run_ahead_ms;   // id_gen.max_run_ahead
extern int g_test_clock_offset_ms;  // id_gen.test_clock_offset (superuser, for tests)
extern bool g_enable_test_clock;    // id_gen.enable_test_clock (server-level): the offset counts only when on

void snowflake_define_settings();
void snowflake_request_shmem();  // from shmem_request_hook
void snowflake_attach_shmem();   // from shmem_startup_hook
// "shared memory" (preloaded), "dsm registry" (17+, attached on first use) or "files". May
// raise while attaching the DSM segment (out of memory).
const char* snowflake_state_storage_name();

inline constexpr std::int64_t kReserveAheadMs = 100;  // how far the persisted mark leads use (at least)
inline constexpr std::int64_t kMaxWaitMs = 1000;      // longest a call waits for the clock, beyond the horizon

// Issues one ID. Raises 25006 in a read-only transaction or during recovery. Core failures come
// back as an Error with a description in `detail` (a static or thread-local buffer).
[[nodiscard]] Result<std::int64_t> snowflake_issue(const StateKey& key, const SnowflakeLayout& layout,
                                                   std::uint32_t node, const char*& detail);

// Raises 25006 unless this transaction may write shared generator state.
void require_writable(const char* what);

// How far ahead of the clock snowflake_raise_mark() may put a mark: a generator whose mark is
// ahead of its clock issues at most max_run_ahead worth of IDs past it, then refuses until the
// clock gets there, so a mark further ahead is refused (22003) rather than stopping it for days.
inline constexpr std::int64_t kMaxRaiseAheadMs = 24LL * 3600 * 1000;
// Raises 22003 when Unix ms `mark_ms` is more than kMaxRaiseAheadMs ahead of the clock the
// generators read (id_gen.test_clock_offset counts on a test server); `id_text` is the ID it came
// from, `what` the generator (for the message).
void require_mark_within_reach(std::int64_t mark_ms, const char* id_text, const char* what);

// Raises the persisted high-water mark of `key` to at least Unix ms `mark_ms`: the time unit
// containing it counts as used up, so every ID the generator issues once this returns is in a
// later unit (above every ID of that unit, whatever its node or shard field). The generator's live
// state restarts from the mark, as after a restart. A mark that is already at least `mark_ms` is
// left alone. Returns the mark in force. For data carried to another server (a dump, pg_upgrade
// without the old pg_idgen/): its IDs may lie ahead of this server's clock. May raise only while
// waiting for a lock, like snowflake_issue().
[[nodiscard]] Result<std::int64_t> snowflake_raise_mark(const StateKey& key, const SnowflakeLayout& layout,
                                                        std::int64_t mark_ms, const char*& detail);

// ---------------------------------------------------------------------------------------------
// DecimalId generators (core/trace_decimal.h). A generator is one server run's issuer for one
// launch number: every backend of the server draws counters from it (a shared-memory slot when
// preloaded or on 17+ through the DSM registry; the key's state file otherwise, in leases). Its
// number comes from a per-launch counter persisted in $PGDATA/pg_idgen/v2/ (the record's mark),
// written and fsync'd before any ID of the new generator is issued. A new one is taken at the
// first call of each server run (a restart or a crash loses the live counter, never the number)
// and when the counter reaches 922,337,202. So no (generator, launch) pair is ever used twice on a
// server, and a counter is only handed out once per pair.
inline constexpr std::uint8_t kDecimalStateKind = 7;  // StateKey kind (beside the LayoutKinds)

enum class DecimalRefusal : std::uint8_t {
    kNone,
    kGeneratorsUsedUp,  // all 100,000 generator numbers of this launch have been taken
    kForeignRecord,     // the launch's record was written by another server or timeline
};
// Issues one DecimalId of `launch`. Raises 25006-free: callers check require_writable first. Core
// failures (I/O, damaged record, lock timeout) come back as an Error with `detail`; a refusal
// comes back as kCapacityExceeded with `refusal` saying which.
[[nodiscard]] Result<std::int64_t> decimal_issue(std::uint32_t launch, const char*& detail, DecimalRefusal& refusal);

}  // namespace idgen::pg
