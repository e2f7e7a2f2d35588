// The one piece of the created ID types' Citus support (90_id_types.sql) that SQL cannot do: the
// event trigger that brings a node that already has id_gen up to date when Citus adds it.
//
// Citus creates id_gen on a node it adds (citus_add_node()) or activates (citus_activate_node())
// with `CREATE EXTENSION IF NOT EXISTS id_gen`, sent in the transaction that activates the node,
// after it has written the node's pg_dist_node and pg_dist_local_group there and dropped the
// node's old shell tables, and before it makes the distributed tables' shells. On a node without
// id_gen the install script asks the coordinator for its created types (id_type_cluster_pull()).
// On a node that has it (removed and added back, say) that statement does nothing, so this
// ddl_command_start trigger, an id_gen member, runs id_type_cluster_pull() first: the node's
// created types become the coordinator's, compared by their spec, before Citus needs them.
//
// It acts only where that is safe: the statement is CREATE EXTENSION IF NOT EXISTS id_gen, by a
// superuser, on a database with Citus and id_gen; and this transaction either has written
// nothing yet (it sees what is committed, as the coordinator's answer does) or is the one that
// activates this node (it wrote pg_dist_local_group). Any other transaction (Citus passing the
// statement on inside a user's transaction that has made or dropped ID types already, whose
// changes the coordinator's own connection cannot see yet) is left alone, as before.
//
// Only trivially destructible locals: every call here can raise.
#include <cstring>

#include "pg/base/boundary.h"
#include "pg/base/extension.h"

extern "C" {
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_namespace.h"
#include "commands/event_trigger.h"
#include "commands/extension.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
}

namespace {

// Whether this transaction wrote this node's row of Citus's pg_dist_local_group: Citus does when
// it activates the node (its group id), in the transaction that then sends CREATE EXTENSION.
bool activating_this_node() {
    const Oid rel = get_relname_relid("pg_dist_local_group", PG_CATALOG_NAMESPACE);
    if (!OidIsValid(rel)) return false;
    Relation r = table_open(rel, AccessShareLock);
    SysScanDesc scan = systable_beginscan(r, InvalidOid, false, nullptr, 0, nullptr);
    bool mine = false;
    HeapTuple tuple;
    while (HeapTupleIsValid(tuple = systable_getnext(scan)))
        if (TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetXmin(tuple->t_data))) mine = true;
    systable_endscan(scan);
    table_close(r, AccessShareLock);
    return mine;
}

}  // namespace

IDGEN_FUNCTION(id_type_cluster_event) {
    if (!CALLED_AS_EVENT_TRIGGER(fcinfo))
        ereport(ERROR, (errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
                        errmsg("id_type_cluster_event() is an event trigger function")));
    const auto* data = reinterpret_cast<EventTriggerData*>(fcinfo->context);
    if (data->parsetree == nullptr || !IsA(data->parsetree, CreateExtensionStmt)) PG_RETURN_VOID();
    const auto* stmt = reinterpret_cast<const CreateExtensionStmt*>(data->parsetree);
    if (!stmt->if_not_exists || std::strcmp(stmt->extname, "id_gen") != 0 || creating_extension || !superuser())
        PG_RETURN_VOID();
    if (!OidIsValid(get_extension_oid("id_gen", true)) || !OidIsValid(get_extension_oid("citus", true)))
        PG_RETURN_VOID();
    if (TransactionIdIsValid(GetTopTransactionIdIfAny()) && !activating_this_node()) PG_RETURN_VOID();
    const Oid pull =
        idgen::pg::extension_function("id_type_cluster_pull", 0, nullptr, "id_gen's event trigger on CREATE EXTENSION");
    OidFunctionCall0(pull);
    PG_RETURN_VOID();
}
