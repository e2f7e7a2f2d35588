// COPY round trips (text and binary) for base36_64, base36_128 and UUIDv7 columns, and binary
// input that base36_64 must refuse (a negative int8).
#include <gtest/gtest.h>

#include <pqxx/pqxx>
#include <string>
#include <unistd.h>

#include "common.h"

namespace {

TEST(Base36Copy, TextAndBinaryRoundTrip) {
    idgen::it::ScratchDb db("it_base36_copy");
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    tx.exec("CREATE TABLE src (n base36_64, b base36_128, u uuid)");
    tx.exec(
        "INSERT INTO src SELECT (CASE g WHEN 1 THEN 0 WHEN 2 THEN 9223372036854775807 ELSE g * 7919 "
        "END)::bigint::base36_64, "
        "CASE g WHEN 1 THEN 'f5lxx1zz5pnorynqglhzmsp33'::base36_128 ELSE gen_random_uuid()::base36_128 END, "
        "gen_uuidv7() "
        "FROM generate_series(1, 2000) g");
    const std::string digest = "SELECT md5(string_agg(n::text || b::text || u::text, ',' ORDER BY n, b)) FROM ";
    const std::string want = tx.exec1(digest + "src").at(0).c_str();
    // Server-side files are written by the server's OS user: a private name in /tmp.
    const std::string base = "/tmp/idgen_it_copy_" + std::to_string(getpid());
    for (const char* format : {"text", "binary", "csv"}) {
        const std::string file = base + "." + format;
        tx.exec("CREATE TABLE dst_" + std::string(format) + " (LIKE src)");
        tx.exec("COPY src TO '" + file + "' WITH (FORMAT " + format + ")");
        tx.exec("COPY dst_" + std::string(format) + " FROM '" + file + "' WITH (FORMAT " + format + ")");
        EXPECT_EQ(tx.exec1(digest + "dst_" + format).at(0).c_str(), want) << format;
    }
    // The binary form of base36_64 is an int8; a negative one is refused (22003), not stored.
    tx.exec("COPY (SELECT -5::bigint) TO '" + base + ".neg' WITH (FORMAT binary)");
    tx.exec("CREATE TABLE neg (n base36_64)");
    try {
        tx.exec("COPY neg FROM '" + base + ".neg' WITH (FORMAT binary)");
        ADD_FAILURE() << "negative base36_64 accepted through binary COPY";
    } catch (const pqxx::sql_error& e) {
        EXPECT_EQ(e.sqlstate(), "22003") << e.what();
    }
    // The binary form of base36_128 is a uuid's 16 bytes.
    EXPECT_EQ(tx.exec1("SELECT base36_128_send('1'::base36_128) = uuid_send('00000000-0000-0000-0000-000000000001')")
                  .at(0)
                  .as<bool>(),
              true);
    for (const char* ext : {".text", ".binary", ".csv", ".neg"}) std::remove((base + ext).c_str());
}

// amcheck on every index type the feature adds.
TEST(Base36Copy, AmcheckOnIndexes) {
    idgen::it::ScratchDb db("it_base36_amcheck");
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    tx.exec("CREATE EXTENSION IF NOT EXISTS amcheck");
    tx.exec("CREATE TABLE t (u uuid PRIMARY KEY DEFAULT gen_uuidv7(), n base36_64 UNIQUE, b base36_128 UNIQUE)");
    tx.exec(
        "INSERT INTO t (n, b) SELECT (g::bigint * 104729)::base36_64, gen_random_uuid()::base36_128 FROM "
        "generate_series(1, 50000) g");
    for (const char* idx : {"t_pkey", "t_n_key", "t_b_key"})
        EXPECT_NO_THROW(tx.exec("SELECT bt_index_parent_check('" + std::string(idx) + "', true)")) << idx;
}

}  // namespace
