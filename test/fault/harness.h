// Fault-injection tests: throwaway clusters with the fault shim preloaded, clients that collect every
// ID they are given, and the checks every scenario makes over them.
//
// The test binary makes one template cluster (initdb, the extension created in database
// "postgres") in its own work directory and copies it for each cluster a scenario starts. Every
// cluster runs with fsync = on (the faults are on fsync), id_gen.enable_test_clock = on,
// id_gen.node_id = 1, a Unix socket in its own directory, and fault_shim.so in the postmaster's
// LD_PRELOAD, controlled through <cluster dir>/fault.control (see fault_shim.c). Clusters are
// stopped by their destructor, so a failing test does not leave one running.
//
// Environment: IDGEN_PG_BINDIR (the server's bindir), IDGEN_FAULT_PORT (first port, default
// 55440), IDGEN_FAULT_WORK (parent of the work directory, default /tmp), IDGEN_FAULT_KEEP=1 (keep
// the work directory), IDGEN_PG_OS_USER (the clusters' owner when run as root, default postgres),
// IDGEN_FAULT_STATE_DIR (where the state files live, relative to $PGDATA, default pg_idgen/v2),
// IDGEN_INSTALL_LOCK (a lock file to hold, with flock, while a test installs another build).
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <pqxx/pqxx>
#include <string>
#include <thread>
#include <vector>

namespace idgen::fault {

using Clock = std::chrono::steady_clock;
using TimePoint = Clock::time_point;

struct Settings {
    std::string bindir;        // PostgreSQL programs
    std::string pg_config;     // for building the extension (PGXS)
    std::string source_dir;    // the repository (git history: older releases are built from it)
    std::string ext_dir;       // where this build of the extension was built (IDGEN_EXT_DIR, else the repository)
    std::string shim;          // fault_shim.so, copied into the work directory
    std::string work;          // this run's work directory
    std::string os_user;       // owner of the clusters ("" when not root: the current user)
    std::string state_dir;     // state files, relative to $PGDATA
    std::string install_lock;  // "" = none
    int port = 55440;
};
const Settings& settings();

// Shell helpers. run() returns the exit status; as_pg() runs a command as the clusters' owner.
std::string shell_quote(const std::string& s);
int run(const std::string& cmd);
int run_as_pg(const std::string& cmd);
void sleep_ms(long ms);
double ms_between(TimePoint a, TimePoint b);

enum class Mode { kNoPreload, kPreload };
inline const char* mode_name(Mode m) { return m == Mode::kPreload ? "preload" : "no preload"; }
inline void PrintTo(Mode m, std::ostream* os) { *os << mode_name(m); }
inline std::string mode_tag(const testing::TestParamInfo<Mode>& i) {
    return i.param == Mode::kPreload ? "Preload" : "NoPreload";
}

// One line of the shim's stats file: "<call> <result> <pid> <path>".
struct StatLine {
    std::string call, result, path;
    int pid = 0;
};

class Cluster {
public:
    // A copy of the template in <work>/<name>/data with `conf` appended to postgresql.conf (after
    // the port, socket directory and, in kPreload, shared_preload_libraries). Not started.
    Cluster(std::string name, Mode mode, const std::vector<std::string>& conf = {}, int port_offset = 0);
    // A cluster whose data directory the caller fills (pg_basebackup): only the directory is made.
    struct Empty {};
    Cluster(Empty, std::string name, Mode mode, int port_offset);
    ~Cluster();
    Cluster(const Cluster&) = delete;
    Cluster& operator=(const Cluster&) = delete;

    void append_conf(const std::vector<std::string>& lines);
    void start();                         // throws with the server log's tail on failure
    void stop(const char* how = "fast");  // bounded; never throws
    void restart() {
        stop();
        start();
    }
    bool running() const { return running_.load(); }
    int pg_ctl(const std::string& args);  // as the owner, with the shim's environment

    [[nodiscard]] std::string dsn(const std::string& db = "postgres") const;
    [[nodiscard]] const std::string& dir() const { return dir_; }
    [[nodiscard]] const std::string& pgdata() const { return pgdata_; }
    [[nodiscard]] int port() const { return port_; }
    [[nodiscard]] Mode mode() const { return mode_; }
    // $PGDATA/<state dir>/<file>, e.g. state_path("node_1").
    [[nodiscard]] std::string state_path(const std::string& file) const;
    [[nodiscard]] std::string log_tail(int lines = 30) const;
    // How many lines of the server log contain `text`.
    [[nodiscard]] std::size_t log_count(const std::string& text) const;
    // Waits (bounded) until more than `seen` lines of the server log contain "database system is
    // ready to accept connections": after a crash, the postmaster has reinitialized.
    bool wait_ready_after(std::size_t seen, double seconds) const;

