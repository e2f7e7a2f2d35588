// id_gen: creating a key's state file afresh, taking over 0.1.0's record of the key on the way
// (record_file.h: state_open_locked() calls it when the file is missing); and the takeover clock
// of a server that took over another's state (record_file.h: takeover_clock()).
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "core/base/entropy.h"
#include "core/types/snowflake.h"
#include "pg/state/record_file.h"
#include "pg/state/record_file_io.h"

extern "C" {
#include "postgres.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "utils/timestamp.h"
}

namespace idgen::pg::sfd {
namespace {

// 0.1.0's record of the same key: the mark it holds (and its live state, if written in this server
// run), then replaced by the poison record so 0.1.0 code refuses from now on. Called while holding
// 0.1.0's file lock. `mark` is raised to cover what 0.1.0 may have issued.
bool retire_legacy(int lfd, const char* lpath, const StateKey& k, std::int64_t& mark, StateError& err) noexcept {
    LegacyRecord old{};
    const ssize_t n = ::pread(lfd, &old, sizeof old, 0);
    if (n < 0) return fail_errno(err, "read", lpath);
    if (n == static_cast<ssize_t>(sizeof old) && old.magic == kLegacyMagic && !legacy_is_poison(old)) {
        // Everything 0.1.0 issued is at or below its mark (restated for this epoch).
        const std::int64_t m = snowflake_mark_for_epoch(old.reserved_ms, old.epoch_ms, k.epoch_ms);
        if (m > mark) mark = m;
    }
    const LegacyRecord poison = legacy_poison(static_cast<std::int64_t>(PgStartTime), k.epoch_ms);
    if (::pwrite(lfd, &poison, sizeof poison, 0) != static_cast<ssize_t>(sizeof poison)) {
        if (errno == 0) errno = ENOSPC;
        return fail_errno(err, "write", lpath);
    }
    if (pg_fsync(lfd) != 0) return fail_errno(err, "fsync", lpath);
    return true;
}

}  // namespace

// Creates the v2 file of `k` when it does not exist: under 0.1.0's file lock (which also
// serializes creators), retire 0.1.0's record, then write the new record to a temporary file,
// fsync it, link it into place (never over an existing file) and fsync the directory.
// With `outer`, that lock is held with 0.1.0's file lock (see OuterLock) and stays held on return.
// The lock file is a transient file (closed at abort: a cancelled wait strands nothing); the
// temporary file and the directories are opened and closed with nothing that can raise between.
bool create_state(const StateKey& k, const char* path, std::int64_t start_mark, OuterLock* outer, StateError& err) {
    if (!ensure_dir(kLegacyDir, ".")) return fail_errno(err, "create directory for", kLegacyDir);
    if (!ensure_dir(kDir, kLegacyDir)) return fail_errno(err, "create directory for", kDir);
    char lpath[64];
    key_name(k, kLegacyDir, lpath, sizeof lpath);
    const int lfd = OpenTransientFilePerm(lpath, O_RDWR | O_CREAT | O_CLOEXEC, S_IRUSR | S_IWUSR);
    if (lfd < 0) return fail_errno(err, "open", lpath);
    if (!lock_interruptible(lfd, lpath, outer, err)) {
        close_transient(lfd);
        return false;
    }
    // Locked from here: nothing raises.
    bool ok = true;
    struct stat st {};
    if (::stat(path, &st) != 0 && errno == ENOENT) {
        std::int64_t mark = start_mark;
        // 0.1.0 had node layouts 1 to 5 and shards; later keys (TraceIds, DecimalIds) have no
        // 0.1.0 record to retire, and their 0.1.0-path file only serves as the creators' lock.
        const bool had_legacy = k.db != 0 || k.kind <= static_cast<std::uint8_t>(LayoutKind::kCustom);
        ok = !had_legacy || (retire_legacy(lfd, lpath, k, mark, err) && fsync_dir(kLegacyDir));
        if (!ok && err.code == Error::kNoOutcome) fail_errno(err, "fsync directory of", lpath);
        char tmp[80];
        snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, process_id());
        if (ok) {
            StateRecord r{};
            r.epoch_ms = k.epoch_ms;
            r.reserved_ms = mark;
            r.sysid = current_sysid();
            r.timeline = current_timeline();
            const int tfd = ::open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, S_IRUSR | S_IWUSR);
            if (tfd < 0) {
                ok = fail_errno(err, "create", tmp);
            } else {
                if (!write_record_fd(tfd, r))
                    ok = fail_errno(err, "write", tmp);
                else if (pg_fsync(tfd) != 0)
                    ok = fail_errno(err, "fsync", tmp);
                ::close(tfd);
                if (ok && ::link(tmp, path) != 0 && errno != EEXIST) ok = fail_errno(err, "create", path);
                ::unlink(tmp);
                if (ok && !fsync_dir(kDir)) ok = fail_errno(err, "fsync directory of", path);
            }
        }
    }
    ::flock(lfd, LOCK_UN);
    close_transient(lfd);
    return ok;
}

}  // namespace idgen::pg::sfd

