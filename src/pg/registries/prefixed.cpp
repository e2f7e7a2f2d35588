// id_gen: SQL entry points of prefixed typed IDs: format, parse against an expected prefix, split
// (they check the shape of a prefix, not its registration, so they stay IMMUTABLE and usable in
// generated columns, views and expression indexes); and the registry's gen_prefixed(),
// prefix_owner() and prefix_register(), which reach the registry and their helpers by OID (see
// extension.h), never by @extschema@.<name>.
#include <cstdint>
#include <cstring>

#include "core/base/clock.h"
#include "core/text/prefixed.h"
#include "pg/base/boundary.h"
#include "pg/base/extension.h"
#include "pg/generators/backend_entropy.h"
#include "pg/types/uuidv7_sequence.h"

extern "C" {
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/skey.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/uuid.h"
}

namespace {

constexpr const char* kType = "prefixed ID";

struct TextArg {
    const char* data;
    std::size_t len;
};

TextArg arg_text(FunctionCallInfo fcinfo, int n) {
    const text* t = PG_GETARG_TEXT_PP(n);
    return {VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t)};
}

idgen::PrefixedBody body_arg_given(FunctionCallInfo fcinfo, int n);

// The body encoding: argument n ('base36' or 'base62') when the function has it, base36 otherwise
// (the functions of 0.1.0, which take no such argument).
inline idgen::PrefixedBody body_arg(FunctionCallInfo fcinfo, int n) {
    if (PG_NARGS() <= n) return idgen::PrefixedBody::kBase36;
    return body_arg_given(fcinfo, n);
}

pg_noinline idgen::PrefixedBody body_arg_given(FunctionCallInfo fcinfo, int n) {
    const TextArg b = arg_text(fcinfo, n);
    if (b.len == 6 && std::memcmp(b.data, "base36", 6) == 0) return idgen::PrefixedBody::kBase36;
    if (b.len == 6 && std::memcmp(b.data, "base62", 6) == 0) return idgen::PrefixedBody::kBase62;
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("invalid body encoding \"%s\" for a prefixed ID", text_to_cstring(PG_GETARG_TEXT_PP(n))),
                    errhint("The body is 'base36' (25 characters) or 'base62' (22 characters).")));
    return idgen::PrefixedBody::kBase36;  // not reached
}

// gen_prefixed()'s memo of the call site's last cache hit: the prefix, and the generations of
// everything a hit consults (the prefix cache, the privilege cache, the transaction and the role)
// when it was found. A later call whose prefix and generations are all the same would find the same
// answer in the caches, so it skips them: a hit at this call site costs a few comparisons.
struct HitMemo {
    std::uint64_t known_generation, acl_generation, lock_epoch;
    Oid user;
    std::uint8_t len;  // 0: nothing remembered
    char prefix[idgen::kPrefixMaxLen];
};

// The prefix registry: its table, the attribute numbers of its columns and the collation of its
// primary key, found per call site (fn_extra) and again in every transaction (and after a
// subtransaction that may have released the lock aborts): a call site can outlive a transaction
// or a subtransaction (a PL/pgSQL expression is kept to the end of its transaction, across
// exception blocks). The registry is locked (AccessShareLock) before it is read, and kept locked
// to the end of the transaction, as a query naming it would keep it: it cannot be dropped or
// altered while the call site caches its OID and columns, and every transaction that uses them
// (or gen_prefixed()'s cache below) holds that lock.
struct Registry {
    Oid relid;
    AttrNumber prefix, owner;
    Oid collation;
    Oid insert_fn;               // prefix_registry_insert(text, text), found on first use by prefix_register()
    std::uint64_t locked_epoch;  // g_lock_epoch when this call site last locked the registry
    HitMemo hit;
};

// Bumped at the end of every transaction and at every subtransaction abort: a call site whose
// locked_epoch differs may no longer hold its lock.
std::uint64_t g_lock_epoch = 1;
bool g_lock_callbacks = false;
void lock_on_xact(XactEvent, void*) { ++g_lock_epoch; }
void lock_on_subxact(SubXactEvent event, SubTransactionId, SubTransactionId, void*) {
    if (event == SUBXACT_EVENT_ABORT_SUB) ++g_lock_epoch;
}

