// id_gen: the idempotency-key store's internals, shared by its files (not for other files):
//   idempotency_table.cpp   the arguments' checks; the table, found through the extension, checked
//                           and cached per backend (Store), and a key's row read from a tuple (Row)
//   idempotency_rows.cpp    the executor path: a key's row read, locked, inserted and updated
//   idempotency_begin.cpp   idempotency_begin() and the key lock, idempotency_finish(),
//                           idempotency_recovery_point()
//   idempotency_purge.cpp   idempotency_purge()
// idempotency_fingerprint.cpp (idempotency_fingerprint()) shares nothing with them.
//
//
// Who owns a key. Every key is stored under the role calling (GetUserId(), current_user), read
// here and never taken from an argument: under its name (the primary key's first column) and its
// OID (a regrole, which a dump writes as the name), and a row is the caller's only when both are,
// so a new role given an old role's name does not inherit its keys. The table belongs to the
// extension's owner and no other role has a privilege on it: these functions read and write it
// themselves, after finding it from pg_extension by OID (see extension.h), through the path
// PostgreSQL's logical-replication apply worker uses (execReplication.c): an index scan of the
// primary key, the row locked with table_tuple_lock(), and ExecSimpleRelationInsert / Update /
// Delete on an EState, which bring constraints, the partition check, every index, replica
// identity and publication row filters, and row triggers. No SQL text is run, so nothing is
// resolved by name when a request runs, and nothing is planned. What that path does not run
// (statement triggers, row-level security, rules, column defaults) is refused (check_table()).
//
// Concurrency. Every idempotency_begin() of one (role, scope, key) first takes a transaction-level
// lock on it: a lock-manager advisory lock whose tag holds a 64-bit hash of the three (and a class
// number SQL's advisory-lock functions never use), so requests with the same key queue there and
// requests with other keys do not meet. Under that lock it reads the key's row (READ COMMITTED:
// the latest committed state; REPEATABLE READ and SERIALIZABLE: what the transaction's snapshot
// sees, and 40001 when a later version exists, see read_row()) and decides. When a request's work shares
// its transaction with the key (begin, work, finish, commit), the lock is held to the commit and a
// duplicate waits for it (or, with wait => false, fails at once); it then sees the committed
// response, or, after a rollback, no key at all. When a request commits the key first and works
// across transactions (recovery points), the key's row carries the lock instead: `locked_until`,
// renewed by every recovery point. A duplicate then polls the row (sleeping on its latch, so it
// can be cancelled) until the request finishes or its lock runs out, and takes over the key when
// it has run out. idempotency_finish(), idempotency_recovery_point() and idempotency_purge() do not
// take the key lock: they lock the row they read before they write it (FOR UPDATE; without
// waiting for wait => false and for purges), and a row changed or deleted by another transaction
// in between sends them back to read it again (40001 under REPEATABLE READ and SERIALIZABLE).
#pragma once

#include <cstdint>
#include <cstring>

#include "core/requests/idempotency.h"
#include "pg/base/boundary.h"
#include "pg/base/extension.h"

extern "C" {
#include "access/amapi.h"
#include "access/genam.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/skey.h"
#include "access/stratnum.h"
#include "access/sysattr.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "catalog/pg_class.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_constraint.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "common/hashfn.h"
#include "common/pg_prng.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "nodes/execnodes.h"
#include "parser/parse_relation.h"
#include "storage/bufmgr.h"
#include "storage/latch.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "storage/predicate.h"
#include "storage/proc.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/fmgroids.h"
#include "utils/inval.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"
#include "utils/wait_event.h"
}

