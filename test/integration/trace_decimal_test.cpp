// TraceIds and DecimalIds against live servers: many connections at once across two databases with
// zero duplicates, with and without shared_preload_libraries; decoders of what was issued; no
// reissue across a restart; the settings' errors.
//
// The main cluster (PGHOST/PGPORT) preloads id_gen and is node 1, launch 1. The second cluster
// (IDGEN_NOPRELOAD_*) does not preload it and is node 2, launch 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <pqxx/pqxx>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common.h"

namespace {

using idgen::it::env_or;

using idgen::it::Cluster;
using idgen::it::Db;
using idgen::it::exec_admin;
using idgen::it::main_cluster;
using idgen::it::nopreload_cluster;
using idgen::it::pg_ctl;

long long one_int(pqxx::transaction_base& tx, const std::string& q) { return tx.exec(q)[0][0].as<long long>(); }

std::string sqlstate_of(const std::string& dsn, const std::string& sql, std::string* text = nullptr) {
    try {
        pqxx::connection conn(dsn);
        pqxx::nontransaction tx(conn);
        tx.exec("LOAD 'id_gen'");
        tx.exec(sql);
    } catch (const pqxx::sql_error& e) {
        if (text) *text = e.what();
        return e.sqlstate();
    }
    return "";
}

bool wait_for_setting(const Cluster& c, const std::string& setting, const std::string& want) {
    for (int i = 0; i < 100; ++i) {
        pqxx::connection conn(c.dsn());
        pqxx::nontransaction tx(conn);
        tx.exec("LOAD 'id_gen'");
        if (tx.exec("SHOW " + setting)[0][0].as<std::string>() == want) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
}

constexpr std::size_t kPerConnection = 200000;

// Four connections over two databases (every database of a server shares the generators), each
// strictly increasing, none repeated; then the decoders agree with the server's settings.
void no_duplicates(const Cluster& c, const std::string& prefix, const std::string& call) {
    Db a(c, prefix + "_a"), b(c, prefix + "_b");
    const auto ids = idgen::it::generate_in_parallel<long long>(
        {a.dsn(), b.dsn(), a.dsn(), b.dsn()}, idgen::it::series_query(call, "bigint", kPerConnection), kPerConnection);
    // Decode a sample of every connection's IDs on the server.
    std::string list;
    for (const auto& conn_ids : ids)
        for (std::size_t i = 0; i < conn_ids.size(); i += 997)
            list += (list.empty() ? "" : ",") + std::to_string(conn_ids[i]);
    pqxx::connection conn(a.dsn());
    pqxx::nontransaction tx(conn);
    const std::string n = std::to_string(c.number);
    if (call == "gen_trace_id()") {
        auto r = tx.exec("SELECT bool_and(trace_id_node(id) = " + n +
                         "), bool_and(trace_id_is_valid(id, now(), '1 minute')), "
                         "bool_and(trace_id_counter(id) >= 1) FROM unnest('{" +
                         list + "}'::bigint[]) id");
        EXPECT_TRUE(r[0][0].as<bool>()) << "a TraceId of another node";
        EXPECT_TRUE(r[0][1].as<bool>()) << "a TraceId more than a minute from now";
        EXPECT_TRUE(r[0][2].as<bool>());
    } else {
        auto r = tx.exec("SELECT bool_and(decimal_id_launch(id) = " + n +
                         "), count(DISTINCT decimal_id_generator(id)) "
                         "FROM unnest('{" +
                         list + "}'::bigint[]) id");
        EXPECT_TRUE(r[0][0].as<bool>()) << "a DecimalId of another launch";
        EXPECT_EQ(r[0][1].as<long long>(), 1) << "one generator serves the whole server run";
    }
}

TEST(TraceIdConcurrency, Preloaded) { no_duplicates(main_cluster(), "it_trace_pre", "gen_trace_id()"); }
TEST(TraceIdConcurrency, WithoutPreloading) { no_duplicates(nopreload_cluster(), "it_trace_nopre", "gen_trace_id()"); }
TEST(DecimalIdConcurrency, Preloaded) { no_duplicates(main_cluster(), "it_decimal_pre", "gen_decimal_id()"); }
TEST(DecimalIdConcurrency, WithoutPreloading) {
    no_duplicates(nopreload_cluster(), "it_decimal_nopre", "gen_decimal_id()");
}

// A restart: DecimalIds come from a new generator number and repeat none issued before; TraceIds
// are above every earlier one (same period), even with the clock 20 s behind the old one.
void restart(const Cluster& c, const std::string& name) {
    Db db(c, name);
    std::set<long long> decimals;
    long long old_gen = 0, old_trace = 0;
    {
        pqxx::connection conn(db.dsn());
        pqxx::nontransaction tx(conn);
        tx.exec("LOAD 'id_gen'");
        tx.exec("SET id_gen.test_clock_offset = '20s'");
        old_trace = one_int(tx, "SELECT max(gen_trace_id()) FROM generate_series(1, 20000)");
        for (const auto& row : tx.exec("SELECT gen_decimal_id() FROM generate_series(1, 20000)"))
            decimals.insert(row[0].as<long long>());
        old_gen = one_int(tx, "SELECT decimal_id_generator(gen_decimal_id())");
    }
    ASSERT_EQ(decimals.size(), 20000u);
    ASSERT_EQ(pg_ctl(c, "restart"), 0);
    pqxx::connection conn(db.dsn());
    pqxx::nontransaction tx(conn);
    EXPECT_GT(one_int(tx, "SELECT min(gen_trace_id()) FROM generate_series(1, 1000)"), old_trace);
    std::set<long long> gens;
    for (const auto& row : tx.exec("SELECT gen_decimal_id() FROM generate_series(1, 20000)")) {
        const long long id = row[0].as<long long>();
        EXPECT_TRUE(decimals.insert(id).second) << "DecimalId " << id << " issued again after the restart";
        gens.insert(one_int(tx, "SELECT decimal_id_generator(" + std::to_string(id) + ")"));
        if (gens.size() > 1) break;
    }
    ASSERT_EQ(gens.size(), 1u);
    EXPECT_GT(*gens.begin(), old_gen) << "a restart takes a new generator number";
    EXPECT_EQ(tx.exec("SHOW shared_preload_libraries")[0][0].as<std::string>() == "id_gen", c.preloaded);
}

TEST(TraceDecimalRestart, Preloaded) { restart(main_cluster(), "it_td_restart_pre"); }
TEST(TraceDecimalRestart, WithoutPreloading) { restart(nopreload_cluster(), "it_td_restart_nopre"); }

// Settings: an unset node or launch number is an error that says what to set; launch 0 works only
// on a test server (id_gen.enable_test_clock). On the cluster without preloading, whose test flag
// a reload can change.
TEST(TraceDecimalSettings, UnsetAndTestOnlyValues) {
    const Cluster c = nopreload_cluster();
    Db db(c, "it_td_settings");
    exec_admin(c, "ALTER SYSTEM SET id_gen.launch_id = -1");
    exec_admin(c, "ALTER SYSTEM SET id_gen.node_id = -1");
    exec_admin(c, "SELECT pg_reload_conf()");
    ASSERT_TRUE(wait_for_setting(c, "id_gen.launch_id", "-1"));
    ASSERT_TRUE(wait_for_setting(c, "id_gen.node_id", "-1"));
    std::string msg;
    EXPECT_EQ(sqlstate_of(db.dsn(), "SELECT gen_decimal_id()", &msg), "22023");
    EXPECT_NE(msg.find("id_gen.launch_id is not set"), std::string::npos) << msg;
    EXPECT_NE(msg.find("ALTER SYSTEM SET id_gen.launch_id"), std::string::npos) << msg;
    EXPECT_EQ(sqlstate_of(db.dsn(), "SELECT gen_trace_id()", &msg), "22023");
    EXPECT_NE(msg.find("id_gen.node_id is not set"), std::string::npos) << msg;

    exec_admin(c, "ALTER SYSTEM SET id_gen.launch_id = 0");
    exec_admin(c, "ALTER SYSTEM SET id_gen.enable_test_clock = off");
    exec_admin(c, "SELECT pg_reload_conf()");
    ASSERT_TRUE(wait_for_setting(c, "id_gen.launch_id", "0"));
    ASSERT_TRUE(wait_for_setting(c, "id_gen.enable_test_clock", "off"));
    EXPECT_EQ(sqlstate_of(db.dsn(), "SELECT gen_decimal_id()", &msg), "22023");
    EXPECT_NE(msg.find("id_gen.launch_id = 0 is for test servers only"), std::string::npos) << msg;

    exec_admin(c, "ALTER SYSTEM RESET id_gen.enable_test_clock");
    exec_admin(c, "SELECT pg_reload_conf()");
    ASSERT_TRUE(wait_for_setting(c, "id_gen.enable_test_clock", "on"));
    {
        pqxx::connection conn(db.dsn());
        pqxx::nontransaction tx(conn);
        EXPECT_EQ(one_int(tx, "SELECT decimal_id_launch(gen_decimal_id())"), 0);
    }
    exec_admin(c, "ALTER SYSTEM RESET id_gen.launch_id");
    exec_admin(c, "ALTER SYSTEM RESET id_gen.node_id");
    exec_admin(c, "SELECT pg_reload_conf()");
    ASSERT_TRUE(wait_for_setting(c, "id_gen.launch_id", "2"));
    ASSERT_TRUE(wait_for_setting(c, "id_gen.node_id", "2"));
}

}  // namespace
