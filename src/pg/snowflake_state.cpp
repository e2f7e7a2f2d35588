// id_gen: snowflake generator state in shared memory (preloaded) or in locked files (not preloaded),
// and the persisted high-water mark that survives restarts. See snowflake_state.h.
#include "snowflake_state.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "boundary.h"
#include "core/clock.h"

extern "C" {
#include "access/xact.h"
#include "access/xlog.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "utils/guc.h"
#include "utils/timestamp.h"
}

namespace idgen::pg {

int g_node_id = -1;
int g_max_run_ahead_ms = 1000;
int g_test_clock_offset_ms = 0;
bool g_enable_test_clock = false;

namespace {

// ---------------------------------------------------------------------------------------------
// The persisted record: one file per generator key under $PGDATA/pg_idgen/.
constexpr std::uint64_t kMagic = 0x69645f67656e5331ULL;  // "id_genS1"
constexpr const char* kDir = "pg_idgen";

struct Record {
    std::uint64_t magic;
    std::int64_t boot;  // PgStartTime of the server run that wrote the live state; 0 = mark only
    std::int64_t epoch_ms;
    std::int64_t last_time;
    std::int64_t last_seq;
    std::int64_t high_clock;
    std::int64_t reserved_ms;  // high-water mark: no ID later than this has been issued
};
static_assert(sizeof(Record) == 56);

char t_detail[200];

const char* describe_errno(const char* what, int err) noexcept {
    snprintf(t_detail, sizeof t_detail, "could not %s file in \"%s\": %s", what, kDir, strerror(err));
    return t_detail;
}

void key_path(const StateKey& k, char* out, std::size_t cap) noexcept {
    if (k.db == 0)
        snprintf(out, cap, "%s/node_%u", kDir, static_cast<unsigned>(k.kind));
    else
        snprintf(out, cap, "%s/shard_%u_%d", kDir, static_cast<unsigned>(k.db), static_cast<int>(k.number));
}

bool same_key(const StateKey& a, const StateKey& b) noexcept {
    return a.kind == b.kind && a.db == b.db && a.number == b.number && a.epoch_ms == b.epoch_ms;
}

// Per-backend cache of open state files (never closed while the backend lives).
struct OpenFile {
    StateKey key;
    int fd;
};
constexpr int kMaxOpen = 16;
OpenFile g_open[kMaxOpen];
int g_open_count = 0;
int g_open_pid = -1;

// fsyncs `fd` (when >= 0), then the directory `dir`; false with errno on failure. Never raises.
bool fsync_path_entry(int fd, const char* dir) noexcept {
    if (fd >= 0 && pg_fsync(fd) != 0) return false;
    const int dfd = ::open(dir, O_RDONLY | O_CLOEXEC);
    if (dfd < 0) return false;
    const bool ok = pg_fsync(dfd) == 0;
    const int saved = errno;
    ::close(dfd);
    errno = saved;
    return ok;
}

// Opens (creating if needed) the state file of `k`; -1 with errno on failure. Never raises.
int state_fd(const StateKey& k, bool& cached) noexcept {
    if (g_open_pid != MyProcPid) {  // never reuse descriptors across fork
        g_open_count = 0;
        g_open_pid = MyProcPid;
    }
    for (int i = 0; i < g_open_count; ++i) {
        if (g_open[i].key.kind == k.kind && g_open[i].key.db == k.db && g_open[i].key.number == k.number) {
            cached = true;
            return g_open[i].fd;
        }
    }
    char path[MAXPGPATH];
    key_path(k, path, sizeof path);
    int fd = ::open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) {
        // Create it. A new file (or directory) is only durable once its directory entry is: after
        // an OS crash a file that vanished would look like a fresh state, and generation would
        // restart from the clock. So fsync the file, pg_idgen/, and (for a new pg_idgen/) $PGDATA,
        // before the file is used. (Raw system calls: nothing here raises, no spinlock is held.)
        bool made_dir = false;
        if (::mkdir(kDir, S_IRWXU) == 0) made_dir = true;
        else if (errno != EEXIST) return -1;
        bool made_file = false;
        fd = ::open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, S_IRUSR | S_IWUSR);
        if (fd >= 0) made_file = true;
        else if (errno == EEXIST) fd = ::open(path, O_RDWR | O_CLOEXEC);  // another backend won the race
        if (fd < 0) return -1;
        if ((made_file && !fsync_path_entry(fd, kDir)) || (made_dir && !fsync_path_entry(-1, "."))) {
            const int saved = errno;
            ::close(fd);
            errno = saved;
            return -1;
        }
    }
    if (fd < 0) return -1;
    cached = false;
    if (g_open_count < kMaxOpen && AcquireExternalFD()) {
        g_open[g_open_count++] = OpenFile{k, fd};
        cached = true;
    }
    return fd;
}

