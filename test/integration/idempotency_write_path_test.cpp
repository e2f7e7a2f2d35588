// The idempotency store's write path (issue 18): it writes idempotency_keys the way PostgreSQL's
// logical-replication apply worker does (execReplication.c), so what the executor enforces on a
// plain INSERT, UPDATE or DELETE holds for the store's writes too: the partition constraint of a
// table attached as a partition, replica identity and publication row filters, the key column's
// collation, a conditional row lock for wait => false, snapshot isolation and SSI, and a purge
// whose work and memory per call do not grow with the table.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <pqxx/pqxx>
#include <string>
#include <thread>

#include "common.h"

namespace {

using Clock = std::chrono::steady_clock;

long ms_since(Clock::time_point t0) {
    return static_cast<long>(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count());
}

std::string sqlstate_of(const std::function<void()>& f, std::string* message = nullptr) {
    try {
        f();
    } catch (const pqxx::sql_error& e) {
        if (message) *message = e.what();
        return e.sqlstate();
    } catch (const pqxx::deadlock_detected& e) {  // libpqxx 6.4: not an sql_error, no SQLSTATE
        if (message) *message = e.what();
        return "40P01";
    } catch (const pqxx::serialization_failure& e) {  // the same
        if (message) *message = e.what();
        return "40001";
    }
    return "";
}

std::string sqlstate_of(const std::string& dsn, const std::string& sql, std::string* message = nullptr) {
    return sqlstate_of(
        [&] {
            pqxx::connection c(dsn);
            pqxx::nontransaction tx(c);
            tx.exec(sql);
        },
        message);
}

std::string one(const std::string& dsn, const std::string& sql) {
    pqxx::connection c(dsn);
    pqxx::nontransaction tx(c);
    const auto r = tx.exec(sql);
    return r.empty() || r[0][0].is_null() ? "<null>" : r[0][0].c_str();
}

void exec(const std::string& dsn, const std::string& sql) {
    pqxx::connection c(dsn);
    pqxx::nontransaction tx(c);
    tx.exec(sql);
}

std::string state_of(pqxx::transaction_base& tx, const std::string& scope, const std::string& key, bool wait = true) {
    return tx
        .exec1("SELECT state FROM idempotency_begin(" + tx.quote(scope) + ", " + tx.quote(key) + ", 'fp', wait => " +
               (wait ? "true" : "false") + ")")[0]
        .c_str();
}

// Finding 6: idempotency_keys attached as a list partition of scope 'POST /a'. A key of another
// scope is refused with the partition constraint's 23514, as an INSERT into the partition is; a
// key of the partition's scope is stored and seen through the parent.
TEST(IdempotencyWritePath, PartitionConstraintIsChecked) {
    idgen::it::ScratchDb db("it_idem_wp_part");
    exec(db.dsn(),
         "CREATE TABLE idem_parent (LIKE idempotency_keys) PARTITION BY LIST (scope);"
         "ALTER TABLE idem_parent ATTACH PARTITION idempotency_keys FOR VALUES IN ('POST /a')");
    std::string message;
    EXPECT_EQ(sqlstate_of(db.dsn(), "SELECT * FROM idempotency_begin('POST /b', 'k', 'fp')", &message), "23514")
        << message;
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    EXPECT_EQ(state_of(tx, "POST /a", "k"), "new");
    EXPECT_EQ(tx.exec1("SELECT count(*) FROM idem_parent")[0].as<int>(), 1);
    EXPECT_EQ(tx.exec1("SELECT count(*) FROM idempotency_keys WHERE scope <> 'POST /a'")[0].as<int>(), 0);
}

// Finding 5: with REPLICA IDENTITY NOTHING and the table in a publication, a plain UPDATE or
// DELETE errors; so do the store's updates (a replay, a finish, a recovery point) and the purge's
// deletes, with the same SQLSTATE. An insert (a new key) is still fine, as a plain INSERT is.
// Then a publication row filter on a column outside the replica identity: the same.
TEST(IdempotencyWritePath, ReplicaIdentityAndRowFiltersApply) {
    idgen::it::ScratchDb db("it_idem_wp_ri");
    {
        pqxx::connection c(db.dsn());
        pqxx::nontransaction tx(c);
        EXPECT_EQ(state_of(tx, "s", "done"), "new");
        tx.exec("SELECT idempotency_finish('s', 'done', '{}')");
        tx.exec("SELECT * FROM idempotency_begin('s', 'held', 'fp', lock_timeout => '1 hour')");
    }
    exec(db.dsn(),
         "ALTER TABLE idempotency_keys REPLICA IDENTITY NOTHING;"
         "CREATE PUBLICATION idem_pub FOR TABLE idempotency_keys");
    std::string plain;
    const std::string want = sqlstate_of(db.dsn(), "UPDATE idempotency_keys SET attempts = attempts", &plain);
    ASSERT_EQ(want, "55000") << plain;
    EXPECT_EQ(sqlstate_of(db.dsn(), "DELETE FROM idempotency_keys WHERE false"), "55000");
    const char* calls[] = {
        "SELECT * FROM idempotency_begin('s', 'done', 'fp')",
        "SELECT idempotency_finish('s', 'held', '{}')",
        "SELECT idempotency_recovery_point('s', 'held', 'p')",
        "SELECT idempotency_purge(older_than => '0')",
    };
    for (const char* call : calls) {
        std::string message;
        EXPECT_EQ(sqlstate_of(db.dsn(), call, &message), want) << call << ": " << message;
    }
    EXPECT_EQ(one(db.dsn(), "SELECT state FROM idempotency_begin('s', 'fresh', 'fp')"), "new");
    EXPECT_EQ(one(db.dsn(), "SELECT attempts FROM idempotency_keys WHERE key = 'done'"), "1");

    exec(db.dsn(),
         "DROP PUBLICATION idem_pub; ALTER TABLE idempotency_keys REPLICA IDENTITY DEFAULT;"
         "CREATE PUBLICATION idem_filtered FOR TABLE idempotency_keys WHERE (state = 'done')");
    const std::string filtered = sqlstate_of(db.dsn(), "UPDATE idempotency_keys SET attempts = attempts", &plain);
    ASSERT_NE(filtered, "") << "a plain UPDATE under a row filter outside the replica identity";
    std::string message;
    EXPECT_EQ(sqlstate_of(db.dsn(), calls[0], &message), filtered) << message;
    EXPECT_EQ(sqlstate_of(db.dsn(), calls[1], &message), filtered) << message;
    EXPECT_EQ(one(db.dsn(), "SELECT attempts FROM idempotency_keys WHERE key = 'done'"), "1");
}

// Finding 7: the key column given an ICU collation (the primary key index is rebuilt with it):
// begin, finish and begin again agree, for keys whose order differs between "C" and ICU.
TEST(IdempotencyWritePath, KeyColumnCollationIsTheIndexs) {
    idgen::it::ScratchDb db("it_idem_wp_coll");
    if (one(db.dsn(), "SELECT count(*) FROM pg_collation WHERE collname = 'en-x-icu'") == "0")
        GTEST_SKIP() << "no ICU collation en-x-icu";
    exec(db.dsn(), "ALTER TABLE idempotency_keys ALTER COLUMN key TYPE text COLLATE \"en-x-icu\"");
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    for (const char* k : {"a", "B", "c", "D", "e"}) EXPECT_EQ(state_of(tx, "s", k), "new") << k;
    for (const char* k : {"B", "a", "D", "e", "c"}) {
        EXPECT_EQ(sqlstate_of([&] { tx.exec("SELECT idempotency_finish('s', " + tx.quote(k) + ", '{}')"); }), "") << k;
    }
    for (const char* k : {"a", "B", "c", "D", "e"}) {
        std::string st;
        EXPECT_EQ(sqlstate_of([&] { st = state_of(tx, "s", k); }), "") << k;
        EXPECT_EQ(st, "replay") << k;
    }
    EXPECT_EQ(tx.exec1("SELECT count(*) FROM idempotency_keys")[0].as<int>(), 5);
}

// Finding 3: a replay row-locks the key's row (it counts the attempt) until its transaction ends;
// a duplicate with wait => false fails at once with 55P03 instead of waiting for it.
TEST(IdempotencyWritePath, WaitFalseDoesNotWaitForAReplay) {
    idgen::it::ScratchDb db("it_idem_wp_nowait");
    exec(db.dsn(), "SELECT * FROM idempotency_begin('s', 'k', 'fp'); SELECT idempotency_finish('s', 'k', '{}')");
    pqxx::connection a(db.dsn());
    pqxx::work ta(a);
    EXPECT_EQ(state_of(ta, "s", "k"), "replay");  // holds the row lock until ta ends
    pqxx::connection b(db.dsn());
    pqxx::nontransaction tb(b);
    tb.exec("SET statement_timeout = '3s'");
    const auto t0 = Clock::now();
    std::string message;
    EXPECT_EQ(sqlstate_of([&] { state_of(tb, "s", "k", false); }, &message), "55P03") << message;
    EXPECT_LT(ms_since(t0), 1000);
    ta.commit();
    EXPECT_EQ(state_of(tb, "s", "k", false), "replay");
    EXPECT_EQ(tb.exec1("SELECT attempts FROM idempotency_keys")[0].as<int>(), 3);
}

// Finding 4, the interleaving of the issue: T1 (SERIALIZABLE) counts the purchases of a key (0);
// T2 begins the key, inserts the purchase, finishes and commits; T1's idempotency_begin must not
// hand T1 the replay while T1 still counts no purchase: T1 fails with 40001 somewhere.
TEST(IdempotencyWritePath, SerializableSeesTheKeysRead) {
    idgen::it::ScratchDb db("it_idem_wp_ssi");
    exec(db.dsn(), "CREATE TABLE purchases (key text, amount int)");
    pqxx::connection c1(db.dsn()), c2(db.dsn());
    pqxx::nontransaction t1(c1), t2(c2);
    t1.exec("BEGIN ISOLATION LEVEL SERIALIZABLE");
    EXPECT_EQ(t1.exec1("SELECT count(*) FROM purchases WHERE key = 'k'")[0].as<int>(), 0);
    t2.exec("BEGIN");
    EXPECT_EQ(state_of(t2, "POST /p", "k"), "new");
    t2.exec("INSERT INTO purchases VALUES ('k', 10)");
    t2.exec("SELECT idempotency_finish('POST /p', 'k', '{\"status\": 201}')");
    t2.exec("COMMIT");
    std::string state = "(none)";
    int seen = -1;
    const std::string code = sqlstate_of([&] {
        state = state_of(t1, "POST /p", "k");
        seen = t1.exec1("SELECT count(*) FROM purchases WHERE key = 'k'")[0].as<int>();
        t1.exec("COMMIT");
    });
    if (code.empty()) {
        ADD_FAILURE() << "T1 committed: idempotency_begin said " << state << ", T1 counted " << seen << " purchases";
    } else {
        EXPECT_EQ(code, "40001") << "begin said " << state;
        t1.exec("ROLLBACK");
    }
    // The retry, in a new transaction, replays.
    EXPECT_EQ(state_of(t1, "POST /p", "k"), "replay");
}

// Finding 4, its other half: SERIALIZABLE transactions beginning distinct keys do not fail with
// 40001 for sharing a btree page of the primary key. Two transactions, each beginning a key and
// then another, interleaved, all four keys on one leaf page: with SIREAD locks on the page each
// would have read the other's insert (a cycle, one fails); like plain INSERTs, both commit.
TEST(IdempotencyWritePath, SerializableDistinctKeysDoNotConflict) {
    idgen::it::ScratchDb db("it_idem_wp_ssi_distinct");
    pqxx::connection c1(db.dsn()), c2(db.dsn());
    pqxx::nontransaction t1(c1), t2(c2);
    t1.exec("BEGIN ISOLATION LEVEL SERIALIZABLE");
    t2.exec("BEGIN ISOLATION LEVEL SERIALIZABLE");
    std::string code1, code2, message;
    code1 = sqlstate_of([&] { state_of(t1, "s", "k1"); }, &message);
    code2 = sqlstate_of([&] { state_of(t2, "s", "k2"); }, &message);
    if (code1.empty()) code1 = sqlstate_of([&] { state_of(t1, "s", "k3"); }, &message);
    if (code2.empty()) code2 = sqlstate_of([&] { state_of(t2, "s", "k4"); }, &message);
    if (code1.empty()) code1 = sqlstate_of([&] { t1.exec("COMMIT"); }, &message);
    if (code2.empty()) code2 = sqlstate_of([&] { t2.exec("COMMIT"); }, &message);
    EXPECT_EQ(code1, "") << message;
    EXPECT_EQ(code2, "") << message;
    if (!code1.empty()) t1.exec("ROLLBACK");
    if (!code2.empty()) t2.exec("ROLLBACK");
}

// Finding 4 under REPEATABLE READ: a row version the snapshot cannot see (a finish committed
// after the snapshot) raises 40001, as an UPDATE of that row would, and never a stale decision.
TEST(IdempotencyWritePath, RepeatableReadRaisesSerializationFailure) {
    idgen::it::ScratchDb db("it_idem_wp_rr");
    pqxx::connection c1(db.dsn()), c2(db.dsn());
    pqxx::nontransaction t1(c1), t2(c2);
    EXPECT_EQ(state_of(t2, "s", "held", true), "new");  // autocommit: in flight across transactions
    t1.exec("BEGIN ISOLATION LEVEL REPEATABLE READ");
    t1.exec("SELECT count(*) FROM pg_class");  // the snapshot
    t2.exec("SELECT idempotency_finish('s', 'held', '{}')");
    t2.exec("SELECT * FROM idempotency_begin('s', 'later', 'fp'); SELECT idempotency_finish('s', 'later', '{}')");
    std::string message;
    EXPECT_EQ(sqlstate_of([&] { state_of(t1, "s", "held"); }, &message), "40001") << message;
    t1.exec("ROLLBACK");
    t1.exec("BEGIN ISOLATION LEVEL REPEATABLE READ");
    t1.exec("SELECT count(*) FROM pg_class");
    t2.exec("SELECT 1");
    EXPECT_EQ(sqlstate_of([&] { state_of(t1, "s", "later"); }, &message), "") << message;
    t1.exec("COMMIT");
}

// The peak resident memory of a backend (VmHWM, kB), read from /proc: the test runs on the server's host.
long vm_hwm_kb(int pid) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
    return -1;
}

