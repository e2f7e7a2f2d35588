// Disk faults on the generator state files: fsync that is slow, fsync that fails, write that fails.
// Each runs without and with shared_preload_libraries.
#include <string>
#include <vector>

#include "harness.h"

namespace idgen::fault {
namespace {

class DiskFault : public testing::TestWithParam<Mode> {};

// Scenario 1. Every fsync of a state file takes 150 ms: four connections each make 300 calls, one
// per statement, of gen_snowflake() and then of a shard's next_id(). Every call succeeds.
// (0.1.0 without preloading: once the clock passes the mark during its fsync, the call "issues" 0.)
// The fault is switched on 200 ms before the calls, and each connection makes at most one call per
// millisecond, so the calls run past the mark written before the fault and need new ones.
TEST_P(DiskFault, SlowFsync) {
    const Mode mode = GetParam();
    Cluster c(std::string("s1-") + (mode == Mode::kPreload ? "pre" : "nopre"), mode);
    c.start();
    c.exec("SELECT create_shard(1)");
    struct Target {
        const char* name;
        std::string sql;
    };
    for (const Target& t : {Target{"gen_snowflake()", kGen}, Target{"shard next_id()", "SELECT shard_1.next_id()"}}) {
        SCOPED_TRACE(t.name);
        IdBook book;
        constexpr int kConns = 4, kCalls = 300;
        std::vector<std::unique_ptr<pqxx::connection>> conns;
        std::vector<int> ids;
        for (int i = 0; i < kConns; ++i) {
            conns.push_back(connect_retrying(c.dsn()));
            ids.push_back(book.new_conn());
            for (int k = 0; k < 20; ++k) {
                Call r = call_id(*conns[i], t.sql);
                ASSERT_TRUE(r.ok) << "before the fault: " << r.error;
                book.add(ids[i], r);
            }
        }
        book.fault_at(Clock::now());
        c.set_fault("fsync_delay_ms=150");
        sleep_ms(200);
        const TimePoint t0 = Clock::now();
        Deadline d(c, 20, std::string("scenario 1 ") + t.name);
        std::vector<int> done(kConns, 0);
        std::vector<std::string> errors(kConns);
        parallel(kConns, [&](int i) {
            long long last = 0;
            for (int k = 0; k < kCalls && !d.expired(); ++k) {
                std::this_thread::sleep_until(t0 + std::chrono::milliseconds(k));
                Call r = call_id(*conns[i], t.sql);
                if (!r.ok) {
                    errors[i] = r.sqlstate + ": " + r.error;
                    return;
                }
                book.add(ids[i], r);
                ++done[i];
                if (r.null || r.id <= last) return;  // already a failure (0, NULL or going back): stop early
                last = r.id;
            }
        });
        d.finish();
        c.set_fault("");
        std::cout << "scenario 1 (" << mode_name(mode) << ", " << t.name << "): " << kConns << " x " << kCalls
                  << " calls with fsync delayed 150 ms took " << static_cast<long>(ms_between(t0, Clock::now()))
                  << " ms, " << c.ok_syncs("pg_idgen") << " fsyncs of state files" << std::endl;
        for (int i = 0; i < kConns; ++i) {
            EXPECT_EQ(errors[i], "") << "connection " << i;
            EXPECT_EQ(done[i], kCalls) << "connection " << i << " completed " << done[i] << " of " << kCalls
                                       << " calls";
        }
        book.check(std::string("1 slow fsync, ") + t.name + " (" + mode_name(mode) + ")");
    }
}

// Scenarios 2 and 3: a failing fsync (EIO) or write (ENOSPC) of a state file. The call that needs
// the write fails with 58030; a failed fsync keeps failing calls that need a new mark while the
// fault lasts; once it is cleared the state is rewritten and synced before the next ID, and IDs go
// on above every ID issued before the fault.
void failing_io(Mode mode, bool fsync_fault) {
    const std::string scenario = fsync_fault ? "2 failing fsync" : "3 failing write";
    Cluster c(std::string(fsync_fault ? "s2-" : "s3-") + (mode == Mode::kPreload ? "pre" : "nopre"), mode);
    c.start();
    IdBook book;
    auto conn = connect_retrying(c.dsn());
    const int cid = book.new_conn();
    for (int k = 0; k < 200; ++k) {
        Call r = call_id(*conn, kGen);
        ASSERT_TRUE(r.ok) << "before the fault: " << r.error;
        book.add(cid, r);
    }
    const TimePoint fault_on = Clock::now();
    c.set_fault(fsync_fault ? "fsync_fail=-1" : "write_fail=1");
    Deadline d(c, 40, "scenario " + scenario);

    // Generate until a call fails (bounded).
    Call failed;
    std::size_t ok_under_fault = 0;
    while (!d.expired() && ms_between(fault_on, Clock::now()) < 10000) {
        Call r = call_id(*conn, kGen);
        if (!r.ok) {
            failed = r;
            break;
        }
        book.add(cid, r);
        ++ok_under_fault;
    }
    ASSERT_FALSE(failed.sqlstate.empty())
        << "no call failed within 10 s of the fault (" << ok_under_fault << " succeeded)";
    EXPECT_EQ(failed.sqlstate, "58030") << failed.error;
    if (fsync_fault) {
        const std::string msg = primary_message(failed.error);
        EXPECT_NE(msg.find("fsync"), std::string::npos) << "message: " << msg;
        EXPECT_NE(msg.find("pg_idgen/v2/"), std::string::npos) << "message: " << msg;

        // While the fault stays on, calls that need a new mark keep failing: over more than 200 ms
        // of calls, at least one fails, and every failure is 58030.
        const TimePoint w0 = Clock::now();
        std::size_t failures = 0, other = 0;
        std::string other_error;
        while (!d.expired() && ms_between(w0, Clock::now()) < 300) {
            Call r = call_id(*conn, kGen);
            if (r.ok) {
                book.add(cid, r);
            } else if (r.sqlstate == "58030") {
                ++failures;
            } else {
                ++other;
                other_error = r.sqlstate + ": " + r.error;
            }
            sleep_ms(5);
        }
        EXPECT_GE(failures, 1u) << "no call failed during 300 ms with every fsync failing";
        EXPECT_EQ(other, 0u) << "a call failed with another error: " << other_error;
    }

    // Clear the fault: the state file is rewritten and synced before the first ID after it.
    const std::size_t syncs_before = c.ok_syncs("pg_idgen/v2/");
    const TimePoint cleared = Clock::now();
    c.set_fault("");
    Call first;
    std::string last_error;
    while (!d.expired() && ms_between(cleared, Clock::now()) < 5000) {
        first = call_id(*conn, kGen);
        if (first.ok) break;
        last_error = first.sqlstate + ": " + first.error;
        sleep_ms(10);
    }
    ASSERT_TRUE(first.ok) << "no call succeeded within 5 s of clearing the fault; last: " << last_error;
    const std::size_t syncs_after = c.ok_syncs("pg_idgen/v2/");
    book.add(cid, first);
    // After a failed fsync the record's page may be clean with the data lost: the state must be
    // rewritten and synced before anything is issued. (A failed write changed nothing on disk: the
    // mark synced before it still stands, so no fsync is owed.)
    if (fsync_fault) {
        EXPECT_GT(syncs_after, syncs_before) << "no successful fsync of a state file under pg_idgen/v2/ between "
                                                "clearing the fault and the first ID after it";
    }
    book.fault_window(fault_on, cleared);
    sleep_ms(20);  // past the clock unit of any lease taken before the fault was cleared (see IdBook::check)
    for (int k = 0; k < 200; ++k) {
        Call r = call_id(*conn, kGen);
        EXPECT_TRUE(r.ok) << "after the fault was cleared: " << r.error;
        book.add(cid, r);
    }
    // A new connection too.
    auto conn2 = connect_retrying(c.dsn());
    const int cid2 = book.new_conn();
    for (int k = 0; k < 100; ++k) {
        Call r = call_id(*conn2, kGen);
        EXPECT_TRUE(r.ok) << "new connection after the fault: " << r.error;
        book.add(cid2, r);
    }
    d.finish();
    book.check(scenario + " (" + mode_name(mode) + ")");
}

TEST_P(DiskFault, FailingFsync) { failing_io(GetParam(), true); }

TEST_P(DiskFault, FailingWrite) { failing_io(GetParam(), false); }

INSTANTIATE_TEST_SUITE_P(Fault, DiskFault, testing::Values(Mode::kNoPreload, Mode::kPreload), mode_tag);

}  // namespace
}  // namespace idgen::fault
