// rsxid (rs/xid) against an independent implementation and across processes: 100,000 values made by
// gen_xid() read by the npm package `xid-ts` (a port of rs/xid) field by field, 100,000 made by the
// package read by the extension, order by value = order by time for values a second apart, the
// machine ID (the server's, stable across a restart), the process ID (the backend's), counters
// per backend (backends and parallel workers forked from one postmaster draw their own start) and
// no duplicate across backends.
#include <gtest/gtest.h>

#include <map>
#include <pqxx/pqxx>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common.h"
#include "npm_oracle.h"

namespace {

using idgen::it::env_or;
constexpr int kOracleRows = 100000;

const std::string kFields =
    "x::text || ' ' || encode(x::bytea, 'hex') || ' ' || extract(epoch FROM xid_time(x))::bigint || ' ' || "
    "xid_machine(x) || ' ' || xid_pid(x) || ' ' || xid_counter(x)";

TEST(XidOracle, ExtensionValuesReadByXidTs) {
    idgen::it::ScratchDb db("it_xid_to_npm");
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    // Half from gen_xid(), half arbitrary 12 bytes (every field takes every kind of value).
    const std::string lines =
        tx.exec1("SELECT string_agg(" + kFields +
                 ", E'\\n') || E'\\n' FROM (SELECT CASE WHEN g % 2 = 0 THEN gen_xid() "
                 "ELSE rsxid(decode(substr(md5(g::text || random()::text), 1, 24), 'hex')) END AS x "
                 "FROM generate_series(1, " +
                 std::to_string(kOracleRows) + ") g) s")
            .at(0)
            .as<std::string>();
    ASSERT_EQ(idgen::it::count_lines(lines), static_cast<std::size_t>(kOracleRows));
    idgen::it::TempFile file("xid_to_npm");
    file.write(lines);
    EXPECT_EQ(idgen::it::run_oracle("xid.cjs", "check '" + file.path() + "'"),
              "ok " + std::to_string(kOracleRows) + "\n");
}

TEST(XidOracle, XidTsValuesReadByExtension) {
    idgen::it::ScratchDb db("it_xid_from_npm");
    const std::string lines = idgen::it::run_oracle("xid.cjs", "generate " + std::to_string(kOracleRows));
    ASSERT_EQ(idgen::it::count_lines(lines), static_cast<std::size_t>(kOracleRows));
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    tx.exec_params(
        "CREATE TABLE npm AS SELECT l, split_part(l, ' ', 1) AS txt, decode(split_part(l, ' ', 2), 'hex') AS raw, "
        "split_part(l, ' ', 3)::bigint AS secs FROM string_to_table($1, E'\\n') l WHERE l <> ''",
        lines);
    auto r = tx.exec1(
        "SELECT count(*), "
        "count(*) FILTER (WHERE (SELECT " +
        kFields +
        " FROM (SELECT txt::rsxid AS x) y) <> l), "
        "count(*) FILTER (WHERE rsxid(raw)::text <> txt), "
        "count(*) FILTER (WHERE txt::rsxid::timestamptz <> to_timestamp(secs)), "
        "count(*) FILTER (WHERE txt::rsxid NOT BETWEEN xid_lower(to_timestamp(secs)) AND "
        "xid_upper(to_timestamp(secs))), "
        "count(*) FILTER (WHERE txt::rsxid::objectid::bytea <> raw) "
        "FROM npm");
    EXPECT_EQ(r[0].as<long>(), kOracleRows);
    for (int i = 1; i <= 5; ++i) EXPECT_EQ(r[i].as<long>(), 0) << "check " << i;
    auto o = tx.exec1(
        "SELECT count(*) FILTER (WHERE prev_secs > secs), count(*) FILTER (WHERE prev_txt > txt COLLATE \"C\") FROM ("
        "SELECT secs, txt, lag(secs) OVER w AS prev_secs, lag(txt) OVER w AS prev_txt FROM npm "
        "WINDOW w AS (ORDER BY txt::rsxid)) s");
    EXPECT_EQ(o[0].as<long>(), 0);
    EXPECT_EQ(o[1].as<long>(), 0);
}

struct Made {
    int pid;
    std::string machine;
    std::vector<std::string> hex;  // bytes as hex, in the order made
};

TEST(XidConcurrency, NoDuplicateAcrossBackendsEachWithItsPidAndAscending) {
    constexpr int kConns = 6, kPer = 20000;
    idgen::it::ScratchDb db("it_xid_concurrency");
    std::vector<Made> made(kConns);
    std::vector<std::string> errors(kConns);
    std::vector<std::thread> threads;
    for (int c = 0; c < kConns; ++c) {
        threads.emplace_back([&, c] {
            try {
                pqxx::connection conn(db.dsn());
                pqxx::nontransaction tx(conn);
                made[c].pid = tx.exec1("SELECT pg_backend_pid()").at(0).as<int>();
                made[c].machine = tx.exec1("SELECT xid_server_machine()").at(0).as<std::string>();
                auto r = tx.exec(
                    "SELECT encode(x::bytea, 'hex'), xid_pid(x), xid_machine(x) FROM (SELECT gen_xid() AS x, n "
                    "FROM generate_series(1, " +
                    std::to_string(kPer) + ") WITH ORDINALITY AS g(v, n)) s ORDER BY n");
                for (const auto& row : r) {
                    made[c].hex.push_back(row[0].as<std::string>());
                    if (row[1].as<int>() != (made[c].pid & 0xFFFF))
                        throw std::runtime_error("pid field is not the backend's");
                    if (row[2].as<std::string>() != made[c].machine)
                        throw std::runtime_error("machine field is not the server's");
                }
            } catch (const std::exception& e) {
                errors[c] = e.what();
            }
        });
    }
    for (auto& t : threads) t.join();
    std::set<std::string> all;
    for (int c = 0; c < kConns; ++c) {
        ASSERT_EQ(errors[c], "") << "connection " << c;
        ASSERT_EQ(made[c].hex.size(), static_cast<std::size_t>(kPer));
        for (std::size_t i = 1; i < made[c].hex.size(); ++i)
            ASSERT_LT(made[c].hex[i - 1], made[c].hex[i]) << "connection " << c << " at " << i;
        all.insert(made[c].hex.begin(), made[c].hex.end());
    }
    EXPECT_EQ(all.size(), static_cast<std::size_t>(kConns * kPer));
}

// Every backend is forked from the postmaster (preloading id_gen, and not): each draws its own
// counter start, none inherits one. 24 backends in turn: the starts are 24 random 24-bit values,
// so a repeat has probability about 2e-5.
TEST(XidFork, BackendsDrawTheirOwnCounterStartAndShareTheMachine) {
    const std::vector<std::pair<std::string, std::string>> servers = {
        {env_or("PGHOST", "/tmp"), env_or("PGPORT", "5432")},
        {env_or("IDGEN_NOPRELOAD_PGHOST", ""), env_or("IDGEN_NOPRELOAD_PGPORT", "")}};
    std::set<std::string> machines;
    for (const auto& [host, port] : servers) {
        if (host.empty()) continue;
        const std::string base =
            "host=" + host + " port=" + port + " user=" + env_or("PGUSER", "postgres") + " dbname=";
        {
            pqxx::connection c(base + "postgres");
            pqxx::nontransaction tx(c);
            tx.exec("DROP DATABASE IF EXISTS it_xid_fork WITH (FORCE)");
            tx.exec("CREATE DATABASE it_xid_fork");
        }
        {
            pqxx::connection c(base + "it_xid_fork");
            pqxx::nontransaction tx(c);
            tx.exec("CREATE EXTENSION id_gen");
        }
        std::set<long> starts;
        std::set<std::string> server_machine;
        for (int i = 0; i < 24; ++i) {
            pqxx::connection c(base + "it_xid_fork");
            pqxx::nontransaction tx(c);
            auto r = tx.exec1(
                "SELECT xid_counter(a), xid_counter(b), xid_machine(a), xid_pid(a), pg_backend_pid() & 65535, "
                "encode(system_identifier::text::bytea, 'hex') FROM (SELECT gen_xid() AS a) x, "
                "LATERAL (SELECT gen_xid() AS b WHERE a IS NOT NULL) y, pg_control_system()");
            starts.insert(r[0].as<long>());
            EXPECT_EQ(r[1].as<long>(), (r[0].as<long>() + 1) % (1L << 24));
            EXPECT_EQ(r[3].as<long>(), r[4].as<long>());
            server_machine.insert(r[2].as<std::string>());
        }
        EXPECT_EQ(starts.size(), 24u) << host << ": two backends shared a counter start";
        EXPECT_EQ(server_machine.size(), 1u) << host;
        machines.insert(server_machine.begin(), server_machine.end());
        pqxx::connection c(base + "postgres");
        pqxx::nontransaction tx(c);
        tx.exec("DROP DATABASE IF EXISTS it_xid_fork WITH (FORCE)");
    }
    // Two clusters made by two initdb runs: two system identifiers, two machine IDs.
    if (!env_or("IDGEN_NOPRELOAD_PGHOST", "").empty()) {
        EXPECT_EQ(machines.size(), 2u);
    }
}

// gen_xid() is PARALLEL RESTRICTED: in a parallel scan the workers scan and the session's backend
// makes every xid, so all of them carry its process ID (and are distinct).
TEST(XidFork, ParallelScanMakesDistinctIdsInTheSessionsBackend) {
    idgen::it::ScratchDb db("it_xid_parallel");
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    tx.exec("CREATE TABLE big AS SELECT g FROM generate_series(1, 300000) g");
    tx.exec("ANALYZE big");
    tx.exec("SET parallel_setup_cost = 0");
    tx.exec("SET parallel_tuple_cost = 0");
    tx.exec("SET min_parallel_table_scan_size = 0");
    tx.exec("SET max_parallel_workers_per_gather = 2");
    const std::string q = "SELECT gen_xid() AS x FROM big";
    EXPECT_NE(tx.exec1("EXPLAIN (FORMAT JSON, COSTS OFF) " + q).at(0).as<std::string>().find("Gather"),
              std::string::npos);
    auto r = tx.exec1("SELECT count(*), count(DISTINCT x), count(DISTINCT xid_pid(x)) FROM (" + q + ") s");
    EXPECT_EQ(r[0].as<long>(), 300000);
    EXPECT_EQ(r[1].as<long>(), 300000);
    EXPECT_EQ(r[2].as<long>(), 1);
    EXPECT_TRUE(tx.exec1("SELECT bool_and(xid_pid(x) = pg_backend_pid() % 65536) FROM (" + q + ") s").at(0).as<bool>());
}

// The machine ID comes from the system identifier, which a restart keeps.
TEST(XidRestart, MachineIdSurvivesARestart) {
    idgen::it::ScratchDb db("it_xid_restart");
    const auto machine = [&] {
        pqxx::connection c(db.dsn());
        pqxx::nontransaction tx(c);
        return tx.exec1("SELECT xid_machine(gen_xid())").at(0).as<long>();
    };
    const long before = machine();
    ASSERT_EQ(idgen::it::pg_ctl("restart"), 0);
    EXPECT_EQ(machine(), before);
}

}  // namespace
