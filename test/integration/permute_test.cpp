// id_permute(): what needs a real server beyond pg_regress — keys carried by pg_dump and restore
// (then unpermuted, and new IDs that do not collide with restored ones), many sessions inserting
// through a sequence's DEFAULT at once, one session's key cache following another session's
// committed change, and parallel workers computing what the leader computes.
#include <gtest/gtest.h>

#include <cstdio>
#include <pqxx/pqxx>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include "common.h"

namespace {

std::string conn_args() {
    return "-h '" + idgen::it::env_or("PGHOST", "/tmp") + "' -p " + idgen::it::env_or("PGPORT", "5432") + " -U " +
           idgen::it::env_or("PGUSER", "postgres");
}

std::string one(const std::string& dsn, const std::string& sql) {
    pqxx::connection c(dsn);
    pqxx::nontransaction tx(c);
    const auto r = tx.exec1(sql);
    return r.at(0).is_null() ? "NULL" : r.at(0).c_str();
}

// The keys as a superuser sees them (their bytes included), in one line.
const char* kKeys = "SELECT string_agg(name || ':' || encode(key, 'hex') || ':' || domain || ':' || tweak, ';' ORDER BY name) "
                    "FROM permute_keys";

TEST(Permute, DumpAndRestoreCarryTheKeys) {
    idgen::it::ScratchDb src("it_permute_dump_src");
    {
        pqxx::connection c(src.dsn());
        pqxx::nontransaction tx(c);
        tx.exec("SELECT id_permute_key('orders'), id_permute_key('js', domain => 9007199254740991, tweak => 'js_seq')");
        tx.exec("CREATE SEQUENCE orders_seq");
        tx.exec("CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT id_permute(nextval('orders_seq'), 'orders'), "
                "js bigint, n bigint)");
        tx.exec("INSERT INTO orders (n) SELECT g FROM generate_series(1, 300) g");
        tx.exec("UPDATE orders SET js = id_permute(n, 'js')");
    }
    const std::string keys = one(src.dsn(), kKeys);
    ASSERT_NE(keys, "NULL");

    const std::string file = idgen::it::env_or("IDGEN_WORK", "/tmp") + "/permute_dump_" + std::to_string(getpid()) + ".dump";
    ASSERT_EQ(idgen::it::run_pg_tool("pg_dump", conn_args() + " -Fc -f '" + file + "' " + src.name()), 0);
    const std::string dst_name = "it_permute_dump_dst";
    {
        pqxx::connection admin(idgen::it::dsn());
        pqxx::nontransaction tx(admin);
        tx.exec("DROP DATABASE IF EXISTS " + dst_name + " WITH (FORCE)");
        tx.exec("CREATE DATABASE " + dst_name);
    }
    const int rc = idgen::it::run_pg_tool("pg_restore", conn_args() + " --exit-on-error -d " + dst_name + " '" + file + "'");
    std::remove(file.c_str());
    ASSERT_EQ(rc, 0);
    const std::string dst = idgen::it::dsn(dst_name);
    // The same keys, byte for byte; every stored ID maps back to its counter value.
    EXPECT_EQ(one(dst, kKeys), keys);
    EXPECT_EQ(one(dst, "SELECT count(*) FILTER (WHERE id_unpermute(id, 'orders') = n AND id_unpermute(js, 'js') = n) "
                       "FROM orders"),
              "300");
    // New IDs from the restored sequence under the restored key: unique among the old ones.
    {
        pqxx::connection c(dst);
        pqxx::nontransaction tx(c);
        tx.exec("INSERT INTO orders (n) SELECT g FROM generate_series(301, 600) g");
    }
    EXPECT_EQ(one(dst, "SELECT count(DISTINCT id) || ' ' || bool_and(id_unpermute(id, 'orders') = n) FROM orders"), "600 true");
    pqxx::connection admin(idgen::it::dsn());
    pqxx::nontransaction tx(admin);
    tx.exec("DROP DATABASE IF EXISTS " + dst_name + " WITH (FORCE)");
}

// A role that cannot read the keys gets an error from pg_dump, not a dump without them.
TEST(Permute, DumpByARoleThatCannotReadTheKeysFails) {
    idgen::it::ScratchDb db("it_permute_dump_role");
    {
        pqxx::connection c(db.dsn());
        pqxx::nontransaction tx(c);
        tx.exec("SELECT id_permute_key('orders')");
        tx.exec("DROP ROLE IF EXISTS it_permute_dumper");
        tx.exec("CREATE ROLE it_permute_dumper LOGIN");
    }
    const std::string file = idgen::it::env_or("IDGEN_WORK", "/tmp") + "/permute_role_" + std::to_string(getpid());
    const std::string args = "-h '" + idgen::it::env_or("PGHOST", "/tmp") + "' -p " + idgen::it::env_or("PGPORT", "5432") +
                             " -U it_permute_dumper -f '" + file + ".sql' " + db.name() + " 2>'" + file + ".err'";
    const int rc = idgen::it::run_pg_tool("pg_dump", args);
    std::string err;
    if (FILE* f = std::fopen((file + ".err").c_str(), "r")) {
        char buf[4096];
        const std::size_t n = std::fread(buf, 1, sizeof buf, f);
        err.assign(buf, n);
        std::fclose(f);
    }
    std::remove((file + ".sql").c_str());
    std::remove((file + ".err").c_str());
    EXPECT_NE(rc, 0);
    EXPECT_NE(err.find("permission denied for table"), std::string::npos) << err;
    pqxx::connection admin(idgen::it::dsn());
    pqxx::nontransaction tx(admin);
    tx.exec("DROP DATABASE IF EXISTS " + db.name() + " WITH (FORCE)");
    tx.exec("DROP ROLE IF EXISTS it_permute_dumper");
}

TEST(Permute, ConcurrentDefaultsNeverCollide) {
    idgen::it::ScratchDb db("it_permute_concurrent");
    {
        pqxx::connection c(db.dsn());
        pqxx::nontransaction tx(c);
        tx.exec("SELECT id_permute_key('orders', domain => 1000000)");
        tx.exec("CREATE SEQUENCE orders_seq MAXVALUE 1000000");
        tx.exec("CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT id_permute(nextval('orders_seq'), 'orders'), "
                "conn int)");
    }
    constexpr int kConns = 8, kRows = 2000, kBatches = 10;
    std::vector<std::string> errors(kConns);
    std::vector<std::thread> threads;
    for (int i = 0; i < kConns; ++i) {
        threads.emplace_back([&, i] {
            try {
                pqxx::connection c(db.dsn());
                pqxx::nontransaction tx(c);
                for (int b = 0; b < kBatches; ++b)
                    tx.exec("INSERT INTO orders (conn) SELECT " + std::to_string(i) + " FROM generate_series(1, " +
                            std::to_string(kRows / kBatches) + ")");
            } catch (const std::exception& e) {
                errors[i] = e.what();
            }
        });
    }
    for (auto& t : threads) t.join();
    for (int i = 0; i < kConns; ++i) EXPECT_EQ(errors[i], "") << "connection " << i;
    // The primary key already refuses a duplicate; the IDs map back to exactly the sequence's values.
    EXPECT_EQ(one(db.dsn(), "SELECT count(*) || ' ' || count(DISTINCT id) || ' ' || min(id_unpermute(id, 'orders')) || ' ' || "
                            "max(id_unpermute(id, 'orders')) || ' ' || count(DISTINCT id_unpermute(id, 'orders')) FROM orders"),
              "16000 16000 1 16000 16000");
    EXPECT_EQ(one(db.dsn(), "SELECT min(id) >= 1 AND max(id) <= 1000000 FROM orders"), "t");
}

TEST(Permute, SessionsFollowCommittedKeyChanges) {
    idgen::it::ScratchDb db("it_permute_cache");
    pqxx::connection a(db.dsn()), b(db.dsn());
    {
        pqxx::nontransaction tx(b);
        tx.exec("SELECT id_permute_key('k')");
    }
    auto value = [&](const std::string& tweak) {
        pqxx::nontransaction tx(a);
        return tx.exec1("SELECT id_permute(5, 'k'" + (tweak.empty() ? std::string() : ", " + tx.quote(tweak)) + ")")
            .at(0)
            .as<long long>();
    };
    const long long first = value("");
    EXPECT_EQ(value(""), first);  // cached
    {
        // An uncommitted change is not seen; the committed one is, at A's next call.
        pqxx::work tx(b);
        tx.exec("UPDATE permute_keys SET tweak = 'k2' WHERE name = 'k'");
        EXPECT_EQ(value(""), first);
        tx.commit();
    }
    EXPECT_EQ(value(""), value("k2"));
    EXPECT_NE(value(""), first);
    {
        pqxx::nontransaction tx(b);
        tx.exec("DELETE FROM permute_keys WHERE name = 'k'");
    }
    try {
        value("");
        ADD_FAILURE() << "a deleted key was still used";
    } catch (const pqxx::sql_error& e) {
        EXPECT_EQ(e.sqlstate(), "42704") << e.what();
    }
    {
        // The same name again: a new random key, not the cached one.
        pqxx::nontransaction tx(b);
        tx.exec("SELECT id_permute_key('k')");
    }
    EXPECT_NE(value(""), first);
}

TEST(Permute, ParallelWorkersComputeWhatTheLeaderDoes) {
    idgen::it::ScratchDb db("it_permute_parallel");
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    tx.exec("SELECT id_permute_key('p')");
    tx.exec("CREATE TABLE t AS SELECT g::bigint AS n FROM generate_series(1, 200000) g");
    tx.exec("ANALYZE t");
    const std::string q = "SELECT sum(id_permute(n, 'p') % 1000003) || ' ' || count(DISTINCT id_permute(n, 'p') % 1000003) FROM t "
                          "WHERE id_permute(n, 'p') % 2 = 0";
    tx.exec("SET max_parallel_workers_per_gather = 0");
    const std::string serial = tx.exec1(q).at(0).c_str();
    tx.exec("SET max_parallel_workers_per_gather = 2");
    tx.exec("SET parallel_setup_cost = 0");
    tx.exec("SET parallel_tuple_cost = 0");
    tx.exec("SET min_parallel_table_scan_size = 0");
    std::string plan;
    for (const auto& row : tx.exec("EXPLAIN (COSTS OFF) " + q)) plan += std::string(row[0].c_str()) + "\n";
    EXPECT_NE(plan.find("Gather"), std::string::npos) << plan;
    EXPECT_EQ(tx.exec1(q).at(0).c_str(), serial);
}

}  // namespace
