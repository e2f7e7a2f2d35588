// id_gen: IDs that look random — a keyed permutation of [1, N] (NIST FF1 over AES,
// src/core/permute/ff1.h).
//
//   id_permute(value, key [, tweak])    the value's image under the key (and tweak)
//   id_unpermute(value, key [, tweak])  its inverse
//
// Keys live in the configuration table permute_keys (56_permute.sql): 16 bytes (AES-128) from the server's
// CSPRNG, a domain N and a default tweak, readable by superusers only. These functions read the
// table directly (found by OID through the extension, never by name), without a privilege check
// of the caller: EXECUTE on them is what grants the use of the keys.
//
// Per backend, a small cache holds for each recently used key its OpenSSL context (the expanded AES
// key), its AES-NI round keys where the CPU has the instructions (src/core/permute/aes_ni.h: the
// ten AES blocks of a value run inlined, with the round keys in registers; OpenSSL is the fallback,
// and id_gen.permute_aes_ni = off forces it, for tests) and its FF1 plan for the default tweak (the
// CBC-MAC state after FF1's block P and the tweak), plus the plan of the last other tweak used with
// it. With AES-NI, a value that follows the one asked for before, outside the last run permuted,
// starts a new run: its image and those of the next kRun - 1 values, made together (a sequence asks
// for them next). What keeps it current is described at the cache (g_slots) below; a run lives in
// its slot and goes with it.
#include <cstdint>
#include <cstring>

#include "core/permute/aes_evp.h"
#include "core/permute/aes_ni.h"
#include "core/permute/ff1.h"
#include "pg/base/boundary.h"
#include "pg/base/extension.h"
#include "pg/registries/permute.h"

extern "C" {
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/skey.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "miscadmin.h"
#include "port.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
}

namespace {

namespace ff1 = idgen::ff1;

constexpr int kSlots = 16;
constexpr int kNameMax = 63;
constexpr std::size_t kKeyBytes = 16;  // AES-128

// The images of a run of consecutive values under one plan, made together (aes_ni.h's
// permute_consecutive(): little more than the time of one value) when the value asked for
// follows the one before but lies outside the run: a sequence feeding id_permute() asks for the
// next values in order. Values out of order are permuted one by one.
struct Ahead {
    unsigned n;  // 0: empty
    bool forward;
    std::uint64_t first;
    std::uint64_t out[idgen::aes_ni::kRun];
    std::uint64_t next;  // the value after the last one asked for (0: none), in direction next_forward
    bool next_forward;
};

struct Slot {
    bool used;
    int name_len;
    char name[kNameMax];
    EVP_CIPHER_CTX* ctx;
    bool has_ni;  // ni holds the key's round keys (the CPU has AES-NI)
    idgen::aes_ni::Key ni;
    ff1::DomainPlan plan;  // the key's default tweak
    int tweak_len;
    char tweak[ff1::kMaxTweak];
    bool has_other;  // the plan of the last other tweak used with this key
    int other_len;
    char other[ff1::kMaxTweak];
    ff1::DomainPlan other_plan;
    Ahead ahead, other_ahead;  // of plan and other_plan (AES-NI only)
    std::uint64_t last_use;
};

struct Table {
    Oid relid;
    AttrNumber name, key, domain, tweak;
};

// The cache: what makes it current.
//  * Every change to permute_keys (INSERT, UPDATE, DELETE, TRUNCATE) sends a relcache invalidation
//    for the table: ENABLE ALWAYS triggers (56_permute.sql), a row one and a statement
//    one, so they fire in replica mode too, which is how logical replication applies rows (its
//    apply worker fires row triggers only). TRUNCATE also sends one of its own.
//  * Every call of the permutation processes the queued invalidations first
//    (AcceptInvalidationMessages(): a read of one shared flag when nothing is queued), so a change
//    committed by another session is seen from this session's next call on, even inside an open
//    transaction that already holds the table's lock (a lock taken again processes nothing).
//    This session's own changes are seen from its next command, and forgotten on rollback (the
//    aborted (sub)transaction's invalidations are processed locally).
//  * The relcache callback wipes the whole cache at once (explicit_bzero, the EVP context freed,
//    which OpenSSL clears): the key material of a deleted key leaves the backend when the deletion
//    is processed, not at the next call. Hence nobody may hold a Slot& across a point where
//    invalidations can be processed (a lock, a catalog access, a detoast): run() fetches its
//    arguments before lookup(), and lookup() picks a slot only after its scan.
//  * A miss reads the row with a fresh catalog snapshot, not the statement's or the transaction's:
//    the cache holds the latest committed state (and this transaction's earlier commands), the
//    state every invalidation refers to. An entry read with an older snapshot could outlive the
//    invalidation of a change it does not see. So a key deleted by another session is refused
//    from the next call on at every isolation level, like a dropped object: in REPEATABLE READ
//    and SERIALIZABLE too, although the transaction's snapshot still sees the row.
Slot g_slots[kSlots];
Table g_table;
bool g_callback = false;
std::uint64_t g_clock = 0;
std::uint64_t g_generation = 0;  // bumped by every invalidation of the table
bool g_use_aes_ni = true;        // id_gen.permute_aes_ni

void forget_all() noexcept {
    for (auto& s : g_slots) {
        if (s.used) idgen::aes::context_free(s.ctx);
        explicit_bzero(&s, sizeof s);
    }
    g_table = Table{};
}

// A relcache callback: it must not raise, and runs wherever invalidations are processed.
void on_relcache(Datum, Oid relid) {
    if (relid == InvalidOid || relid == g_table.relid) {
        forget_all();
        ++g_generation;
    }
}

[[noreturn]] void table_missing(const char* what) {
    ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                    errmsg("the id_gen permutation key table is missing or damaged: %s", what),
                    errhint("Update the extension (ALTER EXTENSION id_gen UPDATE) or reinstall it.")));
}

