// Many connections generating UUIDv7 at once: zero duplicates, each connection strictly increasing.
#include <gtest/gtest.h>

#include <algorithm>
#include <pqxx/pqxx>
#include <string>
#include <thread>
#include <vector>

#include "common.h"

namespace {

constexpr int kConnections = 4;
constexpr int kPerConnection = 250000;

TEST(Uuidv7Concurrency, FourConnectionsNoDuplicatesEachIncreasing) {
    idgen::it::ScratchDb db("it_uuidv7_concurrency");
    std::vector<std::vector<std::string>> ids(kConnections);
    std::vector<std::string> errors(kConnections);
    std::vector<std::thread> threads;
    for (int c = 0; c < kConnections; ++c) {
        threads.emplace_back([&, c] {
            try {
                pqxx::connection conn(db.dsn());
                pqxx::nontransaction tx(conn);
                // uuid text is fixed-width lower-case hex: text order = byte order. Alternate the
                // PostgreSQL-compatible name and ours (one clock per backend).
                auto r = tx.exec("SELECT CASE WHEN n % 2 = 0 THEN uuidv7() ELSE gen_uuidv7() END::text FROM generate_series(1, " +
                                 std::to_string(kPerConnection) + ") WITH ORDINALITY AS g(v, n) ORDER BY n");
                ids[c].reserve(r.size());
                for (const auto& row : r) ids[c].push_back(row[0].c_str());
            } catch (const std::exception& e) {
                errors[c] = e.what();
            }
        });
    }
    for (auto& t : threads) t.join();
    std::vector<std::string> all;
    for (int c = 0; c < kConnections; ++c) {
        ASSERT_EQ(errors[c], "") << "connection " << c;
        ASSERT_EQ(ids[c].size(), static_cast<std::size_t>(kPerConnection));
        for (std::size_t i = 1; i < ids[c].size(); ++i)
            ASSERT_LT(ids[c][i - 1], ids[c][i]) << "connection " << c << " at " << i;
        for (const auto& s : ids[c]) ASSERT_EQ(s[14], '7') << s;  // version nibble
        all.insert(all.end(), ids[c].begin(), ids[c].end());
    }
    std::sort(all.begin(), all.end());
    EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << "duplicate UUIDv7";
    EXPECT_EQ(all.size(), static_cast<std::size_t>(kConnections * kPerConnection));
}

}  // namespace
