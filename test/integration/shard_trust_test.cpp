// Shard trust with a real second role that logs in by itself; the way back for a shard after
// DROP EXTENSION / CREATE EXTENSION, with and without preloading; and the setup a server without
// shared_preload_libraries needs before ALTER SYSTEM SET id_gen.node_id (a cluster of its own).
#include <gtest/gtest.h>

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

struct Server {
    std::string host, port;
    [[nodiscard]] std::string dsn(const std::string& db = "postgres", const std::string& user = "postgres") const {
        return "host=" + host + " port=" + port + " user=" + user + " dbname=" + db;
    }
};

Server main_server() { return {env_or("PGHOST", "/tmp"), env_or("PGPORT", "5432")}; }
Server nopreload_server() { return {env_or("IDGEN_NOPRELOAD_PGHOST", ""), env_or("IDGEN_NOPRELOAD_PGPORT", "")}; }

void exec(const std::string& dsn, const std::string& sql) {
    pqxx::connection conn(dsn);
    pqxx::nontransaction tx(conn);
    tx.exec(sql);
}

// Runs each statement on its own, in one session (ALTER SYSTEM refuses a transaction block).
void exec_each(const std::string& dsn, const std::vector<std::string>& statements) {
    pqxx::connection conn(dsn);
    pqxx::nontransaction tx(conn);
    for (const auto& sql : statements) tx.exec(sql);
}

long long one_int(const std::string& dsn, const std::string& sql) {
    pqxx::connection conn(dsn);
    pqxx::nontransaction tx(conn);
    return tx.exec(sql)[0][0].as<long long>();
}

// The SQLSTATE `sql` fails with ("" when it succeeds); `message` gets the error text with its
// DETAIL and HINT lines.
std::string sqlstate_of(const std::string& dsn, const std::string& sql, std::string* message = nullptr) {
    try {
        exec(dsn, sql);
    } catch (const pqxx::insufficient_privilege& e) {
        // libpqxx 6.4 throws this class for 42501 without passing the SQLSTATE on.
        if (message) *message = e.what();
        return e.sqlstate().empty() ? "42501" : e.sqlstate();
    } catch (const pqxx::sql_error& e) {
        if (message) *message = e.what();
        return e.sqlstate();
    }
    return "";
}

// A database (optionally owned by `owner`) without the extension, dropped at the end; roles made
// for a test are dropped with it.
class Scratch {
public:
    Scratch(Server s, std::string name, std::string owner = "") : s_(std::move(s)), name_(std::move(name)) {
        exec(s_.dsn(), "DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)");
        exec(s_.dsn(), "CREATE DATABASE " + name_ + (owner.empty() ? "" : " OWNER " + owner));
    }
    ~Scratch() {
        try {
            exec(s_.dsn(), "DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)");
        } catch (...) {}
    }
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;
    [[nodiscard]] std::string dsn(const std::string& user = "postgres") const { return s_.dsn(name_, user); }

private:
    Server s_;
    std::string name_;
};

class Role {
public:
    Role(Server s, std::string name) : s_(std::move(s)), name_(std::move(name)) {
        exec(s_.dsn(), "DROP ROLE IF EXISTS " + name_);
        exec(s_.dsn(), "CREATE ROLE " + name_ + " LOGIN");
    }
    ~Role() {
        try {
            exec(s_.dsn(), "DROP ROLE IF EXISTS " + name_);
        } catch (...) {}
    }
    Role(const Role&) = delete;
    Role& operator=(const Role&) = delete;
    [[nodiscard]] bool is_superuser() const {
        return one_int(s_.dsn(), "SELECT rolsuper::int FROM pg_roles WHERE rolname = '" + name_ + "'") != 0;
    }

private:
    Server s_;
    std::string name_;
};