Table key_table() {
    if (!g_callback) {
        CacheRegisterRelcacheCallback(on_relcache, (Datum)0);
        g_callback = true;
    }
    if (OidIsValid(g_table.relid)) return g_table;
    const Oid nsp = idgen::pg::extension_schema();
    if (!OidIsValid(nsp))
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("the id_gen extension is not installed in this database")));
    // A member of the extension: nobody else can drop, rename or replace it.
    const Oid relid = idgen::pg::extension_table("permute_keys", nsp);
    if (!OidIsValid(relid)) table_missing("permute_keys");
    Table t{};
    t.relid = relid;
    const char* names[] = {"name", "key", "domain", "tweak"};
    const Oid types[] = {TEXTOID, BYTEAOID, INT8OID, TEXTOID};
    AttrNumber* atts[] = {&t.name, &t.key, &t.domain, &t.tweak};
    for (int c = 0; c < 4; ++c) {
        *atts[c] = get_attnum(relid, names[c]);
        if (*atts[c] == InvalidAttrNumber || get_atttype(relid, *atts[c]) != types[c]) table_missing(names[c]);
    }
    g_table = t;
    return g_table;
}

[[noreturn]] void key_missing(const text* name) {
    ereport(ERROR,
            (errcode(ERRCODE_UNDEFINED_OBJECT), errmsg("permutation key \"%s\" does not exist", text_to_cstring(name)),
             errhint("A superuser creates it with SELECT id_permute_key('%s'); keys are never passed as literals.",
                     text_to_cstring(name))));
}

// The row of a key as read from permute_keys. Trivially destructible (it lives across calls that
// can raise); the caller wipes `key`.
struct Row {
    bool found, bad;
    std::uint8_t key[kKeyBytes];
    char tweak[ff1::kMaxTweak];
    int tweak_len;
    std::int64_t domain;
};

