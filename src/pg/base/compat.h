// id_gen: what differs between the PostgreSQL major versions id_gen builds against (15 and later).
// This is the only file that tests PG_VERSION_NUM; the glue includes it (through boundary.h, or
// directly after postgres.h) inside its extern "C" block of PostgreSQL headers and uses the names
// below the same way on every version.
#pragma once

#include "postgres.h"

#if PG_VERSION_NUM < 150000
#error "id_gen needs PostgreSQL 15 or later"
#endif

// 16 moved the varlena macros (VARDATA, VARSIZE_ANY_EXHDR, SET_VARSIZE, ...) out of postgres.h.
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

// IDGEN_ERRSAVE(escontext, (errcode(...), errmsg(...))): a soft error where the server has them
// (16+): errsave() stores it in the caller's ErrorSaveContext, if there is one, and returns. On 15
// it is ereport(ERROR) and does not return.
#include "utils/elog.h"
#if PG_VERSION_NUM >= 160000
#include "nodes/miscnodes.h"
#define IDGEN_ERRSAVE(escontext, ...) errsave(escontext, __VA_ARGS__)
#else
#define IDGEN_ERRSAVE(escontext, ...) ereport(ERROR, __VA_ARGS__)
#endif

// IDGEN_HAVE_SOFT_INPUT_ERRORS: the server can call a type's input function with an
// ErrorSaveContext (InputFunctionCallSafe, 16+). Without it (15), id_gen_input_is_valid() runs the
// input function inside an internal subtransaction instead (input_call.c).
#if PG_VERSION_NUM >= 160000
#define IDGEN_HAVE_SOFT_INPUT_ERRORS 1
#else
#define IDGEN_HAVE_SOFT_INPUT_ERRORS 0
#endif

// 16 gave parseTypeString a soft-error context in place of 15's missing_ok flag. Both raise for a
// malformed or unknown type name here. (The user includes parser/parse_type.h.)
#if PG_VERSION_NUM >= 160000
#define IDGEN_PARSE_TYPE_STRING(str, typoid, typmod) parseTypeString((str), (typoid), (typmod), NULL)
#else
#define IDGEN_PARSE_TYPE_STRING(str, typoid, typmod) parseTypeString((str), (typoid), (typmod), false)
#endif

// 17 added the DSM registry (GetNamedDSMSegment): without preloading, generator state can still
// live in shared memory. IDGEN_HAVE_DSM_REGISTRY says whether it is there.
#if PG_VERSION_NUM >= 170000
#include "storage/dsm_registry.h"
#define IDGEN_HAVE_DSM_REGISTRY 1
#else
#define IDGEN_HAVE_DSM_REGISTRY 0
#endif

// 18 gave RelationGetPrimaryKeyIndex a deferrable_ok argument. id_gen's registries have plain
// (not deferrable) primary keys: false asks for exactly what earlier versions returned.
#if PG_VERSION_NUM >= 180000
#define IDGEN_PRIMARY_KEY_INDEX(rel) RelationGetPrimaryKeyIndex((rel), false)
#else
#define IDGEN_PRIMARY_KEY_INDEX(rel) RelationGetPrimaryKeyIndex(rel)
#endif

// 17 added infinite intervals (INTERVAL_NOT_FINITE, in datatype/timestamp.h, which the user of
// this macro includes). Before 17 no interval is infinite.
#if PG_VERSION_NUM >= 170000
#define IDGEN_INTERVAL_IS_INFINITE(i) INTERVAL_NOT_FINITE(i)
#else
#define IDGEN_INTERVAL_IS_INFINITE(i) false
#endif

