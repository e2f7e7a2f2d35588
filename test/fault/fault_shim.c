/* id_gen fault tests: an LD_PRELOAD library that makes fsync, fdatasync and writes misbehave for
 * the generator state files only.
 *
 * Loaded into a test cluster's postmaster (LD_PRELOAD in its environment), it intercepts fsync,
 * fdatasync, write, pwrite, pwrite64, writev, pwritev and pwritev64. A call is faulted only when
 * the path of its descriptor (readlink of /proc/self/fd/N) contains the match string (default
 * "pg_idgen"), so the server's own files are never harmed.
 *
 * Control: the file named by IDGEN_FAULT_CONTROL, one setting per line, re-read whenever its
 * identity (inode, size, mtime) changes:
 *   match=pg_idgen        substring a descriptor's path must contain
 *   fsync_delay_ms=150    every matching fsync/fdatasync sleeps this long first
 *   fsync_fail=3          the next 3 matching fsyncs fail with EIO (-1: all of them)
 *   write_fail=1          the next matching write fails with ENOSPC (-1: all of them)
 * The fail counts are shared by every process of the server (one counter in shared memory,
 * created in the postmaster before it forks), and are re-armed when the control file changes.
 * Write a new control file by renaming a temporary one over it: a reader never sees half a file.
 *
 * Stats: every matching fsync/fdatasync appends a line when it begins and one when it ends, and an
 * injected write failure one line, to the file named by IDGEN_FAULT_STATS (O_APPEND, one write per
 * line, so lines of concurrent processes never interleave):
 *   <call> <begin|ok|fail|injected> <pid> <path>
 * e.g. "fsync ok 4711 /data/pg_idgen/v2/node_1" ("fail": the real call failed; "injected": the
 * shim failed it). A test counts lines to see that a sync happened, or waits for a "begin" to know
 * that a backend is inside a (delayed) sync.
 *
 * Cost: a sync does one readlink and one stat of the control file; a write does one stat, and looks
 * up its descriptor's path only while a write failure is armed.
 *
 * A backend may be interrupted by signals at any point, so the hot path allocates nothing, takes no
 * lock across the real call, and uses only async-signal-safe calls (stat, open, read, close,
 * readlink, nanosleep, getpid). Delays sleep out their full length even when a signal arrives, like
 * a disk that is slow: the process stays where it is and can still be killed. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

typedef int (*fsync_fn)(int);
typedef ssize_t (*write_fn)(int, const void*, size_t);
typedef ssize_t (*pwrite_fn)(int, const void*, size_t, off_t);
typedef ssize_t (*writev_fn)(int, const struct iovec*, int);
typedef ssize_t (*pwritev_fn)(int, const struct iovec*, int, off_t);

static fsync_fn real_fsync;
static fsync_fn real_fdatasync;
static write_fn real_write;
static pwrite_fn real_pwrite;
static pwrite_fn real_pwrite64;
static writev_fn real_writev;
static pwritev_fn real_pwritev;
static pwritev_fn real_pwritev64;

#define PATH_CAP 4096
#define MATCH_CAP 256

/* This process's copy of the control file. */
struct config {
    int have;                 /* a control file was read */
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
    long fsync_delay_ms;
    long fsync_fail;
    long write_fail;
    char match[MATCH_CAP];
};
static struct config g_cfg;

/* Shared by every process of the server: the fail counts, re-armed once per control-file version. */
struct shared {
    volatile uint64_t version;  /* identity of the control file the counters were armed from */
    volatile long fsync_fail_left;
    volatile long write_fail_left;
    volatile int lock;
};
static struct shared* g_shared;

/* Copies: PostgreSQL reuses the memory of the original environment for its process titles. */
static char g_control_buf[PATH_CAP];
static char g_stats_buf[PATH_CAP];
static const char* g_control_path;
static const char* g_stats_path;

static const char* copy_env(const char* name, char* buf, size_t cap) {
    const char* v = getenv(name);
    if (!v || !*v || strlen(v) >= cap) return NULL;
    strcpy(buf, v);
    return buf;
}

static void* next_symbol(const char* name) { return dlsym(RTLD_NEXT, name); }

/* Resolved once, in the process that loads the library (the postmaster, before any fork), so no
 * dlsym (which may allocate) runs inside a backend's hot path. */
__attribute__((constructor)) static void shim_init(void) {
    real_fsync = (fsync_fn)next_symbol("fsync");
    real_fdatasync = (fsync_fn)next_symbol("fdatasync");
    real_write = (write_fn)next_symbol("write");
    real_pwrite = (pwrite_fn)next_symbol("pwrite");
    real_pwrite64 = (pwrite_fn)next_symbol("pwrite64");
    real_writev = (writev_fn)next_symbol("writev");
    real_pwritev = (pwritev_fn)next_symbol("pwritev");
    real_pwritev64 = (pwritev_fn)next_symbol("pwritev64");
    g_control_path = copy_env("IDGEN_FAULT_CONTROL", g_control_buf, sizeof g_control_buf);
    g_stats_path = copy_env("IDGEN_FAULT_STATS", g_stats_buf, sizeof g_stats_buf);
    void* p = mmap(NULL, sizeof(struct shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p != MAP_FAILED) g_shared = (struct shared*)p;
    strcpy(g_cfg.match, "pg_idgen");
}

/* Raw system calls for the shim's own I/O: never re-enter the interposed functions. */
static ssize_t raw_write(int fd, const void* buf, size_t n) { return syscall(SYS_write, fd, buf, n); }

static void sleep_ms(long ms) {
    struct timespec left = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&left, &left) != 0 && errno == EINTR) {
    }
}

