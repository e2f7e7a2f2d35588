// id_gen: correlation IDs in the server.
//
//  * The setting id_gen.correlation_id (user-settable: per session, per transaction with SET
//    LOCAL, per role or database, in the connection's options), checked by a hook against the
//    core's rule (1 to 128 of [A-Za-z0-9-_.:/+=@]); "" means none.
//  * correlation_id() returns it, or makes a fresh one (a UUIDv7 from the backend's CSPRNG-fed
//    generator) and sets it for the rest of the transaction (SET LOCAL).
//  * correlation_extend(): children by counter, from a table of per-parent counters in shared
//    memory (preloaded, or the DSM registry on 17+), else per backend with a random tag; or by a
//    random suffix.
//  * correlation_replace(), correlation_combine(), correlation_from_traceparent(): change the
//    current ID and write the two linking LOG lines.
//  * A log hook (installed whenever the library is loaded; while preloading it sees every line of
//    every backend) adds " [corr_id=<current>]" at the end of the first line of each message that
//    goes to the server log, and neutralises the marker in the session's own text (see
//    core/requests/correlation.h), so that no line looks tagged with an ID it was not written
//    under.
//  * traceparent_parse(), traceparent_valid(), traceparent_child(): W3C Trace Context.
#include "pg/requests/correlation.h"

#include <cstdint>
#include <cstring>

#include "core/base/clock.h"
#include "core/base/entropy.h"
#include "core/requests/correlation.h"
#include "core/requests/traceparent.h"
#include "pg/base/boundary.h"
#include "pg/generators/backend_entropy.h"
#include "pg/types/uuidv7_sequence.h"

extern "C" {
#include "access/htup_details.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/memutils.h"
}

namespace {

constexpr const char* kSetting = "id_gen.correlation_id";
constexpr const char* kIdRule = "A correlation ID is 1 to 128 characters: ASCII letters, digits and - _ . : / + = @.";

// The linking lines. The log hook recognizes them by their format string (message_id) and adds
// no tag of its own: they carry both IDs already.
constexpr char kReplacingFmt[] = "Replacing correlation id [corr_id=%s] [new_corr_id=%s]";
constexpr char kReplacedFmt[] = "Replaced correlation id [corr_id=%s] [old_corr_id=%s]";

char* g_correlation_id = nullptr;  // the setting's value, maintained by guc.c

using IdBuf = char[idgen::kCorrelationIdMaxLen + 1];

// ---------------------------------------------------------------------------------------------
// The setting.

bool check_correlation_id(char** newval, void** /*extra*/, GucSource /*source*/) {
    const char* v = *newval;
    if (v == nullptr || v[0] == '\0') return true;
    const std::size_t n = std::strlen(v);
    const idgen::CorrelationIdCheck c = idgen::correlation_id_check(v, n);
    if (c.problem == idgen::CorrelationIdProblem::kNone) return true;
    // PostgreSQL's own message would repeat the value as given (control characters and all) in
    // the server log: show it escaped instead.
    char shown[300];
    idgen::correlation_escape(v, n, shown, sizeof shown);
    GUC_check_errcode(ERRCODE_INVALID_PARAMETER_VALUE);
    GUC_check_errmsg("invalid value for parameter \"%s\": \"%s\"", kSetting, shown);
    if (c.problem == idgen::CorrelationIdProblem::kTooLong)
        GUC_check_errdetail("It is %zu characters long.", n);
    else
        GUC_check_errdetail("Character %zu (\\x%02x) is not allowed.", c.position + 1,
                            static_cast<unsigned>(static_cast<unsigned char>(v[c.position])));
    GUC_check_errhint("%s", kIdRule);
    return false;
}

// The current ID (length 0 when none) copied into buf.
std::size_t current_id(char* buf) noexcept {
    const char* v = g_correlation_id;
    std::size_t n = v == nullptr ? 0 : strnlen(v, idgen::kCorrelationIdMaxLen + 1);
    if (n > idgen::kCorrelationIdMaxLen || !idgen::correlation_id_valid(v, n)) n = 0;  // never: the hook checked it
    if (n > 0) std::memcpy(buf, v, n);
    buf[n] = '\0';
    return n;
}

void set_current(const char* id, bool is_local) {
    (void)set_config_option(kSetting, id, PGC_USERSET, PGC_S_SESSION, is_local ? GUC_ACTION_LOCAL : GUC_ACTION_SET,
                            true, 0, false);
}

[[noreturn]] void raise_entropy() {
    ereport(ERROR, (errcode(ERRCODE_SYSTEM_ERROR),
                    errmsg("could not read random bytes from the kernel for a correlation ID")));
    pg_unreachable();
}

// The current ID; when there is none, a fresh one (the text of a new UUIDv7), set for the rest of
// the transaction. Returns its length.
std::size_t current_or_fresh(char* buf) {
    std::size_t n = current_id(buf);
    if (n > 0) return n;
    auto u = idgen::pg::next_uuidv7();
    if (!u) raise_entropy();
    const std::uint8_t* b = u->bytes;
    char* w = buf;
    idgen::hex_lower(b, 4, w);
    w += 8;
    *w++ = '-';
    idgen::hex_lower(b + 4, 2, w);
    w += 4;
    *w++ = '-';
    idgen::hex_lower(b + 6, 2, w);
    w += 4;
    *w++ = '-';
    idgen::hex_lower(b + 8, 2, w);
    w += 4;
    *w++ = '-';
    idgen::hex_lower(b + 10, 6, w);
    w += 12;
    *w = '\0';
    set_current(buf, true);
    return static_cast<std::size_t>(w - buf);
}

// 22P02 for an argument that is not a correlation ID, with the value escaped.
[[noreturn]] void raise_bad_id(const char* what, const char* s, std::size_t n) {
    const idgen::CorrelationIdCheck c = idgen::correlation_id_check(s, n);
    char shown[300];
    idgen::correlation_escape(s, n, shown, sizeof shown);
    if (c.problem == idgen::CorrelationIdProblem::kEmpty)
        ereport(ERROR, (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
                        errmsg("invalid input syntax for type %s: \"\"", what), errhint("%s", kIdRule)));
    if (c.problem == idgen::CorrelationIdProblem::kTooLong)
        ereport(ERROR, (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
                        errmsg("invalid input syntax for type %s: \"%s\"", what, shown),
                        errdetail("It is %zu characters long.", n), errhint("%s", kIdRule)));
    ereport(ERROR, (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
                    errmsg("invalid input syntax for type %s: \"%s\"", what, shown),
                    errdetail("Character %zu (\\x%02x) is not allowed.", c.position + 1,
                              static_cast<unsigned>(static_cast<unsigned char>(s[c.position]))),
                    errhint("%s", kIdRule)));
    pg_unreachable();
}

// 22003: the result of extending or combining would be longer than 128 characters.
[[noreturn]] void raise_too_long(const char* s, std::size_t n, const char* how) {
    char shown[300];
    idgen::correlation_escape(s, n, shown, sizeof shown);
    ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
                    errmsg("value \"%s\" is out of range for type correlation ID", shown),
                    errdetail("%s would be longer than 128 characters.", how)));
    pg_unreachable();
}

