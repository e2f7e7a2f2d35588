// id_gen: next_id()'s per-backend caches of the shard tables and of the shards, the locks that
// keep them current, and the coordinator's answer on a Citus worker. See shard_cache.h.
#include "pg/registries/shard_cache.h"

namespace idgen::pg::shards {

HTAB* g_shards = nullptr;
namespace {

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

}  // namespace

namespace {

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

}  // namespace

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

namespace {

AttrNumber column(Oid relid, const char* table, const char* name, Oid type) {
    const AttrNumber a = get_attnum(relid, name);
    if (a == InvalidAttrNumber || get_atttype(relid, a) != type)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("the id_gen table %s has an unexpected shape (column %s)", table, name),
                        errhint("Reinstall the id_gen extension.")));
    return a;
}

}  // namespace

// Finds both tables (see 1. in shard_cache.h). Raises when the extension or its registry is
// missing.
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
                        errmsg("the id_gen shard registry is missing"), errhint("Reinstall the id_gen extension.")));
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

namespace {

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

}  // namespace

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

// Takes AccessShareLock on both tables for this transaction, unless it holds them already (see 2.
// in shard_cache.h); returns the tables it locked. The lock is taken on the OIDs found before it;
// if taking it brought an invalidation of either table, they are found again and locked again. The
// caller reads the tables through the returned copy, never through g_tables, which any invalidation
// processed later (a catalog lookup, a new lock) may empty: the OIDs locked stay valid (nothing
// drops a table this transaction holds a lock on), and what a GRANT or ANALYZE invalidates does not
// change the rows.
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

namespace {

// Takes `entry`'s shard lock for this transaction (see 2. in shard_cache.h): ShareLock on the lock
// object of its number, and on its whole-field object when it has no blocks (that one first: a
// grant of the shard's first blocks holds it while it sets their valid_from, which takes the
// other). Processes invalidations.
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
        ereport(ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
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
            ereport(
                ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("shard %d of schema \"%s\" is issued in blocks, and id_gen.node_id is not set on this server",
                        entry.shard, nspname),
                 errhint("Set id_gen.node_id (different on every node) in postgresql.conf, then run "
                         "SELECT shard_cluster_sync() on the coordinator.")));
        ereport(
            ERROR,
            (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
             errmsg("this server (id_gen.node_id %d) holds no block of shard %d (schema \"%s\")", entry.node_id,
                    entry.shard, nspname),
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
    ereport(
        ERROR,
        (errcode(ERRCODE_UNDEFINED_FUNCTION),
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
    CachedShard entry{fn_oid,
                      true,
                      GetSysCacheHashValue1(PROCOID, ObjectIdGetDatum(fn_oid)),
                      GetSysCacheHashValue1(NAMESPACEOID, ObjectIdGetDatum(nsp)),
                      -1,
                      0,
                      idgen::pg::g_node_id,
                      g_group,
                      0,
                      10,
                      0,
                      false,
                      false,
                      0};
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

}  // namespace

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
namespace {

std::uint64_t g_last_generation = 0;

}  // namespace

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
    if (!OidIsValid(pull) || getExtensionOfObject(ProcedureRelationId, pull) != get_extension_oid("id_gen", false))
        return false;
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
    if (shard < 0 || shard > 8191 || bits < 0 || bits > 10 || lo < 0 || lo + (1 << bits) > 1024 ||
        lo % (1 << bits) != 0)
        return false;
    entry = CachedShard{fn_oid,
                        true,
                        GetSysCacheHashValue1(PROCOID, ObjectIdGetDatum(fn_oid)),
                        GetSysCacheHashValue1(NAMESPACEOID, ObjectIdGetDatum(nsp)),
                        shard,
                        idgen::pg::timestamptz_to_unix_ms(DatumGetTimestampTz(d_epoch)),
                        idgen::pg::g_node_id,
                        g_group,
                        lo,
                        bits,
                        idgen::pg::timestamptz_to_unix_ms(DatumGetTimestampTz(d_from)),
                        true,
                        false,
                        0};
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

}  // namespace idgen::pg::shards