/* Held for a few instructions; bounded, so a process killed while holding it cannot hang the rest. */
static void spin_lock(volatile int* l) {
    for (int i = 0; i < 1000 && __atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE); ++i) {
        struct timespec ts = {0, 100000};
        nanosleep(&ts, NULL);
    }
}
static void spin_unlock(volatile int* l) { __atomic_store_n(l, 0, __ATOMIC_RELEASE); }

static long parse_long(const char* s, const char* end) {
    int neg = 0;
    long v = 0;
    if (s < end && *s == '-') {
        neg = 1;
        ++s;
    }
    for (; s < end && *s >= '0' && *s <= '9'; ++s) v = v * 10 + (*s - '0');
    return neg ? -v : v;
}

static uint64_t identity(const struct stat* st) {
    uint64_t h = 1469598103934665603ULL;
    uint64_t parts[4] = {(uint64_t)st->st_ino, (uint64_t)st->st_size, (uint64_t)st->st_mtim.tv_sec,
                         (uint64_t)st->st_mtim.tv_nsec};
    for (int i = 0; i < 4; ++i) {
        h ^= parts[i];
        h *= 1099511628211ULL;
    }
    return h | 1; /* never 0: 0 means "never armed" */
}

/* Brings g_cfg (and the shared counters) up to date with the control file: one stat when it has
 * not changed. Without a control file, nothing is faulted. */
static void refresh(void) {
    struct stat st;
    if (!g_control_path || stat(g_control_path, &st) != 0) {
        g_cfg.have = 0;
        g_cfg.fsync_delay_ms = g_cfg.fsync_fail = g_cfg.write_fail = 0;
        return;
    }
    if (g_cfg.have && st.st_dev == g_cfg.dev && st.st_ino == g_cfg.ino && st.st_size == g_cfg.size &&
        st.st_mtim.tv_sec == g_cfg.mtime.tv_sec && st.st_mtim.tv_nsec == g_cfg.mtime.tv_nsec)
        return;
    char buf[2048];
    int fd = open(g_control_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n < 0) return;
    buf[n] = '\0';
    struct config c;
    memset(&c, 0, sizeof c);
    strcpy(c.match, "pg_idgen");
    for (char* line = buf; line < buf + n;) {
        char* eol = memchr(line, '\n', (size_t)(buf + n - line));
        if (!eol) eol = buf + n;
        char* eq = memchr(line, '=', (size_t)(eol - line));
        if (eq) {
            size_t klen = (size_t)(eq - line);
            const char* v = eq + 1;
            if (klen == 14 && memcmp(line, "fsync_delay_ms", 14) == 0) c.fsync_delay_ms = parse_long(v, eol);
            else if (klen == 10 && memcmp(line, "fsync_fail", 10) == 0) c.fsync_fail = parse_long(v, eol);
            else if (klen == 10 && memcmp(line, "write_fail", 10) == 0) c.write_fail = parse_long(v, eol);
            else if (klen == 5 && memcmp(line, "match", 5) == 0) {
                size_t vlen = (size_t)(eol - v);
                if (vlen > 0 && vlen < MATCH_CAP) {
                    memcpy(c.match, v, vlen);
                    c.match[vlen] = '\0';
                }
            }
        }
        line = eol + 1;
    }
    c.have = 1;
    c.dev = st.st_dev;
    c.ino = st.st_ino;
    c.size = st.st_size;
    c.mtime = st.st_mtim;
    g_cfg = c;
    if (g_shared) {
        const uint64_t v = identity(&st);
        spin_lock(&g_shared->lock);
        if (g_shared->version != v) {
            g_shared->version = v;
            g_shared->fsync_fail_left = c.fsync_fail;
            g_shared->write_fail_left = c.write_fail;
        }
        spin_unlock(&g_shared->lock);
    }
}

