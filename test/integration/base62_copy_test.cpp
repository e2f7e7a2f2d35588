// base62 types over the wire: COPY round trips (text, csv and binary) for base62_64, base62_128
// and prefixed text with a base62 body, binary input base62_64 must refuse (a negative int8), the
// binary forms (an int8, a uuid's 16 bytes), amcheck on their indexes, and the order of base62
// text under the "C" collation and under a linguistic one (ICU, where the server has it).
#include <gtest/gtest.h>

#include <cstdio>
#include <pqxx/pqxx>
#include <string>
#include <unistd.h>

#include "common.h"

namespace {

TEST(Base62Copy, TextAndBinaryRoundTrip) {
    idgen::it::ScratchDb db("it_base62_copy");
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    tx.exec("CREATE TABLE src (n base62_64, b base62_128, p text, u uuid)");
    tx.exec(
        "INSERT INTO src SELECT (CASE g WHEN 1 THEN 0 WHEN 2 THEN 9223372036854775807 ELSE g * 7919 "
        "END)::bigint::base62_64, "
        "CASE g WHEN 1 THEN '7n42DGM5Tflk9n8mt7Fhc7'::base62_128 WHEN 2 THEN '0000000000000000000000' "
        "ELSE gen_random_uuid()::base62_128 END, prefixed_format('acct', gen_uuidv7(), 'base62'), gen_uuidv7() "
        "FROM generate_series(1, 2000) g");
    const std::string digest = "SELECT md5(string_agg(n::text || b::text || p || u::text, ',' ORDER BY n, b)) FROM ";
    const std::string want = tx.exec1(digest + "src").at(0).c_str();
    // Server-side files are written by the server's OS user: a private name in /tmp.
    const std::string base = "/tmp/idgen_it_copy62_" + std::to_string(getpid());
    for (const char* format : {"text", "binary", "csv"}) {
        const std::string file = base + "." + format;
        tx.exec("CREATE TABLE dst_" + std::string(format) + " (LIKE src)");
        tx.exec("COPY src TO '" + file + "' WITH (FORMAT " + format + ")");
        tx.exec("COPY dst_" + std::string(format) + " FROM '" + file + "' WITH (FORMAT " + format + ")");
        EXPECT_EQ(tx.exec1(digest + "dst_" + format).at(0).c_str(), want) << format;
        // The values, not only their text, came back: the numbers and the prefixed IDs' uuids.
        EXPECT_EQ(tx.exec1("SELECT count(*) FROM src s JOIN dst_" + std::string(format) +
                           " d ON d.n = s.n AND d.b::uuid = s.b::uuid "
                           "AND prefixed_parse('acct', d.p, 'base62') = prefixed_parse('acct', s.p, 'base62')")
                      .at(0)
                      .as<long>(),
                  2000)
            << format;
    }
    // The text form read back through COPY is the strict 11 / 22-character form.
    EXPECT_EQ(tx.exec1("SELECT bool_and(n::text ~ '^[0-9A-Za-z]{11}$' AND b::text ~ '^[0-9A-Za-z]{22}$') FROM dst_text")
                  .at(0)
                  .as<bool>(),
              true);
    // The binary form of base62_64 is an int8; a negative one is refused (22003), not stored.
    tx.exec("COPY (SELECT -5::bigint) TO '" + base + ".neg' WITH (FORMAT binary)");
    tx.exec("CREATE TABLE neg (n base62_64)");
    try {
        tx.exec("COPY neg FROM '" + base + ".neg' WITH (FORMAT binary)");
        ADD_FAILURE() << "negative base62_64 accepted through binary COPY";
    } catch (const pqxx::sql_error& e) {
        EXPECT_EQ(e.sqlstate(), "22003") << e.what();
    }
    // A text COPY of a value with the wrong length is refused with 22P02.
    tx.exec("COPY (SELECT '123') TO '" + base + ".short' WITH (FORMAT text)");
    try {
        tx.exec("COPY neg FROM '" + base + ".short' WITH (FORMAT text)");
        ADD_FAILURE() << "a 3-character base62_64 accepted through text COPY";
    } catch (const pqxx::sql_error& e) {
        EXPECT_EQ(e.sqlstate(), "22P02") << e.what();
    }
    EXPECT_EQ(tx.exec1("SELECT base62_128_send('0000000000000000000001'::base62_128) = "
                       "uuid_send('00000000-0000-0000-0000-000000000001') AND "
                       "base62_64_send('0000000000z'::base62_64) = int8send(61)")
                  .at(0)
                  .as<bool>(),
              true);
    for (const char* ext : {".text", ".binary", ".csv", ".neg", ".short"}) std::remove((base + ext).c_str());
}

// amcheck on every btree index the feature adds.
TEST(Base62Copy, AmcheckOnIndexes) {
    idgen::it::ScratchDb db("it_base62_amcheck");
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    tx.exec("CREATE EXTENSION IF NOT EXISTS amcheck");
    tx.exec("CREATE TABLE t (u uuid PRIMARY KEY DEFAULT gen_uuidv7(), n base62_64 UNIQUE, b base62_128 UNIQUE)");
    tx.exec(
        "INSERT INTO t (n, b) SELECT (g::bigint * 104729)::base62_64, gen_random_uuid()::base62_128 FROM "
        "generate_series(1, 50000) g");
    for (const char* idx : {"t_pkey", "t_n_key", "t_b_key"})
        EXPECT_NO_THROW(tx.exec("SELECT bt_index_parent_check('" + std::string(idx) + "', true)")) << idx;
}

// Under "C" the text sorts as the IDs; a linguistic collation folds case ('a' before 'B', though
// 'a' is 36 and 'B' is 11), so it does not. The types have no collation and sort as numbers.
TEST(Base62Copy, CollationOfTheText) {
    idgen::it::ScratchDb db("it_base62_collation");
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    EXPECT_EQ(tx.exec1("SELECT '0000000000B' COLLATE \"C\" < '0000000000a' COLLATE \"C\" "
                       "AND '0000000000B'::base62_64 < '0000000000a'::base62_64")
                  .at(0)
                  .as<bool>(),
              true);
    const auto icu = tx.exec("SELECT collname FROM pg_collation WHERE collname = 'und-x-icu'");
    if (icu.empty()) GTEST_SKIP() << "this server has no ICU collation";
    EXPECT_EQ(
        tx.exec1("SELECT '0000000000a' COLLATE \"und-x-icu\" < '0000000000B' COLLATE \"und-x-icu\"").at(0).as<bool>(),
        true);
    // Over random IDs the ICU order of the text disagrees with the ID order, the C order never does.
    EXPECT_EQ(tx.exec1("WITH p AS (SELECT gen_random_uuid() a, gen_random_uuid() b FROM generate_series(1, 2000)) "
                       "SELECT bool_and((a < b) = (base62_encode(a) COLLATE \"C\" < base62_encode(b) COLLATE \"C\")) "
                       "AND NOT bool_and((a < b) = (base62_encode(a) COLLATE \"und-x-icu\" < base62_encode(b) COLLATE "
                       "\"und-x-icu\")) FROM p")
                  .at(0)
                  .as<bool>(),
              true);
}

// PostgreSQL 16 and later: core's pg_input_is_valid() and pg_input_error_info() get the soft
// errors of the input functions (22P02 for a wrong length, 22003 above the range), no raise.
TEST(Base62Copy, CoreSoftErrorFunctions) {
    idgen::it::ScratchDb db("it_base62_soft");
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    if (tx.exec1("SELECT current_setting('server_version_num')::int").at(0).as<int>() < 160000)
        GTEST_SKIP() << "pg_input_is_valid() is new in PostgreSQL 16";
    const auto r = tx.exec1(
        "SELECT pg_input_is_valid('AzL8n0Y58m7', 'base62_64'), pg_input_is_valid('1', 'base62_64'), "
        "(pg_input_error_info('1', 'base62_64')).sql_error_code, "
        "(pg_input_error_info('AzL8n0Y58m8', 'base62_64')).sql_error_code, "
        "(pg_input_error_info('7n42DGM5Tflk9n8mt7Fhc8', 'base62_128')).sql_error_code, "
        "(pg_input_error_info('7n42DGM5Tflk9n8mt7Fhc', 'base62_128')).message");
    EXPECT_TRUE(r.at(0).as<bool>());
    EXPECT_FALSE(r.at(1).as<bool>());
    EXPECT_EQ(r.at(2).as<std::string>(), "22P02");
    EXPECT_EQ(r.at(3).as<std::string>(), "22003");
    EXPECT_EQ(r.at(4).as<std::string>(), "22003");
    EXPECT_EQ(r.at(5).as<std::string>(), "invalid input syntax for type base62_128: \"7n42DGM5Tflk9n8mt7Fhc\"");
}

}  // namespace
