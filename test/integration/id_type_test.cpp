// Per-entity ID types (create_id_type()) against a live server: pg_dump and restore, plain and
// pg_restore -j 4 with a table's data loaded before the prefix registry's rows; COPY in text and
// binary; generation from many connections at once; the cross-type error at plan time; index use;
// renaming; drop_id_type().
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <pqxx/pqxx>
#include <string>
#include <unistd.h>

#include "common.h"

namespace {

using idgen::it::env_or;

std::string conn_args() {
    return "-h '" + env_or("PGHOST", "/tmp") + "' -p " + env_or("PGPORT", "5432") + " -U " +
           env_or("PGUSER", "postgres");
}

std::string work_file(const std::string& name) {
    return env_or("IDGEN_WORK", "/tmp") + "/" + name + "_" + std::to_string(getpid());
}

std::string one(const std::string& dsn, const std::string& sql) {
    pqxx::connection c(dsn);
    pqxx::nontransaction tx(c);
    auto v = tx.exec1(sql).at(0);
    return v.is_null() ? "<null>" : v.c_str();
}

void exec(const std::string& dsn, const std::string& sql) {
    pqxx::connection c(dsn);
    pqxx::nontransaction tx(c);
    tx.exec(sql);
}

// The SQLSTATE of `sql`, or "" when it succeeds.
std::string sqlstate_of(const std::string& dsn, const std::string& sql) {
    pqxx::connection c(dsn);
    pqxx::nontransaction tx(c);
    try {
        tx.exec(sql);
    } catch (const pqxx::insufficient_privilege& e) {
        return e.sqlstate().empty() ? "42501" : e.sqlstate();  // libpqxx may leave its SQLSTATE out
    } catch (const pqxx::sql_error& e) {
        return e.sqlstate();
    }
    return "";
}

// Three types (one per kind, one in TypeID text) and tables of them, with a column default.
void make_source(const std::string& dsn) {
    exec(dsn, "SELECT create_id_type('account_id', kind => 'ulid', prefix => 'acct')");
    exec(dsn, "SELECT create_id_type('order_id', kind => 'uuidv7', prefix => 'ord', format => 'typeid')");
    exec(dsn, "SELECT create_id_type('event_id', kind => 'snowflake', prefix => 'evt')");
    exec(dsn, "CREATE TABLE accounts (id account_id PRIMARY KEY DEFAULT gen_account_id(), n int)");
    exec(dsn,
         "CREATE TABLE orders (id order_id PRIMARY KEY DEFAULT gen_order_id(), account account_id NOT NULL, "
         "event event_id NOT NULL DEFAULT gen_event_id())");
    exec(dsn, "CREATE INDEX orders_account ON orders (account)");
    exec(dsn, "INSERT INTO accounts (n) SELECT g FROM generate_series(1, 3000) g");
    exec(dsn, "INSERT INTO orders (account) SELECT id FROM accounts, generate_series(1, 2)");
}

// Every row as text, in ID order, hashed.
std::string contents(const std::string& dsn) {
    return one(dsn,
               "SELECT (SELECT count(*) || ':' || md5(string_agg(id::text || '/' || n, ',' ORDER BY id)) FROM "
               "accounts) || ' ' || "
               "(SELECT count(*) || ':' || md5(string_agg(id::text || '/' || account::text || '/' || event::text, ',' "
               "ORDER BY id)) FROM orders)");
}

std::string registry(const std::string& dsn) {
    return one(dsn,
               "SELECT coalesce(string_agg(prefix || '=' || owner, ';' ORDER BY prefix), '') FROM prefix_registry");
}

// What a restored database must do: read, compare, index, generate and drop its types.
void check_restored(const std::string& dsn, const std::string& want_contents, const std::string& want_registry) {
    EXPECT_EQ(contents(dsn), want_contents);
    EXPECT_EQ(registry(dsn), want_registry);
    EXPECT_EQ(one(dsn, "SELECT count(*) FROM orders o JOIN accounts a ON a.id = o.account"), "6000");
    // The restored btree indexes hold their order (amcheck, where the server has it).
    if (one(dsn, "SELECT count(*) FROM pg_available_extensions WHERE name = 'amcheck'") != "0") {
        exec(dsn, "CREATE EXTENSION IF NOT EXISTS amcheck");
        EXPECT_EQ(one(dsn,
                      "SELECT count(*) FROM (SELECT bt_index_check(c.oid, true) FROM pg_class c "
                      "WHERE c.relname IN ('accounts_pkey', 'orders_pkey', 'orders_account')) s"),
                  "3");
    }
    EXPECT_EQ(one(dsn, "SELECT (SELECT max(id) FROM accounts) < gen_account_id()"), "t");
    EXPECT_EQ(one(dsn, "SELECT gen_order_id()::text ~ '^ord_[0-7][0-9a-hjkmnp-tv-z]{25}$'"), "t");
    EXPECT_EQ(sqlstate_of(dsn, "SELECT gen_account_id() = gen_order_id()"), "42883");
    // The prefix is still taken in the restored registry, naming the type.
    EXPECT_EQ(sqlstate_of(dsn, "SELECT create_id_type('customer_id', kind => 'ulid', prefix => 'acct')"), "42710");
    EXPECT_EQ(sqlstate_of(dsn, "SELECT drop_id_type('account_id')"), "2BP01");
    exec(dsn, "DROP TABLE orders");
    exec(dsn, "SELECT drop_id_type('order_id'), drop_id_type('event_id')");
    EXPECT_EQ(registry(dsn), "acct=ID type public.account_id");
}

class FreshDb {
public:
    explicit FreshDb(std::string name) : name_(std::move(name)) {
        pqxx::connection admin(idgen::it::dsn());
        pqxx::nontransaction tx(admin);
        tx.exec("DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)");
        tx.exec("CREATE DATABASE " + name_);
    }
    ~FreshDb() {
        try {
            pqxx::connection admin(idgen::it::dsn());
            pqxx::nontransaction tx(admin);
            tx.exec("DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)");
        } catch (...) {}
    }
    [[nodiscard]] std::string dsn() const { return idgen::it::dsn(name_); }
    [[nodiscard]] const std::string& name() const { return name_; }

private:
    std::string name_;
};

}  // namespace

