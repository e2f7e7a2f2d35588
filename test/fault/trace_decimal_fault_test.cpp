// TraceId and DecimalId generators under faults: failing fsync of their state, a damaged or foreign
// DecimalId record, the generator numbers of a launch used up, a backend crash, and the clock
// stepping back between restarts. Each runs without and with shared_preload_libraries. The
// clusters are launch 7 (id_gen.launch_id) and node 1.
//
// DecimalIds are not time-ordered (a new generator restarts its counter at 1), so their checks are
// distinctness and generator numbers, not IdBook's ordering; TraceIds are checked by IdBook (they
// increase within their 388-day period).
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "core/state/state_record.h"
#include "core/types/trace_decimal.h"
#include "harness.h"

namespace idgen::fault {
namespace {

const std::string kGenDecimal = "SELECT gen_decimal_id()";
const std::string kGenTrace = "SELECT gen_trace_id()";
const std::vector<std::string> kConf = {"id_gen.launch_id = 7"};
constexpr const char* kDecimalFile = "node_7_7";  // kind 7, launch 7

class TraceDecimalFault : public testing::TestWithParam<Mode> {};

std::string tag(Mode m) { return m == Mode::kPreload ? "pre" : "nopre"; }

long long generator_of(long long id) {
    auto p = idgen::decimal_unpack(id);
    EXPECT_TRUE(p.ok()) << id;
    return p.ok() ? p->generator : -1;
}

// Calls `sql` n times on `conn`, asserting each succeeds; adds the IDs to `seen` (no repeats).
void take(pqxx::connection& conn, const std::string& sql, int n, std::set<long long>& seen,
          long long* generator = nullptr) {
    for (int k = 0; k < n; ++k) {
        Call r = call_id(conn, sql);
        ASSERT_TRUE(r.ok) << r.error;
        ASSERT_GT(r.id, 0);
        ASSERT_TRUE(seen.insert(r.id).second) << "ID " << r.id << " issued twice";
        if (generator) *generator = generator_of(r.id);
    }
}

// Writes a DecimalId record for launch 7 into the stopped cluster: `generators` handed out so far
// (the mark), stamped with the cluster's own system identifier and timeline unless `foreign`.
void write_record(const Cluster& c, long long generators, unsigned long long sysid, unsigned timeline) {
    idgen::StateRecord r{};
    r.reserved_ms = generators;
    r.sysid = sysid;
    r.timeline = timeline;
    std::uint8_t buf[idgen::kStateRecordSize];
    idgen::state_record_encode(r, buf);
    const std::string path = c.state_path(kDecimalFile);
    std::ofstream f(path, std::ios::binary | std::ios::trunc);  // truncating keeps the owner
    f.write(reinterpret_cast<const char*>(buf), sizeof buf);
    ASSERT_TRUE(f.good()) << path;
}

// A generator's counter used up: the next IDs come from a new generator number, counter 1. Driven
// without shared memory (15 and 16 without preloading), where the live counter is in the state file: the record of the running
// server (boot = its start time) is set to 3 counters before the end while the server runs, and a
// new session (no lease yet) continues from it.
TEST(TraceDecimalCounter, UsedUpCounterTakesANewGenerator) {
    Cluster c("td6-nopre", Mode::kNoPreload, kConf);
    c.start();
    // On 17 and later the generators use the DSM registry without preloading: no live counter in
    // the file to set.
    if (c.query_value("SELECT snowflake_state_storage()") != "files")
        GTEST_SKIP() << "the generators keep their state in shared memory (the DSM registry) on this server";
    Deadline d(c, 60, "DecimalId counter used up");
    std::set<long long> seen;
    long long g = -1;
    {
        auto conn = connect_retrying(c.dsn());
        take(*conn, kGenDecimal, 10, seen, &g);
    }
    const unsigned long long sysid = std::stoull(c.query_value("SELECT system_identifier FROM pg_control_system()"));
    const unsigned timeline =
        static_cast<unsigned>(std::stoul(c.query_value("SELECT timeline_id FROM pg_control_checkpoint()")));
    const long long boot = std::stoll(c.query_value(
        "SELECT (extract(epoch FROM pg_postmaster_start_time() - '2000-01-01 00:00:00+00') * 1000000)::bigint"));
    idgen::StateRecord r{};
    r.reserved_ms = g;
    r.boot = boot;
    r.last_time = g;
    r.last_seq = idgen::kDecimalCounterMax - 3;
    r.sysid = sysid;
    r.timeline = timeline;
    std::uint8_t buf[idgen::kStateRecordSize];
    idgen::state_record_encode(r, buf);
    {
        std::ofstream f(c.state_path(kDecimalFile), std::ios::binary | std::ios::in | std::ios::out);
        f.write(reinterpret_cast<const char*>(buf), sizeof buf);
        ASSERT_TRUE(f.good());
    }
    auto conn = connect_retrying(c.dsn());
    std::vector<long long> ids;
    for (int k = 0; k < 6; ++k) {
        Call r2 = call_id(*conn, kGenDecimal);
        ASSERT_TRUE(r2.ok) << r2.error;
        ASSERT_TRUE(seen.insert(r2.id).second) << "ID " << r2.id << " issued twice";
        ids.push_back(r2.id);
    }
    for (int k = 0; k < 3; ++k) {
        auto p = idgen::decimal_unpack(ids[k]);
        EXPECT_EQ(p->generator, g) << k;
        EXPECT_EQ(p->counter, idgen::kDecimalCounterMax - 2 + k) << k;
    }
    for (int k = 3; k < 6; ++k) {
        auto p = idgen::decimal_unpack(ids[k]);
        EXPECT_EQ(p->generator, g + 1) << k;
        EXPECT_EQ(p->counter, k - 2) << k;
        EXPECT_EQ(p->launch, 7) << k;
    }
    d.finish();
}

// A failing fsync of the DecimalId record: after a restart, the call that takes a generator number
// fails with 58030 and issues nothing, every call fails while the fault lasts; once it is cleared the record is
// rewritten and synced, generation resumes, and after a restart the generator number is larger.
TEST_P(TraceDecimalFault, DecimalFailingFsync) {
    const Mode mode = GetParam();
    Cluster c("td1-" + tag(mode), mode, kConf);
    c.start();
    Deadline d(c, 60, "DecimalId failing fsync");
    std::set<long long> seen;
    long long g0 = -1;
    {
        auto first = connect_retrying(c.dsn());
        take(*first, kGenDecimal, 100, seen, &g0);
    }
    c.restart();  // the next call takes a new generator number
    auto conn = connect_retrying(c.dsn());
    c.set_fault("fsync_fail=-1");
    for (int k = 0; k < 3; ++k) {
        Call r = call_id(*conn, kGenDecimal);
        ASSERT_FALSE(r.ok) << "an ID was issued while its generator number could not be synced: " << r.id;
        EXPECT_EQ(r.sqlstate, "58030") << r.error;
        EXPECT_NE(primary_message(r.error).find("fsync"), std::string::npos) << r.error;
        EXPECT_NE(primary_message(r.error).find("pg_idgen/v2/node_7_7"), std::string::npos) << r.error;
    }
    const std::size_t syncs_before = c.ok_syncs("pg_idgen/v2/node_7_7");
    c.set_fault("");
    long long g1 = -1;
    take(*conn, kGenDecimal, 500, seen, &g1);
    EXPECT_GT(g1, g0);
    EXPECT_GT(c.ok_syncs("pg_idgen/v2/node_7_7"), syncs_before) << "no fsync of the record before the first ID";
    {
        auto conn2 = connect_retrying(c.dsn());
        long long g = -1;
        take(*conn2, kGenDecimal, 500, seen, &g);
        EXPECT_EQ(g, g1) << "one generator serves every backend of a server run";
    }
    conn.reset();
    c.restart();
    auto conn3 = connect_retrying(c.dsn());
    long long g2 = -1;
    take(*conn3, kGenDecimal, 500, seen, &g2);
    EXPECT_GT(g2, g1) << "a restart takes a new generator number";
    d.finish();
}

// A damaged record: XX001 naming the file, a hint that says not to remove it; no ID. A new launch
// number (ALTER SYSTEM and a reload) works.
TEST_P(TraceDecimalFault, DecimalDamagedRecord) {
    const Mode mode = GetParam();
    Cluster c("td2-" + tag(mode), mode, kConf);
    c.start();
    Deadline d(c, 60, "DecimalId damaged record");
    std::set<long long> seen;
    {
        auto conn = connect_retrying(c.dsn());
        take(*conn, kGenDecimal, 100, seen);
    }
    c.stop();
    ASSERT_EQ(::truncate(c.state_path(kDecimalFile).c_str(), 10), 0);
    c.start();
    auto conn = connect_retrying(c.dsn());
    for (int k = 0; k < 2; ++k) {
        Call r = call_id(*conn, kGenDecimal);
        ASSERT_FALSE(r.ok) << "an ID was issued from a damaged record: " << r.id;
        EXPECT_EQ(r.sqlstate, "XX001") << r.error;
        EXPECT_NE(primary_message(r.error).find("pg_idgen/v2/node_7_7"), std::string::npos) << r.error;
        EXPECT_NE(r.error.find("Do not remove the file"), std::string::npos) << r.error;
    }
    c.exec("ALTER SYSTEM SET id_gen.launch_id = 8");
    c.exec("SELECT pg_reload_conf()");
    bool ok = false;
    for (int i = 0; i < 100 && !ok; ++i) {
        auto fresh = connect_retrying(c.dsn());
        Call r = call_id(*fresh, kGenDecimal);
        if (r.ok) {
            ok = true;
            EXPECT_EQ(idgen::decimal_unpack(r.id)->launch, 8);
            EXPECT_TRUE(seen.insert(r.id).second);
        } else {
            sleep_ms(50);
        }
    }
    EXPECT_TRUE(ok) << "no DecimalId after moving to launch 8";
    d.finish();
}

// The generator numbers of a launch used up (a record whose mark is 99,999): 54000 with a hint
// naming id_gen.launch_id. With one number left, the next server run takes it; the run after that
// is refused. A record of another server (another system identifier) is refused with 55000.
TEST_P(TraceDecimalFault, DecimalGeneratorsUsedUpAndForeignRecord) {
    const Mode mode = GetParam();
    Cluster c("td3-" + tag(mode), mode, kConf);
    c.start();
    Deadline d(c, 90, "DecimalId generators used up");
    std::set<long long> seen;
    {
        auto conn = connect_retrying(c.dsn());
        take(*conn, kGenDecimal, 10, seen);
    }
    const unsigned long long sysid = std::stoull(c.query_value("SELECT system_identifier FROM pg_control_system()"));
    const unsigned timeline =
        static_cast<unsigned>(std::stoul(c.query_value("SELECT timeline_id FROM pg_control_checkpoint()")));
    c.stop();
    write_record(c, 99998, sysid, timeline);
    c.start();
    {
        auto conn = connect_retrying(c.dsn());
        long long g = -1;
        take(*conn, kGenDecimal, 100, seen, &g);
        EXPECT_EQ(g, 99999);
    }
    c.restart();
    {
        auto conn = connect_retrying(c.dsn());
        Call r = call_id(*conn, kGenDecimal);
        ASSERT_FALSE(r.ok) << "an ID past the last generator number: " << r.id;
        EXPECT_EQ(r.sqlstate, "54000") << r.error;
        EXPECT_NE(primary_message(r.error).find("used up"), std::string::npos) << r.error;
        EXPECT_NE(r.error.find("id_gen.launch_id"), std::string::npos) << r.error;
        EXPECT_TRUE(has_hint(r.error)) << r.error;
    }
    c.stop();
    write_record(c, 5, sysid + 1, timeline);
    c.start();
    {
        auto conn = connect_retrying(c.dsn());
        Call r = call_id(*conn, kGenDecimal);
        ASSERT_FALSE(r.ok) << "an ID from another server's record: " << r.id;
        EXPECT_EQ(r.sqlstate, "55000") << r.error;
        EXPECT_NE(primary_message(r.error).find("another server or timeline"), std::string::npos) << r.error;
        EXPECT_TRUE(has_hint(r.error)) << r.error;
    }
    d.finish();
}

// A backend killed (SIGKILL): the postmaster reinitializes every backend. No ID repeats; with
// shared memory the live counter is lost, so the next IDs come from a new generator number.
TEST_P(TraceDecimalFault, DecimalBackendCrash) {
    const Mode mode = GetParam();
    Cluster c("td4-" + tag(mode), mode, kConf);
    c.start();
    Deadline d(c, 60, "DecimalId backend crash");
    std::set<long long> seen;
    long long before = -1;
    auto a = connect_retrying(c.dsn());
    take(*a, kGenDecimal, 1000, seen, &before);
    {
        auto b = connect_retrying(c.dsn());
        take(*b, kGenDecimal, 1000, seen);
    }
    const std::size_t ready = c.log_count("database system is ready to accept connections");
    ASSERT_EQ(::kill(a->backendpid(), SIGKILL), 0);
    ASSERT_TRUE(c.wait_ready_after(ready, 30)) << "the server did not come back within 30 s:\n" << c.log_tail();
    std::vector<std::set<long long>> got(4);
    std::vector<long long> gens(4, -1);
    std::vector<std::string> errors(4);
    parallel(4, [&](int i) {
        try {
            auto conn = connect_retrying(c.dsn(), 30);
            for (int k = 0; k < 500; ++k) {
                Call r = call_id(*conn, kGenDecimal);
                if (!r.ok) {
                    errors[i] = r.sqlstate + ": " + r.error;
                    return;
                }
                got[i].insert(r.id);
                gens[i] = generator_of(r.id);
            }
        } catch (const std::exception& e) {
            errors[i] = e.what();
        }
    });
    for (int i = 0; i < 4; ++i) {
        EXPECT_EQ(errors[i], "") << "connection " << i;
        // Shared memory is reinitialized, so the live counter is gone: a new generator number. The
        // state file (without shared memory) survives a backend crash with every lease recorded in
        // it, so the same generator may carry on.
        if (mode == Mode::kPreload)
            EXPECT_GT(gens[i], before) << "connection " << i << " reused generator " << gens[i];
        else
            EXPECT_GE(gens[i], before) << "connection " << i;
        for (long long id : got[i]) EXPECT_TRUE(seen.insert(id).second) << "ID " << id << " issued twice";
    }
    d.finish();
}

// TraceIds: the clock steps back 30 s between restarts (id_gen.test_clock_offset), and a failing
// fsync of the state: every ID after each is above every ID before it, none repeats, no ID is
// issued on an unsynced mark (58030 while the fault lasts).
TEST_P(TraceDecimalFault, TraceClockStepBackAndFailingFsync) {
    const Mode mode = GetParam();
    Cluster c("td5-" + tag(mode), mode, kConf);
    c.start();
    Deadline d(c, 60, "TraceId clock step and fsync");
    IdBook book;
    auto generate = [&](int n) {
        auto conn = connect_retrying(c.dsn());
        const int cid = book.new_conn();
        for (int k = 0; k < n; ++k) {
            Call r = call_id(*conn, kGenTrace);
            EXPECT_TRUE(r.ok) << r.error;
            book.add(cid, r);
        }
        return conn;
    };
    auto conn = generate(300);
    // Failing fsync: a call that needs a new mark fails. With the clock running, each new second
    // needs one (a mark covers 100 to 250 ms past the start of its second), so within 3 s one does.
    const TimePoint on = Clock::now();
    c.set_fault("fsync_fail=-1");
    const int cid = book.new_conn();
    Call failed;
    while (!d.expired() && ms_between(on, Clock::now()) < 5000) {
        Call r = call_id(*conn, kGenTrace);
        if (!r.ok) {
            failed = r;
            break;
        }
        book.add(cid, r);
        sleep_ms(5);
    }
    EXPECT_EQ(failed.sqlstate, "58030") << "no call failed within 5 s of every fsync failing: " << failed.error;
    const TimePoint off = Clock::now();
    c.set_fault("");
    book.fault_window(on, off);
    sleep_ms(1100);  // past the second of any lease taken before the fault was cleared
    generate(300);
    // The clock steps back 30 s across a restart: the generator carries on from its mark.
    {
        pqxx::nontransaction tx(*conn);
        tx.exec("LOAD 'id_gen'");
        tx.exec("ALTER SYSTEM SET id_gen.test_clock_offset = '-30s'");
    }
    conn.reset();
    book.fault_at(Clock::now());
    c.restart();
    generate(300);
    d.finish();
    book.check("TraceId clock stepped back and failing fsync (" + std::string(mode_name(mode)) + ")");
}

INSTANTIATE_TEST_SUITE_P(Fault, TraceDecimalFault, testing::Values(Mode::kNoPreload, Mode::kPreload), mode_tag);

}  // namespace
}  // namespace idgen::fault