/* Takes one failure from a shared count: -1 fails forever, N > 0 fails N more times. */
static int take_failure(int which) {
    if (!g_shared) return 0;
    volatile long* left = which == 0 ? &g_shared->fsync_fail_left : &g_shared->write_fail_left;
    long cur = __atomic_load_n(left, __ATOMIC_ACQUIRE);
    for (;;) {
        if (cur == 0) return 0;
        if (cur < 0) return 1;
        if (__atomic_compare_exchange_n(left, &cur, cur - 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return 1;
    }
}

/* The path of `fd` into `out` (NUL-terminated); 0 if unknown. */
static int fd_path(int fd, char* out, size_t cap) {
    char link[64];
    /* "/proc/self/fd/<fd>" without snprintf */
    static const char prefix[] = "/proc/self/fd/";
    memcpy(link, prefix, sizeof prefix - 1);
    char digits[16];
    int nd = 0;
    unsigned v = (unsigned)fd;
    do {
        digits[nd++] = (char)('0' + v % 10);
        v /= 10;
    } while (v && nd < 15);
    size_t pos = sizeof prefix - 1;
    while (nd) link[pos++] = digits[--nd];
    link[pos] = '\0';
    ssize_t n = readlink(link, out, cap - 1);
    if (n <= 0) return 0;
    out[n] = '\0';
    return 1;
}

static void record(const char* call, const char* result, const char* path) {
    if (!g_stats_path) return;
    char line[PATH_CAP + 96];
    size_t pos = 0;
    const char* parts[3] = {call, result, NULL};
    for (int i = 0; i < 2; ++i) {
        size_t l = strlen(parts[i]);
        memcpy(line + pos, parts[i], l);
        pos += l;
        line[pos++] = ' ';
    }
    char digits[16];
    int nd = 0;
    unsigned pid = (unsigned)getpid();
    do {
        digits[nd++] = (char)('0' + pid % 10);
        pid /= 10;
    } while (pid && nd < 15);
    while (nd) line[pos++] = digits[--nd];
    line[pos++] = ' ';
    size_t l = strlen(path);
    if (l > PATH_CAP) l = PATH_CAP;
    memcpy(line + pos, path, l);
    pos += l;
    line[pos++] = '\n';
    int fd = open(g_stats_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) return;
    (void)raw_write(fd, line, pos);
    close(fd);
}

static int do_sync(fsync_fn real, long sysno, const char* name, int fd) {
    if (!real) return (int)syscall(sysno, fd);
    if (!g_control_path) return real(fd);
    char path[PATH_CAP];
    if (!fd_path(fd, path, sizeof path)) return real(fd);
    refresh();
    if (!strstr(path, g_cfg.match)) return real(fd);
    record(name, "begin", path);
    if (g_cfg.fsync_delay_ms > 0) sleep_ms(g_cfg.fsync_delay_ms);
    if (take_failure(0)) {
        record(name, "injected", path);
        errno = EIO;
        return -1;
    }
    int rc = real(fd);
    int saved = errno;
    record(name, rc == 0 ? "ok" : "fail", path);
    errno = saved;
    return rc;
}

/* Whether a write to `fd` is to fail (ENOSPC) now. One stat of the control file per call; the
 * descriptor's path is only looked up while a write failure is armed. */
static int write_faulted(int fd, const char* name) {
    if (!g_control_path || !g_shared) return 0;
    refresh();
    if (__atomic_load_n(&g_shared->write_fail_left, __ATOMIC_ACQUIRE) == 0) return 0;
    char path[PATH_CAP];
    if (!fd_path(fd, path, sizeof path) || !strstr(path, g_cfg.match)) return 0;
    if (!take_failure(1)) return 0;
    record(name, "injected", path);
    return 1;
}

int fsync(int fd) { return do_sync(real_fsync, SYS_fsync, "fsync", fd); }

int fdatasync(int fd) { return do_sync(real_fdatasync, SYS_fdatasync, "fdatasync", fd); }

ssize_t write(int fd, const void* buf, size_t n) {
    if (!real_write) return syscall(SYS_write, fd, buf, n);
    if (write_faulted(fd, "write")) {
        errno = ENOSPC;
        return -1;
    }
    return real_write(fd, buf, n);
}

ssize_t pwrite(int fd, const void* buf, size_t n, off_t off) {
    if (!real_pwrite) return syscall(SYS_pwrite64, fd, buf, n, off);
    if (write_faulted(fd, "pwrite")) {
        errno = ENOSPC;
        return -1;
    }
    return real_pwrite(fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void* buf, size_t n, off_t off) {
    if (!real_pwrite64) return syscall(SYS_pwrite64, fd, buf, n, off);
    if (write_faulted(fd, "pwrite64")) {
        errno = ENOSPC;
        return -1;
    }
    return real_pwrite64(fd, buf, n, off);
}

ssize_t writev(int fd, const struct iovec* iov, int n) {
    if (!real_writev) return syscall(SYS_writev, fd, iov, n);
    if (write_faulted(fd, "writev")) {
        errno = ENOSPC;
        return -1;
    }
    return real_writev(fd, iov, n);
}

ssize_t pwritev(int fd, const struct iovec* iov, int n, off_t off) {
    if (!real_pwritev) return syscall(SYS_pwritev, fd, iov, n, off, 0);
    if (write_faulted(fd, "pwritev")) {
        errno = ENOSPC;
        return -1;
    }
    return real_pwritev(fd, iov, n, off);
}

ssize_t pwritev64(int fd, const struct iovec* iov, int n, off_t off) {
    if (!real_pwritev64) return syscall(SYS_pwritev, fd, iov, n, off, 0);
    if (write_faulted(fd, "pwritev64")) {
        errno = ENOSPC;
        return -1;
    }
    return real_pwritev64(fd, iov, n, off);
}
