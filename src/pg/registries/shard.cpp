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
//
// This file holds the SQL entry points; next_id()'s per-backend caches, and the locks that keep
// them current, are shard_cache.cpp's (see shard_cache.h).
#include "pg/registries/shard_cache.h"

using namespace idgen::pg::shards;

namespace {

constexpr const char* kShardType = "shard ID";

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
            ereport(
                ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg(
                     "this node (Citus group %d, id_gen.node_id %d) is not confirmed by the coordinator as that node",
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
    // than one it issued, so every later ID of the block is as late. The clock is the one the
    // generator reads (with the test clock's offset on a server started for testing): a block
    // found valid by another clock would be issued from one behind its valid_from.
    if (entry.in_block && !entry.block_valid) {
        const std::int64_t now_ms = idgen::pg::generator_clock_ms();
        if (now_ms < entry.valid_from_ms)
            ereport(
                ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("this server's block of shard %d is valid from %lld ms from now", entry.shard,
                        static_cast<long long>(entry.valid_from_ms - now_ms)),
                 errdetail(
                     "IDs of this run may have been issued until then: by the node that held it before (a block handed "
                     "over from a removed node, or its run of a dropped shard), or from the shard's whole "
                     "sequence field before its blocks were granted, each up to its clock plus its "
                     "run-ahead allowance."),
                 errhint("Retry after that time.")));
        auto* cached = static_cast<CachedShard*>(hash_search(g_shards, &fn_oid, HASH_FIND, nullptr));
        if (cached != nullptr && cached->valid && cached->in_block && cached->valid_from_ms == entry.valid_from_ms)
            cached->block_valid = true;
        if (g_last.fn_oid == fn_oid && g_last.in_block && g_last.valid_from_ms == entry.valid_from_ms)
            g_last.block_valid = true;
    }
    const idgen::SnowflakeLayout l = idgen::shard_block_layout(entry.epoch_ms, entry.seq_bits);
    const std::uint32_t field = (static_cast<std::uint32_t>(entry.shard) << (10 - entry.seq_bits)) |
                                (static_cast<std::uint32_t>(entry.seq_lo) >> entry.seq_bits);
    const std::int32_t number =
        entry.in_block ? block_state_number(entry.shard, entry.seq_lo, entry.seq_bits) : entry.shard;
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
    const std::int64_t ms =
        idgen::snowflake_time_ms(idgen::instagram_layout(idgen::pg::timestamptz_to_unix_ms(epoch)), id);
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
    const std::int64_t ms =
        idgen::snowflake_time_ms(idgen::instagram_layout(idgen::pg::timestamptz_to_unix_ms(epoch)), id);
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
// shard locks that next_id()'s cache rests on (see 2. in shard_cache.h). An UPDATE or DELETE takes
// RowExclusiveLock on the lock object of the shard of the row (of both rows, for an UPDATE that
// changes it), so it waits for every transaction that issued from the shard's rows as they were; an
// INSERT into shard_blocks takes it on the shard's whole-field object, so the first block of a
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
        if (!isnull && relid != registry)
            LockDatabaseObject(registry, static_cast<Oid>(DatumGetInt32(d)), 1, RowExclusiveLock);
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
            if (relid != registry)
                LockDatabaseObject(registry, static_cast<Oid>(DatumGetInt32(d_new)), 1, RowExclusiveLock);
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
        for (HeapTuple row = systable_getnext(scan); HeapTupleIsValid(row) && count < 1 + 64;
             row = systable_getnext(scan)) {
            bool n0 = true, n1 = true, n2 = true, n3 = true;
            const Datum d_shard = heap_getattr(row, t.b_shard, RelationGetDescr(rel), &n0);
            const Datum d_node = heap_getattr(row, t.b_node, RelationGetDescr(rel), &n1);
            const Datum d_lo = heap_getattr(row, t.b_lo, RelationGetDescr(rel), &n2);
            const Datum d_bits = heap_getattr(row, t.b_bits, RelationGetDescr(rel), &n3);
            if (n0 || n1 || n2 || n3 || DatumGetInt32(d_shard) != shard ||
                DatumGetInt32(d_node) != idgen::pg::g_node_id)
                continue;
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
