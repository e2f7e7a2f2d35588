// Logical replication of id_gen columns, between a publisher and a subscriber of their own (each
// test starts a fresh pair, so no generator state carries over from another test):
//  * every id_gen type as a primary key (the replica identity: the subscriber finds the row
//    through the type's btree equality) and as plain columns, arrays too, and a REPLICA
//    IDENTITY FULL table; subscriptions with binary = true (our send/recv) and without; the
//    subscriber's rows equal the publisher's after the initial copy and after INSERT, UPDATE
//    (of keys too) and DELETE;
//  * what the subscriber needs: a schema-only dump brings the extension and each shard's
//    next_id(), not the registries' rows; without them next_id() and gen_prefixed() refuse there,
//    and replicated rows still arrive (column defaults are not evaluated for them);
//  * the switch-over: the subscriber registers the shard with its epoch and prefix, waits until
//    its clock has left the millisecond of the newest replicated ID, and from then on every
//    generator issues IDs above the replicated ones;
//  * FOR ALL TABLES publishes the registries, so the subscriber's next_id() works at once and,
//    with the same shard number, reissues the publisher's IDs when its clock passes over the
//    same milliseconds; a snowflake with another id_gen.node_id never collides;
//  * permutation keys: a key deleted or replaced on the publisher is not used any more by a
//    subscriber session that had it cached (the apply worker runs in replica mode).
//
// The publisher preloads id_gen (shared-memory generator state) and is node 1 with
// wal_level = logical; the subscriber does not preload it and is node 2. Both live under
// $IDGEN_WORK/logrep and listen only on a Unix socket in their own directory, on ports PGPORT+2
// and PGPORT+3 (the fault layer's, which runs after this layer).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <pqxx/pqxx>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common.h"
#include "kept_sessions.h"

