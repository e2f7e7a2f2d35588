// gen_monotonic_ulid(): one order for the whole server. Eight sessions ask at once, in statements
// of many calls each; over everything the clients received, no ULID repeats, each statement's
// ULIDs strictly increase, and every ULID is greater than every ULID a client had received
// before the statement that returned it was sent (a real-time order over what clients saw). The
// same holds across the clock stepping back within a server run, a restart, and the clock further
// back after it; in statements of many calls and of one. On the preloaded cluster (state in shared memory) with 1,000,000 ULIDs, and on
// the cluster without preloading (locked files on 15 and 16, the DSM registry on 17 and later).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <pqxx/pqxx>
#include <string>
#include <thread>
#include <vector>

#include "common.h"

namespace {

using Clock = std::chrono::steady_clock;

// One statement of one session: when it was sent, when its result was in, what it returned.
struct Batch {
    Clock::time_point sent, received;
    std::vector<std::string> ids;  // canonical text: text order is ULID order
};

std::unique_ptr<pqxx::connection> connect_retrying(const std::string& dsn) {
    for (int attempt = 0;; ++attempt) {
        try {
            return std::make_unique<pqxx::connection>(dsn);
        } catch (const pqxx::broken_connection&) {
            if (attempt >= 100) throw;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
    }
}

// `sessions` sessions at once, each running `per_session` calls in statements of `per_batch`
// after `setup` (a SET of the test clock, or nothing). Appends every statement to `out`.
void run_sessions(const std::string& dsn, int sessions, int per_session, int per_batch, const std::string& setup,
                  std::vector<Batch>& out) {
    std::vector<std::vector<Batch>> got(sessions);
    std::vector<std::string> errors(sessions);
    std::vector<std::thread> threads;
    for (int s = 0; s < sessions; ++s) {
        threads.emplace_back([&, s] {
            try {
                auto c = connect_retrying(dsn);
                pqxx::nontransaction tx(*c);
                if (!setup.empty()) tx.exec(setup);
                const std::string q = "SELECT gen_monotonic_ulid()::text FROM generate_series(1, " +
                                      std::to_string(per_batch) + ") WITH ORDINALITY AS g(v, n) ORDER BY n";
                for (int done = 0; done < per_session; done += per_batch) {
                    Batch b;
                    b.ids.reserve(per_batch);
                    b.sent = Clock::now();
                    auto r = tx.exec(q);
                    b.received = Clock::now();
                    for (const auto& row : r) b.ids.emplace_back(row[0].c_str());
                    got[s].push_back(std::move(b));
                }
            } catch (const std::exception& e) {
                errors[s] = e.what();
            }
        });
    }
    for (auto& t : threads) t.join();
    for (int s = 0; s < sessions; ++s) {
        EXPECT_EQ(errors[s], "") << "session " << s;
        for (auto& b : got[s]) out.push_back(std::move(b));
    }
}

// The checks over every statement: sizes, strict increase within each, no repeat anywhere, and
// the real-time order: a statement's smallest ULID is above the largest of every statement whose
// result was in before it was sent.
void check_order(const std::vector<Batch>& batches, std::size_t expected) {
    std::vector<std::string> all;
    all.reserve(expected);
    for (std::size_t i = 0; i < batches.size(); ++i) {
        const auto& ids = batches[i].ids;
        ASSERT_FALSE(ids.empty()) << "statement " << i << " returned nothing";
        auto down = std::adjacent_find(ids.begin(), ids.end(), [](const auto& a, const auto& b) { return !(a < b); });
        ASSERT_EQ(down, ids.end()) << "statement " << i << ": " << *down << " then " << *(down + 1);
        for (const auto& id : ids) ASSERT_EQ(id.size(), 26u) << id;
        all.insert(all.end(), ids.begin(), ids.end());
    }
    ASSERT_EQ(all.size(), expected);
    std::sort(all.begin(), all.end());
    auto dup = std::adjacent_find(all.begin(), all.end());
    ASSERT_EQ(dup, all.end()) << "ULID " << *dup << " returned twice";

    // Statements by the time their result was in, with the largest ULID received so far.
    std::vector<std::size_t> by_received(batches.size());
    for (std::size_t i = 0; i < by_received.size(); ++i) by_received[i] = i;
    std::sort(by_received.begin(), by_received.end(),
              [&](std::size_t a, std::size_t b) { return batches[a].received < batches[b].received; });
    std::vector<std::string> max_so_far(by_received.size());
    for (std::size_t k = 0; k < by_received.size(); ++k) {
        const std::string& m = batches[by_received[k]].ids.back();
        max_so_far[k] = k == 0 || max_so_far[k - 1] < m ? m : max_so_far[k - 1];
    }
    std::size_t compared = 0;
    for (std::size_t i = 0; i < batches.size(); ++i) {
        // How many statements had their result in before statement i was sent.
        const auto it = std::lower_bound(by_received.begin(), by_received.end(), batches[i].sent,
                                         [&](std::size_t b, Clock::time_point t) { return batches[b].received < t; });
        const std::size_t before = static_cast<std::size_t>(it - by_received.begin());
        if (before == 0) continue;
        ++compared;
        ASSERT_LT(max_so_far[before - 1], batches[i].ids.front())
            << "statement " << i << " began after a client had received " << max_so_far[before - 1] << ", and returned "
            << batches[i].ids.front();
    }
    // Most statements of a phase follow others (only the first of each session may not).
    EXPECT_GT(compared, batches.size() / 2);
}

// Phase 1 as the clock is; phase 2 with the clock 10 s back in the same server run; a restart;
// phase 3 with the clock 20 s back. Each phase is `sessions` sessions of `per_session` calls in
// statements of 1000, then of 500 statements of one call (a call's round trip is shorter than a
// millisecond, so calls of several sessions fall in one: an ID handed to a backend ahead of its
// call would show there).
void three_phases(const idgen::it::Cluster& c, const std::string& db, int sessions, int per_session) {
    std::vector<Batch> batches;
    auto phase = [&](const std::string& setup) {
        run_sessions(c.dsn(db), sessions, per_session, 1000, setup, batches);
        run_sessions(c.dsn(db), sessions, 500, 1, setup, batches);
    };
    phase("");
    phase("SET id_gen.test_clock_offset = '-10s'");
    ASSERT_EQ(idgen::it::pg_ctl(c, "restart"), 0) << "pg_ctl restart failed";
    phase("SET id_gen.test_clock_offset = '-20s'");
    check_order(batches, static_cast<std::size_t>(3) * sessions * (per_session + 500));
}

TEST(MonotonicUlid, OneOrderForEverySessionAcrossClockStepsAndRestart) {
    const idgen::it::Cluster c = idgen::it::main_cluster();
    idgen::it::Db db(c, "it_monotonic_ulid");
    three_phases(c, db.name(), 8, 42000);  // 1,008,000 in statements of 1000, 12,000 alone
}

TEST(MonotonicUlid, OneOrderWithoutPreloading) {
    const idgen::it::Cluster c = idgen::it::nopreload_cluster();
    idgen::it::Db db(c, "it_monotonic_ulid_np");
    {
        pqxx::connection conn(db.dsn());
        pqxx::nontransaction tx(conn);
        EXPECT_NE(tx.exec1("SELECT snowflake_state_storage()")[0].as<std::string>(), "shared memory");
    }
    three_phases(c, db.name(), 8, 3000);
}

// Across databases: one generator for the server, so ULIDs of two databases interleave in one
// order (the second database's ULIDs are above the first's when asked after them).
TEST(MonotonicUlid, OneGeneratorForEveryDatabase) {
    const idgen::it::Cluster c = idgen::it::main_cluster();
    idgen::it::Db a(c, "it_monotonic_ulid_a");
    idgen::it::Db b(c, "it_monotonic_ulid_b");
    pqxx::connection ca(a.dsn());
    pqxx::connection cb(b.dsn());
    pqxx::nontransaction ta(ca);
    pqxx::nontransaction tb(cb);
    std::string last;
    for (int k = 0; k < 200; ++k) {
        pqxx::nontransaction& tx = k % 2 == 0 ? ta : tb;
        const std::string id = tx.exec1("SELECT gen_monotonic_ulid()::text")[0].c_str();
        ASSERT_LT(last, id) << "call " << k;
        last = id;
    }
}

}  // namespace
