// objectid over the wire and across processes: COPY round trips (text, csv, binary) and what binary
// COPY refuses, many backends generating at once with no duplicate, backends forked from one
// postmaster (preloading id_gen, and not) each with their own 5-byte random value, parallel workers
// likewise, amcheck on a btree index, and pg_dump -Fc -> pg_restore into an empty database.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <pqxx/pqxx>
#include <set>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include "common.h"

namespace {

using idgen::it::env_or;

std::string conn_args() {
    return " -h '" + env_or("PGHOST", "/tmp") + "' -p " + env_or("PGPORT", "5432") + " -U " +
           env_or("PGUSER", "postgres");
}

// hex text of an objectid -> (random value, counter, seconds)
struct Parts {
    std::string random;
    unsigned long counter;
    unsigned long seconds;
};
Parts parts(const std::string& hex) {
    return {hex.substr(8, 10), std::stoul(hex.substr(18, 6), nullptr, 16), std::stoul(hex.substr(0, 8), nullptr, 16)};
}

TEST(ObjectIdCopy, TextCsvAndBinaryRoundTrip) {
    idgen::it::ScratchDb db("it_objectid_copy");
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    tx.exec("CREATE TABLE src (id objectid, ids objectid[], doc jsonb)");
    tx.exec(
        "INSERT INTO src SELECT CASE g WHEN 1 THEN '000000000000000000000000'::objectid "
        "WHEN 2 THEN 'ffffffffffffffffffffffff' WHEN 3 THEN '56e1fc72e0c917e9c4714161' ELSE gen_objectid() END, "
        "ARRAY[gen_objectid(), gen_objectid(timestamptz '2020-01-01' + g * interval '1 hour')], "
        "jsonb_build_object('_id', gen_objectid()) FROM generate_series(1, 3000) g");
    const std::string digest =
        "SELECT md5(string_agg(id::bytea::text || ids::text || doc::text, ',' ORDER BY id, ids)) FROM ";
    const std::string want = tx.exec1(digest + "src").at(0).c_str();
    const std::string base = "/tmp/idgen_it_objectid_" + std::to_string(getpid());
    for (const char* format : {"text", "binary", "csv"}) {
        const std::string file = base + "." + format;
        tx.exec("CREATE TABLE dst_" + std::string(format) + " (LIKE src)");
        tx.exec("COPY src TO '" + file + "' WITH (FORMAT " + format + ")");
        tx.exec("COPY dst_" + std::string(format) + " FROM '" + file + "' WITH (FORMAT " + format + ")");
        EXPECT_EQ(tx.exec1(digest + "dst_" + format).at(0).c_str(), want) << format;
        EXPECT_EQ(
            tx.exec1("SELECT count(*) FROM src s JOIN dst_" + std::string(format) +
                     " d ON d.id = s.id AND d.ids = s.ids AND (d.doc -> '_id')::objectid = (s.doc -> '_id')::objectid")
                .at(0)
                .as<long>(),
            3000)
            << format;
    }
    // The binary form is the 12 bytes, exactly: a 12-byte bytea field reads as an objectid.
    tx.exec("COPY (SELECT '\\x56e1fc72e0c917e9c4714161'::bytea) TO '" + base + ".b12' WITH (FORMAT binary)");
    tx.exec("CREATE TABLE one (id objectid)");
    tx.exec("COPY one FROM '" + base + ".b12' WITH (FORMAT binary)");
    EXPECT_EQ(tx.exec1("SELECT id::text FROM one").at(0).as<std::string>(), "56e1fc72e0c917e9c4714161");
    // Shorter (the BSON corpus's truncated 10 bytes) and longer fields are refused, nothing stored.
    // (The SQLSTATE is read inside the server: libpqxx 6.4 turns class 08 into a connection error.)
    tx.exec(
        "CREATE FUNCTION pg_temp.sqlstate_of(q text) RETURNS text LANGUAGE plpgsql AS "
        "$f$ BEGIN EXECUTE q; RETURN 'accepted'; EXCEPTION WHEN others THEN RETURN SQLSTATE; END $f$");
    for (const char* bytes : {"56e1fc72e0c917e9c471", "56e1fc72e0c917e9c471416100"}) {
        const std::string file = base + ".bad";
        tx.exec("COPY (SELECT '\\x" + std::string(bytes) + "'::bytea) TO '" + file + "' WITH (FORMAT binary)");
        const std::string state = tx.exec1("SELECT pg_temp.sqlstate_of(" +
                                           tx.quote("COPY one FROM '" + file + "' WITH (FORMAT binary)") + ")")
                                      .at(0)
                                      .as<std::string>();
        // 08P01: fewer than 12 bytes left in the field; 22P03: bytes left over after 12.
        EXPECT_EQ(state, std::string(bytes).size() < 24 ? "08P01" : "22P03") << bytes;
        std::remove(file.c_str());
    }
    EXPECT_EQ(tx.exec1("SELECT count(*) FROM one").at(0).as<long>(), 1);
    // A text COPY of a malformed value is refused with 22P02.
    tx.exec("COPY (SELECT '56e1fc72e0c917e9c471416') TO '" + base + ".short' WITH (FORMAT text)");
    try {
        tx.exec("COPY one FROM '" + base + ".short' WITH (FORMAT text)");
        ADD_FAILURE() << "a 23-character objectid accepted through text COPY";
    } catch (const pqxx::sql_error& e) {
        EXPECT_EQ(e.sqlstate(), "22P02") << e.what();
        EXPECT_NE(std::string(e.what()).find("56e1fc72e0c917e9c471416"), std::string::npos) << e.what();
    }
    for (const char* ext : {".text", ".binary", ".csv", ".b12", ".short"}) std::remove((base + ext).c_str());
}

// Eight backends generate 20,000 IDs each at once: no duplicate anywhere; in each backend one
// random value, the counter stepping by one, the time never going back; no two backends share a
// random value.
TEST(ObjectIdConcurrency, NoDuplicateAcrossBackends) {
    constexpr int kConns = 8, kPer = 20000;
    idgen::it::ScratchDb db("it_objectid_concurrency");
    std::vector<std::vector<std::string>> ids(kConns);
    std::vector<std::string> errors(kConns);
    std::vector<std::thread> threads;
    for (int c = 0; c < kConns; ++c) {
        threads.emplace_back([&, c] {
            try {
                pqxx::connection conn(db.dsn());
                pqxx::nontransaction tx(conn);
                auto r = tx.exec("SELECT gen_objectid()::text FROM generate_series(1, " + std::to_string(kPer) +
                                 ") WITH ORDINALITY AS g(v, n) ORDER BY n");
                for (const auto& row : r) ids[c].push_back(row[0].as<std::string>());
            } catch (const std::exception& e) {
                errors[c] = e.what();
            }
        });
    }
    for (auto& t : threads) t.join();
    std::set<std::string> all, randoms;
    for (int c = 0; c < kConns; ++c) {
        ASSERT_EQ(errors[c], "") << "connection " << c;
        ASSERT_EQ(ids[c].size(), static_cast<std::size_t>(kPer));
        const Parts first = parts(ids[c][0]);
        randoms.insert(first.random);
        for (std::size_t i = 1; i < ids[c].size(); ++i) {
            const Parts p = parts(ids[c][i]), q = parts(ids[c][i - 1]);
            ASSERT_EQ(p.random, first.random) << "connection " << c << " at " << i;
            ASSERT_EQ(p.counter, (q.counter + 1) % (1u << 24)) << "connection " << c << " at " << i;
            ASSERT_GE(p.seconds, q.seconds) << "connection " << c << " at " << i;
        }
        all.insert(ids[c].begin(), ids[c].end());
    }
    EXPECT_EQ(all.size(), static_cast<std::size_t>(kConns * kPer));
    EXPECT_EQ(randoms.size(), static_cast<std::size_t>(kConns));
}

// The ObjectId spec's fork test: every backend is forked from the postmaster, which (on the main
// test cluster) has id_gen preloaded; none may inherit a random value, so 24 backends in turn have
// 24 different ones, and a backend keeps its own across calls. The same on the cluster that does
// not preload the library.
TEST(ObjectIdFork, BackendsForkedFromOnePostmasterDrawTheirOwnRandomValue) {
    struct Server {
        std::string host, port, label;
    };
    const std::vector<Server> servers = {
        {env_or("PGHOST", "/tmp"), env_or("PGPORT", "5432"), "preloaded"},
        {env_or("IDGEN_NOPRELOAD_PGHOST", ""), env_or("IDGEN_NOPRELOAD_PGPORT", ""), "not preloaded"}};
    for (const auto& s : servers) {
        if (s.host.empty()) continue;
        const std::string base =
            "host=" + s.host + " port=" + s.port + " user=" + env_or("PGUSER", "postgres") + " dbname=";
        const std::string dsn = base + "it_objectid_fork";
        const auto admin = [&](const std::string& sql) {
            pqxx::connection c(base + "postgres");
            pqxx::nontransaction tx(c);
            tx.exec(sql);
        };
        admin("DROP DATABASE IF EXISTS it_objectid_fork WITH (FORCE)");
        admin("CREATE DATABASE it_objectid_fork");
        {
            pqxx::connection c(dsn);
            pqxx::nontransaction tx(c);
            tx.exec("CREATE EXTENSION id_gen");
        }
        std::map<std::string, int> by_random;
        std::set<int> pids;
        for (int i = 0; i < 24; ++i) {
            pqxx::connection c(dsn);
            pqxx::nontransaction tx(c);
            auto r = tx.exec1(
                "SELECT pg_backend_pid(), a::text, b::text FROM (SELECT gen_objectid() AS a) x, "
                "LATERAL (SELECT gen_objectid() AS b WHERE a IS NOT NULL) y");
            pids.insert(r[0].as<int>());
            const Parts a = parts(r[1].as<std::string>()), b = parts(r[2].as<std::string>());
            EXPECT_EQ(a.random, b.random) << s.label << ": a backend changed its random value";
            EXPECT_EQ(b.counter, (a.counter + 1) % (1u << 24)) << s.label;
            ++by_random[a.random];
        }
        EXPECT_EQ(pids.size(), 24u) << s.label;
        EXPECT_EQ(by_random.size(), 24u) << s.label << ": two backends shared a random value";
        admin("DROP DATABASE IF EXISTS it_objectid_fork WITH (FORCE)");
    }
}

// Parallel workers are processes of their own (forked from the postmaster too): IDs made in them
// and in the leader are all distinct, and each process has its own random value.
TEST(ObjectIdFork, ParallelWorkersMakeDistinctIds) {
    idgen::it::ScratchDb db("it_objectid_parallel");
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    tx.exec("CREATE TABLE big AS SELECT g FROM generate_series(1, 300000) g");
    tx.exec("ANALYZE big");
    tx.exec("SET parallel_setup_cost = 0");
    tx.exec("SET parallel_tuple_cost = 0");
    tx.exec("SET min_parallel_table_scan_size = 0");
    tx.exec("SET max_parallel_workers_per_gather = 2");
    tx.exec("SET parallel_leader_participation = on");
    const std::string q = "SELECT gen_objectid() AS x FROM big";
    const std::string plan = tx.exec1("EXPLAIN (FORMAT JSON, COSTS OFF) " + q).at(0).as<std::string>();
    EXPECT_NE(plan.find("Gather"), std::string::npos) << plan;
    auto r = tx.exec1("SELECT count(*), count(DISTINCT x), count(DISTINCT substr(x::bytea, 5, 5)) FROM (" + q + ") s");
    EXPECT_EQ(r[0].as<long>(), 300000);
    EXPECT_EQ(r[1].as<long>(), 300000);
    EXPECT_GE(r[2].as<long>(), 1);
    // Per random value (per process), the counters are distinct.
    EXPECT_EQ(tx.exec1("SELECT count(*) FROM (SELECT substr(x::bytea, 5, 5) r, substr(x::bytea, 10, 3) k FROM (" + q +
                       ") s GROUP BY 1, 2 HAVING count(*) > 1) d")
                  .at(0)
                  .as<long>(),
              0);
}

TEST(ObjectIdIndex, AmcheckOnBtree) {
    idgen::it::ScratchDb db("it_objectid_amcheck");
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    tx.exec("CREATE EXTENSION IF NOT EXISTS amcheck");
    tx.exec("CREATE TABLE t (id objectid PRIMARY KEY DEFAULT gen_objectid(), r objectid UNIQUE, n int)");
    tx.exec(
        "INSERT INTO t (r, n) SELECT substr(replace(gen_random_uuid()::text, '-', ''), 1, 24)::objectid, g "
        "FROM generate_series(1, 50000) g");
    tx.exec("DELETE FROM t WHERE n % 3 = 0");
    tx.exec(
        "INSERT INTO t (r, n) SELECT objectid_lower(timestamptz '2001-01-01' + g * interval '1 minute'), g "
        "FROM generate_series(1, 20000) g");
    for (const char* idx : {"t_pkey", "t_r_key"}) {
        EXPECT_NO_THROW(tx.exec("SELECT bt_index_check('" + std::string(idx) + "', true)")) << idx;
        EXPECT_NO_THROW(tx.exec("SELECT bt_index_parent_check('" + std::string(idx) + "', true)")) << idx;
    }
}

// pg_dump -Fc of a database using objectid (generator default, hash and BRIN indexes, an array,
// a jsonb column of Extended JSON, a view over objectid_time) restores into an empty database.
TEST(ObjectIdDump, DumpAndRestore) {
    idgen::it::ScratchDb src("it_objectid_dump_src");
    const std::string dst_name = "it_objectid_dump_dst";
    {
        pqxx::connection admin(idgen::it::dsn());
        pqxx::nontransaction tx(admin);
        tx.exec("DROP DATABASE IF EXISTS " + dst_name + " WITH (FORCE)");
        tx.exec("CREATE DATABASE " + dst_name);
    }
    const std::string fp =
        "SELECT count(*)::text || '|' || md5(string_agg(id::bytea::text || '|' || n || '|' || coalesce(related::text, "
        "'-') || '|' || "
        "doc::text || '|' || ts::text, ',' ORDER BY id)) FROM t JOIN v USING (id)";
    const std::string defaults = "SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef WHERE adrelid = 't'::regclass";
    std::string before;
    {
        pqxx::connection c(src.dsn());
        pqxx::work tx(c);
        tx.exec(
            "CREATE TABLE t (id objectid PRIMARY KEY DEFAULT gen_objectid(), n int, related objectid[], doc jsonb)");
        tx.exec(
            "INSERT INTO t (id, n) SELECT gen_objectid(timestamptz '2020-01-01 00:00:00+00' + g * interval '7 "
            "seconds'), g "
            "FROM generate_series(1, 20000) g");
        tx.exec("INSERT INTO t (n) SELECT g FROM generate_series(20001, 40000) g");
        tx.exec("INSERT INTO t (id, n) VALUES ('000000000000000000000000', 0), ('ffffffffffffffffffffffff', -1)");
        tx.exec(
            "UPDATE t SET related = ARRAY[id, '56e1fc72e0c917e9c4714161'::objectid], doc = jsonb_build_object('_id', "
            "id) "
            "WHERE n % 10 = 0");
        tx.exec("CREATE INDEX t_hash ON t USING hash (id)");
        tx.exec("CREATE INDEX t_brin ON t USING brin (id)");
        tx.exec("CREATE VIEW v AS SELECT id, objectid_time(id) AS ts FROM t");
        tx.commit();
        pqxx::work r(c);
        r.exec("SET TimeZone = 'UTC'");
        before = r.exec1(fp).at(0).as<std::string>();
    }
    const std::string file = env_or("IDGEN_WORK", "/tmp") + "/it_objectid_dump.custom";
    ASSERT_EQ(idgen::it::run_pg_tool("pg_dump", "-Fc" + conn_args() + " -f '" + file + "' " + src.name()), 0);
    ASSERT_EQ(
        idgen::it::run_pg_tool("pg_restore", "--exit-on-error" + conn_args() + " -d " + dst_name + " '" + file + "'"),
        0);
    std::remove(file.c_str());
    {
        pqxx::connection c(idgen::it::dsn(dst_name));
        pqxx::work tx(c);
        tx.exec("SET TimeZone = 'UTC'");
        EXPECT_EQ(tx.exec1(fp).at(0).as<std::string>(), before);
        EXPECT_EQ(before.substr(0, 6), "40002|");
        EXPECT_EQ(tx.exec1(defaults).at(0).as<std::string>(), "gen_objectid()");
        EXPECT_EQ(
            tx.exec1("SELECT string_agg(c.relname || ':' || am.amname || ':' || i.indisvalid, ',' ORDER BY c.relname) "
                     "FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam "
                     "WHERE i.indrelid = 't'::regclass")
                .at(0)
                .as<std::string>(),
            "t_brin:brin:true,t_hash:hash:true,t_pkey:btree:true");
        // The restored table keeps generating: the default works and its IDs are new.
        tx.exec("INSERT INTO t (n) SELECT g FROM generate_series(1, 1000) g");
        EXPECT_EQ(tx.exec1("SELECT count(DISTINCT id) FROM t").at(0).as<long>(), 41002);
        tx.exec("SET enable_seqscan = off");
        EXPECT_EQ(tx.exec("SELECT n FROM t WHERE id = '56e1fc72e0c917e9c4714161'::objectid").size(), 0u);
        EXPECT_EQ(tx.exec1("SELECT count(*) FROM t WHERE id BETWEEN objectid_lower('2020-01-01 00:00:00+00') AND "
                           "objectid_upper('2020-01-01 00:01:00+00')")
                      .at(0)
                      .as<long>(),
                  8);
    }
    pqxx::connection admin(idgen::it::dsn());
    pqxx::nontransaction tx(admin);
    tx.exec("DROP DATABASE IF EXISTS " + dst_name + " WITH (FORCE)");
}

// Soft input errors through every caller the server has: id_gen_input_error_info() everywhere,
// core's pg_input_error_info() from 16, and COPY ... (ON_ERROR ignore) from 17, which skips rows
// whose objectid does not parse instead of failing the load.
TEST(ObjectIdSoftErrors, CallersCheckWithoutRaising) {
    idgen::it::ScratchDb db("it_objectid_soft");
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    const int version = tx.exec1("SHOW server_version_num").at(0).as<int>();
    auto r =
        tx.exec1("SELECT sql_error_code, message FROM id_gen_input_error_info('56e1fc72e0c917e9c471416', 'objectid')");
    EXPECT_EQ(r[0].as<std::string>(), "22P02");
    EXPECT_EQ(r[1].as<std::string>(), "invalid input syntax for type objectid: \"56e1fc72e0c917e9c471416\"");
    if (version >= 160000) {
        auto core = tx.exec1(
            "SELECT sql_error_code, pg_input_is_valid('56E1FC72E0C917E9C4714161', 'objectid') "
            "FROM pg_input_error_info('zz', 'objectid')");
        EXPECT_EQ(core[0].as<std::string>(), "22P02");
        EXPECT_TRUE(core[1].as<bool>());
    }
    if (version >= 170000) {
        const std::string file = "/tmp/idgen_it_objectid_soft_" + std::to_string(getpid()) + ".txt";
        tx.exec(
            "COPY (VALUES ('56e1fc72e0c917e9c4714161'), ('56e1fc72e0c917e9c471416'), ('zz'), "
            "('FFFFFFFFFFFFFFFFFFFFFFFF')) TO '" +
            file + "'");
        tx.exec("CREATE TABLE t (id objectid)");
        tx.exec("COPY t FROM '" + file + "' WITH (ON_ERROR ignore)");
        std::remove(file.c_str());
        EXPECT_EQ(tx.exec1("SELECT string_agg(id::text, ',' ORDER BY id) FROM t").at(0).as<std::string>(),
                  "56e1fc72e0c917e9c4714161,ffffffffffffffffffffffff");
    }
}

}  // namespace
