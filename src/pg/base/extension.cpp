// id_gen: the extension's own objects, found by OID (see extension.h).
#include "pg/base/extension.h"

extern "C" {
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/skey.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "catalog/dependency.h"
#include "catalog/pg_class.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_proc.h"
#include "commands/extension.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"
}

namespace idgen::pg {

Oid extension_schema() {
    ScanKeyData key[1];
    ScanKeyInit(&key[0], Anum_pg_extension_extname, BTEqualStrategyNumber, F_NAMEEQ, CStringGetDatum("id_gen"));
    Relation rel = table_open(ExtensionRelationId, AccessShareLock);
    SysScanDesc scan = systable_beginscan(rel, ExtensionNameIndexId, true, nullptr, 1, key);
    HeapTuple tup = systable_getnext(scan);
    const Oid nsp =
        HeapTupleIsValid(tup) ? reinterpret_cast<Form_pg_extension>(GETSTRUCT(tup))->extnamespace : InvalidOid;
    systable_endscan(scan);
    table_close(rel, AccessShareLock);
    return nsp;
}

Oid extension_table(const char* name, Oid extnsp) {
    const Oid relid = get_relname_relid(name, extnsp);
    if (!OidIsValid(relid) || getExtensionOfObject(RelationRelationId, relid) != get_extension_oid("id_gen", false))
        return InvalidOid;
    if (get_rel_relkind(relid) != RELKIND_RELATION)
        ereport(ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("the id_gen table %s is not a plain table", name), errhint("Reinstall the id_gen extension.")));
    return relid;
}

Oid extension_function(const char* name, int nargs, const Oid* argtypes, const char* user) {
    const Oid nsp = extension_schema();
    if (!OidIsValid(nsp))
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("the id_gen extension is not installed in this database"),
                        errhint("%s uses functions of the id_gen extension.", user)));
    // The exact signature in that schema: no overload resolution, so nothing another role adds
    // there can be chosen instead.
    const Oid fn = GetSysCacheOid3(PROCNAMEARGSNSP, Anum_pg_proc_oid, CStringGetDatum(name),
                                   PointerGetDatum(buildoidvector(argtypes, nargs)), ObjectIdGetDatum(nsp));
    if (!OidIsValid(fn) || getExtensionOfObject(ProcedureRelationId, fn) != get_extension_oid("id_gen", false))
        ereport(ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("function %s of the id_gen extension is missing", name),
                 errhint("%s needs it: update the extension (ALTER EXTENSION id_gen UPDATE) or reinstall it.", user)));
    return fn;
}

}  // namespace idgen::pg