// The registry registry_locked() last locked. An invalidation of its relcache entry (DROP
// EXTENSION and CREATE EXTENSION in the open transaction included: a cursor's call site then
// holds a dropped table's OID) bumps g_lock_epoch, so the next call finds the registry again
// (known_on_relcache(), below).
Oid g_registry_relid = InvalidOid;
void register_registry_callbacks();

Registry& registry_locked(FunctionCallInfo fcinfo, const char* user);
inline Registry& registry(FunctionCallInfo fcinfo, const char* user) {
    auto* r = static_cast<Registry*>(fcinfo->flinfo->fn_extra);
    if (likely(r != nullptr && r->locked_epoch == g_lock_epoch)) return *r;
    return registry_locked(fcinfo, user);
}

// registry()'s first call in a transaction at a call site: finds, locks and reads the registry.
pg_noinline Registry& registry_locked(FunctionCallInfo fcinfo, const char* user) {
    auto* r = static_cast<Registry*>(fcinfo->flinfo->fn_extra);
    if (!g_lock_callbacks) {
        RegisterXactCallback(lock_on_xact, nullptr);
        RegisterSubXactCallback(lock_on_subxact, nullptr);
        g_lock_callbacks = true;
    }
    register_registry_callbacks();
    const Oid extnsp = idgen::pg::extension_schema();
    if (!OidIsValid(extnsp))
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("the id_gen extension is not installed in this database"),
                        errhint("%s reads the prefix registry of the id_gen extension.", user)));
    // An extension member and a plain table: its schema's owner can neither drop nor rename it,
    // and a table someone else put there under that name is never read.
    const Oid relid = idgen::pg::extension_table("prefix_registry", extnsp);
    if (!OidIsValid(relid))
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("the id_gen prefix registry is missing"), errhint("Reinstall the id_gen extension.")));
    // Locked before its shape is read (taking the lock processes invalidations), and kept to the
    // end of the transaction: no ALTER TABLE can change the columns read below while this call
    // site caches their numbers.
    LockRelationOid(relid, AccessShareLock);
    g_registry_relid = relid;
    if (r == nullptr) r = static_cast<Registry*>(MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(Registry)));
    const Oid insert_fn = r->relid == relid ? r->insert_fn : InvalidOid;
    *r = Registry{};
    fcinfo->flinfo->fn_extra = r;  // locked_epoch 0 until filled: an error below leaves it to refill
    r->relid = relid;
    r->insert_fn = insert_fn;
    r->prefix = get_attnum(relid, "prefix");
    r->owner = get_attnum(relid, "owner");
    if (r->prefix == InvalidAttrNumber || r->owner == InvalidAttrNumber || get_atttype(relid, r->owner) != TEXTOID)
        elog(ERROR, "id_gen prefix registry has an unexpected shape");
    Oid type = InvalidOid;
    int32 typmod = -1;
    get_atttypetypmodcoll(relid, r->prefix, &type, &typmod, &r->collation);
    if (type != TEXTOID) elog(ERROR, "id_gen prefix registry has an unexpected shape");
    r->locked_epoch = g_lock_epoch;
    return *r;
}

// The owner `prefix` is registered for (palloc'd), or nullptr: an index scan of the registry's
// primary key with `snapshot` (nullptr: a fresh catalog snapshot, taken after the scan's lock),
// with the caller's SELECT privilege on the registry checked as a query would. Only trivially
// destructible locals live across these calls.
text* registered_owner(const Registry& reg, text* prefix, Snapshot snapshot) {
    const AclResult acl = pg_class_aclcheck(reg.relid, GetUserId(), ACL_SELECT);
    if (acl != ACLCHECK_OK) aclcheck_error(acl, OBJECT_TABLE, get_rel_name(reg.relid));
    Relation rel = table_open(reg.relid, AccessShareLock);
    const Oid index = IDGEN_PRIMARY_KEY_INDEX(rel);
    if (!OidIsValid(index)) elog(ERROR, "id_gen prefix registry has no primary key");
    ScanKeyData key[1];
    ScanKeyInit(&key[0], reg.prefix, BTEqualStrategyNumber, F_TEXTEQ, PointerGetDatum(prefix));
    key[0].sk_collation = reg.collation;  // the index's order, not ScanKeyInit's C collation
    SysScanDesc scan = systable_beginscan(rel, index, true, snapshot, 1, key);
    HeapTuple row = systable_getnext(scan);
    text* owner = nullptr;
    if (HeapTupleIsValid(row)) {
        bool null_owner = true;
        const Datum d = heap_getattr(row, reg.owner, RelationGetDescr(rel), &null_owner);
        if (!null_owner) owner = DatumGetTextPCopy(d);
    }
    systable_endscan(scan);
    table_close(rel, NoLock);
    return owner;
}

