// Many connections generating ULIDs at once: zero duplicates, each connection strictly increasing.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common.h"

namespace {

constexpr std::size_t kConnections = 4;
constexpr std::size_t kPerConnection = 250000;

TEST(UlidConcurrency, FourConnectionsNoDuplicatesEachIncreasing) {
    idgen::it::ScratchDb db("it_ulid_concurrency");
    // ULID text is fixed-width Crockford base32: text order = byte order.
    auto ids = idgen::it::generate_in_parallel<std::string>(
        std::vector<std::string>(kConnections, db.dsn()), idgen::it::series_query("gen_ulid()", "text", kPerConnection),
        kPerConnection);
    for (const auto& conn : ids)
        for (const auto& s : conn) ASSERT_EQ(s.size(), 26u) << s;
}

}  // namespace
