// id_gen: Instagram-style per-schema shards.
//
// create_shard(N) puts a C function next_id() into the shard's schema. Every shard's next_id() is
// this one entry point: it finds its shard number from its own schema (fn_oid -> pronamespace ->
// the registry row keyed by schema name), caches that per backend, and issues
//   41 bits of ms since the shard's epoch | 13 bits of shard | 10 bits of sequence
// from generator state shared by every backend (see generators.h), so a shard never repeats
// an ID however many it issues in one millisecond (unlike nextval() % 1024).
//
// On a cluster (Citus) several servers issue IDs of one shard. Each holds a block of the shard's
// sequence field, granted by the coordinator and recorded in shard_blocks on every node (see
// 62_shard_cluster.sql): an aligned run of 2^k sequence numbers, found by this server's
// id_gen.node_id. Issuing from a block is issuing with a layout whose "node" field is the shard
// and the block's position and whose sequence field is k bits wide, so IDs of distinct blocks
// differ in their bits whatever the time. A shard with no blocks is issued by one server from the
// whole sequence field; a shard with blocks, on a server holding none, refuses.
#include <algorithm>
#include <cstring>

#include "pg/base/boundary.h"
#include "pg/base/extension.h"
#include "core/types/snowflake.h"
#include "pg/base/pg_time.h"
#include "pg/generators/generators.h"

extern "C" {
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/skey.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "utils/datum.h"
#include "utils/fmgroids.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
#include "access/xact.h"
#include "storage/lmgr.h"
#include "utils/hsearch.h"
#include "catalog/dependency.h"
#include "commands/extension.h"
#include "executor/executor.h"
}

namespace {

constexpr const char* kShardType = "shard ID";

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
    Oid fn_oid;                  // hash key
    bool valid;
    std::uint32_t proc_hash;     // syscache hash values of the function and its schema
    std::uint32_t nsp_hash;
    std::int32_t shard;
    std::int64_t epoch_ms;
    int node_id;             // id_gen.node_id when the entry was made (a reload can change it)
    int group;               // this node's Citus group when the entry was made (-1: no Citus)
    std::int32_t seq_lo;     // this server's block of the sequence field: seq_lo .. seq_lo + 2^seq_bits - 1
    std::int32_t seq_bits;   // 10 (the whole field) when the shard has no blocks
    std::int64_t valid_from_ms;  // the block is used from this Unix ms on
    bool in_block;               // issued from a block of shard_blocks
    bool block_valid;            // this backend has seen the clock pass valid_from_ms
    std::uint64_t locked_serial; // g_xact_serial when this transaction took the shard's lock (lock_shard())
};

struct Tables {
    Oid registry;  // InvalidOid: not looked up yet
    Oid blocks;    // InvalidOid: absent (not cached as such)
    AttrNumber r_shard, r_schema, r_epoch;
    AttrNumber b_shard, b_node, b_lo, b_bits, b_from;
    AttrNumber b_group;  // InvalidAttrNumber: SQL older than 0.3.0 (no node_group column)
    Oid identity;        // shard_node_identity; InvalidOid: absent (SQL older than 0.3.0)
};

HTAB* g_shards = nullptr;
Tables g_tables{};
// The OIDs of the tables as last found: kept when g_tables is dropped, so that an invalidation
// processed while g_tables is empty (between transactions, before the next lookup) still drops
// the entries read from them.
Oid g_known_registry = InvalidOid, g_known_blocks = InvalidOid;
std::uint64_t g_shards_generation = 0;  // bumped whenever g_tables or an entry of g_shards may have been dropped
bool g_locked = false;                  // this transaction holds AccessShareLock on both tables
// Counts transactions (and aborted subtransactions, which may release locks): an entry's shard
// lock is held when its locked_serial is the current value. Never 0.
std::uint64_t g_xact_serial = 1;
bool g_callbacks_registered = false;
// This node's Citus group (pg_dist_local_group), read once per transaction by lock_tables(): -1
// without Citus in this database, -2 not read yet in this transaction.
int g_group = -2;
// The identity the coordinator confirmed for this node (a row of shard_node_identity, see
// identity_confirmed()), as last found by this backend: -1 none. Dropped by a relcache
// invalidation of that table (a TRUNCATE by hand); a crash, which empties the table, restarts
// every backend.
int g_identity_group = -1, g_identity_node = -1;
Oid g_known_identity = InvalidOid;

void drop_all_shards() noexcept {
    ++g_shards_generation;
    if (g_shards == nullptr) return;
    HASH_SEQ_STATUS it;
    hash_seq_init(&it, g_shards);
    for (auto* e = static_cast<CachedShard*>(hash_seq_search(&it)); e != nullptr;
         e = static_cast<CachedShard*>(hash_seq_search(&it)))
        e->valid = false;
}

void on_syscache(Datum arg, int cacheid, uint32 hashvalue) {
    ++g_shards_generation;
    if (g_shards == nullptr) return;
    HASH_SEQ_STATUS it;
    hash_seq_init(&it, g_shards);
    for (auto* e = static_cast<CachedShard*>(hash_seq_search(&it)); e != nullptr;
         e = static_cast<CachedShard*>(hash_seq_search(&it))) {
        const std::uint32_t h = cacheid == PROCOID ? e->proc_hash : e->nsp_hash;
        if (hashvalue == 0 || h == hashvalue) e->valid = false;
    }
}

void on_relcache(Datum, Oid relid) {
    if (relid == InvalidOid || (OidIsValid(g_known_identity) && relid == g_known_identity))
        g_identity_group = g_identity_node = -1;
    if (relid == InvalidOid || !OidIsValid(g_known_registry) || relid == g_known_registry ||
        (OidIsValid(g_known_blocks) && relid == g_known_blocks)) {
        drop_all_shards();
        g_tables = Tables{};
    }
}

void on_xact(XactEvent, void*) {
    g_locked = false;
    g_group = -2;
    ++g_xact_serial;
}
void on_subxact(SubXactEvent event, SubTransactionId, SubTransactionId, void*) {
    // Locks taken in an aborted subtransaction are released with it.
    if (event == SUBXACT_EVENT_ABORT_SUB) {
        g_locked = false;
        ++g_xact_serial;
    }
}

