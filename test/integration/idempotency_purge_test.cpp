// idempotency_purge() (issue 30): one call's two passes (expired keys, then with older_than idle
// ones) in one transaction; every answer of the row lock it takes before a delete (a row this
// transaction deleted in an earlier command, one another transaction updated or deleted since
// the pass's snapshot, under READ COMMITTED and REPEATABLE READ); the transaction's snapshot
// under REPEATABLE READ and SERIALIZABLE; and a call's bounded work with the round's `done`.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <pqxx/pqxx>
#include <string>
#include <thread>
#include <vector>

#include "common.h"

namespace {

void exec(const std::string& dsn, const std::string& sql) {
    pqxx::connection c(dsn);
    pqxx::nontransaction tx(c);
    tx.exec(sql);
}

std::string sqlstate_of(const std::function<void()>& f, std::string* message = nullptr) {
    try {
        f();
    } catch (const pqxx::sql_error& e) {
        if (message) *message = e.what();
        return e.sqlstate();
    } catch (const pqxx::serialization_failure& e) {  // libpqxx 6.4: not an sql_error
        if (message) *message = e.what();
        return "40001";
    }
    return "";
}

struct Purged {
    long deleted;
    bool done;
};

Purged purge(pqxx::transaction_base& tx, const std::string& args = "") {
    const auto r = tx.exec1("SELECT deleted, done FROM idempotency_purge(" + args + ")");
    return {r[0].as<long>(), r[1].as<bool>()};
}

long count(pqxx::transaction_base& tx, const std::string& where = "true") {
    return tx.exec1("SELECT count(*) FROM idempotency_keys WHERE " + where)[0].as<long>();
}

// Finished keys `names` (comma-separated SQL literals), with `retention`.
void finished_keys(const std::string& dsn, const std::string& names, const std::string& retention = "1 day") {
    exec(dsn, "SELECT (idempotency_begin('s', k, NULL, retention => '" + retention +
                  "')).state, "
                  "idempotency_finish('s', k, '{}') FROM unnest(ARRAY[" +
                  names + "]) k");
}

// The suite's tests share one database (making one costs more than most of them): each begins
// with an empty idempotency_keys and none of the other tests' tables or triggers.
class IdempotencyPurge : public ::testing::Test {
protected:
    static void SetUpTestSuite() { db_ = new idgen::it::ScratchDb("it_idem_purge_suite"); }
    static void TearDownTestSuite() {
        delete db_;
        db_ = nullptr;
    }
    void SetUp() override {
        exec(db_->dsn(),
             "DROP TRIGGER IF EXISTS purge_b ON idempotency_keys; DROP TRIGGER IF EXISTS pause ON idempotency_keys;"
             "DROP FUNCTION IF EXISTS purge_b(); DROP FUNCTION IF EXISTS pause();"
             "DROP TABLE IF EXISTS purchases, page_of; TRUNCATE idempotency_keys");
    }
    static idgen::it::ScratchDb* db_;
};
idgen::it::ScratchDb* IdempotencyPurge::db_ = nullptr;

// Finding 1: expired keys (every one also idle) and idle keys purged by one older_than call. Its
// expiry pass deletes the expired ones; its idle pass must not meet them again (XX000
// "unexpected result 1 locking a row", TM_Invisible, before: the call, and the loop with it,
// failed whenever an expired key existed, so idle keys were never purged).
TEST_F(IdempotencyPurge, ExpiredAndIdleKeysInOneCall) {
    const idgen::it::ScratchDb& db = *db_;
    finished_keys(db.dsn(), "'e1', 'e2'", "1 millisecond");
    finished_keys(db.dsn(), "'i1', 'i2', 'i3'");
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    tx.exec("SELECT pg_sleep(0.05)");
    std::string message;
    Purged p{};
    EXPECT_EQ(sqlstate_of([&] { p = purge(tx, "older_than => '0 seconds'"); }, &message), "") << message;
    EXPECT_EQ(p.deleted, 5);
    EXPECT_TRUE(p.done);
    EXPECT_EQ(count(tx), 0);
    // The documented loop, in one transaction per call, with the default retention: expired keys
    // are idle too.
    finished_keys(db.dsn(), "'e3', 'e4'", "1 millisecond");
    finished_keys(db.dsn(), "'i4'");
    tx.exec("SELECT pg_sleep(0.05)");
    EXPECT_EQ(sqlstate_of(
                  [&] {
                      tx.exec(
                          "DO $$ BEGIN WHILE NOT (SELECT done FROM idempotency_purge(older_than => '0 seconds')) "
                          "LOOP COMMIT; END LOOP; END $$");
                  },
                  &message),
              "")
        << message;
    EXPECT_EQ(count(tx), 0);
}

// A row trigger of the table's owner that deletes another expired key while the purge deletes
// the first: the expiry pass then meets a row this transaction deleted in an earlier command
// (TM_Invisible): skipped, and the call goes on.
TEST_F(IdempotencyPurge, RowDeletedByATriggerOfThisCallIsSkipped) {
    const idgen::it::ScratchDb& db = *db_;
    finished_keys(db.dsn(), "'a'", "1 millisecond");
    finished_keys(db.dsn(), "'b', 'c'", "2 milliseconds");
    exec(db.dsn(),
         "CREATE FUNCTION purge_b() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
         "IF OLD.key = 'a' THEN DELETE FROM idempotency_keys WHERE key = 'b'; END IF; RETURN OLD; END $$;"
         "CREATE TRIGGER purge_b BEFORE DELETE ON idempotency_keys FOR EACH ROW EXECUTE FUNCTION purge_b()");
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    tx.exec("SELECT pg_sleep(0.05)");
    std::string message;
    Purged p{};
    EXPECT_EQ(sqlstate_of([&] { p = purge(tx); }, &message), "") << message;
    EXPECT_EQ(p.deleted, 2);  // a and c; b went with a's trigger
    EXPECT_TRUE(p.done);
    EXPECT_EQ(count(tx), 0);
}

// Rows another transaction updated (a replay: attempts + 1) or deleted, and committed, after the
// pass's snapshot was taken and before the purge locks them (TM_Updated, TM_Deleted): skipped,
// never waited for and never an error. Under READ COMMITTED the purge pauses in a row trigger on
// its first delete (an advisory lock this test holds) while the other transaction commits; under
// REPEATABLE READ the transaction's snapshot is older than the change.
TEST_F(IdempotencyPurge, RowsChangedSinceTheSnapshotAreSkipped) {
    const idgen::it::ScratchDb& db = *db_;
    const auto keys = [&] {
        exec(db.dsn(), "TRUNCATE idempotency_keys");
        finished_keys(db.dsn(), "'a'", "1 millisecond");
        finished_keys(db.dsn(), "'b', 'c'", "2 milliseconds");
        exec(db.dsn(), "SELECT pg_sleep(0.05)");
    };
    const std::string change =
        "UPDATE idempotency_keys SET attempts = attempts + 1 WHERE key = 'b';"
        "DELETE FROM idempotency_keys WHERE key = 'c'";
    // READ COMMITTED.
    keys();
    exec(db.dsn(),
         "CREATE FUNCTION pause() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
         "IF OLD.key = 'a' THEN PERFORM pg_advisory_lock(4711); PERFORM pg_advisory_unlock(4711); END IF; "
         "RETURN OLD; END $$;"
         "CREATE TRIGGER pause BEFORE DELETE ON idempotency_keys FOR EACH ROW EXECUTE FUNCTION pause()");
    {
        pqxx::connection holder(db.dsn());
        pqxx::nontransaction h(holder);
        h.exec("SELECT pg_advisory_lock(4711)");
        Purged p{};
        std::string message, state;
        std::thread purger([&] {
            state = sqlstate_of(
                [&] {
                    pqxx::connection c(db.dsn());
                    pqxx::nontransaction tx(c);
                    p = purge(tx);
                },
                &message);
        });
        for (int i = 0; i < 200; ++i) {
            pqxx::connection w(db.dsn());
            pqxx::nontransaction t(w);
            if (t.exec1("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 4711 AND NOT granted")[0]
                    .as<int>() == 1)
                break;
            std::this_thread::sleep_for(std::chrono::milliseconds(25));
        }
        exec(db.dsn(), change);
        h.exec("SELECT pg_advisory_unlock(4711)");
        purger.join();
        EXPECT_EQ(state, "") << message;
        EXPECT_EQ(p.deleted, 1);
        EXPECT_TRUE(p.done);
    }
    exec(db.dsn(), "DROP TRIGGER pause ON idempotency_keys");
    {
        pqxx::connection c(db.dsn());
        pqxx::nontransaction tx(c);
        EXPECT_EQ(tx.exec1("SELECT coalesce(string_agg(key || ':' || attempts, ','), '') FROM idempotency_keys")[0]
                      .as<std::string>(),
                  "b:2");
    }
    // REPEATABLE READ (and SERIALIZABLE): the changed rows are skipped where a DELETE would fail
    // with 40001, and the transaction commits.
    for (const std::string level : {"REPEATABLE READ", "SERIALIZABLE"}) {
        keys();
        pqxx::connection c(db.dsn());
        pqxx::nontransaction tx(c);
        tx.exec("BEGIN ISOLATION LEVEL " + level);
        tx.exec("SELECT 1");  // the transaction's snapshot
        exec(db.dsn(), change);
        std::string message;
        Purged p{};
        EXPECT_EQ(sqlstate_of([&] { p = purge(tx); }, &message), "") << level << ": " << message;
        EXPECT_EQ(p.deleted, 1) << level;
        EXPECT_EQ(sqlstate_of([&] { tx.exec("COMMIT"); }, &message), "") << level << ": " << message;
        EXPECT_EQ(tx.exec1("SELECT coalesce(string_agg(key || ':' || attempts, ','), '') FROM idempotency_keys")[0]
                      .as<std::string>(),
                  "b:2")
            << level;
    }
}

// Finding 2: under REPEATABLE READ and SERIALIZABLE the purge reads with the transaction's
// snapshot, as a DELETE there would. T1 reads purchases (none); T2 begins key k2, buys, finishes
// and commits; T1 purges idle keys and commits: it sees neither the purchase nor k2, so it
// deletes k2 no more than a DELETE could (before: it deleted k2, "0 purchases seen, 1 purged").
// A key T1's snapshot sees is purged as under READ COMMITTED.
TEST_F(IdempotencyPurge, TransactionSnapshotUnderRepeatableReadAndSerializable) {
    const idgen::it::ScratchDb& db = *db_;
    exec(db.dsn(), "CREATE TABLE purchases (key text PRIMARY KEY)");
    for (const std::string level : {"REPEATABLE READ", "SERIALIZABLE"}) {
        exec(db.dsn(), "TRUNCATE idempotency_keys, purchases");
        finished_keys(db.dsn(), "'k1'");
        pqxx::connection c1(db.dsn());
        pqxx::nontransaction t1(c1);
        t1.exec("BEGIN ISOLATION LEVEL " + level);
        EXPECT_EQ(t1.exec1("SELECT count(*) FROM purchases")[0].as<long>(), 0);
        exec(db.dsn(),
             "BEGIN;"
             "SELECT state FROM idempotency_begin('s', 'k2', NULL);"
             "INSERT INTO purchases VALUES ('k2');"
             "SELECT idempotency_finish('s', 'k2', '{}');"
             "COMMIT");
        std::string message;
        Purged p{};
        EXPECT_EQ(sqlstate_of([&] { p = purge(t1, "older_than => '0'"); }, &message), "") << level << ": " << message;
        EXPECT_EQ(p.deleted, 1) << level << ": k1 only";
        EXPECT_TRUE(p.done) << level;
        EXPECT_EQ(sqlstate_of([&] { t1.exec("COMMIT"); }, &message), "") << level << ": " << message;
        EXPECT_EQ(t1.exec1("SELECT coalesce(string_agg(key, ','), '') FROM idempotency_keys")[0].as<std::string>(),
                  "k2")
            << level;
    }
}

// Rows the purge scans returned since `was` (heap and expiry index; by difference, in one
// transaction).
const char* kRowsRead =
    "SELECT pg_stat_get_xact_tuples_returned('idempotency_keys'::regclass) + "
    "pg_stat_get_xact_tuples_returned('idempotency_keys_expires_at'::regclass)";

// Finding 6: a call's work is bounded whatever the table's size: with batch_size 100 it
// examines at most 1,000 rows, even when it finds nothing to delete (before: a call that found
// fewer than batch_size read the whole table: 20,000 rows here, every call). A loop calls it until
// `done`: it reads the table once in all, each call going on where the last one stopped, and every
// idle key is gone. 20,000 keys, one in a hundred idle.
TEST_F(IdempotencyPurge, CallWorkIsBoundedAndTheLoopEndsWhenDone) {
    const idgen::it::ScratchDb& db = *db_;
    const long rows = 20000;
    exec(db.dsn(),
         "INSERT INTO idempotency_keys SELECT current_user, current_user::regrole, 's', 'k' || i, 'fp', 'done', "
         "'{}', 1, NULL, NULL, NULL, '30 s', NULL, '1 day', now() - '2 hours'::interval, "
         "CASE WHEN i % 100 = 0 THEN now() - '2 hours'::interval ELSE now() END, now(), now() + '1 day' "
         "FROM generate_series(1, " +
             std::to_string(rows) + ") i");
    exec(db.dsn(), "VACUUM ANALYZE idempotency_keys");
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    long total_read = 0, total_deleted = 0, most = 0;
    int calls = 0;
    bool done = false;
    while (!done && calls < 100) {
        tx.exec("BEGIN");
        const long was = tx.exec1(kRowsRead)[0].as<long>();
        const Purged p = purge(tx, "older_than => '1 hour', batch_size => 100");
        const long read = tx.exec1(kRowsRead)[0].as<long>() - was;
        tx.exec("COMMIT");
        ++calls;
        done = p.done;
        total_read += read;
        total_deleted += p.deleted;
        most = std::max(most, read);
        if (getenv("IDGEN_TEST_VERBOSE")) std::printf("call %d: %ld deleted, %ld rows read\n", calls, p.deleted, read);
    }
    EXPECT_TRUE(done);
    EXPECT_EQ(total_deleted, rows / 100);
    EXPECT_EQ(count(tx), rows - rows / 100);
    // At most 1,000 rows examined, and the first one not examined read again by the next call.
    EXPECT_LE(most, 1001);
    EXPECT_GE(calls, 20);
    EXPECT_LE(calls, 22);
    EXPECT_GE(total_read, rows - rows / 100);
    EXPECT_LE(total_read, rows + calls);
    // batch_size 1: ten rows a call, and the loop still ends (each call resumes at the row, not at
    // the page, where the last one stopped; a page holds more), deleting nothing: none is idle
    // any more. On the table's first 990 keys (the rest deleted, and truncated away by VACUUM).
    exec(db.dsn(), "DELETE FROM idempotency_keys WHERE substr(key, 2)::int > 1000");
    exec(db.dsn(), "VACUUM idempotency_keys");
    const long small = count(tx);
    ASSERT_EQ(small, 990);
    calls = 0;
    done = false;
    tx.exec("BEGIN");
    const long was = tx.exec1(kRowsRead)[0].as<long>();
    while (!done && calls < 1000) {
        const Purged p = purge(tx, "older_than => '1 hour', batch_size => 1");
        EXPECT_EQ(p.deleted, 0);
        done = p.done;
        ++calls;
    }
    const long read = tx.exec1(kRowsRead)[0].as<long>() - was;
    tx.exec("COMMIT");
    EXPECT_TRUE(done);
    EXPECT_GE(calls, small / 10);
    EXPECT_LE(calls, small / 10 + 2);
    EXPECT_LE(read, small + calls);
}

// Finding 6, the expiry pass: an index entry whose row the call's snapshot does not see (a key
// deleted, its entry not yet removed by VACUUM, nor marked dead while an older snapshot can still
// see the row) costs a call's budget like a row. 20,000 expired keys, the 19,900 that expire
// first deleted while another session holds a snapshot: a new round's calls with batch_size 10
// read at most 101 entries each (before: the first call walked the 19,900 dead entries to reach
// the live ones), and the loop still ends with the 100 live keys deleted.
TEST_F(IdempotencyPurge, DeadExpiryEntriesCountAgainstTheBudget) {
    const idgen::it::ScratchDb& db = *db_;
    exec(db.dsn(),
         "INSERT INTO idempotency_keys SELECT current_user, current_user::regrole, 's', 'k' || i, 'fp', 'done', "
         "'{}', 1, NULL, NULL, NULL, '30 s', NULL, '1 day', now() - '3 hours'::interval, now(), now(), "
         "now() - '2 hours'::interval + i * '1 ms'::interval FROM generate_series(1, 20000) i");
    exec(db.dsn(), "VACUUM ANALYZE idempotency_keys");
    pqxx::connection holder(db.dsn());
    pqxx::nontransaction h(holder);
    h.exec("BEGIN ISOLATION LEVEL REPEATABLE READ");
    h.exec("SELECT count(*) FROM idempotency_keys");
    exec(db.dsn(), "DELETE FROM idempotency_keys WHERE substr(key, 2)::int <= 19900");
    pqxx::connection c(db.dsn());  // a new backend: a new round
    pqxx::nontransaction tx(c);
    long most = 0, deleted = 0;
    int calls = 0;
    bool done = false;
    while (!done && calls < 3000) {
        tx.exec("BEGIN");
        const long was = tx.exec1(kRowsRead)[0].as<long>();
        const Purged p = purge(tx, "batch_size => 10");
        most = std::max(most, tx.exec1(kRowsRead)[0].as<long>() - was);
        tx.exec("COMMIT");
        ++calls;
        done = p.done;
        deleted += p.deleted;
    }
    h.exec("COMMIT");
    EXPECT_TRUE(done);
    EXPECT_EQ(deleted, 100);
    EXPECT_EQ(count(tx), 0);
    EXPECT_LE(most, 101);
    EXPECT_GE(calls, 19900 / 100);
}

// A lone call per session (a scheduler's job) is the first step of a new round each time: its
// sweep of the heap starts at a random page, so such calls do not all purge the table's first
// pages. 3,000 idle keys; ten sessions, one call each with batch_size 1: the keys deleted lie in
// several pages (before, every round began at page 0: all ten from the first).
TEST_F(IdempotencyPurge, LoneCallsStartAtRandomPages) {
    const idgen::it::ScratchDb& db = *db_;
    exec(db.dsn(),
         "INSERT INTO idempotency_keys SELECT current_user, current_user::regrole, 's', 'k' || i, 'fp', 'done', "
         "'{}', 1, NULL, NULL, NULL, '30 s', NULL, '1 day', now() - '2 hours'::interval, "
         "now() - '2 hours'::interval, now(), now() + '1 day' FROM generate_series(1, 3000) i;"
         "CREATE TABLE page_of AS SELECT key, (ctid::text::point)[0]::int AS page FROM idempotency_keys");
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    const long pages = tx.exec1("SELECT count(DISTINCT page) FROM page_of")[0].as<long>();
    ASSERT_GE(pages, 20);
    for (int i = 0; i < 10; ++i) {
        pqxx::connection s(db.dsn());
        pqxx::nontransaction t(s);
        EXPECT_EQ(purge(t, "older_than => '1 hour', batch_size => 1").deleted, 1);
    }
    EXPECT_GE(tx.exec1("SELECT count(DISTINCT page) FROM page_of p WHERE NOT EXISTS "
                       "(SELECT FROM idempotency_keys k WHERE k.key = p.key)")[0]
                  .as<long>(),
              3);
}

// The install script creates idempotency_purge() and never drops one first: a function of the
// user's with its signature in the extension's schema makes CREATE EXTENSION fail (42723), as
// 0.2.0's did, and is left as it was. Only the 0.2.0 -> 0.3.0 update drops (0.2.0's) function.
TEST(IdempotencyPurgeInstall, UsersOwnFunctionIsNotDropped) {
    const std::string name = "it_idem_purge_own";
    pqxx::connection admin(idgen::it::dsn());
    pqxx::nontransaction a(admin);
    a.exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    a.exec("CREATE DATABASE " + name);
    {
        pqxx::connection c(idgen::it::dsn(name));
        pqxx::nontransaction tx(c);
        tx.exec(
            "CREATE FUNCTION public.idempotency_purge(older_than interval, batch_size integer) RETURNS bigint "
            "LANGUAGE sql AS 'SELECT 42::bigint'");
        std::string message;
        EXPECT_EQ(sqlstate_of([&] { tx.exec("CREATE EXTENSION id_gen"); }, &message), "42723") << message;
        EXPECT_EQ(tx.exec1("SELECT public.idempotency_purge('1 hour', 1)")[0].as<long>(), 42);
        EXPECT_EQ(tx.exec1("SELECT count(*) FROM pg_extension WHERE extname = 'id_gen'")[0].as<long>(), 0);
    }
    a.exec("DROP DATABASE " + name + " WITH (FORCE)");
}

// The 0.2.0 -> 0.3.0 update drops idempotency_purge() and creates it again (its result type
// changed), as CHANGELOG.md's "Upgrading from 0.2.0" says: a view that calls it makes the update
// fail with 2BP01 and change nothing; EXECUTE granted on it is gone after the update; its owner
// is the role that ran the update.
TEST(IdempotencyPurgeInstall, UpdateFrom020DropsAndCreatesIt) {
    idgen::it::ScratchDb db("it_idem_purge_update", "0.2.0");
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    tx.exec("DROP ROLE IF EXISTS it_idem_purger; CREATE ROLE it_idem_purger");
    tx.exec("CREATE VIEW purge_now AS SELECT idempotency_purge() AS n");
    std::string message;
    EXPECT_EQ(sqlstate_of([&] { tx.exec("ALTER EXTENSION id_gen UPDATE TO '0.3.0'"); }, &message), "2BP01") << message;
    EXPECT_EQ(tx.exec1("SELECT extversion FROM pg_extension WHERE extname = 'id_gen'")[0].as<std::string>(), "0.2.0");
    tx.exec("DROP VIEW purge_now");
    tx.exec("GRANT EXECUTE ON FUNCTION idempotency_purge(interval, integer) TO it_idem_purger");
    EXPECT_EQ(sqlstate_of([&] { tx.exec("ALTER EXTENSION id_gen UPDATE TO '0.3.0'"); }, &message), "") << message;
    EXPECT_FALSE(tx.exec1("SELECT has_function_privilege('it_idem_purger', 'idempotency_purge(interval, integer)', "
                          "'EXECUTE')")[0]
                     .as<bool>());
    EXPECT_TRUE(tx.exec1("SELECT proowner = current_user::regrole FROM pg_proc "
                         "WHERE oid = 'idempotency_purge(interval, integer)'::regprocedure")[0]
                    .as<bool>());
    EXPECT_TRUE(tx.exec1("SELECT done FROM idempotency_purge()")[0].as<bool>());
    tx.exec("REVOKE ALL ON FUNCTION idempotency_purge(interval, integer) FROM it_idem_purger");
    tx.exec("DROP ROLE it_idem_purger");
}

// A replay is a use of the key: a key retried a moment ago is not idle, whenever it was
// finished. Before, a replay updated only `attempts`, so idempotency_purge(older_than) purged a
// key replayed a moment ago and the next retry ran the request again (a second purchase). The
// replay's update stays heap-only (updated_at is in no index).
TEST_F(IdempotencyPurge, ReplayCountsAsAUse) {
    const idgen::it::ScratchDb& db = *db_;
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    tx.exec("CREATE TABLE purchases (k text)");
    long hot = 0;  // the attempt's heap-only updates of idempotency_keys
    const auto attempt = [&]() {
        tx.exec("BEGIN");
        const std::string state = tx.exec1("SELECT state FROM idempotency_begin('s', 'K', 'fp')")[0].as<std::string>();
        if (state == "new") {
            tx.exec("INSERT INTO purchases VALUES ('K')");
            tx.exec("SELECT idempotency_finish('s', 'K', '{\"ok\": true}')");
        }
        hot = tx.exec1("SELECT pg_stat_get_xact_tuples_hot_updated('idempotency_keys'::regclass)")[0].as<long>();
        tx.exec("COMMIT");
        return state;
    };
    EXPECT_EQ(attempt(), "new");
    tx.exec("SELECT pg_sleep(1.5)");
    EXPECT_EQ(attempt(), "replay");
    EXPECT_EQ(hot, 1);
    EXPECT_EQ(purge(tx, "older_than => '1 second'").deleted, 0);
    EXPECT_EQ(count(tx, "key = 'K'"), 1);
    EXPECT_EQ(attempt(), "replay");
    EXPECT_EQ(tx.exec1("SELECT count(*) FROM purchases WHERE k = 'K'")[0].as<long>(), 1);
}

// A prepared transaction may be rolled back later (ROLLBACK PREPARED), and then what its purge
// calls deleted is back: PREPARE forgets the round as an abort does. Before, the backend's next
// calls went on from where the prepared call had stopped, and the round ended `done` with the
// keys that call had deleted (and the rollback brought back) never examined. The test cluster
// has max_prepared_transactions = 0 (the server's default): the test restarts it with 2, and
// restarts it again with the setting reset at the end.
TEST_F(IdempotencyPurge, PrepareForgetsTheRound) {
    const idgen::it::ScratchDb& db = *db_;
    const idgen::it::Cluster main = idgen::it::main_cluster();
    bool restarted = false;
    {
        pqxx::connection a(db.dsn());
        pqxx::nontransaction t(a);
        if (t.exec1("SHOW max_prepared_transactions")[0].as<int>() == 0) {
            t.exec("ALTER SYSTEM SET max_prepared_transactions = 2");
            restarted = true;
        }
    }
    if (restarted) ASSERT_EQ(idgen::it::pg_ctl(main, "restart"), 0);
    struct Restore {
        const idgen::it::Cluster& c;
        bool on;
        std::string dsn;
        ~Restore() {
            try {
                pqxx::connection a(dsn);
                pqxx::nontransaction t(a);
                for (const auto& r : t.exec("SELECT gid FROM pg_prepared_xacts WHERE gid = 'idem_purge_p1'"))
                    t.exec("ROLLBACK PREPARED " + t.quote(r[0].as<std::string>()));
                if (on) {
                    t.exec("ALTER SYSTEM RESET max_prepared_transactions");
                    idgen::it::pg_ctl(c, "restart");
                }
            } catch (...) {}
        }
    } restore{main, restarted, db.dsn()};
    finished_keys(db.dsn(),
                  "'a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7', 'a8', 'a9', 'a10', 'a11', 'a12', 'a13', 'a14', 'a15'",
                  "1 millisecond");
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    tx.exec("SELECT pg_sleep(0.05)");
    tx.exec("BEGIN");
    const Purged first = purge(tx, "batch_size => 5");
    EXPECT_EQ(first.deleted, 5);
    EXPECT_FALSE(first.done);
    tx.exec("PREPARE TRANSACTION 'idem_purge_p1'");
    tx.exec("ROLLBACK PREPARED 'idem_purge_p1'");
    EXPECT_EQ(count(tx), 15);
    bool done = false;
    for (int calls = 0; !done && calls < 10; ++calls) done = purge(tx, "batch_size => 5").done;
    EXPECT_TRUE(done);
    EXPECT_EQ(count(tx), 0);
}

}  // namespace