    // Replaces the shim's control file (atomically) with `lines`; "" clears every fault.
    void set_fault(const std::string& lines);
    [[nodiscard]] std::vector<StatLine> stats() const;
    // Completed syncs (fsync or fdatasync, result "ok") of a path containing `part`.
    [[nodiscard]] std::size_t ok_syncs(const std::string& part) const;

    // Runs one statement on a fresh connection (admin work: CREATE, ALTER SYSTEM ...).
    void exec(const std::string& sql, const std::string& db = "postgres") const;
    // The first column of the first row of `sql`, as text.
    [[nodiscard]] std::string query_value(const std::string& sql, const std::string& db = "postgres") const;

private:
    void init_dir(const std::string& name, int port_offset);
    void track();  // from here on, stopped at exit should a test leak it
    std::string name_, dir_, pgdata_;
    Mode mode_;
    int port_ = 0;
    std::atomic<bool> running_{false};
};

// Connects, retrying while the server starts or restarts after a crash (bounded by `seconds`).
std::unique_ptr<pqxx::connection> connect_retrying(const std::string& dsn, double seconds = 30);

// One call's outcome: an ID, or an error with its SQLSTATE and full text (message, detail, hint).
struct Call {
    bool ok = false;
    bool null = false;
    long long id = 0;
    std::string sqlstate;  // "" on success; "broken" when the connection was lost
    std::string error;
    TimePoint start, end;
};

// Runs `sql` (one row, one bigint column) on `c` in autocommit mode.
Call call_id(pqxx::connection& c, const std::string& sql);
// Runs `sql` (one bigint column, rows in order) and returns every value; throws on error.
std::vector<long long> query_ids(pqxx::connection& c, const std::string& sql);

// Every ID a scenario was given, per connection in the order received, with when its call ran.
// check() makes the assertions each scenario shares:
//  * no ID is 0 or NULL, and no ID repeats;
//  * each connection's IDs strictly increase;
//  * for each fault (an instant or a window [from, to]): every ID whose call started after the
//    fault is greater than every ID whose call had ended before it.
// It prints "scenario <name>: N IDs issued and checked".
// gen_monotonic_ulid() as a bigint for IdBook: the ULID's first 64 bits (ms << 16 | counter),
// which alone order and tell apart the ULIDs it issues.
inline constexpr const char* kMonotonicUlidOrder =
    "('x' || substr(replace(gen_monotonic_ulid()::uuid::text, '-', ''), 1, 16))::bit(64)::bigint";

class IdBook {
public:
    int new_conn();
    void add(int conn, const Call& call);  // successful calls only are recorded
    void add_many(int conn, const std::vector<long long>& ids, TimePoint start, TimePoint end);
    void fault_at(TimePoint t) { fault_window(t, t); }
    void fault_window(TimePoint from, TimePoint to);
    [[nodiscard]] std::size_t size() const;
    [[nodiscard]] long long max_id() const;
    // IDs whose call started after `t`.
    [[nodiscard]] std::vector<long long> ids_after(TimePoint t) const;
    void check(const std::string& scenario) const;

private:
    struct Entry {
        int conn;
        long long id;
        bool null;
        TimePoint start, end;
    };
    mutable std::mutex mu_;
    std::vector<Entry> entries_;
    std::vector<std::pair<TimePoint, TimePoint>> faults_;
    int conns_ = 0;
};

// Bounds a scenario. When `seconds` pass before finish(), the deadline is marked expired, the
// cluster's faults are cleared (a backend stuck retrying a slow fsync can then finish) and, if the
// scenario still has not finished 5 s later, the cluster is stopped immediately, which ends every
// client call in progress. Loops ask expired() to stop early.
class Deadline {
public:
    Deadline(Cluster& c, double seconds, std::string what);
    ~Deadline();
    [[nodiscard]] bool expired() const { return expired_.load(); }
    void finish();

private:
    Cluster& c_;
    std::string what_;
    std::atomic<bool> expired_{false};
    std::mutex mu_;
    std::condition_variable cv_;
    bool done_ = false;
    std::thread t_;
};

// Runs `body(i)` on `n` threads and joins them.
void parallel(int n, const std::function<void(int)>& body);

// Waits (bounded) until the stats, from line `from_line` on, show a sync of a path containing
// `part` begun by backend `pid`.
bool wait_sync_begun(const Cluster& c, std::size_t from_line, int pid, const std::string& part, double seconds);

// The primary message of an error text from libpq (its first line, without "ERROR:  ").
std::string primary_message(const std::string& error);
// Whether the error text carries a HINT.
bool has_hint(const std::string& error);
bool file_exists(const std::string& path);

inline const std::string kGen = "SELECT gen_snowflake()::bigint";

}  // namespace idgen::fault