// 16 gave heap_update an out-argument saying which indexes need entries for the new version:
// none (heap-only, HOT), all, or only the summarizing ones (BRIN), since 16 lets a HOT update
// change a column that only summarizing indexes cover. IDGEN_HEAP_UPDATE stores that answer in
// *(indexes) as IDGEN_INDEXES_NONE / _ALL / _SUMMARIZING; before 16 it is NONE for a heap-only
// version and ALL otherwise, and no index counts as summarizing. It waits for a concurrent writer
// and has no crosscheck snapshot; its user includes access/heapam.h (and, for
// IDGEN_INDEX_IS_SUMMARIZING, access/amapi.h and utils/rel.h).
#define IDGEN_INDEXES_NONE 0
#define IDGEN_INDEXES_ALL 1
#define IDGEN_INDEXES_SUMMARIZING 2
#if PG_VERSION_NUM >= 160000
#define IDGEN_HEAP_UPDATE(rel, otid, tup, cid, tmfd, lockmode, indexes)                                                \
    ([&]() {                                                                                                           \
        TU_UpdateIndexes idgen_update_indexes_ = TU_All;                                                               \
        const TM_Result idgen_r_ = heap_update((rel), (otid), (tup), (cid), InvalidSnapshot, true, (tmfd), (lockmode), \
                                               &idgen_update_indexes_);                                                \
        *(indexes) = idgen_update_indexes_ == TU_None          ? IDGEN_INDEXES_NONE                                    \
                     : idgen_update_indexes_ == TU_Summarizing ? IDGEN_INDEXES_SUMMARIZING                             \
                                                               : IDGEN_INDEXES_ALL;                                    \
        return idgen_r_;                                                                                               \
    }())
#define IDGEN_INDEX_IS_SUMMARIZING(index) ((index)->rd_indam->amsummarizing)
#else
#define IDGEN_HEAP_UPDATE(rel, otid, tup, cid, tmfd, lockmode, indexes)                          \
    ([&]() {                                                                                     \
        const TM_Result idgen_r_ =                                                               \
            heap_update((rel), (otid), (tup), (cid), InvalidSnapshot, true, (tmfd), (lockmode)); \
        *(indexes) = HeapTupleIsHeapOnly(tup) ? IDGEN_INDEXES_NONE : IDGEN_INDEXES_ALL;          \
        return idgen_r_;                                                                         \
    }())
#define IDGEN_INDEX_IS_SUMMARIZING(index) false
#endif

// The executor state of a write through execReplication.c (the store, as the logical-replication
// apply worker does it): a one-entry range table. 16 added RTEPermissionInfo (the user includes
// parser/parse_relation.h), 18 the unpruned relids. IDGEN_INIT_RANGE_TABLE(estate, rte, cols)
// sets *(cols) to where the entry's updated columns go (ExecGetUpdatedCols reads them: column
// triggers, the index-unchanged hint).
#if PG_VERSION_NUM >= 160000
#define IDGEN_INIT_RANGE_TABLE(estate, rte, cols)                                      \
    do {                                                                               \
        List* idgen_perminfos_ = NIL;                                                  \
        RTEPermissionInfo* idgen_pi_ = addRTEPermissionInfo(&idgen_perminfos_, (rte)); \
        IDGEN_EXEC_INIT_RANGE_TABLE_((estate), list_make1(rte), idgen_perminfos_);     \
        *(cols) = &idgen_pi_->updatedCols;                                             \
    } while (0)
#if PG_VERSION_NUM >= 180000
#define IDGEN_EXEC_INIT_RANGE_TABLE_(estate, rt, pi) ExecInitRangeTable((estate), (rt), (pi), bms_make_singleton(1))
#else
#define IDGEN_EXEC_INIT_RANGE_TABLE_(estate, rt, pi) ExecInitRangeTable((estate), (rt), (pi))
#endif
#define IDGEN_EPQ_INIT(epq, estate) EvalPlanQualInit((epq), (estate), NULL, NIL, -1, NIL)
#else
#define IDGEN_INIT_RANGE_TABLE(estate, rte, cols)      \
    do {                                               \
        ExecInitRangeTable((estate), list_make1(rte)); \
        *(cols) = &(rte)->updatedCols;                 \
    } while (0)
#define IDGEN_EPQ_INIT(epq, estate) EvalPlanQualInit((epq), (estate), NULL, NIL, -1)
#endif

// 18 gave index_beginscan an instrumentation argument.
#if PG_VERSION_NUM >= 180000
#define IDGEN_INDEX_BEGINSCAN(heap, index, snapshot, nkeys) \
    index_beginscan((heap), (index), (snapshot), NULL, (nkeys), 0)
#else
#define IDGEN_INDEX_BEGINSCAN(heap, index, snapshot, nkeys) index_beginscan((heap), (index), (snapshot), (nkeys), 0)
#endif
