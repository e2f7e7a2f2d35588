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
    // uuid text is fixed-width lower-case hex: text order = byte order. Alternate our
    // PostgreSQL 18 name and our own name (one clock per backend). Qualified: an unqualified
    // uuidv7() is core's on 18, whose clock is its own (it is tested alone below).
    auto ids = idgen::it::generate_in_parallel<std::string>(
        std::vector<std::string>(kConnections, db.dsn()),
        idgen::it::series_query("CASE WHEN n % 2 = 0 THEN public.uuidv7() ELSE gen_uuidv7() END", "text",
                                kPerConnection),
        kPerConnection);
    for (const auto& conn : ids)
        for (const auto& s : conn) ASSERT_EQ(s[14], '7') << s;  // version nibble
}

// An unqualified uuidv7(): core's on PostgreSQL 18 (its own per-backend clock), ours before.
// Each is strictly increasing on its own in every connection.
TEST(Uuidv7Concurrency, UnqualifiedNameFourConnectionsNoDuplicatesEachIncreasing) {
    idgen::it::ScratchDb db("it_uuidv7_concurrency_unqualified");
    auto ids = idgen::it::generate_in_parallel<std::string>(std::vector<std::string>(kConnections, db.dsn()),
                                                            idgen::it::series_query("uuidv7()", "text", kPerConnection),
                                                            kPerConnection);
    for (const auto& conn : ids)
        for (const auto& s : conn) ASSERT_EQ(s[14], '7') << s;
}

}  // namespace
