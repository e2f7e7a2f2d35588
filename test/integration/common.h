// Shared by the libpqxx integration tests: how to reach the throwaway cluster that
// scripts/test.sh started (PGHOST, PGPORT, PGUSER), and how to run its tools.
#pragma once

#include <cstdlib>
#include <pqxx/pqxx>
#include <string>

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

// A fresh database with the extension installed, dropped when the object goes.
class ScratchDb {
public:
    explicit ScratchDb(std::string name) : name_(std::move(name)) {
        pqxx::connection admin(it::dsn());
        pqxx::nontransaction tx(admin);
        tx.exec("DROP DATABASE IF EXISTS " + tx.quote_name(name_));
        tx.exec("CREATE DATABASE " + tx.quote_name(name_));
        pqxx::connection c(it::dsn(name_));
        pqxx::nontransaction t2(c);
        t2.exec("CREATE EXTENSION id_gen");
    }
    ~ScratchDb() {
        try {
            pqxx::connection admin(it::dsn());
            pqxx::nontransaction tx(admin);
            tx.exec("DROP DATABASE IF EXISTS " + tx.quote_name(name_) + " WITH (FORCE)");
        } catch (...) {
        }
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

// Runs pg_ctl on the test cluster as the cluster's owner (e.g. "restart -w").
inline int pg_ctl(const std::string& args) {
    std::string user = env_or("IDGEN_PG_OS_USER", "");
    std::string prefix = user.empty() || user == env_or("USER", "") ? "" : "runuser -u " + user + " -- ";
    std::string cmd = prefix + env_or("IDGEN_PG_BINDIR", "/usr/lib/postgresql/15/bin") + "/pg_ctl -D " +
                      env_or("IDGEN_PGDATA", "") + " -l " + env_or("IDGEN_WORK", "/tmp") + "/pg/server.log -w " +
                      args + " >/dev/null";
    return std::system(cmd.c_str());
}

}  // namespace idgen::it
