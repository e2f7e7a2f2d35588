// The idempotency-key store against a live server, where it takes more than one session or a
// server-side view: many clients with one key (exactly one execution; the others wait, or fail
// fast), key-lock waits (lock_timeout, deadlocks, replays taking turns), a request that holds its
// key across transactions and a retry that waits for it, REPEATABLE READ, a dead request's key
// taken over after its lock timeout (the backend killed with pg_terminate_backend), a request
// killed inside its transaction (the key is free at once), a reply lost after the commit,
// application roles that are not superusers, the owner of public planting look-alikes, purge in
// batches next to a locked row, the table's indexes (amcheck) and heap-only updates through every
// write path, large responses, a crash, pg_dump, a table with what the executor's single-row
// path would not run (refused) and with what it applies (enforced), roles renamed, dropped and
// created again with the same name, and a FOR ALL TABLES publication.
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <pqxx/pqxx>
#include <regex>
#include <set>
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

// One row of idempotency_begin().
struct Begun {
    std::string state, response, original, point;
    bool replayed = false;
    int attempts = 0;
};

std::string lit(pqxx::transaction_base& tx, const char* v) { return v ? tx.quote(std::string(v)) : "NULL"; }

std::string begin_sql(pqxx::transaction_base& tx, const std::string& scope, const std::string& key, const char* fp,
                      bool wait = true, const char* attempt = nullptr, const char* lock_timeout = nullptr) {
    return "SELECT state, response::text, replayed, attempts, original_attempt_id, recovery_point "
           "FROM idempotency_begin(" +
           tx.quote(scope) + ", " + tx.quote(key) + ", " + lit(tx, fp) + ", wait => " + (wait ? "true" : "false") +
           ", attempt_id => " + lit(tx, attempt) +
           (lock_timeout ? ", lock_timeout => " + tx.quote(std::string(lock_timeout)) : std::string()) + ")";
}

Begun begin(pqxx::transaction_base& tx, const std::string& scope, const std::string& key, const char* fp,
            bool wait = true, const char* attempt = nullptr, const char* lock_timeout = nullptr) {
    const auto r = tx.exec1(begin_sql(tx, scope, key, fp, wait, attempt, lock_timeout));
    Begun b;
    b.state = r[0].c_str();
    b.response = r[1].is_null() ? "<null>" : r[1].c_str();
    b.replayed = r[2].as<bool>();
    b.attempts = r[3].as<int>();
    b.original = r[4].is_null() ? "<null>" : r[4].c_str();
    b.point = r[5].is_null() ? "<null>" : r[5].c_str();
    return b;
}