bool read_record(int fd, Record& r) noexcept {
    const ssize_t n = ::pread(fd, &r, sizeof r, 0);
    if (n != static_cast<ssize_t>(sizeof r) || r.magic != kMagic) {
        std::memset(&r, 0, sizeof r);
        r.magic = kMagic;
        r.last_time = -1;
        r.high_clock = -1;
        r.reserved_ms = INT64_MIN;
        return n >= 0;
    }
    return true;
}

bool write_record(int fd, const Record& r, bool durable) noexcept {
    if (::pwrite(fd, &r, sizeof r, 0) != static_cast<ssize_t>(sizeof r)) {
        if (errno == 0) errno = ENOSPC;
        return false;
    }
    return !durable || pg_fsync(fd) == 0;
}

// ---------------------------------------------------------------------------------------------
// Shared memory (preloaded only).
constexpr int kSlots = 4096;  // node layouts + (database, shard) pairs in use since startup

struct Slot {
    StateKey key;
    bool used;
    bool loaded;
    SnowflakeState st;
    std::int64_t reserved_ms;
};
// `mutex` (a spinlock) guards the slots: the fast path (find the slot, one pure step) holds only
// it. `lock` (an LWLock) serializes the rare file I/O: loading a slot's mark after startup and
// persisting a new mark. Nothing that can raise, and no system call, runs under the spinlock.
struct Shared {
    slock_t mutex;
    LWLock* lock;
    Slot slots[kSlots];
};
Shared* g_shared = nullptr;

std::uint32_t key_hash(const StateKey& k) noexcept {
    std::uint64_t h = 1469598103934665603ULL;
    auto mix = [&h](std::uint64_t v) {
        h ^= v;
        h *= 1099511628211ULL;
    };
    mix(k.kind);
    mix(k.db);
    mix(static_cast<std::uint32_t>(k.number));
    return static_cast<std::uint32_t>(h ^ (h >> 32));
}

// Finds or claims the slot of `k` (same kind/db/number; the epoch is checked by the caller).
Slot* find_slot(const StateKey& k) noexcept {
    std::uint32_t i = key_hash(k) % kSlots;
    for (int probes = 0; probes < kSlots; ++probes, i = (i + 1) % kSlots) {
        Slot& s = g_shared->slots[i];
        if (!s.used) {
            s.used = true;
            s.loaded = false;
            s.key = k;
            return &s;
        }
        if (s.key.kind == k.kind && s.key.db == k.db && s.key.number == k.number) return &s;
    }
    return nullptr;
}

// The test offset moves shared (and persisted) state for every backend, so it only counts on a
// server started for testing (id_gen.enable_test_clock), never from a session's SET alone.
std::int64_t clock_ms() noexcept { return unix_time_ms() + (g_enable_test_clock ? g_test_clock_offset_ms : 0); }

enum class Outcome { kIssued, kWait, kError };

enum class Fast { kDone, kNeedLoad, kNeedReserve };

// The fast path, under the spinlock: pure computation on the slot. kNeedLoad / kNeedReserve ask
// the caller to do file I/O (under the LWLock, without the spinlock) and retry.
Fast attempt_shared_fast(const StateKey& k, const SnowflakeLayout& l, std::uint32_t node, std::int64_t now_ms,
                         Outcome& out, std::int64_t& id_or_wait, std::int64_t& reserve_ms, Error& err,
                         const char*& detail) noexcept {
    Slot* s = find_slot(k);
    if (s == nullptr) {
        err = Error::kCapacityExceeded;
        detail = "all 4096 shared-memory generator slots are in use (each node layout and each (database, shard) "
                 "used since the server started takes one); restart the server to free them";
        out = Outcome::kError;
        return Fast::kDone;
    }
    if (!s->loaded || !same_key(s->key, k)) return Fast::kNeedLoad;
    auto step = snowflake_step(s->st, l, node, now_ms, g_max_run_ahead_ms, s->reserved_ms);
    if (!step) {
        err = step.error();
        out = Outcome::kError;
        return Fast::kDone;
    }
    switch (step->kind) {
        case StepKind::kIssued:
            id_or_wait = step->id;
            out = Outcome::kIssued;
            return Fast::kDone;
        case StepKind::kWait:
            id_or_wait = step->ms;
            out = Outcome::kWait;
            return Fast::kDone;
        case StepKind::kReserve:
            break;
    }
    reserve_ms = step->ms + kReserveAheadMs;
    return Fast::kNeedReserve;
}

