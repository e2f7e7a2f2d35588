// Fault-injection tests: the harness (see harness.h).
#include "harness.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <stdexcept>

#ifndef IDGEN_SOURCE_DIR
#error "IDGEN_SOURCE_DIR must name the repository"
#endif
#ifndef IDGEN_FAULT_SHIM
#error "IDGEN_FAULT_SHIM must name the built fault_shim library"
#endif

namespace idgen::fault {

namespace {

std::string env_or(const char* name, const std::string& fallback) {
    const char* v = std::getenv(name);
    return v && *v ? v : fallback;
}

std::string capture(const std::string& cmd) {
    std::string out;
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return out;
    char buf[512];
    while (fgets(buf, sizeof buf, p)) out += buf;
    pclose(p);
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
    return out;
}

Settings g_settings;
std::mutex g_clusters_mu;
std::set<Cluster*> g_clusters;  // every live cluster, stopped at exit if a test leaked one

std::string template_dir() { return g_settings.work + "/template"; }

void write_file(const std::string& path, const std::string& text) {
    std::ofstream f(path, std::ios::trunc);
    f << text;
    if (!f) throw std::runtime_error("cannot write " + path);
}

// Keeps a cluster's server log before its directory is removed (a scenario's cluster when it goes,
// the template's at the end): copied into $IDGEN_SERVER_LOGS, where scripts/test.sh scans every
// log of the layer for assertion failures and leaked resources (lib.sh, scan_server_logs). Nothing
// when that variable is unset.
void keep_server_log(const std::string& dir) {
    const std::string keep = env_or("IDGEN_SERVER_LOGS", "");
    if (keep.empty() || !file_exists(dir + "/server.log")) return;
    static std::atomic<unsigned> n{0};
    const std::string to = keep + "/fault-" + dir.substr(dir.find_last_of('/') + 1) + "." + std::to_string(getpid()) +
                           "." + std::to_string(++n) + ".server.log";
    if (run("mkdir -p " + shell_quote(keep) + " && cp " + shell_quote(dir + "/server.log") + " " + shell_quote(to)) !=
        0)
        std::cerr << "note: the server log of " << dir << " was not kept\n";
}

// The template cluster: initdb once per run, the extension created in "postgres".
class Environment : public testing::Environment {
public:
    void SetUp() override {
        Settings& s = g_settings;
        s.source_dir = IDGEN_SOURCE_DIR;
        s.ext_dir = env_or("IDGEN_EXT_DIR", s.source_dir);
        s.pg_config = env_or("PG_CONFIG", "");
        const std::string bindir = env_or("IDGEN_PG_BINDIR", "");
        if (s.pg_config.empty()) s.pg_config = bindir.empty() ? "pg_config" : bindir + "/pg_config";
        s.bindir = bindir.empty() ? capture(shell_quote(s.pg_config) + " --bindir") : bindir;
        s.port = std::atoi(env_or("IDGEN_FAULT_PORT", "55440").c_str());
        s.state_dir = env_or("IDGEN_FAULT_STATE_DIR", "pg_idgen/v2");
        s.install_lock = env_or("IDGEN_INSTALL_LOCK", "");
        s.os_user = geteuid() == 0 ? env_or("IDGEN_PG_OS_USER", "postgres") : "";
        // The work directory's path must not contain the shim's match string ("pg_idgen"), or
        // the server's own files would be faulted too.
        std::string parent = env_or("IDGEN_FAULT_WORK", "/tmp");
        run("mkdir -p " + shell_quote(parent));
        std::string tmpl = parent + "/idgen_fault.XXXXXX";
        std::vector<char> buf(tmpl.begin(), tmpl.end());
        buf.push_back('\0');
        if (!mkdtemp(buf.data())) throw std::runtime_error("mkdtemp failed under " + parent);
        s.work = buf.data();
        chmod(s.work.c_str(), 0755);
        s.shim = s.work + "/fault_shim.so";
        if (run("cp " + shell_quote(IDGEN_FAULT_SHIM) + " " + shell_quote(s.shim) + " && chmod 755 " +
                shell_quote(s.shim)) != 0)
            throw std::runtime_error("cannot copy the fault shim " IDGEN_FAULT_SHIM);

        const std::string t = template_dir();
        run("mkdir -p " + shell_quote(t));
        if (!s.os_user.empty()) run("chown " + shell_quote(s.os_user) + " " + shell_quote(t));
        if (run_as_pg(shell_quote(s.bindir + "/initdb") + " -D " + shell_quote(t + "/data") +
                      " -U postgres -A trust -E UTF8 --locale=C.UTF-8 --no-sync >" + shell_quote(t + "/initdb.log") +
                      " 2>&1") != 0)
            throw std::runtime_error("initdb failed: see " + t + "/initdb.log");
        // Settings every cluster shares; each adds its port and socket directory.
        const std::string conf =
            "\n# id_gen fault tests\n"
            "listen_addresses = ''\n"
            "fsync = on\n"
            "max_connections = 30\n"
            "shared_buffers = 32MB\n"
            "max_wal_size = 256MB\n"
            "max_wal_senders = 4\n"
            "restart_after_crash = on\n"
            "id_gen.node_id = 1\n"
            "id_gen.enable_test_clock = on\n";
        {
            std::ofstream f(t + "/data/postgresql.conf", std::ios::app);  // appending keeps the owner
            f << conf;
            if (!f) throw std::runtime_error("cannot write the template's postgresql.conf");
        }
        const std::string start =
            shell_quote(s.bindir + "/pg_ctl") + " -D " + shell_quote(t + "/data") + " -l " +
            shell_quote(t + "/server.log") + " -w -t 60 -o " +
            shell_quote("-c port=" + std::to_string(s.port) + " -c unix_socket_directories=" + t + " -c fsync=off") +
            " start >/dev/null";
        if (run_as_pg(start) != 0)
            throw std::runtime_error("cannot start the template cluster: see " + t + "/server.log");
        std::string err;
        try {
            pqxx::connection c("host=" + t + " port=" + std::to_string(s.port) + " user=postgres dbname=postgres");
            pqxx::nontransaction tx(c);
            tx.exec("CREATE EXTENSION id_gen");
        } catch (const std::exception& e) {
            err = e.what();
        }
        run_as_pg(shell_quote(s.bindir + "/pg_ctl") + " -D " + shell_quote(t + "/data") +
                  " -m fast -w -t 60 stop >/dev/null");
        if (!err.empty()) throw std::runtime_error("CREATE EXTENSION id_gen in the template failed: " + err);
    }