void register_callbacks() {
    if (g_callbacks_registered) return;
    HASHCTL ctl{};
    ctl.keysize = sizeof(Oid);
    ctl.entrysize = sizeof(CachedShard);
    g_shards = hash_create("id_gen shards", 64, &ctl, HASH_ELEM | HASH_BLOBS);
    CacheRegisterSyscacheCallback(PROCOID, on_syscache, (Datum)0);
    CacheRegisterSyscacheCallback(NAMESPACEOID, on_syscache, (Datum)0);
    CacheRegisterRelcacheCallback(on_relcache, (Datum)0);
    RegisterXactCallback(on_xact, nullptr);
    RegisterSubXactCallback(on_subxact, nullptr);
    g_callbacks_registered = true;
}

AttrNumber column(Oid relid, const char* table, const char* name, Oid type) {
    const AttrNumber a = get_attnum(relid, name);
    if (a == InvalidAttrNumber || get_atttype(relid, a) != type)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("the id_gen table %s has an unexpected shape (column %s)", table, name),
                        errhint("Reinstall the id_gen extension.")));
    return a;
}

// Finds both tables (see 1. above). Raises when the extension or its registry is missing.
Tables find_tables() {
    const Oid extnsp = idgen::pg::extension_schema();
    if (!OidIsValid(extnsp))
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("the id_gen extension is not installed in this database"),
                        errhint("A shard's next_id() reads the shard registry of the id_gen extension.")));
    Tables t{};
    t.registry = idgen::pg::extension_table("shard_registry", extnsp);
    if (!OidIsValid(t.registry))
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("the id_gen shard registry is missing"),
                        errhint("Reinstall the id_gen extension.")));
    t.r_shard = column(t.registry, "shard_registry", "shard", INT4OID);
    t.r_schema = column(t.registry, "shard_registry", "schema_name", NAMEOID);
    t.r_epoch = column(t.registry, "shard_registry", "epoch", TIMESTAMPTZOID);
    t.blocks = idgen::pg::extension_table("shard_blocks", extnsp);
    if (OidIsValid(t.blocks)) {
        t.b_shard = column(t.blocks, "shard_blocks", "shard", INT4OID);
        t.b_node = column(t.blocks, "shard_blocks", "node_id", INT4OID);
        t.b_lo = column(t.blocks, "shard_blocks", "seq_lo", INT4OID);
        t.b_bits = column(t.blocks, "shard_blocks", "seq_bits", INT4OID);
        t.b_from = column(t.blocks, "shard_blocks", "valid_from", TIMESTAMPTZOID);
        // 0.3.0's column: the Citus group each block was granted to.
        if (get_attnum(t.blocks, "node_group") != InvalidAttrNumber)
            t.b_group = column(t.blocks, "shard_blocks", "node_group", INT4OID);
    }
    t.identity = idgen::pg::extension_table("shard_node_identity", extnsp);
    return t;
}

// This node's Citus group: the one row of Citus's pg_dist_local_group (0 on the coordinator), or
// -1 when Citus is not installed in this database. Read by name at run time (id_gen does not
// depend on Citus); only a superuser can put a table into pg_catalog. Only trivially destructible
// locals.
int read_local_group() {
    const Oid relid = get_relname_relid("pg_dist_local_group", PG_CATALOG_NAMESPACE);
    if (!OidIsValid(relid) || get_rel_relkind(relid) != RELKIND_RELATION) return -1;
    int group = -1;
    Relation rel = table_open(relid, AccessShareLock);
    const AttrNumber a = get_attnum(relid, "groupid");
    if (a != InvalidAttrNumber && get_atttype(relid, a) == INT4OID) {
        SysScanDesc scan = systable_beginscan(rel, InvalidOid, false, nullptr, 0, nullptr);
        HeapTuple row = systable_getnext(scan);
        if (HeapTupleIsValid(row)) {
            bool isnull = true;
            const Datum d = heap_getattr(row, a, RelationGetDescr(rel), &isnull);
            if (!isnull && DatumGetInt32(d) >= 0) group = DatumGetInt32(d);
        }
        systable_endscan(scan);
    }
    table_close(rel, AccessShareLock);
    return group;
}

// Whether this node's identity, Citus group `group` with id_gen.node_id `node`, is confirmed: a
// row of shard_node_identity, an UNLOGGED table that only the coordinator writes, over a
// connection to the address pg_dist_node has for that group (shard_cluster_identify(), run by
// shard_cluster_grant()). pg_basebackup does not copy an unlogged table's rows and a crash empties
// it, so a copy of this node started as a server of its own, which has this node's group, blocks
// and settings, finds none and is never given one. A clean stop keeps the rows: a row counts only
// when its started_at is this running server's start time (PgStartTime, what
// pg_postmaster_start_time() returns, which shard_cluster_identify() wrote), so a cold copy of
// the data directory, or this node restarted after another took its place in pg_dist_node, asks
// the coordinator again, which confirms only the node at the registered address. Read with a fresh snapshot (a row the
// coordinator wrote during this call counts); true when the table is absent (SQL older than
// 0.3.0). Only trivially destructible locals.
bool identity_confirmed(const Tables& t, int group, int node) {
    if (!OidIsValid(t.identity)) return true;
    if (g_identity_group == group && g_identity_node == node) return true;
    bool found = false;
    Relation rel = table_open(t.identity, AccessShareLock);
    const AttrNumber a_group = get_attnum(t.identity, "node_group"), a_node = get_attnum(t.identity, "node_id");
    const AttrNumber a_started = get_attnum(t.identity, "started_at");
    if (a_group != InvalidAttrNumber && a_node != InvalidAttrNumber && a_started != InvalidAttrNumber) {
        SysScanDesc scan = systable_beginscan(rel, InvalidOid, false, nullptr, 0, nullptr);
        for (HeapTuple row = systable_getnext(scan); HeapTupleIsValid(row) && !found; row = systable_getnext(scan)) {
            bool ng = true, nn = true, ns = true;
            const Datum dg = heap_getattr(row, a_group, RelationGetDescr(rel), &ng);
            const Datum dn = heap_getattr(row, a_node, RelationGetDescr(rel), &nn);
            const Datum ds = heap_getattr(row, a_started, RelationGetDescr(rel), &ns);
            found = !ng && !nn && !ns && DatumGetInt32(dg) == group && DatumGetInt32(dn) == node &&
                    DatumGetTimestampTz(ds) == PgStartTime;
        }
        systable_endscan(scan);
    }
    table_close(rel, AccessShareLock);
    if (found) {
        g_identity_group = group;
        g_identity_node = node;
    }
    return found;
}