// Reads key `name` through the primary key with a fresh catalog snapshot (see the cache's comment).
// Only trivially destructible locals live across these calls (they can raise).
void read_row(const text* name, Row* out) {
    const Table t = key_table();  // a copy: an invalidation during the scan resets g_table
    Relation rel = table_open(t.relid, AccessShareLock);
    const Oid pkey = IDGEN_PRIMARY_KEY_INDEX(rel);
    if (!OidIsValid(pkey)) table_missing("the primary key of permute_keys");
    ScanKeyData sk[1];
    ScanKeyInit(&sk[0], t.name, BTEqualStrategyNumber, F_TEXTEQ, PointerGetDatum(name));
    sk[0].sk_collation = C_COLLATION_OID;
    // No snapshot given: systable_beginscan takes the catalog snapshot, always a new one for a
    // table other than a catalog, after the locks (and their invalidations) of the scan.
    SysScanDesc scan = systable_beginscan(rel, pkey, true, nullptr, 1, sk);
    HeapTuple row = systable_getnext(scan);
    if (HeapTupleIsValid(row)) {
        out->found = true;
        TupleDesc desc = RelationGetDescr(rel);
        bool null_key = true, null_domain = true, null_tweak = true;
        const Datum k = heap_getattr(row, t.key, desc, &null_key);
        const Datum d = heap_getattr(row, t.domain, desc, &null_domain);
        const Datum w = heap_getattr(row, t.tweak, desc, &null_tweak);
        if (null_key || null_domain || null_tweak) {
            out->bad = true;
        } else {
            text* wt = DatumGetTextPP(w);  // before the key is detoasted: it can raise
            bytea* kb = DatumGetByteaPP(k);
            out->domain = DatumGetInt64(d);
            out->tweak_len = static_cast<int>(VARSIZE_ANY_EXHDR(wt));
            if (VARSIZE_ANY_EXHDR(kb) != kKeyBytes || out->tweak_len > static_cast<int>(ff1::kMaxTweak) ||
                out->domain < static_cast<std::int64_t>(ff1::kMinDomain)) {
                out->bad = true;
            } else {
                std::memcpy(out->key, VARDATA_ANY(kb), kKeyBytes);
                std::memcpy(out->tweak, VARDATA_ANY(wt), out->tweak_len);
            }
            if (reinterpret_cast<Pointer>(kb) != DatumGetPointer(k)) {
                explicit_bzero(kb, VARSIZE_ANY(kb));
                pfree(kb);
            }
        }
    }
    systable_endscan(scan);
    table_close(rel, NoLock);
}