// The prefixes gen_prefixed() found registered, per backend. What keeps it current:
//  * Every change to prefix_registry (INSERT, UPDATE, DELETE, TRUNCATE) sends a relcache
//    invalidation for the registry: ENABLE ALWAYS triggers (35_prefixed.sql), a row one
//    and a statement one, so they fire in replica mode too, which is how logical replication
//    applies rows (its apply worker fires row triggers only).
//  * The cache is used only while both triggers are there as that file creates them: at 0.2.0
//    (the library is upgraded before the extension) there are none, and ALTER TABLE can disable
//    them or make them ENABLE ORIGIN / REPLICA, which some sessions do not fire. Otherwise every
//    call reads the registry. Whether they are is read from the registry's relcache entry (its
//    triggers) and kept until the registry's next relcache invalidation: CREATE, DROP, ALTER,
//    ENABLE and DISABLE TRIGGER all send one.
//  * Every call holds AccessShareLock on the registry (registry() takes it once per transaction
//    and call site), and the first call of each command that could see a new commit (a new
//    statement, or a new snapshot taken after some transaction completed: statement_invalidations())
//    processes the queued invalidations (AcceptInvalidationMessages()) before it looks at the
//    cache: a prefix unregistered and committed by another session is refused from this session's
//    next statement on, and from the next command of a running READ COMMITTED function or
//    procedure, inside an open transaction too: READ COMMITTED's rule for a deleted row. The calls
//    of one command (one snapshot) do not each ask.
//    Invalidations processed for any other reason (a lock taken, a new transaction) reach the
//    cache at once. This session's own changes are seen from its next command, and forgotten on
//    rollback (the aborted (sub)transaction's invalidations are processed locally).
//  * The relcache callback forgets every entry, and the answer about the triggers, at once.
//    Nothing holds an entry across a point where invalidations can be processed: a hit is a
//    comparison, and an entry is added only after the reads that found the row and the triggers,
//    and only when no invalidation arrived during them.
//  * A miss reads the row with a fresh catalog snapshot, not the statement's or the transaction's:
//    the cache holds the latest committed state (and this transaction's earlier commands), the
//    state every invalidation refers to (an entry read with an older snapshot could outlive the
//    invalidation of a change it does not see). So, as for a permutation key, a prefix
//    unregistered by another session is refused at every isolation level, like a dropped object,
//    although a REPEATABLE READ snapshot still sees its row.
// The caller's SELECT privilege on the registry is checked on every call, hit or miss: on a hit
// from the privilege cache below (or the call site's memo of it).
constexpr int kKnownMax = 32;
struct KnownPrefix {
    std::uint8_t len;  // 0: free
    char prefix[idgen::kPrefixMaxLen];
};
enum class Trust : std::uint8_t { kUnknown, kYes, kNo };
struct Known {
    Oid relid;    // the registry the entries were read from
    Trust trust;  // whether the registry's triggers keep the entries current (kUnknown: not read yet)
    KnownPrefix entries[kKnownMax];
    int next;  // the entry replaced when all are taken (round robin)
};
Known g_known;
bool g_known_callback = false;
std::uint64_t g_known_generation = 0;  // bumped by every invalidation of the registry