// Finding 2: a purge call's work and memory do not grow with the table. 100,000 keys that are
// neither expired nor idle: purge(older_than) calls find nothing, each in bounded memory. Then
// 60,000 expired keys purged in batches of 5,000 while another session holds an old snapshot
// (so the deleted rows' index entries cannot be marked dead): each call reads about a batch of
// index entries, not every entry the earlier calls left behind.
TEST(IdempotencyWritePath, PurgeWorkAndMemoryPerCallAreBounded) {
    idgen::it::ScratchDb db("it_idem_wp_purge");
    exec(db.dsn(),
         "INSERT INTO idempotency_keys SELECT current_user, current_user::regrole, 's', 'live' || i, 'fp', 'done', "
         "'{\"status\": 201, \"padding\": \"" +
             std::string(200, 'x') +
             "\"}', 1, NULL, NULL, NULL, '30 s', NULL, "
             "'1 day', now(), now(), now(), now() + '1 day' FROM generate_series(1, 100000) i");
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    const int pid = tx.exec1("SELECT pg_backend_pid()")[0].as<int>();
    tx.exec("SELECT count(*) FROM idempotency_keys");  // its pages are in this backend's RSS (shared memory) before
    const long before = vm_hwm_kb(pid);
    for (int i = 0; i < 3; ++i)
        EXPECT_EQ(
            tx.exec1("SELECT deleted FROM idempotency_purge(older_than => '1 hour', batch_size => 100)")[0].as<long>(),
            0);
    const long after = vm_hwm_kb(pid);
    EXPECT_LT(after - before, 8 * 1024) << before << " kB then " << after << " kB peak";

    exec(db.dsn(),
         "INSERT INTO idempotency_keys SELECT current_user, current_user::regrole, 's', 'old' || i, 'fp', 'done', "
         "'{}', 1, NULL, NULL, NULL, '30 s', NULL, '1 day', now() - '2 days'::interval, now() - '2 days'::interval, "
         "now() - '2 days'::interval, now() - '1 day'::interval + i * '1 ms'::interval FROM generate_series(1, 60000) "
         "i");
    pqxx::connection old(db.dsn());
    pqxx::nontransaction snap(old);
    snap.exec("BEGIN ISOLATION LEVEL REPEATABLE READ");
    snap.exec("SELECT count(*) FROM idempotency_keys");
    long most = 0;
    int calls = 0;
    for (;;) {
        // Index entries read (dead ones too), of the counts the backend has not reported yet (they
        // can span transactions): by difference.
        const char* counted = "SELECT pg_stat_get_xact_tuples_returned('idempotency_keys_expires_at'::regclass)";
        tx.exec("BEGIN");
        const long was = tx.exec1(counted)[0].as<long>();
        const auto r = tx.exec1("SELECT deleted, done FROM idempotency_purge(batch_size => 5000)");
        const long n = r[0].as<long>();
        const long fetched = tx.exec1(counted)[0].as<long>() - was;
        tx.exec("COMMIT");
        most = std::max(most, fetched);
        if (getenv("IDGEN_TEST_VERBOSE")) std::printf("purge call %d: %ld deleted, %ld fetched\n", calls, n, fetched);
        ++calls;
        EXPECT_EQ(n, 5000);
        if (r[1].as<bool>() || calls > 20) break;
    }
    snap.exec("COMMIT");
    EXPECT_EQ(calls, 12);  // the twelfth call deletes the last 5,000 and finds no entry after them
    EXPECT_LE(most, 2 * 5000) << "index tuples fetched by one purge call";
    EXPECT_EQ(tx.exec1("SELECT count(*) FROM idempotency_keys")[0].as<long>(), 100000);
}

}  // namespace