// The SQLSTATE of what `f` throws, "" when it does not. libpqxx 6.4 drops the SQLSTATE of 42501.
std::string sqlstate_of(const std::function<void()>& f, std::string* message = nullptr) {
    try {
        f();
    } catch (const pqxx::insufficient_privilege& e) {
        if (message) *message = e.what();
        return e.sqlstate().empty() ? "42501" : e.sqlstate();
    } catch (const pqxx::sql_error& e) {
        if (message) *message = e.what();
        return e.sqlstate();
    } catch (const pqxx::deadlock_detected& e) {  // libpqxx 6.4: not an sql_error, no SQLSTATE
        if (message) *message = e.what();
        return "40P01";
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

// All threads start their request at once.
class StartLine {
public:
    void wait() {
        std::unique_lock<std::mutex> lock(m_);
        cv_.wait(lock, [&] { return go_; });
    }
    void release() {
        {
            std::lock_guard<std::mutex> lock(m_);
            go_ = true;
        }
        cv_.notify_all();
    }

private:
    std::mutex m_;
    std::condition_variable cv_;
    bool go_ = false;
};

// Key-lock waits of a database, as pg_locks shows them.
int waiting_on_key_lock(pqxx::transaction_base& tx, const std::string& db) {
    return tx
        .exec1(
            "SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database "
            "WHERE l.locktype = 'advisory' AND l.objsubid = 18756 AND NOT l.granted AND d.datname = " +
            tx.quote(db))[0]
        .as<int>();
}

// The store's writes maintain the table's indexes: amcheck finds every row version in each
// index (heapallindexed) and the btrees well-formed.
void expect_indexes_intact(const std::string& dsn) {
    pqxx::connection c(dsn);
    pqxx::nontransaction tx(c);
    tx.exec("CREATE EXTENSION IF NOT EXISTS amcheck");
    tx.exec(
        "SELECT bt_index_check('idempotency_keys_pkey', true), bt_index_check('idempotency_keys_expires_at', true)");
}

constexpr const char* kOrders =
    "CREATE TABLE orders (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, item text, client int)";

// Many clients send one request (one key, one payload) at once, each in one transaction: begin,
// the work (an order row) and finish commit together. Exactly one executes; the others wait on
// the key's lock (seen in pg_locks) and replay the stored response, each attempt counted once.
TEST(Idempotency, ConcurrentDuplicatesExecuteOnceOthersWait) {
    idgen::it::ScratchDb db("it_idem_concurrent");
    exec(db.dsn(), kOrders);
    constexpr int kClients = 8;
    std::vector<Begun> results(kClients);
    std::vector<std::string> errors(kClients);
    StartLine start;
    std::atomic<int> ready{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < kClients; ++i)
        threads.emplace_back([&, i] {
            try {
                pqxx::connection c(db.dsn());
                ++ready;
                start.wait();
                pqxx::work tx(c);
                const std::string attempt = "client-" + std::to_string(i);
                results[i] = begin(tx, "POST /orders", "order-1", "fp-book", true, attempt.c_str());
                if (results[i].state == "new") {
                    const auto id = tx.exec1("INSERT INTO orders (item, client) VALUES ('book', " + std::to_string(i) +
                                             ") RETURNING id")[0]
                                        .as<long>();
                    tx.exec("SELECT pg_sleep(1.5)");  // long enough for every other client to queue up
                    tx.exec("SELECT idempotency_finish('POST /orders', 'order-1', jsonb_build_object('order', " +
                            std::to_string(id) + "))");
                }
                tx.commit();
            } catch (const std::exception& e) {
                errors[i] = e.what();
            }
        });
    while (ready.load() < kClients) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    start.release();
    // While the first request works, the others wait on the key's lock.
    int most_waiting = 0;
    {
        pqxx::connection obs(idgen::it::dsn());
        pqxx::nontransaction tx(obs);
        const auto t0 = Clock::now();
        while (ms_since(t0) < 5000 && most_waiting < kClients - 1) {
            most_waiting = std::max(most_waiting, waiting_on_key_lock(tx, db.name()));
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    }
    for (auto& t : threads) t.join();
    for (int i = 0; i < kClients; ++i) ASSERT_EQ(errors[i], "") << "client " << i;
    EXPECT_EQ(most_waiting, kClients - 1) << "the duplicates did not wait on the key's lock";

    int news = 0;
    std::string response, winner;
    std::set<int> attempts;
    for (int i = 0; i < kClients; ++i) {
        if (results[i].state == "new") {
            ++news;
            winner = "client-" + std::to_string(i);
            EXPECT_FALSE(results[i].replayed);
            EXPECT_EQ(results[i].attempts, 1);
        }
    }
    ASSERT_EQ(news, 1);
    const std::string order_id = one(db.dsn(), "SELECT id::text FROM orders");
    for (int i = 0; i < kClients; ++i) {
        if (results[i].state == "new") continue;
        EXPECT_EQ(results[i].state, "replay") << "client " << i;
        EXPECT_TRUE(results[i].replayed);
        EXPECT_EQ(results[i].response, "{\"order\": " + order_id + "}") << "client " << i;
        EXPECT_EQ(results[i].original, winner) << "the original attempt, whoever asks";
        attempts.insert(results[i].attempts);
    }
    EXPECT_EQ(one(db.dsn(), "SELECT count(*) FROM orders"), "1");
    // Each retry counted once: attempts 2..N, no two the same.
    EXPECT_EQ(attempts.size(), static_cast<std::size_t>(kClients - 1));
    EXPECT_EQ(*attempts.begin(), 2);
    EXPECT_EQ(*attempts.rbegin(), kClients);
    EXPECT_EQ(one(db.dsn(), "SELECT attempts FROM idempotency_keys"), std::to_string(kClients));
    expect_indexes_intact(db.dsn());
}

// The wait for a key's lock is an ordinary lock wait: lock_timeout ends it (55P03), deadlock
// detection breaks a cycle of two requests that began two keys in opposite orders (40P01). Replays
// of one key take turns on its row: a second replay waits for the first one's transaction.
TEST(Idempotency, KeyLockWaitsAreOrdinaryLockWaits) {
    idgen::it::ScratchDb db("it_idem_lockwait");
    pqxx::connection a(db.dsn()), b(db.dsn());
    {
        pqxx::work holder(a);
        begin(holder, "s", "k1", "f");
        pqxx::nontransaction other(b);
        other.exec("SET lock_timeout = '300ms'");
        const auto t0 = Clock::now();
        EXPECT_EQ(sqlstate_of([&] { begin(other, "s", "k1", "f"); }), "55P03");
        EXPECT_GE(ms_since(t0), 250);
        EXPECT_LT(ms_since(t0), 5000);
        other.exec("RESET lock_timeout");
        holder.exec("SELECT idempotency_finish('s', 'k1', '{}')");
        holder.commit();
    }
    // Two requests, two keys, opposite orders: one of them is chosen as the deadlock victim.
    std::string state_a, state_b;
    {
        pqxx::work ta(a);
        pqxx::work tb(b);
        begin(ta, "s", "x", "f");
        begin(tb, "s", "y", "f");
        std::thread t([&] { state_a = sqlstate_of([&] { begin(ta, "s", "y", "f"); }); });
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        state_b = sqlstate_of([&] { begin(tb, "s", "x", "f"); });
        if (state_b == "40P01") tb.abort();  // lets a's wait end
        t.join();
    }
    EXPECT_TRUE((state_a == "40P01") != (state_b == "40P01")) << state_a << " / " << state_b;
    EXPECT_TRUE(state_a.empty() || state_b.empty()) << state_a << " / " << state_b;
    // Replays of a finished key: the second waits for the first one's transaction.
    {
        pqxx::work first(a);
        EXPECT_EQ(begin(first, "s", "k1", "f").state, "replay");
        pqxx::nontransaction second(b);
        second.exec("SET statement_timeout = '300ms'");
        EXPECT_EQ(sqlstate_of([&] { begin(second, "s", "k1", "f"); }), "57014");
        second.exec("RESET statement_timeout");
        first.commit();
        EXPECT_EQ(begin(second, "s", "k1", "f").attempts, 3);
    }
}

// The same with wait => false: one executes, every duplicate that arrives while it runs fails at
// once with 55P03 (an API's 409), and none executes.
TEST(Idempotency, ConcurrentDuplicatesFailFast) {
    idgen::it::ScratchDb db("it_idem_failfast");
    exec(db.dsn(), kOrders);
    constexpr int kClients = 8;
    std::vector<std::string> outcome(kClients);
    std::vector<long> took_ms(kClients);
    StartLine start;
    std::atomic<int> ready{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < kClients; ++i)
        threads.emplace_back([&, i] {
            try {
                pqxx::connection c(db.dsn());
                ++ready;
                start.wait();
                const auto t0 = Clock::now();
                std::string state;
                const std::string error = sqlstate_of([&] {
                    pqxx::work tx(c);
                    state = begin(tx, "POST /orders", "order-1", "fp-book", false).state;
                    if (state == "new") {
                        tx.exec("INSERT INTO orders (item, client) VALUES ('book', " + std::to_string(i) + ")");
                        tx.exec("SELECT pg_sleep(1)");
                        tx.exec("SELECT idempotency_finish('POST /orders', 'order-1', '{\"ok\": true}')");
                    }
                    tx.commit();
                });
                took_ms[i] = ms_since(t0);
                outcome[i] = error.empty() ? state : error;
            } catch (const std::exception& e) {
                outcome[i] = std::string("error: ") + e.what();
            }
        });
    while (ready.load() < kClients) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    start.release();
    for (auto& t : threads) t.join();
    std::map<std::string, int> counts;
    for (int i = 0; i < kClients; ++i) {
        counts[outcome[i]]++;
        if (outcome[i] == "55P03") {
            EXPECT_LT(took_ms[i], 900) << "client " << i << " waited instead of failing fast";
        }
    }
    // The one that ran, and duplicates that failed fast (or came after its commit: a replay).
    EXPECT_EQ(counts["new"], 1);
    EXPECT_EQ(counts["new"] + counts["55P03"] + counts["replay"], kClients) << "unexpected outcomes";
    EXPECT_GE(counts["55P03"], 1);
    EXPECT_EQ(one(db.dsn(), "SELECT count(*) FROM orders"), "1");
}

// A request that commits its key first and works across transactions: a retry with wait waits
// for it (polling, cancellable) and replays its response; wait => false fails at once; a
// statement_timeout ends the wait.
TEST(Idempotency, RetryWaitsForRequestAcrossTransactions) {
    idgen::it::ScratchDb db("it_idem_across");
    pqxx::connection a(db.dsn());
    {
        pqxx::nontransaction tx(a);
        EXPECT_EQ(begin(tx, "POST /payments", "pay-1", "fp", true, "first", "30 seconds").state, "new");
        tx.exec("SELECT idempotency_recovery_point('POST /payments', 'pay-1', 'charge_created', 'first')");
    }
    EXPECT_EQ(sqlstate_of(db.dsn(), "SELECT * FROM idempotency_begin('POST /payments', 'pay-1', 'fp', wait => false)"),
              "55P03");
    // A wait bounded by statement_timeout: 57014 after it, not after the 30 s lock.
    {
        const auto t0 = Clock::now();
        pqxx::connection c(db.dsn());
        pqxx::nontransaction tx(c);
        tx.exec("SET statement_timeout = '300ms'");
        EXPECT_EQ(sqlstate_of([&] { begin(tx, "POST /payments", "pay-1", "fp"); }), "57014");
        EXPECT_LT(ms_since(t0), 5000);
    }
    Begun waited;
    long waited_ms = 0;
    std::string error;
    std::thread retry([&] {
        try {
            pqxx::connection c(db.dsn());
            pqxx::nontransaction tx(c);
            const auto t0 = Clock::now();
            waited = begin(tx, "POST /payments", "pay-1", "fp", true, "retry");
            waited_ms = ms_since(t0);
        } catch (const std::exception& e) {
            error = e.what();
        }
    });
    // The request finishes 600 ms after the retry's call has reached the server: on a busy
    // machine its connection can take longer than that, and it would then find the response
    // stored and replay it without waiting. Polled on the request's own connection (idle here).
    {
        pqxx::nontransaction tx(a);
        bool active = false;
        for (int i = 0; i < 3000 && !active; ++i) {
            active = tx.exec1(
                           "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND "
                           "query LIKE '%idempotency_begin%''retry''%' AND pid <> pg_backend_pid()")[0]
                         .as<long>() == 1;
            if (!active) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        EXPECT_TRUE(active) << "the retry's call did not reach the server within 30 s";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    {
        pqxx::nontransaction tx(a);
        tx.exec("SELECT idempotency_finish('POST /payments', 'pay-1', '{\"paid\": 100}', 'first')");
    }
    retry.join();
    ASSERT_EQ(error, "");
    EXPECT_EQ(waited.state, "replay");
    EXPECT_EQ(waited.response, "{\"paid\": 100}");
    EXPECT_EQ(waited.attempts, 2);
    EXPECT_EQ(waited.original, "first");
    EXPECT_GE(waited_ms, 450) << "the retry did not wait for the request";
    EXPECT_LT(waited_ms, 10000);
}

// The bytes in use in backend `pid`'s memory contexts, from pg_log_backend_memory_contexts()'s
// "Grand total" line in the main cluster's server log (written past offset `from`); -1 if none
// appears within 10 s.
long logged_bytes_in_use(const std::string& dsn, int pid, std::streamoff& from) {
    const std::string log = idgen::it::env_or("IDGEN_WORK", "/tmp") + "/pg/server.log";
    exec(dsn, "SELECT pg_log_backend_memory_contexts(" + std::to_string(pid) + ")");
    const std::regex total(R"(\[)" + std::to_string(pid) + R"(\] LOG:  Grand total: .* ([0-9]+) used)");
    for (int i = 0; i < 100; ++i) {
        std::ifstream f(log, std::ios::binary);
        f.seekg(from);
        std::string line;
        std::streamoff at = from;
        while (std::getline(f, line)) {
            at += static_cast<std::streamoff>(line.size()) + 1;
            std::smatch m;
            if (std::regex_search(line, m, total)) {
                from = at;
                return std::stol(m[1]);
            }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return -1;
}

// A duplicate that polls a key held across transactions frees what each reading of the row
// allocated: its memory in use does not grow with the length of the wait (it grew by a few
// hundred bytes per poll, 10 polls a second, for as long as the request's lock_timeout).
TEST(Idempotency, WaitingDuplicateDoesNotGrowItsMemory) {
    idgen::it::ScratchDb db("it_idem_wait_memory");
    pqxx::connection a(db.dsn());
    {
        pqxx::nontransaction tx(a);
        EXPECT_EQ(begin(tx, "s", "slow", "fp", true, "first", "60 seconds").state, "new");
    }
    std::streamoff from = 0;
    {
        std::ifstream f(idgen::it::env_or("IDGEN_WORK", "/tmp") + "/pg/server.log", std::ios::binary | std::ios::ate);
        ASSERT_TRUE(f) << "the main cluster's server log is not readable";
        from = f.tellg();
    }
    pqxx::connection w(db.dsn());
    const int pid = [&] {
        pqxx::nontransaction tx(w);
        return tx.exec1("SELECT pg_backend_pid()")[0].as<int>();
    }();
    Begun waited;
    std::string error;
    std::thread retry([&] {
        try {
            pqxx::nontransaction tx(w);
            waited = begin(tx, "s", "slow", "fp", true, "retry");
        } catch (const std::exception& e) {
            error = e.what();
        }
    });
    // Three readings 2.5 s (about 25 polls) apart. A leak grows in both intervals (about 15 KB
    // each before the fix); a one-off allocation of a cold backend (a cache filled on the way)
    // shows in one interval at most, so the smaller growth is the one judged.
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    const long first = logged_bytes_in_use(db.dsn(), pid, from);
    std::this_thread::sleep_for(std::chrono::milliseconds(2500));
    const long second = logged_bytes_in_use(db.dsn(), pid, from);
    std::this_thread::sleep_for(std::chrono::milliseconds(2500));
    const long third = logged_bytes_in_use(db.dsn(), pid, from);
    {
        pqxx::nontransaction tx(a);
        tx.exec("SELECT idempotency_finish('s', 'slow', '{\"done\": 1}', 'first')");
    }
    retry.join();
    ASSERT_EQ(error, "");
    EXPECT_EQ(waited.state, "replay");
    ASSERT_GT(first, 0);
    ASSERT_GT(second, 0);
    ASSERT_GT(third, 0);
    EXPECT_LT(std::min(second - first, third - second), 2048)
        << first << ", " << second << " and " << third << " bytes in use after 1.5, 4 and 6.5 s of waiting";
}

// Under REPEATABLE READ, idempotency_begin() behaves as an UPDATE of the key's row would (0.3.0;
// before, it decided on the latest committed state whatever the snapshot): a transaction whose
// snapshot is older than a duplicate's finish waits for the key, then fails with 40001, and its
// retry, with a new snapshot, replays the response.
TEST(Idempotency, RepeatableReadSeesTheLatestState) {
    idgen::it::ScratchDb db("it_idem_rr");
    pqxx::connection a(db.dsn());
    pqxx::connection b(db.dsn());
    pqxx::nontransaction other(b);
    EXPECT_EQ(begin(other, "POST /orders", "k", "fp", true, "first", "1 hour").state, "new");
    std::string code;
    {
        pqxx::work rr(a, "rr");
        rr.exec("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
        EXPECT_EQ(rr.exec1("SELECT count(*) FROM pg_class")[0].as<long>() > 0, true);  // the snapshot is taken
        std::thread finisher([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            pqxx::connection c(db.dsn());
            pqxx::nontransaction tx(c);
            tx.exec("SELECT idempotency_finish('POST /orders', 'k', '{\"done\": true}', 'first')");
        });
        try {
            begin(rr, "POST /orders", "k", "fp", true, "second");
        } catch (const pqxx::serialization_failure&) {  // libpqxx 6.4: not an sql_error
            code = "40001";
        } catch (const pqxx::sql_error& e) {
            code = e.sqlstate();
        }
        finisher.join();
    }
    EXPECT_EQ(code, "40001");
    pqxx::work rr(a, "rr2");
    rr.exec("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
    const Begun retried = begin(rr, "POST /orders", "k", "fp", true, "second");
    EXPECT_EQ(retried.state, "replay");
    EXPECT_EQ(retried.response, "{\"done\": true}");
    rr.commit();
}

// A request that recorded a recovery point dies (its backend terminated mid-request). Its key
// stays held until its lock times out: a retry with wait => false gets 55P03, a retry with wait
// returns when the lock has run out, resuming from the recovery point; the dead attempt can no
// longer finish.
TEST(Idempotency, DeadRequestTakenOverAfterLockTimeout) {
    idgen::it::ScratchDb db("it_idem_dead");
    int pid = 0;
    std::thread victim;
    std::atomic<bool> killed{false};
    {
        auto a = std::make_shared<pqxx::connection>(db.dsn());
        {
            pqxx::nontransaction tx(*a);
            pid = tx.exec1("SELECT pg_backend_pid()")[0].as<int>();
            EXPECT_EQ(begin(tx, "POST /payments", "pay-1", "fp", true, "a1", "2 seconds").state, "new");
            tx.exec("SELECT idempotency_recovery_point('POST /payments', 'pay-1', 'charge_created', 'a1')");
        }
        // The request goes on with its next phase (external work) and dies in the middle.
        victim = std::thread([a, &killed] {
            try {
                pqxx::work tx(*a);
                tx.exec("SELECT pg_sleep(60)");
            } catch (const std::exception&) {
                killed = true;
            }
        });
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    EXPECT_EQ(one(idgen::it::dsn(), "SELECT pg_terminate_backend(" + std::to_string(pid) + ")::text"), "true");
    victim.join();
    EXPECT_TRUE(killed.load());

    const std::string locked_until = one(db.dsn(), "SELECT locked_until FROM idempotency_keys WHERE key = 'pay-1'");
    // Its lock has not run out yet: fail fast.
    {
        pqxx::connection c(db.dsn());
        pqxx::nontransaction tx(c);
        std::string message;
        EXPECT_EQ(sqlstate_of([&] { begin(tx, "POST /payments", "pay-1", "fp", false, "a2"); }, &message), "55P03");
        EXPECT_NE(message.find("attempt \"a1\" holds it until"), std::string::npos) << message;
    }
    // Waiting: taken over once the lock has run out, from the last recovery point.
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    const auto t0 = Clock::now();
    const Begun b = begin(tx, "POST /payments", "pay-1", "fp", true, "a2");
    const long took = ms_since(t0);
    EXPECT_EQ(b.state, "resume");
    EXPECT_EQ(b.point, "charge_created");
    EXPECT_EQ(b.attempts, 2);
    EXPECT_EQ(b.original, "a1");
    EXPECT_FALSE(b.replayed);
    EXPECT_EQ(tx.exec1("SELECT clock_timestamp() >= " + tx.quote(locked_until) + "::timestamptz")[0].as<bool>(), true)
        << "taken over before the lock ran out";
    EXPECT_LT(took, 10000);
    // The dead attempt, were it to come back: refused. The retry finishes.
    EXPECT_EQ(sqlstate_of(db.dsn(), "SELECT idempotency_finish('POST /payments', 'pay-1', '{}', 'a1')"), "55000");
    tx.exec("SELECT idempotency_finish('POST /payments', 'pay-1', '{\"paid\": true}', 'a2')");
    const Begun again = begin(tx, "POST /payments", "pay-1", "fp", false, "a3");
    EXPECT_EQ(again.state, "replay");
    EXPECT_EQ(again.response, "{\"paid\": true}");
    EXPECT_EQ(again.attempts, 3);
}

// A request killed inside its transaction (begin, work, no commit): the rollback takes the key and
// the work with it, so a retry executes at once, not after the lock timeout.
TEST(Idempotency, RequestKilledInsideItsTransactionLeavesKeyFree) {
    idgen::it::ScratchDb db("it_idem_killed_tx");
    exec(db.dsn(), kOrders);
    std::atomic<int> pid{0};
    std::atomic<bool> killed{false};
    std::thread victim([&] {
        try {
            pqxx::connection a(db.dsn());
            pqxx::work tx(a);
            const int my_pid = tx.exec1("SELECT pg_backend_pid()")[0].as<int>();
            begin(tx, "POST /orders", "order-1", "fp", true, "a1", "1 hour");
            tx.exec("INSERT INTO orders (item) VALUES ('first')");
            pid = my_pid;  // holds the key now
            tx.exec("SELECT pg_sleep(60)");
        } catch (const std::exception&) {
            killed = true;
        }
    });
    // A retry arriving meanwhile waits on the key's lock.
    Begun retry;
    long retry_ms = 0;
    std::thread waiting([&] {
        while (pid.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        pqxx::connection c(db.dsn());
        pqxx::work tx(c);
        const auto t0 = Clock::now();
        retry = begin(tx, "POST /orders", "order-1", "fp", true, "a2");
        retry_ms = ms_since(t0);
        tx.exec("INSERT INTO orders (item) VALUES ('retry')");
        tx.exec("SELECT idempotency_finish('POST /orders', 'order-1', '{\"item\": \"retry\"}', 'a2')");
        tx.commit();
    });
    while (pid.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    EXPECT_EQ(one(idgen::it::dsn(), "SELECT pg_terminate_backend(" + std::to_string(pid.load()) + ")::text"), "true");
    victim.join();
    waiting.join();
    EXPECT_TRUE(killed.load());
    EXPECT_EQ(retry.state, "new");
    EXPECT_EQ(retry.attempts, 1);
    EXPECT_EQ(retry.original, "a2");
    EXPECT_LT(retry_ms, 5000) << "the retry waited for the 1 hour lock timeout";
    EXPECT_EQ(one(db.dsn(), "SELECT string_agg(item, ',') FROM orders"), "retry");
}

// The reply is lost after the commit: the client sends begin, the work, finish and COMMIT, and
// its connection is killed before it reads a byte of the answer. It reconnects and retries:
// replay, with the stored response; the work happened once.
TEST(Idempotency, ReplyLostAfterCommitThenRetryReplays) {
    idgen::it::ScratchDb db("it_idem_lost_reply");
    exec(db.dsn(), kOrders);
    PGconn* a = PQconnectdb(db.dsn().c_str());
    ASSERT_EQ(PQstatus(a), CONNECTION_OK) << PQerrorMessage(a);
    const int pid = PQbackendPID(a);
    ASSERT_EQ(
        PQsendQuery(a,
                    "BEGIN;"
                    "SELECT * FROM idempotency_begin('POST /orders', 'order-7', 'fp', attempt_id => 'first');"
                    "WITH o AS (INSERT INTO orders (item) VALUES ('book') RETURNING id) "
                    "SELECT idempotency_finish('POST /orders', 'order-7', jsonb_build_object('order', o.id)) FROM o;"
                    "COMMIT;"),
        1)
        << PQerrorMessage(a);
    // Wait until the transaction has committed (another session sees the key finished), without
    // reading anything on the client's connection; then kill that connection.
    {
        pqxx::connection obs(db.dsn());
        pqxx::nontransaction tx(obs);
        const auto t0 = Clock::now();
        while (tx.exec1("SELECT count(*) FROM idempotency_keys WHERE state = 'done'")[0].as<int>() == 0) {
            ASSERT_LT(ms_since(t0), 10000) << "the request never committed";
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        EXPECT_EQ(tx.exec1("SELECT pg_terminate_backend(" + std::to_string(pid) + ")")[0].as<bool>(), true);
    }
    PQfinish(a);

    pqxx::connection c(db.dsn());
    pqxx::work tx(c);
    const Begun b = begin(tx, "POST /orders", "order-7", "fp", true, "second");
    EXPECT_EQ(b.state, "replay");
    EXPECT_TRUE(b.replayed);
    EXPECT_EQ(b.original, "first");
    EXPECT_EQ(b.attempts, 2);
    const std::string id = tx.exec1("SELECT id::text FROM orders")[0].c_str();
    EXPECT_EQ(b.response, "{\"order\": " + id + "}");
    EXPECT_EQ(tx.exec1("SELECT count(*) FROM orders")[0].as<int>(), 1);
    tx.commit();
}

// Roles that are not superusers, granted the functions: each has its own keys, even with the same
// scope and key; none reads or writes the table, becomes another role, or purges another's keys
// early; a role not granted the functions cannot use them.
TEST(Idempotency, ApplicationRolesSeeOnlyTheirOwnKeys) {
    idgen::it::ScratchDb db("it_idem_roles");
    const std::string alice = "it_idem_alice", bob = "it_idem_bob", eve = "it_idem_eve";
    for (const auto& r : {alice, bob, eve}) {
        exec(idgen::it::dsn(), "DROP ROLE IF EXISTS " + r);
        exec(idgen::it::dsn(), "CREATE ROLE " + r + " LOGIN");
    }
    exec(db.dsn(),
         "GRANT EXECUTE ON FUNCTION idempotency_begin(text, text, text, boolean, text, interval, interval), "
         "idempotency_finish(text, text, jsonb, text), idempotency_recovery_point(text, text, text, text), "
         "idempotency_purge(interval, integer) TO " +
             alice + ", " + bob);
    const auto as = [&](const std::string& role) {
        return "host=" + idgen::it::env_or("PGHOST", "/tmp") + " port=" + idgen::it::env_or("PGPORT", "5432") +
               " user=" + role + " dbname=" + db.name();
    };
    {
        pqxx::connection c(as(alice));
        pqxx::nontransaction tx(c);
        EXPECT_EQ(tx.exec1("SELECT current_user, usesuper FROM pg_user WHERE usename = current_user")[1].as<bool>(),
                  false);
        EXPECT_EQ(begin(tx, "POST /orders", "shared-key", "alice's payload", true, "a").state, "new");
        tx.exec("SELECT idempotency_recovery_point('POST /orders', 'shared-key', 'step')");
        tx.exec("SELECT idempotency_finish('POST /orders', 'shared-key', '{\"owner\": \"alice\"}')");
    }
    {
        pqxx::connection c(as(bob));
        pqxx::nontransaction tx(c);
        // Another payload with alice's scope and key: a new request of bob's, not a mismatch.
        const Begun b = begin(tx, "POST /orders", "shared-key", "bob's payload", true, "b");
        EXPECT_EQ(b.state, "new");
        EXPECT_EQ(b.attempts, 1);
        tx.exec("SELECT idempotency_finish('POST /orders', 'shared-key', '{\"owner\": \"bob\"}')");
        EXPECT_EQ(begin(tx, "POST /orders", "shared-key", "bob's payload").response, "{\"owner\": \"bob\"}");
        // alice's key is out of reach: the table, and alice's role.
        EXPECT_EQ(sqlstate_of([&] { tx.exec("SELECT * FROM idempotency_keys"); }), "42501");
        EXPECT_EQ(sqlstate_of([&] { tx.exec("UPDATE idempotency_keys SET response = '{}'"); }), "42501");
        EXPECT_EQ(sqlstate_of([&] { tx.exec("SET ROLE " + alice); }), "42501");
        EXPECT_EQ(sqlstate_of([&] { tx.exec("SET SESSION AUTHORIZATION " + alice); }), "42501");
        // older_than reaches only bob's own keys.
        EXPECT_EQ(tx.exec1("SELECT deleted FROM idempotency_purge(older_than => '0')")[0].as<int>(), 1);
    }
    {
        pqxx::connection c(as(alice));
        pqxx::nontransaction tx(c);
        const Begun b = begin(tx, "POST /orders", "shared-key", "alice's payload");
        EXPECT_EQ(b.state, "replay");
        EXPECT_EQ(b.response, "{\"owner\": \"alice\"}");
        EXPECT_EQ(b.original, "a");
        EXPECT_EQ(b.point, "step");
    }
    EXPECT_EQ(sqlstate_of(as(eve), "SELECT * FROM idempotency_begin('POST /orders', 'k', NULL)"), "42501");
    EXPECT_EQ(sqlstate_of(as(eve), "SELECT idempotency_purge()"), "42501");
    EXPECT_EQ(one(as(eve), "SELECT length(idempotency_fingerprint('{}'))::text"), "64");
    EXPECT_EQ(one(db.dsn(), "SELECT string_agg(role_name || ':' || (response->>'owner'), ',') FROM idempotency_keys"),
              alice + ":alice");
    exec(db.dsn(),
         "DELETE FROM idempotency_keys; REVOKE ALL ON FUNCTION idempotency_begin(text, text, text, boolean, "
         "text, interval, interval), idempotency_finish(text, text, jsonb, text), idempotency_recovery_point("
         "text, text, text, text), idempotency_purge(interval, integer) FROM " +
             alice + ", " + bob);
    pqxx::connection admin(idgen::it::dsn());
    pqxx::nontransaction tx(admin);
    tx.exec("DROP DATABASE " + db.name() + " WITH (FORCE)");
    for (const auto& r : {alice, bob, eve}) tx.exec("DROP ROLE " + r);
}

// The owner of public (the database's owner, not a superuser) renames it and plants a public of
// its own with a look-alike table whose trigger would make it a superuser. Every function of the
// store, called by a superuser, still reaches the real table, by OID, and runs none of that.
TEST(Idempotency, OwnerOfPublicCannotRedirectTheStore) {
    const std::string owner = "it_idem_mallory", dbname = "it_idem_trust";
    exec(idgen::it::dsn(), "DROP DATABASE IF EXISTS " + dbname + " WITH (FORCE)");
    exec(idgen::it::dsn(), "DROP ROLE IF EXISTS " + owner);
    exec(idgen::it::dsn(), "CREATE ROLE " + owner + " LOGIN");
    exec(idgen::it::dsn(), "CREATE DATABASE " + dbname + " OWNER " + owner);
    const std::string su = idgen::it::dsn(dbname);
    const std::string mallory = "host=" + idgen::it::env_or("PGHOST", "/tmp") +
                                " port=" + idgen::it::env_or("PGPORT", "5432") + " user=" + owner + " dbname=" + dbname;
    exec(su, "CREATE EXTENSION id_gen");
    exec(su,
         "SELECT * FROM idempotency_begin('s', 'before', 'f'); SELECT idempotency_finish('s', 'before', '{\"n\": 1}')");
    exec(
        mallory,
        "ALTER SCHEMA public RENAME TO hidden; CREATE SCHEMA public;"
        "CREATE FUNCTION public.grab() RETURNS boolean LANGUAGE plpgsql "
        "  AS $$ BEGIN ALTER ROLE " +
            owner +
            " SUPERUSER; RETURN true; END $$;"
            "CREATE FUNCTION public.grab_row() RETURNS trigger LANGUAGE plpgsql "
            "  AS $$ BEGIN PERFORM public.grab(); RETURN NULL; END $$;"
            "CREATE TABLE public.idempotency_keys (role_name name, scope text, key text, fingerprint text, state text, "
            "  response jsonb, attempts int, original_attempt_id text, attempt_id text, recovery_point text, "
            "  lock_timeout interval, locked_until timestamptz, retention interval, created_at timestamptz, "
            "  updated_at timestamptz, finished_at timestamptz, expires_at timestamptz, "
            "  CONSTRAINT idempotency_keys_pkey PRIMARY KEY (role_name, scope, key));"
            "CREATE TRIGGER grab BEFORE INSERT OR UPDATE OR DELETE ON public.idempotency_keys "
            "  FOR EACH STATEMENT EXECUTE FUNCTION public.grab_row()");
    const auto is_superuser = [&] {
        return one(idgen::it::dsn(), "SELECT rolsuper::text FROM pg_roles WHERE rolname = '" + owner + "'") == "true";
    };
    ASSERT_FALSE(is_superuser());
    {
        pqxx::connection c(su);
        pqxx::nontransaction tx(c);
        const auto r = tx.exec1("SELECT state, response::text FROM hidden.idempotency_begin('s', 'before', 'f')");
        EXPECT_EQ(std::string(r[0].c_str()), "replay");
        EXPECT_EQ(std::string(r[1].c_str()), "{\"n\": 1}");
        EXPECT_EQ(
            std::string(
                tx.exec1("SELECT state FROM hidden.idempotency_begin('s', 'after', 'f', lock_timeout => '1 ms')")[0]
                    .c_str()),
            "new");
        tx.exec("SELECT hidden.idempotency_recovery_point('s', 'after', 'p')");
        tx.exec("SELECT hidden.idempotency_finish('s', 'after', '{\"n\": 2}')");
        tx.exec("SELECT hidden.idempotency_purge(older_than => '0')");
        EXPECT_EQ(std::string(tx.exec1("SELECT count(*) FROM public.idempotency_keys")[0].c_str()), "0");
    }
    EXPECT_FALSE(is_superuser()) << "a superuser's idempotency call ran the owner of public's code";
    // The trap is real: a superuser writing to the look-alike table makes its owner a superuser.
    exec(su, "INSERT INTO public.idempotency_keys (role_name, scope, key) VALUES ('x', 'y', 'z')");
    EXPECT_TRUE(is_superuser());
    exec(idgen::it::dsn(), "DROP DATABASE " + dbname + " WITH (FORCE)");
    exec(idgen::it::dsn(), "DROP ROLE " + owner);
}

// Purge deletes expired keys a batch per call, skips (never waits for) a row another transaction
// has locked, and leaves keys that have not expired; the call that reads the last expired key
// says the round is done, and the next call starts another.
TEST(Idempotency, PurgeInBatchesSkipsLockedRows) {
    idgen::it::ScratchDb db("it_idem_purge");
    exec(db.dsn(),
         "SELECT (idempotency_begin('s', 'old-' || g, NULL, retention => '1 millisecond')).state, "
         "       idempotency_finish('s', 'old-' || g, '{}') FROM generate_series(1, 2500) g;"
         "SELECT (idempotency_begin('s', 'new-' || g, NULL)).state, idempotency_finish('s', 'new-' || g, '{}') "
         "FROM generate_series(1, 10) g;"
         "SELECT pg_sleep(0.01)");
    pqxx::connection locker(db.dsn());
    pqxx::work hold(locker);
    hold.exec("SELECT 1 FROM idempotency_keys WHERE key = 'old-7' FOR UPDATE");
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    tx.exec("SET lock_timeout = '2s'");
    const auto t0 = Clock::now();
    std::vector<long> batches;
    for (int calls = 0; calls < 10; ++calls) {
        const auto r = tx.exec1("SELECT deleted, done FROM idempotency_purge(batch_size => 1000)");
        batches.push_back(r[0].as<long>());
        if (r[1].as<bool>()) break;
    }
    EXPECT_EQ(batches, (std::vector<long>{1000, 1000, 499}));
    EXPECT_LT(ms_since(t0), 10000);
    hold.commit();
    EXPECT_EQ(tx.exec1("SELECT deleted, done FROM idempotency_purge()")[0].as<long>(), 1);
    EXPECT_EQ(tx.exec1("SELECT count(*) FROM idempotency_keys")[0].as<long>(), 10);
    expect_indexes_intact(db.dsn());
}

// Every path that writes a row (insert, replay, recovery point, takeover, finish, reuse after
// expiry, purge), many times over, some versions HOT and some not: the indexes stay complete and
// every key is found through its primary key with the state its last call left.
TEST(Idempotency, IndexesStayIntactThroughEveryPath) {
    idgen::it::ScratchDb db("it_idem_paths");
    // One statement per transaction (a multi-statement string would be one transaction).
    for (const char* sql :
         {"SELECT count(*) FROM (SELECT (idempotency_begin('s', 'k' || g, 'f', lock_timeout => '1 millisecond', "
          "  retention => CASE WHEN g % 3 = 0 THEN interval '1 millisecond' ELSE interval '1 hour' END)).state "
          "  FROM generate_series(1, 600) g) x",
          "SELECT count(idempotency_recovery_point('s', 'k' || g, 'p1')) FROM generate_series(1, 600, 2) g",
          "SELECT pg_sleep(0.02)",
          // every third has expired (reused: new), the others' locks ran out (taken over: resume at p1, or new)
          "SELECT count(*) FROM (SELECT (idempotency_begin('s', 'k' || g, 'f')).state FROM generate_series(1, 600) g) "
          "x",
          "SELECT count(idempotency_finish('s', 'k' || g, jsonb_build_object('g', g, 'pad', repeat('x', g * 10)))) "
          "  FROM generate_series(1, 600) g",
          "SELECT count(*) FROM (SELECT (idempotency_begin('s', 'k' || g, 'f')).state FROM generate_series(1, 600) g) "
          "x"})
        exec(db.dsn(), sql);
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    EXPECT_EQ(tx.exec1("SELECT count(*) FILTER (WHERE state = 'done' AND (response->>'g')::int = substr(key, 2)::int "
                       "                        AND attempts = CASE WHEN substr(key, 2)::int % 3 = 0 THEN 2 ELSE 3 END "
                       "                        AND coalesce(recovery_point = 'p1', false) = (substr(key, 2)::int % 2 "
                       "= 1 AND substr(key, 2)::int % 3 <> 0)) "
                       "FROM idempotency_keys")[0]
                  .as<int>(),
              600);
    tx.exec("SET enable_seqscan = off");
    EXPECT_EQ(tx.exec1("SELECT count(*) FROM generate_series(1, 600) g JOIN idempotency_keys k "
                       "ON k.role_name = current_user AND k.scope = 's' AND k.key = 'k' || g")[0]
                  .as<int>(),
              600);
    expect_indexes_intact(db.dsn());
    tx.exec("SELECT idempotency_purge(older_than => '0', batch_size => 250) FROM generate_series(1, 3)");
    EXPECT_EQ(tx.exec1("SELECT count(*) FROM idempotency_keys")[0].as<int>(), 0);
    expect_indexes_intact(db.dsn());
}

// A finish and a replay change no indexed column: with room on the page (fillfactor 80, and
// pruning) they are heap-only (HOT) updates, which add no index entries.
TEST(Idempotency, FinishesAndReplaysAreHeapOnlyUpdates) {
    idgen::it::ScratchDb db("it_idem_hot");
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    tx.exec(
        "CREATE PROCEDURE requests(n int) LANGUAGE plpgsql AS $$ BEGIN FOR i IN 1 .. n LOOP "
        "PERFORM state FROM idempotency_begin('POST /orders', 'k' || i, 'fp'); COMMIT; "
        "PERFORM idempotency_finish('POST /orders', 'k' || i, '{\"order\": 1, \"status\": 201}'); COMMIT; "
        "PERFORM state FROM idempotency_begin('POST /orders', 'k' || i, 'fp'); COMMIT; "
        "END LOOP; END $$");
    tx.exec("CALL requests(1000)");
    tx.exec("SELECT pg_stat_force_next_flush()");
    const auto t0 = Clock::now();
    long upd = 0, hot = 0;
    while (ms_since(t0) < 5000) {
        tx.exec("SELECT pg_stat_clear_snapshot()");
        const auto r =
            tx.exec1("SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = 'idempotency_keys'");
        upd = r[0].as<long>();
        hot = r[1].as<long>();
        if (upd >= 2000) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    EXPECT_EQ(upd, 2000);
    EXPECT_GE(hot, 1900) << "finishes and replays were not heap-only updates";
    expect_indexes_intact(db.dsn());
}

// An index a superuser adds is maintained on every write path, a summarizing one (BRIN) too: from
// 16 on, a finish that changes a column only BRIN covers is still a heap-only (HOT) update, and
// the BRIN index then needs the new version's value, or a scan through it misses the row.
TEST(Idempotency, AddedBrinIndexSeesFinishedKeys) {
    idgen::it::ScratchDb db("it_idem_brin");
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    tx.exec("CREATE INDEX idem_updated_brin ON idempotency_keys USING brin (updated_at) WITH (pages_per_range = 1)");
    tx.exec(
        "SELECT count(*) FROM (SELECT (idempotency_begin('s', 'k' || g, 'f')).state FROM generate_series(1, 50) g) x");
    tx.exec("SELECT brin_summarize_new_values('idem_updated_brin')");
    tx.exec("SELECT pg_sleep(0.01)");
    const std::string t1 = tx.exec1("SELECT clock_timestamp()::text")[0].c_str();
    tx.exec("SELECT count(idempotency_finish('s', 'k' || g, '{\"ok\": true}')) FROM generate_series(1, 50) g");
    tx.exec("SET enable_seqscan = off");
    const std::string query =
        "SELECT count(*) FROM idempotency_keys WHERE updated_at > " + tx.quote(t1) + "::timestamptz";
    std::string plan;
    for (const auto& row : tx.exec("EXPLAIN " + query)) plan += std::string(row[0].c_str()) + "\n";
    ASSERT_NE(plan.find("Bitmap Index Scan on idem_updated_brin"), std::string::npos) << plan;
    EXPECT_EQ(tx.exec1(query)[0].as<int>(), 50);
    tx.exec("RESET enable_seqscan");
    EXPECT_EQ(tx.exec1(query)[0].as<int>(), 50);
    expect_indexes_intact(db.dsn());
}

// A large response is stored out of line (TOAST) and replayed whole; replays, which only count
// attempts, keep its stored copy instead of writing it again.
TEST(Idempotency, LargeResponsesReplayWhole) {
    idgen::it::ScratchDb db("it_idem_large");
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    tx.exec("SELECT * FROM idempotency_begin('s', 'big', 'f')");
    tx.exec(
        "SELECT idempotency_finish('s', 'big', (SELECT jsonb_agg(jsonb_build_object('n', g, 'text', md5(g::text))) "
        "FROM generate_series(1, 5000) g))");
    const std::string want =
        tx.exec1("SELECT md5(response::text) || ':' || length(response::text) FROM idempotency_keys")[0].c_str();
    ASSERT_GT(tx.exec1("SELECT pg_relation_size(reltoastrelid) FROM pg_class WHERE relname = 'idempotency_keys'")[0]
                  .as<long>(),
              0)
        << "the response was not stored out of line";
    const long toast_before =
        tx.exec1("SELECT pg_relation_size(reltoastrelid) FROM pg_class WHERE relname = 'idempotency_keys'")[0]
            .as<long>();
    for (int i = 0; i < 5; ++i) {
        const auto r = tx.exec1(
            "SELECT state, md5(response::text) || ':' || length(response::text), attempts "
            "FROM idempotency_begin('s', 'big', 'f')");
        EXPECT_EQ(std::string(r[0].c_str()), "replay");
        EXPECT_EQ(std::string(r[1].c_str()), want);
        EXPECT_EQ(r[2].as<int>(), i + 2);
    }
    EXPECT_EQ(tx.exec1("SELECT pg_relation_size(reltoastrelid) FROM pg_class WHERE relname = 'idempotency_keys'")[0]
                  .as<long>(),
              toast_before)
        << "replays wrote the response again";
    expect_indexes_intact(db.dsn());
}

// Keys are WAL-logged rows: an immediate shutdown (a crash) and a restart keep finished keys and
// keys in flight.
TEST(Idempotency, KeysSurviveACrash) {
    idgen::it::ScratchDb db("it_idem_crash");
    exec(db.dsn(),
         "SELECT * FROM idempotency_begin('s', 'done', 'f');"
         "SELECT idempotency_finish('s', 'done', '{\"kept\": true}');"
         "SELECT * FROM idempotency_begin('s', 'flying', 'f', lock_timeout => '1 hour')");
    ASSERT_EQ(idgen::it::pg_ctl("stop -m immediate"), 0);
    ASSERT_EQ(idgen::it::pg_ctl("start"), 0);
    std::unique_ptr<pqxx::connection> c;
    for (int i = 0; i < 100 && !c; ++i) {
        try {
            c = std::make_unique<pqxx::connection>(db.dsn());
        } catch (const pqxx::broken_connection&) {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
    }
    ASSERT_TRUE(c);
    pqxx::nontransaction tx(*c);
    const Begun b = begin(tx, "s", "done", "f");
    EXPECT_EQ(b.state, "replay");
    EXPECT_EQ(b.response, "{\"kept\": true}");
    EXPECT_EQ(sqlstate_of([&] { begin(tx, "s", "flying", "f", false); }), "55P03");
}

// pg_dump dumps the keys (a configuration table's rows); after pg_restore into another database a
// retry replays, a mismatch is still one, and a key in flight is still held.
TEST(Idempotency, KeysSurviveDumpAndRestore) {
    idgen::it::ScratchDb src("it_idem_dump_src");
    exec(src.dsn(),
         "SELECT * FROM idempotency_begin('POST /orders', 'k1', 'f1', attempt_id => 'orig');"
         "SELECT idempotency_finish('POST /orders', 'k1', '{\"order\": 1}');"
         "SELECT * FROM idempotency_begin('POST /orders', 'k2', 'f2', lock_timeout => '1 hour');"
         "SELECT idempotency_recovery_point('POST /orders', 'k2', 'halfway')");
    const std::string file =
        idgen::it::env_or("IDGEN_WORK", "/tmp") + "/idem_dump_" + std::to_string(getpid()) + ".dump";
    const std::string conn = "-h '" + idgen::it::env_or("PGHOST", "/tmp") + "' -p " +
                             idgen::it::env_or("PGPORT", "5432") + " -U " + idgen::it::env_or("PGUSER", "postgres");
    ASSERT_EQ(idgen::it::run_pg_tool("pg_dump", conn + " -Fc -f '" + file + "' " + src.name()), 0);
    const std::string dst = "it_idem_dump_dst";
    exec(idgen::it::dsn(), "DROP DATABASE IF EXISTS " + dst + " WITH (FORCE)");
    exec(idgen::it::dsn(), "CREATE DATABASE " + dst);
    const int rc = idgen::it::run_pg_tool("pg_restore", conn + " --exit-on-error -d " + dst + " '" + file + "'");
    std::remove(file.c_str());
    ASSERT_EQ(rc, 0);
    {
        pqxx::connection c(idgen::it::dsn(dst));
        pqxx::nontransaction tx(c);
        const Begun b = begin(tx, "POST /orders", "k1", "f1");
        EXPECT_EQ(b.state, "replay");
        EXPECT_EQ(b.response, "{\"order\": 1}");
        EXPECT_EQ(b.original, "orig");
        EXPECT_EQ(b.attempts, 2);
        EXPECT_EQ(sqlstate_of([&] { begin(tx, "POST /orders", "k1", "other"); }), "23000");
        EXPECT_EQ(sqlstate_of([&] { begin(tx, "POST /orders", "k2", "f2", false); }), "55P03");
        EXPECT_EQ(tx.exec1("SELECT recovery_point FROM idempotency_keys WHERE key = 'k2'")[0].c_str(),
                  std::string("halfway"));
    }
    exec(idgen::it::dsn(), "DROP DATABASE IF EXISTS " + dst + " WITH (FORCE)");
}

// The store writes idempotency_keys through the executor's single-row path (0.3.0), which does
// not run statement-level triggers, transition tables, row-level security, rules or column
// defaults: while the table has one of those every call refuses (0A000, the table and the thing
// named, a hint saying what to drop); once it is dropped the calls work again.
TEST(Idempotency, RefusesATableWithWhatItWouldBypass) {
    idgen::it::ScratchDb db("it_idem_guard");
    exec(db.dsn(),
         "CREATE TABLE fired (what text);"
         "CREATE FUNCTION note() RETURNS trigger LANGUAGE plpgsql AS "
         "$$BEGIN INSERT INTO fired VALUES (TG_OP); RETURN NEW; END$$;"
         "SELECT * FROM idempotency_begin('s', 'held', 'f', lock_timeout => '1 hour')");
    struct Case {
        const char* add;
        const char* drop;
        const char* found;  // in the message
        const char* hint;   // in the hint
    };
    const Case cases[] = {
        {"CREATE TRIGGER t2 AFTER DELETE ON idempotency_keys FOR EACH STATEMENT EXECUTE FUNCTION note();"
         "ALTER TABLE idempotency_keys DISABLE TRIGGER t2",
         "DROP TRIGGER t2 ON idempotency_keys", "statement-level trigger \"t2\"",
         "DROP TRIGGER t2 ON public.idempotency_keys"},
        {"CREATE TRIGGER t3 AFTER INSERT ON idempotency_keys REFERENCING NEW TABLE AS n FOR EACH ROW EXECUTE FUNCTION "
         "note()",
         "DROP TRIGGER t3 ON idempotency_keys", "trigger with a transition table \"t3\"", "DROP TRIGGER t3"},
        {"ALTER TABLE idempotency_keys ENABLE ROW LEVEL SECURITY",
         "ALTER TABLE idempotency_keys DISABLE ROW LEVEL SECURITY", "row-level security enabled",
         "DISABLE ROW LEVEL SECURITY"},
        {"CREATE RULE copy AS ON INSERT TO idempotency_keys DO ALSO INSERT INTO fired VALUES ('rule')",
         "DROP RULE copy ON idempotency_keys", "a rule", "DROP RULE"},
        {"ALTER TABLE idempotency_keys ADD COLUMN tenant text NOT NULL DEFAULT 'a'",
         "ALTER TABLE idempotency_keys DROP COLUMN tenant", "column \"tenant\" with a default", "DROP DEFAULT"},
        {"ALTER TABLE idempotency_keys ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY",
         "ALTER TABLE idempotency_keys DROP COLUMN seq", "column \"seq\" with a default", "DROP DEFAULT"},
    };
    int n = 0;
    for (const Case& c : cases) {
        SCOPED_TRACE(c.add);
        exec(db.dsn(), c.add);
        const std::string k = "k" + std::to_string(++n);
        const std::vector<std::string> calls = {
            "SELECT * FROM idempotency_begin('s', '" + k + "', 'f')",
            "SELECT idempotency_finish('s', 'held', '{}')",
            "SELECT idempotency_recovery_point('s', 'held', 'p')",
            "SELECT idempotency_purge(older_than => '0')",
        };
        for (const auto& call : calls) {
            std::string message;
            EXPECT_EQ(sqlstate_of(db.dsn(), call, &message), "0A000") << call;
            EXPECT_NE(message.find("cannot use table public.idempotency_keys: it has"), std::string::npos) << message;
            EXPECT_NE(message.find(c.found), std::string::npos) << message;
        }
        // The hint, through libpq (libpqxx 6.4 keeps only the message).
        {
            PGconn* conn = PQconnectdb(db.dsn().c_str());
            ASSERT_EQ(PQstatus(conn), CONNECTION_OK);
            PGresult* r = PQexec(conn, calls[0].c_str());
            const char* hint = PQresultErrorField(r, PG_DIAG_MESSAGE_HINT);
            EXPECT_NE(std::string(hint ? hint : "").find(c.hint), std::string::npos) << (hint ? hint : "(none)");
            PQclear(r);
            PQfinish(conn);
        }
        exec(db.dsn(), c.drop);
        pqxx::connection conn(db.dsn());
        pqxx::nontransaction tx(conn);
        EXPECT_EQ(begin(tx, "s", k, "f").state, "new");
        EXPECT_EQ(tx.exec1("SELECT count(*) FROM fired")[0].as<int>(), 0);
    }
    pqxx::connection conn(db.dsn());
    pqxx::nontransaction tx(conn);
    tx.exec("SELECT idempotency_finish('s', 'held', '{\"ok\": true}')");
    EXPECT_EQ(begin(tx, "s", "held", "f").response, "{\"ok\": true}");
    EXPECT_EQ(tx.exec1("SELECT count(*) FROM idempotency_keys")[0].as<int>(), n + 1);
}

// What the executor's single-row path applies (refused before 0.3.0, when the store wrote the heap
// and index entries itself) now applies to the store's writes as to a plain INSERT, UPDATE or
// DELETE: row triggers fire, CHECK and NOT NULL constraints and foreign keys (either way) are
// enforced with their SQLSTATEs, expression and partial indexes are maintained (amcheck), and a
// column of the table's own without a default is NULL in a new key and kept by every update.
TEST(Idempotency, ExecutorPathAppliesWhatTheTableAdds) {
    idgen::it::ScratchDb db("it_idem_executor");
    exec(db.dsn(),
         "CREATE TABLE fired (what text, k text);"
         "CREATE FUNCTION note() RETURNS trigger LANGUAGE plpgsql AS "
         "$$BEGIN INSERT INTO fired VALUES (TG_OP, coalesce(NEW.key, OLD.key)); "
         "RETURN coalesce(NEW, OLD); END$$;"
         "CREATE TRIGGER t1 BEFORE INSERT OR UPDATE OR DELETE ON idempotency_keys "
         "FOR EACH ROW EXECUTE FUNCTION note()");
    pqxx::connection conn(db.dsn());
    pqxx::nontransaction tx(conn);
    EXPECT_EQ(begin(tx, "s", "a", "f").state, "new");
    tx.exec("SELECT idempotency_finish('s', 'a', '{}')");
    EXPECT_EQ(begin(tx, "s", "a", "f").state, "replay");
    EXPECT_EQ(tx.exec1("SELECT string_agg(what, ',') FROM fired")[0].c_str(), std::string("INSERT,UPDATE,UPDATE"));
    exec(db.dsn(), "DROP TRIGGER t1 ON idempotency_keys");

    // CHECK: the third attempt breaks it, as an UPDATE setting attempts = 3 would.
    exec(db.dsn(), "ALTER TABLE idempotency_keys ADD CONSTRAINT few CHECK (attempts < 3)");
    EXPECT_EQ(sqlstate_of(db.dsn(), "SELECT * FROM idempotency_begin('s', 'a', 'f')"), "23514");
    exec(db.dsn(), "ALTER TABLE idempotency_keys DROP CONSTRAINT few");
    // NOT NULL on a column the store may leave NULL.
    exec(db.dsn(), "ALTER TABLE idempotency_keys ALTER COLUMN fingerprint SET NOT NULL");
    EXPECT_EQ(sqlstate_of(db.dsn(), "SELECT * FROM idempotency_begin('s', 'no-fingerprint', NULL)"), "23502");
    EXPECT_EQ(begin(tx, "s", "with-fingerprint", "f").state, "new");
    exec(db.dsn(), "ALTER TABLE idempotency_keys ALTER COLUMN fingerprint DROP NOT NULL");
    // A foreign key from the table, and one to it.
    exec(db.dsn(),
         "CREATE TABLE scopes (scope text COLLATE \"C\" PRIMARY KEY); INSERT INTO scopes VALUES ('s');"
         "ALTER TABLE idempotency_keys ADD CONSTRAINT known_scope FOREIGN KEY (scope) REFERENCES scopes");
    EXPECT_EQ(sqlstate_of(db.dsn(), "SELECT * FROM idempotency_begin('unknown', 'k', 'f')"), "23503");
    EXPECT_EQ(begin(tx, "s", "b", "f").state, "new");
    exec(db.dsn(),
         "ALTER TABLE idempotency_keys DROP CONSTRAINT known_scope;"
         "CREATE TABLE refs (r name, s text COLLATE \"C\", k text COLLATE \"C\","
         " FOREIGN KEY (r, s, k) REFERENCES idempotency_keys (role_name, scope, key));"
         "INSERT INTO refs VALUES (current_user, 's', 'a')");
    EXPECT_EQ(sqlstate_of(db.dsn(), "SELECT idempotency_purge(older_than => '0')"), "23503");
    exec(db.dsn(), "DROP TABLE refs");
    // Indexes the store could not maintain before, and a column of the table's own.
    exec(db.dsn(),
         "CREATE INDEX idem_lower_key ON idempotency_keys (lower(key));"
         "CREATE INDEX idem_done ON idempotency_keys (finished_at) WHERE state = 'done';"
         "ALTER TABLE idempotency_keys ADD COLUMN note text");
    EXPECT_EQ(begin(tx, "s", "By-Index", "f").state, "new");
    tx.exec("UPDATE idempotency_keys SET note = 'kept' WHERE key = 'By-Index'");
    tx.exec("SELECT idempotency_finish('s', 'By-Index', '{}')");
    EXPECT_EQ(begin(tx, "s", "By-Index", "f").state, "replay");
    EXPECT_EQ(tx.exec1("SELECT note FROM idempotency_keys WHERE key = 'By-Index'")[0].c_str(), std::string("kept"));
    EXPECT_EQ(tx.exec1("SELECT count(*) FROM idempotency_keys WHERE lower(key) = 'by-index'")[0].as<int>(), 1);
    tx.exec("CREATE EXTENSION IF NOT EXISTS amcheck");
    tx.exec(
        "SELECT bt_index_check(i, true) FROM unnest(ARRAY['idem_lower_key', 'idem_done', "
        "'idempotency_keys_pkey', 'idempotency_keys_expires_at']::regclass[]) i");
}

namespace roles {

std::string as(const std::string& role, const std::string& db) {
    return "host=" + idgen::it::env_or("PGHOST", "/tmp") + " port=" + idgen::it::env_or("PGPORT", "5432") +
           " user=" + role + " dbname=" + db;
}
const char* kFunctions =
    "idempotency_begin(text, text, text, boolean, text, interval, interval), idempotency_finish(text, text, jsonb, "
    "text), idempotency_recovery_point(text, text, text, text), idempotency_purge(interval, integer)";
void make_role(const std::string& db_dsn, const std::string& role) {
    exec(idgen::it::dsn(), "CREATE ROLE " + role + " LOGIN");
    exec(db_dsn, std::string("GRANT EXECUTE ON FUNCTION ") + kFunctions + " TO " + role);
}
void drop_role(const std::vector<std::string>& db_dsns, const std::string& role) {
    for (const auto& d : db_dsns) exec(d, std::string("REVOKE ALL ON FUNCTION ") + kFunctions + " FROM " + role);
    exec(idgen::it::dsn(), "DROP ROLE " + role);
}

}  // namespace roles

// A key is its role's by name and OID. After ALTER ROLE ... RENAME the role no longer finds its
// keys under the new name, and a new role given the old name does not inherit them: its request
// with the same scope and key is new (even with another payload), it cannot finish or record a
// recovery point of the old role's key in flight, and it never sees the old response.
TEST(Idempotency, ANewRoleWithARenamedRolesNameInheritsNothing) {
    idgen::it::ScratchDb db("it_idem_rename");
    const std::string a = "it_idem_ren_a", b = "it_idem_ren_b";
    for (const auto& r : {a, b}) exec(idgen::it::dsn(), "DROP ROLE IF EXISTS " + r);
    roles::make_role(db.dsn(), a);
    {
        pqxx::connection c(roles::as(a, db.name()));
        pqxx::nontransaction tx(c);
        EXPECT_EQ(begin(tx, "POST /x", "done", "fa").state, "new");
        tx.exec("SELECT idempotency_finish('POST /x', 'done', '{\"secret\": \"a\"}')");
        EXPECT_EQ(begin(tx, "POST /x", "flying", "fa", true, "a1", "1 hour").state, "new");
    }
    exec(idgen::it::dsn(), "ALTER ROLE " + a + " RENAME TO " + b);
    roles::make_role(db.dsn(), a);  // a new role, another OID, the old name
    {
        pqxx::connection c(roles::as(a, db.name()));
        pqxx::nontransaction tx(c);
        EXPECT_EQ(sqlstate_of([&] { tx.exec("SELECT idempotency_finish('POST /x', 'flying', '{}')"); }), "55000");
        EXPECT_EQ(sqlstate_of([&] { tx.exec("SELECT idempotency_recovery_point('POST /x', 'flying', 'p')"); }),
                  "55000");
        const Begun d = begin(tx, "POST /x", "done", "another payload");
        EXPECT_EQ(d.state, "new");
        EXPECT_EQ(d.response, "<null>");
        EXPECT_EQ(d.attempts, 1);
        EXPECT_EQ(begin(tx, "POST /x", "flying", "fa", false).state, "new");  // not 55P03: not its key
        tx.exec("SELECT idempotency_finish('POST /x', 'done', '{\"mine\": true}')");
        EXPECT_EQ(begin(tx, "POST /x", "done", "another payload").response, "{\"mine\": true}");
    }
    {
        // The renamed role: its keys stayed under the old name (a request with one is new).
        pqxx::connection c(roles::as(b, db.name()));
        pqxx::nontransaction tx(c);
        EXPECT_EQ(begin(tx, "POST /x", "done", "fa").state, "new");
    }
    EXPECT_EQ(one(db.dsn(),
                  "SELECT string_agg(role_name || '/' || role_id::text || '/' || key, ',' ORDER BY role_name, key) "
                  "FROM idempotency_keys"),
              a + "/" + a + "/done," + a + "/" + a + "/flying," + b + "/" + b + "/done");
    exec(db.dsn(), "DELETE FROM idempotency_keys");
    roles::drop_role({db.dsn()}, a);
    roles::drop_role({db.dsn()}, b);
}

// DROP ROLE and CREATE ROLE with the same name: the new role does not inherit the keys. A dump
// names each key's role (role_id is a regrole), so a restore where the role has another OID (a
// dump taken before the role was dropped and created again, as in another cluster) gives it its
// keys back: replays, mismatches and keys in flight as they were.
TEST(Idempotency, ADroppedRolesKeysGoToNoOneButADumpCarriesThem) {
    idgen::it::ScratchDb src("it_idem_role_src");
    const std::string r = "it_idem_dump_role", dst = "it_idem_role_dst";
    exec(idgen::it::dsn(), "DROP DATABASE IF EXISTS " + dst + " WITH (FORCE)");
    exec(idgen::it::dsn(), "DROP ROLE IF EXISTS " + r);
    roles::make_role(src.dsn(), r);
    exec(roles::as(r, src.name()),
         "SELECT * FROM idempotency_begin('POST /orders', 'k1', 'f1', attempt_id => 'orig');"
         "SELECT idempotency_finish('POST /orders', 'k1', '{\"order\": 1}');"
         "SELECT * FROM idempotency_begin('POST /orders', 'k2', 'f2', lock_timeout => '1 hour')");
    const std::string old_oid = one(src.dsn(), "SELECT oid::text FROM pg_roles WHERE rolname = '" + r + "'");
    const std::string file =
        idgen::it::env_or("IDGEN_WORK", "/tmp") + "/idem_role_" + std::to_string(getpid()) + ".dump";
    const std::string conn = "-h '" + idgen::it::env_or("PGHOST", "/tmp") + "' -p " +
                             idgen::it::env_or("PGPORT", "5432") + " -U " + idgen::it::env_or("PGUSER", "postgres");
    ASSERT_EQ(idgen::it::run_pg_tool("pg_dump", conn + " -Fc -f '" + file + "' " + src.name()), 0);

    roles::drop_role({src.dsn()}, r);
    roles::make_role(src.dsn(), r);
    ASSERT_NE(one(src.dsn(), "SELECT oid::text FROM pg_roles WHERE rolname = '" + r + "'"), old_oid);
    {
        pqxx::connection c(roles::as(r, src.name()));
        pqxx::nontransaction tx(c);
        const Begun b = begin(tx, "POST /orders", "k1", "a new payload");
        EXPECT_EQ(b.state, "new");
        EXPECT_EQ(b.response, "<null>");
        EXPECT_EQ(b.original, "<null>");
        EXPECT_EQ(sqlstate_of([&] { tx.exec("SELECT idempotency_finish('POST /orders', 'k2', '{}')"); }), "55000");
    }

    exec(idgen::it::dsn(), "CREATE DATABASE " + dst);
    const int rc = idgen::it::run_pg_tool("pg_restore", conn + " --exit-on-error -d " + dst + " '" + file + "'");
    std::remove(file.c_str());
    ASSERT_EQ(rc, 0);
    EXPECT_EQ(one(idgen::it::dsn(dst), "SELECT string_agg(DISTINCT role_id::oid::text, ',') FROM idempotency_keys"),
              one(src.dsn(), "SELECT oid::text FROM pg_roles WHERE rolname = '" + r + "'"));
    {
        pqxx::connection c(roles::as(r, dst));
        pqxx::nontransaction tx(c);
        const Begun b = begin(tx, "POST /orders", "k1", "f1");
        EXPECT_EQ(b.state, "replay");
        EXPECT_EQ(b.response, "{\"order\": 1}");
        EXPECT_EQ(b.original, "orig");
        EXPECT_EQ(b.attempts, 2);
        EXPECT_EQ(sqlstate_of([&] { begin(tx, "POST /orders", "k1", "other"); }), "23000");
        EXPECT_EQ(sqlstate_of([&] { begin(tx, "POST /orders", "k2", "f2", false); }), "55P03");
    }
    exec(idgen::it::dsn(), "DROP DATABASE IF EXISTS " + dst + " WITH (FORCE)");
    exec(src.dsn(), "DELETE FROM idempotency_keys");
    roles::drop_role({src.dsn()}, r);
}

// A dump restored where a key's role does not exist: the table's rows do not load (a regrole
// names an existing role), and pg_restore says which role is missing.
TEST(Idempotency, ARestoreWithoutTheKeysRoleLoadsNoKeys) {
    idgen::it::ScratchDb src("it_idem_norole_src");
    const std::string r = "it_idem_gone_role", dst = "it_idem_norole_dst";
    exec(idgen::it::dsn(), "DROP DATABASE IF EXISTS " + dst + " WITH (FORCE)");
    exec(idgen::it::dsn(), "DROP ROLE IF EXISTS " + r);
    roles::make_role(src.dsn(), r);
    exec(roles::as(r, src.name()), "SELECT * FROM idempotency_begin('s', 'k', 'f')");
    exec(src.dsn(), "SELECT * FROM idempotency_begin('s', 'k', 'f')");  // postgres's key, which exists there
    const std::string work = idgen::it::env_or("IDGEN_WORK", "/tmp");
    const std::string file = work + "/idem_norole_" + std::to_string(getpid()) + ".dump";
    const std::string errors = file + ".err";
    const std::string conn = "-h '" + idgen::it::env_or("PGHOST", "/tmp") + "' -p " +
                             idgen::it::env_or("PGPORT", "5432") + " -U " + idgen::it::env_or("PGUSER", "postgres");
    ASSERT_EQ(idgen::it::run_pg_tool("pg_dump", conn + " -Fc -f '" + file + "' " + src.name()), 0);
    exec(src.dsn(), "DELETE FROM idempotency_keys");
    roles::drop_role({src.dsn()}, r);
    exec(idgen::it::dsn(), "CREATE DATABASE " + dst);
    const int rc = idgen::it::run_pg_tool("pg_restore", conn + " -d " + dst + " '" + file + "' 2>'" + errors + "'");
    std::ifstream in(errors);
    const std::string said((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::remove(file.c_str());
    std::remove(errors.c_str());
    EXPECT_NE(rc, 0);
    EXPECT_NE(said.find("role \"" + r + "\" does not exist"), std::string::npos) << said;
    EXPECT_EQ(one(idgen::it::dsn(dst), "SELECT count(*)::text FROM idempotency_keys"), "0");
    exec(idgen::it::dsn(), "DROP DATABASE IF EXISTS " + dst + " WITH (FORCE)");
}

// A publication FOR ALL TABLES publishes idempotency_keys (role names, stored responses); one
// listing tables, or FOR TABLES IN SCHEMA without the extension's schema, does not.
TEST(Idempotency, AllTablesPublicationIncludesTheKeys) {
    idgen::it::ScratchDb db("it_idem_pub");
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    tx.exec(
        "CREATE SCHEMA app; CREATE TABLE app.orders (id ulid PRIMARY KEY);"
        "CREATE PUBLICATION every FOR ALL TABLES;"
        "CREATE PUBLICATION listed FOR TABLE app.orders;"
        "CREATE PUBLICATION by_schema FOR TABLES IN SCHEMA app");
    const auto tables = [&](const char* pub) {
        return std::string(tx.exec1("SELECT string_agg(schemaname || '.' || tablename, ',' ORDER BY tablename) "
                                    "FROM pg_publication_tables WHERE pubname = '" +
                                    std::string(pub) + "'")[0]
                               .c_str());
    };
    EXPECT_NE(tables("every").find("public.idempotency_keys"), std::string::npos) << tables("every");
    EXPECT_EQ(tables("listed"), "app.orders");
    EXPECT_EQ(tables("by_schema"), "app.orders");
}

// What another session sees of the server: its own backend pid and the postmaster's start time.
// A backend crash makes the postmaster end every backend and reinitialize, so that session's
// connection is lost (and a new one would have another pid): compared before and after.
std::string server_identity(pqxx::connection& c) {
    pqxx::nontransaction tx(c);
    const auto r = tx.exec1("SELECT pg_backend_pid()::text || ' ' || pg_postmaster_start_time()::text");
    return r[0].c_str();
}

// A warm session (its store cache filled by one call) opens a transaction; another session changes
// the type of a column the store reads (ALTER TABLE ... TYPE, committed); the warm session's next
// call is an error naming the column (0A000), not a backend crash that restarts the server: the
// cache is checked after the table is locked and invalidations are processed. With the type
// changed back, the same session's calls work again.
TEST(Idempotency, ColumnTypeChangedUnderAWarmSessionIsAnError) {
    idgen::it::ScratchDb db("it_idem_alter_type");
    pqxx::connection observer(idgen::it::dsn());
    const std::string before = server_identity(observer);
    pqxx::connection a(db.dsn());
    {
        pqxx::work tx(a);
        EXPECT_EQ(begin(tx, "s", "k1", "fp").state, "new");
        tx.commit();
    }
    std::string message;
    std::string state;
    {
        pqxx::work tx(a);  // BEGIN: no lock on the table yet
        exec(db.dsn(), "ALTER TABLE idempotency_keys ALTER COLUMN attempts TYPE text");
        try {
            tx.exec("SELECT state FROM idempotency_begin('s', 'k2', 'fp')");
            state = "ok";
        } catch (const pqxx::broken_connection& e) {
            state = "broken";
            message = e.what();
        } catch (const pqxx::sql_error& e) {
            state = e.sqlstate();
            message = e.what();
        }
    }
    EXPECT_EQ(state, "0A000") << message;
    EXPECT_NE(message.find("column \"attempts\" has type text, not integer"), std::string::npos) << message;
    EXPECT_NE(message.find("ALTER COLUMN attempts TYPE integer"), std::string::npos) << message;
    std::string after;
    try {
        after = server_identity(observer);
    } catch (const std::exception& e) {
        after = std::string("lost: ") + e.what();
    }
    EXPECT_EQ(after, before) << "the server restarted (a backend crashed)";
    ASSERT_TRUE(a.is_open()) << "the warm session lost its connection";
    exec(db.dsn(), "ALTER TABLE idempotency_keys ALTER COLUMN attempts TYPE integer USING attempts::integer");
    pqxx::work tx(a);
    EXPECT_EQ(begin(tx, "s", "k2", "fp").state, "new");
    tx.commit();
}

// A warm session opens a transaction; another session rebuilds the primary key and the expiry
// index with REINDEX CONCURRENTLY (new index OIDs, the old indexes dropped; its lock does not
// conflict with the store's); the warm session's next calls find the new indexes and work, and
// the indexes stay intact.
TEST(Idempotency, ReindexConcurrentlyUnderAWarmSession) {
    idgen::it::ScratchDb db("it_idem_reindex");
    pqxx::connection a(db.dsn());
    {
        pqxx::work tx(a);
        EXPECT_EQ(begin(tx, "s", "k1", "fp").state, "new");
        tx.exec("SELECT idempotency_finish('s', 'k1', '{\"n\": 1}')");
        tx.commit();
    }
    const std::string old_oids = one(db.dsn(),
                                     "SELECT 'idempotency_keys_pkey'::regclass::oid::text || ' ' || "
                                     "'idempotency_keys_expires_at'::regclass::oid::text");
    {
        pqxx::work tx(a);  // BEGIN: no lock on the table yet
        exec(db.dsn(), "REINDEX INDEX CONCURRENTLY idempotency_keys_pkey");
        exec(db.dsn(), "REINDEX INDEX CONCURRENTLY idempotency_keys_expires_at");
        EXPECT_EQ(begin(tx, "s", "k2", "fp").state, "new");
        tx.exec("SELECT idempotency_finish('s', 'k2', '{\"n\": 2}')");
        const Begun again = begin(tx, "s", "k1", "fp");
        EXPECT_EQ(again.state, "replay");
        EXPECT_EQ(again.response, "{\"n\": 1}");
        EXPECT_EQ(tx.exec1("SELECT deleted FROM idempotency_purge(interval '0 s', 1000)")[0].as<long>(), 2);
        tx.abort();
    }
    EXPECT_NE(one(db.dsn(),
                  "SELECT 'idempotency_keys_pkey'::regclass::oid::text || ' ' || "
                  "'idempotency_keys_expires_at'::regclass::oid::text"),
              old_oids)
        << "REINDEX CONCURRENTLY did not give the indexes new OIDs";
    pqxx::work tx(a);
    EXPECT_EQ(begin(tx, "s", "k2", "fp").state, "new");
    tx.commit();
    expect_indexes_intact(db.dsn());
}

}  // namespace