// The last role found to have SELECT on the registry, for gen_prefixed()'s hits: what
// pg_class_aclcheck() answered, kept while nothing it read can have changed.
//  * Keyed by the role (GetUserId(): SET ROLE, SET SESSION AUTHORIZATION and SECURITY DEFINER
//    functions change it) and the registry, and only for the transaction it was found in
//    (g_lock_epoch, bumped at every transaction end and subtransaction abort).
//  * Forgotten at every invalidation of what the check reads: the registry's relcache entry (GRANT,
//    REVOKE, ALTER TABLE ... OWNER update its pg_class row), any role (pg_authid: superuser,
//    INHERIT, DROP ROLE) and any membership (pg_auth_members: GRANT/REVOKE role, which also decides
//    pg_read_all_data). Invalidations are processed at the start of every statement (see above),
//    so a REVOKE committed by another session is seen from this session's next statement, as a
//    query's own privilege check (at its start) would see it.
//  * Stored only when no invalidation arrived during the check; a refusal is never cached (it
//    raises, and the next call checks again).
struct AclOk {
    Oid user;
    Oid relid;
    std::uint64_t epoch;  // g_lock_epoch when found; 0: nothing cached
};
AclOk g_acl_ok{InvalidOid, InvalidOid, 0};
std::uint64_t g_acl_generation = 0;  // bumped by every invalidation that empties g_acl_ok

void acl_forget() {
    g_acl_ok = AclOk{InvalidOid, InvalidOid, 0};
    ++g_acl_generation;
}
void acl_on_syscache(Datum, int, uint32) { acl_forget(); }

void known_on_relcache(Datum, Oid relid) {
    if (relid == InvalidOid || relid == g_registry_relid) ++g_lock_epoch;
    if (relid == InvalidOid || relid == g_known.relid) {
        const Oid keep = g_known.relid;
        g_known = Known{};
        g_known.relid = keep;
        ++g_known_generation;
    }
    if (relid == InvalidOid || relid == g_acl_ok.relid) acl_forget();
}

// The caller's SELECT privilege on the registry, from the cache above when it holds the answer.
// Call only after this statement's invalidations were processed (statement_invalidations()).
void check_select_cached(const Registry& reg) {
    const Oid user = GetUserId();
    if (g_acl_ok.epoch == g_lock_epoch && g_acl_ok.user == user && g_acl_ok.relid == reg.relid) return;
    const std::uint64_t generation = g_acl_generation;
    const AclResult acl = pg_class_aclcheck(reg.relid, user, ACL_SELECT);
    if (acl != ACLCHECK_OK) aclcheck_error(acl, OBJECT_TABLE, get_rel_name(reg.relid));
    if (generation == g_acl_generation) g_acl_ok = AclOk{user, reg.relid, g_lock_epoch};
}

// Entries are taken in order and freed only all at once, so the first free one ends the search.
bool known_has(const char* data, std::size_t len) {
    for (const auto& e : g_known.entries) {
        if (e.len == 0) return false;
        if (e.len == len && std::memcmp(e.prefix, data, len) == 0) return true;
    }
    return false;
}

// Whether `t` calls the extension's prefix_registry_changed() (a C function in schema `extnsp`)
// AFTER `events` (TRIGGER_TYPE_* bits) for each row or statement, on every such change (no WHEN,
// no column list), and fires in every session (ENABLE ALWAYS).
bool sends_invalidation(const Trigger& t, Oid extnsp, bool row, int events) {
    if (t.tgenabled != TRIGGER_FIRES_ALWAYS || t.tgqual != nullptr || t.tgnattr != 0) return false;
    if (TRIGGER_FOR_ROW(t.tgtype) != row || !TRIGGER_FOR_AFTER(t.tgtype) || (t.tgtype & events) != events) return false;
    if (get_func_namespace(t.tgfoid) != extnsp || get_func_rettype(t.tgfoid) != TRIGGEROID) return false;
    char* name = get_func_name(t.tgfoid);
    const bool ours = name != nullptr && std::strcmp(name, "prefix_registry_changed") == 0;
    if (name != nullptr) pfree(name);
    return ours;
}