// The attack create_shard() used to let through: a role owns a schema, a superuser makes it a
// shard, the role swaps next_id() for PL/pgSQL, the superuser's INSERT runs that as superuser.
// Now create_shard() refuses the schema; had it not, the attack is carried out and checked.
TEST(ShardTrust, SchemaOwnerCannotBecomeSuperuser) {
    const Server s = main_server();
    Role mallory(s, "it_trust_mallory");
    Scratch db(s, "it_trust_owner");
    exec(db.dsn(), "CREATE EXTENSION id_gen; CREATE SCHEMA mallory_s AUTHORIZATION it_trust_mallory");
    std::string msg;
    const std::string created = sqlstate_of(db.dsn(), "SELECT create_shard(7, 'mallory_s')", &msg);
    EXPECT_EQ(created, "42501") << msg;
    EXPECT_NE(msg.find("ALTER SCHEMA mallory_s OWNER TO"), std::string::npos) << msg;
    if (created.empty()) {
        exec(db.dsn("it_trust_mallory"),
             "DROP FUNCTION mallory_s.next_id();"
             "CREATE FUNCTION mallory_s.next_id() RETURNS bigint LANGUAGE plpgsql AS "
             "$$ BEGIN ALTER ROLE it_trust_mallory SUPERUSER; RETURN 1; END $$");
        sqlstate_of(
            db.dsn(),
            "CREATE TABLE mallory_s.t (id bigint DEFAULT mallory_s.next_id()); INSERT INTO mallory_s.t DEFAULT VALUES");
    }
    EXPECT_FALSE(mallory.is_superuser());
    // Given to a superuser, the schema is a shard, and its former owner cannot touch next_id().
    exec(db.dsn(),
         "ALTER SCHEMA mallory_s OWNER TO postgres; GRANT USAGE, CREATE ON SCHEMA mallory_s TO it_trust_mallory;"
         "SELECT create_shard(7, 'mallory_s')");
    EXPECT_EQ(sqlstate_of(db.dsn("it_trust_mallory"), "DROP FUNCTION mallory_s.next_id() CASCADE"), "42501");
    EXPECT_EQ(
        sqlstate_of(db.dsn("it_trust_mallory"),
                    "CREATE OR REPLACE FUNCTION mallory_s.next_id() RETURNS bigint LANGUAGE sql AS 'SELECT 1::bigint'"),
        "42501");
    EXPECT_EQ(one_int(db.dsn("it_trust_mallory"),
                      "CREATE TABLE mallory_s.t (id bigint DEFAULT mallory_s.next_id()); "
                      "INSERT INTO mallory_s.t SELECT FROM generate_series(1, 100); "
                      "SELECT count(DISTINCT id) FILTER (WHERE shard_id_shard(id) = 7) FROM mallory_s.t"),
              100);
    EXPECT_FALSE(mallory.is_superuser());
}

// A database owned by a role that is not a superuser: its public schema belongs to that role
// (pg_database_owner, PostgreSQL 15). The shard functions refuse there; the install the hint
// gives (a schema owned by a superuser) works, and the database owner cannot change that schema.
TEST(ShardTrust, ExtensionSchemaOfALesserOwner) {
    const Server s = main_server();
    Role owner(s, "it_trust_dbowner");
    Scratch db(s, "it_trust_dbowner_db", "it_trust_dbowner");
    exec(db.dsn(), "CREATE EXTENSION id_gen");
    std::string msg;
    EXPECT_EQ(sqlstate_of(db.dsn(), "SELECT create_shard(5)", &msg), "42501");
    EXPECT_NE(msg.find("it_trust_dbowner"), std::string::npos) << msg;
    EXPECT_NE(msg.find("CREATE SCHEMA id_gen AUTHORIZATION"), std::string::npos) << msg;
    EXPECT_EQ(sqlstate_of(db.dsn(), "SELECT drop_shard(5)"), "42501");
    EXPECT_EQ(sqlstate_of(db.dsn(), "SELECT rename_shard(5, 'x')"), "42501");

    exec(db.dsn(),
         "DROP EXTENSION id_gen; CREATE SCHEMA id_gen AUTHORIZATION postgres; CREATE EXTENSION id_gen SCHEMA id_gen");
    exec(db.dsn(), "SELECT id_gen.create_shard(5)");
    EXPECT_EQ(sqlstate_of(db.dsn("it_trust_dbowner"),
                          "CREATE FUNCTION id_gen.create_shard(int4, text) RETURNS int LANGUAGE sql AS 'SELECT 1'"),
              "42501");
    EXPECT_EQ(sqlstate_of(db.dsn("it_trust_dbowner"), "ALTER SCHEMA id_gen RENAME TO elsewhere"), "42501");
    EXPECT_EQ(sqlstate_of(db.dsn("it_trust_dbowner"), "DROP FUNCTION shard_5.next_id()"), "42501");
    EXPECT_EQ(one_int(db.dsn(), "SELECT id_gen.shard_id_shard(shard_5.next_id())"), 5);
    EXPECT_FALSE(owner.is_superuser());
}

