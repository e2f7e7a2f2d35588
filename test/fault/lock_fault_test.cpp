// A backend stuck in a slow fsync while it holds the state lock: killed with SIGKILL, and waited
// for by another backend that must stay cancellable.
#include <signal.h>
#include <sys/types.h>

#include <future>
#include <string>
#include <vector>

#include "harness.h"

namespace idgen::fault {
namespace {

std::string tag(Mode m) { return m == Mode::kPreload ? "pre" : "nopre"; }

// Makes `conn` call gen_snowflake() on its own thread, one call per statement, until a call gets
// stuck in a sync of a state file (seen in the shim's stats) or `stop` is set. Every ID it is given
// goes into `book`; the outcome of the last call is left in `last`.
struct Looper {
    std::thread t;
    std::atomic<bool> stop{false};
    Call last;

    void run(pqxx::connection& conn, IdBook& book, int cid) {
        t = std::thread([this, &conn, &book, cid] {
            while (!stop) {
                Call r = call_id(conn, kGen);
                last = r;
                if (!r.ok) return;
                book.add(cid, r);
            }
        });
    }
    ~Looper() {
        stop = true;
        if (t.joinable()) t.join();
    }
};

class LockFault : public testing::TestWithParam<Mode> {};

// Scenario 7. Every fsync of a state file takes 3 s. Connection A calls gen_snowflake() until a
// call blocks inside that fsync while holding the state lock; 500 ms later A's backend is killed
// with SIGKILL, so the postmaster restarts every backend. After reconnecting, generation works and
// every ID is above the IDs issued before the kill.
TEST_P(LockFault, BackendKilledHoldingTheLock) {
    const Mode mode = GetParam();
    Cluster c("s7-" + tag(mode), mode);
    c.start();
    IdBook book;
    for (int i = 0; i < 2; ++i) {
        auto conn = connect_retrying(c.dsn());
        const int cid = book.new_conn();
        for (int k = 0; k < 100; ++k) {
            Call r = call_id(*conn, kGen);
            ASSERT_TRUE(r.ok) << r.error;
            book.add(cid, r);
        }
    }
    auto a = connect_retrying(c.dsn());
    const int a_pid = a->backendpid();
    const std::size_t mark = c.stats().size();
    c.set_fault("fsync_delay_ms=3000");
    Deadline d(c, 60, "scenario 7");
    std::size_t ready = 0;
    {
        Looper loop;
        loop.run(*a, book, book.new_conn());
        ASSERT_TRUE(wait_sync_begun(c, mark, a_pid, "pg_idgen", 10))
            << "backend A never began an fsync of a state file within 10 s";
        sleep_ms(500);
        ready = c.log_count("database system is ready to accept connections");
        ASSERT_EQ(::kill(a_pid, SIGKILL), 0) << "cannot kill backend " << a_pid;
        book.fault_at(Clock::now());
        c.set_fault("");
        loop.stop = true;
        loop.t.join();
        EXPECT_FALSE(loop.last.ok) << "A's call in the fsync returned " << loop.last.id
                                   << " although its backend was killed";
    }
    // The postmaster reinitializes after the crash (every backend is ended): then reconnect.
    ASSERT_TRUE(c.wait_ready_after(ready, 30)) << "the server did not come back within 30 s:\n" << c.log_tail();
    std::vector<std::string> errors(4);
    parallel(4, [&](int i) {
        try {
            auto conn = connect_retrying(c.dsn(), 30);
            const int cid = book.new_conn();
            for (int k = 0; k < 200 && !d.expired(); ++k) {
                Call r = call_id(*conn, kGen);
                if (!r.ok) {
                    errors[i] = r.sqlstate + ": " + r.error;
                    return;
                }
                book.add(cid, r);
            }
        } catch (const std::exception& e) {
            errors[i] = e.what();
        }
    });
    d.finish();
    for (int i = 0; i < 4; ++i) EXPECT_EQ(errors[i], "") << "connection " << i << " after the restart";
    book.check("7 backend killed holding the lock (" + std::string(mode_name(mode)) + ")");
}

INSTANTIATE_TEST_SUITE_P(Fault, LockFault, testing::Values(Mode::kNoPreload, Mode::kPreload), mode_tag);

// One call of gen_snowflake() on its own thread.
std::future<Call> call_async(pqxx::connection& conn) {
    return std::async(std::launch::async, [&conn] { return call_id(conn, kGen); });
}

// Scenario 8. Every fsync of a state file takes 6 s; A calls gen_snowflake() until a call holds the
// state lock inside that fsync (without preloading the file lock; preloaded, the LWLock that
// serializes the slots' file I/O). Three more backends then call
// gen_snowflake() and wait for the lock: B1 is cancelled with pg_cancel_backend() after 300 ms,
// B2 runs with statement_timeout = 300ms, B3 with lock_timeout = 300ms. B1 and B2 fail with 57014
// and B3 with 55P03, each within 2 s of its cancel or timeout.
void lock_wait_can_be_cancelled(Mode mode) {
    Cluster c("s8-" + tag(mode), mode);
    c.start();
    IdBook book;
    auto a = connect_retrying(c.dsn());
    std::vector<std::unique_ptr<pqxx::connection>> b;
    std::vector<int> bid;
    for (int i = 0; i < 3; ++i) {
        b.push_back(connect_retrying(c.dsn()));
        bid.push_back(book.new_conn());
        for (int k = 0; k < 20; ++k) {  // loads the library and opens the state file
            Call r = call_id(*b[i], kGen);
            ASSERT_TRUE(r.ok) << r.error;
            book.add(bid[i], r);
        }
    }
    {
        pqxx::nontransaction t2(*b[1]);
        t2.exec("SET statement_timeout = '300ms'");
    }
    {
        pqxx::nontransaction t3(*b[2]);
        t3.exec("SET lock_timeout = '300ms'");
    }
    const int a_pid = a->backendpid();
    const int b1_pid = b[0]->backendpid();
    const std::size_t mark = c.stats().size();
    const TimePoint fault_on = Clock::now();
    c.set_fault("fsync_delay_ms=6000");
    Deadline d(c, 60, "scenario 8");
    Looper loop;
    loop.run(*a, book, book.new_conn());
    ASSERT_TRUE(wait_sync_begun(c, mark, a_pid, "pg_idgen", 10))
        << "backend A never began an fsync of a state file within 10 s";
    std::vector<std::future<Call>> waits;
    for (int i = 0; i < 3; ++i) waits.push_back(call_async(*b[i]));
    sleep_ms(300);
    const TimePoint cancelled = Clock::now();
    {
        pqxx::connection admin(c.dsn());
        pqxx::nontransaction tx(admin);
        tx.exec("SELECT pg_cancel_backend(" + std::to_string(b1_pid) + ")");
    }
    // Every B should be done 2.3 s after the cancel; A's fsync lasts 6 s.
    for (auto& w : waits) w.wait_until(cancelled + std::chrono::milliseconds(4000));
    const TimePoint cleared = Clock::now();
    c.set_fault("");
    const char* names[3] = {"B1 (pg_cancel_backend)", "B2 (statement_timeout = 300ms)", "B3 (lock_timeout = 300ms)"};
    const char* states[3] = {"57014", "57014", "55P03"};
    for (int i = 0; i < 3; ++i) {
        Call r = waits[i].get();  // bounded: A's fsync ends 6 s after it began, and the faults are cleared
        const TimePoint due = i == 0 ? cancelled : r.start + std::chrono::milliseconds(300);
        if (r.ok) book.add(bid[i], r);
        EXPECT_FALSE(r.ok) << names[i] << " was not interrupted: it got ID " << r.id << " after "
                           << static_cast<long>(ms_between(r.start, r.end)) << " ms";
        EXPECT_EQ(r.sqlstate, states[i]) << names[i] << ": " << r.error;
        EXPECT_LE(ms_between(due, r.end), 2000.0)
            << names[i] << " returned " << static_cast<long>(ms_between(due, r.end))
            << " ms after its cancel or timeout";
    }
    loop.stop = true;
    loop.t.join();
    // After the fault: the B connections (statement and lock timeouts reset) and a new one.
    {
        pqxx::nontransaction t2(*b[1]);
        t2.exec("RESET statement_timeout");
        t2.exec("RESET lock_timeout");
        pqxx::nontransaction t3(*b[2]);
        t3.exec("RESET lock_timeout");
    }
    book.fault_window(fault_on, cleared);
    auto n = connect_retrying(c.dsn());
    const int nid = book.new_conn();
    for (int k = 0; k < 100; ++k) {
        for (int i = 0; i < 3; ++i) {
            Call r = call_id(*b[i], kGen);
            EXPECT_TRUE(r.ok) << names[i] << " after the fault: " << r.error;
            book.add(bid[i], r);
        }
        Call r = call_id(*n, kGen);
        EXPECT_TRUE(r.ok) << "after the fault: " << r.error;
        book.add(nid, r);
    }
    d.finish();
    book.check("8 lock wait cancelled (" + std::string(mode_name(mode)) + ")");
}

TEST(LockWait, CanBeCancelled) { lock_wait_can_be_cancelled(Mode::kNoPreload); }
TEST(LockWait, CanBeCancelledPreloaded) { lock_wait_can_be_cancelled(Mode::kPreload); }

}  // namespace
}  // namespace idgen::fault