// Takes AccessShareLock on both tables for this transaction, unless it holds them already (see
// 2. above); returns the tables it locked. The lock is taken on the OIDs found before it; if
// taking it brought an invalidation of either table, they are found again and locked again. The
// caller reads the tables through the returned copy, never through g_tables, which any
// invalidation processed later (a catalog lookup, a new lock) may empty: the OIDs locked stay
// valid (nothing drops a table this transaction holds a lock on), and what a GRANT or ANALYZE
// invalidates does not change the rows.
Tables lock_tables() {
    register_callbacks();
    if (g_locked && OidIsValid(g_tables.registry)) return g_tables;
    for (int attempt = 0;; ++attempt) {
        if (!OidIsValid(g_tables.registry) || !OidIsValid(g_tables.blocks)) {
            g_tables = find_tables();
            g_known_registry = g_tables.registry;
            if (OidIsValid(g_tables.blocks)) g_known_blocks = g_tables.blocks;
            if (OidIsValid(g_tables.identity)) g_known_identity = g_tables.identity;
        }
        const std::uint64_t generation = g_shards_generation;
        const Tables t = g_tables;
        LockRelationOid(t.registry, AccessShareLock);
        if (OidIsValid(t.blocks)) LockRelationOid(t.blocks, AccessShareLock);
        // Invalidations may also arrive while the second lock is taken: check after both.
        if (generation == g_shards_generation) {
            g_locked = true;
            if (g_group == -2) g_group = read_local_group();
            return t;
        }
        if (attempt >= 100)
            ereport(ERROR, (errcode(ERRCODE_LOCK_NOT_AVAILABLE),
                            errmsg("the id_gen shard tables kept changing while next_id() locked them"),
                            errhint("Retry the statement; nothing was issued.")));
    }
}

// Takes `entry`'s shard lock for this transaction (see 2. above): ShareLock on the lock object of
// its number, and on its whole-field object when it has no blocks (that one first: a grant of the
// shard's first blocks holds it while it sets their valid_from, which takes the other).
// Processes invalidations.
void lock_shard(const Tables& t, CachedShard& entry) {
    if (!entry.in_block) LockDatabaseObject(t.registry, static_cast<Oid>(entry.shard), 1, ShareLock);
    LockDatabaseObject(t.registry, static_cast<Oid>(entry.shard), 0, ShareLock);
    entry.locked_serial = g_xact_serial;
}

// Fills in this server's block of `entry`'s shard from shard_blocks (absent before 0.2.0: no
// blocks). When the shard has blocks and none is this server's: sets *miss if `miss` is given,
// else raises. On a Citus node a block is this server's when it has this server's id_gen.node_id
// and was granted to this node's Citus group (node_group). A block of this node id granted to
// another group is another node's: a miss too, so that a worker asks the coordinator, which
// refuses (55000, naming the node that holds it) unless that node has left pg_dist_node, and then
// hands the node id's blocks over to this one (shard_cluster_grant_blocks()); without `miss` (the
// coordinator, which asks no one, or no answer) it is refused here, naming both groups. A block
// with no group (granted by 0.2.0, or written by hand) is a miss, for the coordinator to claim.
// Runs under lock_tables(), with the tables it returned.
void find_block(const Tables& t, CachedShard& entry, const char* nspname, bool* miss) {
    if (!OidIsValid(t.blocks)) return;
    int blocks = 0;
    bool mine = false;
    int foreign_group = -1;
    ScanKeyData key[1];
    ScanKeyInit(&key[0], t.b_shard, BTEqualStrategyNumber, F_INT4EQ, Int32GetDatum(entry.shard));
    Relation rel = table_open(t.blocks, AccessShareLock);
    SysScanDesc scan = systable_beginscan(rel, IDGEN_PRIMARY_KEY_INDEX(rel), true, nullptr, 1, key);
    for (HeapTuple row = systable_getnext(scan); HeapTupleIsValid(row); row = systable_getnext(scan)) {
        bool n0 = true, n1 = true, n2 = true, n3 = true, n4 = true;
        const Datum d_shard = heap_getattr(row, t.b_shard, RelationGetDescr(rel), &n0);
        if (n0 || DatumGetInt32(d_shard) != entry.shard) continue;
        ++blocks;
        const Datum d_node = heap_getattr(row, t.b_node, RelationGetDescr(rel), &n1);
        const Datum d_lo = heap_getattr(row, t.b_lo, RelationGetDescr(rel), &n2);
        const Datum d_bits = heap_getattr(row, t.b_bits, RelationGetDescr(rel), &n3);
        const Datum d_from = heap_getattr(row, t.b_from, RelationGetDescr(rel), &n4);
        if (n1 || n2 || n3 || n4 || DatumGetInt32(d_node) != entry.node_id || entry.node_id < 0) continue;
        // Without the node_group column (SQL of 0.2.0, before ALTER EXTENSION UPDATE) a block is
        // this server's by its node id alone, as 0.2.0 had it.
        if (entry.group >= 0 && t.b_group != InvalidAttrNumber) {
            bool ng = true;
            const Datum d_group = heap_getattr(row, t.b_group, RelationGetDescr(rel), &ng);
            if (ng) continue;
            if (DatumGetInt32(d_group) != entry.group) {
                foreign_group = DatumGetInt32(d_group);
                continue;
            }
        }
        const std::int32_t lo = DatumGetInt32(d_lo), bits = DatumGetInt32(d_bits);
        // The table's CHECKs keep blocks aligned and inside the field; checked again here, since
        // a block outside them would put bits into the shard field.
        if (bits < 0 || bits > 10 || lo < 0 || lo + (1 << bits) > 1024 || lo % (1 << bits) != 0) continue;
        mine = true;
        entry.in_block = true;
        entry.seq_lo = lo;
        entry.seq_bits = bits;
        entry.valid_from_ms = idgen::pg::timestamptz_to_unix_ms(DatumGetTimestampTz(d_from));
    }
    systable_endscan(scan);
    table_close(rel, AccessShareLock);
    if (!mine && foreign_group >= 0 && miss != nullptr) {
        *miss = true;
        return;
    }
    if (!mine && foreign_group >= 0)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("id_gen.node_id %d of this node (Citus group %d) is another node's: its block of shard %d "
                               "(schema \"%s\") was granted to Citus group %d",
                               entry.node_id, entry.group, entry.shard, nspname, foreign_group),
                        errdetail("A node issues a shard's IDs only from a block the coordinator granted to its own Citus "
                                  "group; two nodes with one id_gen.node_id would issue the same IDs."),
                        errhint("Set this node's id_gen.node_id back to its own number (on the coordinator, shard_blocks "
                                "has the node id of each node_group) and reload; nothing was issued.")));
    if (blocks > 0 && !mine && miss != nullptr) {
        *miss = true;
        return;
    }
    if (blocks > 0 && !mine) {
        if (entry.node_id < 0)
            ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                            errmsg("shard %d of schema \"%s\" is issued in blocks, and id_gen.node_id is not set on this server",
                                   entry.shard, nspname),
                            errhint("Set id_gen.node_id (different on every node) in postgresql.conf, then run "
                                    "SELECT shard_cluster_sync() on the coordinator.")));
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("this server (id_gen.node_id %d) holds no block of shard %d (schema \"%s\")",
                               entry.node_id, entry.shard, nspname),
                        errdetail("The shard's IDs are issued by several servers, each from its own block of the sequence field."),
                        errhint("A Citus worker asks the coordinator for its block by itself; this server did not "
                                "(it is the coordinator, or not a Citus node). SELECT shard_cluster_sync() on the "
                                "coordinator grants a block to every node.")));
    }
}

