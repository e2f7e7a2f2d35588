// Three suspicions about the idempotency store, settled by tests (the README says what holds):
//   - DROP ROLE of a role that has keys: allowed (rows of an extension's table record no
//     dependency); its keys go to no one; pg_dump then writes their role_id as a bare OID, which
//     a restore loads as is, and which gives the keys to no role there whose name differs (the
//     name is the lookup) nor to a new role of the same name (another OID).
//   - A duplicate that waits for a request while holding a row lock the request needs: within one
//     transaction the key lock is a lock-manager lock and the deadlock detector ends the cycle
//     (40P01); across transactions the duplicate polls the key's row, which the detector does not
//     see: the session's lock_timeout bounds that poll (55P03), and without one the request waits
//     until the key's own lock_timeout runs out and the duplicate takes the key over.
//   - Updates that are not heap-only (an index on a column the store changes) pass the primary
//     key's "unchanged" hint, so btree bottom-up deletion keeps the primary key's size bounded
//     under repeated updates of the same keys; with an older snapshot held (nothing deletable) the
//     same updates grow it.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <future>
#include <iterator>
#include <pqxx/pqxx>
#include <string>
#include <thread>
#include <unistd.h>

#include "common.h"

namespace {

using Clock = std::chrono::steady_clock;

long ms_since(Clock::time_point t0) {
    return static_cast<long>(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count());
}

void exec(const std::string& dsn, const std::string& sql) {
    pqxx::connection c(dsn);
    pqxx::nontransaction tx(c);
    tx.exec(sql);
}

std::string one(const std::string& dsn, const std::string& sql) {
    pqxx::connection c(dsn);
    pqxx::nontransaction tx(c);
    const auto r = tx.exec(sql);
    return r.empty() || r[0][0].is_null() ? "<null>" : r[0][0].c_str();
}

std::string sqlstate_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const pqxx::sql_error& e) {
        return e.sqlstate();
    } catch (const pqxx::deadlock_detected&) {  // libpqxx 6.4: not an sql_error, no SQLSTATE
        return "40P01";
    }
    return "";
}

std::string as(const std::string& role, const std::string& db) {
    return "host=" + idgen::it::env_or("PGHOST", "/tmp") + " port=" + idgen::it::env_or("PGPORT", "5432") +
           " user=" + role + " dbname=" + db;
}

constexpr const char* kFunctions =
    "idempotency_begin(text, text, text, boolean, text, interval, interval), idempotency_finish(text, text, jsonb, "
    "text), idempotency_recovery_point(text, text, text, text), idempotency_purge(interval, integer)";

std::string conn_args() {
    return "-h '" + idgen::it::env_or("PGHOST", "/tmp") + "' -p " + idgen::it::env_or("PGPORT", "5432") + " -U " +
           idgen::it::env_or("PGUSER", "postgres");
}

