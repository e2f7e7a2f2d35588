// The per-backend shard cache of next_id() against concurrent change (DESIGN.md §10): a block
// granted while a transaction issues IDs, registry and block changes made in replica mode, a
// shard_blocks planted where the extension's should be, and invalidations of unrelated objects.
// Each would issue duplicate IDs, crash the server or slow every call if the cache were trusted
// without the lock and the invalidation that make it current.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <pqxx/pqxx>
#include <string>
#include <thread>
#include <vector>

#include "common.h"

namespace {

using namespace std::chrono_literals;
using idgen::it::Cluster;
using idgen::it::Db;
using idgen::it::exec_admin;

long long one_int(pqxx::connection& c, const std::string& sql) {
    pqxx::nontransaction tx(c);
    return tx.exec(sql)[0][0].as<long long>();
}

std::string sqlstate_of(pqxx::connection& c, const std::string& sql, std::string* message = nullptr) {
    try {
        pqxx::nontransaction tx(c);
        tx.exec(sql);
    } catch (const pqxx::sql_error& e) {
        if (message) *message = e.what();
        return e.sqlstate();
    }
    return "";
}

// A statement issues shard 7's IDs from the whole sequence field, in a transaction that goes on;
// meanwhile a block of the shard is granted to this node, as shard_cluster_sync() grants it
// (valid from the clock plus the run-ahead allowance), and a new session issues from the block
// once it is valid. The grant must wait for the transaction (its cache would otherwise go on
// issuing from the whole field), and no ID may repeat.
void grant_while_issuing(const Cluster& c, const std::string& dbname) {
    Db db(c, dbname);
    exec_admin(c,
               "CREATE SCHEMA shard_7; SELECT create_shard(7, 'shard_7'); "
               "CREATE UNLOGGED TABLE a_ids (id bigint); CREATE UNLOGGED TABLE c_ids (id bigint)",
               db.name());

    pqxx::connection a(db.dsn());
    pqxx::nontransaction ta(a);
    ta.exec("BEGIN");
    ta.exec("INSERT INTO a_ids SELECT shard_7.next_id() FROM generate_series(1, 10000)");

    std::atomic<bool> granted{false};
    std::atomic<bool> a_committed{false};
    bool granted_before_commit = false;
    std::string grant_error, c_error;
    std::thread grant([&] {
        try {
            pqxx::connection b(db.dsn());
            pqxx::nontransaction tb(b);
            tb.exec("SET lock_timeout = '60s'");
            tb.exec("INSERT INTO shard_blocks (shard, node_id, seq_lo, seq_bits, valid_from) VALUES (7, " +
                    std::to_string(c.number) +
                    ", 0, 10, clock_timestamp() + interval '200 ms' + coalesce(current_setting('id_gen.max_run_ahead', "
                    "true), '1s')::interval)");
            granted_before_commit = !a_committed.load();
        } catch (const std::exception& e) {
            grant_error = e.what();
        }
        granted = true;
    });
    std::thread issue([&] {
        try {
            while (!granted) std::this_thread::sleep_for(5ms);
            if (!grant_error.empty()) return;
            pqxx::connection cc(db.dsn());
            pqxx::nontransaction tc(cc);
            // Wait for the block to be valid by the server's clock.
            for (int i = 0; i < 1000; ++i) {
                if (tc.exec("SELECT clock_timestamp() > valid_from FROM shard_blocks WHERE shard = 7")[0][0].as<bool>())
                    break;
                std::this_thread::sleep_for(20ms);
            }
            tc.exec("INSERT INTO c_ids SELECT shard_7.next_id() FROM generate_series(1, 300000)");
        } catch (const std::exception& e) {
            c_error = e.what();
        }
    });

    // Session A goes on issuing for three seconds, in one statement (a statement accepts no
    // invalidations on its own: only the lock makes the grant wait): 256 IDs, then a millisecond's
    // sleep, so that it goes on issuing without millions of rows to compare.
    std::string a_error;
    try {
        ta.exec(
            "INSERT INTO a_ids SELECT shard_7.next_id() FROM (WITH RECURSIVE t(i) AS (SELECT 1 UNION ALL "
            "SELECT i + 1 FROM t WHERE clock_timestamp() < statement_timestamp() + interval '3 s' "
            "AND (i % 256 <> 0 OR pg_sleep(0.001) IS NOT NULL)) SELECT i FROM t) s");
        a_committed = true;
        ta.exec("COMMIT");
    } catch (const std::exception& e) {
        a_error = e.what();
        a_committed = true;
    }
    grant.join();
    issue.join();
    ASSERT_EQ(a_error, "");
    ASSERT_EQ(grant_error, "");
    ASSERT_EQ(c_error, "");
    EXPECT_FALSE(granted_before_commit) << "the grant committed while a transaction was issuing from the whole field";

    pqxx::connection check(db.dsn());
    const long long a_rows = one_int(check, "SELECT count(*) FROM a_ids");
    const long long c_rows = one_int(check, "SELECT count(*) FROM c_ids");
    EXPECT_GT(a_rows, 10000);
    EXPECT_EQ(c_rows, 300000);
    EXPECT_EQ(one_int(check, "SELECT count(*) FROM (SELECT id FROM a_ids INTERSECT SELECT id FROM c_ids) d"), 0)
        << "IDs of the block equal IDs issued from the whole field";
    EXPECT_EQ(one_int(check, "SELECT count(DISTINCT id) FROM (SELECT id FROM a_ids UNION ALL SELECT id FROM c_ids) u"),
              a_rows + c_rows);
}

TEST(ShardCache, BlockGrantedWhileIssuingWaitsAndNothingRepeats) {
    grant_while_issuing(idgen::it::main_cluster(), "shard_cache_grant");
}

TEST(ShardCache, BlockGrantedWhileIssuingWaitsAndNothingRepeatsWithoutPreload) {
    grant_while_issuing(idgen::it::nopreload_cluster(), "shard_cache_grant_np");
}

// Changes made under session_replication_role = replica (how logical replication applies them)
// reach a warm session's cache: a registry row deleted, a block granted to another node only.
TEST(ShardCache, ReplicaModeChangesReachWarmSessions) {
    const Cluster c = idgen::it::main_cluster();
    Db db(c, "shard_cache_replica");
    exec_admin(c, "CREATE SCHEMA s8; SELECT create_shard(8, 's8'); CREATE SCHEMA s9; SELECT create_shard(9, 's9')",
               db.name());
    pqxx::connection warm(db.dsn());
    EXPECT_GT(one_int(warm, "SELECT s8.next_id()"), 0);
    EXPECT_GT(one_int(warm, "SELECT s9.next_id()"), 0);

    pqxx::connection replica(db.dsn());
    {
        pqxx::nontransaction t(replica);
        t.exec("SET session_replication_role = replica");
        t.exec("DELETE FROM shard_registry WHERE shard = 8");
        t.exec("INSERT INTO shard_blocks VALUES (9, 99, 0, 4, now())");
    }
    std::string message;
    EXPECT_EQ(sqlstate_of(warm, "SELECT s8.next_id()", &message), "55000");
    EXPECT_NE(message.find("is not a registered shard"), std::string::npos) << message;
    EXPECT_EQ(sqlstate_of(warm, "SELECT s9.next_id()", &message), "55000");
    EXPECT_NE(message.find("holds no block of shard 9"), std::string::npos) << message;

    // A TRUNCATE in replica mode too (the statement triggers fire always).
    {
        pqxx::nontransaction t(replica);
        t.exec("TRUNCATE shard_blocks");
    }
    EXPECT_GT(one_int(warm, "SELECT s9.next_id()"), 0);
}

// Invalidations of other relations and functions leave the cache alone, for any number of
// shards: a warm transaction reads neither table (counted by the table's scans in it).
TEST(ShardCache, UnrelatedInvalidationsKeepThreeHundredShardsCached) {
    const Cluster c = idgen::it::main_cluster();
    Db db(c, "shard_cache_many");
    exec_admin(c,
               "DO $$ BEGIN FOR i IN 1..300 LOOP EXECUTE format('CREATE SCHEMA m%s', i); "
               "PERFORM create_shard(i, 'm' || i); END LOOP; END $$",
               db.name());
    // The statistics of the new rows now, not by autovacuum between the two rounds below (new
    // statistics of a table invalidate its relcache entry, which empties the cache, as it must).
    exec_admin(c, "VACUUM ANALYZE shard_registry, shard_blocks", db.name());
    std::string calls = "SELECT 0";
    for (int i = 1; i <= 300; ++i) calls += " + sign(m" + std::to_string(i) + ".next_id())";
    // A generator's first ID on a server waits up to its reserve (a quarter of a second): give
    // every shard its first ID from ten sessions at once, so the warm session below waits for none.
    {
        std::vector<std::thread> first;
        std::atomic<int> failures{0};
        for (int k = 0; k < 10; ++k)
            first.emplace_back([&, k] {
                try {
                    std::string q = "SELECT 0";
                    for (int i = 1 + k; i <= 300; i += 10) q += " + sign(m" + std::to_string(i) + ".next_id())";
                    pqxx::connection conn(db.dsn());
                    if (one_int(conn, q) != 30) ++failures;
                } catch (const std::exception&) {
                    ++failures;
                }
            });
        for (auto& t : first) t.join();
        ASSERT_EQ(failures.load(), 0);
    }
    pqxx::connection warm(db.dsn());
    EXPECT_EQ(one_int(warm, calls), 300);
    exec_admin(c,
               "CREATE TABLE unrelated (x int); ALTER TABLE unrelated ADD COLUMN y int; "
               "CREATE FUNCTION unrelated_fn() RETURNS int LANGUAGE sql AS 'SELECT 1'",
               db.name());
    // Scans of the shard tables by the calls of one transaction (the counters a session has not
    // reported yet carry over between transactions: the difference counts).
    pqxx::nontransaction t(warm);
    const std::string scans_sql =
        "SELECT pg_stat_get_xact_numscans('shard_registry'::regclass) + "
        "pg_stat_get_xact_numscans('shard_blocks'::regclass)";
    const auto scans_of_calls = [&] {
        t.exec("BEGIN");
        const long long before = t.exec(scans_sql)[0][0].as<long long>();
        EXPECT_EQ(t.exec(calls)[0][0].as<long long>(), 300);
        const long long after = t.exec(scans_sql)[0][0].as<long long>();
        t.exec("COMMIT");
        return after - before;
    };
    EXPECT_EQ(scans_of_calls(), 0) << "the warm session read the shard tables again";
    // A change to one shard's function drops that shard only: one scan of the registry (its blocks
    // are read through the primary key of shard_blocks, counted on the index).
    exec_admin(c,
               "CREATE OR REPLACE FUNCTION m5.next_id() RETURNS bigint LANGUAGE c VOLATILE PARALLEL UNSAFE "
               "AS '$libdir/id_gen', 'shard_next_id'",
               db.name());
    EXPECT_EQ(scans_of_calls(), 1);
    EXPECT_EQ(scans_of_calls(), 0);
}

// Invalidations of the shard tables that do not wait for the lock (GRANT and REVOKE) while a
// session looks its shard up again and again: the entry it caches must always have its block. (A
// lookup that read the tables through the backend's table cache, emptied by such an invalidation
// in the middle of the lookup, cached the shard without its block and issued from the whole
// sequence field.)
TEST(ShardCache, InvalidationsDuringLookupsKeepTheBlock) {
    const Cluster c = idgen::it::main_cluster();
    Db db(c, "shard_cache_inval_race");
    exec_admin(c,
               "CREATE SCHEMA shard_7; SELECT create_shard(7, 'shard_7'); "
               "INSERT INTO shard_blocks VALUES (7, " +
                   std::to_string(c.number) +
                   ", 512, 9, now() - interval '1 minute'); "
                   "DROP ROLE IF EXISTS shard_cache_reader; CREATE ROLE shard_cache_reader",
               db.name());
    std::atomic<bool> stop{false};
    std::string churn_error;
    std::thread churn([&] {
        try {
            pqxx::connection b(db.dsn());
            pqxx::nontransaction tb(b);
            while (!stop) {
                tb.exec("GRANT SELECT ON shard_registry, shard_blocks TO shard_cache_reader");
                tb.exec("REVOKE SELECT ON shard_registry, shard_blocks FROM shard_cache_reader");
            }
        } catch (const std::exception& e) {
            churn_error = e.what();
        }
    });
    long long calls = 0, outside = 0;
    std::string error;
    try {
        pqxx::connection a(db.dsn());
        pqxx::nontransaction ta(a);
        const auto until = std::chrono::steady_clock::now() + 4s;
        while (std::chrono::steady_clock::now() < until) {
            const long long seq = ta.exec("SELECT shard_7.next_id() & 1023")[0][0].as<long long>();
            ++calls;
            if (seq < 512) ++outside;
        }
    } catch (const std::exception& e) {
        error = e.what();
    }
    stop = true;
    churn.join();
    exec_admin(c, "DROP ROLE IF EXISTS shard_cache_reader");
    EXPECT_EQ(error, "");
    EXPECT_EQ(churn_error, "");
    EXPECT_GT(calls, 100);
    EXPECT_EQ(outside, 0) << outside << " of " << calls << " IDs outside this server's block (sequence 512 to 1023)";
}

// What the README says the locks cost: a transaction that issued IDs of a shard holds up a change
// to that shard's rows (here drop_shard() with a lock_timeout: 55P03), which goes through once it
// ends, and while such a change waits, a new next_id() of that shard waits behind it; a new shard,
// and next_id() of another shard, wait for no one; two transactions that each issued IDs of a
// shard and then each drop the other's deadlock, and PostgreSQL aborts one of them (40P01) while
// the other goes on. Before 0.3.0 next_id() locked both tables, and every change waited for every
// issuing transaction.
TEST(ShardCache, OpenTransactionsHoldUpChangesAsTheReadmeSays) {
    const Cluster c = idgen::it::main_cluster();
    Db db(c, "shard_cache_holdup");
    exec_admin(c, "SELECT create_shard(7), create_shard(8), create_shard(10), create_shard(11)", db.name());
    pqxx::connection s1(db.dsn()), s2(db.dsn());
    pqxx::nontransaction t1(s1), t2(s2);
    const auto state = [](pqxx::nontransaction& t, const std::string& sql) -> std::string {
        try {
            t.exec(sql);
        } catch (const pqxx::deadlock_detected& e) {
            return "40P01";  // libpqxx 6.4 may leave this class's SQLSTATE out
        } catch (const pqxx::sql_error& e) {
            return e.sqlstate().empty() ? std::string("error: ") + e.what() : e.sqlstate();
        } catch (const std::exception& e) {
            return std::string("error: ") + e.what();
        }
        return "";
    };
    t1.exec("BEGIN");
    t1.exec("SELECT shard_7.next_id()");
    t2.exec("SET lock_timeout = '300ms'");
    EXPECT_EQ(state(t2, "SELECT create_shard(9)"), "");
    EXPECT_EQ(state(t2, "SELECT drop_shard(8)"), "");
    EXPECT_EQ(state(t2, "SELECT drop_shard(7)"), "55P03");
    // While a change of shard 7 waits, a new next_id() of shard 7 waits behind it, and one of
    // shard 9 does not.
    {
        pqxx::connection s3(db.dsn());
        pqxx::nontransaction t3(s3);
        t3.exec("SET lock_timeout = '300ms'");
        t2.exec("SET lock_timeout = '3s'");
        std::string waiting;
        std::thread change([&] { waiting = state(t2, "SELECT drop_shard(7)"); });
        std::this_thread::sleep_for(1s);
        EXPECT_EQ(state(t3, "SELECT shard_7.next_id()"), "55P03");
        EXPECT_EQ(state(t3, "SELECT shard_9.next_id()"), "");
        change.join();
        EXPECT_EQ(waiting, "55P03");
        EXPECT_EQ(state(t3, "SELECT shard_7.next_id()"), "");
    }
    t1.exec("COMMIT");
    EXPECT_EQ(state(t2, "SELECT drop_shard(7)"), "");
    t2.exec("RESET lock_timeout");

    t1.exec("BEGIN");
    t1.exec("SELECT shard_10.next_id()");
    t2.exec("BEGIN");
    t2.exec("SELECT shard_11.next_id()");
    std::string first;
    std::thread other([&] { first = state(t1, "SELECT drop_shard(11)"); });
    std::this_thread::sleep_for(300ms);
    const std::string second = state(t2, "SELECT drop_shard(10)");
    other.join();
    EXPECT_TRUE((first == "40P01") != (second == "40P01"))
        << "drop_shard(11): '" << first << "', drop_shard(10): '" << second << "'";
    EXPECT_TRUE(first == "" || second == "") << first << " / " << second;
    t1.exec("ROLLBACK");
    t2.exec("ROLLBACK");
}

// A next_id() call planned before drop_shard() commits (the function was still there) waits for
// the drop, and then says that the shard was dropped (42883), in a warm session (the shard cached)
// and a cold one; before 0.3.0 it was an internal error (XX000, "cache lookup failed for
// function"). Nothing is issued.
TEST(ShardCache, NextIdRacingDropShardSaysTheShardWasDropped) {
    const Cluster c = idgen::it::main_cluster();
    Db db(c, "shard_cache_dropped");
    exec_admin(c, "SELECT create_shard(12)", db.name());
    pqxx::connection dropper(db.dsn()), warm(db.dsn()), cold(db.dsn());
    EXPECT_GT(one_int(warm, "SELECT shard_12.next_id()"), 0);
    pqxx::nontransaction td(dropper);
    td.exec("BEGIN");
    td.exec("SELECT drop_shard(12)");
    std::string warm_state, cold_state, warm_message, cold_message;
    std::thread w([&] { warm_state = sqlstate_of(warm, "SELECT shard_12.next_id()", &warm_message); });
    std::thread k([&] { cold_state = sqlstate_of(cold, "SELECT shard_12.next_id()", &cold_message); });
    std::this_thread::sleep_for(500ms);
    td.exec("COMMIT");
    w.join();
    k.join();
    EXPECT_EQ(warm_state, "42883") << warm_message;
    EXPECT_EQ(cold_state, "42883") << cold_message;
    EXPECT_NE(warm_message.find("its shard was dropped"), std::string::npos) << warm_message;
    EXPECT_NE(cold_message.find("its shard was dropped"), std::string::npos) << cold_message;
}

// 0.1.0's SQL under this library: the extension has no shard_blocks yet, and a table of that
// name put into its schema by someone else (here a partitioned one, then a plain one naming a
// block) is never read.
TEST(ShardCache, PlantedShardBlocksIsIgnored) {
    const Cluster c = idgen::it::main_cluster();
    exec_admin(c, "DROP DATABASE IF EXISTS shard_cache_planted WITH (FORCE)");
    exec_admin(c, "CREATE DATABASE shard_cache_planted");
    struct Drop {
        Cluster c;
        ~Drop() {
            try {
                exec_admin(c, "DROP DATABASE IF EXISTS shard_cache_planted WITH (FORCE)");
            } catch (...) {}
        }
    } drop{c};
    exec_admin(c, "CREATE EXTENSION id_gen VERSION '0.1.0'; CREATE SCHEMA s3; SELECT create_shard(3, 's3')",
               "shard_cache_planted");
    exec_admin(c,
               "CREATE TABLE public.shard_blocks (shard int4, node_id int4, seq_lo int4, seq_bits int4, "
               "valid_from timestamptz) PARTITION BY LIST (shard)",
               "shard_cache_planted");
    pqxx::connection conn(c.dsn("shard_cache_planted"));
    EXPECT_GT(one_int(conn, "SELECT s3.next_id()"), 0);
    exec_admin(c,
               "DROP TABLE public.shard_blocks; CREATE TABLE public.shard_blocks (shard int4, node_id int4, "
               "seq_lo int4, seq_bits int4, valid_from timestamptz); "
               "INSERT INTO public.shard_blocks VALUES (3, 1, 5, 0, '2000-01-01')",
               "shard_cache_planted");
    pqxx::connection fresh(c.dsn("shard_cache_planted"));
    // From the whole field: 2000 IDs in one statement use more than one sequence number.
    EXPECT_GT(one_int(fresh,
                      "SELECT count(DISTINCT shard_id_sequence(id)) FROM "
                      "(SELECT s3.next_id() AS id FROM generate_series(1, 2000)) g"),
              1);
    EXPECT_EQ(one_int(fresh, "SELECT 1"), 1);
}

}  // namespace