namespace idgen::pg {
namespace {

// This backend's copy of the takeover clock of one (system identifier, timeline). What keeps it
// current: the file is written once (linked into place, never over an existing one) and never
// rewritten, so a copy read once stays its value. (A file removed by hand is made again from a
// later reading; a copy of the earlier one only starts a takeover later, never earlier.)
struct TakeoverCopy {
    std::uint64_t sysid = 0;
    std::uint32_t timeline = 0;
    std::int64_t clock_ms = 0;
    bool valid = false;
};
TakeoverCopy g_takeover;

}  // namespace

bool takeover_clock(std::int64_t now_ms, std::int64_t& clock_ms, StateError& err) noexcept {
    using namespace sfd;
    clock_ms = now_ms;
    const std::uint64_t sysid = current_sysid();
    const std::uint32_t timeline = current_timeline();
    if (timeline == 0) return true;  // in recovery: nothing is issued here
    if (!(g_takeover.valid && g_takeover.sysid == sysid && g_takeover.timeline == timeline)) {
        char path[64];
        snprintf(path, sizeof path, "%s/takeover_%llu_%u", kDir, static_cast<unsigned long long>(sysid),
                 static_cast<unsigned>(timeline));
        if (!ensure_dir(kLegacyDir, ".")) return fail_errno(err, "create directory for", kLegacyDir);
        if (!ensure_dir(kDir, kLegacyDir)) return fail_errno(err, "create directory for", kDir);
        for (int attempt = 0;; ++attempt) {
            const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
            if (fd >= 0) {
                std::uint8_t buf[kStateRecordSize + 1];
                const ssize_t n = ::pread(fd, buf, sizeof buf, 0);
                const int saved = errno;
                ::close(fd);
                errno = saved;
                if (n < 0) return fail_errno(err, "read", path);
                const DecodedRecord d = state_record_decode(buf, static_cast<std::size_t>(n));
                if (d.damage != RecordDamage::kNone || d.record.sysid != sysid || d.record.timeline != timeline) {
                    err.code = Error::kStateDamaged;
                    err.detail = say("id_gen state file \"%s\" is damaged: %s", path,
                                     d.damage != RecordDamage::kNone ? record_damage_text(d.damage)
                                                                     : "it names another server or timeline");
                    return false;
                }
                // Its entry is durable before its reading is used (another backend may have linked
                // it an instant ago, its directory not yet fsync'd).
                if (!fsync_dir(kDir)) return fail_errno(err, "fsync directory of", path);
                g_takeover = TakeoverCopy{sysid, timeline, d.record.reserved_ms, true};
                break;
            }
            if (errno != ENOENT || attempt > 0) return fail_errno(err, "open", path);
            // Made afresh from this reading: a temporary file written and fsync'd, then linked
            // into place, never over one another backend linked first (that one is read instead).
            StateRecord r{};
            r.reserved_ms = now_ms;
            r.sysid = sysid;
            r.timeline = timeline;
            char tmp[80];
            snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, process_id());
            const int tfd = ::open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, S_IRUSR | S_IWUSR);
            if (tfd < 0) return fail_errno(err, "create", tmp);
            bool ok = write_record_fd(tfd, r) || fail_errno(err, "write", tmp);
            if (ok && pg_fsync(tfd) != 0) ok = fail_errno(err, "fsync", tmp);
            ::close(tfd);
            if (ok && ::link(tmp, path) != 0 && errno != EEXIST) ok = fail_errno(err, "create", path);
            ::unlink(tmp);
            if (!ok) return false;
        }
    }
    if (g_takeover.clock_ms > clock_ms) clock_ms = g_takeover.clock_ms;
    return true;
}

}  // namespace idgen::pg