namespace idgen::pg::idem {

// A label as an error message shows it: control characters escaped, clipped.
struct Shown {
    char text[300];
};

enum Col {
    kRole,
    kRoleId,
    kScope,
    kKey,
    kFingerprint,
    kState,
    kResponse,
    kAttempts,
    kOriginal,
    kAttempt,
    kPoint,
    kLockTimeout,
    kLockedUntil,
    kRetention,
    kCreated,
    kUpdated,
    kFinished,
    kExpires,
    kNumCols
};

// The table, its primary key and expiry index, and where each column is: a per-backend cache. What
// makes it current: no call reads it before it has locked the table (open_table(): by OID, the
// cached one or the one found again through pg_extension) and then processed invalidations
// (AcceptInvalidationMessages). A relcache invalidation of the table or one of its indexes (DROP
// EXTENSION, ALTER EXTENSION UPDATE, ALTER TABLE, REINDEX including CONCURRENTLY, which swaps the
// index OIDs) or a change to any schema marks it stale (the callbacks in idempotency_table.cpp),
// and it is then rebuilt from the locked table's relcache entry: every column by name with exactly
// the type the store reads and writes, the indexes from the table's index list. DDL that changes a
// column takes ACCESS EXCLUSIVE, which waits for the caller's lock; REINDEX CONCURRENTLY waits for
// it before it swaps or drops an index. So what a call read from the cache stays true until it
// ends.
struct Store {
    bool valid;
    Oid db, relid, pkey, expires_index;
    AttrNumber att[kNumCols];
    // The primary key's equality functions and collations, column by column (role_name, scope,
    // key): a scan key compares as the index does, with the collation the key column has now.
    RegProcedure pk_eq[3];
    Oid pk_coll[3];
};

// The row idempotency_begin() last inserted in this backend, so that the finish (or recovery
// point) of that key in the same transaction, the usual shape of a request (begin, the work,
// finish, commit), fetches it by TID instead of searching the primary key again. A hint, checked
// before it is used: the same top-level transaction, table and role, under READ COMMITTED; the
// version there visible to a new snapshot (so neither updated since nor rolled back with a
// subtransaction); and its role name, scope and key byte for byte the caller's. Anything else
// reads the key through the primary key as before. Cleared by a relcache invalidation of the
// table (a rewrite in the same transaction moves rows).
struct Granted {
    bool valid;
    TransactionId xid;
    Oid relid, role;
    ItemPointerData tid;
};
extern Granted g_granted;

// A key's row: its values by column (from a copy of the tuple, in the caller's memory context; a
// large response stays a TOAST pointer, so an update that keeps it keeps its TOAST rows), where
// it is, and which transaction wrote it.
struct Row {
    ItemPointerData tid;
    TransactionId xmin;
    Datum v[kNumCols];
    bool null[kNumCols];

    // The row's role is the caller's: same name (the lookup) and same OID. A row under the
    // caller's name with another OID is a former holder's of the name (a role dropped or renamed).
    [[nodiscard]] bool mine() const { return DatumGetObjectId(v[kRoleId]) == GetUserId(); }
    [[nodiscard]] bool done() const { return std::strcmp(TextDatumGetCString(v[kState]), "done") == 0; }
    [[nodiscard]] const text* txt(Col c) const { return null[c] ? nullptr : DatumGetTextPP(v[c]); }
    [[nodiscard]] TimestampTz ts(Col c) const { return null[c] ? DT_NOBEGIN : DatumGetTimestampTz(v[c]); }
};

// One call's executor state for writing idempotency_keys, set up as the logical-replication apply
// worker sets up its own (worker.c: create_edata_for_relation / finish_edata): a one-entry range
// table, a ResultRelInfo with the table's indexes open, an EPQState for BEFORE ROW triggers, and
// an AFTER-trigger query level. `found` holds the row version read and then locked; `out` the
// row to write. Plain data: nothing here has a destructor (an error frees it with the
// transaction's memory and resource owner).
struct Exec {
    EState* estate;
    ResultRelInfo* rri;
    EPQState epq;
    Bitmapset** updated_cols;
    TupleTableSlot* found;
    TupleTableSlot* out;
};

enum class Locked { kYes, kChanged, kBusy };

// idempotency_table.cpp
Shown shown(const text* t);
text* label_arg(FunctionCallInfo fcinfo, int n, const char* what, bool nullable);
Interval* interval_arg(FunctionCallInfo fcinfo, int n, const char* what, Interval* fallback, bool allow_zero);
void check_writable(const char* what);
[[noreturn]] void store_missing(const char* what);
Relation open_table(const Store*& st);
void row_from_tuple(const Store& st, Relation rel, HeapTuple tup, Row* row);

// idempotency_rows.cpp
void exec_open(Exec* x, Relation rel);
void exec_close(Exec* x);
void row_from_slot(const Store& st, Relation rel, TupleTableSlot* slot, Row* row);
bool read_row(const Store& st, Relation rel, Exec* x, const NameData* role, const text* scope, const text* key,
              Row* row);
bool read_granted_row(const Store& st, Relation rel, Exec* x, const NameData* role, const text* scope, const text* key,
                      Row* row);
Locked lock_row(Relation rel, Exec* x, const Row& old, bool wait, bool skip_changed = false,
                Snapshot snapshot = nullptr);
void insert_row(const Store& st, Relation rel, Exec* x, const Row& row);
Locked update_row(const Store& st, Relation rel, Exec* x, const Row& old, const Row& row, bool wait = true);
Datum text_datum(const text* t);
Datum ts_datum(TimestampTz t);
TimestampTz plus(TimestampTz t, const Interval* i);
Interval* interval_of(const Row& row, Col c);
void set(Row* row, Col c, Datum v);
void set_text(Row* row, Col c, const text* t);
Name caller_name();

}  // namespace idgen::pg::idem