// Maps a core error of a child or combination to the right SQL error.
[[noreturn]] void raise_derive_error(idgen::Error e, const char* s, std::size_t n, const char* how) {
    if (e == idgen::Error::kOutOfRange) raise_too_long(s, n, how);
    if (e == idgen::Error::kEntropyFailure) raise_entropy();
    raise_bad_id("correlation ID", s, n);
}

// Replaces the current ID by `id` (valid), writing the linking lines when there was another one.
void replace_current(const char* id, bool is_local) {
    IdBuf old;
    const std::size_t n = current_id(old);
    if (n == 0 || std::strcmp(old, id) == 0) {
        set_current(id, is_local);
        return;
    }
    ereport(LOG, (errmsg(kReplacingFmt, old, id)));
    set_current(id, is_local);
    ereport(LOG, (errmsg(kReplacedFmt, id, old)));
}

struct TextArg {
    const char* data;
    std::size_t len;
};

TextArg arg_text(FunctionCallInfo fcinfo, int n) {
    const text* t = PG_GETARG_TEXT_PP(n);
    return {VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t)};
}

// A text argument that must be a correlation ID, NUL-terminated in buf.
std::size_t arg_id(FunctionCallInfo fcinfo, int n, char* buf) {
    const TextArg a = arg_text(fcinfo, n);
    if (!idgen::correlation_id_valid(a.data, a.len)) raise_bad_id("correlation ID", a.data, a.len);
    std::memcpy(buf, a.data, a.len);
    buf[a.len] = '\0';
    return a.len;
}

Datum return_text(const char* s, std::size_t n) {
    return PointerGetDatum(cstring_to_text_with_len(s, static_cast<int>(n)));
}

// ---------------------------------------------------------------------------------------------
// Counters for children by number.
//
// Shared by every backend of the server: a table in the main shared memory segment (preloaded)
// or, on PostgreSQL 17 and later without preloading, in a segment of the DSM registry. A spinlock
// guards it; under it runs only the core's bounded, non-raising correlation_counter_next().
constexpr std::size_t kSharedSlots = 8192;