// The slot of key `name`, loaded from permute_keys on a miss. Raises 42704 for an unknown key.
// The reference is good until invalidations are next processed (see the cache's comment).
Slot& lookup(const text* name) {
    AcceptInvalidationMessages();
    const int len = static_cast<int>(VARSIZE_ANY_EXHDR(name));
    const char* data = VARDATA_ANY(name);
    for (auto& s : g_slots) {
        if (s.used && s.name_len == len && std::memcmp(s.name, data, len) == 0) {
            s.last_use = ++g_clock;
            return s;
        }
    }
    if (len < 1 || len > kNameMax) key_missing(name);

    // Read once. The row (a fresh catalog snapshot) serves this call whatever arrives meanwhile; the
    // slot is found again by later calls only when no invalidation of the table arrived during the
    // read. (Reading again until none did never ended where every catalog access resets the caches:
    // debug_discard_caches, or a stream of other sessions' key changes.)
    Row r;
    explicit_bzero(&r, sizeof r);
    const std::uint64_t generation = g_generation;
    read_row(name, &r);
    const bool cacheable = generation == g_generation;
    if (!r.found) key_missing(name);
    if (r.bad) {
        explicit_bzero(&r, sizeof r);
        ereport(ERROR,
                (errcode(ERRCODE_DATA_CORRUPTED), errmsg("permutation key \"%s\" is damaged", text_to_cstring(name)),
                 errdetail("A key is 16 bytes with a domain of at least 1000000 and a tweak of at most 256 bytes.")));
    }

    // Evict the least recently used slot.
    Slot* slot = &g_slots[0];
    for (auto& s : g_slots) {
        if (!s.used) {
            slot = &s;
            break;
        }
        if (s.last_use < slot->last_use) slot = &s;
    }
    if (slot->used) idgen::aes::context_free(slot->ctx);
    explicit_bzero(slot, sizeof *slot);
    EVP_CIPHER_CTX* ctx = idgen::aes::context_new(r.key, kKeyBytes);
    slot->has_ni = ctx != nullptr && idgen::aes_ni::expand_key(r.key, kKeyBytes, &slot->ni);
    explicit_bzero(r.key, sizeof r.key);
    if (ctx == nullptr)
        ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY),
                        errmsg("could not set up AES for permutation key \"%s\"", text_to_cstring(name))));
    if (ff1::make_domain_plan(idgen::aes::block_cipher(ctx), reinterpret_cast<const std::uint8_t*>(r.tweak),
                              r.tweak_len, static_cast<std::uint64_t>(r.domain), &slot->plan) != idgen::Error::kOk) {
        idgen::aes::context_free(ctx);
        explicit_bzero(slot, sizeof *slot);
        elog(ERROR, "id_gen: no FF1 plan for permutation key \"%s\"", text_to_cstring(name));
    }
    slot->ctx = ctx;
    // An uncached slot matches no name (a name has at least one byte) and is the first evicted; the
    // next invalidation wipes it like any other.
    slot->name_len = cacheable ? len : -1;
    std::memcpy(slot->name, data, len);
    slot->tweak_len = r.tweak_len;
    std::memcpy(slot->tweak, r.tweak, r.tweak_len);
    slot->last_use = cacheable ? ++g_clock : 0;
    slot->used = true;
    return *slot;
}

// The plan of `slot`'s key with `tweak`: the default one, the last other one, or a new one.
const ff1::DomainPlan& plan_for(Slot& slot, const text* tweak) {
    const int len = static_cast<int>(VARSIZE_ANY_EXHDR(tweak));
    const char* data = VARDATA_ANY(tweak);
    if (len == slot.tweak_len && std::memcmp(data, slot.tweak, len) == 0) return slot.plan;
    if (slot.has_other && len == slot.other_len && std::memcmp(data, slot.other, len) == 0) return slot.other_plan;
    if (len > static_cast<int>(ff1::kMaxTweak))
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("a permutation tweak is at most 256 bytes"),
                        errdetail("The tweak given is %d bytes long.", len)));
    if (ff1::make_domain_plan(idgen::aes::block_cipher(slot.ctx), reinterpret_cast<const std::uint8_t*>(data), len,
                              slot.plan.domain, &slot.other_plan) != idgen::Error::kOk)
        elog(ERROR, "id_gen: no FF1 plan for a permutation tweak");
    std::memcpy(slot.other, data, len);
    slot.other_len = len;
    slot.has_other = true;
    explicit_bzero(&slot.other_ahead, sizeof slot.other_ahead);  // of the tweak replaced
    return slot.other_plan;
}

// The image of x (in [1, plan.domain]) from the run made ahead, from a new run when x follows
// the value asked for before, or alone.
idgen::Result<std::uint64_t> from_run(Ahead& ahead, const idgen::aes_ni::Key& key, const ff1::DomainPlan& plan,
                                      std::uint64_t x, bool forward) noexcept {
    const bool in_order = ahead.next == x && ahead.next_forward == forward;
    ahead.next = x + 1;
    ahead.next_forward = forward;
    if (ahead.n != 0 && ahead.forward == forward && x >= ahead.first && x - ahead.first < ahead.n)
        return ahead.out[x - ahead.first];
    if (!in_order) return forward ? idgen::aes_ni::permute(key, plan, x) : idgen::aes_ni::unpermute(key, plan, x);
    const std::uint64_t left = plan.domain - x + 1;
    const unsigned n = left < idgen::aes_ni::kRun ? static_cast<unsigned>(left) : idgen::aes_ni::kRun;
    ahead.n = 0;
    if (const idgen::Error e = idgen::aes_ni::permute_consecutive(key, plan, x, n, forward, ahead.out);
        e != idgen::Error::kOk)
        return e;
    ahead.n = n;
    ahead.forward = forward;
    ahead.first = x;
    return ahead.out[0];
}