TEST(IdTypeDumpRestore, Plain) {
    idgen::it::ScratchDb src("it_idtype_plain_src");
    make_source(src.dsn());
    const std::string want = contents(src.dsn());
    const std::string want_registry = registry(src.dsn());
    ASSERT_EQ(want_registry, "acct=ID type public.account_id;evt=ID type public.event_id;ord=ID type public.order_id");
    const std::string file = work_file("idtype_plain") + ".sql";
    ASSERT_EQ(idgen::it::run_pg_tool("pg_dump", conn_args() + " -Fp -f '" + file + "' " + src.name()), 0);
    FreshDb dst("it_idtype_plain_dst");
    const int rc = idgen::it::run_pg_tool(
        "psql", conn_args() + " -X -q -v ON_ERROR_STOP=1 -d " + dst.name() + " -f '" + file + "' >/dev/null");
    std::remove(file.c_str());
    ASSERT_EQ(rc, 0);
    check_restored(dst.dsn(), want, want_registry);
}

// pg_restore -j 4, in three steps so that the order is certain: pre-data (the extension, the
// types, the tables), then the data of the tables that use the types alone (the registry is still
// empty: the input functions read nothing from it), then everything else.
TEST(IdTypeDumpRestore, ParallelWithDataBeforeRegistry) {
    idgen::it::ScratchDb src("it_idtype_par_src");
    make_source(src.dsn());
    const std::string want = contents(src.dsn());
    const std::string want_registry = registry(src.dsn());
    const std::string file = work_file("idtype_par") + ".dump";
    const std::string list = work_file("idtype_par") + ".list";
    ASSERT_EQ(idgen::it::run_pg_tool("pg_dump", conn_args() + " -Fc -f '" + file + "' " + src.name()), 0);
    FreshDb dst("it_idtype_par_dst");
    ASSERT_EQ(idgen::it::run_pg_tool("pg_restore", conn_args() + " --exit-on-error --section=pre-data -d " +
                                                       dst.name() + " '" + file + "'"),
              0);
    EXPECT_EQ(registry(dst.dsn()), "");
    ASSERT_EQ(idgen::it::run_pg_tool(
                  "pg_restore", "-l '" + file + "' | grep -E 'TABLE DATA public (accounts|orders) ' > '" + list + "'"),
              0);
    {
        std::ifstream in(list);
        const std::string entries((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        EXPECT_NE(entries.find("accounts"), std::string::npos);
        EXPECT_NE(entries.find("orders"), std::string::npos);
    }
    ASSERT_EQ(idgen::it::run_pg_tool("pg_restore", conn_args() + " --exit-on-error -j 4 -L '" + list + "' -d " +
                                                       dst.name() + " '" + file + "'"),
              0);
    // The rows are in, read through the types' input functions, and the registry is still empty.
    EXPECT_EQ(registry(dst.dsn()), "");
    EXPECT_EQ(contents(dst.dsn()), want);
    ASSERT_EQ(idgen::it::run_pg_tool(
                  "pg_restore", "-l '" + file + "' | grep -vE 'TABLE DATA public (accounts|orders) ' > '" + list + "'"),
              0);
    ASSERT_EQ(idgen::it::run_pg_tool("pg_restore", conn_args() +
                                                       " --exit-on-error -j 4 --section=data --section=post-data -L '" +
                                                       list + "' -d " + dst.name() + " '" + file + "'"),
              0);
    check_restored(dst.dsn(), want, want_registry);

    // And in one go, as users run it.
    FreshDb dst2("it_idtype_par_dst2");
    const int rc = idgen::it::run_pg_tool("pg_restore",
                                          conn_args() + " --exit-on-error -j 4 -d " + dst2.name() + " '" + file + "'");
    std::remove(file.c_str());
    std::remove(list.c_str());
    ASSERT_EQ(rc, 0);
    check_restored(dst2.dsn(), want, want_registry);
}

// COPY out and back in, text and binary; the binary form is the kind's.
TEST(IdType, CopyTextAndBinary) {
    idgen::it::ScratchDb db("it_idtype_copy");
    make_source(db.dsn());
    exec(db.dsn(), "CREATE TABLE orders_text (LIKE orders); CREATE TABLE orders_bin (LIKE orders)");
    const std::string text_file = work_file("idtype_copy") + ".txt";
    const std::string bin_file = work_file("idtype_copy") + ".bin";
    const std::string kind_file = work_file("idtype_copy_kind") + ".bin";
    const std::string psql = conn_args() + " -X -q -v ON_ERROR_STOP=1 -d " + db.name();
    ASSERT_EQ(idgen::it::run_pg_tool("psql",
                                     psql + " -c \"\\copy (SELECT * FROM orders ORDER BY id) TO '" + text_file + "'\""),
              0);
    ASSERT_EQ(idgen::it::run_pg_tool("psql", psql + " -c \"\\copy (SELECT * FROM orders ORDER BY id) TO '" + bin_file +
                                                 "' WITH (FORMAT binary)\""),
              0);
    ASSERT_EQ(
        idgen::it::run_pg_tool(
            "psql", psql +
                        " -c \"\\copy (SELECT id::uuid, account::ulid, event::snowflake FROM orders ORDER BY id) TO '" +
                        kind_file + "' WITH (FORMAT binary)\""),
        0);
    ASSERT_EQ(idgen::it::run_pg_tool("psql", psql + " -c \"\\copy orders_text FROM '" + text_file + "'\""), 0);
    ASSERT_EQ(
        idgen::it::run_pg_tool("psql", psql + " -c \"\\copy orders_bin FROM '" + bin_file + "' WITH (FORMAT binary)\""),
        0);
    std::ifstream a(bin_file, std::ios::binary), b(kind_file, std::ios::binary);
    const std::string bin((std::istreambuf_iterator<char>(a)), std::istreambuf_iterator<char>());
    const std::string kind((std::istreambuf_iterator<char>(b)), std::istreambuf_iterator<char>());
    std::ifstream t(text_file);
    const std::string first_line = [&] {
        std::string l;
        std::getline(t, l);
        return l;
    }();
    std::remove(text_file.c_str());
    std::remove(bin_file.c_str());
    std::remove(kind_file.c_str());
    EXPECT_GT(bin.size(), 6000u * 40u);
    EXPECT_EQ(bin, kind);
    EXPECT_TRUE(first_line.rfind("ord_", 0) == 0) << first_line;
    EXPECT_NE(first_line.find("\tacct_"), std::string::npos) << first_line;
    EXPECT_NE(first_line.find("\tevt_"), std::string::npos) << first_line;
    EXPECT_EQ(one(db.dsn(), "SELECT count(*) FROM orders_text"), "6000");
    EXPECT_EQ(one(db.dsn(), "SELECT count(*) FROM orders_bin"), "6000");
    EXPECT_EQ(one(db.dsn(),
                  "SELECT count(*) FROM orders o FULL JOIN orders_text c ON c.id = o.id AND c.account = o.account AND "
                  "c.event = o.event WHERE o.id IS NULL OR c.id IS NULL"),
              "0");
    EXPECT_EQ(one(db.dsn(),
                  "SELECT count(*) FROM orders o FULL JOIN orders_bin c ON c.id = o.id AND c.account = o.account AND "
                  "c.event = o.event WHERE o.id IS NULL OR c.id IS NULL"),
              "0");
}

// Eight connections generating at once: no duplicate, ascending within each connection (the text
// is fixed width, so text order is ID order).
TEST(IdType, ConcurrentGenerationIsUnique) {
    idgen::it::ScratchDb db("it_idtype_conc");
    make_source(db.dsn());
    std::vector<std::string> dsns(8, db.dsn());
    idgen::it::generate_in_parallel<std::string>(dsns, idgen::it::series_query("gen_account_id()", "text", 5000), 5000);
    idgen::it::generate_in_parallel<std::string>(dsns, idgen::it::series_query("gen_order_id()", "text", 5000), 5000);
    idgen::it::generate_in_parallel<std::string>(dsns, idgen::it::series_query("gen_event_id()", "text", 5000), 5000);
}

// account_id = order_id fails when the statement is planned (PREPARE runs nothing); account_id =
// account_id is answered from the index.
TEST(IdType, CrossTypeErrorAndIndexUse) {
    idgen::it::ScratchDb db("it_idtype_plan");
    make_source(db.dsn());
    EXPECT_EQ(sqlstate_of(db.dsn(), "PREPARE p AS SELECT * FROM orders o JOIN accounts a ON a.id = o.id"), "42883");
    EXPECT_EQ(sqlstate_of(db.dsn(), "PREPARE p AS SELECT * FROM orders WHERE account = $1::order_id"), "42883");
    EXPECT_EQ(sqlstate_of(db.dsn(), "PREPARE p AS SELECT * FROM orders WHERE account = $1::account_id"), "");
    exec(db.dsn(), "ANALYZE accounts, orders");
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    const std::string id = tx.exec1("SELECT id::text FROM accounts ORDER BY id OFFSET 1234 LIMIT 1").at(0).c_str();
    std::string plan;
    for (const auto& row : tx.exec("EXPLAIN SELECT * FROM orders WHERE account = " + tx.quote(id) + "::account_id"))
        plan += std::string(row[0].c_str()) + "\n";
    EXPECT_NE(plan.find("orders_account"), std::string::npos) << plan;
    EXPECT_EQ(plan.find("Seq Scan"), std::string::npos) << plan;
    EXPECT_EQ(tx.exec1("SELECT count(*) FROM orders WHERE account = " + tx.quote(id) + "::account_id").at(0).as<int>(),
              2);
}

// The text functions find a type's spec through its own catalog entries: a renamed type (and a
// type in a renamed schema) keeps reading and writing its text, in the session that renamed it
// (the cached spec is dropped on the catalog change) and in a new one.
TEST(IdType, RenamedTypeKeepsItsText) {
    idgen::it::ScratchDb db("it_idtype_rename");
    make_source(db.dsn());
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    const std::string before =
        tx.exec1("SELECT md5(string_agg(id::text, ',' ORDER BY id)) FROM accounts").at(0).c_str();
    tx.exec("ALTER TYPE account_id RENAME TO customer_id");
    EXPECT_EQ(tx.exec1("SELECT md5(string_agg(id::text, ',' ORDER BY id)) FROM accounts").at(0).c_str(), before);
    EXPECT_EQ(tx.exec1("SELECT 'acct_0000000000000000000000001'::customer_id::text").at(0).c_str(),
              std::string("acct_0000000000000000000000001"));
    EXPECT_EQ(one(db.dsn(), "SELECT md5(string_agg(id::text, ',' ORDER BY id)) FROM accounts"), before);
    tx.exec("DROP TABLE orders");
    tx.exec("SELECT drop_id_type('customer_id', cascade => true)");
    EXPECT_EQ(tx.exec1("SELECT count(*) FROM prefix_registry WHERE prefix = 'acct'").at(0).as<int>(), 0);
    EXPECT_EQ(tx.exec1("SELECT count(*) FROM pg_proc WHERE proname LIKE 'account_id%'").at(0).as<int>(), 0);
}

// The extension's schema renamed (its owner may do that) after types were made: their spec
// functions name the old schema in their text, and their rows still read and write the same.
TEST(IdType, ExtensionSchemaRenamedKeepsTypesReadable) {
    idgen::it::ScratchDb db("it_idtype_nsp_rename");
    make_source(db.dsn());
    const std::string before = one(db.dsn(), "SELECT md5(string_agg(id::text, ',' ORDER BY id)) FROM accounts");
    exec(db.dsn(), "ALTER SCHEMA public RENAME TO ids_elsewhere");
    EXPECT_EQ(one(db.dsn(), "SELECT md5(string_agg(id::text, ',' ORDER BY id)) FROM ids_elsewhere.accounts"), before);
    EXPECT_EQ(one(db.dsn(), "SELECT 'acct_0000000000000000000000001'::ids_elsewhere.account_id::text"),
              "acct_0000000000000000000000001");
    EXPECT_EQ(one(db.dsn(), "SELECT (ids_elsewhere.id_type_describe('ids_elsewhere.event_id')).prefix"), "evt");
    exec(db.dsn(), "ALTER SCHEMA ids_elsewhere RENAME TO public");
}

// The extension in a schema whose name needs quoting: create_id_type()'s default schema is that
// schema (0.2.0 took the quoted name for the name, and failed with 3F000), and the type works.
TEST(IdType, ExtensionInASchemaWhoseNameNeedsQuoting) {
    idgen::it::ScratchDb db("it_idtype_quoted_nsp");
    exec(db.dsn(),
         "DROP EXTENSION id_gen; CREATE SCHEMA \"Id Gen\" AUTHORIZATION postgres; CREATE EXTENSION id_gen SCHEMA \"Id "
         "Gen\"");
    EXPECT_EQ(one(db.dsn(), "SELECT \"Id Gen\".create_id_type('quoted_id', kind => 'ulid', prefix => 'qid')::text"),
              "\"Id Gen\".quoted_id");
    EXPECT_EQ(one(db.dsn(), "SELECT \"Id Gen\".gen_quoted_id()::text ~ '^qid_[0-9a-z]{25}$'"), "t");
    exec(db.dsn(), "SELECT \"Id Gen\".drop_id_type('\"Id Gen\".quoted_id')");
    EXPECT_EQ(one(db.dsn(), "SELECT count(*) FROM pg_type WHERE typname = 'quoted_id'"), "0");
}

// Soft input errors (PostgreSQL 16 and later): pg_input_is_valid() and pg_input_error_info() on a
// created type, without raising.
TEST(IdType, SoftInputErrors) {
    idgen::it::ScratchDb db("it_idtype_soft");
    if (std::stoi(one(db.dsn(), "SHOW server_version_num")) < 160000)
        GTEST_SKIP() << "no soft input errors before PostgreSQL 16";
    make_source(db.dsn());
    EXPECT_EQ(one(db.dsn(), "SELECT pg_input_is_valid('acct_0000000000000000000000001', 'account_id')"), "t");
    EXPECT_EQ(one(db.dsn(), "SELECT pg_input_is_valid('acct_x', 'account_id')"), "f");
    EXPECT_EQ(one(db.dsn(),
                  "SELECT sql_error_code || ' ' || message FROM pg_input_error_info('ord_01h455vb4pex5vsknk084sn02q', "
                  "'account_id')"),
              "22P02 invalid input syntax for a prefixed ID: type account_id expects prefix \"acct\", found \"ord\" in "
              "\"ord_01h455vb4pex5vsknk084sn02q\"");
    EXPECT_EQ(one(db.dsn(), "SELECT sql_error_code FROM pg_input_error_info('evt_0000000000000', 'event_id')"),
              "22003");
}

// --- The spec function is trusted only while a superuser owns it, as create_id_type() wrote it,
// with a kind that matches the type's storage (src/pg/registries/id_type.cpp, "Trust"), and a warm session
// learns of another session's change at its next statement.

namespace {

// Roles for the trust tests, made before the database (and so dropped after it, with their objects).
class TrustRoles {
public:
    TrustRoles() {
        exec(idgen::it::dsn(),
             "DROP ROLE IF EXISTS it_idtype_admin; DROP ROLE IF EXISTS it_idtype_plain;"
             "CREATE ROLE it_idtype_admin SUPERUSER; CREATE ROLE it_idtype_plain");
    }
    ~TrustRoles() {
        try {
            exec(idgen::it::dsn(), "DROP ROLE IF EXISTS it_idtype_admin; DROP ROLE IF EXISTS it_idtype_plain");
        } catch (...) {}
    }
    TrustRoles(const TrustRoles&) = delete;
    TrustRoles& operator=(const TrustRoles&) = delete;
};

// The SQLSTATE and message of `sql` on an open connection, or "" when it succeeds.
std::string error_of(pqxx::connection& c, const std::string& sql) {
    pqxx::nontransaction tx(c);
    try {
        tx.exec(sql);
    } catch (const pqxx::insufficient_privilege& e) {
        return (e.sqlstate().empty() ? std::string("42501") : e.sqlstate()) + " " + e.what();
    } catch (const pqxx::sql_error& e) {
        return e.sqlstate() + " " + e.what();
    }
    return "";
}

std::string one_on(pqxx::connection& c, const std::string& sql) {
    pqxx::nontransaction tx(c);
    auto v = tx.exec1(sql).at(0);
    return v.is_null() ? "<null>" : v.c_str();
}

// ledger_id (ulid, "ldg") and item_id (snowflake, "itm"), made by it_idtype_admin (a superuser
// until a test demotes it) in schema trust, where it may create functions, and a row of each.
void make_trusted_types(const std::string& dsn) {
    exec(dsn,
         "CREATE SCHEMA trust; GRANT USAGE, CREATE ON SCHEMA trust TO it_idtype_admin, it_idtype_plain;"
         "SET ROLE it_idtype_admin;"
         "SELECT create_id_type('ledger_id', kind => 'ulid', prefix => 'ldg', schema_name => 'trust');"
         "SELECT create_id_type('item_id', kind => 'snowflake', prefix => 'itm', schema_name => 'trust');"
         "RESET ROLE;"
         "CREATE TABLE ledger (id trust.ledger_id, item trust.item_id);"
         "INSERT INTO ledger VALUES ('ldg_0000000000000000000000001', 'itm_000000000003f')");
}

std::string spec_body(const std::string& spec) { return "$$SELECT public.id_type_typmod_in($1, '" + spec + "')$$"; }

std::string replace_spec(const std::string& type, const std::string& spec) {
    return "CREATE OR REPLACE FUNCTION trust." + type +
           "_typmod_in(cstring[]) RETURNS int4 LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS " + spec_body(spec);
}

const std::string kRow = "ldg_0000000000000000000000001 itm_000000000003f";
const std::string kReadRow = "SELECT id::text || ' ' || item::text FROM ledger";

}  // namespace

// Another session demotes the types' owner, then that owner rewrites a spec: the warm session
// (its spec cached per call site and per backend) refuses from its next statement, in
// session_replication_role = replica too; the type's owner back to a superuser, it reads again.
TEST(IdTypeTrust, OtherSessionsDemotionAndRewriteReachWarmSession) {
    TrustRoles roles;
    idgen::it::ScratchDb db("it_idtype_trust_demote");
    make_trusted_types(db.dsn());
    pqxx::connection warm(db.dsn());
    pqxx::connection replica(db.dsn());
    one_on(replica, "SELECT set_config('session_replication_role', 'replica', false)");
    ASSERT_EQ(one_on(warm, kReadRow), kRow);
    ASSERT_EQ(one_on(replica, kReadRow), kRow);

    exec(db.dsn(), "ALTER ROLE it_idtype_admin NOSUPERUSER");
    for (auto* c : {&warm, &replica}) {
        const std::string e = error_of(*c, kReadRow);
        EXPECT_EQ(e.substr(0, 6), "42501 ") << e;
        EXPECT_NE(
            e.find(
                "trust.ledger_id_typmod_in(cstring[]) is owned by role \"it_idtype_admin\", which is not a superuser"),
            std::string::npos)
            << e;
        EXPECT_EQ(error_of(*c, "SELECT 'itm_000000000003f'::trust.item_id").substr(0, 6), "42501 ");
    }
    // The demoted owner changes the prefix: still refused (the body is its own now).
    exec(db.dsn(), "SET ROLE it_idtype_admin; " + replace_spec("ledger_id", "kind=ulid format=prefixed prefix=evil"));
    EXPECT_EQ(error_of(warm, kReadRow).substr(0, 6), "42501 ");
    EXPECT_EQ(error_of(warm, "SELECT 'evil_0000000000000000000000001'::trust.ledger_id").substr(0, 6), "42501 ");
    // A superuser takes the function over and restores its body; item_id's owner is a superuser
    // again: both read again in the warm sessions.
    exec(db.dsn(), "ALTER FUNCTION trust.ledger_id_typmod_in(cstring[]) OWNER TO postgres; " +
                       replace_spec("ledger_id", "kind=ulid format=prefixed prefix=ldg") +
                       "; ALTER ROLE it_idtype_admin SUPERUSER");
    EXPECT_EQ(one_on(warm, kReadRow), kRow);
    EXPECT_EQ(one_on(replica, kReadRow), kRow);
    // Ownership given to a role that is not a superuser: refused in both.
    exec(db.dsn(), "ALTER FUNCTION trust.item_id_typmod_in(cstring[]) OWNER TO it_idtype_plain");
    EXPECT_EQ(error_of(warm, kReadRow).substr(0, 6), "42501 ");
    EXPECT_EQ(error_of(replica, kReadRow).substr(0, 6), "42501 ");
    // drop_id_type() reads the prefix to free through the same check: that role's body cannot make
    // it free another type's prefix.
    exec(db.dsn(), "SET ROLE it_idtype_plain; " + replace_spec("item_id", "kind=snowflake format=prefixed prefix=ldg"));
    EXPECT_EQ(sqlstate_of(db.dsn(), "SELECT drop_id_type('trust.item_id', cascade => true)"), "42501");
    EXPECT_EQ(one(db.dsn(), "SELECT string_agg(prefix || '=' || owner, ';' ORDER BY prefix) FROM prefix_registry"),
              "itm=ID type trust.item_id;ldg=ID type trust.ledger_id");
}

// A superuser's rewrite that swaps the kind (ulid <-> snowflake) never reaches the codec: the
// warm session's next statement is refused (XX000), input included, and the backend and the
// postmaster live on. A transaction that read before the swap may keep the spec it loaded until
// it takes a new lock, but never the swapped one.
TEST(IdTypeTrust, KindSwapIsRefusedWithoutCrash) {
    TrustRoles roles;
    idgen::it::ScratchDb db("it_idtype_trust_kind");
    make_trusted_types(db.dsn());
    pqxx::connection warm(db.dsn());
    const std::string pid = one_on(warm, "SELECT pg_backend_pid()");
    const std::string started = one_on(warm, "SELECT pg_postmaster_start_time()");
    ASSERT_EQ(one_on(warm, kReadRow), kRow);
    {
        pqxx::work in_flight(warm);
        EXPECT_EQ(in_flight.exec1(kReadRow).at(0).as<std::string>(), kRow);
        exec(db.dsn(), replace_spec("ledger_id", "kind=snowflake format=prefixed prefix=ldg") + "; " +
                           replace_spec("item_id", "kind=ulid format=prefixed prefix=itm"));
        try {
            EXPECT_EQ(in_flight.exec1(kReadRow).at(0).as<std::string>(), kRow);
        } catch (const pqxx::sql_error& e) {
            EXPECT_EQ(e.sqlstate(), "XX000") << e.what();
        }
    }
    for (const std::string& sql :
         {kReadRow, std::string("SELECT '01ARZ3NDEKTSV4RRFFQ69G5FAV'::ulid::trust.ledger_id::text"),
          std::string("INSERT INTO ledger (id) VALUES ('ldg_000000000003f')"),
          std::string("INSERT INTO ledger (item) VALUES ('itm_0000000000000000000000001')"),
          std::string("SELECT * FROM id_type_describe('trust.ledger_id')")}) {
        const std::string e = error_of(warm, sql);
        EXPECT_EQ(e.substr(0, 6), "XX000 ") << sql << ": " << e;
    }
    const std::string e = error_of(warm, "SELECT id FROM ledger");
    EXPECT_NE(e.find("says kind snowflake, but the type is stored as 16 bytes by reference"), std::string::npos) << e;
    EXPECT_EQ(one_on(warm, "SELECT pg_backend_pid()"), pid);
    EXPECT_EQ(one(db.dsn(), "SELECT pg_postmaster_start_time()"), started);
    EXPECT_EQ(one(db.dsn(), "SELECT count(*) FROM ledger"), "1");
    // Bodies restored by a superuser: both read again, in the warm session and a new one.
    exec(db.dsn(), replace_spec("ledger_id", "kind=ulid format=prefixed prefix=ldg") + "; " +
                       replace_spec("item_id", "kind=snowflake format=prefixed prefix=itm"));
    EXPECT_EQ(one_on(warm, kReadRow), kRow);
    EXPECT_EQ(one(db.dsn(), kReadRow), kRow);
}