// The slow path, under the LWLock (so only one backend does file I/O for the slots at a time);
// takes the spinlock only around reads and writes of the slot. Nothing in here raises.
bool shared_io(const StateKey& k, const SnowflakeLayout& l, Fast need, std::int64_t reserve_ms, Error& err,
               const char*& detail) noexcept {
    bool cached = false;
    const int fd = state_fd(k, cached);
    if (fd < 0) {
        err = Error::kStateIoError;
        detail = describe_errno("open a state", errno);
        return false;
    }
    bool ok = true;
    if (need == Fast::kNeedLoad) {
        SpinLockAcquire(&g_shared->mutex);
        Slot* s = find_slot(k);
        const bool still = s != nullptr && (!s->loaded || !same_key(s->key, k));
        SpinLockRelease(&g_shared->mutex);
        if (still) {
            // First use since startup (or the shard was re-created with another epoch): start after
            // the persisted high-water mark.
            Record r;
            if (!read_record(fd, r)) {
                err = Error::kStateIoError;
                detail = describe_errno("read a state", errno);
                ok = false;
            } else {
                // A mark written under another epoch (the shard was re-created with it) is restated
                // so the time field stays above every ID issued under that epoch.
                const std::int64_t mark = snowflake_mark_for_epoch(r.reserved_ms, r.epoch_ms, k.epoch_ms);
                SnowflakeState st{};
                snowflake_state_restore(st, l, mark);
                SpinLockAcquire(&g_shared->mutex);
                s->key = k;
                s->st = st;
                s->reserved_ms = mark;
                s->loaded = true;
                SpinLockRelease(&g_shared->mutex);
            }
        }
    } else {
        // reserve_ms was computed under the spinlock before this backend got the LWLock; another
        // backend may have persisted a larger mark since and issued IDs up to it. Every write of a
        // slot's mark happens under the LWLock and is copied into the slot right after, so the
        // slot's mark read now is the one on disk: write only if ours is larger (never move back).
        SpinLockAcquire(&g_shared->mutex);
        Slot* s = find_slot(k);
        const bool live = s != nullptr && s->loaded && same_key(s->key, k);
        const std::int64_t persisted = live ? s->reserved_ms : INT64_MIN;
        SpinLockRelease(&g_shared->mutex);
        // Not live: the slot was reloaded for another epoch meanwhile; the retry reloads it.
        const std::int64_t mark = snowflake_mark_to_persist(persisted, reserve_ms);
        if (live && mark != persisted) {
            // Persist the new mark first; only then may IDs up to it be issued.
            Record r{kMagic, 0, k.epoch_ms, -1, 0, -1, mark};
            if (!write_record(fd, r, true)) {
                err = Error::kStateIoError;
                detail = describe_errno("write a state", errno);
                ok = false;
            } else {
                SpinLockAcquire(&g_shared->mutex);
                s = find_slot(k);
                if (s != nullptr && same_key(s->key, k) && s->reserved_ms < mark) s->reserved_ms = mark;
                SpinLockRelease(&g_shared->mutex);
            }
        }
    }
    if (!cached) ::close(fd);
    return ok;
}