// A next_id() dropped while its caller waited for the lock (drop_shard() drops the function; a
// statement planned before that commits still calls it): 42883, saying so, rather than an
// internal error. Only trivially destructible locals.
[[noreturn]] void raise_dropped(Oid fn_oid) {
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_FUNCTION),
                    errmsg("this next_id() (function %u) no longer exists: its shard was dropped", fn_oid),
                    errdetail("drop_shard() (or a DROP of its function or schema) committed while this statement waited for it."),
                    errhint("Nothing was issued; call the next_id() of a registered shard (see shard_registry).")));
    pg_unreachable();
}

// The schema of next_id() function `fn_oid`; raise_dropped() when it is gone.
Oid next_id_schema(Oid fn_oid) {
    HeapTuple tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn_oid));
    if (!HeapTupleIsValid(tup)) raise_dropped(fn_oid);
    const Oid nsp = reinterpret_cast<Form_pg_proc>(GETSTRUCT(tup))->pronamespace;
    ReleaseSysCache(tup);
    return nsp;
}

// Looks the shard of next_id() function `fn_oid` up in the registry. When its schema is not a
// registered shard, or the shard has blocks and none is this server's: sets *miss if `miss` is
// given (the entry is then not to be used), else raises. Runs under lock_tables(), with the tables
// it returned.
CachedShard lookup_shard(const Tables& t, Oid fn_oid, bool* miss) {
    const Oid nsp = next_id_schema(fn_oid);
    char* nspname = get_namespace_name(nsp);
    if (nspname == nullptr) raise_dropped(fn_oid);

    // A plain catalog-style scan, not SPI: SQL text would be parsed under the caller's
    // search_path (an operator planted on it could run in place of ours, the CVE-2018-1058
    // pattern). Only trivially destructible locals live across these calls.
    CachedShard entry{fn_oid, true, GetSysCacheHashValue1(PROCOID, ObjectIdGetDatum(fn_oid)),
                      GetSysCacheHashValue1(NAMESPACEOID, ObjectIdGetDatum(nsp)), -1, 0, idgen::pg::g_node_id, g_group, 0, 10, 0,
                      false, false, 0};
    NameData nd;
    namestrcpy(&nd, nspname);
    ScanKeyData key[1];
    ScanKeyInit(&key[0], t.r_schema, BTEqualStrategyNumber, F_NAMEEQ, NameGetDatum(&nd));
    Relation rel = table_open(t.registry, AccessShareLock);
    SysScanDesc scan = systable_beginscan(rel, InvalidOid, false, nullptr, 1, key);
    HeapTuple row = systable_getnext(scan);
    if (HeapTupleIsValid(row)) {
        bool null_shard = true, null_epoch = true;
        const Datum d_shard = heap_getattr(row, t.r_shard, RelationGetDescr(rel), &null_shard);
        const Datum d_epoch = heap_getattr(row, t.r_epoch, RelationGetDescr(rel), &null_epoch);
        if (!null_shard && !null_epoch) {
            entry.shard = DatumGetInt32(d_shard);
            // The same conversion as shard_id_time() (floor to the ms), so IDs decode to the
            // instant they were issued at.
            entry.epoch_ms = idgen::pg::timestamptz_to_unix_ms(DatumGetTimestampTz(d_epoch));
        }
    }
    systable_endscan(scan);
    table_close(rel, AccessShareLock);
    if (entry.shard < 0 && miss != nullptr) {
        *miss = true;
        return entry;
    }
    if (entry.shard < 0)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("schema \"%s\" is not a registered shard", nspname),
                        errhint("next_id() works in a schema made a shard by create_shard(); see shard_registry. "
                                "If the extension was dropped and created again, register the shard again with "
                                "SELECT create_shard(<shard>, %s, <its epoch>); if its schema was renamed with "
                                "ALTER SCHEMA, register the new name with SELECT rename_shard(<shard>, %s).",
                                quote_literal_cstr(nspname), quote_literal_cstr(nspname))));
    find_block(t, entry, nspname, miss);
    return entry;
}

// The current entry of `fn_oid`: under the locks, from the cache or the tables. The tables' lock
// is taken first, then the entry found (cached, or read), then its shard's lock if this
// transaction does not hold it yet. An entry during which an invalidation that may concern it was
// processed (its function, its schema, a sinval reset, either table) is read again; if that keeps
// happening, one read while its shard's lock was already held is used uncached: its rows are
// current, and only the next call must not trust it blindly.
//
// The entry last returned is also kept aside (g_last), for the calls of one statement: it is used
// while this transaction holds the locks (g_locked, its locked_serial) and no entry has been
// dropped since it was read (g_shards_generation), which is what the hash table's own entry would
// say, one hash lookup sooner.
CachedShard g_last{};
std::uint64_t g_last_generation = 0;

