// id_gen: generator state files under $PGDATA/pg_idgen/v2/. See record_file.h.
#include "pg/state/record_file.h"
#include "pg/state/record_file_io.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/base/entropy.h"

extern "C" {
#include "postgres.h"
#include "access/xlog.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"
}

namespace idgen::pg {
namespace sfd {  // shared with record_file_create.cpp through record_file_io.h

constexpr int kDefaultLockWaitMs = 10000;

char t_detail[320];

const char* say(const char* fmt, const char* path, const char* what) noexcept {
    snprintf(t_detail, sizeof t_detail, fmt, path, what);
    return t_detail;
}

bool fail_errno(StateError& err, const char* verb, const char* path) noexcept {
    err.code = Error::kStateIoError;
    snprintf(t_detail, sizeof t_detail, "could not %s id_gen state file \"%s\": %s", verb, path, strerror(errno));
    err.detail = t_detail;
    return false;
}

void key_name(const StateKey& k, const char* dir, char* out, std::size_t cap) noexcept {
    if (k.db == 0 && k.number != 0)  // a numbered node-level key (DecimalIds: the launch number)
        snprintf(out, cap, "%s/node_%u_%d", dir, static_cast<unsigned>(k.kind), static_cast<int>(k.number));
    else if (k.db == 0)
        snprintf(out, cap, "%s/node_%u", dir, static_cast<unsigned>(k.kind));
    else
        snprintf(out, cap, "%s/shard_%u_%d", dir, static_cast<unsigned>(k.db), static_cast<int>(k.number));
}

bool same_file_key(const StateKey& a, const StateKey& b) noexcept {
    return a.kind == b.kind && a.db == b.db && a.number == b.number;
}

// Per-backend cache of open state files: up to kMaxOpen descriptors, kept open across transactions
// and errors, each counted with PostgreSQL (AcquireExternalFD when it enters the cache,
// ReleaseExternalFD when it leaves), so the server's descriptor budget knows of them. What makes an
// entry current: nothing is trusted from it until its file is locked, and then its inode is compared
// with the one its path names (state_open_locked, state_still_current); a replaced or deleted file's
// entry is dropped (state_forget). A file that finds the cache full (or PostgreSQL out of external
// descriptors) is opened as a transient file instead, owned by PostgreSQL's resource tracking: it is
// closed by state_unlock, or at abort when an error (a cancelled wait) comes first.
struct OpenFile {
    StateKey key;
    int fd;
};
constexpr int kMaxOpen = 16;
OpenFile g_open[kMaxOpen];
int g_open_count = 0;
int g_open_pid = -1;
std::int64_t g_last_fsync_ms = 0;

// A process forked from one that had filled the cache (backends are forked from the postmaster,
// which opens no state file, so this is a safeguard, as is a process a backend forks, which keeps
// MyProcPid: hence process_id()): the descriptors and their count with PostgreSQL were inherited;
// close and uncount them.
void reset_cache_after_fork() noexcept {
    const int pid = process_id();
    if (g_open_pid != pid) {
        for (int i = 0; i < g_open_count; ++i) {
            ::close(g_open[i].fd);
            ReleaseExternalFD();
        }
        g_open_count = 0;
        g_open_pid = pid;
    }
}

int cached_fd(const StateKey& k) noexcept {
    reset_cache_after_fork();
    for (int i = 0; i < g_open_count; ++i)
        if (same_file_key(g_open[i].key, k)) return g_open[i].fd;
    return -1;
}

// Opens the state file of `k` at `path` read-write: into the cache when it has room and PostgreSQL
// grants another external descriptor (`cached`), otherwise as a transient file. -1 with errno on
// failure (nothing left open or counted). May raise only from OpenTransientFile (too many
// transient files): call with no file lock held.
int open_state_fd(const StateKey& k, const char* path, bool& cached) {
    cached = false;
    reset_cache_after_fork();
    if (g_open_count < kMaxOpen && AcquireExternalFD()) {
        const int fd = ::open(path, O_RDWR | O_CLOEXEC);
        if (fd < 0) {
            const int saved = errno;
            ReleaseExternalFD();
            errno = saved;
            return -1;
        }
        g_open[g_open_count++] = OpenFile{k, fd};
        cached = true;
        return fd;
    }
    return OpenTransientFile(path, O_RDWR | O_CLOEXEC);
}

// Closes a descriptor from open_state_fd that is not in the cache. Never raises (a descriptor
// PostgreSQL does not know would only be a WARNING).
void close_transient(int fd) noexcept {
    const int saved = errno;
    (void)CloseTransientFile(fd);
    errno = saved;
}

// fsyncs `fd`, timing it. False with errno on failure.
bool timed_fsync(int fd) noexcept {
    const TimestampTz t0 = GetCurrentTimestamp();
    if (pg_fsync(fd) != 0) return false;
    g_last_fsync_ms = (GetCurrentTimestamp() - t0) / 1000;
    return true;
}

// fsyncs directory `dir` (a new or removed entry is durable only then).
bool fsync_dir(const char* dir) noexcept {
    const int dfd = ::open(dir, O_RDONLY | O_CLOEXEC);
    if (dfd < 0) return false;
    const bool ok = pg_fsync(dfd) == 0;
    const int saved = errno;
    ::close(dfd);
    errno = saved;
    return ok;
}

// mkdir that is durable: the new entry is fsync'd in its parent.
bool ensure_dir(const char* dir, const char* parent) noexcept {
    if (::mkdir(dir, S_IRWXU) == 0) return fsync_dir(parent);
    return errno == EEXIST;
}

struct FlockTry {
    int fd;
    OuterLock* outer;  // nullptr: none
};

// One try of `outer` (unless already held) and then the file lock, neither waiting. Returns with
// both held (kAcquired) or with `outer` released (kBusy, kError): a wait never holds it.
TryLock try_flock(void* arg) noexcept {
    auto* t = static_cast<FlockTry*>(arg);
    OuterLock* o = t->outer;
    if (o != nullptr && !o->held) {
        if (!o->try_acquire()) return TryLock::kBusy;
        o->held = true;
    }
    for (;;) {
        if (::flock(t->fd, LOCK_EX | LOCK_NB) == 0) return TryLock::kAcquired;
        if (errno == EINTR) continue;
        const int saved = errno;
        if (o != nullptr) {
            o->release();
            o->held = false;
        }
        errno = saved;
        return saved == EWOULDBLOCK ? TryLock::kBusy : TryLock::kError;
    }
}

// Locks `fd` exclusively, and `outer` with it (see wait_for_lock, OuterLock).
bool lock_interruptible(int fd, const char* path, OuterLock* outer, StateError& err) {
    char what[96];
    snprintf(what, sizeof what, "id_gen state file \"%s\"", path);
    FlockTry t{fd, outer};
    return wait_for_lock(try_flock, &t, what, err);
}

bool read_all(int fd, std::uint8_t* buf, std::size_t cap, std::size_t& len) noexcept {
    const ssize_t n = ::pread(fd, buf, cap, 0);
    if (n < 0) return false;
    len = static_cast<std::size_t>(n);
    return true;
}

bool write_record_fd(int fd, const StateRecord& r) noexcept {
    std::uint8_t buf[kStateRecordSize];
    state_record_encode(r, buf);
    const ssize_t n = ::pwrite(fd, buf, sizeof buf, 0);
    if (n == static_cast<ssize_t>(sizeof buf)) return true;
    if (n >= 0) errno = ENOSPC;
    return false;
}

}  // namespace sfd

using namespace sfd;

bool wait_for_lock(TryLock (*attempt)(void*), void* arg, const char* what, StateError& err) {
    TimestampTz start = 0;
    for (int tries = 0;; ++tries) {
        const TryLock r = attempt(arg);
        if (r == TryLock::kAcquired) return true;
        if (r == TryLock::kError) {
            err.code = Error::kStateIoError;
            snprintf(t_detail, sizeof t_detail, "could not lock %s: %s", what, strerror(errno));
            err.detail = t_detail;
            return false;
        }
        // Lock holders keep it for microseconds (one read, one write), or one fsync: spin briefly
        // first, then sleep in 1 ms steps.
        if (tries < 64) {
            sched_yield();
            continue;
        }
        const TimestampTz now = GetCurrentTimestamp();
        if (start == 0) start = now;
        const int bound_ms = LockTimeout > 0 && LockTimeout < kDefaultLockWaitMs ? LockTimeout : kDefaultLockWaitMs;
        if (now - start >= static_cast<TimestampTz>(bound_ms) * 1000) {
            err.code = Error::kStateLockTimeout;
            snprintf(t_detail, sizeof t_detail,
                     "could not lock %s within %d ms (another backend holds it, as through a slow fsync of a "
                     "state file; or lock_timeout)",
                     what, bound_ms);
            err.detail = t_detail;
            return false;
        }
        (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 1, PG_WAIT_EXTENSION);
        ResetLatch(MyLatch);
        CHECK_FOR_INTERRUPTS();
    }
}

std::uint64_t current_sysid() noexcept { return GetSystemIdentifier(); }

std::uint32_t current_timeline() noexcept {
    return RecoveryInProgress() ? 0 : static_cast<std::uint32_t>(GetWALInsertionTimeLine());
}

std::int64_t state_last_fsync_ms() noexcept { return g_last_fsync_ms; }

bool state_still_current(const LockedState& s) noexcept {
    struct stat st {};
    if (::stat(s.path, &st) != 0) return false;
    return static_cast<std::uint64_t>(st.st_ino) == s.ino && static_cast<std::uint64_t>(st.st_dev) == s.dev;
}

void state_unlock(LockedState& s) noexcept {
    if (s.fd < 0) return;
    ::flock(s.fd, LOCK_UN);
    if (!s.cached) close_transient(s.fd);
    s.fd = -1;
}

void state_forget(const StateKey& key) noexcept {
    reset_cache_after_fork();
    for (int i = 0; i < g_open_count; ++i) {
        if (same_file_key(g_open[i].key, key)) {
            ::close(g_open[i].fd);
            ReleaseExternalFD();
            g_open[i] = g_open[--g_open_count];
            return;
        }
    }
}

bool state_write(LockedState& s, const StateRecord& r, bool durable, StateError& err) noexcept {
    StateRecord w = r;
    w.flags &= ~kStateNeedsSync;
    w.sysid = current_sysid();
    w.timeline = current_timeline();
    if (!write_record_fd(s.fd, w)) return fail_errno(err, "write", s.path);
    if (durable && !timed_fsync(s.fd)) {
        const int saved = errno;
        // The page may now be clean with the data lost (Linux), so the mark just written must not
        // be trusted: flag the record; whoever locks it next rewrites and fsyncs it before issuing.
        // (If even this write fails, the error below still stops this call from issuing.)
        w.flags |= kStateNeedsSync;
        (void)write_record_fd(s.fd, w);
        errno = saved;
        return fail_errno(err, "fsync", s.path);
    }
    s.rec = w;
    return true;
}

namespace {

bool open_locked(const StateKey& k, std::int64_t now_ms, std::int64_t horizon_ms, LockedState& out, StateError& err,
                 OuterLock* outer) {
    key_name(k, kDir, out.path, sizeof out.path);
    std::int64_t carried = INT64_MIN;  // the mark of a replaced file, carried into its successor
    for (int attempt = 0; attempt < 4; ++attempt) {
        int fd = cached_fd(k);
        bool cached = fd >= 0;
        if (fd < 0) {
            fd = open_state_fd(k, out.path, cached);
            if (fd < 0 && errno == ENOENT) {
                // A clocked generator's file made afresh on a timeline after the first (a promoted
                // standby: the old primary may have used the key since the base backup) counts
                // from the takeover clock, as an inherited record does.
                std::int64_t from = now_ms;
                if (now_ms >= 0 && horizon_ms > 0 && current_timeline() > 1 && !takeover_clock(now_ms, from, err))
                    return false;
                std::int64_t start = INT64_MIN;
                if (!__builtin_add_overflow(from, horizon_ms, &start) && carried > start) start = carried;
                if (!create_state(k, out.path, start, outer, err)) return false;
                fd = open_state_fd(k, out.path, cached);
            }
            if (fd < 0) return fail_errno(err, "open", out.path);
        }
        if (!lock_interruptible(fd, out.path, outer, err)) {
            if (!cached) close_transient(fd);
            return false;
        }
        // Locked from here until state_unlock: nothing raises.
        out.fd = fd;
        out.cached = cached;
        struct stat fst {};
        if (::fstat(fd, &fst) != 0) {
            fail_errno(err, "stat", out.path);
            state_unlock(out);
            return false;
        }
        out.ino = static_cast<std::uint64_t>(fst.st_ino);
        out.dev = static_cast<std::uint64_t>(fst.st_dev);
        std::uint8_t buf[kStateRecordSize + 1];
        std::size_t len = 0;
        if (!read_all(fd, buf, sizeof buf, len)) {
            fail_errno(err, "read", out.path);
            state_unlock(out);
            return false;
        }
        const DecodedRecord d = state_record_decode(buf, len);
        if (!state_still_current(out)) {
            // Deleted or replaced while this backend held it open: carry its mark into the file the
            // path names now (whoever creates it starts at least there), and retry with that file.
            if (d.damage == RecordDamage::kNone && d.record.reserved_ms > carried) carried = d.record.reserved_ms;
            state_unlock(out);
            state_forget(k);
            continue;
        }
        if (d.damage != RecordDamage::kNone) {
            err.code = Error::kStateDamaged;
            err.detail = say("id_gen state file \"%s\" is damaged: %s", out.path, record_damage_text(d.damage));
            state_unlock(out);
            return false;
        }
        out.rec = d.record;
        // A mark carried from a replaced file, or a record whose last fsync failed: rewrite and
        // fsync before anything is issued from it. A carried mark above this file's restarts the
        // live state from the mark (boot = 0), since IDs up to it may have been issued.
        StateRecord want = out.rec;
        bool rewrite = (out.rec.flags & kStateNeedsSync) != 0;
        if (carried > want.reserved_ms) {
            want.reserved_ms = carried;
            want.boot = 0;
            rewrite = true;
        }
        if (rewrite && !state_write(out, want, true, err)) {
            state_unlock(out);
            return false;
        }
        return true;
    }
    err.code = Error::kStateIoError;
    err.detail = say("id_gen state file \"%s\" keeps being replaced while it is opened%s", out.path, "");
    return false;
}

}  // namespace

bool state_open_locked(const StateKey& k, std::int64_t now_ms, std::int64_t horizon_ms, LockedState& out,
                       StateError& err, OuterLock* outer) {
    if (open_locked(k, now_ms, horizon_ms, out, err, outer)) return true;
    if (outer != nullptr && outer->held) {
        outer->release();
        outer->held = false;
    }
    return false;
}

}  // namespace idgen::pg