// One attempt against the state file, under flock. Nothing in here raises.
Outcome attempt_file(const StateKey& k, const SnowflakeLayout& l, std::uint32_t node,
                     std::int64_t& id_or_wait, Error& err, const char*& detail) noexcept {
    bool cached = false;
    const int fd = state_fd(k, cached);
    if (fd < 0) {
        err = Error::kStateIoError;
        detail = describe_errno("open a state", errno);
        return Outcome::kError;
    }
    while (::flock(fd, LOCK_EX) != 0) {
        if (errno != EINTR) {
            err = Error::kStateIoError;
            detail = describe_errno("lock a state", errno);
            if (!cached) ::close(fd);
            return Outcome::kError;
        }
    }
    Outcome out = Outcome::kError;
    Record r;
    if (!read_record(fd, r)) {
        err = Error::kStateIoError;
        detail = describe_errno("read a state", errno);
    } else {
        SnowflakeState st{};
        if (r.boot == static_cast<std::int64_t>(PgStartTime) && r.epoch_ms == k.epoch_ms) {
            st.last_time = r.last_time;
            st.last_seq = r.last_seq;
            st.high_clock = r.high_clock;
        } else {
            // Written by an earlier server run (or for another epoch): only the mark counts,
            // restated for this epoch so the time field stays above every ID issued under the
            // record's (see snowflake_mark_for_epoch). From here on the record is in this epoch.
            r.reserved_ms = snowflake_mark_for_epoch(r.reserved_ms, r.epoch_ms, k.epoch_ms);
            r.epoch_ms = k.epoch_ms;
            snowflake_state_restore(st, l, r.reserved_ms);
        }
        for (int round = 0; round < 2; ++round) {
            auto step = snowflake_step(st, l, node, clock_ms(), g_max_run_ahead_ms, r.reserved_ms);
            if (!step) {
                err = step.error();
                break;
            }
            if (step->kind == StepKind::kWait) {
                id_or_wait = step->ms;
                out = Outcome::kWait;
                break;
            }
            if (step->kind == StepKind::kReserve) {
                // Under flock, r is what is on disk: the mark only moves forward.
                r.reserved_ms = snowflake_mark_to_persist(r.reserved_ms, step->ms + kReserveAheadMs);
                r.boot = 0;  // the live state below is not written yet
                if (!write_record(fd, r, true)) {
                    err = Error::kStateIoError;
                    detail = describe_errno("write a state", errno);
                    break;
                }
                continue;
            }
            r.boot = static_cast<std::int64_t>(PgStartTime);
            r.epoch_ms = k.epoch_ms;
            r.last_time = st.last_time;
            r.last_seq = st.last_seq;
            r.high_clock = st.high_clock;
            if (!write_record(fd, r, false)) {
                err = Error::kStateIoError;
                detail = describe_errno("write a state", errno);
                break;
            }
            id_or_wait = step->id;
            out = Outcome::kIssued;
            break;
        }
    }
    ::flock(fd, LOCK_UN);
    if (!cached) ::close(fd);
    return out;
}

shmem_request_hook_type prev_shmem_request_hook = nullptr;
shmem_startup_hook_type prev_shmem_startup_hook = nullptr;

void request_hook() {
    if (prev_shmem_request_hook) prev_shmem_request_hook();
    snowflake_request_shmem();
}

void startup_hook() {
    if (prev_shmem_startup_hook) prev_shmem_startup_hook();
    snowflake_attach_shmem();
}

}  // namespace

void snowflake_define_settings() {
    DefineCustomIntVariable("id_gen.node_id",
                            "Node number of this server for gen_snowflake() (-1: unset).",
                            "Unique per server among all servers issuing snowflakes into the same ID space; "
                            "a standby shares its primary's number and refuses to generate.",
                            &g_node_id, -1, -1, 65535, PGC_SIGHUP, 0, nullptr, nullptr, nullptr);
    DefineCustomIntVariable("id_gen.max_run_ahead",
                            "How far a snowflake's time may run ahead of the clock when a time unit's "
                            "sequence numbers are used up.",
                            "Beyond it the generator waits for the clock (at most 1 s per call).",
                            &g_max_run_ahead_ms, 1000, 0, 60000, PGC_SIGHUP, GUC_UNIT_MS, nullptr, nullptr, nullptr);
    // PGC_POSTMASTER can only be defined while preloading (later is FATAL); without preloading the
    // closest server-level context is SIGHUP (postgresql.conf / ALTER SYSTEM + reload).
    DefineCustomBoolVariable("id_gen.enable_test_clock",
                             "Testing only: lets id_gen.test_clock_offset shift the generators' clock.",
                             "Off in production: the offset moves the shared, persisted high-water mark of "
                             "every generator. Set it in postgresql.conf of test clusters only.",
                             &g_enable_test_clock, false,
                             process_shared_preload_libraries_in_progress ? PGC_POSTMASTER : PGC_SIGHUP,
                             GUC_NOT_IN_SAMPLE, nullptr, nullptr, nullptr);
    DefineCustomIntVariable("id_gen.test_clock_offset",
                            "Testing only: shifts the clock the snowflake generators read.",
                            "No effect unless the server runs with id_gen.enable_test_clock = on.",
                            &g_test_clock_offset_ms, 0, -86400000, 86400000, PGC_SUSET,
                            GUC_UNIT_MS | GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE, nullptr, nullptr, nullptr);
    MarkGUCPrefixReserved("id_gen");
    if (process_shared_preload_libraries_in_progress) {
        prev_shmem_request_hook = shmem_request_hook;
        shmem_request_hook = request_hook;
        prev_shmem_startup_hook = shmem_startup_hook;
        shmem_startup_hook = startup_hook;
    }
}

