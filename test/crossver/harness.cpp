#include "harness.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>

namespace idgen::cross {
namespace {

std::string env_or(const char* name, const std::string& fallback) {
    const char* v = std::getenv(name);
    return v && *v ? v : fallback;
}

const std::map<int, std::string>& bindirs() {
    static const std::map<int, std::string> dirs = [] {
        std::map<int, std::string> m;
        std::istringstream in(env_or("IDGEN_CROSS_BINDIRS", ""));
        std::string item;
        while (in >> item) {
            const auto eq = item.find('=');
            if (eq == std::string::npos) continue;
            m[std::stoi(item.substr(0, eq))] = item.substr(eq + 1);
        }
        return m;
    }();
    return dirs;
}

std::string os_user() {
    if (::geteuid() != 0) return "";
    return env_or("IDGEN_PG_OS_USER", "postgres");
}

// Data directories of running clusters, stopped at exit should a test leave one running.
std::mutex g_mu;
std::set<std::pair<std::string, std::string>> g_running;  // (pg_ctl, data directory)

void stop_leftovers() {
    std::lock_guard<std::mutex> lock(g_mu);
    for (const auto& [pg_ctl, data] : g_running)
        run_as_pg(shell_quote(pg_ctl) + " -D " + shell_quote(data) + " -m immediate -w stop >/dev/null 2>&1");
    g_running.clear();
}

void track(const std::string& pg_ctl, const std::string& data, bool on) {
    static const bool registered = [] { return std::atexit(stop_leftovers) == 0; }();
    (void)registered;
    std::lock_guard<std::mutex> lock(g_mu);
    if (on)
        g_running.insert({pg_ctl, data});
    else
        g_running.erase({pg_ctl, data});
}

// Keeps the server log of a cluster whose directory is about to be made anew (a name used again):
// copied into $IDGEN_SERVER_LOGS, which scripts/crossver.sh scans with every other log of the layer
// for assertion failures and leaked resources (lib.sh, scan_server_logs). Nothing when unset.
void keep_server_log(const std::string& dir) {
    const std::string keep = env_or("IDGEN_SERVER_LOGS", "");
    struct stat st {};
    if (keep.empty() || ::stat((dir + "/server.log").c_str(), &st) != 0) return;
    static int n = 0;
    const std::string to =
        keep + "/" + dir.substr(dir.find_last_of('/') + 1) + "." + std::to_string(++n) + ".server.log";
    if (run("mkdir -p " + shell_quote(keep) + " && cp " + shell_quote(dir + "/server.log") + " " + shell_quote(to)) !=
        0)
        std::cerr << "note: the server log of " << dir << " was not kept\n";
}

}  // namespace

int old_major() {
    if (bindirs().empty()) throw std::runtime_error("IDGEN_CROSS_BINDIRS names no server");
    return bindirs().begin()->first;
}

std::vector<int> target_majors() {
    std::vector<int> v;
    for (const auto& [major, dir] : bindirs())
        if (major != bindirs().begin()->first) v.push_back(major);
    return v;
}

std::string bindir(int major) {
    const auto it = bindirs().find(major);
    if (it == bindirs().end()) throw std::runtime_error("no server of PostgreSQL " + std::to_string(major));
    return it->second;
}

std::string work() { return env_or("IDGEN_CROSS_WORK", "/tmp"); }

int port(Port p) { return std::stoi(env_or("IDGEN_CROSS_PORT", "55220")) + static_cast<int>(p); }

std::string shell_quote(const std::string& s) {
    std::string out = "'";
    for (char c : s) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    return out + "'";
}

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

namespace {
std::string tail_of(const std::string& text, int lines) {
    std::size_t pos = text.size();
    for (int i = 0; i <= lines && pos > 0; ++i) {
        const std::size_t nl = text.rfind('\n', pos - 1);
        if (nl == std::string::npos) return text;
        pos = nl;
    }
    return text.substr(pos);
}
}  // namespace

int run(const std::string& cmd, const std::string& log) {
    const int rc = std::system(cmd.c_str());
    if (rc != 0) {
        std::cerr << "command failed (status " << rc << "): " << cmd << "\n";
        if (!log.empty()) std::cerr << tail_of(read_file(log), 25) << "\n";
    }
    return rc;
}

int run_as_pg(const std::string& cmd, const std::string& log) {
    const std::string user = os_user();
    if (user.empty()) return run(cmd, log);
    return run("runuser -u " + shell_quote(user) + " -- sh -c " + shell_quote(cmd), log);
}

Cluster::Cluster(std::string name, int major, int port, const std::vector<std::string>& conf,
                 const std::vector<std::string>& initdb_args)
    : name_(std::move(name)), dir_(work() + "/" + name_), major_(major), port_(port) {
    keep_server_log(dir_);
    if (run("rm -rf " + shell_quote(dir_) + " && mkdir -p " + shell_quote(dir_) + " && chmod 755 " +
            shell_quote(dir_)) != 0)
        throw std::runtime_error("cannot make " + dir_);
    if (!os_user().empty() && run("chown " + shell_quote(os_user()) + " " + shell_quote(dir_)) != 0)
        throw std::runtime_error("cannot give " + dir_ + " to " + os_user());
    std::string args;
    for (const auto& a : initdb_args) args += " " + shell_quote(a);
    const std::string log = dir_ + "/initdb.log";
    if (run_as_pg(shell_quote(bin("initdb")) + " -D " + shell_quote(pgdata()) +
                      " -U postgres -A trust -E UTF8 --locale=C.UTF-8" + args + " >" + shell_quote(log) + " 2>&1",
                  log) != 0)
        throw std::runtime_error("initdb failed in " + dir_);
    std::string text = "listen_addresses = ''\nunix_socket_directories = '" + dir_ +
                       "'\nport = " + std::to_string(port_) +
                       "\nfsync = off\nmax_connections = 20\nshared_buffers = 64MB\n";
    for (const auto& line : conf) text += line + "\n";
    if (run_as_pg("printf '%s' " + shell_quote(text) + " >> " + shell_quote(pgdata() + "/postgresql.conf")) != 0)
        throw std::runtime_error("cannot configure " + dir_);
}

Cluster::~Cluster() { stop(); }

void Cluster::start() {
    const std::string log = dir_ + "/server.log";
    if (run_as_pg(shell_quote(bin("pg_ctl")) + " -D " + shell_quote(pgdata()) + " -l " + shell_quote(log) +
                  " -w -t 60 start >/dev/null") != 0)
        throw std::runtime_error("cannot start " + dir_ + ":\n" + log_tail());
    running_ = true;
    track(bin("pg_ctl"), pgdata(), true);
}

void Cluster::stop() {
    if (!running_) return;
    run_as_pg(shell_quote(bin("pg_ctl")) + " -D " + shell_quote(pgdata()) + " -m fast -w -t 60 stop >/dev/null 2>&1");
    running_ = false;
    track(bin("pg_ctl"), pgdata(), false);
}

std::string Cluster::dsn(const std::string& db) const {
    return "host=" + dir_ + " port=" + std::to_string(port_) + " user=postgres dbname=" + db;
}

std::string Cluster::conn_args() const {
    return "-h " + shell_quote(dir_) + " -p " + std::to_string(port_) + " -U postgres";
}

void Cluster::exec(const std::string& sql, const std::string& db) const {
    pqxx::connection c(dsn(db));
    pqxx::nontransaction tx(c);
    tx.exec(sql);
}

std::string Cluster::value(const std::string& sql, const std::string& db) const { return query_value(dsn(db), sql); }

std::string Cluster::log_tail(int lines) const { return tail_of(read_file(dir_ + "/server.log"), lines); }

std::string query_value(const std::string& dsn, const std::string& sql) {
    pqxx::connection c(dsn);
    pqxx::nontransaction tx(c);
    const auto r = tx.exec(sql);
    if (r.empty() || r[0][0].is_null()) return "";
    return r[0][0].c_str();
}

}  // namespace idgen::cross