// Whether every change to the registry sends its relcache invalidation from every session: both
// triggers of 35_prefixed.sql are there, ENABLE ALWAYS. Read from a copy of the
// relcache entry's triggers (the caller holds the registry locked): sends_invalidation()'s catalog
// lookups can process invalidations, and one for the registry (any session's prefix_register()
// sends one) rebuilds its relcache entry and frees the trigdesc it had, as the executor's own
// CopyTriggerDesc() guards against. The copy is freed with the call's memory context should a
// lookup raise.
bool registry_triggers_always(const Registry& reg) {
    const Oid extnsp = idgen::pg::extension_schema();
    Relation rel = table_open(reg.relid, AccessShareLock);
    TriggerDesc* triggers = CopyTriggerDesc(rel->trigdesc);  // nullptr for none
    table_close(rel, NoLock);
    bool row = false, truncate = false;
    for (int i = 0; triggers != nullptr && i < triggers->numtriggers; ++i) {
        const Trigger& t = triggers->triggers[i];
        if (std::strcmp(t.tgname, "prefix_registry_row_changed") == 0)
            row = sends_invalidation(t, extnsp, true, TRIGGER_TYPE_INSERT | TRIGGER_TYPE_UPDATE | TRIGGER_TYPE_DELETE);
        else if (std::strcmp(t.tgname, "prefix_registry_changed") == 0)
            truncate = sends_invalidation(t, extnsp, false, TRIGGER_TYPE_TRUNCATE);
    }
    if (triggers != nullptr) FreeTriggerDesc(triggers);
    return row && truncate;
}

// Processes the queued invalidations once per command that could see a new commit (see above):
// the first call under a new statement (each query message), a new transaction (a new one may
// start within one message's timestamp), or a snapshot taken after some transaction completed
// (snapXactCompletionCount: a READ COMMITTED function takes a snapshot per command, so its next
// command sees a change committed meanwhile, as it sees a deleted row). Without an active
// snapshot the count reads as 0 and the statement and transaction decide alone.
TimestampTz g_inval_statement = 0;
std::uint64_t g_inval_epoch = 0;
std::uint64_t g_inval_completions = 0;
inline void statement_invalidations() {
    const TimestampTz statement = GetCurrentStatementStartTimestamp();
    const std::uint64_t completions = ActiveSnapshotSet() ? GetActiveSnapshot()->snapXactCompletionCount : 0;
    if (likely(statement == g_inval_statement && g_inval_epoch == g_lock_epoch && completions == g_inval_completions))
        return;
    AcceptInvalidationMessages();
    g_inval_statement = statement;
    g_inval_epoch = g_lock_epoch;
    g_inval_completions = completions;
}

// Whether a[0, len) equals b[0, len), for len <= 16 (a prefix): two overlapping loads of each
// instead of a call to memcmp().
inline bool short_equal(const char* a, const char* b, std::size_t len) {
    if (len >= 8) {
        std::uint64_t a0, a1, b0, b1;
        std::memcpy(&a0, a, 8), std::memcpy(&a1, a + len - 8, 8);
        std::memcpy(&b0, b, 8), std::memcpy(&b1, b + len - 8, 8);
        return ((a0 ^ b0) | (a1 ^ b1)) == 0;
    }
    if (len >= 4) {
        std::uint32_t a0, a1, b0, b1;
        std::memcpy(&a0, a, 4), std::memcpy(&a1, a + len - 4, 4);
        std::memcpy(&b0, b, 4), std::memcpy(&b1, b + len - 4, 4);
        return ((a0 ^ b0) | (a1 ^ b1)) == 0;
    }
    for (std::size_t i = 0; i < len; ++i)
        if (a[i] != b[i]) return false;
    return true;
}

// Whether the call site's memo answers for `data`, `len` as it stands (see HitMemo).
inline bool memo_hit(const Registry& reg, const char* data, std::size_t len) {
    const HitMemo& m = reg.hit;
    return m.len == len && m.known_generation == g_known_generation && m.acl_generation == g_acl_generation &&
           m.lock_epoch == g_lock_epoch && m.user == GetUserId() && short_equal(m.prefix, data, len);
}

// Whether `prefix` (data, len) is registered, for gen_prefixed(): from the cache (kCached: a
// valid prefix, checked before it was cached), or read and then cached (when the triggers keep
// the cache current and the prefix is valid; otherwise read on every call).
// kMemo: as kCached, and the call site's memo (reg.hit) holds these very bytes.
enum class Registered : std::uint8_t { kNo, kRead, kCached, kMemo };
Registered prefix_registered_cache(Registry& reg, text* prefix, const char* data, std::size_t len);
inline Registered prefix_registered(Registry& reg, text* prefix, const char* data, std::size_t len) {
    // The memo is set only after the callbacks below are registered.
    statement_invalidations();
    // The memo was taken with g_known.relid == reg.relid and trust kYes: any change to either
    // bumps g_known_generation (the relcache callback) or g_lock_epoch (registry() re-reads relid).
    if (likely(memo_hit(reg, data, len))) return Registered::kMemo;
    return prefix_registered_cache(reg, prefix, data, len);
}

