// Shared by the libpqxx integration tests: how to reach the throwaway cluster that
// scripts/test.sh started (PGHOST, PGPORT, PGUSER), and how to run its tools.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <pqxx/pqxx>
#include <string>
#include <thread>
#include <vector>

namespace idgen::it {

inline std::string env_or(const char* name, const char* fallback) {
    const char* v = std::getenv(name);
    return v && *v ? v : fallback;
}

// Connection string for `dbname` on the test cluster.
inline std::string dsn(const std::string& dbname = "postgres") {
    return "host=" + env_or("PGHOST", "/tmp") + " port=" + env_or("PGPORT", "5432") +
           " user=" + env_or("PGUSER", "postgres") + " dbname=" + dbname;
}

// A fresh database with the extension installed (at `version`, or the default version if empty),
// dropped when the object goes.
class ScratchDb {
public:
    explicit ScratchDb(std::string name, const std::string& version = "") : name_(std::move(name)) {
        pqxx::connection admin(it::dsn());
        pqxx::nontransaction tx(admin);
        tx.exec("DROP DATABASE IF EXISTS " + tx.quote_name(name_) + " WITH (FORCE)");
        tx.exec("CREATE DATABASE " + tx.quote_name(name_));
        pqxx::connection c(it::dsn(name_));
        pqxx::nontransaction t2(c);
        t2.exec("CREATE EXTENSION id_gen" + (version.empty() ? std::string() : " VERSION " + t2.quote(version)));
    }
    ~ScratchDb() {
        try {
            pqxx::connection admin(it::dsn());
            pqxx::nontransaction tx(admin);
            tx.exec("DROP DATABASE IF EXISTS " + tx.quote_name(name_) + " WITH (FORCE)");
        } catch (...) {}
    }
    ScratchDb(const ScratchDb&) = delete;
    ScratchDb& operator=(const ScratchDb&) = delete;
    [[nodiscard]] std::string dsn() const { return it::dsn(name_); }
    [[nodiscard]] const std::string& name() const { return name_; }

private:
    std::string name_;
};

// Runs a PostgreSQL client tool from the cluster's bindir (pg_dump, psql, ...); returns its exit
// status. `args` is passed to the shell as is.
inline int run_pg_tool(const std::string& tool, const std::string& args) {
    std::string cmd = env_or("IDGEN_PG_BINDIR", "/usr/lib/postgresql/15/bin") + "/" + tool + " " + args;
    return std::system(cmd.c_str());
}

// Keeps the server log of a cluster a test made for itself before its directory is removed: its
// server.log and the logging collector's data/log/*.log are copied into $IDGEN_SERVER_LOGS, where
// scripts/test.sh scans them with every other log of the layer (assertion failures, leaked
// resources: lib.sh, scan_server_logs). Nothing when that variable is unset.
inline void keep_server_logs(const std::string& dir) {
    const std::string keep = env_or("IDGEN_SERVER_LOGS", "");
    if (keep.empty() || dir.empty()) return;
    static std::atomic<unsigned> n{0};
    const std::string to = keep + "/" + dir.substr(dir.find_last_of('/') + 1) + "." + std::to_string(getpid()) + "." +
                           std::to_string(++n) + ".";
    const std::string cmd = "mkdir -p '" + keep + "' && for f in '" + dir + "'/server.log '" + dir +
                            "'/data/log/*.log; do [ ! -f \"$f\" ] || cp \"$f\" '" + to + "'\"${f##*/}\"; done";
    if (std::system(cmd.c_str()) != 0) std::fprintf(stderr, "note: the server log of %s was not kept\n", dir.c_str());
}

// Runs pg_ctl on the test cluster as the cluster's owner (e.g. "restart -w").
inline int pg_ctl(const std::string& args) {
    std::string user = env_or("IDGEN_PG_OS_USER", "");
    std::string prefix = user.empty() || user == env_or("USER", "") ? "" : "runuser -u " + user + " -- ";
    std::string cmd = prefix + env_or("IDGEN_PG_BINDIR", "/usr/lib/postgresql/15/bin") + "/pg_ctl -D " +
                      env_or("IDGEN_PGDATA", "") + " -l " + env_or("IDGEN_WORK", "/tmp") + "/pg/server.log -w " + args +
                      " >/dev/null";
    return std::system(cmd.c_str());
}

// One of the test command's two main clusters: PGHOST/PGPORT preloads id_gen and is node 1,
// launch 1; IDGEN_NOPRELOAD_* does not preload it and is node 2, launch 2.
struct Cluster {
    std::string host, port, pgdata, log;
    int number;  // its id_gen.node_id and id_gen.launch_id
    bool preloaded;
    [[nodiscard]] std::string dsn(const std::string& db = "postgres") const {
        return "host=" + host + " port=" + port + " user=" + env_or("PGUSER", "postgres") + " dbname=" + db;
    }
};

inline Cluster main_cluster() {
    return {env_or("PGHOST", "/tmp"),
            env_or("PGPORT", "5432"),
            env_or("IDGEN_PGDATA", ""),
            env_or("IDGEN_WORK", "/tmp") + "/pg/server.log",
            1,
            true};
}

inline Cluster nopreload_cluster() {
    return {env_or("IDGEN_NOPRELOAD_PGHOST", ""),
            env_or("IDGEN_NOPRELOAD_PGPORT", ""),
            env_or("IDGEN_NOPRELOAD_PGDATA", ""),
            env_or("IDGEN_WORK", "/tmp") + "/pg2/server.log",
            2,
            false};
}

// Runs pg_ctl on `c` as the cluster's owner.
inline int pg_ctl(const Cluster& c, const std::string& args) {
    std::string user = env_or("IDGEN_PG_OS_USER", "");
    std::string prefix = user.empty() || user == env_or("USER", "") ? "" : "runuser -u " + user + " -- ";
    std::string cmd = prefix + env_or("IDGEN_PG_BINDIR", "/usr/lib/postgresql/15/bin") + "/pg_ctl -D " + c.pgdata +
                      " -l " + c.log + " -w -t 60 " + args + " >/dev/null";
    return std::system(cmd.c_str());
}

inline void exec_admin(const Cluster& c, const std::string& sql, const std::string& db = "postgres") {
    pqxx::connection conn(c.dsn(db));
    pqxx::nontransaction tx(conn);
    tx.exec(sql);
}

// A database with the extension on cluster `c`, dropped at the end.
class Db {
public:
    Db(Cluster c, std::string name) : c_(std::move(c)), name_(std::move(name)) {
        exec_admin(c_, "DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)");
        exec_admin(c_, "CREATE DATABASE " + name_);
        exec_admin(c_, "CREATE EXTENSION id_gen", name_);
    }
    ~Db() {
        try {
            exec_admin(c_, "DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)");
        } catch (...) {}
    }
    Db(const Db&) = delete;
    Db& operator=(const Db&) = delete;
    [[nodiscard]] std::string dsn() const { return c_.dsn(name_); }
    [[nodiscard]] const std::string& name() const { return name_; }

private:
    Cluster c_;
    std::string name_;
};

// Runs `query` (one column, rows in generation order) on every dsn at once, one connection each.
// Checks that no connection failed, that each returned `per_conn` values in strictly increasing
// order, and that no value repeats across connections; returns the values for further checks.
// T is std::string for fixed-width text IDs (text order = ID order) or long long for integers.
template <class T>
std::vector<std::vector<T>> generate_in_parallel(const std::vector<std::string>& dsns, const std::string& query,
                                                 std::size_t per_conn) {
    std::vector<std::vector<T>> ids(dsns.size());
    std::vector<std::string> errors(dsns.size());
    std::vector<std::thread> threads;
    for (std::size_t c = 0; c < dsns.size(); ++c) {
        threads.emplace_back([&, c] {
            try {
                pqxx::connection conn(dsns[c]);
                pqxx::nontransaction tx(conn);
                auto r = tx.exec(query);
                ids[c].reserve(r.size());
                for (const auto& row : r) ids[c].push_back(row[0].as<T>());
            } catch (const std::exception& e) {
                errors[c] = e.what();
            }
        });
    }
    for (auto& t : threads) t.join();
    std::vector<T> all;
    for (std::size_t c = 0; c < dsns.size(); ++c) {
        EXPECT_EQ(errors[c], "") << "connection " << c;
        EXPECT_EQ(ids[c].size(), per_conn) << "connection " << c;
        auto down = std::adjacent_find(ids[c].begin(), ids[c].end(), [](const T& a, const T& b) { return !(a < b); });
        EXPECT_EQ(down, ids[c].end()) << "connection " << c << " not strictly increasing at "
                                      << (down - ids[c].begin());
        all.insert(all.end(), ids[c].begin(), ids[c].end());
    }
    std::sort(all.begin(), all.end());
    auto dup = std::adjacent_find(all.begin(), all.end());
    EXPECT_EQ(dup, all.end()) << "duplicate ID " << (dup == all.end() ? T{} : *dup);
    EXPECT_EQ(all.size(), per_conn * dsns.size());
    return ids;
}

// "SELECT <call>::<cast> FROM generate_series(1, n)" in generation order.
inline std::string series_query(const std::string& call, const std::string& cast, std::size_t n) {
    return "SELECT " + call + "::" + cast + " FROM generate_series(1, " + std::to_string(n) +
           ") WITH ORDINALITY AS g(v, n) ORDER BY n";
}

}  // namespace idgen::it