// A purge loop of idle keys (older_than; no index serves it) reads the table about once in all:
// each call goes on from the row where the last one stopped, and the loop's last call (the one
// that says done) reads only the rest of the sweep, not the whole table again. 60,000 keys,
// every other one idle, purged in batches of 5,000: rows the heap scans returned per call, by
// difference.
TEST(IdempotencyWritePath, PurgeLoopOfIdleKeysReadsTheTableOnce) {
    idgen::it::ScratchDb db("it_idem_wp_idle");
    exec(db.dsn(),
         "INSERT INTO idempotency_keys SELECT current_user, current_user::regrole, 's', 'k' || i, 'fp', 'done', "
         "'{}', 1, NULL, NULL, NULL, '30 s', NULL, '1 day', now() - '2 hours'::interval, "
         "CASE WHEN i % 2 = 0 THEN now() - '2 hours'::interval ELSE now() END, now(), now() + '1 day' "
         "FROM generate_series(1, 60000) i");
    exec(db.dsn(), "VACUUM ANALYZE idempotency_keys");
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    const long rows = 60000;
    const char* counted = "SELECT pg_stat_get_xact_tuples_returned('idempotency_keys'::regclass)";
    std::vector<long> fetched, deleted;
    bool done = false;
    for (int calls = 0; calls < 20 && !done; ++calls) {
        tx.exec("BEGIN");
        const long was = tx.exec1(counted)[0].as<long>();
        const auto r =
            tx.exec1("SELECT deleted, done FROM idempotency_purge(older_than => '1 hour', batch_size => 5000)");
        fetched.push_back(tx.exec1(counted)[0].as<long>() - was);
        tx.exec("COMMIT");
        deleted.push_back(r[0].as<long>());
        done = r[1].as<bool>();
    }
    ASSERT_TRUE(done);
    // Six full batches, and the end of the sweep: in the sixth call when its last idle key is
    // the sweep's last row, else in a seventh that deletes nothing.
    ASSERT_GE(deleted.size(), 6u);
    ASSERT_LE(deleted.size(), 7u);
    for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(deleted[i], 5000) << i;
    if (deleted.size() == 7) {
        EXPECT_EQ(deleted.back(), 0);
    }
    EXPECT_EQ(tx.exec1("SELECT count(*) FROM idempotency_keys")[0].as<long>(), 30000);
    long total = 0;
    for (const long f : fetched) total += f;
    if (getenv("IDGEN_TEST_VERBOSE"))
        for (std::size_t i = 0; i < fetched.size(); ++i)
            std::printf("purge call %zu: %ld deleted, %ld rows read\n", i, deleted[i], fetched[i]);
    // Rows read by the loop: the table once (a call re-reads only the row the last one stopped at).
    EXPECT_GE(total, rows);
    EXPECT_LE(total, rows + 7);
    // The last call read the rest of the sweep, not the table.
    EXPECT_LE(fetched.back(), rows / 4);
    // The next loop is a new round, and finds nothing: one pass over the table (30,000 rows, less
    // than one call's 50,000), done in one call.
    tx.exec("BEGIN");
    const long was = tx.exec1(counted)[0].as<long>();
    const auto r = tx.exec1("SELECT deleted, done FROM idempotency_purge(older_than => '1 hour', batch_size => 5000)");
    EXPECT_EQ(r[0].as<long>(), 0);
    EXPECT_TRUE(r[1].as<bool>());
    const long lone = tx.exec1(counted)[0].as<long>() - was;
    tx.exec("COMMIT");
    EXPECT_EQ(lone, rows / 2);
}