namespace {

using idgen::it::env_or;
using idgen::it::keep_server_logs;

std::string shell_quote(const std::string& s) {
    std::string out = "'";
    for (char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    return out + "'";
}

// "runuser -u <owner> -- " when the clusters belong to another OS user than the caller.
std::string as_owner() {
    const std::string user = env_or("IDGEN_PG_OS_USER", "");
    return user.empty() || user == env_or("USER", "") ? "" : "runuser -u " + user + " -- ";
}

std::string bindir() { return env_or("IDGEN_PG_BINDIR", "/usr/lib/postgresql/15/bin"); }

// A throwaway cluster: initdb, the given postgresql.conf lines, started; stopped and removed when
// the object goes.
class Server {
public:
    Server(const std::string& name, int port, const std::vector<std::string>& conf)
        : dir_(env_or("IDGEN_WORK", "/tmp") + "/logrep/" + name), port_(port) {
        const std::string user = env_or("IDGEN_PG_OS_USER", "");
        std::string cmd = "rm -rf " + shell_quote(dir_) + " && mkdir -p " + shell_quote(dir_) + " && chmod 755 " +
                          shell_quote(dir_) + (as_owner().empty() ? "" : " && chown " + user + " " + shell_quote(dir_));
        if (std::system(cmd.c_str()) != 0) {
            error_ = "cannot make " + dir_;
            return;
        }
        const std::string tmpl = template_data();
        if (tmpl.empty()) {
            error_ = "initdb failed: see " + env_or("IDGEN_WORK", "/tmp") + "/logrep/template/initdb.log";
            return;
        }
        cmd = as_owner() + "cp -a " + shell_quote(tmpl) + " " + shell_quote(dir_ + "/data");
        if (std::system(cmd.c_str()) != 0) {
            error_ = "cannot copy " + tmpl + " to " + dir_;
            return;
        }
        {
            std::ofstream f(dir_ + "/data/postgresql.conf", std::ios::app);  // appending keeps the owner
            f << "\nlisten_addresses = ''\nunix_socket_directories = '" << dir_ << "'\nport = " << port_
              << "\nfsync = off\nmax_connections = 30\nshared_buffers = 32MB\n";
            for (const auto& line : conf) f << line << "\n";
            if (!f) {
                error_ = "cannot write " + dir_ + "/data/postgresql.conf";
                return;
            }
        }
        if (pg_ctl("-w -t 60 start") != 0) {
            error_ = "cannot start the cluster in " + dir_ + ":\n" + log_tail();
            return;
        }
        started_ = true;
    }
    ~Server() {
        if (started_) pg_ctl("-m fast -w -t 60 stop");
        if (env_or("KEEP_WORK", "").empty()) {
            keep_server_logs(dir_);
            std::system(("rm -rf " + shell_quote(dir_)).c_str());
        }
    }
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;

    [[nodiscard]] const std::string& error() const { return error_; }
    [[nodiscard]] const std::string& dir() const { return dir_; }
    [[nodiscard]] std::string dsn(const std::string& db) const {
        return "host=" + dir_ + " port=" + std::to_string(port_) + " user=postgres dbname=" + db;
    }
    // psql/pg_dump connection options.
    [[nodiscard]] std::string conn_args(const std::string& db) const {
        return "-h " + shell_quote(dir_) + " -p " + std::to_string(port_) + " -U postgres -d " + shell_quote(db);
    }
    [[nodiscard]] std::string log() const {
        std::ifstream f(dir_ + "/server.log");
        std::stringstream ss;
        ss << f.rdbuf();
        return ss.str();
    }
    [[nodiscard]] std::string log_tail(std::size_t lines = 25) const {
        const std::string all = log();
        std::size_t pos = all.size();
        for (std::size_t n = 0; n <= lines && pos != std::string::npos && pos > 0; ++n) pos = all.rfind('\n', pos - 1);
        return pos == std::string::npos ? all : all.substr(pos + 1);
    }

private:
    // One initdb per run of the tests (about 1.5 s of CPU here), copied for each server: the data
    // directory of a cluster never started, "" when initdb failed.
    static std::string template_data() {
        static const std::string data = [] {
            const std::string t = env_or("IDGEN_WORK", "/tmp") + "/logrep/template";
            const std::string user = env_or("IDGEN_PG_OS_USER", "");
            std::string cmd = "rm -rf " + shell_quote(t) + " && mkdir -p " + shell_quote(t) +
                              (as_owner().empty() ? "" : " && chown " + user + " " + shell_quote(t)) + " && " +
                              as_owner() + bindir() + "/initdb -D " + shell_quote(t + "/data") +
                              " -U postgres -A trust -E UTF8 --locale=C.UTF-8 --no-sync >" +
                              shell_quote(t + "/initdb.log") + " 2>&1";
            return std::system(cmd.c_str()) == 0 ? t + "/data" : std::string();
        }();
        return data;
    }
    int pg_ctl(const std::string& args) const {
        const std::string cmd = as_owner() + bindir() + "/pg_ctl -D " + shell_quote(dir_ + "/data") + " -l " +
                                shell_quote(dir_ + "/server.log") + " " + args + " >/dev/null";
        return std::system(cmd.c_str());
    }
    std::string dir_;
    int port_;
    std::string error_;
    bool started_ = false;
};

void exec(const std::string& dsn, const std::string& sql) {
    pqxx::connection conn(dsn);
    pqxx::nontransaction tx(conn);
    tx.exec(sql);
}

// The first column of every row, as text ("NULL" for a null).
// On a session kept for the next call (kept_sessions.h): the waits below poll both sides 10 times
// a second.
std::vector<std::string> column(const std::string& dsn, const std::string& sql) {
    std::vector<std::string> out;
    for (const auto& row : idgen::kept::run(dsn, sql)) out.push_back(row[0].is_null() ? "NULL" : row[0].c_str());
    return out;
}

std::string one(const std::string& dsn, const std::string& sql) {
    const auto rows = column(dsn, sql);
    return rows.empty() ? "(no row)" : rows.front();
}

long long one_int(const std::string& dsn, const std::string& sql) { return std::stoll(one(dsn, sql)); }

// The SQLSTATE `sql` fails with, "" when it succeeds.
std::string sqlstate_of(const std::string& dsn, const std::string& sql) {
    try {
        exec(dsn, sql);
    } catch (const pqxx::sql_error& e) {
        return e.sqlstate();
    }
    return "";
}

// The SQLSTATE `sql` fails with in the session of `tx`, "" when it succeeds.
std::string sqlstate_of_in(pqxx::nontransaction& tx, const std::string& sql) {
    try {
        tx.exec(sql);
    } catch (const pqxx::sql_error& e) {
        return e.sqlstate();
    }
    return "";
}

void create_db(const Server& s, const std::string& db) { exec(s.dsn("postgres"), "CREATE DATABASE " + db); }

// What a subscriber is given: the publisher database's schema (pg_dump --schema-only, without
// publications and subscriptions), restored by psql as a superuser. Returns "" or the error.
std::string copy_schema(const Server& from, const std::string& from_db, const Server& to, const std::string& to_db) {
    const std::string file = to.dir() + "/schema_" + to_db + ".sql";
    const std::string log = to.dir() + "/schema_" + to_db + ".log";
    std::string cmd = bindir() + "/pg_dump --schema-only --no-publications --no-subscriptions " +
                      from.conn_args(from_db) + " -f " + shell_quote(file) + " >" + shell_quote(log) + " 2>&1";
    if (std::system(cmd.c_str()) != 0) return "pg_dump failed: see " + log;
    cmd = bindir() + "/psql -X -q -v ON_ERROR_STOP=1 " + to.conn_args(to_db) + " -f " + shell_quote(file) + " >>" +
          shell_quote(log) + " 2>&1";
    if (std::system(cmd.c_str()) != 0) return "restoring the schema failed: see " + log;
    return "";
}

// Every row of `table`, as row text, in text order.
std::string rows_sql(const std::string& table) { return "SELECT t::text FROM " + table + " t ORDER BY t::text"; }

std::string digest(const std::string& dsn, const std::string& table) {
    return one(dsn, "SELECT count(*) || ' ' || coalesce(md5(string_agg(t::text, E'\\n' ORDER BY t::text)), '') FROM " +
                        table + " t");
}

// Waits (bounded) until every table has the same rows on both sides.
bool wait_replicated(const std::string& pub, const std::string& sub, const std::vector<std::string>& tables,
                     double seconds = 90) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    for (;;) {
        bool same = true;
        for (const auto& t : tables) {
            if (digest(pub, t) != digest(sub, t)) {
                same = false;
                break;
            }
        }
        if (same) return true;
        if (std::chrono::steady_clock::now() > until) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
}

// Row-wise comparison, reporting the first difference.
void expect_same_rows(const std::string& pub, const std::string& sub, const std::string& table) {
    const auto a = column(pub, rows_sql(table));
    const auto b = column(sub, rows_sql(table));
    EXPECT_EQ(a.size(), b.size()) << table << ": row counts differ";
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
        if (a[i] != b[i]) {
            ADD_FAILURE() << table << ": row " << i << " differs\n  publisher:  " << a[i] << "\n  subscriber: " << b[i];
            return;
        }
    }
}

// Runs `sql` until it returns true (bounded).
bool wait_true(const std::string& dsn, const std::string& sql, double seconds = 10) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (one(dsn, sql) != "t") {
        if (std::chrono::steady_clock::now() > until) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
}

class LogicalReplication : public testing::Test {
protected:
    void SetUp() override {
        const int base = std::stoi(env_or("PGPORT", "5432")) + 2;
        pub_ = std::make_unique<Server>(
            "pub", base,
            std::vector<std::string>{"wal_level = logical", "shared_preload_libraries = 'id_gen'", "id_gen.node_id = 1",
                                     "id_gen.enable_test_clock = on", "log_statement = 'all'"});
        ASSERT_EQ(pub_->error(), "");
        sub_ = std::make_unique<Server>(
            "sub", base + 1,
            std::vector<std::string>{"id_gen.node_id = 2", "id_gen.enable_test_clock = on",
                                     "max_logical_replication_workers = 8", "max_worker_processes = 16",
                                     // how soon the launcher starts the
                                     // next subscription's worker
                                     "wal_retrieve_retry_interval = '200ms'"});
        ASSERT_EQ(sub_->error(), "");
    }
    void TearDown() override {
        idgen::kept::forget_all();
        sub_.reset();  // first, so its apply workers do not retry against a stopped publisher
        pub_.reset();
    }
    [[nodiscard]] std::string pub(const std::string& db) const { return pub_->dsn(db); }
    [[nodiscard]] std::string sub(const std::string& db) const { return sub_->dsn(db); }
    void subscribe(const std::string& sub_db, const std::string& name, const std::string& pub_db,
                   const std::string& publication, bool binary) {
        exec(sub(sub_db), "CREATE SUBSCRIPTION " + name + " CONNECTION '" + pub(pub_db) + "' PUBLICATION " +
                              publication + " WITH (binary = " + (binary ? "true" : "false") + ")");
    }