struct SharedCounters {
    slock_t mutex;
    idgen::CorrelationCounterHead head;
    idgen::CorrelationCounterSlot slots[kSharedSlots];
};

SharedCounters* g_counters = nullptr;
bool g_counters_dsm = false;
shmem_request_hook_type prev_shmem_request_hook = nullptr;
shmem_startup_hook_type prev_shmem_startup_hook = nullptr;

void init_counters(void* p) {
    std::memset(p, 0, sizeof(SharedCounters));
    SpinLockInit(&static_cast<SharedCounters*>(p)->mutex);
}

void request_hook() {
    if (prev_shmem_request_hook) prev_shmem_request_hook();
    RequestAddinShmemSpace(sizeof(SharedCounters));
}

void startup_hook() {
    if (prev_shmem_startup_hook) prev_shmem_startup_hook();
    bool found = false;
    LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
    auto* sh =
        static_cast<SharedCounters*>(ShmemInitStruct("id_gen correlation counters", sizeof(SharedCounters), &found));
    if (!found) init_counters(sh);
    LWLockRelease(AddinShmemInitLock);
    g_counters = sh;
}

// Attaches the DSM registry segment where there is one (17+, not preloaded). May raise (out of
// memory): called with no lock held.
void attach_counters() {
#if IDGEN_HAVE_DSM_REGISTRY
    if (g_counters != nullptr) return;
    bool found = false;
    g_counters = static_cast<SharedCounters*>(
        GetNamedDSMSegment("id_gen correlation counters", sizeof(SharedCounters), init_counters, &found));
    g_counters_dsm = true;
#endif
}

// Per backend (15 and 16 without preloading): the same table logic in process memory, and a
// random tag fixed for the process that makes the numbers of two backends differ.
constexpr std::size_t kLocalSlots = 256;
idgen::CorrelationCounterHead g_local_head;
idgen::CorrelationCounterSlot g_local_slots[kLocalSlots];
char g_local_tag[idgen::kCorrelationTagLen];
int g_local_pid = -1;

// Per process: process_id(), not MyProcPid, which a process a backend forks keeps.
void local_reset_if_forked() {
    const int pid = idgen::process_id();
    if (g_local_pid == pid) return;
    g_local_head = {};
    std::memset(g_local_slots, 0, sizeof g_local_slots);
    if (!idgen::correlation_random_text(idgen::pg::backend_entropy(), g_local_tag, sizeof g_local_tag)) raise_entropy();
    g_local_pid = pid;
}

const char* storage_name() {
    attach_counters();
    if (g_counters == nullptr) return "per backend";
    return g_counters_dsm ? "dsm registry" : "shared memory";
}

// ---------------------------------------------------------------------------------------------
// The log hook. It must never raise, and must work while an error is being reported: it reads the
// setting (validated when it was set), rewrites the text a session controls in place (no
// allocation), allocates one copy of the message with NO_OOM in the error's own context (skipping
// the tag if that fails), and frees the message it replaces, as errfinish would have.
emit_log_hook_type prev_emit_log_hook = nullptr;

void neutralise(char* s) noexcept {
    if (s != nullptr) idgen::correlation_neutralise(s, std::strlen(s));
}

void tag_message(ErrorData* edata) noexcept {
    // The linking lines carry both IDs already, and nothing of a session's text.
    if (edata->message_id == kReplacingFmt || edata->message_id == kReplacedFmt) return;
    const char* id = g_correlation_id;
    char tag[idgen::kCorrelationLogTagMax + 1];
    std::size_t tl = 0;
    if (id != nullptr && id[0] != '\0')
        tl = idgen::correlation_log_tag(id, strnlen(id, idgen::kCorrelationIdMaxLen + 1), tag, sizeof tag);
    const std::size_t ml = edata->message == nullptr ? 0 : std::strlen(edata->message);
    // Already tagged with this ID, and otherwise clean: a message that comes back to be reported
    // again, such as a parallel worker's error or warning that the leader re-raises
    // (ThrowErrorData) after the worker's own hook handled it, or a remote server's message that
    // a foreign-data wrapper or dblink re-raises under the same ID.
    const bool done =
        tl > 0 && edata->message != nullptr && idgen::correlation_already_tagged(edata->message, ml, tag, tl);
    // No forged tag: the marker in any text the session may have written (its message, detail,
    // hint, the context lines naming its functions and statements, an internal query) is
    // neutralised, with or without a current ID.
    if (!done) neutralise(edata->message);
    neutralise(edata->detail);
    neutralise(edata->detail_log);
    neutralise(edata->hint);
    neutralise(edata->context);
    neutralise(edata->internalquery);
    if (done || tl == 0 || edata->message == nullptr) return;
    if (in_error_recursion_trouble()) return;
    if (ml + tl + 1 > MaxAllocSize) return;
    // The tag ends the message's first line: the line that starts the entry in the log.
    const std::size_t at = idgen::correlation_tag_offset(edata->message, ml);
    MemoryContext cxt = edata->assoc_context != nullptr ? edata->assoc_context : ErrorContext;
    auto* m = static_cast<char*>(MemoryContextAllocExtended(cxt, ml + tl + 1, MCXT_ALLOC_NO_OOM));
    if (m == nullptr) return;
    std::memcpy(m, edata->message, at);
    std::memcpy(m + at, tag, tl);
    std::memcpy(m + at + tl, edata->message + at, ml - at + 1);
    char* old = edata->message;
    edata->message = m;
    pfree(old);
}

