// ksuid against an independent implementation and across processes: 100,000 values made by the
// extension parsed by the npm package `ksuid` (bytes, time and text agree), 100,000 made by the
// package parsed by the extension, order by value = order by time for values a second apart, many
// backends generating at once with no duplicate and increasing values per backend, binary COPY,
// and amcheck on a btree index.
#include <gtest/gtest.h>

#include <pqxx/pqxx>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common.h"
#include "npm_oracle.h"

namespace {

constexpr int kOracleRows = 100000;

TEST(KsuidOracle, ExtensionValuesReadByNpmKsuid) {
    idgen::it::ScratchDb db("it_ksuid_to_npm");
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    // Half from gen_ksuid() (now, one backend's ascending run), half from gen_ksuid(t) at random
    // seconds over the whole range, with the two ends.
    const std::string lines =
        tx.exec1(
              "SELECT string_agg(k::text || ' ' || encode(k::bytea, 'hex') || ' ' || extract(epoch FROM "
              "ksuid_time(k))::bigint, "
              "E'\\n') || E'\\n' FROM (SELECT CASE WHEN g = 1 THEN gen_ksuid(timestamptz '2014-05-13 16:53:20+00') "
              "WHEN g = 2 THEN gen_ksuid(timestamptz '2150-06-19 23:21:35.999+00') WHEN g % 2 = 0 THEN gen_ksuid() "
              "ELSE gen_ksuid(to_timestamp(1400000000 + floor(random() * 4294967296))) END AS k "
              "FROM generate_series(1, " +
              std::to_string(kOracleRows) + ") g) s")
            .at(0)
            .as<std::string>();
    ASSERT_EQ(idgen::it::count_lines(lines), static_cast<std::size_t>(kOracleRows));
    idgen::it::TempFile file("ksuid_to_npm");
    file.write(lines);
    const std::string out = idgen::it::run_oracle("ksuid.cjs", "check '" + file.path() + "'");
    EXPECT_EQ(out, "ok " + std::to_string(kOracleRows) + "\n");
}

TEST(KsuidOracle, NpmKsuidValuesReadByExtension) {
    idgen::it::ScratchDb db("it_ksuid_from_npm");
    const std::string lines = idgen::it::run_oracle("ksuid.cjs", "generate " + std::to_string(kOracleRows));
    ASSERT_EQ(idgen::it::count_lines(lines), static_cast<std::size_t>(kOracleRows));
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    tx.exec_params(
        "CREATE TABLE npm AS SELECT split_part(l, ' ', 1) AS txt, decode(split_part(l, ' ', 2), 'hex') AS raw, "
        "split_part(l, ' ', 3)::bigint AS secs FROM string_to_table($1, E'\\n') l WHERE l <> ''",
        lines);
    auto r = tx.exec1(
        "SELECT count(*), "
        "count(*) FILTER (WHERE txt::ksuid::bytea <> raw), "
        "count(*) FILTER (WHERE ksuid(raw)::text <> txt), "
        "count(*) FILTER (WHERE ksuid_time(txt::ksuid) <> to_timestamp(secs)), "
        "count(*) FILTER (WHERE txt::ksuid::timestamptz <> to_timestamp(secs)), "
        "count(*) FILTER (WHERE txt::ksuid NOT BETWEEN ksuid_lower(to_timestamp(secs)) AND "
        "ksuid_upper(to_timestamp(secs))) "
        "FROM npm");
    EXPECT_EQ(r[0].as<long>(), kOracleRows);
    for (int i = 1; i <= 5; ++i) EXPECT_EQ(r[i].as<long>(), 0) << "check " << i;
    // Values of different seconds: order by value = order by time = text order under "C".
    auto o = tx.exec1(
        "SELECT count(*) FILTER (WHERE prev_secs > secs), count(*) FILTER (WHERE prev_txt > txt COLLATE \"C\") FROM ("
        "SELECT secs, txt, lag(secs) OVER w AS prev_secs, lag(txt) OVER w AS prev_txt FROM npm "
        "WINDOW w AS (ORDER BY txt::ksuid)) s");
    EXPECT_EQ(o[0].as<long>(), 0);
    EXPECT_EQ(o[1].as<long>(), 0);
}

TEST(KsuidConcurrency, NoDuplicateAcrossBackendsAscendingWithinEach) {
    constexpr int kConns = 6, kPer = 20000;
    idgen::it::ScratchDb db("it_ksuid_concurrency");
    std::vector<std::vector<std::string>> ids(kConns);
    std::vector<std::string> errors(kConns);
    std::vector<std::thread> threads;
    for (int c = 0; c < kConns; ++c) {
        threads.emplace_back([&, c] {
            try {
                pqxx::connection conn(db.dsn());
                pqxx::nontransaction tx(conn);
                // Bytes as hex: hex order is byte order, so string comparison checks the ordering.
                auto r = tx.exec("SELECT encode(gen_ksuid()::bytea, 'hex') FROM generate_series(1, " +
                                 std::to_string(kPer) + ") WITH ORDINALITY AS g(v, n) ORDER BY n");
                for (const auto& row : r) ids[c].push_back(row[0].as<std::string>());
            } catch (const std::exception& e) {
                errors[c] = e.what();
            }
        });
    }
    for (auto& t : threads) t.join();
    std::set<std::string> all;
    for (int c = 0; c < kConns; ++c) {
        ASSERT_EQ(errors[c], "") << "connection " << c;
        ASSERT_EQ(ids[c].size(), static_cast<std::size_t>(kPer));
        for (std::size_t i = 1; i < ids[c].size(); ++i)
            ASSERT_LT(ids[c][i - 1], ids[c][i]) << "connection " << c << " at " << i;
        all.insert(ids[c].begin(), ids[c].end());
    }
    EXPECT_EQ(all.size(), static_cast<std::size_t>(kConns * kPer));
}

TEST(KsuidCopy, BinaryAndTextRoundTripAndAmcheck) {
    idgen::it::ScratchDb db("it_ksuid_copy");
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    tx.exec("CREATE EXTENSION IF NOT EXISTS amcheck");
    tx.exec("CREATE TABLE src (id ksuid PRIMARY KEY, ids ksuid[])");
    tx.exec(
        "INSERT INTO src SELECT CASE g WHEN 1 THEN '000000000000000000000000000'::ksuid "
        "WHEN 2 THEN 'aWgEPTl1tmebfsQzFP4bxwgy80V' ELSE gen_ksuid() END, "
        "ARRAY[gen_ksuid(to_timestamp(1500000000 + g))] FROM generate_series(1, 20000) g");
    const std::string digest = "SELECT md5(string_agg(id::text || ids::text, ',' ORDER BY id)) FROM ";
    const std::string want = tx.exec1(digest + "src").at(0).as<std::string>();
    const std::string base = "/tmp/idgen_it_ksuid_" + std::to_string(getpid());
    for (const std::string format : {"text", "binary"}) {
        const std::string file = base + "." + format;
        tx.exec("CREATE TABLE dst_" + format + " (LIKE src)");
        tx.exec("COPY src TO '" + file + "' WITH (FORMAT " + format + ")");
        tx.exec("COPY dst_" + format + " FROM '" + file + "' WITH (FORMAT " + format + ")");
        std::remove(file.c_str());
        EXPECT_EQ(tx.exec1(digest + "dst_" + format).at(0).as<std::string>(), want) << format;
    }
    tx.exec("SELECT bt_index_check('src_pkey', true)");
    tx.exec("CREATE INDEX src_hash ON src USING hash (id)");
    tx.exec("SET enable_seqscan = off");
    tx.exec("SET enable_bitmapscan = off");
    EXPECT_EQ(tx.exec1("SELECT count(*) FROM src WHERE id = 'aWgEPTl1tmebfsQzFP4bxwgy80V'").at(0).as<long>(), 1);
}

}  // namespace