// The invalidation callbacks of the caches below, registered once per backend by registry_locked().
void register_registry_callbacks() {
    if (!g_known_callback) {
        CacheRegisterRelcacheCallback(known_on_relcache, (Datum)0);
        CacheRegisterSyscacheCallback(AUTHOID, acl_on_syscache, (Datum)0);
        CacheRegisterSyscacheCallback(AUTHMEMROLEMEM, acl_on_syscache, (Datum)0);
        g_known_callback = true;
    }
}

// prefix_registered() without the call site's memo: the session's caches, or the registry.
pg_noinline Registered prefix_registered_cache(Registry& reg, text* prefix, const char* data, std::size_t len) {
    if (g_known.relid != reg.relid) {  // another registry (the extension was reinstalled)
        g_known = Known{};
        g_known.relid = reg.relid;
    }
    // No longer prefix can be registered (the registry's CHECK): refused as unregistered.
    if (len < 1 || len > idgen::kPrefixMaxLen) return Registered::kNo;
    if (g_known.trust == Trust::kYes && known_has(data, len)) {
        const std::uint64_t known_generation = g_known_generation;
        check_select_cached(reg);
        // Remembered only when the privilege check found its answer in (or put it into) the cache
        // and no invalidation arrived since the prefix cache was consulted.
        if (known_generation == g_known_generation && g_acl_ok.epoch == g_lock_epoch && g_acl_ok.user == GetUserId() &&
            g_acl_ok.relid == reg.relid) {
            HitMemo& m = reg.hit;
            m.known_generation = g_known_generation;
            m.acl_generation = g_acl_generation;
            m.lock_epoch = g_lock_epoch;
            m.user = GetUserId();
            std::memcpy(m.prefix, data, len);
            m.len = static_cast<std::uint8_t>(len);
            return Registered::kMemo;
        }
        return Registered::kCached;
    }
    // Read once. The answer serves this call whatever arrives meanwhile (a fresh catalog snapshot);
    // it is cached only when no invalidation of the registry arrived during the reads. (Reading
    // again until none did never ended where every catalog access resets the caches:
    // debug_discard_caches, or a stream of other sessions' registrations.)
    const std::uint64_t generation = g_known_generation;
    bool trusted = g_known.trust == Trust::kYes;
    if (g_known.trust == Trust::kUnknown) {
        trusted = registry_triggers_always(reg);
        if (generation == g_known_generation) g_known.trust = trusted ? Trust::kYes : Trust::kNo;
    }
    const bool found = registered_owner(reg, prefix, nullptr) != nullptr;  // the catalog snapshot: see above
    // Only a valid prefix is cached (the registry's CHECK says so, but a hit skips the format's check).
    if (found && trusted && generation == g_known_generation && g_known.relid == reg.relid && !known_has(data, len) &&
        idgen::prefix_valid(data, len)) {
        KnownPrefix* slot = nullptr;
        for (auto& e : g_known.entries)
            if (e.len == 0) {
                slot = &e;
                break;
            }
        if (slot == nullptr) {
            slot = &g_known.entries[g_known.next];
            g_known.next = (g_known.next + 1) % kKnownMax;
        }
        std::memcpy(slot->prefix, data, len);
        slot->len = static_cast<std::uint8_t>(len);
    }
    return found ? Registered::kRead : Registered::kNo;
}

}  // namespace

// prefixed_format(prefix text, id uuid [, body text]) -> text
IDGEN_FUNCTION(prefixed_format) {
    const TextArg prefix = arg_text(fcinfo, 0);
    const auto* id = reinterpret_cast<const pg_uuid_t*>(PG_GETARG_POINTER(1));
    const idgen::PrefixedBody body = body_arg(fcinfo, 2);
    text* out = static_cast<text*>(palloc(VARHDRSZ + idgen::kPrefixedMaxLen));
    auto n = idgen::prefixed_format(prefix.data, prefix.len, id->data, VARDATA(out), body);
    if (!n) {
        return failure.fail(n.error(), kType, prefix.data, prefix.len);
    }
    SET_VARSIZE(out, VARHDRSZ + *n);
    PG_RETURN_TEXT_P(out);
}