void emit_log(ErrorData* edata) {
    if (edata->output_to_server) tag_message(edata);
    if (prev_emit_log_hook) prev_emit_log_hook(edata);
}

}  // namespace

void idgen::pg::correlation_init() {
    DefineCustomStringVariable(kSetting, "Correlation ID of the current unit of work (empty: none).",
                               "Added to every server log line of the backend when id_gen is preloaded. "
                               "1 to 128 characters: ASCII letters, digits and - _ . : / + = @.",
                               &g_correlation_id, "", PGC_USERSET, 0, check_correlation_id, nullptr, nullptr);
    prev_emit_log_hook = emit_log_hook;
    emit_log_hook = emit_log;
    if (process_shared_preload_libraries_in_progress) {
        prev_shmem_request_hook = shmem_request_hook;
        shmem_request_hook = request_hook;
        prev_shmem_startup_hook = shmem_startup_hook;
        shmem_startup_hook = startup_hook;
    }
}

// correlation_id() -> text: the current ID, or a fresh one set for the rest of the transaction.
IDGEN_FUNCTION(correlation_id) {
    IdBuf buf;
    const std::size_t n = current_or_fresh(buf);
    return return_text(buf, n);
}

// correlation_extend(parent text DEFAULT NULL, method text DEFAULT 'counter') -> text. A NULL
// parent is the current ID (made if there is none).
IDGEN_FUNCTION(correlation_extend) {
    IdBuf parent;
    char out[idgen::kCorrelationIdMaxLen];
    bool by_random = false;
    if (PG_ARGISNULL(1)) {
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("method must be 'counter' or 'random'")));
    } else {
        const TextArg m = arg_text(fcinfo, 1);
        if (m.len == 6 && std::memcmp(m.data, "random", 6) == 0) {
            by_random = true;
        } else if (!(m.len == 7 && std::memcmp(m.data, "counter", 7) == 0)) {
            char shown[64];
            idgen::correlation_escape(m.data, m.len, shown, sizeof shown);
            ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                            errmsg("invalid method \"%s\" for correlation_extend()", shown),
                            errhint("The method is 'counter' (parent.1, parent.2, ...) or 'random' (parent.<10 random "
                                    "characters>).")));
        }
    }
    const std::size_t n = PG_ARGISNULL(0) ? current_or_fresh(parent) : arg_id(fcinfo, 0, parent);
    idgen::Result<std::size_t> r = std::size_t{0};
    if (by_random) {
        r = idgen::correlation_child_random(parent, n, idgen::pg::backend_entropy(), out);
    } else {
        attach_counters();
        const std::uint64_t h = idgen::correlation_hash(parent, n);
        if (g_counters != nullptr) {
            SpinLockAcquire(&g_counters->mutex);
            const std::uint64_t number =
                idgen::correlation_counter_next(g_counters->head, g_counters->slots, kSharedSlots, h);
            SpinLockRelease(&g_counters->mutex);
            r = number == 0 ? idgen::Result<std::size_t>(idgen::Error::kOutOfRange)
                            : idgen::correlation_child_counted(parent, n, number, out);
        } else {
            local_reset_if_forked();
            const std::uint64_t number = idgen::correlation_counter_next(g_local_head, g_local_slots, kLocalSlots, h);
            r = number == 0 ? idgen::Result<std::size_t>(idgen::Error::kOutOfRange)
                            : idgen::correlation_child_tagged(parent, n, number, g_local_tag, out);
        }
    }
    if (!r) raise_derive_error(r.error(), parent, n, "Its child");
    return return_text(out, *r);
}

// correlation_replace(id text, is_local boolean DEFAULT false) -> text
IDGEN_FUNCTION(correlation_replace) {
    IdBuf id;
    const std::size_t n = arg_id(fcinfo, 0, id);
    replace_current(id, PG_GETARG_BOOL(1));
    return return_text(id, n);
}