// A purge loop ends when a call says done: that must mean the idle keys are gone, whatever this
// backend's earlier calls were. A call rolled back (its deletions are back) and a call of another
// role (SET ROLE in a pooled connection) must not leave the loop's round believing it has read
// what it has not.
long purge_loop(pqxx::nontransaction& tx, int batch) {
    long total = 0;
    for (int calls = 0; calls < 100; ++calls) {
        const auto r = tx.exec1("SELECT deleted, done FROM idempotency_purge(older_than => '1 hour', batch_size => " +
                                std::to_string(batch) + ")");
        total += r[0].as<long>();
        if (r[1].as<bool>()) return total;
    }
    ADD_FAILURE() << "the purge loop did not end";
    return total;
}

TEST(IdempotencyWritePath, PurgeLoopAfterARolledBackCallLeavesNoIdleKey) {
    idgen::it::ScratchDb db("it_idem_wp_rollback");
    exec(db.dsn(),
         "INSERT INTO idempotency_keys SELECT current_user, current_user::regrole, 's', 'k' || i, 'fp', 'done', "
         "'{}', 1, NULL, NULL, NULL, '30 s', NULL, '1 day', now() - '2 hours'::interval, now() - '2 hours'::interval, "
         "now(), now() + '1 day' FROM generate_series(1, 3000) i");
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    tx.exec("BEGIN");
    EXPECT_EQ(
        tx.exec1("SELECT deleted FROM idempotency_purge(older_than => '1 hour', batch_size => 500)")[0].as<long>(),
        500);
    tx.exec("ROLLBACK");
    // And one inside a subtransaction rolled back to its savepoint.
    tx.exec("BEGIN");
    tx.exec("SAVEPOINT s");
    EXPECT_EQ(
        tx.exec1("SELECT deleted FROM idempotency_purge(older_than => '1 hour', batch_size => 500)")[0].as<long>(),
        500);
    tx.exec("ROLLBACK TO SAVEPOINT s");
    tx.exec("COMMIT");
    EXPECT_EQ(tx.exec1("SELECT count(*) FROM idempotency_keys")[0].as<long>(), 3000);
    EXPECT_EQ(purge_loop(tx, 500), 3000);
    EXPECT_EQ(tx.exec1("SELECT count(*) FROM idempotency_keys")[0].as<long>(), 0);
}

