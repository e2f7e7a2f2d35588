// id_gen: next_id()'s per-backend caches (shard_cache.cpp), as the entry points of shard.cpp use
// them (not for other files).
#pragma once

#include <algorithm>
#include <cstring>

#include "core/types/snowflake.h"
#include "pg/base/boundary.h"
#include "pg/base/extension.h"
#include "pg/base/pg_time.h"
#include "pg/generators/generators.h"

extern "C" {
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/skey.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/dependency.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "commands/trigger.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/fmgroids.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
}

namespace idgen::pg::shards {

// ---------------------------------------------------------------------------------------------
// Per-backend caches, and what makes each current (DESIGN.md §10).
//
// 1. The two tables, shard_registry and shard_blocks, by OID (g_tables). Found through
//    pg_extension in the extension's schema and checked to be members of the extension and plain
//    tables (relkind 'r'): a table someone else put there under that name, or a partitioned one,
//    is never read. Dropped by a relcache invalidation of either OID (DROP EXTENSION, a re-create)
//    or of every relation. A missing shard_blocks (0.1.0's SQL under this library) is not cached:
//    it is looked for again in every transaction, so ALTER EXTENSION ... UPDATE is seen at once.
//
// 2. The shards (g_shards): next_id() function OID -> registry row and this server's block.
//    Current because an entry is trusted in a transaction only after that transaction holds the
//    locks below, taken at its first call (and again after a subtransaction that may have
//    released them aborts) and held to its end:
//     - AccessShareLock on both tables (lock_tables()), which only a TRUNCATE, DROP or ALTER of
//       them conflicts with;
//     - the shard's own lock, a lock object of the shard's number (lock_shard(): classid the
//       registry's OID, objid the shard, objsubid 0) in ShareLock mode, and for a shard issued
//       from its whole field (no blocks) also objsubid 1. A BEFORE ROW trigger on both tables
//       (shard_rows_lock(), ENABLE ALWAYS: it fires under session_replication_role = replica and
//       in the logical replication apply worker too) takes RowExclusiveLock on objsubid 0 of the
//       shard of every row UPDATEd or DELETEd, and on objsubid 1 of the shard of every block
//       INSERTed. So a change to a shard's existing rows (drop_shard, rename_shard, a copy that
//       replaces them, manual DML) waits for every transaction that issued from them, and the
//       first block of a shard waits for those that issued from its whole field; a new block for
//       another node, or a new shard, waits for no one (a grant conflicts with no issuer, and no
//       issuer queues behind it). The transaction's first call waits for a change of its shard in
//       progress to commit;
//     - taking either lock processes invalidations (LockRelationOid, LockDatabaseObject), and
//       every committed change has sent one: the tables' row and statement triggers
//       (shard_registry_changed) are ENABLE ALWAYS, and the row triggers fire in the apply worker
//       (which fires no statement triggers but TRUNCATE's). An entry read before its shard's lock
//       was taken is read again if an invalidation came in while it was taken.
//    So within a transaction the rows a cached entry was read from cannot change, and at its first
//    call every committed change has been seen. Entries are dropped one by one when their function or its schema changes
//    (syscache hash values of PROCOID and NAMESPACEOID: CREATE OR REPLACE, ALTER FUNCTION ... SET
//    SCHEMA, ALTER SCHEMA ... RENAME), and all of them on an invalidation of either table; an
//    invalidation of any other relation leaves them alone. A hash table: any number of shards
//    stays cached.
struct CachedShard {
    Oid fn_oid;  // hash key
    bool valid;
    std::uint32_t proc_hash;  // syscache hash values of the function and its schema
    std::uint32_t nsp_hash;
    std::int32_t shard;
    std::int64_t epoch_ms;
    int node_id;                  // id_gen.node_id when the entry was made (a reload can change it)
    int group;                    // this node's Citus group when the entry was made (-1: no Citus)
    std::int32_t seq_lo;          // this server's block of the sequence field: seq_lo .. seq_lo + 2^seq_bits - 1
    std::int32_t seq_bits;        // 10 (the whole field) when the shard has no blocks
    std::int64_t valid_from_ms;   // the block is used from this Unix ms on
    bool in_block;                // issued from a block of shard_blocks
    bool block_valid;             // this backend has seen the clock pass valid_from_ms
    std::uint64_t locked_serial;  // g_xact_serial when this transaction took the shard's lock (lock_shard())
};

struct Tables {
    Oid registry;  // InvalidOid: not looked up yet
    Oid blocks;    // InvalidOid: absent (not cached as such)
    AttrNumber r_shard, r_schema, r_epoch;
    AttrNumber b_shard, b_node, b_lo, b_bits, b_from;
    AttrNumber b_group;  // InvalidAttrNumber: SQL older than 0.3.0 (no node_group column)
    Oid identity;        // shard_node_identity; InvalidOid: absent (SQL older than 0.3.0)
};

extern HTAB* g_shards;
extern CachedShard g_last;  // the entry last returned (see current_shard())

void register_callbacks();
Tables find_tables();
bool identity_confirmed(const Tables& t, int group, int node);
Tables lock_tables();
CachedShard current_shard(Oid fn_oid, bool* miss);
bool pull_grant(Oid fn_oid, CachedShard& entry);

}  // namespace idgen::pg::shards