// DROP ROLE is not blocked by the role's keys; a dump taken afterwards writes the bare OID; a
// restore loads it without error; no role there gets the keys: not one with the same name (it
// has another OID) and not one with another name.
TEST(IdempotencySettled, DroppedRolesKeysDumpAsABareOidThatNoRoleInherits) {
    idgen::it::ScratchDb src("it_idem_drop_src");
    const std::string r = "it_idem_dropped", dst = "it_idem_drop_dst";
    exec(idgen::it::dsn(), "DROP DATABASE IF EXISTS " + dst + " WITH (FORCE)");
    exec(idgen::it::dsn(), "DROP ROLE IF EXISTS " + r);
    exec(idgen::it::dsn(), "CREATE ROLE " + r + " LOGIN");
    exec(src.dsn(), std::string("GRANT EXECUTE ON FUNCTION ") + kFunctions + " TO " + r);
    exec(as(r, src.name()),
         "SELECT * FROM idempotency_begin('POST /x', 'k1', 'f1');"
         "SELECT idempotency_finish('POST /x', 'k1', '{\"secret\": 1}')");
    const std::string old_oid = one(src.dsn(), "SELECT oid::text FROM pg_roles WHERE rolname = '" + r + "'");
    exec(src.dsn(), std::string("REVOKE ALL ON FUNCTION ") + kFunctions + " FROM " + r);
    // Only the grants held the role: its keys do not.
    exec(idgen::it::dsn(), "DROP ROLE " + r);
    EXPECT_EQ(one(src.dsn(), "SELECT role_id::text || ' ' || role_name FROM idempotency_keys"), old_oid + " " + r);

    const std::string work = idgen::it::env_or("IDGEN_WORK", "/tmp");
    const std::string text_dump = work + "/idem_drop_" + std::to_string(getpid()) + ".sql";
    ASSERT_EQ(idgen::it::run_pg_tool(
                  "pg_dump", conn_args() + " --data-only -t idempotency_keys -f '" + text_dump + "' " + src.name()),
              0);
    std::ifstream in(text_dump);
    const std::string dumped((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::remove(text_dump.c_str());
    EXPECT_NE(dumped.find("\n" + r + "\t" + old_oid + "\tPOST /x\tk1\t"), std::string::npos) << dumped;

    const std::string file = work + "/idem_drop_" + std::to_string(getpid()) + ".dump";
    ASSERT_EQ(idgen::it::run_pg_tool("pg_dump", conn_args() + " -Fc -f '" + file + "' " + src.name()), 0);
    exec(idgen::it::dsn(), "CREATE DATABASE " + dst);
    const int rc = idgen::it::run_pg_tool("pg_restore", conn_args() + " --exit-on-error -d " + dst + " '" + file + "'");
    std::remove(file.c_str());
    EXPECT_EQ(rc, 0);
    EXPECT_EQ(one(idgen::it::dsn(dst), "SELECT role_id::text FROM idempotency_keys"), old_oid);
    // A new role of the same name (another OID) does not get the key.
    exec(idgen::it::dsn(), "CREATE ROLE " + r + " LOGIN");
    exec(idgen::it::dsn(dst), std::string("GRANT EXECUTE ON FUNCTION ") + kFunctions + " TO " + r);
    EXPECT_NE(one(idgen::it::dsn(), "SELECT oid::text FROM pg_roles WHERE rolname = '" + r + "'"), old_oid);
    EXPECT_EQ(one(as(r, dst),
                  "SELECT state || ' ' || coalesce(response::text, '-') FROM idempotency_begin('POST /x', 'k1', 'f2')"),
              "new -");
    exec(idgen::it::dsn(dst), std::string("REVOKE ALL ON FUNCTION ") + kFunctions + " FROM " + r);
    exec(idgen::it::dsn(), "DROP DATABASE IF EXISTS " + dst + " WITH (FORCE)");
    exec(idgen::it::dsn(), "DROP ROLE " + r);
}

constexpr const char* kAccounts =
    "CREATE TABLE accounts (id int PRIMARY KEY, balance int NOT NULL);"
    "INSERT INTO accounts VALUES (1, 0)";

// Within one transaction: the request (begin ... finish, one transaction) needs a row the
// duplicate locked before it began the key. The duplicate waits on the key lock, the request on
// the duplicate's row lock: a cycle the deadlock detector sees; one of the two gets 40P01 within
// about deadlock_timeout, and the other goes on.
TEST(IdempotencySettled, DuplicateHoldingARowLockInOneTransactionIsADeadlock) {
    idgen::it::ScratchDb db("it_idem_dl_one");
    exec(db.dsn(), kAccounts);
    pqxx::connection a(db.dsn()), b(db.dsn());
    pqxx::work ta(a), tb(b);
    ta.exec("SELECT * FROM idempotency_begin('s', 'k', 'fp')");
    tb.exec("UPDATE accounts SET balance = balance + 1 WHERE id = 1");
    const auto t0 = Clock::now();
    auto dup = std::async(std::launch::async, [&] {
        return sqlstate_of([&] { tb.exec("SELECT * FROM idempotency_begin('s', 'k', 'fp')"); });
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    const std::string request =
        sqlstate_of([&] { ta.exec("UPDATE accounts SET balance = balance + 10 WHERE id = 1"); });
    if (request.empty()) {
        // The duplicate was the victim; the request has its row.
        EXPECT_EQ(dup.get(), "40P01");
    } else {
        EXPECT_EQ(request, "40P01");
        ta.abort();
        EXPECT_EQ(dup.get(), "");  // the request rolled back: the key is the duplicate's
    }
    EXPECT_LT(ms_since(t0), 10000);
}

// Across transactions: the request committed its key (it works across transactions, lock
// 3 seconds), the duplicate holds a row lock and polls the key's row; the request's next
// transaction needs that row. No lock wait links the two: no 40P01. With the session's
// lock_timeout set, the duplicate gives up after it (55P03) and the request goes on at once;
// without it, the request waits until the key's lock runs out and the duplicate takes the key.
TEST(IdempotencySettled, DuplicateHoldingARowLockAcrossTransactionsWaitsOutTheKeysLock) {
    idgen::it::ScratchDb db("it_idem_dl_across");
    exec(db.dsn(), kAccounts);
    for (const bool bounded : {true, false}) {
        const std::string key = bounded ? "bounded" : "unbounded";
        pqxx::connection a(db.dsn()), b(db.dsn());
        {
            pqxx::nontransaction t(a);
            t.exec("SELECT * FROM idempotency_begin('s', '" + key + "', 'fp', lock_timeout => '3 s')");
        }
        pqxx::work tb(b);
        if (bounded) tb.exec("SET LOCAL lock_timeout = '400ms'");
        tb.exec("UPDATE accounts SET balance = balance + 1 WHERE id = 1");
        auto dup = std::async(std::launch::async, [&] {
            std::string state;
            const std::string code = sqlstate_of(
                [&] { state = tb.exec1("SELECT state FROM idempotency_begin('s', '" + key + "', 'fp')")[0].c_str(); });
            if (code.empty()) tb.commit();
            return code.empty() ? state : code;
        });
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        const auto t0 = Clock::now();
        pqxx::work ta(a);
        const std::string request =
            sqlstate_of([&] { ta.exec("UPDATE accounts SET balance = balance + 10 WHERE id = 1"); });
        const long waited = ms_since(t0);
        const std::string dup_got = dup.get();
        EXPECT_EQ(request, "") << key;
        if (bounded) {
            EXPECT_EQ(dup_got, "55P03");
            EXPECT_LT(waited, 2000) << "the request waited for the duplicate's poll";
            ta.exec("SELECT idempotency_finish('s', '" + key + "', '{}')");
        } else {
            // Not a detected deadlock: the request waited for the key's lock to run out, and the
            // duplicate took the key over meanwhile (its request then executes too).
            EXPECT_EQ(dup_got, "new");
            EXPECT_GE(waited, 2000);
        }
        ta.commit();
    }
}

long pkey_pages(pqxx::transaction_base& tx) {
    return tx.exec1("SELECT pg_relation_size('idempotency_keys_pkey') / current_setting('block_size')::int")[0]
        .as<long>();
}

// Replays of the same keys, each update not heap-only (an index on attempts, which each replay
// changes). The store's updates tell the primary key its columns are unchanged, so btree
// bottom-up deletion removes the older versions' entries as pages fill: the primary key stays
// within a few times its size after the first round. The same rounds with an older snapshot held
// (nothing can be deleted) grow it: the measure sees a missing hint.
TEST(IdempotencySettled, NonHotUpdatesKeepThePrimaryKeyBounded) {
    idgen::it::ScratchDb db("it_idem_bottom_up");
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    tx.exec("ALTER TABLE idempotency_keys SET (autovacuum_enabled = false)");
    tx.exec("CREATE INDEX idempotency_keys_attempts ON idempotency_keys (attempts)");
    tx.exec(
        "SELECT count(*) FROM (SELECT (idempotency_begin('s', 'k' || g, 'fp')).state, "
        "idempotency_finish('s', 'k' || g, '{}') FROM generate_series(1, 400) g) s");
    const long initial = pkey_pages(tx);
    const std::string rounds =
        "DO $$ BEGIN FOR r IN 1 .. 60 LOOP PERFORM count(*) FROM generate_series(1, 400) g, "
        "idempotency_begin('s', 'k' || g, 'fp') b; COMMIT; END LOOP; END $$";
    const auto hot_before =
        tx.exec1("SELECT n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = 'idempotency_keys'");
    tx.exec(rounds);
    const long bounded = pkey_pages(tx);
    tx.exec("SELECT pg_stat_force_next_flush()");
    EXPECT_EQ(
        tx.exec1(
              "SELECT n_tup_upd - n_tup_hot_upd >= 20000 FROM pg_stat_user_tables WHERE relname = 'idempotency_keys'")
            [0]
                .as<bool>(),
        true)
        << "the updates were heap-only: nothing was measured";
    (void)hot_before;
    EXPECT_LE(bounded, initial * 4) << "initial " << initial << " pages";

    // Control: the same with every old version kept alive by a snapshot.
    pqxx::connection holder(db.dsn());
    pqxx::work hold(holder, "hold");
    hold.exec("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
    hold.exec("SELECT count(*) FROM idempotency_keys");
    tx.exec(rounds);
    const long grown = pkey_pages(tx);
    hold.abort();
    EXPECT_GT(grown, bounded * 3) << "bounded " << bounded << " pages";
    std::printf(
        "[ note ] primary key pages: %ld after 400 keys, %ld after 24,000 non-HOT replays, %ld after 24,000 more "
        "with a snapshot held\n",
        initial, bounded, grown);
}

}  // namespace

namespace {

// A finish in the transaction of its begin fetches the row the begin inserted by its TID (no
// second search of the primary key) only while that is the key's current version: after a
// recovery point, a rollback to a savepoint, another key's begin, a second finish, or a table
// rewrite in the same transaction it reads the key as before, with the same results.
TEST(IdempotencySettled, FinishInTheBeginsTransactionFindsTheRowEveryWay) {
    idgen::it::ScratchDb db("it_idem_granted");
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    const auto state = [&](const std::string& key) {
        return tx
            .exec1("SELECT state || ' ' || coalesce(response::text, '-') FROM idempotency_keys WHERE key = " +
                   tx.quote(key))[0]
            .as<std::string>();
    };
    // Searches of the primary key in this transaction.
    const auto searches = [&] {
        return tx.exec1("SELECT pg_stat_get_xact_numscans('idempotency_keys_pkey'::regclass)")[0].as<long>();
    };
    tx.exec("BEGIN");
    tx.exec("SELECT * FROM idempotency_begin('s', 'plain', 'fp')");
    const long before = searches();
    tx.exec("SELECT idempotency_finish('s', 'plain', '{\"n\": 1}')");
    EXPECT_EQ(searches(), before) << "the finish searched the primary key";
    EXPECT_EQ(sqlstate_of([&] { tx.exec("SELECT idempotency_finish('s', 'plain', '{\"n\": 2}')"); }), "55000");
    tx.exec("ROLLBACK");
    tx.exec("BEGIN");
    tx.exec("SELECT * FROM idempotency_begin('s', 'plain', 'fp')");
    tx.exec("SELECT idempotency_finish('s', 'plain', '{\"n\": 1}')");
    tx.exec("SELECT * FROM idempotency_begin('s', 'point', 'fp')");
    tx.exec("SELECT idempotency_recovery_point('s', 'point', 'charged')");
    tx.exec("SELECT idempotency_finish('s', 'point', '{\"n\": 2}')");
    tx.exec("SELECT * FROM idempotency_begin('s', 'first', 'fp')");
    tx.exec("SELECT * FROM idempotency_begin('s', 'second', 'fp')");
    tx.exec("SELECT idempotency_finish('s', 'first', '{\"n\": 3}')");
    tx.exec("SELECT idempotency_finish('s', 'second', '{\"n\": 4}')");
    tx.exec("SAVEPOINT sp");
    tx.exec("SELECT * FROM idempotency_begin('s', 'undone', 'fp')");
    tx.exec("ROLLBACK TO SAVEPOINT sp");
    EXPECT_EQ(sqlstate_of([&] { tx.exec("SELECT idempotency_finish('s', 'undone', '{}')"); }), "55000");
    tx.exec("ROLLBACK TO SAVEPOINT sp");
    tx.exec("SELECT * FROM idempotency_begin('s', 'rewritten', 'fp')");
    tx.exec("ALTER TABLE idempotency_keys ALTER COLUMN lock_timeout TYPE interval USING lock_timeout + interval '0'");
    tx.exec("SELECT idempotency_finish('s', 'rewritten', '{\"n\": 5}')");
    tx.exec("COMMIT");
    EXPECT_EQ(state("plain"), "done {\"n\": 1}");
    EXPECT_EQ(state("point"), "done {\"n\": 2}");
    EXPECT_EQ(state("first"), "done {\"n\": 3}");
    EXPECT_EQ(state("second"), "done {\"n\": 4}");
    EXPECT_EQ(state("rewritten"), "done {\"n\": 5}");
    EXPECT_EQ(tx.exec1("SELECT count(*) FROM idempotency_keys WHERE key = 'undone'")[0].as<int>(), 0);
    tx.exec("CREATE EXTENSION amcheck");
    tx.exec("SELECT bt_index_check(indexrelid, true) FROM pg_index WHERE indrelid = 'idempotency_keys'::regclass");
}

}  // namespace