// extension_schema_check() is internal to the superuser-only functions: a role that is not a
// superuser cannot call it (42501), a superuser gets true on a schema only superusers can change,
// and the shard functions (the Citus ones too) still refuse through it once a lesser role may
// create objects there.
TEST(ShardTrust, ExtensionSchemaCheckIsInternal) {
    const Server s = main_server();
    Role caller(s, "it_trust_checker");
    Scratch db(s, "it_trust_checker_db");
    exec(db.dsn(), "CREATE EXTENSION id_gen");
    std::string msg;
    EXPECT_EQ(sqlstate_of(db.dsn("it_trust_checker"), "SELECT extension_schema_check(false)", &msg), "42501");
    EXPECT_NE(msg.find("permission denied for function extension_schema_check"), std::string::npos) << msg;
    EXPECT_EQ(sqlstate_of(db.dsn("it_trust_checker"), "SELECT extension_schema_check(true)"), "42501");
    EXPECT_EQ(one_int(db.dsn(), "SELECT extension_schema_check(false)::int"), 1);
    EXPECT_EQ(one_int(db.dsn(),
                      "SELECT has_function_privilege('it_trust_checker', 'extension_schema_check(boolean)', "
                      "'EXECUTE')::int"),
              0);

    exec(db.dsn(), "GRANT CREATE ON SCHEMA public TO it_trust_checker");
    EXPECT_EQ(sqlstate_of(db.dsn(), "SELECT extension_schema_check(false)", &msg), "42501");
    EXPECT_NE(msg.find("it_trust_checker"), std::string::npos) << msg;
    EXPECT_EQ(one_int(db.dsn(), "SELECT extension_schema_check(true)::int"), 0);
    EXPECT_EQ(sqlstate_of(db.dsn(), "SELECT create_shard(3)"), "42501");
    EXPECT_EQ(sqlstate_of(db.dsn(), "SELECT shard_cluster_sync()"), "42501");
    EXPECT_EQ(sqlstate_of(db.dsn(), "SELECT shard_cluster_apply('{}')"), "42501");
    EXPECT_EQ(one_int(db.dsn(), "SELECT count(*) FROM pg_namespace WHERE nspname = 'shard_3'"), 0);
    exec(db.dsn(), "REVOKE CREATE ON SCHEMA public FROM it_trust_checker");
    EXPECT_EQ(sqlstate_of(db.dsn(), "SELECT shard_cluster_sync()"), "55000");  // checked, then: no Citus
    exec(db.dsn(), "SELECT create_shard(3)");
    EXPECT_EQ(one_int(db.dsn(), "SELECT shard_id_shard(shard_3.next_id())"), 3);
}

// DROP EXTENSION takes the registry's rows; the shard's next_id() stays. create_shard() with the
// same number and epoch adopts it, and the shard continues above every ID it issued (shared
// memory when preloaded, the state file otherwise).
void reinstall_cycle(const Server& s, const std::string& name) {
    Scratch db(s, name);
    exec(db.dsn(),
         "CREATE EXTENSION id_gen; SELECT create_shard(33, 'again', '2022-03-01 00:00:00+00');"
         "CREATE TABLE again.t (id bigint PRIMARY KEY DEFAULT again.next_id(), round int);"
         "INSERT INTO again.t (round) SELECT 1 FROM generate_series(1, 20000)");
    exec(db.dsn(), "DROP EXTENSION id_gen; CREATE EXTENSION id_gen");
    std::string msg;
    EXPECT_EQ(sqlstate_of(db.dsn(), "INSERT INTO again.t (round) VALUES (0)", &msg), "55000");
    EXPECT_NE(msg.find("create_shard(<shard>, 'again', <its epoch>)"), std::string::npos) << msg;
    exec(db.dsn(),
         "SELECT create_shard(33, 'again', '2022-03-01 00:00:00+00');"
         "INSERT INTO again.t (round) SELECT 2 FROM generate_series(1, 20000)");
    EXPECT_EQ(one_int(db.dsn(), "SELECT count(DISTINCT id) FILTER (WHERE shard_id_shard(id) = 33) FROM again.t"),
              40000);
    EXPECT_EQ(one_int(db.dsn(),
                      "SELECT ((SELECT min(id) FROM again.t WHERE round = 2) > "
                      "(SELECT max(id) FROM again.t WHERE round = 1))::int"),
              1);
}

TEST(ShardReinstall, AdoptsNextIdPreloaded) { reinstall_cycle(main_server(), "it_trust_reinstall_pre"); }
TEST(ShardReinstall, AdoptsNextIdWithoutPreloading) { reinstall_cycle(nopreload_server(), "it_trust_reinstall_nopre"); }