// prefixed_parse(expected_prefix text, value text [, body text]) -> uuid
IDGEN_FUNCTION(prefixed_parse) {
    const TextArg expected = arg_text(fcinfo, 0);
    const TextArg value = arg_text(fcinfo, 1);
    const idgen::PrefixedBody body = body_arg(fcinfo, 2);
    auto* out = static_cast<pg_uuid_t*>(palloc(UUID_LEN));
    if (!idgen::prefix_valid(expected.data, expected.len)) {
        return failure.fail(idgen::Error::kInvalidPrefix, kType, expected.data, expected.len);
    }
    auto parsed = idgen::prefixed_parse(value.data, value.len, body);
    if (!parsed) return failure.fail(parsed.error(), kType, value.data, value.len);
    if (parsed->prefix_len != expected.len || std::memcmp(parsed->prefix, expected.data, expected.len) != 0) {
        // Both prefixes are valid (at most 16 ASCII characters) and the value parsed, so it is at
        // most kPrefixedMaxLen ASCII characters: the message fits.
        char message[256];
        snprintf(message, sizeof message, "expected prefix \"%.*s\", found \"%.*s\" in \"%.*s\"",
                 static_cast<int>(expected.len), expected.data, static_cast<int>(parsed->prefix_len), parsed->prefix,
                 static_cast<int>(value.len), value.data);
        return failure.fail(idgen::Error::kWrongPrefix, kType, message);
    }
    std::memcpy(out->data, parsed->id, UUID_LEN);
    PG_RETURN_UUID_P(out);
}

// prefixed_split(value text [, body text], OUT prefix text, OUT id uuid) -> record
IDGEN_FUNCTION(prefixed_split) {
    const TextArg value = arg_text(fcinfo, 0);
    const idgen::PrefixedBody body = body_arg(fcinfo, 1);
    TupleDesc tupdesc;
    if (get_call_result_type(fcinfo, nullptr, &tupdesc) != TYPEFUNC_COMPOSITE)
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("prefixed_split must return a record")));
    tupdesc = BlessTupleDesc(tupdesc);
    auto* id = static_cast<pg_uuid_t*>(palloc(UUID_LEN));
    auto parsed = idgen::prefixed_parse(value.data, value.len, body);
    if (!parsed) {
        return failure.fail(parsed.error(), kType, value.data, value.len);
    }
    std::memcpy(id->data, parsed->id, UUID_LEN);
    Datum values[2] = {PointerGetDatum(cstring_to_text_with_len(parsed->prefix, parsed->prefix_len)),
                       UUIDPGetDatum(id)};
    bool nulls[2] = {false, false};
    return HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls));
}

// gen_prefixed(prefix text [, body text]) -> text: a new UUIDv7 of the backend's generator as
// prefixed text, for a registered prefix only (the cache above).
IDGEN_FUNCTION(gen_prefixed) {
    // PG_GETARG_TEXT_PP(0) without its call when the argument is not compressed or out of line.
    auto* raw = reinterpret_cast<varlena*>(DatumGetPointer(PG_GETARG_DATUM(0)));
    text* prefix = VARATT_IS_COMPRESSED(raw) || VARATT_IS_EXTERNAL(raw) ? pg_detoast_datum_packed(raw) : raw;
    const idgen::PrefixedBody body = body_arg(fcinfo, 1);
    Registry& reg = registry(fcinfo, "gen_prefixed()");
    const TextArg p{VARDATA_ANY(prefix), VARSIZE_ANY_EXHDR(prefix)};
    const Registered registered = prefix_registered(reg, prefix, p.data, p.len);
    if (registered == Registered::kNo)
        ereport(ERROR,
                (errcode(ERRCODE_UNDEFINED_OBJECT), errmsg("prefix \"%s\" is not registered", text_to_cstring(prefix)),
                 errhint("Register it first with prefix_register(prefix, owner).")));
    text* out = static_cast<text*>(palloc(VARHDRSZ + idgen::kPrefixedMaxLen));
    auto id = idgen::pg::next_uuidv7();
    if (!id) return failure.fail(id.error(), "uuid", "the clock is past the year 2262");
    std::size_t n;
    if (registered == Registered::kMemo) {  // the memo holds these very bytes, in a 16-byte buffer
        n = idgen::prefixed_format_padded(reg.hit.prefix, p.len, idgen::load_be128(id->bytes), VARDATA(out), body);
    } else if (registered == Registered::kCached) {
        n = idgen::prefixed_format_valid(p.data, p.len, id->bytes, VARDATA(out), body);
    } else {
        auto checked = idgen::prefixed_format(p.data, p.len, id->bytes, VARDATA(out), body);
        if (!checked) return failure.fail(checked.error(), kType, p.data, p.len);
        n = *checked;
    }
    SET_VARSIZE(out, VARHDRSZ + n);
    PG_RETURN_TEXT_P(out);
}