TEST(IdempotencyWritePath, PurgeLoopOfOneRoleAfterAnotherRolesCallLeavesNoIdleKey) {
    idgen::it::ScratchDb db("it_idem_wp_roles");
    const std::string ra = "it_idem_purge_ra", rb = "it_idem_purge_rb";
    for (const auto& r : {ra, rb}) {
        exec(idgen::it::dsn(), "DROP ROLE IF EXISTS " + r);
        exec(idgen::it::dsn(), "CREATE ROLE " + r);
    }
    exec(db.dsn(), "GRANT EXECUTE ON FUNCTION idempotency_purge(interval, integer) TO " + ra + ", " + rb);
    // 2,000 idle keys of each role, interleaved in the heap.
    exec(db.dsn(),
         "INSERT INTO idempotency_keys SELECT r, r::regrole, 's', 'k' || i, 'fp', 'done', "
         "'{}', 1, NULL, NULL, NULL, '30 s', NULL, '1 day', now() - '2 hours'::interval, now() - '2 hours'::interval, "
         "now(), now() + '1 day' FROM generate_series(1, 4000) i, "
         "LATERAL (SELECT CASE WHEN i % 2 = 0 THEN '" +
             ra + "' ELSE '" + rb + "' END::name AS r) x");
    {
        pqxx::connection c(db.dsn());
        pqxx::nontransaction tx(c);
        tx.exec("SET ROLE " + ra);
        EXPECT_EQ(
            tx.exec1("SELECT deleted FROM idempotency_purge(older_than => '1 hour', batch_size => 500)")[0].as<long>(),
            500);
        tx.exec("RESET ROLE");
        // rb's loop after ra's call.
        tx.exec("SET ROLE " + rb);
        EXPECT_EQ(purge_loop(tx, 500), 2000);
        tx.exec("RESET ROLE");
        EXPECT_EQ(tx.exec1("SELECT count(*) FROM idempotency_keys WHERE role_name = '" + rb + "'")[0].as<long>(), 0);
        EXPECT_EQ(tx.exec1("SELECT count(*) FROM idempotency_keys WHERE role_name = '" + ra + "'")[0].as<long>(), 1500);
        // Another older_than is another sweep too.
        tx.exec("SET ROLE " + ra);
        EXPECT_EQ(tx.exec1("SELECT deleted FROM idempotency_purge(older_than => '90 minutes', batch_size => 500)")[0]
                      .as<long>(),
                  500);
        EXPECT_EQ(purge_loop(tx, 400), 1000);
        tx.exec("RESET ROLE");
        EXPECT_EQ(tx.exec1("SELECT count(*) FROM idempotency_keys")[0].as<long>(), 0);
    }
    exec(db.dsn(), "REVOKE ALL ON FUNCTION idempotency_purge(interval, integer) FROM " + ra + ", " + rb);
}
