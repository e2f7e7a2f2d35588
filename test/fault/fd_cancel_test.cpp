// A wait for a state file's lock that is cancelled: the backend must not keep a descriptor it opened
// for the wait (without preloading, once its cache of 16 open state files is full), and, preloaded,
// the cancel must be honoured at once although the wait is part of the LWLock-serialized slow path.
// The lock is held by this test process itself (flock(2) on the file under the cluster's data
// directory), standing in for a backend stuck in a slow fsync.
#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <future>
#include <string>
#include <vector>

#include "harness.h"

namespace idgen::fault {
namespace {

// Open descriptors of process `pid` (this test runs as root or as the clusters' owner).
int open_fds(int pid) {
    DIR* d = ::opendir(("/proc/" + std::to_string(pid) + "/fd").c_str());
    if (d == nullptr) return -1;
    int n = 0;
    while (dirent* e = ::readdir(d))
        if (e->d_name[0] != '.') ++n;
    ::closedir(d);
    return n;
}

// Holds an exclusive flock on a file until destroyed.
class FileLock {
public:
    explicit FileLock(const std::string& path) : fd_(::open(path.c_str(), O_RDWR | O_CLOEXEC)) {
        if (fd_ >= 0 && ::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
            ::close(fd_);
            fd_ = -1;
        }
    }
    ~FileLock() { release(); }
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;
    [[nodiscard]] bool held() const { return fd_ >= 0; }
    void release() {
        if (fd_ < 0) return;
        ::flock(fd_, LOCK_UN);
        ::close(fd_);
        fd_ = -1;
    }

private:
    int fd_;
};

void exec(pqxx::connection& c, const std::string& sql) {
    pqxx::nontransaction tx(c);
    tx.exec(sql);
}

constexpr int kShards = 18;  // more than the 16 descriptors a backend keeps open

// Shards 1 to kShards, each with a state file of its own (shard_<database oid>_<n>).
std::string make_shards(Cluster& c) {
    for (int s = 1; s <= kShards; ++s) c.exec("SELECT create_shard(" + std::to_string(s) + ")");
    return c.query_value("SELECT oid FROM pg_database WHERE datname = current_database()");
}

std::string shard_call(int s) { return "SELECT shard_" + std::to_string(s) + ".next_id()"; }

// Without preloading: a backend opens the state file of every shard it calls (kShards of them:
// its cache of open files is full), then calls the last shard 21 times while this process holds
// that shard's file lock, each call ended by statement_timeout while it waits. The backend's open
// descriptors are counted after the first cancelled call and after the 20 others: the same number.
// (Before: the descriptor opened for each wait outside the cache was never closed, one per cancel.)
TEST(FdCancel, CancelledLockWaitsLeakNoDescriptor) {
    Cluster c("fd-nopre", Mode::kNoPreload);
    c.start();
    // On 17 and later a server without preloading keeps generator state in the DSM registry and
    // writes the files only for its marks: no lease is taken under a file lock, so no call waits.
    if (c.query_value("SELECT snowflake_state_storage()") != "files")
        GTEST_SKIP() << "the generators keep their state in shared memory (the DSM registry) on this server";
    const std::string db = make_shards(c);
    auto a = connect_retrying(c.dsn());
    const int pid = a->backendpid();
    for (int s = 1; s <= kShards; ++s) {
        Call r = call_id(*a, shard_call(s));
        ASSERT_TRUE(r.ok) << "shard " << s << ": " << r.error;
    }
    Deadline d(c, 120, "descriptor leak scenario");
    FileLock lock(c.state_path("shard_" + db + "_" + std::to_string(kShards)));
    ASSERT_TRUE(lock.held()) << "cannot lock the state file of shard " << kShards;
    sleep_ms(20);  // the backend's lease of that shard's time unit is stale by now
    exec(*a, "SET statement_timeout = '50ms'");
    const auto cancelled_call = [&](int i) {
        Call r = call_id(*a, shard_call(kShards));
        EXPECT_FALSE(r.ok) << "call " << i << " got ID " << r.id << " while the file was locked";
        EXPECT_EQ(r.sqlstate, "57014") << "call " << i << ": " << r.error;
        EXPECT_LE(ms_between(r.start, r.end), 2000.0) << "call " << i << " was not cancelled promptly";
    };
    cancelled_call(0);
    const int before = open_fds(pid);
    ASSERT_GT(before, 0) << "cannot count the descriptors of backend " << pid;
    for (int i = 1; i <= 20 && !d.expired(); ++i) cancelled_call(i);
    const int after = open_fds(pid);
    std::printf("backend descriptors: %d after the first cancelled lock wait, %d after 20 more\n", before, after);
    EXPECT_EQ(after, before) << "20 cancelled lock waits left " << after - before << " descriptors open";
    // Once the file is free, the shard works on that connection again.
    lock.release();
    exec(*a, "RESET statement_timeout");
    Call r = call_id(*a, shard_call(kShards));
    EXPECT_TRUE(r.ok) << r.error;
    EXPECT_EQ(open_fds(pid), before) << "a call after the lock was released left a descriptor open";
    d.finish();
}

// Preloaded: the slow path (loading a slot, persisting a new mark) runs under an LWLock, which holds
// off interrupts. A: a shard's next_id() that needs a new mark (its clock moved 5 s ahead) while
// this process holds the shard's file lock, with statement_timeout = 300ms, then the same ended by
// pg_cancel_backend() after 300 ms: each must fail with 57014 within 2 s of its timeout or cancel.
// Meanwhile B, on another key (gen_snowflake(), also needing a new mark), is not held up.
// (Before: the wait for the file lock sat under the LWLock, so the cancel was held off until the
// 10 s bound, and every other backend's slow path waited behind it.)
TEST(FdCancel, PreloadedLockWaitHonoursCancel) {
    Cluster c("fd-pre", Mode::kPreload);
    c.start();
    const std::string db = make_shards(c);
    auto a = connect_retrying(c.dsn());
    auto b = connect_retrying(c.dsn());
    const int a_pid = a->backendpid();
    for (int s = 1; s <= kShards; ++s) {
        Call r = call_id(*a, shard_call(s));
        ASSERT_TRUE(r.ok) << "shard " << s << ": " << r.error;
    }
    ASSERT_TRUE(call_id(*b, kGen).ok);
    Deadline d(c, 90, "preloaded cancel scenario");
    FileLock lock(c.state_path("shard_" + db + "_1"));
    ASSERT_TRUE(lock.held()) << "cannot lock the state file of shard 1";
    const int fds_before = open_fds(a_pid);
    exec(*a, "SET id_gen.test_clock_offset = '5s'");
    exec(*b, "SET id_gen.test_clock_offset = '5s'");
    exec(*a, "SET statement_timeout = '300ms'");
    auto waiting = std::async(std::launch::async, [&] { return call_id(*a, shard_call(1)); });
    sleep_ms(100);
    Call other = call_id(*b, kGen);  // needs the LWLock while A waits for the file
    Call r = waiting.get();
    std::printf(
        "preloaded lock wait: statement_timeout honoured after %ld ms (timeout 300 ms); another key's "
        "call took %ld ms meanwhile\n",
        static_cast<long>(ms_between(r.start, r.end)), static_cast<long>(ms_between(other.start, other.end)));
    EXPECT_FALSE(r.ok) << "got ID " << r.id << " while the file was locked";
    EXPECT_EQ(r.sqlstate, "57014") << r.error;
    EXPECT_LE(ms_between(r.start, r.end), 2300.0) << "statement_timeout was held off";
    EXPECT_TRUE(other.ok) << other.error;
    EXPECT_LE(ms_between(other.start, other.end), 2000.0) << "another key's call waited behind the locked file";

    exec(*a, "RESET statement_timeout");
    waiting = std::async(std::launch::async, [&] { return call_id(*a, shard_call(1)); });
    sleep_ms(300);
    const TimePoint cancelled = Clock::now();
    c.exec("SELECT pg_cancel_backend(" + std::to_string(a_pid) + ")");
    r = waiting.get();
    std::printf("preloaded lock wait: pg_cancel_backend() honoured after %ld ms\n",
                static_cast<long>(ms_between(cancelled, r.end)));
    EXPECT_FALSE(r.ok) << "got ID " << r.id << " while the file was locked";
    EXPECT_EQ(r.sqlstate, "57014") << r.error;
    EXPECT_LE(ms_between(cancelled, r.end), 2000.0) << "pg_cancel_backend() was held off";
    EXPECT_EQ(open_fds(a_pid), fds_before) << "the cancelled lock waits left descriptors open";

    lock.release();
    r = call_id(*a, shard_call(1));
    EXPECT_TRUE(r.ok) << "after the file was unlocked: " << r.error;
    d.finish();
}

}  // namespace
}  // namespace idgen::fault