CachedShard current_shard(Oid fn_oid, bool* miss) {
    if (g_locked && OidIsValid(g_tables.registry) && g_last.fn_oid == fn_oid && OidIsValid(fn_oid) &&
        g_last_generation == g_shards_generation && g_last.node_id == idgen::pg::g_node_id && g_last.group == g_group &&
        g_last.locked_serial == g_xact_serial)
        return g_last;
    const Tables t = lock_tables();
    std::int32_t held_shard = -1;  // the shard whose lock this loop took last
    bool held_whole = false;       // ... with its whole-field object
    for (int attempt = 0;; ++attempt) {
        const std::uint64_t generation = g_shards_generation;
        auto* hit = static_cast<CachedShard*>(hash_search(g_shards, &fn_oid, HASH_FIND, nullptr));
        CachedShard entry{};
        bool read = false;
        if (hit != nullptr && hit->valid && hit->node_id == idgen::pg::g_node_id && hit->group == g_group) {
            entry = *hit;
        } else {
            entry = lookup_shard(t, fn_oid, miss);
            if (miss != nullptr && *miss) return entry;
            read = true;
        }
        const bool read_under_lock = read && entry.shard == held_shard && (entry.in_block || held_whole);
        if (read_under_lock) {
            entry.locked_serial = g_xact_serial;
        } else if (entry.locked_serial != g_xact_serial) {
            lock_shard(t, entry);
            held_shard = entry.shard;
            held_whole = !entry.in_block;
        }
        if (generation == g_shards_generation) {
            auto* slot = static_cast<CachedShard*>(hash_search(g_shards, &fn_oid, HASH_ENTER, nullptr));
            *slot = entry;
            g_last = entry;
            g_last_generation = generation;
            return entry;
        }
        if (read_under_lock && attempt >= 3) return entry;
        if (attempt >= 100)
            ereport(ERROR, (errcode(ERRCODE_LOCK_NOT_AVAILABLE),
                            errmsg("the id_gen shard tables kept changing while next_id() locked them"),
                            errhint("Retry the statement; nothing was issued.")));
    }
}

// After a miss (lookup_shard): on a Citus worker, next_id() asks the coordinator for this node's
// grant (shard_cluster_pull(), 64_shard_cluster_pull.sql) and issues from the block it answers.
// True with `entry` filled in (and cached) when the coordinator knows the schema's shard; false
// when there is nothing to ask (no Citus, the coordinator, id_gen.node_id unset, SQL older than
// 0.3.0 without the function) or the schema is no shard there: the caller then reads the tables
// again and raises as before. The answer is the coordinator's authority, committed there before
// it is used: the same block every time for this node id (blocks are never changed, only dropped
// with their shard), and blocks of distinct node ids never overlap, whichever node asks first.
// The entry is cached like one read from the tables and dropped by the same invalidations (its
// function, its schema, either table). This call holds no lock of the shard asked for while it
// asks (it takes it after the answer), and the tables' AccessShareLock conflicts with no write:
// the copy the function keeps on this node over a separate connection waits for this session
// only if it changes rows of a shard this transaction issued from. Only trivially destructible
// locals.
bool pull_grant(Oid fn_oid, CachedShard& entry) {
    const Oid extnsp = idgen::pg::extension_schema();
    if (!OidIsValid(extnsp)) return false;
    Oid argtypes[1] = {NAMEOID};
    const Oid pull = GetSysCacheOid3(PROCNAMEARGSNSP, Anum_pg_proc_oid, CStringGetDatum("shard_cluster_pull"),
                                     PointerGetDatum(buildoidvector(argtypes, 1)), ObjectIdGetDatum(extnsp));
    if (!OidIsValid(pull) || getExtensionOfObject(ProcedureRelationId, pull) != get_extension_oid("id_gen", false)) return false;
    const Oid nsp = next_id_schema(fn_oid);
    char* nspname = get_namespace_name(nsp);
    if (nspname == nullptr) raise_dropped(fn_oid);
    NameData nd;
    namestrcpy(&nd, nspname);
    const Datum row = OidFunctionCall1(pull, NameGetDatum(&nd));
    HeapTupleHeader h = DatumGetHeapTupleHeader(row);
    bool n_shard = true, n_epoch = true, n_lo = true, n_bits = true, n_from = true;
    const Datum d_shard = GetAttributeByNum(h, 1, &n_shard);
    const Datum d_epoch = GetAttributeByNum(h, 2, &n_epoch);
    const Datum d_lo = GetAttributeByNum(h, 3, &n_lo);
    const Datum d_bits = GetAttributeByNum(h, 4, &n_bits);
    const Datum d_from = GetAttributeByNum(h, 5, &n_from);
    if (n_shard || n_epoch || n_lo || n_bits || n_from) return false;
    const std::int32_t shard = DatumGetInt32(d_shard), lo = DatumGetInt32(d_lo), bits = DatumGetInt32(d_bits);
    // The checks find_block() makes of a row of shard_blocks.
    if (shard < 0 || shard > 8191 || bits < 0 || bits > 10 || lo < 0 || lo + (1 << bits) > 1024 || lo % (1 << bits) != 0)
        return false;
    entry = CachedShard{fn_oid, true, GetSysCacheHashValue1(PROCOID, ObjectIdGetDatum(fn_oid)),
                        GetSysCacheHashValue1(NAMESPACEOID, ObjectIdGetDatum(nsp)), shard,
                        idgen::pg::timestamptz_to_unix_ms(DatumGetTimestampTz(d_epoch)), idgen::pg::g_node_id, g_group, lo, bits,
                        idgen::pg::timestamptz_to_unix_ms(DatumGetTimestampTz(d_from)), true, false, 0};
    // Under the locks (the rows cannot change under this transaction from here on), and cached
    // unless an invalidation arrived meanwhile. The answer is used either way: it is the
    // coordinator's, committed there.
    const std::uint64_t generation = g_shards_generation;
    lock_shard(lock_tables(), entry);
    if (generation == g_shards_generation) {
        auto* slot = static_cast<CachedShard*>(hash_search(g_shards, &fn_oid, HASH_ENTER, nullptr));
        *slot = entry;
    }
    return true;
}

// The generator-state number of a shard's block: a block has state of its own (bit 30 set, then
// the block's size and position): without preloading a backend keeps a lease of sequence numbers
// per key, which must never be issued under another block's layout. A shard without blocks keeps
// the key it always had, its number.
std::int32_t block_state_number(std::int32_t shard, std::int32_t seq_lo, std::int32_t seq_bits) {
    return (std::int32_t{1} << 30) | ((seq_lo >> seq_bits) << 17) | (seq_bits << 13) | shard;
}

std::int64_t shard_arg(FunctionCallInfo fcinfo, idgen::pg::Failure& failure, bool& bad) {
    const std::int64_t id = PG_GETARG_INT64(0);
    bad = id < 1;
    if (bad) {
        char num[32];
        snprintf(num, sizeof num, "%lld", static_cast<long long>(id));
        failure.fail(idgen::Error::kOutOfRange, kShardType, num);
    }
    return id;
}

}  // namespace