void snowflake_request_shmem() {
    RequestAddinShmemSpace(sizeof(Shared));
    RequestNamedLWLockTranche("id_gen", 1);
}

void snowflake_attach_shmem() {
    bool found = false;
    LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
    auto* sh = static_cast<Shared*>(ShmemInitStruct("id_gen snowflake state", sizeof(Shared), &found));
    if (!found) {
        std::memset(static_cast<void*>(sh), 0, sizeof(Shared));
        SpinLockInit(&sh->mutex);
        sh->lock = &(GetNamedLWLockTranche("id_gen"))->lock;
    }
    LWLockRelease(AddinShmemInitLock);
    g_shared = sh;
}

bool snowflake_shmem_ready() noexcept { return g_shared != nullptr; }

void require_writable(const char* what) {
    if (RecoveryInProgress())
        ereport(ERROR, (errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
                        errmsg("cannot call %s during recovery", what),
                        errhint("A standby shares its primary's node and shard numbers: IDs issued here could "
                                "also be issued by the primary. Generate IDs on the primary.")));
    if (XactReadOnly)
        ereport(ERROR, (errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
                        errmsg("cannot call %s in a read-only transaction", what),
                        errhint("Generators write shared state; call it in a read-write transaction on the primary.")));
}

Result<std::int64_t> snowflake_issue(const StateKey& key, const SnowflakeLayout& layout, std::uint32_t node,
                                     const char*& detail) {
    detail = "";
    for (;;) {
        std::int64_t id_or_wait = 0;
        Error err = Error::kOk;
        Outcome out;
        if (g_shared != nullptr) {
            const std::int64_t now_ms = clock_ms();
            std::int64_t reserve_ms = 0;
            out = Outcome::kError;
            SpinLockAcquire(&g_shared->mutex);
            const Fast f = attempt_shared_fast(key, layout, node, now_ms, out, id_or_wait, reserve_ms, err, detail);
            SpinLockRelease(&g_shared->mutex);
            if (f != Fast::kDone) {
                LWLockAcquire(g_shared->lock, LW_EXCLUSIVE);
                const bool ok = shared_io(key, layout, f, reserve_ms, err, detail);
                LWLockRelease(g_shared->lock);
                if (!ok) return err;
                continue;  // retry the fast path
            }
        } else {
            out = attempt_file(key, layout, node, id_or_wait, err, detail);
        }
        if (out == Outcome::kIssued) return id_or_wait;
        if (out == Outcome::kError) return err;
        // The sequence is used up to the run-ahead limit: wait for the clock, a bounded time.
        const std::int64_t wait_ms = id_or_wait - clock_ms();
        if (wait_ms > kMaxWaitMs) {
            snprintf(t_detail, sizeof t_detail,
                          "IDs up to %lld ms ahead of the clock are used up (id_gen.max_run_ahead = %d ms, and "
                          "the clock is behind the IDs already issued)",
                          static_cast<long long>(wait_ms), g_max_run_ahead_ms);
            detail = t_detail;
            return Error::kCapacityExceeded;
        }
        if (wait_ms > 0) pg_usleep(static_cast<long>(wait_ms < 1 ? 1 : wait_ms) * 1000L);
        else pg_usleep(100L);
        CHECK_FOR_INTERRUPTS();
    }
}

}  // namespace idgen::pg
