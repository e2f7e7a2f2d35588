// Across a server restart (pg_ctl restart of the test cluster, as the cluster's OS user), IDs
// generated afterwards are valid, carry the current time, and sort after every ID issued before;
// a ulid-keyed table and its index survive intact.
#include <gtest/gtest.h>

#include <chrono>
#include <pqxx/pqxx>
#include <string>
#include <thread>
#include <vector>

#include "common.h"

namespace {

constexpr int kIds = 10000;

std::unique_ptr<pqxx::connection> connect_retrying(const std::string& dsn) {
    for (int attempt = 0;; ++attempt) {
        try {
            return std::make_unique<pqxx::connection>(dsn);
        } catch (const pqxx::broken_connection&) {
            if (attempt >= 100) throw;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
    }
}

TEST(UlidRestart, IdsAfterRestartAreValidCurrentAndLarger) {
    idgen::it::ScratchDb db("it_ulid_restart");
    std::string start_before, max_before, pid_before;
    {
        pqxx::connection c(db.dsn());
        pqxx::work tx(c);
        tx.exec("CREATE TABLE t (id ulid PRIMARY KEY DEFAULT gen_ulid(), n int, phase int)");
        tx.exec("INSERT INTO t (n, phase) SELECT g, 1 FROM generate_series(1, " + std::to_string(kIds) + ") g");
        auto r =
            tx.exec1("SELECT pg_postmaster_start_time()::text, (SELECT max(id)::text FROM t), pg_backend_pid()::text");
        start_before = r[0].c_str();
        max_before = r[1].c_str();
        pid_before = r[2].c_str();
        tx.commit();
    }

    ASSERT_EQ(idgen::it::pg_ctl("restart"), 0)
        << "pg_ctl restart failed (cluster owner: " << idgen::it::env_or("IDGEN_PG_OS_USER", "?") << ")";

    auto c = connect_retrying(db.dsn());
    pqxx::work tx(*c);
    // The server really restarted.
    EXPECT_NE(std::string(tx.exec1("SELECT pg_postmaster_start_time()::text")[0].c_str()), start_before);
    EXPECT_EQ(tx.exec1("SELECT count(*) FROM t")[0].as<long>(), kIds);
    const std::string t0 = tx.exec1("SELECT date_trunc('milliseconds', clock_timestamp())::text")[0].c_str();
    tx.exec("INSERT INTO t (n, phase) SELECT g, 2 FROM generate_series(1, " + std::to_string(kIds) + ") g");
    const std::string t1 = tx.exec1("SELECT clock_timestamp()::text")[0].c_str();
    // Valid: canonical text, round-trips; current: time inside [t0, t1]; larger than before.
    auto bad = tx.exec1(
        "SELECT count(*) FILTER (WHERE id::text::ulid <> id OR length(id::text) <> 26),"
        "       count(*) FILTER (WHERE ulid_time(id) < " +
        tx.quote(t0) + "::timestamptz OR ulid_time(id) > " + tx.quote(t1) +
        "::timestamptz),"
        "       count(*) FILTER (WHERE id <= " +
        tx.quote(max_before) +
        "::ulid)"
        " FROM t WHERE phase = 2");
    EXPECT_EQ(bad[0].as<long>(), 0) << "invalid IDs after restart";
    EXPECT_EQ(bad[1].as<long>(), 0) << "IDs after restart do not carry the current time";
    EXPECT_EQ(bad[2].as<long>(), 0) << "IDs after restart do not sort after the ones before";
    // Generation order = ID order within the new backend (n increases with id).
    EXPECT_EQ(tx.exec1("SELECT count(*) FROM (SELECT n, lag(n) OVER (ORDER BY id) AS prev FROM t WHERE phase = 2) s "
                       "WHERE n <= prev")[0]
                  .as<long>(),
              0);
    EXPECT_EQ(tx.exec1("SELECT count(DISTINCT id) FROM t")[0].as<long>(), 2 * kIds);
    tx.exec("CREATE EXTENSION IF NOT EXISTS amcheck");
    tx.exec("SELECT bt_index_check('t_pkey', true)");
    tx.commit();
}

}  // namespace
