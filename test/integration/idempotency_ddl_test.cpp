// The idempotency store under DDL: pgbench clients send requests (a new key: begin, the work,
// finish, in one transaction; a finished key: its replay) while another session, in turn, alters
// idempotency_keys (adds and drops a column, changes replica identity, a column's collation and
// storage parameters, rewrites the table through a column type change), reindexes it concurrently
// (an index, then the table), runs VACUUM FULL and CLUSTER, and updates the extension from 0.2.0
// to 0.3.0. Each request that executes records itself in a side table in its own transaction, so
// after the run:
//   - no backend crashed: a session opened before the run is still connected (a crash makes the
//     postmaster end every backend) and the server log has no "terminated by signal" line;
//   - no key was lost: every executed request's key is in the store, finished, with its response,
//     and a new begin of it replays;
//   - nothing executed twice: each key has at most one execution, and each finished key one;
//   - the table's indexes are intact: amcheck (bt_index_check, heapallindexed) on every index;
//   - pgbench reports no failed transaction (deadlocks and serialization failures it retries).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <pqxx/pqxx>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include "common.h"

namespace {

using Clock = std::chrono::steady_clock;

long ms_since(Clock::time_point t0) {
    return static_cast<long>(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count());
}

std::string one(pqxx::connection& c, const std::string& sql) {
    pqxx::nontransaction tx(c);
    const auto r = tx.exec(sql);
    return r.empty() || r[0][0].is_null() ? "<null>" : r[0][0].c_str();
}

std::string read_from(const std::string& path, std::streamoff from) {
    std::ifstream f(path, std::ios::binary);
    if (!f) return "";
    f.seekg(from);
    return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

std::streamoff size_of(const std::string& path) {
    std::ifstream f(path, std::ios::binary | std::ios::ate);
    return f ? static_cast<std::streamoff>(f.tellg()) : 0;
}

// One request per pgbench transaction, over a few thousand keys (so about half the requests are
// replays of a finished key, and duplicates of a key in flight wait on its lock), each after a
// pause inside its transaction, before its first call.
constexpr const char* kScript =
    "\\set k random(1, 3000)\n"
    "\\set pause random(0, 10)\n"
    "BEGIN;\n"
    // A transaction that has begun but not yet locked the table: DDL committed here is seen
    // by the transaction's first lock on the table, not at its start.
    "\\sleep :pause ms\n"
    "SELECT (state = 'new')::int AS isnew FROM idempotency_begin('ddl', 'k' || :k, 'fp') \\gset\n"
    "\\if :isnew\n"
    "INSERT INTO ddl_executions (key) VALUES ('k' || :k);\n"
    "SELECT idempotency_finish('ddl', 'k' || :k, jsonb_build_object('k', :k));\n"
    "\\endif\n"
    "COMMIT;\n";

// What the DDL session runs, in turn, while the clients run.
const std::vector<std::string> kDdl = {
    "ALTER TABLE idempotency_keys ADD COLUMN ddl_note text",
    "ALTER TABLE idempotency_keys REPLICA IDENTITY FULL",
    "REINDEX INDEX CONCURRENTLY idempotency_keys_pkey",
    "ALTER EXTENSION id_gen UPDATE TO '0.3.0'",
    // A table rewrite (a USING expression that is not the column itself): a new relfilenode and
    // new indexes under every session's cached relation.
    "ALTER TABLE idempotency_keys ALTER COLUMN lock_timeout TYPE interval USING lock_timeout + interval '0'",
    "VACUUM FULL idempotency_keys",
    "REINDEX TABLE CONCURRENTLY idempotency_keys",
    "CLUSTER idempotency_keys USING idempotency_keys_pkey",
    "ALTER TABLE idempotency_keys DROP COLUMN ddl_note",
    "ALTER TABLE idempotency_keys REPLICA IDENTITY DEFAULT",
    "ALTER TABLE idempotency_keys ALTER COLUMN attempt_id TYPE text COLLATE \"C\"",
    "ALTER TABLE idempotency_keys SET (fillfactor = 70)",
    "REINDEX INDEX CONCURRENTLY idempotency_keys_expires_at",
    "VACUUM idempotency_keys",
};

TEST(IdempotencyDdl, TrafficUnderDdlLosesNothingAndCrashesNothing) {
    idgen::it::ScratchDb db("it_idem_ddl", "0.2.0");
    const std::string log = idgen::it::env_or("IDGEN_WORK", "/tmp") + "/pg/server.log";
    const std::streamoff log_from = size_of(log);
    pqxx::connection observer(idgen::it::dsn());
    const std::string identity =
        one(observer, "SELECT pg_backend_pid()::text || ' ' || pg_postmaster_start_time()::text");
    pqxx::connection ddl(db.dsn());
    {
        pqxx::nontransaction tx(ddl);
        tx.exec("CREATE EXTENSION amcheck");
        tx.exec("CREATE TABLE ddl_executions (key text NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp())");
        EXPECT_EQ(tx.exec1("SELECT extversion FROM pg_extension WHERE extname = 'id_gen'")[0].as<std::string>(),
                  "0.2.0");
    }

    const std::string work = idgen::it::env_or("IDGEN_WORK", "/tmp");
    const std::string script = work + "/idem_ddl_" + std::to_string(getpid()) + ".pgbench";
    const std::string out = script + ".out";
    {
        std::ofstream f(script);
        f << kScript;
    }
    constexpr int kSeconds = 30;
    const std::string cmd = "-n -c 4 -j 2 -T " + std::to_string(kSeconds) + " --max-tries=20 -f '" + script + "' -h '" +
                            idgen::it::env_or("PGHOST", "/tmp") + "' -p " + idgen::it::env_or("PGPORT", "5432") +
                            " -U " + idgen::it::env_or("PGUSER", "postgres") + " " + db.name() + " >'" + out + "' 2>&1";
    int pgbench_rc = -1;
    const auto t0 = Clock::now();
    std::thread clients([&] { pgbench_rc = idgen::it::run_pg_tool("pgbench", cmd); });

    // Each DDL runs while the clients do; one that is chosen as a deadlock victim is run again.
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    std::vector<std::string> ddl_errors;
    for (const auto& stmt : kDdl) {
        for (int attempt = 0;; ++attempt) {
            try {
                pqxx::nontransaction tx(ddl);
                tx.exec(stmt);
                break;
            } catch (const std::exception& e) {
                if (attempt >= 3) {
                    ddl_errors.push_back(stmt + ": " + e.what());
                    break;
                }
            }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(800));
    }
    const long ddl_ms = ms_since(t0);
    clients.join();
    const std::string said = read_from(out, 0);
    std::remove(script.c_str());
    std::remove(out.c_str());

    EXPECT_TRUE(ddl_errors.empty()) << ddl_errors.front();
    // The DDL ran under traffic: it was over before the clients stopped.
    EXPECT_LT(ddl_ms, kSeconds * 1000L) << "the DDL outlasted the clients";
    EXPECT_EQ(pgbench_rc, 0) << said;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(said, m, std::regex("number of transactions actually processed: ([0-9]+)"))) << said;
    const long processed = std::stol(m[1]);
    EXPECT_GT(processed, 300) << said;
    if (std::regex_search(said, m, std::regex("number of failed transactions: ([0-9]+)"))) {
        EXPECT_EQ(m[1], "0") << said;
    }

    // No crash: the observer's backend lived through the run, and no process died of a signal.
    EXPECT_EQ(one(observer, "SELECT pg_backend_pid()::text || ' ' || pg_postmaster_start_time()::text"), identity);
    const std::string server_said = read_from(log, log_from);
    EXPECT_EQ(server_said.find("terminated by signal"), std::string::npos) << server_said.substr(0, 4000);
    EXPECT_EQ(server_said.find("server process (PID"), std::string::npos) << server_said.substr(0, 4000);

    pqxx::nontransaction tx(ddl);
    EXPECT_EQ(tx.exec1("SELECT extversion FROM pg_extension WHERE extname = 'id_gen'")[0].as<std::string>(), "0.3.0");
    const long executed = tx.exec1("SELECT count(*) FROM ddl_executions")[0].as<long>();
    EXPECT_GT(executed, 100);
    // Replays happened (requests of finished keys): more requests than executions.
    EXPECT_LT(executed, processed);
    // Nothing executed twice.
    EXPECT_EQ(tx.exec1("SELECT count(*) FROM (SELECT key FROM ddl_executions GROUP BY key HAVING count(*) > 1) d")[0]
                  .as<long>(),
              0);
    // No lost key: each execution's key is finished with its response ...
    EXPECT_EQ(tx.exec1("SELECT count(*) FROM ddl_executions e LEFT JOIN idempotency_keys k "
                       "ON k.role_name = current_user AND k.scope = 'ddl' AND k.key = e.key "
                       "WHERE k.key IS NULL OR k.state <> 'done' OR k.response <> jsonb_build_object('k', "
                       "substr(e.key, 2)::int)")[0]
                  .as<long>(),
              0);
    // ... every key of the store is one execution's (a rolled-back request left nothing) ...
    EXPECT_EQ(tx.exec1("SELECT count(*) FROM idempotency_keys k WHERE NOT EXISTS "
                       "(SELECT FROM ddl_executions e WHERE e.key = k.key)")[0]
                  .as<long>(),
              0);
    // ... and the store finds each one again, through its rebuilt indexes: a replay.
    EXPECT_EQ(tx.exec1("SELECT count(*) FROM ddl_executions e, idempotency_begin('ddl', e.key, 'fp') b "
                       "WHERE b.state <> 'replay' OR b.response <> jsonb_build_object('k', substr(e.key, 2)::int)")[0]
                  .as<long>(),
              0);
    // The indexes hold every row version and are well-formed.
    const auto checked = tx.exec(
        "SELECT bt_index_check(i.indexrelid, true), i.indexrelid::regclass::text "
        "FROM pg_index i WHERE i.indrelid = 'idempotency_keys'::regclass");
    EXPECT_EQ(checked.size(), 2u);
}

}  // namespace
