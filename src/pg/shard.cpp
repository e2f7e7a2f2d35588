// id_gen: Instagram-style per-schema shards.
//
// create_shard(N) puts a C function next_id() into the shard's schema. Every shard's next_id() is
// this one entry point: it finds its shard number from its own schema (fn_oid -> pronamespace ->
// the registry row keyed by schema name), caches that per backend, and issues
//   41 bits of ms since the shard's epoch | 13 bits of shard | 10 bits of sequence
// from generator state shared by every backend (see snowflake_state.h), so a shard never repeats
// an ID however many it issues in one millisecond (unlike nextval() % 1024).
#include <cstring>

#include "boundary.h"
#include "core/snowflake.h"
#include "pg_time.h"
#include "snowflake_state.h"

extern "C" {
#include "access/htup_details.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
}

namespace {

constexpr const char* kShardType = "shard ID";

// Per-backend cache: next_id() function OID -> (shard, epoch). Cleared by any change to a
// function or a schema (syscache invalidation), which covers drop_shard, CREATE OR REPLACE,
// ALTER SCHEMA ... RENAME and ALTER FUNCTION ... SET SCHEMA.
struct CachedShard {
    Oid fn_oid;
    Oid db;
    std::int32_t shard;
    std::int64_t epoch_ms;
};
constexpr int kCacheSize = 256;
CachedShard g_cache[kCacheSize];
int g_cache_count = 0;
bool g_callbacks_registered = false;

void invalidate_cache(Datum, int, uint32) { g_cache_count = 0; }

const CachedShard* cache_find(Oid fn_oid) noexcept {
    for (int i = 0; i < g_cache_count; ++i)
        if (g_cache[i].fn_oid == fn_oid && g_cache[i].db == MyDatabaseId) return &g_cache[i];
    return nullptr;
}

// Looks the shard of next_id() function `fn_oid` up in the registry. Raises if its schema is not
// a registered shard.
CachedShard lookup_shard(Oid fn_oid) {
    if (!g_callbacks_registered) {
        CacheRegisterSyscacheCallback(PROCOID, invalidate_cache, (Datum)0);
        CacheRegisterSyscacheCallback(NAMESPACEOID, invalidate_cache, (Datum)0);
        g_callbacks_registered = true;
    }
    HeapTuple tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn_oid));
    if (!HeapTupleIsValid(tup)) elog(ERROR, "cache lookup failed for function %u", fn_oid);
    const Oid nsp = reinterpret_cast<Form_pg_proc>(GETSTRUCT(tup))->pronamespace;
    ReleaseSysCache(tup);
    char* nspname = get_namespace_name(nsp);
    if (nspname == nullptr) elog(ERROR, "cache lookup failed for namespace %u", nsp);

    Oid argtypes[1] = {NAMEOID};
    NameData nd;
    namestrcpy(&nd, nspname);
    Datum args[1] = {NameGetDatum(&nd)};

    CachedShard entry{fn_oid, MyDatabaseId, -1, 0};
    if (SPI_connect() != SPI_OK_CONNECT) elog(ERROR, "SPI_connect failed");
    int rc = SPI_execute("SELECT n.nspname::pg_catalog.text FROM pg_catalog.pg_extension e "
                         "JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'id_gen'",
                         true, 1);
    if (rc != SPI_OK_SELECT) elog(ERROR, "extension lookup failed: %s", SPI_result_code_string(rc));
    if (SPI_processed != 1)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("the id_gen extension is not installed in this database"),
                        errhint("A shard's next_id() reads the shard registry of the id_gen extension.")));
    char* extnsp = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
    char* query = psprintf("SELECT shard, (extract(epoch FROM epoch) * 1000)::pg_catalog.int8 FROM %s.shard_registry "
                           "WHERE schema_name = $1",
                           quote_identifier(extnsp));
    rc = SPI_execute_with_args(query, 1, argtypes, args, nullptr, true, 1);
    if (rc != SPI_OK_SELECT) elog(ERROR, "shard registry lookup failed: %s", SPI_result_code_string(rc));
    if (SPI_processed == 1) {
        bool isnull = false;
        entry.shard = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
        entry.epoch_ms = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
    }
    SPI_finish();
    if (entry.shard < 0)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("schema \"%s\" is not a registered shard", nspname),
                        errhint("next_id() works in a schema made a shard by create_shard(); see shard_registry.")));
    if (g_cache_count == kCacheSize) g_cache_count = 0;
    g_cache[g_cache_count++] = entry;
    return entry;
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
    const CachedShard* hit = cache_find(fn_oid);
    CachedShard entry = hit ? *hit : lookup_shard(fn_oid);
    idgen::pg::require_writable("next_id()");
    const idgen::SnowflakeLayout l = idgen::instagram_layout(entry.epoch_ms);
    const idgen::pg::StateKey key{static_cast<std::uint8_t>(idgen::LayoutKind::kInstagram),
                                  static_cast<std::uint32_t>(MyDatabaseId), entry.shard, entry.epoch_ms};
    const char* detail = "";
    auto id = idgen::pg::snowflake_issue(key, l, static_cast<std::uint32_t>(entry.shard), detail);
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
    const std::int64_t ms = idgen::snowflake_time_ms(idgen::instagram_layout(idgen::pg::timestamptz_to_unix_ms(epoch)), id);
    PG_RETURN_TIMESTAMPTZ(idgen::pg::unix_ms_to_timestamptz(ms));
}