// <shard schema>.next_id(): one C entry point for every shard.
IDGEN_FUNCTION(shard_next_id) {
    const Oid fn_oid = fcinfo->flinfo->fn_oid;
    idgen::pg::require_writable("next_id()");
    bool miss = false;
    CachedShard entry = current_shard(fn_oid, &miss);
    if (miss && !pull_grant(fn_oid, entry)) entry = current_shard(fn_oid, nullptr);
    // A Citus worker issues from its block only once the coordinator has confirmed its identity
    // (identity_confirmed(): checked once per backend, again after a reload changes the node id).
    // Without it, it asks the coordinator (the same request as for a block it lacks), which
    // confirms it over a connection to this group's address in pg_dist_node: to this node, not to
    // a copy of it.
    if (entry.in_block && entry.group > 0 && !identity_confirmed(lock_tables(), entry.group, entry.node_id)) {
        CachedShard asked = entry;
        const bool answered = pull_grant(fn_oid, asked);
        if (!answered || !asked.in_block || !identity_confirmed(lock_tables(), entry.group, entry.node_id))
            ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                            errmsg("this node (Citus group %d, id_gen.node_id %d) is not confirmed by the coordinator as that node",
                                   entry.group, entry.node_id),
                            errdetail("The coordinator confirms a node's identity only over a connection to the address "
                                      "pg_dist_node has for its group, and a copy of a node (pg_basebackup, a copied data "
                                      "directory) started as a server of its own has that node's group and blocks: "
                                      "issuing from them would repeat that node's IDs."),
                            errhint("Nothing was issued. Add a copy to the cluster as a node of its own "
                                    "(citus_add_node(), with its own id_gen.node_id), or point pg_dist_node at it "
                                    "(citus_update_node()) if it replaces that node.")));
        entry = asked;
    }
    // A block is used from its valid_from on. Once the clock has passed it, this backend's cache
    // entry says so and later calls read no clock here: the generator never issues an ID older
    // than one it issued, so every later ID of the block is as late.
    if (entry.in_block && !entry.block_valid) {
        const std::int64_t now_ms = idgen::pg::timestamptz_to_unix_ms(GetCurrentTimestamp());
        if (now_ms < entry.valid_from_ms)
            ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                            errmsg("this server's block of shard %d is valid from %lld ms from now", entry.shard,
                                   static_cast<long long>(entry.valid_from_ms - now_ms)),
                            errdetail("IDs of this run may have been issued until then: by the node that held it before (a block handed "
                                      "over from a removed node, or its run of a dropped shard), or from the shard's whole "
                                      "sequence field before its blocks were granted, each up to its clock plus its "
                                      "run-ahead allowance."),
                            errhint("Retry after that time.")));
        auto* cached = static_cast<CachedShard*>(hash_search(g_shards, &fn_oid, HASH_FIND, nullptr));
        if (cached != nullptr && cached->valid && cached->in_block && cached->valid_from_ms == entry.valid_from_ms)
            cached->block_valid = true;
        if (g_last.fn_oid == fn_oid && g_last.in_block && g_last.valid_from_ms == entry.valid_from_ms) g_last.block_valid = true;
    }
    const idgen::SnowflakeLayout l = idgen::shard_block_layout(entry.epoch_ms, entry.seq_bits);
    const std::uint32_t field = (static_cast<std::uint32_t>(entry.shard) << (10 - entry.seq_bits)) |
                                (static_cast<std::uint32_t>(entry.seq_lo) >> entry.seq_bits);
    const std::int32_t number = entry.in_block ? block_state_number(entry.shard, entry.seq_lo, entry.seq_bits) : entry.shard;
    const idgen::pg::StateKey key{static_cast<std::uint8_t>(idgen::LayoutKind::kInstagram),
                                  static_cast<std::uint32_t>(MyDatabaseId), number, entry.epoch_ms};
    const char* detail = "";
    auto id = idgen::pg::snowflake_issue(key, l, field, detail);
    if (!id) {
        if (id.error() == idgen::Error::kTimeOutOfRange)
            return failure.fail(idgen::Error::kLayoutExhausted, kShardType,
                                "the clock is outside the shard's 2^40 ms (about 34.8 years) after its epoch: "
                                "the next ID would need the sign bit (or the clock is before the epoch)");
        return failure.fail(id.error(), kShardType, detail);
    }
    PG_RETURN_INT64(*id);
}

IDGEN_FUNCTION(shard_id_shard) {
    bool bad = false;
    const std::int64_t id = shard_arg(fcinfo, failure, bad);
    if (bad) return 0;
    PG_RETURN_INT32(static_cast<int32>(idgen::snowflake_unpack(idgen::instagram_layout(0), id).node));
}

IDGEN_FUNCTION(shard_id_sequence) {
    bool bad = false;
    const std::int64_t id = shard_arg(fcinfo, failure, bad);
    if (bad) return 0;
    PG_RETURN_INT32(static_cast<int32>(idgen::snowflake_unpack(idgen::instagram_layout(0), id).seq));
}

IDGEN_FUNCTION(shard_id_time) {
    bool bad = false;
    const std::int64_t id = shard_arg(fcinfo, failure, bad);
    if (bad) return 0;
    const TimestampTz epoch = PG_GETARG_TIMESTAMPTZ(1);
    if (TIMESTAMP_NOT_FINITE(epoch))
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("a shard epoch must be a finite time")));
    // 2^41 ms after a finite epoch cannot overflow int64, but can pass timestamptz's last day.
    const std::int64_t ms = idgen::snowflake_time_ms(idgen::instagram_layout(idgen::pg::timestamptz_to_unix_ms(epoch)), id);
    if (!idgen::pg::unix_ms_fits_timestamptz(ms))
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE), errmsg("timestamp out of range")));
    PG_RETURN_TIMESTAMPTZ(idgen::pg::unix_ms_to_timestamptz(ms));
}

// shard_id_lower/upper(at, epoch): the smallest and largest shard ID (any shard, any sequence) of
// the millisecond containing `at`, for a shard with that epoch: what snowflake_lower/upper() give
// for built-in layouts, for the 64-bit shard layout with any epoch.
namespace {

Datum shard_id_bound(FunctionCallInfo fcinfo, idgen::pg::Failure& failure, bool upper) {
    const TimestampTz at = PG_GETARG_TIMESTAMPTZ(0);
    const TimestampTz epoch = PG_GETARG_TIMESTAMPTZ(1);
    if (TIMESTAMP_NOT_FINITE(epoch))
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("a shard epoch must be a finite time")));
    const idgen::SnowflakeLayout l = idgen::instagram_layout(idgen::pg::timestamptz_to_unix_ms(epoch));
    const std::int64_t ms = idgen::pg::timestamptz_to_unix_ms(at);
    auto id = upper ? idgen::snowflake_upper(l, ms) : idgen::snowflake_lower(l, ms);
    if (!id) return failure.fail(id.error(), kShardType, timestamptz_to_str(at));
    PG_RETURN_INT64(*id);
}

}  // namespace