// prefix_owner(prefix text) -> text: the entity a prefix is registered for, NULL if none.
IDGEN_FUNCTION(prefix_owner) {
    text* prefix = PG_GETARG_TEXT_PP(0);
    text* owner = registered_owner(registry(fcinfo, "prefix_owner()"), prefix, GetActiveSnapshot());
    if (owner == nullptr) PG_RETURN_NULL();
    PG_RETURN_TEXT_P(owner);
}

// prefix_register(prefix text, owner text) -> void. The insert is the extension's SQL function
// prefix_registry_insert(), whose body names the registry by OID (BEGIN ATOMIC), called by OID:
// it keeps the privileges, constraints and ON CONFLICT of SQL. When the prefix is taken, the
// error names its owner; when that row went away in between, it tries again.
IDGEN_FUNCTION(prefix_register) {
    if (PG_ARGISNULL(0)) return failure.fail(idgen::Error::kInvalidPrefix, kType, "<NULL>");
    text* prefix = PG_GETARG_TEXT_PP(0);
    const TextArg p{VARDATA_ANY(prefix), VARSIZE_ANY_EXHDR(prefix)};
    if (!idgen::prefix_valid(p.data, p.len)) return failure.fail(idgen::Error::kInvalidPrefix, kType, p.data, p.len);
    if (PG_ARGISNULL(1) || VARSIZE_ANY_EXHDR(PG_GETARG_TEXT_PP(1)) == 0)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("the owner of prefix \"%s\" must be a non-empty name", text_to_cstring(prefix)),
                        errhint("Name the entity the prefix is for, e.g. the table.")));
    text* owner = PG_GETARG_TEXT_PP(1);
    Registry& reg = registry(fcinfo, "prefix_register()");
    if (!OidIsValid(reg.insert_fn)) {
        const Oid args[2] = {TEXTOID, TEXTOID};
        reg.insert_fn = idgen::pg::extension_function("prefix_registry_insert", 2, args, "prefix_register()");
    }
    for (;;) {
        CHECK_FOR_INTERRUPTS();
        if (DatumGetBool(OidFunctionCall2Coll(reg.insert_fn, DEFAULT_COLLATION_OID, PointerGetDatum(prefix),
                                              PointerGetDatum(owner))))
            PG_RETURN_VOID();
        // Taken: a new snapshot (as a following statement would have) sees the row in the way.
        Snapshot snapshot = RegisterSnapshot(GetTransactionSnapshot());
        text* existing = registered_owner(reg, prefix, snapshot);
        UnregisterSnapshot(snapshot);
        if (existing != nullptr)
            ereport(ERROR,
                    (errcode(ERRCODE_DUPLICATE_OBJECT), errmsg("prefix \"%s\" is already registered for \"%s\"",
                                                               text_to_cstring(prefix), text_to_cstring(existing))));
        // The conflicting row was unregistered in between: try again.
    }
}

// Trigger on prefix_registry (for each row, and for each statement for TRUNCATE): every backend
// forgets its cached prefixes when it processes the invalidation.
IDGEN_FUNCTION(prefix_registry_changed) {
    if (!CALLED_AS_TRIGGER(fcinfo)) elog(ERROR, "prefix_registry_changed() must be called as a trigger");
    auto* td = reinterpret_cast<TriggerData*>(fcinfo->context);
    CacheInvalidateRelcache(td->tg_relation);
    return PointerGetDatum(nullptr);
}
