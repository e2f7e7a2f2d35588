// The state file itself goes wrong: damaged while the server is down, deleted under running
// backends, or left with a mark while the clock steps back; a shard block valid from a time the
// generators' clock has not reached. Each runs without and with
// shared_preload_libraries.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "harness.h"

namespace idgen::fault {
namespace {

class StateFile : public testing::TestWithParam<Mode> {};

std::string tag(Mode m) { return m == Mode::kPreload ? "pre" : "nopre"; }

// Scenario 4. Generate, stop the server, damage node_1 (twitter): (a) truncated to 10 bytes, (b) one
// bit flipped in the middle. On start the call fails with XX001, names the file and says what to do
// (a hint); no ID is issued. After the file is removed (what the hint offers when the clock is known
// to be ahead of every ID issued), generation resumes above every earlier ID.
TEST_P(StateFile, Damaged) {
    const Mode mode = GetParam();
    Cluster c("s4-" + tag(mode), mode);
    c.start();
    Deadline d(c, 60, "scenario 4");
    IdBook book;
    {
        auto conn = connect_retrying(c.dsn());
        const int cid = book.new_conn();
        for (int k = 0; k < 300; ++k) {
            Call r = call_id(*conn, kGen);
            ASSERT_TRUE(r.ok) << r.error;
            book.add(cid, r);
        }
    }
    const std::string path = c.state_path("node_1");
    for (const char* damage : {"truncated to 10 bytes", "one bit flipped"}) {
        SCOPED_TRACE(damage);
        c.stop();
        struct stat st {};
        ASSERT_EQ(::stat(path.c_str(), &st), 0) << "no state file at " << path;
        if (damage[0] == 't') {
            ASSERT_EQ(::truncate(path.c_str(), 10), 0);
        } else {
            ASSERT_GT(st.st_size, 1);
            const int fd = ::open(path.c_str(), O_RDWR);
            ASSERT_GE(fd, 0);
            unsigned char b = 0;
            const off_t at = st.st_size / 2;
            ASSERT_EQ(::pread(fd, &b, 1, at), 1);
            b ^= 0x10;
            ASSERT_EQ(::pwrite(fd, &b, 1, at), 1);
            ::close(fd);
        }
        book.fault_at(Clock::now());
        c.start();
        // Refused, from two connections, twice each: no ID is issued.
        for (int n = 0; n < 2; ++n) {
            auto conn = connect_retrying(c.dsn());
            for (int k = 0; k < 2; ++k) {
                Call r = call_id(*conn, kGen);
                EXPECT_FALSE(r.ok) << "an ID was issued from a damaged state file: " << r.id;
                if (r.ok) {
                    book.add(book.new_conn(), r);
                    continue;
                }
                EXPECT_EQ(r.sqlstate, "XX001") << r.error;
                EXPECT_NE(primary_message(r.error).find("pg_idgen/v2/node_1"), std::string::npos) << r.error;
                EXPECT_TRUE(has_hint(r.error)) << "no hint says what to do: " << r.error;
            }
        }
        // Remove the file, as the hint offers when the clock is ahead: generation resumes.
        ASSERT_EQ(::unlink(path.c_str()), 0) << path;
        auto conn = connect_retrying(c.dsn());
        const int cid = book.new_conn();
        for (int k = 0; k < 300; ++k) {
            Call r = call_id(*conn, kGen);
            EXPECT_TRUE(r.ok) << "after removing the damaged file: " << r.error;
            book.add(cid, r);
        }
    }
    d.finish();
    book.check("4 damaged state file (" + std::string(mode_name(mode)) + ")");
}

// Scenario 5. Four connections call gen_snowflake() in a loop (one call per statement, about 2 s)
// while the state file is deleted twice. Each worker replaces its connection every 250 ms, so new
// backends open the state file while older ones still hold the one that was deleted. (0.1.0
// without preloading: backends writing the unlinked file and backends that made a new one issue
// the same IDs.)
TEST_P(StateFile, DeletedUnderRunningBackends) {
    const Mode mode = GetParam();
    Cluster c("s5-" + tag(mode), mode);
    c.start();
    IdBook book;
    constexpr int kConns = 4;
    {
        auto conn = connect_retrying(c.dsn());
        const int cid = book.new_conn();
        Call r = call_id(*conn, kGen);
        ASSERT_TRUE(r.ok) << r.error;
        book.add(cid, r);
    }
    const std::string path = c.state_path("node_1");
    Deadline d(c, 30, "scenario 5");
    std::atomic<bool> stop{false};
    std::vector<std::string> errors(kConns);
    std::thread deleter([&] {
        for (int n = 0; n < 2 && !d.expired(); ++n) {
            sleep_ms(600);
            // The file must be there to be deleted (the first time it is; after a deletion the
            // generator re-creates it).
            const TimePoint w = Clock::now();
            while (!file_exists(path) && ms_between(w, Clock::now()) < 1000) sleep_ms(5);
            const TimePoint t = Clock::now();
            if (::unlink(path.c_str()) != 0) {
                ADD_FAILURE() << "deletion " << n + 1 << ": no state file at " << path;
                continue;
            }
            book.fault_at(t);
        }
        sleep_ms(600);
        stop = true;
    });
    parallel(kConns, [&](int i) {
        while (!stop && !d.expired()) {
            std::unique_ptr<pqxx::connection> conn;
            try {
                conn = connect_retrying(c.dsn(), 5);
            } catch (const std::exception& e) {
                errors[i] = e.what();
                return;
            }
            const int cid = book.new_conn();
            const TimePoint opened = Clock::now();
            long long last = 0;
            while (!stop && !d.expired() && ms_between(opened, Clock::now()) < 250) {
                Call r = call_id(*conn, kGen);
                if (!r.ok) {
                    errors[i] = r.sqlstate + ": " + r.error;
                    return;
                }
                book.add(cid, r);
                if (r.id <= last) return;  // already a failure: stop early
                last = r.id;
            }
        }
    });
    deleter.join();
    d.finish();
    for (int i = 0; i < kConns; ++i) EXPECT_EQ(errors[i], "") << "worker " << i;
    book.check("5 state file deleted under running backends (" + std::string(mode_name(mode)) + ")");
}

// Scenario 6. Generate with the test clock at its true time, then restart with the clock 30 s
// behind (id_gen.test_clock_offset counts because the clusters run with id_gen.enable_test_clock):
// every ID after the restart is above every ID before it, for the node generator and for a shard.
TEST_P(StateFile, ClockSteppedBackBetweenRestarts) {
    const Mode mode = GetParam();
    Cluster c("s6-" + tag(mode), mode);
    c.start();
    c.exec("SELECT create_shard(1)");
    Deadline d(c, 60, "scenario 6");
    IdBook node, shard;
    auto generate = [&](int n) {
        auto conn = connect_retrying(c.dsn());
        const int a = node.new_conn(), b = shard.new_conn();
        for (int k = 0; k < n; ++k) {
            Call r = call_id(*conn, kGen);
            EXPECT_TRUE(r.ok) << r.error;
            node.add(a, r);
            Call s = call_id(*conn, "SELECT shard_1.next_id()");
            EXPECT_TRUE(s.ok) << s.error;
            shard.add(b, s);
        }
        return conn;
    };
    generate(300);
    {
        auto conn = connect_retrying(c.dsn());
        pqxx::nontransaction tx(*conn);
        tx.exec("LOAD 'id_gen'");  // the setting is the library's: known once it is loaded
        tx.exec("ALTER SYSTEM SET id_gen.test_clock_offset = '-30s'");
    }
    const TimePoint t = Clock::now();
    node.fault_at(t);
    shard.fault_at(t);
    c.restart();
    auto conn = generate(300);
    {
        pqxx::nontransaction tx(*conn);
        const std::string offset = tx.exec("SHOW id_gen.test_clock_offset")[0][0].c_str();
        EXPECT_TRUE(offset == "-30s" || offset == "-30000") << "id_gen.test_clock_offset is " << offset;
    }
    d.finish();
    node.check("6 clock stepped back, gen_snowflake() (" + std::string(mode_name(mode)) + ")");
    shard.check("6 clock stepped back, shard next_id() (" + std::string(mode_name(mode)) + ")");
}

// Scenario 6b. A block of shard 2's sequence field is granted to this node, valid from 1 s after
// the grant (as a grant over a shard that issued from its whole field makes it). The block's
// validity is read on the generators' clock, the one its IDs are made from: with the test clock
// 5 s behind once the server's clock has passed valid_from, the block still refuses (55000) and
// issues nothing older than valid_from; with the test clock 5 s ahead before then, it issues, and
// every ID is from valid_from on and above the whole field's IDs.
TEST_P(StateFile, BlockValidOnTheGeneratorsClock) {
    const Mode mode = GetParam();
    Cluster c("s6b-" + tag(mode), mode);
    c.start();
    c.exec("SELECT create_shard(2)");
    Deadline d(c, 60, "scenario 6b");
    const auto ms_of = [](long long id) { return 1704067200000LL + (id >> 23); };  // create_shard()'s epoch
    long long field_max = 0;
    {
        auto conn = connect_retrying(c.dsn());
        for (long long id : query_ids(*conn, "SELECT shard_2.next_id() FROM generate_series(1, 1000)"))
            field_max = std::max(field_max, id);
    }
    const std::string grant =
        "INSERT INTO shard_blocks (shard, node_id, seq_lo, seq_bits, valid_from, node_group) VALUES (2, 1, 0, 4, "
        "clock_timestamp() + interval '1 s', 0)";
    const std::string valid_from_ms =
        "SELECT (extract(epoch FROM valid_from) * 1000)::bigint FROM shard_blocks WHERE shard = 2";
    const auto next_id = [&](int offset_ms, std::string& sqlstate) {
        auto conn = connect_retrying(c.dsn());
        pqxx::nontransaction tx(*conn);
        tx.exec("SET id_gen.test_clock_offset = " + std::to_string(offset_ms));
        try {
            return tx.exec("SELECT shard_2.next_id()")[0][0].as<long long>();
        } catch (const pqxx::sql_error& e) {
            sqlstate = e.sqlstate();
            return 0LL;
        }
    };
    // Behind: the server's clock past valid_from, the generators' 5 s behind it.
    c.exec(grant);
    const long long from_1 = std::stoll(c.query_value(valid_from_ms));
    sleep_ms(1300);
    std::string state;
    const long long behind = next_id(-5000, state);
    EXPECT_EQ(behind, 0) << "the block issued " << behind << ", of " << ms_of(behind) - from_1
                         << " ms after its valid_from, with the generators' clock before it";
    EXPECT_EQ(state, "55000");
    // Ahead: a new grant (the block re-made), the generators' clock 5 s ahead of the server's.
    c.exec("DELETE FROM shard_blocks WHERE shard = 2");
    c.exec(grant);
    const long long from_2 = std::stoll(c.query_value(valid_from_ms));
    state.clear();
    const long long ahead = next_id(5000, state);
    EXPECT_EQ(state, "") << "the block refused with the generators' clock past its valid_from";
    if (ahead != 0) {
        EXPECT_GE(ms_of(ahead), from_2) << ahead;
        EXPECT_LT(ahead & 1023, 16) << ahead << " is not of the block 0..15";
        EXPECT_GT(ahead, field_max);
    }
    d.finish();
}

INSTANTIATE_TEST_SUITE_P(Fault, StateFile, testing::Values(Mode::kNoPreload, Mode::kPreload), mode_tag);

}  // namespace
}  // namespace idgen::fault