// A cluster of its own, without shared_preload_libraries and without any id_gen setting: the
// state a new installation is in. PostgreSQL before 17 does not know id_gen.node_id in a
// session that has not loaded the library, so ALTER SYSTEM needs LOAD 'id_gen' first, as the
// error hint and the README say.
class FreshCluster {
public:
    FreshCluster() {
        dir_ = env_or("IDGEN_WORK", "/tmp") + "/fresh";
        port_ = std::to_string(std::stoi(env_or("PGPORT", "5432")) + 3);
        const std::string user = env_or("IDGEN_PG_OS_USER", "");
        as_ = user.empty() || user == env_or("USER", "") ? "" : "runuser -u " + user + " -- ";
        bin_ = env_or("IDGEN_PG_BINDIR", "/usr/lib/postgresql/15/bin");
        std::string cmd = "rm -rf " + dir_ + " && mkdir -p " + dir_ + " && chown " +
                          (user.empty() ? "$(id -un)" : user) + " " + dir_ + " && " + as_ + bin_ + "/initdb -D " +
                          dir_ + "/data -U postgres -A trust " + "-E UTF8 --locale=C.UTF-8 >" + dir_ +
                          "/initdb.log 2>&1";
        ok_ = std::system(cmd.c_str()) == 0;
        cmd = "printf \"listen_addresses = ''\\nport = " + port_ + "\\nunix_socket_directories = '" + dir_ +
              "'\\nfsync = off\\n\" | " + as_ + "tee -a " + dir_ + "/data/postgresql.conf >/dev/null";
        ok_ = ok_ && std::system(cmd.c_str()) == 0;
        ok_ = ok_ && pg_ctl("start") == 0;
    }
    ~FreshCluster() {
        pg_ctl("stop -m fast");
        keep_server_logs(dir_);
        std::system(("rm -rf " + dir_).c_str());
    }
    FreshCluster(const FreshCluster&) = delete;
    FreshCluster& operator=(const FreshCluster&) = delete;
    [[nodiscard]] bool ok() const { return ok_; }
    [[nodiscard]] Server server() const { return {dir_, port_}; }

private:
    int pg_ctl(const std::string& args) const {
        const std::string cmd =
            as_ + bin_ + "/pg_ctl -D " + dir_ + "/data -l " + dir_ + "/server.log -w -t 60 " + args + " >/dev/null";
        return std::system(cmd.c_str());
    }
    std::string dir_, port_, as_, bin_;
    bool ok_ = false;
};

TEST(Setup, LoadThenAlterSystemWithoutPreloading) {
    FreshCluster fresh;
    ASSERT_TRUE(fresh.ok());
    const Server s = fresh.server();
    exec(s.dsn(), "CREATE EXTENSION id_gen");
    std::string msg;
    EXPECT_EQ(sqlstate_of(s.dsn(), "SELECT gen_snowflake()", &msg), "22023");
    EXPECT_NE(msg.find("LOAD 'id_gen'; ALTER SYSTEM SET id_gen.node_id = <n>; SELECT pg_reload_conf();"),
              std::string::npos)
        << msg;
    // A fresh session that has not loaded the library: on 15 the setting is unknown there (42704);
    // 17 accepts an unknown custom setting.
    const long long version = one_int(s.dsn(), "SELECT current_setting('server_version_num')::int");
    const std::string bare = sqlstate_of(s.dsn(), "ALTER SYSTEM SET id_gen.node_id = 3", &msg);
    if (version < 160000) {
        EXPECT_EQ(bare, "42704") << msg;
    }
    if (version >= 170000) {
        EXPECT_EQ(bare, "") << msg;
    }
    if (bare.empty()) exec(s.dsn(), "ALTER SYSTEM RESET id_gen.node_id");
    // With LOAD 'id_gen' first it works in a fresh session, and new sessions get the node number.
    exec_each(s.dsn(), {"LOAD 'id_gen'", "ALTER SYSTEM SET id_gen.node_id = 3", "SELECT pg_reload_conf()"});
    long long node = -1;
    for (int i = 0; i < 100 && node != 3; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        try {
            node = one_int(s.dsn(), "SELECT snowflake_node(gen_snowflake())");
        } catch (const pqxx::sql_error&) {}
    }
    EXPECT_EQ(node, 3);
    // RESET the same way: a fresh session, LOAD first.
    exec_each(s.dsn(), {"LOAD 'id_gen'", "ALTER SYSTEM RESET id_gen.node_id", "SELECT pg_reload_conf()"});
    std::string after;
    for (int i = 0; i < 100 && after != "22023"; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        after = sqlstate_of(s.dsn(), "SELECT gen_snowflake()");
    }
    EXPECT_EQ(after, "22023");
}

}  // namespace
