// id_gen: the generators whose state is shared by every backend of the server (snowflake
// layouts, shards, TraceIds, gen_monotonic_ulid(), DecimalIds), as the SQL entry points call them. Each is written once
// over the state store interface (state/store.h), which says where the state lives and why no ID
// repeats.
//
// A generator is keyed by (kind, database, number, epoch): one per node layout for the whole
// cluster (database 0; every database of a server shares its node number), one per
// (database, shard, epoch) for shard next_id(), one per (database, shard block, epoch) for a shard
// issued from a block of its sequence field on a cluster (shard.cpp), one for TraceIds, and one per
// launch number for DecimalIds.
//
// In every store a high-water mark (Unix ms) is written and fsync'd before any ID later than it is
// issued, 100 ms ahead of use (more when fsync is slow); after a restart a generator starts after
// it, so no ID is reissued even if the clock went back.
#pragma once

#include <cstdint>

#include "core/base/clock.h"
#include "core/base/result.h"
#include "core/types/snowflake.h"
#include "pg/state/store.h"

namespace idgen::pg {

// Settings, defined in _PG_init (generator_settings.cpp).
extern int g_node_id;               // id_gen.node_id, -1 = unset
extern int g_launch_id;             // id_gen.launch_id (gen_decimal_id()), -1 = unset
extern int g_max_run_ahead_ms;      // id_gen.max_run_ahead
extern int g_test_clock_offset_ms;  // id_gen.test_clock_offset (superuser, for tests)
extern bool g_enable_test_clock;    // id_gen.enable_test_clock (server-level): the offset counts only when on

// Defines the settings and, while preloading, requests the shared-memory store.
void generator_define_settings();
void shmem_store_install_hooks();  // state/slot_store_shmem.cpp
// "shared memory" (preloaded), "dsm registry" (17+, attached on first use) or "files". May
// raise while attaching the DSM segment (out of memory).
const char* snowflake_state_storage_name();

// The clock the generators read, Unix ms: id_gen.test_clock_offset counts only on a server started
// with id_gen.enable_test_clock. The test offset moves shared (and persisted) state for every
// backend, so it only counts on a server started for testing, never from a session's SET alone.
[[nodiscard]] inline std::int64_t generator_clock_ms() noexcept {
    return unix_time_ms() + (g_enable_test_clock ? g_test_clock_offset_ms : 0);
}

inline constexpr std::int64_t kReserveAheadMs = 100;     // how far the persisted mark leads use (at least)
inline constexpr std::int64_t kReserveAheadMaxMs = 250;  // ... and at most (when fsync is slow)
inline constexpr std::int64_t kMaxWaitMs = 1000;         // longest a call waits for the clock, beyond the horizon

// Raises 25006 unless this transaction may write shared generator state.
void require_writable(const char* what);

// How far ahead of the clock a raised mark may be: a generator whose mark is ahead of its clock
// issues at most max_run_ahead worth of IDs past it, then refuses until the clock gets there, so a
// mark further ahead is refused (22003) rather than stopping it for days.
inline constexpr std::int64_t kMaxRaiseAheadMs = 24LL * 3600 * 1000;
// Raises 22003 when Unix ms `mark_ms` is more than kMaxRaiseAheadMs ahead of the generators' clock;
// `id_text` is the ID it came from, `what` the generator (for the message).
// `hint` replaces the hint for a snowflake-kind generator (another node number) when not null.
void require_mark_within_reach(std::int64_t mark_ms, const char* id_text, const char* what, const char* hint = nullptr);

// A hand-raised mark over the store (generator_loop.cpp); issuing is generator_loop.h. Core failures
// come back as an Error with a description in `detail` (a static or thread-local buffer). May raise
// only while waiting for a lock (interrupts).
[[nodiscard]] Result<std::int64_t> generator_raise_mark(Generator& g, std::int64_t mark_ms, const char*& detail);

// Snowflake layouts, shards and TraceIds (snowflake_gen.cpp). Issues one ID of `layout` with node
// field `node`; callers check require_writable first.
[[nodiscard]] Result<std::int64_t> snowflake_issue(const StateKey& key, const SnowflakeLayout& layout,
                                                   std::uint32_t node, const char*& detail);

// The same with every ID stepped under the key's exclusion (the file store leases none to a
// backend): the IDs of all backends increase in the order their calls took it, so an ID is greater
// than every ID any call had returned before this call began (gen_monotonic_ulid(), node field 0).
[[nodiscard]] Result<std::int64_t> snowflake_issue_in_order(const StateKey& key, const SnowflakeLayout& layout,
                                                            const char*& detail);

// Raises the persisted high-water mark of `key` to at least Unix ms `mark_ms`: the time unit
// containing it counts as used up, so every ID the generator issues once this returns is in a
// later unit (above every ID of that unit, whatever its node or shard field). The generator's live
// state restarts from the mark, as after a restart. A mark that is already at least `mark_ms` is
// left alone. Returns the mark in force. For data carried to another server (a dump, pg_upgrade
// without the old pg_idgen/): its IDs may lie ahead of this server's clock.
[[nodiscard]] Result<std::int64_t> snowflake_raise_mark(const StateKey& key, const SnowflakeLayout& layout,
                                                        std::int64_t mark_ms, const char*& detail);

// ---------------------------------------------------------------------------------------------
// DecimalId generators (core/types/trace_decimal.h; decimal_gen.cpp). A generator is one server
// run's issuer for one launch number: every backend of the server draws counters from it. Its
// number comes from a per-launch counter persisted in $PGDATA/pg_idgen/v2/ (the record's mark),
// written and fsync'd before any ID of the new generator is issued. A new one is taken at the first
// call of each server run (a restart or a crash loses the live counter, never the number) and when
// the counter reaches 922,337,202. So no (generator, launch) pair is ever used twice on a server,
// and a counter is only handed out once per pair.
inline constexpr std::uint8_t kDecimalStateKind = 7;  // StateKey kind (beside the LayoutKinds)

enum class DecimalRefusal : std::uint8_t {
    kNone,
    kGeneratorsUsedUp,  // all 100,000 generator numbers of this launch have been taken
    kForeignRecord,     // the launch's record was written by another server or timeline
};
// Issues one DecimalId of `launch`; callers check require_writable first. Core failures (I/O,
// damaged record, lock timeout) come back as an Error with `detail`; a refusal comes back as
// kCapacityExceeded with `refusal` saying which.
[[nodiscard]] Result<std::int64_t> decimal_issue(std::uint32_t launch, const char*& detail, DecimalRefusal& refusal);

}  // namespace idgen::pg
