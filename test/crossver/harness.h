// Cross-version tests: throwaway clusters of several PostgreSQL major versions on one machine,
// and the shell steps (pg_dump, pg_restore, pg_upgrade) between them.
//
// Environment (set by scripts/crossver.sh):
//   IDGEN_CROSS_BINDIRS   "15=/path/bin 17=/path/bin 18=/path/bin": the servers, each with id_gen
//                         (this build) and amcheck installed. The lowest major is the old server;
//                         every other one is a target.
//   IDGEN_CROSS_WORK      a directory for clusters, dumps and logs (removed by the caller)
//   IDGEN_CROSS_PORT      first port; the clusters use it and the next 5 (with two newer majors)
//   IDGEN_PG_OS_USER      the clusters' owner when run as root (default postgres)
// Clusters are stopped by their destructors, and at exit should a test leave one running.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <pqxx/pqxx>
#include <string>
#include <vector>

namespace idgen::cross {

// Port offsets from IDGEN_CROSS_PORT: one per cluster that can run at the same time (a restore
// target per newer major: kRestorePort + its index), and two for the servers pg_upgrade starts.
enum Port : int { kOldPort = 0, kUpgradeTargetPort = 1, kUpgradeOldPort = 2, kUpgradeNewPort = 3, kRestorePort = 4 };

int old_major();                   // the lowest major of IDGEN_CROSS_BINDIRS
std::vector<int> target_majors();  // the others, ascending
std::string bindir(int major);
std::string work();
int port(Port p);

std::string shell_quote(const std::string& s);
// Runs a shell command as the current user / as the clusters' owner; returns its exit status and,
// on failure, prints the command and the end of `log` (when given).
int run(const std::string& cmd, const std::string& log = "");
int run_as_pg(const std::string& cmd, const std::string& log = "");
std::string read_file(const std::string& path);

class Cluster {
public:
    // initdb (UTF8, C.UTF-8, trust) of `major` in <work>/<name>/data, with `conf` appended to
    // postgresql.conf after the port and socket directory. Not started.
    Cluster(std::string name, int major, int port, const std::vector<std::string>& conf,
            const std::vector<std::string>& initdb_args = {});
    ~Cluster();
    Cluster(const Cluster&) = delete;
    Cluster& operator=(const Cluster&) = delete;

    void start();  // throws with the server log's tail on failure
    void stop();   // never throws
    [[nodiscard]] bool running() const { return running_; }

    [[nodiscard]] std::string dsn(const std::string& db = "postgres") const;
    // "-h <socket dir> -p <port> -U postgres", for client programs.
    [[nodiscard]] std::string conn_args() const;
    [[nodiscard]] const std::string& dir() const { return dir_; }
    [[nodiscard]] std::string pgdata() const { return dir_ + "/data"; }
    [[nodiscard]] int major() const { return major_; }
    [[nodiscard]] int port() const { return port_; }
    [[nodiscard]] std::string bin(const std::string& program) const { return bindir(major_) + "/" + program; }

    void exec(const std::string& sql, const std::string& db = "postgres") const;
    [[nodiscard]] std::string value(const std::string& sql, const std::string& db = "postgres") const;
    [[nodiscard]] std::string log_tail(int lines = 30) const;

private:
    std::string name_, dir_;
    int major_, port_;
    bool running_ = false;
};

// Connects to `dsn` and returns the first column of the first row of `sql` as text ("" for NULL).
std::string query_value(const std::string& dsn, const std::string& sql);

}  // namespace idgen::cross
