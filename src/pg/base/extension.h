// id_gen: the extension's own objects, found by OID, never by name.
//
// SQL text naming @extschema@.<object> resolves that name when it runs: after the owner of the
// extension's schema (on PostgreSQL 15+ public belongs to pg_database_owner, often not a
// superuser) renames it and puts a schema of their own, with look-alike tables and functions,
// under the old name, a superuser running that text runs the owner's code. The glue instead
// finds the schema from pg_extension (by the extension's OID) and the object in it; an
// extension member there cannot be dropped, renamed or replaced by that owner, and no other
// object can take its name.
#pragma once

extern "C" {
#include "postgres.h"
}

namespace idgen::pg {

// The schema of the id_gen extension, or InvalidOid when it is not installed in this database.
// (PostgreSQL 15 does not export get_extension_schema().)
Oid extension_schema();

// The table `name` of the id_gen extension in schema `extnsp` (its schema, from extension_schema()):
// its OID when it is a member of the extension, InvalidOid when the schema has no relation of that
// name or one that is not the extension's (a table someone else put there, say before ALTER
// EXTENSION ... UPDATE made the real one, is never read). Raises 55000 when the member is not a
// plain table. Takes no lock: callers lock it, then trust what they read of it.
Oid extension_table(const char* name, Oid extnsp);

// The function `name`(argtypes) of the id_gen extension: in its schema and a member of it.
// Raises 55000 naming `user` (what needs it) when it is missing.
Oid extension_function(const char* name, int nargs, const Oid* argtypes, const char* user);

}  // namespace idgen::pg
