// The two pieces of the Citus cluster support (64_shard_cluster_pull.sql) that SQL cannot do.
//
// shard_cluster_send(command): runs `command` on every other active node inside the caller's
// transaction, through Citus's own execute_command_on_remote_nodes_as_user(), looked up in
// citus.so at run time (id_gen never links against Citus). Citus sends it on the coordinated
// transaction's connections and commits them with two-phase commit when the caller's transaction
// commits (PREPARE TRANSACTION on each worker, COMMIT PREPARED after the coordinator's commit,
// recorded in pg_dist_transaction and finished by Citus's recovery should anything fail in
// between): the change reaches every active node or none.
//
// shard_cluster_request_timer(ms): a deadline for a worker's request to the coordinator
// (shard_cluster_pull()), which Citus waits for with no bound of its own once connected. Armed
// (ms > 0), it cancels the statement when it passes, as a query cancel does; disarmed (ms = 0),
// it says whether it passed, so the caller can tell its own cancel from the user's.
//
// Only trivially destructible locals: every call here can raise.
#include "pg/base/boundary.h"

extern "C" {
#include "commands/extension.h"
#include "miscadmin.h"
#include "storage/latch.h"
#include "utils/builtins.h"
#include "utils/timeout.h"
}

namespace {

volatile sig_atomic_t g_request_expired = 0;
TimeoutId g_request_timeout = MAX_TIMEOUTS;  // registered at the first use

// Runs in the SIGALRM handler: only flags and the latch, as PostgreSQL's own timeouts do.
void request_timeout_handler() {
    g_request_expired = 1;
    InterruptPending = true;
    QueryCancelPending = true;
    SetLatch(MyLatch);
}

}  // namespace

IDGEN_FUNCTION(shard_cluster_send) {
    if (!superuser())
        ereport(ERROR,
                (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE), errmsg("permission denied to change the shard registry")));
    if (!OidIsValid(get_extension_oid("citus", true)))
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE), errmsg("shard_cluster_send() needs Citus")));
    // Citus's SQL-callable citus_internal.execute_command_on_remote_nodes_as_user(query, user),
    // which its SQL scripts do not create: the C function, exported by citus.so, called directly.
    // It runs `query` on every active primary node but this one, one after the other, on the
    // coordinated transaction's connections (opened as needed), under two-phase commit. Citus is
    // loaded (shared_preload_libraries) wherever its extension exists; a Citus without this
    // function raises here, naming it.
    const auto run_on_remote_nodes = reinterpret_cast<PGFunction>(
        load_external_function("$libdir/citus", "execute_command_on_remote_nodes_as_user", true, nullptr));
    DirectFunctionCall2(run_on_remote_nodes, PG_GETARG_DATUM(0),
                        CStringGetTextDatum(GetUserNameFromId(GetUserId(), false)));
    PG_RETURN_VOID();
}

IDGEN_FUNCTION(shard_cluster_request_timer) {
    // Its own guard, besides the REVOKE: an armed timer cancels whatever statement runs when it
    // passes, until timer(0) disarms it.
    if (!superuser())
        ereport(ERROR,
                (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE), errmsg("permission denied to arm a shard request timer"),
                 errhint("shard_cluster_request_timer() is internal to shard_cluster_pull().")));
    const int32 ms = PG_GETARG_INT32(0);
    if (ms < 0) ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("a request timer of %d ms", ms)));
    if (g_request_timeout == MAX_TIMEOUTS) g_request_timeout = RegisterTimeout(USER_TIMEOUT, request_timeout_handler);
    disable_timeout(g_request_timeout, false);
    const bool expired = g_request_expired != 0;
    // A cancel this timer asked for and no statement has taken yet is dropped with it: the caller
    // raises its own error instead.
    if (expired) QueryCancelPending = false;
    g_request_expired = 0;
    if (ms > 0) enable_timeout_after(g_request_timeout, ms);
    PG_RETURN_BOOL(expired);
}