// correlation_combine(other text, is_local boolean DEFAULT false) -> text: the current ID becomes
// <current>+<other> (just <other> when there is no current ID).
IDGEN_FUNCTION(correlation_combine) {
    IdBuf other;
    IdBuf cur;
    IdBuf combined;
    const std::size_t n = arg_id(fcinfo, 0, other);
    const std::size_t c = current_id(cur);
    std::size_t len = n;
    if (c == 0) {
        std::memcpy(combined, other, n + 1);
    } else {
        auto r = idgen::correlation_combine(cur, c, other, n, combined);
        if (!r) raise_derive_error(r.error(), cur, c, "Its combination");
        len = *r;
        combined[len] = '\0';
    }
    replace_current(combined, PG_GETARG_BOOL(1));
    return return_text(combined, len);
}

namespace {

// A traceparent argument, parsed; 22P02 with the reason when it is not valid.
idgen::TraceParent arg_traceparent(FunctionCallInfo fcinfo, int n) {
    const TextArg a = arg_text(fcinfo, n);
    idgen::TraceParent p{};
    const idgen::TraceparentProblem problem = idgen::traceparent_parse(a.data, a.len, p);
    if (problem != idgen::TraceparentProblem::kNone) {
        char shown[300];
        idgen::correlation_escape(a.data, a.len, shown, sizeof shown);
        ereport(ERROR, (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
                        errmsg("invalid input syntax for type traceparent: \"%s\"", shown),
                        errdetail("%s.", idgen::traceparent_problem_text(problem)),
                        errhint("A traceparent is version-trace_id-parent_id-flags in lower-case hex, e.g. "
                                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01 (W3C Trace Context).")));
    }
    return p;
}

}  // namespace

// correlation_from_traceparent(traceparent text, is_local boolean DEFAULT false) -> text: the
// incoming trace-id (32 hex digits) becomes the current correlation ID.
IDGEN_FUNCTION(correlation_from_traceparent) {
    const idgen::TraceParent p = arg_traceparent(fcinfo, 0);
    IdBuf id;
    idgen::hex_lower(p.trace_id, 16, id);
    id[32] = '\0';
    replace_current(id, PG_GETARG_BOOL(1));
    return return_text(id, 32);
}

// traceparent_parse(traceparent text, OUT version text, OUT trace_id text, OUT parent_id text,
// OUT flags text, OUT sampled boolean)
IDGEN_FUNCTION(traceparent_parse) {
    const idgen::TraceParent p = arg_traceparent(fcinfo, 0);
    TupleDesc tupdesc = nullptr;
    if (get_call_result_type(fcinfo, nullptr, &tupdesc) != TYPEFUNC_COMPOSITE)
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("traceparent_parse() must return a record")));
    tupdesc = BlessTupleDesc(tupdesc);
    char version[2], trace[32], parent[16], flags[2];
    idgen::hex_lower(&p.version, 1, version);
    idgen::hex_lower(p.trace_id, 16, trace);
    idgen::hex_lower(p.parent_id, 8, parent);
    idgen::hex_lower(&p.flags, 1, flags);
    Datum values[5] = {return_text(version, 2), return_text(trace, 32), return_text(parent, 16), return_text(flags, 2),
                       BoolGetDatum((p.flags & idgen::kTraceFlagSampled) != 0)};
    bool nulls[5] = {false, false, false, false, false};
    return HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls));
}

// traceparent_valid(traceparent text) -> boolean
IDGEN_FUNCTION(traceparent_valid) {
    const TextArg a = arg_text(fcinfo, 0);
    idgen::TraceParent p{};
    PG_RETURN_BOOL(idgen::traceparent_parse(a.data, a.len, p) == idgen::TraceparentProblem::kNone);
}

// traceparent_child(traceparent text) -> text: same trace-id, a new parent-id, version 00.
IDGEN_FUNCTION(traceparent_child) {
    const idgen::TraceParent p = arg_traceparent(fcinfo, 0);
    auto c = idgen::traceparent_child(p, idgen::pg::backend_entropy());
    if (!c) raise_entropy();
    char out[idgen::kTraceparentLen];
    idgen::traceparent_format(*c, out);
    return return_text(out, sizeof out);
}

// correlation_counter_storage() -> text: where correlation_extend() counts: 'shared memory',
// 'dsm registry' or 'per backend'.
IDGEN_FUNCTION(correlation_counter_storage) {
    const char* s = storage_name();
    return return_text(s, std::strlen(s));
}