Datum run(FunctionCallInfo fcinfo, bool forward) {
    const std::int64_t value = PG_GETARG_INT64(0);
    const text* name = PG_GETARG_TEXT_PP(1);
    // Every argument is fetched (detoasted: that can process invalidations) before lookup().
    const text* tweak = PG_NARGS() > 2 ? PG_GETARG_TEXT_PP(2) : nullptr;
    Slot& slot = lookup(name);
    const ff1::DomainPlan& plan = tweak != nullptr ? plan_for(slot, tweak) : slot.plan;
    if (value < 1 || static_cast<std::uint64_t>(value) > plan.domain)
        ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
                        errmsg("value %lld is out of range for permutation key \"%s\"", static_cast<long long>(value),
                               text_to_cstring(name)),
                        errdetail("The key permutes the integers from 1 to %llu.",
                                  static_cast<unsigned long long>(plan.domain))));
    const auto x = static_cast<std::uint64_t>(value);
    idgen::Result<std::uint64_t> r = idgen::Error::kNoOutcome;
    if (slot.has_ni && g_use_aes_ni) {
        r = from_run(&plan == &slot.plan ? slot.ahead : slot.other_ahead, slot.ni, plan, x, forward);
    } else {
        const auto aes = idgen::aes::block_cipher(slot.ctx);
        r = forward ? ff1::permute(aes, plan, x) : ff1::unpermute(aes, plan, x);
    }
    if (!r.ok()) elog(ERROR, "id_gen: permutation failed");
    PG_RETURN_INT64(static_cast<std::int64_t>(*r));
}

}  // namespace

namespace idgen::pg {

void permute_define_settings() {
    DefineCustomBoolVariable(
        "id_gen.permute_aes_ni", "Testing only: id_permute() uses the CPU's AES-NI instructions where it has them.",
        "Off: AES from OpenSSL, the path taken on CPUs without AES-NI; the values are "
        "the same, only slower.",
        &g_use_aes_ni, true, PGC_SUSET, GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE, nullptr, nullptr, nullptr);
}

}  // namespace idgen::pg

// id_permute(value bigint, name text [, tweak text]) -> bigint
IDGEN_FUNCTION(id_permute) { return run(fcinfo, true); }

// id_unpermute(value bigint, name text [, tweak text]) -> bigint
IDGEN_FUNCTION(id_unpermute) { return run(fcinfo, false); }

// id_permute_new_key() -> bytea: 16 bytes from the server's CSPRNG (for id_permute_key()).
IDGEN_FUNCTION(id_permute_new_key) {
    bytea* out = static_cast<bytea*>(palloc(VARHDRSZ + kKeyBytes));
    SET_VARSIZE(out, VARHDRSZ + kKeyBytes);
    if (!pg_strong_random(VARDATA(out), kKeyBytes))
        ereport(ERROR, (errcode(ERRCODE_SYSTEM_ERROR), errmsg("could not generate a random permutation key")));
    PG_RETURN_BYTEA_P(out);
}

// Trigger on permute_keys (for each row, and for each statement for TRUNCATE): every backend
// forgets its cached keys when it processes the invalidation.
IDGEN_FUNCTION(id_permute_keys_changed) {
    if (!CALLED_AS_TRIGGER(fcinfo)) elog(ERROR, "id_permute_keys_changed() must be called as a trigger");
    auto* td = reinterpret_cast<TriggerData*>(fcinfo->context);
    CacheInvalidateRelcache(td->tg_relation);
    return PointerGetDatum(nullptr);
}
