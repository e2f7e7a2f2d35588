// Snowflake node generators and per-schema shards against live servers: many connections at once
// with zero duplicates, with and without shared_preload_libraries; no reissue across a restart
// with the clock gone back; node_id settings; standby refusal; pg_dump/pg_restore of shards.
//
// The main cluster (PGHOST/PGPORT) preloads id_gen and is node 1. The second cluster
// (IDGEN_NOPRELOAD_PGHOST/PGPORT/PGDATA) does not preload it and is node 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <pqxx/pqxx>
#include <string>
#include <thread>
#include <vector>

#include "common.h"

namespace {

using idgen::it::env_or;
using idgen::it::keep_server_logs;

using idgen::it::Cluster;
using idgen::it::Db;
using idgen::it::exec_admin;
using idgen::it::main_cluster;
using idgen::it::nopreload_cluster;
using idgen::it::pg_ctl;

long long one_int(pqxx::transaction_base& tx, const std::string& q) { return tx.exec(q)[0][0].as<long long>(); }

// Runs `query` (one bigint column, in generation order) on each dsn in parallel; checks every
// connection's IDs strictly increase and that no ID repeats across all of them.
void generate_in_parallel(const std::vector<std::string>& dsns, const std::string& query, std::size_t per_conn) {
    idgen::it::generate_in_parallel<long long>(dsns, query, per_conn);
}

constexpr std::size_t kConnections = 4;
constexpr std::size_t kPerConnection = 250000;

std::string series_query(const std::string& call) { return idgen::it::series_query(call, "bigint", kPerConnection); }

void node_generator_no_duplicates(const Cluster& c, const std::string& prefix) {
    // Two databases: every database of a server shares its node number, so uniqueness must hold
    // across databases too.
    Db a(c, prefix + "_a"), b(c, prefix + "_b");
    generate_in_parallel({a.dsn(), b.dsn(), a.dsn(), b.dsn()}, series_query("gen_snowflake()"), kPerConnection);
}

void shard_no_duplicates(const Cluster& c, const std::string& prefix) {
    Db db(c, prefix);
    exec_admin(c, "SELECT create_shard(42)", db.name());
    std::vector<std::string> dsns(kConnections, db.dsn());
    generate_in_parallel(dsns, series_query("shard_42.next_id()"), kPerConnection);
    // 200,000 in one statement, all distinct and of shard 42.
    pqxx::connection conn(db.dsn());
    pqxx::nontransaction tx(conn);
    auto r = tx.exec(
        "SELECT count(*), count(DISTINCT id), bool_and(shard_id_shard(id) = 42) FROM "
        "(SELECT shard_42.next_id() AS id FROM generate_series(1, 200000)) s");
    EXPECT_EQ(r[0][0].as<long long>(), 200000);
    EXPECT_EQ(r[0][1].as<long long>(), 200000);
    EXPECT_TRUE(r[0][2].as<bool>());
}

TEST(SnowflakeConcurrency, NodeGeneratorPreloaded) { node_generator_no_duplicates(main_cluster(), "it_sf_node_pre"); }
TEST(SnowflakeConcurrency, NodeGeneratorWithoutPreloading) {
    node_generator_no_duplicates(nopreload_cluster(), "it_sf_node_nopre");
}
TEST(SnowflakeConcurrency, ShardPreloaded) { shard_no_duplicates(main_cluster(), "it_sf_shard_pre"); }
TEST(SnowflakeConcurrency, ShardWithoutPreloading) { shard_no_duplicates(nopreload_cluster(), "it_sf_shard_nopre"); }

// Issue IDs with the clock 20 s ahead, restart, generate with the real clock (20 s "back"):
// the persisted high-water mark must keep every new ID above every old one.
void restart_keeps_high_water_mark(const Cluster& c, const std::string& name) {
    Db db(c, name);
    exec_admin(c, "SELECT create_shard(9)", db.name());
    long long old_node = 0, old_shard = 0;
    {
        pqxx::connection conn(db.dsn());
        pqxx::nontransaction tx(conn);
        tx.exec("LOAD 'id_gen'");  // without preloading, the settings exist once the library is loaded
        tx.exec("SET id_gen.test_clock_offset = '20s'");
        old_node = one_int(tx, "SELECT max(gen_snowflake()::bigint) FROM generate_series(1, 50000)");
        old_shard = one_int(tx, "SELECT max(shard_9.next_id()) FROM generate_series(1, 50000)");
    }
    ASSERT_EQ(pg_ctl(c, "restart"), 0);
    pqxx::connection conn(db.dsn());
    pqxx::nontransaction tx(conn);
    tx.exec("LOAD 'id_gen'");
    EXPECT_EQ(tx.exec("SHOW id_gen.test_clock_offset")[0][0].as<std::string>(), "0");
    EXPECT_GT(one_int(tx, "SELECT min(gen_snowflake()::bigint) FROM generate_series(1, 1000)"), old_node);
    EXPECT_GT(one_int(tx, "SELECT min(shard_9.next_id()) FROM generate_series(1, 1000)"), old_shard);
    // The preloading mode is what the cluster says it is.
    EXPECT_EQ(tx.exec("SHOW shared_preload_libraries")[0][0].as<std::string>() == "id_gen", c.preloaded);
}

TEST(SnowflakeRestart, NoReissueAfterRestartPreloaded) {
    restart_keeps_high_water_mark(main_cluster(), "it_sf_restart_pre");
}
TEST(SnowflakeRestart, NoReissueAfterRestartWithoutPreloading) {
    restart_keeps_high_water_mark(nopreload_cluster(), "it_sf_restart_nopre");
}

// Waits until a new session sees id_gen.node_id = want (a reload is asynchronous).
bool wait_for_node_id(const Cluster& c, const std::string& want) {
    for (int i = 0; i < 100; ++i) {
        pqxx::connection conn(c.dsn());
        pqxx::nontransaction tx(conn);
        tx.exec("LOAD 'id_gen'");
        if (tx.exec("SHOW id_gen.node_id")[0][0].as<std::string>() == want) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
}

std::string sqlstate_of(const std::string& dsn, const std::string& sql, std::string* hint = nullptr) {
    try {
        pqxx::connection conn(dsn);
        pqxx::nontransaction tx(conn);
        tx.exec(sql);
    } catch (const pqxx::sql_error& e) {
        if (hint) *hint = e.what();
        return e.sqlstate();
    }
    return "";
}

// node_id unset or too wide for the layout: an error that says what to set; ALTER SYSTEM and a
// reload fix it. Done on the cluster without preloading (the setting is defined on first use).
TEST(SnowflakeSettings, NodeIdUnsetOrOutOfRange) {
    const Cluster c = nopreload_cluster();
    Db db(c, "it_sf_settings");
    exec_admin(c, "ALTER SYSTEM SET id_gen.node_id = -1");
    exec_admin(c, "SELECT pg_reload_conf()");
    ASSERT_TRUE(wait_for_node_id(c, "-1"));
    std::string msg;
    EXPECT_EQ(sqlstate_of(db.dsn(), "SELECT gen_snowflake()", &msg), "22023");
    EXPECT_NE(msg.find("id_gen.node_id is not set"), std::string::npos) << msg;

    exec_admin(c, "ALTER SYSTEM SET id_gen.node_id = 20");
    exec_admin(c, "SELECT pg_reload_conf()");
    ASSERT_TRUE(wait_for_node_id(c, "20"));
    EXPECT_EQ(sqlstate_of(db.dsn(), "SELECT gen_snowflake('javascript')", &msg), "22023");
    EXPECT_NE(msg.find("does not fit the 4-bit node field"), std::string::npos) << msg;
    {
        pqxx::connection conn(db.dsn());
        pqxx::nontransaction tx(conn);
        EXPECT_EQ(one_int(tx, "SELECT snowflake_node(gen_snowflake())"), 20);
    }
    exec_admin(c, "ALTER SYSTEM RESET id_gen.node_id");
    exec_admin(c, "SELECT pg_reload_conf()");
    ASSERT_TRUE(wait_for_node_id(c, "2"));
}

// Waits until a new session sees `setting` = want (a reload is asynchronous).
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

// id_gen.test_clock_offset moves shared, persisted state: a superuser session's SET must not count
// unless the server runs with id_gen.enable_test_clock (server-level; postmaster when preloaded,
// sighup otherwise). Checked on the cluster without preloading, whose flag a reload can turn off,
// with a shard of a scratch database (so no other generator's mark moves if the check fails).
TEST(SnowflakeSettings, TestClockOffsetNeedsTheServerFlag) {
    const Cluster c = nopreload_cluster();
    Db db(c, "it_sf_test_clock");
    exec_admin(c, "SELECT create_shard(12)", db.name());
    exec_admin(c, "ALTER SYSTEM SET id_gen.enable_test_clock = off");
    exec_admin(c, "SELECT pg_reload_conf()");
    ASSERT_TRUE(wait_for_setting(c, "id_gen.enable_test_clock", "off"));
    {
        pqxx::connection conn(db.dsn());
        pqxx::nontransaction tx(conn);
        tx.exec("LOAD 'id_gen'");
        tx.exec("SET id_gen.test_clock_offset = '1h'");
        EXPECT_EQ(one_int(tx,
                          "SELECT count(*) FROM (SELECT shard_id_time(shard_12.next_id()) AS t "
                          "FROM generate_series(1, 100)) s WHERE t > clock_timestamp() + interval '10 minutes'"),
                  0);
    }
    exec_admin(c, "ALTER SYSTEM RESET id_gen.enable_test_clock");
    exec_admin(c, "SELECT pg_reload_conf()");
    ASSERT_TRUE(wait_for_setting(c, "id_gen.enable_test_clock", "on"));
    {  // with the flag (as in the test clusters' postgresql.conf), the offset counts
        pqxx::connection conn(db.dsn());
        pqxx::nontransaction tx(conn);
        tx.exec("LOAD 'id_gen'");
        tx.exec("SET id_gen.test_clock_offset = '1h'");
        EXPECT_EQ(one_int(tx,
                          "SELECT count(*) FROM (SELECT shard_id_time(shard_12.next_id()) AS t "
                          "FROM generate_series(1, 100)) s WHERE t > clock_timestamp() + interval '50 minutes'"),
                  100);
    }
    // On the preloaded cluster the flag is a postmaster setting.
    pqxx::connection conn(main_cluster().dsn());
    pqxx::nontransaction tx(conn);
    EXPECT_EQ(
        tx.exec("SELECT context FROM pg_settings WHERE name = 'id_gen.enable_test_clock'")[0][0].as<std::string>(),
        "postmaster");
}

// A standby shares its primary's node number: generators refuse there with 25006.
TEST(SnowflakeStandby, GeneratorsRefuseOnAStandby) {
    const Cluster primary = main_cluster();
    Db db(primary, "it_sf_standby");
    exec_admin(primary, "SELECT create_shard(3)", db.name());
    const std::string dir = env_or("IDGEN_WORK", "/tmp") + "/standby";
    const std::string port = std::to_string(std::stoi(primary.port) + 2);
    const std::string user = env_or("IDGEN_PG_OS_USER", "");
    const std::string as = user.empty() || user == env_or("USER", "") ? "" : "runuser -u " + user + " -- ";
    const std::string bin = env_or("IDGEN_PG_BINDIR", "/usr/lib/postgresql/15/bin");
    std::string cmd = "mkdir -p " + dir + " && chown " + (user.empty() ? "$(id -un)" : user) + " " + dir + " && " + as +
                      bin + "/pg_basebackup -c fast -D " + dir + "/data -R -X stream -h " + primary.host + " -p " +
                      primary.port + " -U postgres >/dev/null 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    cmd = "printf \"port = " + port + "\\nunix_socket_directories = '" + dir + "'\\n\" | " + as + "tee -a " + dir +
          "/data/postgresql.conf >/dev/null";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    Cluster standby{dir, port, dir + "/data", dir + "/server.log", primary.number, true};
    ASSERT_EQ(pg_ctl(standby, "start"), 0);
    std::string msg;
    EXPECT_EQ(sqlstate_of(standby.dsn(db.name()), "SELECT gen_snowflake()", &msg), "25006");
    EXPECT_NE(msg.find("recovery"), std::string::npos) << msg;
    EXPECT_EQ(sqlstate_of(standby.dsn(db.name()), "SELECT shard_3.next_id()"), "25006");
    {  // decoders work on a standby
        pqxx::connection conn(standby.dsn(db.name()));
        pqxx::nontransaction tx(conn);
        EXPECT_EQ(one_int(tx, "SELECT snowflake_node('1541815603606036480')"), 378);
    }
    pg_ctl(standby, "stop -m fast");
    keep_server_logs(dir);
    std::system(("rm -rf " + dir).c_str());
}

// pg_dump / pg_restore: the registry rows and every shard's next_id() come back, so column
// defaults still work; snowflake columns and their indexes survive (amcheck).
TEST(ShardDump, DumpAndRestoreKeepsShardsWorking) {
    const Cluster c = main_cluster();
    Db src(c, "it_sf_dump_src");
    exec_admin(c,
               "SELECT create_shard(3); SELECT create_shard(4, 'photos_b', '2020-01-01 00:00:00+00');"
               "CREATE TABLE shard_3.photos (id bigint PRIMARY KEY DEFAULT shard_3.next_id(), s snowflake UNIQUE);"
               "CREATE TABLE photos_b.photos (id bigint PRIMARY KEY DEFAULT photos_b.next_id());"
               "INSERT INTO shard_3.photos (s) SELECT gen_snowflake() FROM generate_series(1, 5000);"
               "INSERT INTO photos_b.photos SELECT FROM generate_series(1, 5000);",
               src.name());
    const std::string file = env_or("IDGEN_WORK", "/tmp") + "/it_sf_dump.pgdump";
    const std::string conn_args = " -h " + c.host + " -p " + c.port + " -U postgres ";
    ASSERT_EQ(idgen::it::run_pg_tool("pg_dump", "-Fc" + conn_args + "-f " + file + " " + src.name()), 0);
    exec_admin(c, "DROP DATABASE IF EXISTS it_sf_dump_dst WITH (FORCE)");
    exec_admin(c, "CREATE DATABASE it_sf_dump_dst");
    ASSERT_EQ(idgen::it::run_pg_tool("pg_restore", "--exit-on-error" + conn_args + "-d it_sf_dump_dst " + file), 0);
    {
        pqxx::connection conn(c.dsn("it_sf_dump_dst"));
        pqxx::nontransaction tx(conn);
        auto reg = tx.exec(
            "SELECT shard, schema_name::text, epoch = '2020-01-01 00:00:00+00' FROM shard_registry ORDER BY shard");
        ASSERT_EQ(reg.size(), 2u);
        EXPECT_EQ(reg[0][1].as<std::string>(), "shard_3");
        EXPECT_EQ(reg[1][1].as<std::string>(), "photos_b");
        EXPECT_TRUE(reg[1][2].as<bool>());
        const long long old_max = one_int(tx, "SELECT max(id) FROM shard_3.photos");
        tx.exec("INSERT INTO shard_3.photos (s) SELECT gen_snowflake() FROM generate_series(1, 1000)");
        tx.exec("INSERT INTO photos_b.photos SELECT FROM generate_series(1, 1000)");
        EXPECT_EQ(one_int(tx, "SELECT count(*) FROM shard_3.photos WHERE shard_id_shard(id) = 3"), 6000);
        EXPECT_EQ(one_int(tx, "SELECT count(*) FROM photos_b.photos WHERE shard_id_shard(id) = 4"), 6000);
        EXPECT_GT(one_int(tx,
                          "SELECT min(id) FROM shard_3.photos WHERE s > (SELECT max(s) FROM shard_3.photos "
                          "WHERE id <= " +
                              std::to_string(old_max) + ")"),
                  old_max);
        EXPECT_EQ(one_int(tx,
                          "SELECT count(*) FROM photos_b.photos WHERE abs(extract(epoch FROM shard_id_time(id) - "
                          "now())) < 3600"),
                  6000);
        tx.exec("CREATE EXTENSION IF NOT EXISTS amcheck");
        tx.exec("SELECT bt_index_check('shard_3.photos_s_key'::regclass, true)");
        tx.exec("SELECT bt_index_check('shard_3.photos_pkey'::regclass, true)");
        // Dropping a restored shard works as before.
        tx.exec("SELECT drop_shard(4, true)");
        EXPECT_EQ(one_int(tx, "SELECT count(*) FROM shard_registry"), 1);
    }
    exec_admin(c, "DROP DATABASE IF EXISTS it_sf_dump_dst WITH (FORCE)");
    std::remove(file.c_str());
}

}  // namespace

// Where the generators keep their state: shared memory when preloaded; without preloading, the DSM
// registry on 17 and later, locked files with leases on 15 and 16. Reported by
// snowflake_state_storage(), and it is where the state really is: with files, the record holds
// the live state of this server run; in shared memory, the file only holds the mark.
TEST(SnowflakeState, StorageMatchesTheServer) {
    for (const Cluster& cl : {main_cluster(), nopreload_cluster()}) {
        const Cluster* c = &cl;
        Db db(*c, c->preloaded ? "it_sf_storage_pre" : "it_sf_storage_nopre");
        pqxx::connection conn(db.dsn());
        pqxx::nontransaction tx(conn);
        const int version = tx.exec("SHOW server_version_num")[0][0].as<int>();
        const std::string storage = tx.exec("SELECT snowflake_state_storage()")[0][0].as<std::string>();
        if (c->preloaded)
            EXPECT_EQ(storage, "shared memory");
        else
            EXPECT_EQ(storage, version >= 170000 ? "dsm registry" : "files");
        EXPECT_GE(one_int(tx, "SELECT count(DISTINCT gen_snowflake()) FROM generate_series(1, 10000)"), 10000);
        // The javascript layout's record (node_4) is used by no other test here.
        tx.exec("SELECT gen_snowflake('javascript') FROM generate_series(1, 10)");
        const auto rec = tx.exec("SELECT pg_read_binary_file('pg_idgen/v2/node_4')")[0][0].as<std::string>();
        // bytea hex text: "\x" then 2 characters a byte; boot is bytes 16..23.
        ASSERT_EQ(rec.size(), 2u + 80u * 2u);
        const bool has_live_state = rec.substr(2 + 16 * 2, 16) != std::string(16, '0');
        EXPECT_EQ(has_live_state, storage == "files") << rec;
    }
}