    void TearDown() override {
        std::vector<Cluster*> left;
        {
            std::lock_guard<std::mutex> g(g_clusters_mu);
            left.assign(g_clusters.begin(), g_clusters.end());
        }
        for (Cluster* c : left) c->stop("immediate");
        if (!g_settings.work.empty()) keep_server_log(template_dir());
        if (env_or("IDGEN_FAULT_KEEP", "").empty() && !g_settings.work.empty())
            run("rm -rf " + shell_quote(g_settings.work));
    }
};

const bool g_registered = [] {
    testing::AddGlobalTestEnvironment(new Environment);
    return true;
}();

}  // namespace

const Settings& settings() { return g_settings; }

std::string shell_quote(const std::string& s) {
    std::string out = "'";
    for (char ch : s) {
        if (ch == '\'')
            out += "'\\''";
        else
            out += ch;
    }
    return out + "'";
}

int run(const std::string& cmd) {
    const int rc = std::system(cmd.c_str());
    if (rc == -1) return -1;
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + (WIFSIGNALED(rc) ? WTERMSIG(rc) : 0);
}

int run_as_pg(const std::string& cmd) {
    if (g_settings.os_user.empty()) return run(cmd);
    return run("runuser -u " + shell_quote(g_settings.os_user) + " -- sh -c " + shell_quote(cmd));
}

void sleep_ms(long ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

double ms_between(TimePoint a, TimePoint b) { return std::chrono::duration<double, std::milli>(b - a).count(); }

// ---------------------------------------------------------------------------------------------
// Cluster

void Cluster::init_dir(const std::string& name, int port_offset) {
    name_ = name;
    dir_ = g_settings.work + "/" + name;
    pgdata_ = dir_ + "/data";
    port_ = g_settings.port + port_offset;
    if (run("rm -rf " + shell_quote(dir_) + " && mkdir -p " + shell_quote(dir_) + " && chmod 755 " +
            shell_quote(dir_)) != 0)
        throw std::runtime_error("cannot make " + dir_);
    if (!g_settings.os_user.empty()) run("chown " + shell_quote(g_settings.os_user) + " " + shell_quote(dir_));
    set_fault("");
}

void Cluster::track() {
    std::lock_guard<std::mutex> g(g_clusters_mu);
    g_clusters.insert(this);
}

Cluster::Cluster(std::string name, Mode mode, const std::vector<std::string>& conf, int port_offset) : mode_(mode) {
    init_dir(name, port_offset);
    if (run("cp -a " + shell_quote(template_dir() + "/data") + " " + shell_quote(pgdata_)) != 0)
        throw std::runtime_error("cannot copy the template cluster to " + pgdata_);
    std::vector<std::string> lines = {"port = " + std::to_string(port_), "unix_socket_directories = '" + dir_ + "'"};
    if (mode == Mode::kPreload) lines.push_back("shared_preload_libraries = 'id_gen'");
    lines.insert(lines.end(), conf.begin(), conf.end());
    append_conf(lines);
    track();
}

Cluster::Cluster(Empty, std::string name, Mode mode, int port_offset) : mode_(mode) {
    init_dir(name, port_offset);
    track();
}

Cluster::~Cluster() {
    stop("immediate");
    keep_server_log(dir_);
    std::lock_guard<std::mutex> g(g_clusters_mu);
    g_clusters.erase(this);
}

void Cluster::append_conf(const std::vector<std::string>& lines) {
    std::string text = "\n";
    for (const auto& l : lines) text += l + "\n";
    std::ofstream f(pgdata_ + "/postgresql.conf", std::ios::app);
    f << text;
    if (!f) throw std::runtime_error("cannot append to " + pgdata_ + "/postgresql.conf");
}

int Cluster::pg_ctl(const std::string& args) {
    const std::string cmd = "env LD_PRELOAD=" + shell_quote(g_settings.shim) +
                            " IDGEN_FAULT_CONTROL=" + shell_quote(dir_ + "/fault.control") +
                            " IDGEN_FAULT_STATS=" + shell_quote(dir_ + "/fault.stats") + " " +
                            shell_quote(g_settings.bindir + "/pg_ctl") + " -D " + shell_quote(pgdata_) + " -l " +
                            shell_quote(dir_ + "/server.log") + " " + args + " >/dev/null 2>&1";
    return run_as_pg(cmd);
}

void Cluster::start() {
    running_ = true;  // even if pg_ctl fails, a postmaster it started is stopped later
    if (pg_ctl("-w -t 60 start") != 0) throw std::runtime_error("pg_ctl start failed in " + dir_ + ":\n" + log_tail());
}

void Cluster::stop(const char* how) {
    if (!running_.exchange(false)) return;
    if (!file_exists(pgdata_ + "/postmaster.pid")) return;
    // A fast stop waits for backends; one stuck in a delayed fsync would hold it up.
    if (pg_ctl(std::string("-m ") + how + " -w -t 30 stop") != 0) pg_ctl("-m immediate -w -t 30 stop");
}

std::string Cluster::dsn(const std::string& db) const {
    return "host=" + dir_ + " port=" + std::to_string(port_) + " user=postgres dbname=" + db;
}

std::string Cluster::state_path(const std::string& file) const {
    return pgdata_ + "/" + g_settings.state_dir + "/" + file;
}

std::string Cluster::log_tail(int lines) const {
    return capture("tail -n " + std::to_string(lines) + " " + shell_quote(dir_ + "/server.log") + " 2>&1");
}

std::size_t Cluster::log_count(const std::string& text) const {
    std::ifstream f(dir_ + "/server.log");
    std::string line;
    std::size_t n = 0;
    while (std::getline(f, line))
        if (line.find(text) != std::string::npos) ++n;
    return n;
}

bool Cluster::wait_ready_after(std::size_t seen, double seconds) const {
    const auto until = Clock::now() + std::chrono::milliseconds(static_cast<long>(seconds * 1000));
    while (log_count("database system is ready to accept connections") <= seen) {
        if (Clock::now() > until) return false;
        sleep_ms(50);
    }
    return true;
}

void Cluster::set_fault(const std::string& lines) {
    const std::string path = dir_ + "/fault.control";
    write_file(path + ".tmp", lines.empty() ? "" : lines + "\n");
    chmod((path + ".tmp").c_str(), 0644);
    if (std::rename((path + ".tmp").c_str(), path.c_str()) != 0) throw std::runtime_error("cannot replace " + path);
}

std::vector<StatLine> Cluster::stats() const {
    std::vector<StatLine> out;
    std::ifstream f(dir_ + "/fault.stats");
    std::string line;
    while (std::getline(f, line)) {
        std::istringstream in(line);
        StatLine s;
        in >> s.call >> s.result >> s.pid;
        std::getline(in >> std::ws, s.path);
        if (!s.call.empty()) out.push_back(s);
    }
    return out;
}

std::size_t Cluster::ok_syncs(const std::string& part) const {
    std::size_t n = 0;
    for (const auto& s : stats())
        if ((s.call == "fsync" || s.call == "fdatasync") && s.result == "ok" && s.path.find(part) != std::string::npos)
            ++n;
    return n;
}

void Cluster::exec(const std::string& sql, const std::string& db) const {
    pqxx::connection c(dsn(db));
    pqxx::nontransaction tx(c);
    tx.exec(sql);
}

std::string Cluster::query_value(const std::string& sql, const std::string& db) const {
    pqxx::connection c(dsn(db));
    pqxx::nontransaction tx(c);
    auto r = tx.exec(sql);
    if (r.empty() || r[0][0].is_null()) return "";
    return r[0][0].c_str();
}

// ---------------------------------------------------------------------------------------------
// Clients

std::unique_ptr<pqxx::connection> connect_retrying(const std::string& dsn, double seconds) {
    const auto until = Clock::now() + std::chrono::milliseconds(static_cast<long>(seconds * 1000));
    for (;;) {
        try {
            return std::make_unique<pqxx::connection>(dsn);
        } catch (const pqxx::broken_connection&) {
            if (Clock::now() > until) throw;
        } catch (const pqxx::sql_error&) {  // "the database system is starting up / in recovery mode"
            if (Clock::now() > until) throw;
        }
        sleep_ms(100);
    }
}

Call call_id(pqxx::connection& c, const std::string& sql) {
    Call out;
    out.start = Clock::now();
    try {
        pqxx::nontransaction tx(c);
        auto r = tx.exec(sql);
        out.end = Clock::now();
        if (r.size() != 1 || r.columns() != 1) {
            out.sqlstate = "shape";
            out.error = "expected one row of one column from: " + sql;
            return out;
        }
        out.ok = true;
        out.null = r[0][0].is_null();
        if (!out.null) out.id = r[0][0].as<long long>();
    } catch (const pqxx::sql_error& e) {
        out.end = Clock::now();
        out.sqlstate = e.sqlstate();
        out.error = e.what();
        if (out.sqlstate.empty()) out.sqlstate = "broken";
    } catch (const pqxx::broken_connection& e) {
        out.end = Clock::now();
        out.sqlstate = "broken";
        out.error = e.what();
    } catch (const std::exception& e) {
        out.end = Clock::now();
        out.sqlstate = "exception";
        out.error = e.what();
    }
    return out;
}

std::vector<long long> query_ids(pqxx::connection& c, const std::string& sql) {
    pqxx::nontransaction tx(c);
    auto r = tx.exec(sql);
    std::vector<long long> out;
    out.reserve(r.size());
    for (const auto& row : r) out.push_back(row[0].is_null() ? 0 : row[0].as<long long>());
    return out;
}

// ---------------------------------------------------------------------------------------------
// IdBook

int IdBook::new_conn() {
    std::lock_guard<std::mutex> g(mu_);
    return conns_++;
}

void IdBook::add(int conn, const Call& call) {
    if (!call.ok) return;
    std::lock_guard<std::mutex> g(mu_);
    entries_.push_back({conn, call.id, call.null, call.start, call.end});
}

void IdBook::add_many(int conn, const std::vector<long long>& ids, TimePoint start, TimePoint end) {
    std::lock_guard<std::mutex> g(mu_);
    for (long long id : ids) entries_.push_back({conn, id, false, start, end});
}

void IdBook::fault_window(TimePoint from, TimePoint to) {
    std::lock_guard<std::mutex> g(mu_);
    faults_.emplace_back(from, to);
}

std::size_t IdBook::size() const {
    std::lock_guard<std::mutex> g(mu_);
    return entries_.size();
}

long long IdBook::max_id() const {
    std::lock_guard<std::mutex> g(mu_);
    long long m = 0;
    for (const auto& e : entries_) m = std::max(m, e.id);
    return m;
}

std::vector<long long> IdBook::ids_after(TimePoint t) const {
    std::lock_guard<std::mutex> g(mu_);
    std::vector<long long> out;
    for (const auto& e : entries_)
        if (e.start > t) out.push_back(e.id);
    return out;
}

void IdBook::check(const std::string& scenario) const {
    std::lock_guard<std::mutex> g(mu_);
    std::size_t zero_or_null = 0;
    std::vector<long long> all;
    all.reserve(entries_.size());
    for (const auto& e : entries_) {
        if (e.null || e.id == 0) ++zero_or_null;
        all.push_back(e.id);
    }
    EXPECT_EQ(zero_or_null, 0u) << scenario << ": IDs that are 0 or NULL";

    std::sort(all.begin(), all.end());
    std::size_t dups = 0;
    long long first_dup = 0;
    for (std::size_t i = 1; i < all.size(); ++i)
        if (all[i] == all[i - 1]) {
            if (dups++ == 0) first_dup = all[i];
        }
    EXPECT_EQ(dups, 0u) << scenario << ": duplicate IDs, the first " << first_dup;

    std::vector<long long> last(conns_, 0);
    std::vector<bool> seen(conns_, false);
    std::size_t not_increasing = 0;
    std::string example;
    for (const auto& e : entries_) {
        if (e.conn >= 0 && e.conn < conns_) {
            if (seen[e.conn] && e.id <= last[e.conn]) {
                if (not_increasing++ == 0)
                    example = "connection " + std::to_string(e.conn) + ": " + std::to_string(e.id) + " after " +
                              std::to_string(last[e.conn]);
            }
            seen[e.conn] = true;
            last[e.conn] = e.id;
        }
    }
    EXPECT_EQ(not_increasing, 0u) << scenario << ": IDs not strictly increasing within a connection (" << example
                                  << ")";

    // Across each fault: every ID handed out after it is above every ID handed out before it. Without
    // preloading, backends hand out IDs from leases that live for one clock unit (1 ms, 10 ms for
    // sonyflake), so IDs handed out within one unit are not ordered across backends (the README says
    // so): the comparison leaves out calls that started within kLeaseGrace after the fault.
    constexpr auto kLeaseGrace = std::chrono::milliseconds(15);
    for (std::size_t f = 0; f < faults_.size(); ++f) {
        const auto from = faults_[f].first;
        const auto to = faults_[f].second + kLeaseGrace;
        long long max_before = 0, min_after = 0;
        std::size_t n_before = 0, n_after = 0;
        for (const auto& e : entries_) {
            if (e.end < from) {
                max_before = n_before++ ? std::max(max_before, e.id) : e.id;
            } else if (e.start > to) {
                min_after = n_after++ ? std::min(min_after, e.id) : e.id;
            }
        }
        EXPECT_GT(n_before, 0u) << scenario << ": no ID was issued before fault " << f;
        EXPECT_GT(n_after, 0u) << scenario << ": no ID was issued after fault " << f;
        if (n_before && n_after) {
            EXPECT_GT(min_after, max_before)
                << scenario << ": an ID issued after fault " << f << " is not above every ID issued before it";
        }
    }
    std::cout << "scenario " << scenario << ": " << entries_.size() << " IDs issued and checked" << std::endl;
}

// ---------------------------------------------------------------------------------------------
// Deadline, threads, waits

Deadline::Deadline(Cluster& c, double seconds, std::string what) : c_(c), what_(std::move(what)) {
    t_ = std::thread([this, seconds] {
        std::unique_lock<std::mutex> lk(mu_);
        if (cv_.wait_for(lk, std::chrono::milliseconds(static_cast<long>(seconds * 1000)), [this] { return done_; }))
            return;
        expired_ = true;
        std::cout << what_ << ": deadline of " << seconds << " s exceeded; clearing the faults" << std::endl;
        try {
            c_.set_fault("");
        } catch (...) {}
        if (cv_.wait_for(lk, std::chrono::seconds(5), [this] { return done_; })) return;
        std::cout << what_ << ": still running 5 s later; stopping the cluster" << std::endl;
        lk.unlock();
        c_.stop("immediate");
    });
}

Deadline::~Deadline() { finish(); }

void Deadline::finish() {
    {
        std::lock_guard<std::mutex> g(mu_);
        done_ = true;
    }
    cv_.notify_all();
    if (t_.joinable()) t_.join();
    if (expired_) ADD_FAILURE() << what_ << ": did not finish within its deadline (see above)";
    expired_ = false;  // reported once
}

void parallel(int n, const std::function<void(int)>& body) {
    std::vector<std::thread> ts;
    for (int i = 0; i < n; ++i) ts.emplace_back([&body, i] { body(i); });
    for (auto& t : ts) t.join();
}

bool wait_sync_begun(const Cluster& c, std::size_t from_line, int pid, const std::string& part, double seconds) {
    const auto until = Clock::now() + std::chrono::milliseconds(static_cast<long>(seconds * 1000));
    do {
        const auto st = c.stats();
        for (std::size_t i = from_line; i < st.size(); ++i) {
            const auto& s = st[i];
            if (s.result == "begin" && s.pid == pid && s.path.find(part) != std::string::npos) return true;
        }
        sleep_ms(20);
    } while (Clock::now() < until);
    return false;
}

}  // namespace idgen::fault

namespace idgen::fault {

std::string primary_message(const std::string& error) {
    std::string first = error.substr(0, error.find('\n'));
    for (const char* p : {"ERROR:  ", "FATAL:  ", "PANIC:  "})
        if (first.rfind(p, 0) == 0) return first.substr(std::string(p).size());
    return first;
}

bool has_hint(const std::string& error) { return error.find("\nHINT:  ") != std::string::npos; }

bool file_exists(const std::string& path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0;
}

}  // namespace idgen::fault