    std::unique_ptr<Server> pub_, sub_;
};

// Plain columns of every id_gen type (and an array of one), in every table of the first test.
const std::string kPlainColumns =
    "c_ulid ulid DEFAULT gen_ulid(), c_snowflake snowflake DEFAULT gen_snowflake(), "
    "c_base36_64 base36_64 DEFAULT gen_snowflake()::base36_64, c_base36_128 base36_128 DEFAULT gen_ulid()::base36_128, "
    "c_uuidv7 uuid DEFAULT uuidv7(), c_prefixed text DEFAULT gen_prefixed('acct'), "
    "c_shard bigint DEFAULT shard_5.next_id(), c_ulids ulid[] DEFAULT ARRAY[gen_ulid(), gen_ulid()]";

struct KeyedTable {
    std::string name, key;  // key: "<column> <type> ..." with its default
};

const std::vector<KeyedTable> kKeyedTables = {
    {"k_ulid", "id ulid PRIMARY KEY DEFAULT gen_ulid()"},
    {"k_snowflake", "id snowflake PRIMARY KEY DEFAULT gen_snowflake()"},
    {"k_base36_64", "id base36_64 PRIMARY KEY DEFAULT gen_snowflake()::base36_64"},
    {"k_base36_128", "id base36_128 PRIMARY KEY DEFAULT gen_uuidv7()::base36_128"},
    // A UUIDv7 key, with the prefixed text as a generated column (not sent: computed on each side).
    {"k_uuidv7",
     "id uuid PRIMARY KEY DEFAULT uuidv7(), "
     "public_id text GENERATED ALWAYS AS (prefixed_format('acct', id)) STORED"},
    {"k_prefixed", "id text PRIMARY KEY DEFAULT gen_prefixed('acct')"},
    {"shard_5.k_shard", "id bigint PRIMARY KEY DEFAULT shard_5.next_id()"},
};

TEST_F(LogicalReplication, EveryTypeAsKeyAndColumnTextAndBinary) {
    const std::string db = "lr";
    create_db(*pub_, db);
    std::string ddl = "CREATE EXTENSION id_gen; SELECT create_shard(5); SELECT prefix_register('acct', 'accounts');";
    std::vector<std::string> tables;
    for (const auto& t : kKeyedTables) {
        ddl += "CREATE TABLE " + t.name + " (" + t.key + ", n int NOT NULL, " + kPlainColumns + ");";
        tables.push_back(t.name);
    }
    // No key: the subscriber finds a row by comparing every column with its type's `=`.
    ddl += "CREATE TABLE k_full (n int NOT NULL, " + kPlainColumns +
           "); ALTER TABLE k_full REPLICA IDENTITY FULL;"
           "CREATE INDEX ON k_full USING hash (c_ulid); CREATE INDEX ON k_full (c_snowflake);";
    tables.push_back("k_full");
    std::string list;
    for (const auto& t : tables) list += (list.empty() ? "" : ", ") + t;
    ddl += "CREATE PUBLICATION lr FOR TABLE " + list + ";";
    exec(pub(db), ddl);
    for (const auto& t : tables) exec(pub(db), "INSERT INTO " + t + " (n) SELECT g FROM generate_series(1, 300) g");

    // Two subscriber databases, one per subscription kind. Each gets its OIDs from a different
    // history than the publisher's (an object made first): the type OIDs inside binary arrays
    // then differ between the two sides, as they do between real servers.
    const std::vector<std::pair<std::string, bool>> subs = {{"lr_text", false}, {"lr_bin", true}};
    for (const auto& [sdb, binary] : subs) {
        create_db(*sub_, sdb);
        exec(sub(sdb), "CREATE TABLE oid_shift (a int)");
        ASSERT_EQ(copy_schema(*pub_, db, *sub_, sdb), "");
        EXPECT_NE(one(pub(db), "SELECT 'ulid'::regtype::oid"), one(sub(sdb), "SELECT 'ulid'::regtype::oid"));
        subscribe(sdb, sdb, db, "lr", binary);
    }
    for (const auto& [sdb, binary] : subs) {
        ASSERT_TRUE(wait_replicated(pub(db), sub(sdb), tables)) << sdb << ": the initial copy did not arrive\n"
                                                                << sub_->log_tail();
        for (const auto& t : tables) expect_same_rows(pub(db), sub(sdb), t);
    }

    // Streaming changes, each kind in its own transaction: new rows; plain columns changed (new
    // values, NULLs); keys changed (the old key identifies the row); rows deleted by key.
    for (const auto& t : tables) {
        const std::string key = t == "k_full" ? "c_ulid" : "id";
        exec(pub(db), "INSERT INTO " + t + " (n) SELECT g FROM generate_series(301, 500) g");
        exec(pub(db), "UPDATE " + t +
                          " SET c_ulid = DEFAULT, c_snowflake = DEFAULT, c_base36_64 = DEFAULT, "
                          "c_base36_128 = DEFAULT, c_uuidv7 = DEFAULT, c_prefixed = DEFAULT, c_shard = DEFAULT, "
                          "c_ulids = DEFAULT WHERE n % 10 = 3");
        exec(pub(db), "UPDATE " + t + " SET c_base36_64 = NULL, c_ulids = NULL, c_prefixed = NULL WHERE n % 10 = 4");
        exec(pub(db), "UPDATE " + t + " SET " + key + " = DEFAULT WHERE n % 10 = 1");
        exec(pub(db), "DELETE FROM " + t + " WHERE n % 10 = 2");
    }
    for (const auto& t : tables) EXPECT_EQ(one_int(pub(db), "SELECT count(*) FROM " + t), 450) << t;
    for (const auto& [sdb, binary] : subs) {
        ASSERT_TRUE(wait_replicated(pub(db), sub(sdb), tables)) << sdb << ": the changes did not arrive\n"
                                                                << sub_->log_tail();
        for (const auto& t : tables) expect_same_rows(pub(db), sub(sdb), t);
        // The replicated rows sit where the subscriber's btree indexes expect them.
        exec(sub(sdb), "CREATE EXTENSION amcheck");
        EXPECT_EQ(
            one_int(sub(sdb),
                    "SELECT count(bt_index_check(c.oid, true)) FROM pg_index i "
                    "JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam "
                    "WHERE a.amname = 'btree' AND i.indrelid IN (SELECT oid FROM pg_class WHERE relname LIKE 'k\\_%')"),
            static_cast<long long>(kKeyedTables.size()) + 1)
            << sdb;
        EXPECT_EQ(one(sub(sdb), "SELECT subbinary FROM pg_subscription WHERE subname = '" + sdb + "'"),
                  binary ? "t" : "f");
    }
    // On 16 and later the binary subscription's initial copy is binary too (COPY ... FORMAT
    // binary, read back by our receive functions); on 15 it is text.
    const std::string log = pub_->log();
    std::size_t binary_copies = 0;
    for (std::size_t p = log.find("TO STDOUT WITH (FORMAT binary)"); p != std::string::npos;
         p = log.find("TO STDOUT WITH (FORMAT binary)", p + 1))
        ++binary_copies;
    if (one_int(pub(db), "SELECT current_setting('server_version_num')::int") >= 160000) {
        EXPECT_EQ(binary_copies, tables.size());
    } else {
        EXPECT_EQ(binary_copies, 0u);
    }
}

// The publication names the tables, not the registries. The schema dump gives the subscriber the
// extension and shard_5.next_id(), not the registries' rows: the subscriber can issue neither the
// shard's IDs nor the prefix until the switch-over registers them.
TEST_F(LogicalReplication, SwitchOverRegistersShardAndPrefixThenIssuesAbove) {
    const std::string db = "app";
    create_db(*pub_, db);
    exec(pub(db),
         "CREATE EXTENSION id_gen;"
         "SELECT create_shard(5, 'shard_5', '2025-01-01 00:00:00+00');"
         "SELECT prefix_register('acct', 'accounts');"
         "CREATE TABLE events (id ulid PRIMARY KEY DEFAULT gen_ulid(), n int);"
         "CREATE TABLE orders (id snowflake PRIMARY KEY DEFAULT gen_snowflake(), n int);"
         "CREATE TABLE accounts (id uuid PRIMARY KEY DEFAULT uuidv7(), handle text UNIQUE DEFAULT "
         "gen_prefixed('acct'), n int);"
         "CREATE TABLE shard_5.photos (id bigint PRIMARY KEY DEFAULT shard_5.next_id(), n int);"
         "CREATE PUBLICATION app FOR TABLE events, orders, accounts, shard_5.photos;");
    const std::vector<std::string> tables = {"events", "orders", "accounts", "shard_5.photos"};
    for (const auto& t : tables) exec(pub(db), "INSERT INTO " + t + " (n) SELECT g FROM generate_series(1, 5000) g");

    create_db(*sub_, db);
    ASSERT_EQ(copy_schema(*pub_, db, *sub_, db), "");
    // The dump created the extension, at the publisher's version, and the shard's C function ...
    EXPECT_EQ(one(sub(db), "SELECT extversion FROM pg_extension WHERE extname = 'id_gen'"),
              one(pub(db), "SELECT extversion FROM pg_extension WHERE extname = 'id_gen'"));
    EXPECT_EQ(one(sub(db), "SELECT prosrc FROM pg_proc WHERE oid = 'shard_5.next_id()'::regprocedure"),
              "shard_next_id");
    // ... but no registry rows: they are data.
    EXPECT_EQ(one_int(pub(db), "SELECT count(*) FROM shard_registry") +
                  one_int(pub(db), "SELECT count(*) FROM prefix_registry"),
              2);
    EXPECT_EQ(one_int(sub(db), "SELECT count(*) FROM shard_registry") +
                  one_int(sub(db), "SELECT count(*) FROM prefix_registry"),
              0);

    subscribe(db, "app", db, "app", true);
    ASSERT_TRUE(wait_replicated(pub(db), sub(db), tables)) << sub_->log_tail();
    // Rows keep arriving: the subscriber's column defaults (which would fail here) are not
    // evaluated for replicated rows.
    for (const auto& t : tables)
        exec(pub(db), "INSERT INTO " + t + " (n) SELECT g FROM generate_series(5001, 10000) g");
    ASSERT_TRUE(wait_replicated(pub(db), sub(db), tables)) << sub_->log_tail();
    for (const auto& t : tables) expect_same_rows(pub(db), sub(db), t);

    // The subscriber cannot issue the shard's IDs or the prefix.
    EXPECT_EQ(sqlstate_of(sub(db), "INSERT INTO shard_5.photos (n) VALUES (0)"), "55000");
    EXPECT_EQ(sqlstate_of(sub(db), "SELECT shard_5.next_id()"), "55000");
    EXPECT_EQ(sqlstate_of(sub(db), "INSERT INTO accounts (n) VALUES (0)"), "42704");
    EXPECT_EQ(one(sub(db), "SELECT shard_id_time(max(id)) IS NULL FROM shard_5.photos"), "t");
    // The epoch given explicitly decodes the same time as on the publisher.
    const std::string times =
        "SELECT string_agg(id || ' ' || extract(epoch FROM %s), ',' ORDER BY id) FROM shard_5.photos";
    auto with = [&](const std::string& expr) {
        std::string q = times;
        return q.replace(q.find("%s"), 2, expr);
    };
    EXPECT_EQ(one(sub(db), with("shard_id_time(id, '2025-01-01 00:00:00+00')")),
              one(pub(db), with("shard_id_time(id)")));

    // Switch-over. The publisher has stopped writing and everything arrived (checked above):
    // drop the subscription, then register what the schema did not carry, with the epoch the
    // publisher's shard_registry shows. create_shard() adopts the next_id() from the dump.
    exec(sub(db), "DROP SUBSCRIPTION app");
    const std::string epoch = one(pub(db), "SELECT epoch FROM shard_registry WHERE shard = 5");
    const std::string fn = one(sub(db), "SELECT 'shard_5.next_id()'::regprocedure::oid");
    exec(sub(db), "SELECT create_shard(5, 'shard_5', '" + epoch + "'); SELECT prefix_register('acct', 'accounts')");
    EXPECT_EQ(one(sub(db), "SELECT 'shard_5.next_id()'::regprocedure::oid"), fn);
    EXPECT_EQ(one(sub(db), with("shard_id_time(id)")), one(pub(db), with("shard_id_time(id)")));
    // Issue only once the subscriber's clock has left the millisecond of the newest replicated
    // ID of every kind (a publisher's IDs may run ahead of its clock).
    // (The README's statements.)
    for (const std::string check :
         {"SELECT clock_timestamp() >= shard_id_time(max(id)) + interval '1 ms' FROM shard_5.photos",
          "SELECT clock_timestamp() >= snowflake_time(max(id)) + interval '1 ms' FROM orders",
          "SELECT clock_timestamp() >= ulid_time(max(id)) + interval '1 ms' FROM events",
          "SELECT clock_timestamp() >= uuidv7_time(id) + interval '1 ms' FROM accounts ORDER BY id DESC LIMIT 1"})
        ASSERT_TRUE(wait_true(sub(db), check)) << check;
    for (const auto& t : tables) {
        exec(sub(db), "INSERT INTO " + t + " (n) SELECT g FROM generate_series(100001, 105000) g");
        // Every new ID is above every replicated one (and the primary key saw no duplicate).
        EXPECT_EQ(one_int(sub(db), "SELECT count(*) FROM " + t + " WHERE n > 100000 AND id <= (SELECT id FROM " + t +
                                       " WHERE n <= 100000 ORDER BY id DESC LIMIT 1)"),
                  0)
            << t;
        EXPECT_EQ(one_int(sub(db), "SELECT count(DISTINCT id) FROM " + t), 15000) << t;
    }
    EXPECT_EQ(
        one(sub(db), "SELECT string_agg(DISTINCT (n > 100000)::text || ':' || snowflake_node(id), ',') FROM orders"),
        "false:1,true:2");
    EXPECT_EQ(one(sub(db), "SELECT string_agg(DISTINCT shard_id_shard(id)::text, ',') FROM shard_5.photos"), "5");
    EXPECT_EQ(
        one_int(sub(db), "SELECT count(*) FROM accounts WHERE n > 100000 AND prefixed_parse('acct', handle) IS NULL"),
        0);
}

// FOR ALL TABLES (and FOR TABLES IN SCHEMA of the extension's schema) includes prefix_registry and
// shard_registry: the subscriber gets their rows, so prefix_owner() and next_id() work there at
// once. next_id() on the subscriber is then a second issuer of the same shard number: with its
// clock behind the publisher's, it issues IDs the publisher already issued, while a snowflake of
// another node never collides.
TEST_F(LogicalReplication, ForAllTablesPublishesRegistriesSoSameShardCanCollide) {
    const std::string db = "app";
    create_db(*pub_, db);
    exec(pub(db),
         "CREATE EXTENSION id_gen;"
         "SELECT create_shard(5); SELECT prefix_register('acct', 'accounts');"
         "CREATE TABLE orders (id snowflake PRIMARY KEY DEFAULT gen_snowflake(), n int);"
         "CREATE TABLE shard_5.photos (id bigint PRIMARY KEY DEFAULT shard_5.next_id(), n int);"
         "CREATE PUBLICATION everything FOR ALL TABLES;"
         "CREATE PUBLICATION in_public FOR TABLES IN SCHEMA public;");
    for (const std::string p : {"everything", "in_public"}) {
        EXPECT_EQ(one(pub(db),
                      "SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_publication_tables "
                      "WHERE pubname = '" +
                          p + "' AND tablename LIKE '%registry'"),
                  "prefix_registry,shard_registry")
            << p;
    }
    // The publisher issues both kinds of ID in one burst. Both generators are used for the first
    // time, so they start a little ahead of the clock and, staying ahead during the burst, fill
    // every sequence number of each millisecond of a window.
    exec(pub(db),
         "WITH g AS MATERIALIZED (SELECT n, shard_5.next_id() AS shard_id, gen_snowflake() AS sf "
         "                        FROM generate_series(1, 50000) n),"
         "     p AS (INSERT INTO shard_5.photos (id, n) SELECT shard_id, n FROM g)"
         "INSERT INTO orders (id, n) SELECT sf, n FROM g");

    create_db(*sub_, db);
    ASSERT_EQ(copy_schema(*pub_, db, *sub_, db), "");
    subscribe(db, "everything", db, "everything", false);
    const std::vector<std::string> tables = {"orders", "shard_5.photos", "shard_registry", "prefix_registry"};
    ASSERT_TRUE(wait_replicated(pub(db), sub(db), tables)) << sub_->log_tail();
    for (const auto& t : tables) expect_same_rows(pub(db), sub(db), t);
    EXPECT_EQ(one(sub(db), "SELECT prefix_owner('acct')"), "accounts");

    // The subscriber's clock, as its generators read it (id_gen.test_clock_offset), behind the
    // publisher's: a clock that is behind, or a publisher that ran ahead. The generators are first
    // used 10 s before the publisher's window (a first use starts a little ahead of the clock);
    // then the clock moves to 0.5 s before the window, and the subscriber issues one shard ID and
    // one snowflake at a time until its clock has passed the window.
    {
        pqxx::connection conn(sub(db));
        pqxx::nontransaction tx(conn);
        tx.exec("CREATE TEMP TABLE issued (shard_id bigint, sf snowflake)");
        tx.exec(
            "CREATE TEMP TABLE windows AS SELECT * FROM "
            "(SELECT min(shard_id_time(id)) AS shard_from, max(shard_id_time(id)) AS shard_to FROM shard_5.photos) s, "
            "(SELECT min(snowflake_time(id)) AS sf_from, max(snowflake_time(id)) AS sf_to FROM orders) o");
        tx.exec(R"sql(
DO $$
DECLARE
    w record;
    i record;
    deadline timestamptz := clock_timestamp() + interval '20 s';
BEGIN
    SELECT * INTO w FROM windows;
    PERFORM set_config('id_gen.test_clock_offset',
                       round((extract(epoch FROM least(w.shard_from, w.sf_from)) - extract(epoch FROM clock_timestamp()))
                             * 1000 - 10000)::text, false);
    PERFORM shard_5.next_id(), gen_snowflake();
    PERFORM set_config('id_gen.test_clock_offset',
                       round((extract(epoch FROM least(w.shard_from, w.sf_from)) - extract(epoch FROM clock_timestamp()))
                             * 1000 - 500)::text, false);
    LOOP
        INSERT INTO issued VALUES (shard_5.next_id(), gen_snowflake()) RETURNING * INTO i;
        EXIT WHEN (shard_id_time(i.shard_id) > w.shard_to AND snowflake_time(i.sf) > w.sf_to)
                  OR clock_timestamp() > deadline;
        PERFORM pg_sleep(0.0005);
    END LOOP;
END
$$)sql");
        EXPECT_EQ(tx.exec("SELECT bool_or(shard_id_time(shard_id) > shard_to) AND bool_or(snowflake_time(sf) > sf_to) "
                          "AND bool_or(shard_id_time(shard_id) < shard_from) AND bool_or(snowflake_time(sf) < sf_from) "
                          "FROM issued, windows")[0][0]
                      .as<bool>(),
                  true)
            << "the subscriber's IDs did not cover the publisher's window: "
            << tx.exec(
                     "SELECT format('offset %s ms, shard IDs %s .. %s (publisher %s .. %s), snowflakes %s .. %s "
                     "(publisher %s .. %s), %s issued', current_setting('id_gen.test_clock_offset'), "
                     "min(shard_id_time(shard_id)), "
                     "max(shard_id_time(shard_id)), min(shard_from), min(shard_to), min(snowflake_time(sf)), "
                     "max(snowflake_time(sf)), min(sf_from), min(sf_to), count(*)) FROM issued, windows")[0][0]
                   .c_str();
        // The same shard number: IDs of the publisher issued again ...
        const long long again =
            tx.exec("SELECT count(*) FROM issued i JOIN shard_5.photos p ON p.id = i.shard_id")[0][0].as<long long>();
        EXPECT_GT(again, 0);
        std::cout << "[ INFO     ] the subscriber's next_id() reissued " << again << " of its "
                  << tx.exec("SELECT count(*) FROM issued")[0][0].c_str() << " shard IDs\n";
        // ... which the primary key refuses.
        try {
            tx.exec(
                "INSERT INTO shard_5.photos (id, n) SELECT i.shard_id, 0 FROM issued i "
                "JOIN shard_5.photos p ON p.id = i.shard_id LIMIT 1");
            if (again > 0) ADD_FAILURE() << "a reissued shard ID was inserted";
        } catch (const pqxx::sql_error& e) {
            EXPECT_EQ(e.sqlstate(), "23505");
        }
        // Snowflakes of node 2 in the same milliseconds as node 1's: none equal.
        EXPECT_GT(tx.exec("SELECT count(*) FROM issued WHERE snowflake_time(sf) IN "
                          "(SELECT snowflake_time(id) FROM orders)")[0][0]
                      .as<long long>(),
                  0);
        EXPECT_EQ(tx.exec("SELECT count(*) FROM issued i JOIN orders o ON o.id = i.sf")[0][0].as<long long>(), 0);
        EXPECT_EQ(
            tx.exec("SELECT count(*) FROM issued WHERE snowflake_node(sf) <> 2 OR shard_id_shard(shard_id) <> 5")[0][0]
                .as<long long>(),
            0);
    }

    // The same switch-over rule as without the registries: once the subscriber's clock (no offset
    // now) has left the newest replicated ID's millisecond, its IDs are above every replicated one.
    exec(sub(db), "DROP SUBSCRIPTION everything");
    ASSERT_TRUE(wait_true(sub(db),
                          "SELECT clock_timestamp() >= greatest((SELECT snowflake_time(max(id)) FROM orders), "
                          "(SELECT shard_id_time(max(id)) FROM shard_5.photos)) + interval '1 ms'"));
    for (const std::string t : {"orders", "shard_5.photos"}) {
        exec(sub(db), "INSERT INTO " + t + " (n) SELECT g FROM generate_series(100001, 105000) g");
        EXPECT_EQ(one_int(sub(db), "SELECT count(*) FROM " + t + " WHERE n > 100000 AND id <= (SELECT id FROM " + t +
                                       " WHERE n <= 100000 ORDER BY id DESC LIMIT 1)"),
                  0)
            << t;
    }
}

// The apply worker changes permute_keys in replica mode, firing row triggers only: a session of
// the subscriber that cached a key sees the publisher's change at its next statement.
TEST_F(LogicalReplication, PermuteKeyChangedOnThePublisherReachesWarmSubscriberSessions) {
    const std::string db = "lr_permute";
    create_db(*pub_, db);
    create_db(*sub_, db);
    exec(pub(db),
         "CREATE EXTENSION id_gen; SELECT id_permute_key('k'), id_permute_key('other'); "
         "CREATE PUBLICATION keys FOR TABLE permute_keys");
    exec(sub(db), "CREATE EXTENSION id_gen");
    subscribe(db, "keys", db, "keys", false);
    ASSERT_TRUE(wait_replicated(pub(db), sub(db), {"permute_keys"})) << sub_->log_tail();

    pqxx::connection warm(sub(db));
    pqxx::nontransaction tx(warm);
    const std::string first = tx.exec1("SELECT id_permute(5, 'k')").at(0).c_str();
    EXPECT_EQ(first, one(pub(db), "SELECT id_permute(5, 'k')"));
    // Replaced on the publisher: the warm session follows.
    exec(pub(db), "UPDATE permute_keys SET key = (SELECT key FROM permute_keys WHERE name = 'other') WHERE name = 'k'");
    ASSERT_TRUE(wait_replicated(pub(db), sub(db), {"permute_keys"})) << sub_->log_tail();
    const std::string now = tx.exec1("SELECT id_permute(5, 'k')").at(0).c_str();
    EXPECT_NE(now, first) << "the subscriber session used the replaced key from its cache";
    EXPECT_EQ(now, one(pub(db), "SELECT id_permute(5, 'k')"));
    // Deleted on the publisher: refused.
    exec(pub(db), "DELETE FROM permute_keys WHERE name = 'k'");
    ASSERT_TRUE(wait_replicated(pub(db), sub(db), {"permute_keys"})) << sub_->log_tail();
    EXPECT_EQ(sqlstate_of_in(tx, "SELECT id_permute(5, 'k')"), "42704");
    exec(sub(db), "DROP SUBSCRIPTION keys");
}

}  // namespace
