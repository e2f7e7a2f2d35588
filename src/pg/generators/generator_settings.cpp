// id_gen: the settings of the generators with shared state, their clock, and the checks every
// generator entry point makes before it touches shared state. See generators.h.
#include "pg/generators/generators.h"

extern "C" {
#include "postgres.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "miscadmin.h"
#include "utils/guc.h"
}

namespace idgen::pg {

int g_node_id = -1;
int g_launch_id = -1;
int g_max_run_ahead_ms = 1000;
int g_test_clock_offset_ms = 0;
bool g_enable_test_clock = false;

void generator_define_settings() {
    DefineCustomIntVariable("id_gen.node_id", "Node number of this server for gen_snowflake() (-1: unset).",
                            "Unique per server among all servers issuing snowflakes into the same ID space; "
                            "a standby shares its primary's number and refuses to generate.",
                            &g_node_id, -1, -1, 65535, PGC_SIGHUP, 0, nullptr, nullptr, nullptr);
    DefineCustomIntVariable("id_gen.launch_id", "Launch number of this server for gen_decimal_id() (-1: unset).",
                            "1 to 99999, unique per server among all servers issuing DecimalIds into the same "
                            "ID space; 0 only on test servers (id_gen.enable_test_clock = on).",
                            &g_launch_id, -1, -1, 99999, PGC_SIGHUP, 0, nullptr, nullptr, nullptr);
    DefineCustomIntVariable("id_gen.max_run_ahead",
                            "How far a snowflake's time may run ahead of the clock when a time unit's "
                            "sequence numbers are used up.",
                            "Beyond it the generator waits for the clock (at most 1 s per call).", &g_max_run_ahead_ms,
                            1000, 0, 60000, PGC_SIGHUP, GUC_UNIT_MS, nullptr, nullptr, nullptr);
    // PGC_POSTMASTER can only be defined while preloading (later is FATAL); without preloading the
    // closest server-level context is SIGHUP (postgresql.conf / ALTER SYSTEM + reload).
    DefineCustomBoolVariable(
        "id_gen.enable_test_clock", "Testing only: lets id_gen.test_clock_offset shift the generators' clock.",
        "Off in production: the offset moves the shared, persisted high-water mark of "
        "every generator. Set it in postgresql.conf of test clusters only.",
        &g_enable_test_clock, false, process_shared_preload_libraries_in_progress ? PGC_POSTMASTER : PGC_SIGHUP,
        GUC_NOT_IN_SAMPLE, nullptr, nullptr, nullptr);
    DefineCustomIntVariable("id_gen.test_clock_offset", "Testing only: shifts the clock the snowflake generators read.",
                            "No effect unless the server runs with id_gen.enable_test_clock = on.",
                            &g_test_clock_offset_ms, 0, -86400000, 86400000, PGC_SUSET,
                            GUC_UNIT_MS | GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE, nullptr, nullptr, nullptr);
    MarkGUCPrefixReserved("id_gen");
    shmem_store_install_hooks();
}

// Raises directly: only trivially destructible locals are in scope.
void require_writable(const char* what) {
    if (RecoveryInProgress())
        ereport(ERROR, (errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION), errmsg("cannot call %s during recovery", what),
                        errhint("A standby shares its primary's node and shard numbers: IDs issued here could "
                                "also be issued by the primary. Generate IDs on the primary.")));
    if (XactReadOnly)
        ereport(ERROR,
                (errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION), errmsg("cannot call %s in a read-only transaction", what),
                 errhint("Generators write shared state; call it in a read-write transaction on the primary.")));
}

void require_mark_within_reach(std::int64_t mark_ms, const char* id_text, const char* what, const char* hint) {
    const std::int64_t now_ms = generator_clock_ms();
    if (hint == nullptr)
        hint =
            "Check the ID and the clocks. IDs of a server whose clock was that far ahead cannot be continued here: "
            "give this server another id_gen.node_id (shards: other shard numbers).";
    if (mark_ms > now_ms && mark_ms - now_ms > kMaxRaiseAheadMs)
        ereport(ERROR,
                (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
                 errmsg("ID %s is %lld s ahead of the clock, more than a day", id_text,
                        static_cast<long long>((mark_ms - now_ms) / 1000)),
                 errdetail("Past the raised mark, %s would issue at most id_gen.max_run_ahead worth of IDs and then "
                           "refuse until the clock reaches it.",
                           what),
                 errhint("%s", hint)));
}

}  // namespace idgen::pg
