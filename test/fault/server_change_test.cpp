// The server under the generator changes: a standby is promoted after its primary ran ahead of the
// clock, and the library is replaced (0.1.0 -> this build) while backends run the old one.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "harness.h"

namespace idgen::fault {
namespace {

std::string tag(Mode m) { return m == Mode::kPreload ? "pre" : "nopre"; }

class Failover : public testing::TestWithParam<Mode> {};

// Makes the empty cluster `s` a streaming standby of `p` (pg_basebackup -R), on its own port and
// socket; 0 on success, else pg_basebackup's exit status (its output in s.dir()/basebackup.log).
int make_standby(Cluster& p, Cluster& s) {
    const int rc = run_as_pg(shell_quote(settings().bindir + "/pg_basebackup") + " -h " + shell_quote(p.dir()) +
                             " -p " + std::to_string(p.port()) + " -U postgres -D " + shell_quote(s.pgdata()) +
                             " -R -X stream -c fast --no-sync >" + shell_quote(s.dir() + "/basebackup.log") + " 2>&1");
    if (rc == 0) s.append_conf({"port = " + std::to_string(s.port()), "unix_socket_directories = '" + s.dir() + "'"});
    return rc;
}

// Scenario 9. Primary P (node 1, id_gen.max_run_ahead = 5s) and a streaming standby S made with
// pg_basebackup -R. P issues sonyflake IDs (256 per 10 ms) in a burst large enough to run about 3 s
// ahead of the clock, is stopped with -m immediate, and S is promoted: every ID S issues is above
// every ID P issued.
//
// The failover rule that makes this safe: a promoted server starts issuing after its clock plus the
// run-ahead horizon (id_gen.max_run_ahead), since its primary may have issued IDs up to that far
// ahead of the clock and the standby's copy of the state file is older than those IDs. This holds
// only if the old primary is stopped before the promotion (it must not issue again) and the two
// servers' clocks are in sync.
TEST_P(Failover, PromotedStandbyIssuesAboveThePrimary) {
    const Mode mode = GetParam();
    const std::string sony = "gen_snowflake('sonyflake')::bigint";
    Cluster p("s9-p-" + tag(mode), mode, {"id_gen.max_run_ahead = '5s'"});
    p.start();
    Deadline dp(p, 60, "scenario 9, primary");
    IdBook book;
    auto pc = connect_retrying(p.dsn());
    const int pid = book.new_conn();
    for (int k = 0; k < 100; ++k) {
        Call r = call_id(*pc, "SELECT " + sony);
        ASSERT_TRUE(r.ok) << r.error;
        book.add(pid, r);
    }

    Cluster s(Cluster::Empty{}, "s9-s-" + tag(mode), mode, 1);
    ASSERT_EQ(make_standby(p, s), 0) << "pg_basebackup failed: see " << s.dir() << "/basebackup.log";
    s.start();
    EXPECT_EQ(s.query_value("SELECT pg_is_in_recovery()::text"), "true");

    // The burst: 80,000 IDs at 25,600 per second of ID time run ~3 s ahead of the clock.
    const TimePoint b0 = Clock::now();
    const auto burst =
        query_ids(*pc, "SELECT " + sony + " FROM generate_series(1, 80000) WITH ORDINALITY AS g(v, n) ORDER BY n");
    const TimePoint b1 = Clock::now();
    book.add_many(pid, burst, b0, b1);
    ASSERT_EQ(burst.size(), 80000u);
    {
        const auto ahead_of_clock = [&](std::int64_t id) {
            pqxx::nontransaction tx(*pc);
            return tx
                .exec("SELECT extract(epoch FROM snowflake_time(" + std::to_string(id) +
                      "::snowflake, 'sonyflake') - clock_timestamp()) * 1000")[0][0]
                .as<double>();
        };
        double ahead_ms = ahead_of_clock(burst.back());
        std::cout << "scenario 9 (" << mode_name(mode) << "): the burst took " << static_cast<long>(ms_between(b0, b1))
                  << " ms; P's last ID is " << static_cast<long>(ahead_ms) << " ms ahead of the clock" << std::endl;
        if (ahead_ms < 1000.0) {
            // A machine too busy to issue faster than the layout's 25,600 IDs per second: P's
            // clock is moved ahead instead (the test clock, this session only), so that its last
            // IDs are as far ahead of the real clock as a burst would have taken them (2.5 s: the
            // check below wants 1 s, and a loaded machine takes hundreds of ms between statements).
            const long shift = static_cast<long>(2500.0 - ahead_ms);
            {
                pqxx::nontransaction tx(*pc);
                tx.exec("SET id_gen.test_clock_offset = " + std::to_string(shift));
            }
            const TimePoint t0 = Clock::now();
            const auto topped = query_ids(
                *pc, "SELECT " + sony + " FROM generate_series(1, 1000) WITH ORDINALITY AS g(v, n) ORDER BY n");
            book.add_many(pid, topped, t0, Clock::now());
            ASSERT_EQ(topped.size(), 1000u);
            ahead_ms = ahead_of_clock(topped.back());
            std::cout << "scenario 9 (" << mode_name(mode) << "): P's clock moved " << shift
                      << " ms ahead; its last ID is " << static_cast<long>(ahead_ms) << " ms ahead of the clock"
                      << std::endl;
        }
        EXPECT_GE(ahead_ms, 1000.0) << "P's last ID is not ahead of the clock: the scenario tests nothing";
    }
    pc.reset();
    dp.finish();
    p.stop("immediate");
    book.fault_at(Clock::now());
    ASSERT_EQ(s.pg_ctl("promote -w -t 60"), 0) << "pg_ctl promote failed:\n" << s.log_tail();

    Deadline ds(s, 30, "scenario 9, promoted standby");
    auto sc = connect_retrying(s.dsn());
    EXPECT_EQ(s.query_value("SELECT pg_is_in_recovery()::text"), "false");
    const int sid = book.new_conn();
    for (int k = 0; k < 100; ++k) {
        Call r = call_id(*sc, "SELECT " + sony);
        EXPECT_TRUE(r.ok) << "promoted standby: " << r.error;
        book.add(sid, r);
    }
    const TimePoint s0 = Clock::now();
    const auto more =
        query_ids(*sc, "SELECT " + sony + " FROM generate_series(1, 10000) WITH ORDINALITY AS g(v, n) ORDER BY n");
    book.add_many(sid, more, s0, Clock::now());
    ds.finish();
    book.check("9 failover (" + std::string(mode_name(mode)) + ")");
}

// Scenario 9b: the promoted server's clock steps back (the test clock, 20 s) once it has issued its
// first ID: reloaded, and then across a restart. The standby's records are the base backup's (the
// state files are not WAL-logged), so the old primary's IDs lie above them; the promoted server
// starts above its clock plus the horizon, and that clock is the one it read at its first takeover
// (takeover_clock), not the stepped-back one. Three layouts: twitter, read on S before the step
// back (its first call), sonyflake, first read after the reload, and javascript, used on P only
// after the base backup (S has no file of it: made afresh on the new timeline), first read after
// the restart; and gen_monotonic_ulid(), used on P before the backup and first read on S after
// the restart. Every ID S issues is above every ID P issued, generator by generator.
TEST_P(Failover, ClockStepsBackOnThePromotedServer) {
    const Mode mode = GetParam();
    const std::vector<std::string> layouts = {"twitter", "sonyflake", "javascript", "monotonic ULID"};
    const auto sql = [&](int g, int n) {
        const std::string call =
            g == 3 ? std::string(kMonotonicUlidOrder) : "gen_snowflake('" + layouts[g] + "')::bigint";
        return "SELECT " + call + " FROM generate_series(1, " + std::to_string(n) +
               ") WITH ORDINALITY AS g(v, k) ORDER BY k";
    };
    Cluster p("s9b-p-" + tag(mode), mode);
    p.start();
    Deadline dp(p, 60, "scenario 9b, primary");
    IdBook book[4];
    int pconn[4];
    auto pc = connect_retrying(p.dsn());
    const auto issue = [&](pqxx::connection& c, int g, int conn, int n) {
        const TimePoint t0 = Clock::now();
        const auto ids = query_ids(c, sql(g, n));
        book[g].add_many(conn, ids, t0, Clock::now());
        ASSERT_EQ(ids.size(), static_cast<std::size_t>(n)) << layouts[g];
    };
    for (int g = 0; g < 4; ++g) pconn[g] = book[g].new_conn();
    for (int g : {0, 1, 3}) issue(*pc, g, pconn[g], 100);

    Cluster s(Cluster::Empty{}, "s9b-s-" + tag(mode), mode, 1);
    ASSERT_EQ(make_standby(p, s), 0) << "pg_basebackup failed: see " << s.dir() << "/basebackup.log";
    s.start();
    // P goes on for 1.5 s: its marks move on, the standby's copies stay where the backup left them.
    const TimePoint until = Clock::now() + std::chrono::milliseconds(1500);
    while (Clock::now() < until && !dp.expired())
        for (int g = 0; g < 4; ++g) issue(*pc, g, pconn[g], 20);
    long long p_max[4];
    for (int g = 0; g < 4; ++g) p_max[g] = book[g].max_id();
    pc.reset();
    dp.finish();
    p.stop("immediate");
    const TimePoint promoted = Clock::now();
    for (auto& b : book) b.fault_at(promoted);
    ASSERT_EQ(s.pg_ctl("promote -w -t 60"), 0) << "pg_ctl promote failed:\n" << s.log_tail();

    Deadline ds(s, 60, "scenario 9b, promoted standby");
    int sconn[4];
    for (int g = 0; g < 4; ++g) sconn[g] = book[g].new_conn();
    {
        auto sc = connect_retrying(s.dsn());
        issue(*sc, 0, sconn[0], 1);  // the first ID after the promotion, the clocks in step
        // In a session that loaded id_gen: without preloading, 15 knows the setting only there.
        pqxx::nontransaction tx(*sc);
        tx.exec("ALTER SYSTEM SET id_gen.test_clock_offset = -20000");
        tx.exec("SELECT pg_reload_conf()");
    }
    sleep_ms(300);  // the postmaster has passed the reload on
    {
        auto sc = connect_retrying(s.dsn());
        issue(*sc, 1, sconn[1], 100);  // first read after the reload
        {
            pqxx::nontransaction tx(*sc);
            EXPECT_EQ(tx.exec("SHOW id_gen.test_clock_offset")[0][0].as<std::string>(), "-20000");
        }
        issue(*sc, 0, sconn[0], 100);
    }
    s.restart();
    {
        auto sc = connect_retrying(s.dsn());
        // javascript and the monotonic ULID: first read after the restart.
        for (int g : {2, 3, 1, 0}) issue(*sc, g, sconn[g], 100);
    }
    ds.finish();
    for (int g = 0; g < 4; ++g) {
        const auto after = book[g].ids_after(promoted);
        ASSERT_FALSE(after.empty()) << layouts[g];
        const long long s_min = *std::min_element(after.begin(), after.end());
        std::cout << "scenario 9b (" << mode_name(mode) << ", " << layouts[g] << "): P's last ID " << p_max[g]
                  << ", the promoted server's first " << s_min << " (" << (s_min > p_max[g] ? "above" : "NOT above")
                  << ")" << std::endl;
        book[g].check("9b failover, then the clock back (" + layouts[g] + ", " + mode_name(mode) + ")");
    }
}

INSTANTIATE_TEST_SUITE_P(Fault, Failover, testing::Values(Mode::kNoPreload, Mode::kPreload), mode_tag);

// ---------------------------------------------------------------------------------------------
// Scenario 10: 0.1.0 and this build side by side.

constexpr const char* kOldCommit = "fca7b70";  // 0.1.0

std::string read_file(const std::string& path) {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

bool is_ancestor(int pid) {
    int cur = getppid();
    for (int depth = 0; cur > 1 && depth < 64; ++depth) {
        if (cur == pid) return true;
        const std::string st = read_file("/proc/" + std::to_string(cur) + "/stat");
        const auto close = st.rfind(')');
        if (close == std::string::npos) return false;
        std::istringstream in(st.substr(close + 1));
        std::string state;
        int ppid = 0;
        in >> state >> ppid;
        cur = ppid;
    }
    return false;
}

// The lock every installation of the extension on this machine is made under (IDGEN_INSTALL_LOCK):
// taken here, unless a process this test runs under already holds it (scripts run under it).
class InstallLock {
public:
    explicit InstallLock(const std::string& path) {
        if (path.empty()) return;
        fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
        if (fd_ < 0) {
            error_ = "cannot open " + path;
            return;
        }
        struct stat st {};
        ::fstat(fd_, &st);
        const TimePoint until = Clock::now() + std::chrono::minutes(5);
        while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
            if (held_by_ancestor(st.st_ino)) {
                ::close(fd_);
                fd_ = -1;
                return;
            }
            if (Clock::now() > until) {
                error_ = "timed out waiting for " + path;
                return;
            }
            sleep_ms(200);
        }
    }
    ~InstallLock() {
        if (fd_ >= 0) ::close(fd_);
    }
    [[nodiscard]] const std::string& error() const { return error_; }

private:
    static bool held_by_ancestor(ino_t ino) {
        std::istringstream locks(read_file("/proc/locks"));
        std::string line;
        const std::string suffix = ":" + std::to_string(static_cast<unsigned long>(ino));
        while (std::getline(locks, line)) {
            if (line.find("->") != std::string::npos || line.find("FLOCK") == std::string::npos) continue;
            std::istringstream in(line);
            std::string num, kind, adv, mode, dev_ino;
            int pid = 0;
            in >> num >> kind >> adv >> mode >> pid >> dev_ino;
            if (dev_ino.size() > suffix.size() &&
                dev_ino.compare(dev_ino.size() - suffix.size(), suffix.size(), suffix) == 0 && is_ancestor(pid))
                return true;
        }
        return false;
    }
    int fd_ = -1;
    std::string error_;
};

int make_install(const std::string& dir, const std::string& log) {
    return run("make -C " + shell_quote(dir) + " -s install PG_CONFIG=" + shell_quote(settings().pg_config) + " >>" +
               shell_quote(log) + " 2>&1");
}

// Scenario 10 (no preload). A backend O loads the 0.1.0 library; this build is then installed and
// a new backend N loads it. O and N generate at the same time: every ID either returns is unique (O
// may refuse with an error instead). After a restart, every new ID is above every ID before.
TEST(UpgradeWindow, OldAndNewLibrarySideBySide) {
    const Settings& st = settings();
    const std::string old_dir = st.work + "/old-0.1.0";  // this run's cache of the 0.1.0 build
    const std::string log = st.work + "/old-0.1.0.log";
    if (run("git -C " + shell_quote(st.source_dir) + " rev-parse -q --verify " + std::string(kOldCommit) +
            "^{commit} >/dev/null 2>&1") != 0)
        GTEST_SKIP() << "0.1.0 (commit " << kOldCommit << ") is not in a git repository at " << st.source_dir
                     << ": cannot build the old library";
    // 0.1.0 only builds against 15 (16 moved the varlena macros to varatt.h): the window from 0.1.0
    // exists on 15 servers only.
    if (run(shell_quote(st.pg_config) + " --version | grep -q 'PostgreSQL 15\\.'") != 0)
        GTEST_SKIP() << "0.1.0 does not build against this server (only against 15)";
    if (!file_exists(old_dir + "/id_gen.so")) {
        ASSERT_EQ(run("mkdir -p " + shell_quote(old_dir) + " && git -C " + shell_quote(st.source_dir) + " archive " +
                      kOldCommit + " | tar -x -C " + shell_quote(old_dir)),
                  0);
        ASSERT_EQ(run("make -C " + shell_quote(old_dir) + " -s -j2 PG_CONFIG=" + shell_quote(st.pg_config) + " >" +
                      shell_quote(log) + " 2>&1"),
                  0)
            << "building 0.1.0 failed: see " << log;
    }

    InstallLock lock(st.install_lock);
    ASSERT_EQ(lock.error(), "");
    // Whatever happens below, this build is installed again at the end.
    struct Reinstall {
        std::string src, log;
        ~Reinstall() {
            if (make_install(src, log) != 0) ADD_FAILURE() << "re-installing this build failed: see " << log;
        }
    } reinstall{st.ext_dir, log};

    ASSERT_EQ(make_install(old_dir, log), 0) << "installing 0.1.0 failed: see " << log;
    Cluster c("s10-nopre", Mode::kNoPreload);
    c.start();
    Deadline d(c, 60, "scenario 10");
    c.exec("CREATE DATABASE side");
    c.exec("CREATE EXTENSION id_gen", "side");
    ASSERT_EQ(c.query_value("SELECT extversion FROM pg_extension WHERE extname = 'id_gen'", "side"), "0.1.0");

    IdBook book;
    auto o = connect_retrying(c.dsn("side"));
    const int oid = book.new_conn();
    for (int k = 0; k < 50; ++k) {
        Call r = call_id(*o, kGen);
        ASSERT_TRUE(r.ok) << "0.1.0: " << r.error;
        book.add(oid, r);
    }

    ASSERT_EQ(make_install(st.ext_dir, log), 0) << "installing this build failed: see " << log;
    auto n = connect_retrying(c.dsn("side"));
    const int nid = book.new_conn();
    std::size_t o_errors = 0;
    std::string o_error;
    std::string n_error;
    std::atomic<bool> stop{false};
    std::thread tn([&] {
        while (!stop && !d.expired()) {
            Call r = call_id(*n, kGen);
            if (!r.ok) {
                n_error = r.sqlstate + ": " + r.error;
                return;
            }
            book.add(nid, r);
        }
    });
    const TimePoint t0 = Clock::now();
    while (ms_between(t0, Clock::now()) < 1500 && !d.expired()) {
        Call r = call_id(*o, kGen);
        if (r.ok) {
            book.add(oid, r);
        } else {
            if (o_errors++ == 0) o_error = r.sqlstate + ": " + r.error;
        }
    }
    stop = true;
    tn.join();
    EXPECT_EQ(n_error, "") << "the new library failed";
    std::cout << "scenario 10: side by side, the 0.1.0 backend had " << o_errors << " calls refused"
              << (o_errors ? " (first: " + o_error + ")" : std::string()) << std::endl;

    o.reset();
    n.reset();
    book.fault_at(Clock::now());
    c.restart();
    auto after = connect_retrying(c.dsn("side"));
    const int aid = book.new_conn();
    for (int k = 0; k < 300; ++k) {
        Call r = call_id(*after, kGen);
        EXPECT_TRUE(r.ok) << "after the restart: " << r.error;
        book.add(aid, r);
    }
    d.finish();
    book.check("10 0.1.0 and the new library side by side (no preload)");
}

}  // namespace
}  // namespace idgen::fault