IDGEN_FUNCTION(shard_id_lower) { return shard_id_bound(fcinfo, failure, false); }

IDGEN_FUNCTION(shard_id_upper) { return shard_id_bound(fcinfo, failure, true); }

namespace {

// The epoch of shard number `shard` in this database's registry; false when it is not registered.
// An index scan of the registry found as next_id() finds it (find_tables()), so a superuser
// calling it never reads a table a lesser role named so.
bool registered_epoch(int32 shard, TimestampTz& epoch) {
    register_callbacks();
    const Tables reg = find_tables();
    bool found = false;
    ScanKeyData key[1];
    ScanKeyInit(&key[0], reg.r_shard, BTEqualStrategyNumber, F_INT4EQ, Int32GetDatum(shard));
    Relation rel = table_open(reg.registry, AccessShareLock);
    SysScanDesc scan = systable_beginscan(rel, IDGEN_PRIMARY_KEY_INDEX(rel), true, nullptr, 1, key);
    HeapTuple row = systable_getnext(scan);
    if (HeapTupleIsValid(row)) {
        bool null_epoch = true;
        const Datum d_epoch = heap_getattr(row, reg.r_epoch, RelationGetDescr(rel), &null_epoch);
        if (!null_epoch) {
            found = true;
            epoch = DatumGetTimestampTz(d_epoch);
        }
    }
    systable_endscan(scan);
    table_close(rel, AccessShareLock);
    return found;
}

}  // namespace

// shard_id_time(id bigint): the ms time with the epoch of the ID's shard from the registry, NULL
// when that shard is not registered here.
IDGEN_FUNCTION(shard_id_time_registered) {
    bool bad = false;
    const std::int64_t id = shard_arg(fcinfo, failure, bad);
    if (bad) return 0;
    const int32 shard = static_cast<int32>(idgen::snowflake_unpack(idgen::instagram_layout(0), id).node);
    TimestampTz epoch = 0;
    if (!registered_epoch(shard, epoch)) PG_RETURN_NULL();
    // The registry's CHECK keeps epochs finite; 2^41 ms after one can pass timestamptz's last day.
    if (TIMESTAMP_NOT_FINITE(epoch))
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("a shard epoch must be a finite time")));
    const std::int64_t ms = idgen::snowflake_time_ms(idgen::instagram_layout(idgen::pg::timestamptz_to_unix_ms(epoch)), id);
    if (!idgen::pg::unix_ms_fits_timestamptz(ms))
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE), errmsg("timestamp out of range")));
    PG_RETURN_TIMESTAMPTZ(idgen::pg::unix_ms_to_timestamptz(ms));
}

// Row and statement trigger on shard_registry and shard_blocks, enabled ALWAYS (63_shard_cache.sql):
// every backend drops its cached shards when the change commits (a relcache invalidation of the
// changed table reaches all of them), whatever session_replication_role the change was made in.
extern "C" {
PG_FUNCTION_INFO_V1(shard_registry_changed);
Datum shard_registry_changed(PG_FUNCTION_ARGS) {
    if (!CALLED_AS_TRIGGER(fcinfo)) elog(ERROR, "shard_registry_changed() must be called as a trigger");
    CacheInvalidateRelcacheByRelid(RelationGetRelid(reinterpret_cast<TriggerData*>(fcinfo->context)->tg_relation));
    return PointerGetDatum(nullptr);
}
}

// BEFORE ROW trigger on shard_registry and shard_blocks, enabled ALWAYS (63_shard_cache.sql): the
// shard locks that next_id()'s cache rests on (see 2. at the top). An UPDATE or DELETE takes
// RowExclusiveLock on the lock object of the shard of the row (of both rows, for an UPDATE that
// changes it), so it waits for every transaction that issued from the shard's rows as they were;
// an INSERT into shard_blocks takes it on the shard's whole-field object, so the first block of a
// shard waits for the transactions that issued from its whole field. An INSERT into the registry
// takes nothing: no transaction has issued from a shard that is not registered. Only trivially
// destructible locals.
extern "C" {
PG_FUNCTION_INFO_V1(shard_rows_lock);
Datum shard_rows_lock(PG_FUNCTION_ARGS) {
    if (!CALLED_AS_TRIGGER(fcinfo))
        ereport(ERROR, (errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
                        errmsg("shard_rows_lock() must be called as a trigger")));
    auto* td = reinterpret_cast<TriggerData*>(fcinfo->context);
    if (!TRIGGER_FIRED_BEFORE(td->tg_event) || !TRIGGER_FIRED_FOR_ROW(td->tg_event))
        ereport(ERROR, (errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
                        errmsg("shard_rows_lock() must be a BEFORE ROW trigger")));
    const Oid relid = RelationGetRelid(td->tg_relation);
    const Oid extnsp = idgen::pg::extension_schema();
    const Oid registry = OidIsValid(extnsp) ? idgen::pg::extension_table("shard_registry", extnsp) : InvalidOid;
    HeapTuple result = TRIGGER_FIRED_BY_UPDATE(td->tg_event) ? td->tg_newtuple : td->tg_trigtuple;
    if (!OidIsValid(registry)) return PointerGetDatum(result);
    const AttrNumber a = get_attnum(relid, "shard");
    if (a == InvalidAttrNumber) return PointerGetDatum(result);
    const TupleDesc desc = RelationGetDescr(td->tg_relation);
    bool isnull = true;
    if (TRIGGER_FIRED_BY_INSERT(td->tg_event)) {
        const Datum d = heap_getattr(td->tg_trigtuple, a, desc, &isnull);
        if (!isnull && relid != registry) LockDatabaseObject(registry, static_cast<Oid>(DatumGetInt32(d)), 1, RowExclusiveLock);
        return PointerGetDatum(result);
    }
    // An UPDATE of a block that changes only its node_group and/or valid_from, of a node id that
    // is not this server's (the hand-over of a removed node's blocks, shard_cluster_grant_blocks(),
    // run on the coordinator): no backend here issues from that row, since a backend issues only
    // from the block of its own id_gen.node_id and the issuers of other blocks never read it, so it
    // waits for none of them (they could hold it, and every next_id() queued behind it, for as
    // long as their transactions last). The AFTER trigger still invalidates every cache at commit.
    if (TRIGGER_FIRED_BY_UPDATE(td->tg_event) && relid != registry) {
        const AttrNumber a_node = get_attnum(relid, "node_id");
        const AttrNumber a_group = get_attnum(relid, "node_group"), a_from = get_attnum(relid, "valid_from");
        bool same = a_node != InvalidAttrNumber;
        for (int i = 1; same && i <= desc->natts; ++i) {
            const Form_pg_attribute att = TupleDescAttr(desc, i - 1);
            if (att->attisdropped || i == a_group || i == a_from) continue;
            bool n_old = true, n_new = true;
            const Datum v_old = heap_getattr(td->tg_trigtuple, i, desc, &n_old);
            const Datum v_new = heap_getattr(td->tg_newtuple, i, desc, &n_new);
            same = n_old == n_new && (n_old || datumIsEqual(v_old, v_new, att->attbyval, att->attlen));
        }
        if (same) {
            bool n_node = true;
            const Datum d_node = heap_getattr(td->tg_trigtuple, a_node, desc, &n_node);
            if (!n_node && DatumGetInt32(d_node) != idgen::pg::g_node_id) return PointerGetDatum(result);
        }
    }
    const Datum d_old = heap_getattr(td->tg_trigtuple, a, desc, &isnull);
    if (!isnull) LockDatabaseObject(registry, static_cast<Oid>(DatumGetInt32(d_old)), 0, RowExclusiveLock);
    if (TRIGGER_FIRED_BY_UPDATE(td->tg_event)) {
        bool new_null = true;
        const Datum d_new = heap_getattr(td->tg_newtuple, a, desc, &new_null);
        if (!new_null && (isnull || DatumGetInt32(d_new) != DatumGetInt32(d_old))) {
            LockDatabaseObject(registry, static_cast<Oid>(DatumGetInt32(d_new)), 0, RowExclusiveLock);
            if (relid != registry) LockDatabaseObject(registry, static_cast<Oid>(DatumGetInt32(d_new)), 1, RowExclusiveLock);
        }
    }
    return PointerGetDatum(result);
}
}

