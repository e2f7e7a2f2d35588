// gen_monotonic_ulid() under faults, one after the other on one cluster, without and with
// shared_preload_libraries: a failing fsync of its mark, a backend crash, the clock stepping back
// 30 s across a restart, and its state file damaged while the server is down. The ULIDs are read as their first 64 bits (ms << 16 | counter,
// kMonotonicUlidOrder), which alone order them; IdBook checks that none repeats, that each
// connection's increase, and that every ULID asked for after a fault is above every ULID received
// before it. (The order across sessions without faults: test/integration/monotonic_ulid_test.cpp.
// A promoted standby: Failover.ClockStepsBackOnThePromotedServer.)
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "harness.h"

namespace idgen::fault {
namespace {

const std::string kGen = std::string("SELECT ") + kMonotonicUlidOrder;
constexpr const char* kStateFile = "node_8";  // kind 8, the server's one generator

class MonotonicUlidFault : public testing::TestWithParam<Mode> {};

std::string tag(Mode m) { return m == Mode::kPreload ? "pre" : "nopre"; }

// `n` calls on `conn`, each one statement, recorded in `book` under a new connection number.
void generate(IdBook& book, pqxx::connection& conn, int n) {
    const int cid = book.new_conn();
    for (int k = 0; k < n; ++k) {
        Call r = call_id(conn, kGen);
        ASSERT_TRUE(r.ok) << r.error;
        book.add(cid, r);
    }
}

TEST_P(MonotonicUlidFault, FsyncCrashClockBackAndDamagedFile) {
    const Mode mode = GetParam();
    Cluster c("mu1-" + tag(mode), mode);
    c.start();
    Deadline d(c, 90, "monotonic ULID: fsync, crash, clock");
    IdBook book;
    auto conn = connect_retrying(c.dsn());
    generate(book, *conn, 300);

    // Every fsync fails: a call that needs a new mark (one per 100 to 250 ms of clock) fails with
    // 58030 and issues nothing above the unsynced mark.
    const TimePoint on = Clock::now();
    c.set_fault("fsync_fail=-1");
    const int during = book.new_conn();
    Call failed;
    while (!d.expired() && ms_between(on, Clock::now()) < 5000) {
        Call r = call_id(*conn, kGen);
        if (!r.ok) {
            failed = r;
            break;
        }
        book.add(during, r);
        sleep_ms(5);
    }
    EXPECT_EQ(failed.sqlstate, "58030") << "no call failed within 5 s of every fsync failing: " << failed.error;
    c.set_fault("");
    book.fault_window(on, Clock::now());
    generate(book, *conn, 300);

    // A backend killed: the postmaster restarts every backend (shared memory made afresh); four
    // sessions go on above every ULID issued before.
    const std::size_t ready = c.log_count("database system is ready to accept connections");
    ASSERT_EQ(::kill(conn->backendpid(), SIGKILL), 0);
    conn.reset();
    book.fault_at(Clock::now());
    ASSERT_TRUE(c.wait_ready_after(ready, 30)) << "the server did not come back within 30 s:\n" << c.log_tail();
    std::vector<std::string> errors(4);
    parallel(4, [&](int i) {
        try {
            auto cc = connect_retrying(c.dsn(), 30);
            generate(book, *cc, 300);
        } catch (const std::exception& e) {
            errors[i] = e.what();
        }
    });
    for (int i = 0; i < 4; ++i) EXPECT_EQ(errors[i], "") << "session " << i;

    // The clock 30 s back across a restart: the generator carries on from its mark.
    {
        auto a = connect_retrying(c.dsn());
        pqxx::nontransaction tx(*a);
        tx.exec("LOAD 'id_gen'");
        tx.exec("ALTER SYSTEM SET id_gen.test_clock_offset = '-30s'");
    }
    book.fault_at(Clock::now());
    c.restart();
    {
        auto a = connect_retrying(c.dsn());
        generate(book, *a, 300);
        pqxx::nontransaction tx(*a);
        EXPECT_EQ(tx.exec("SHOW id_gen.test_clock_offset")[0][0].as<std::string>(), "-30000");
    }

    // Its state file damaged (one bit flipped) while the server is down: refused with XX001 naming
    // the file, with a hint, and no ULID issued; once the file is removed (what the hint offers
    // when the clock is ahead of every ULID issued: the clock is set back to 0 first), generation
    // resumes above every earlier one.
    {
        auto a = connect_retrying(c.dsn());
        pqxx::nontransaction tx(*a);
        tx.exec("LOAD 'id_gen'");
        tx.exec("ALTER SYSTEM RESET id_gen.test_clock_offset");
    }
    c.stop();
    const std::string path = c.state_path(kStateFile);
    struct stat st {};
    ASSERT_EQ(::stat(path.c_str(), &st), 0) << "no state file at " << path;
    ASSERT_GT(st.st_size, 1);
    const int fd = ::open(path.c_str(), O_RDWR);
    ASSERT_GE(fd, 0);
    unsigned char b = 0;
    const off_t at = st.st_size / 2;
    ASSERT_EQ(::pread(fd, &b, 1, at), 1);
    b ^= 0x10;
    ASSERT_EQ(::pwrite(fd, &b, 1, at), 1);
    ::close(fd);
    book.fault_at(Clock::now());
    c.start();
    {
        auto conn = connect_retrying(c.dsn());
        for (int k = 0; k < 2; ++k) {
            Call r = call_id(*conn, kGen);
            EXPECT_FALSE(r.ok) << "a ULID was issued from a damaged state file: " << r.id;
            if (r.ok) {
                book.add(book.new_conn(), r);
                continue;
            }
            EXPECT_EQ(r.sqlstate, "XX001") << r.error;
            EXPECT_NE(primary_message(r.error).find(std::string("pg_idgen/v2/") + kStateFile), std::string::npos)
                << r.error;
            EXPECT_TRUE(has_hint(r.error)) << "no hint says what to do: " << r.error;
        }
    }
    ASSERT_EQ(::unlink(path.c_str()), 0) << path;
    {
        auto conn = connect_retrying(c.dsn());
        generate(book, *conn, 300);
    }
    d.finish();
    book.check("monotonic ULID: failing fsync, a backend crash, the clock back, a damaged state file (" +
               std::string(mode_name(mode)) + ")");
}

INSTANTIATE_TEST_SUITE_P(Fault, MonotonicUlidFault, testing::Values(Mode::kNoPreload, Mode::kPreload), mode_tag);

}  // namespace
}  // namespace idgen::fault
