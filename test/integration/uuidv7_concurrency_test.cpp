// Many connections generating UUIDv7 at once: zero duplicates, each connection strictly increasing.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common.h"

namespace {

constexpr std::size_t kConnections = 4;
constexpr std::size_t kPerConnection = 250000;

TEST(Uuidv7Concurrency, FourConnectionsNoDuplicatesEachIncreasing) {
    idgen::it::ScratchDb db("it_uuidv7_concurrency");
    // uuid text is fixed-width lower-case hex: text order = byte order. Alternate the
    // PostgreSQL-compatible name and ours (one clock per backend).
    auto ids = idgen::it::generate_in_parallel<std::string>(
        std::vector<std::string>(kConnections, db.dsn()),
        idgen::it::series_query("CASE WHEN n % 2 = 0 THEN uuidv7() ELSE gen_uuidv7() END", "text", kPerConnection),
        kPerConnection);
    for (const auto& conn : ids)
        for (const auto& s : conn) ASSERT_EQ(s[14], '7') << s;  // version nibble
}

}  // namespace