// shard_raise_mark(shard, above): every ID the shard's next_id() issues in this database from now
// on is greater than `above` (its time field, read with the shard's epoch, counts as used up). For
// IDs issued by another server, or by this data directory's earlier life, that may lie ahead of
// this server's clock. Returns the mark in force.
IDGEN_FUNCTION(shard_raise_mark) {
    const int32 shard = PG_GETARG_INT32(0);
    const std::int64_t above = PG_GETARG_INT64(1);
    char shown[32];
    snprintf(shown, sizeof shown, "%lld", static_cast<long long>(above));
    if (above < 1) return failure.fail(idgen::Error::kOutOfRange, kShardType, shown);
    TimestampTz epoch = 0;
    if (!registered_epoch(shard, epoch))
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("shard %d is not registered in this database", shard),
                        errhint("See shard_registry; register a shard with create_shard().")));
    idgen::pg::require_writable("shard_raise_mark()");
    // The same conversion as next_id() (floor to the ms): the key and layout it issues with.
    const std::int64_t epoch_ms = idgen::pg::timestamptz_to_unix_ms(epoch);
    const idgen::SnowflakeLayout l = idgen::instagram_layout(epoch_ms);
    const std::int64_t mark_ms = idgen::snowflake_time_ms(l, above);
    idgen::pg::require_mark_within_reach(mark_ms, shown, "the shard's next_id()");
    // The keys next_id() can issue under here: the shard's own (no blocks), and the state of each
    // block of this server's id_gen.node_id in shard_blocks (whatever its Citus group: raising a
    // mark never lets a key issue lower). The blocks' layouts keep the time field where the
    // shard's has it, so one mark_ms serves all.
    std::int32_t numbers[1 + 64], widths[1 + 64];  // widths: a block's seq_bits; -1 for the shard's own key
    int count = 0;
    numbers[count] = shard;
    widths[count++] = -1;
    const Tables t = lock_tables();
    if (OidIsValid(t.blocks) && idgen::pg::g_node_id >= 0) {
        ScanKeyData sk[1];
        ScanKeyInit(&sk[0], t.b_shard, BTEqualStrategyNumber, F_INT4EQ, Int32GetDatum(shard));
        Relation rel = table_open(t.blocks, AccessShareLock);
        SysScanDesc scan = systable_beginscan(rel, IDGEN_PRIMARY_KEY_INDEX(rel), true, nullptr, 1, sk);
        for (HeapTuple row = systable_getnext(scan); HeapTupleIsValid(row) && count < 1 + 64; row = systable_getnext(scan)) {
            bool n0 = true, n1 = true, n2 = true, n3 = true;
            const Datum d_shard = heap_getattr(row, t.b_shard, RelationGetDescr(rel), &n0);
            const Datum d_node = heap_getattr(row, t.b_node, RelationGetDescr(rel), &n1);
            const Datum d_lo = heap_getattr(row, t.b_lo, RelationGetDescr(rel), &n2);
            const Datum d_bits = heap_getattr(row, t.b_bits, RelationGetDescr(rel), &n3);
            if (n0 || n1 || n2 || n3 || DatumGetInt32(d_shard) != shard || DatumGetInt32(d_node) != idgen::pg::g_node_id) continue;
            const std::int32_t lo = DatumGetInt32(d_lo), bits = DatumGetInt32(d_bits);
            if (bits < 0 || bits > 10 || lo < 0 || lo + (1 << bits) > 1024 || lo % (1 << bits) != 0) continue;
            numbers[count] = block_state_number(shard, lo, bits);
            widths[count++] = bits;
        }
        systable_endscan(scan);
        table_close(rel, AccessShareLock);
    }
    std::int64_t in_force = 0;
    for (int i = 0; i < count; ++i) {
        const idgen::pg::StateKey key{static_cast<std::uint8_t>(idgen::LayoutKind::kInstagram),
                                      static_cast<std::uint32_t>(MyDatabaseId), numbers[i], epoch_ms};
        const idgen::SnowflakeLayout bl = widths[i] < 0 ? l : idgen::shard_block_layout(epoch_ms, widths[i]);
        const char* detail = "";
        auto mark = idgen::pg::snowflake_raise_mark(key, bl, mark_ms, detail);
        if (!mark) return failure.fail(mark.error(), kShardType, detail);
        in_force = std::max(in_force, *mark);
    }
    if (!idgen::pg::unix_ms_fits_timestamptz(in_force))
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE), errmsg("timestamp out of range")));
    PG_RETURN_TIMESTAMPTZ(idgen::pg::unix_ms_to_timestamptz(in_force));
}
