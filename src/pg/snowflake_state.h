// id_gen: where snowflake generator state lives, shared by every backend of the server.
//
// A generator is keyed by (kind, database, number, epoch): one per node layout for the whole
// cluster (database 0; every database of a server shares its node number), one per
// (database, shard, epoch) for shard next_id().
//
//  * Preloaded (shared_preload_libraries = 'id_gen'): the state is a slot in PostgreSQL shared
//    memory, guarded by one LWLock.
//  * Not preloaded: the state is a 56-byte record in a file under $PGDATA/pg_idgen/, read and
//    written under flock(2) by every backend. Same guarantees, a few system calls slower.
//
// In both modes a high-water mark (Unix ms) is written to that file and fsync'd before any ID
// later than it is issued, 100 ms ahead of use; after a restart a generator starts after it, so no
// ID is reissued even if the clock went back.
//
// Why no ID repeats (the argument the tests check):
//  1. Every read-modify-write of a key's state happens under one mutual exclusion for the whole
//     server: the LWLock (preloaded: one shared segment, every backend attached), or flock(2) on
//     the key's file (not preloaded: one file per key in $PGDATA, every backend opens the same
//     inode; flock excludes across processes). Within a run, the state is therefore a single
//     sequence of snowflake_step() calls, whatever the number of backends or databases.
//  2. snowflake_step() only issues a (time, sequence) pair lexicographically greater than the
//     state's last pair, and stores it before the lock is released (shared memory, or pwrite into
//     the page cache, which every process sees). So within a run, pairs strictly increase; an ID
//     is a function of (time, node, sequence) with disjoint bit fields, so distinct pairs give
//     distinct IDs for any node value (a reloaded node_id cannot collide either).
//  3. Across runs: no pair is issued with a time later than the persisted mark, which is written
//     and fsync'd first; a new run (new shared memory, or a file record with another boot stamp)
//     starts from the mark with the sequence marked full, so its first pair is after every pair of
//     every earlier run. This needs the mark on disk to be the largest ever granted: a writer
//     re-reads the slot's mark under the LWLock (or the record under flock) and never writes a
//     smaller one (snowflake_mark_to_persist), and a new file or pg_idgen/ directory is fsync'd
//     with its directory entry before use, so an OS crash cannot lose it.
//  4. Across epochs (a shard re-created with another epoch): a mark written under epoch E1 is
//     restated for epoch E2 keeping its time field (snowflake_mark_for_epoch), so every ID after
//     the change is above every ID before it, whichever epoch is later.
// Not covered: two servers with the same node number (a promoted standby, a copied data
// directory), which is a configuration error the server cannot see.
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
extern int g_max_run_ahead_ms;   // id_gen.max_run_ahead
extern int g_test_clock_offset_ms;  // id_gen.test_clock_offset (superuser, for tests)
extern bool g_enable_test_clock;    // id_gen.enable_test_clock (server-level): the offset counts only when on

void snowflake_define_settings();
void snowflake_request_shmem();  // from shmem_request_hook
void snowflake_attach_shmem();   // from shmem_startup_hook
bool snowflake_shmem_ready() noexcept;

inline constexpr std::int64_t kReserveAheadMs = 100;  // how far the persisted mark leads use
inline constexpr std::int64_t kMaxWaitMs = 1000;      // longest a call waits for the clock

// Issues one ID. Raises 25006 in a read-only transaction or during recovery. Core failures come
// back as an Error with a description in `detail` (a static or thread-local buffer).
[[nodiscard]] Result<std::int64_t> snowflake_issue(const StateKey& key, const SnowflakeLayout& layout,
                                                   std::uint32_t node, const char*& detail);

// Raises 25006 unless this transaction may write shared generator state.
void require_writable(const char* what);

}  // namespace idgen::pg
