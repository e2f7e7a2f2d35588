// pg_dump -> restore: the prefix registry (an extension configuration table) survives, and so do
// tables of stored IDs and their prefixed text.
#include <gtest/gtest.h>

#include <pqxx/pqxx>
#include <string>
#include <unistd.h>

#include "common.h"

namespace {

std::string registry(const std::string& dsn) {
    pqxx::connection c(dsn);
    pqxx::nontransaction tx(c);
    std::string out;
    for (const auto& row : tx.exec("SELECT prefix || '=' || owner FROM prefix_registry ORDER BY prefix"))
        out += std::string(row[0].c_str()) + ";";
    return out;
}

std::string accounts(const std::string& dsn) {
    pqxx::connection c(dsn);
    pqxx::nontransaction tx(c);
    return tx
        .exec1(
            "SELECT count(*) || ':' || md5(string_agg(prefixed_format('acct', id) || name || n::text, ',' ORDER BY "
            "id)) "
            "FROM accounts")
        .at(0)
        .c_str();
}

TEST(PrefixedDumpRestore, RegistryAndIdsSurvive) {
    idgen::it::ScratchDb src("it_prefixed_dump_src");
    {
        pqxx::connection c(src.dsn());
        pqxx::nontransaction tx(c);
        tx.exec(
            "SELECT prefix_register('acct', 'accounts'), prefix_register('usr', 'public.users'), "
            "prefix_register('inv2', 'invoices')");
        tx.exec(
            "CREATE TABLE accounts (id uuid PRIMARY KEY DEFAULT gen_uuidv7(), name text, n base36_64, b base36_128)");
        tx.exec(
            "INSERT INTO accounts (name, n, b) SELECT 'a' || g, g::bigint::base36_64, gen_random_uuid()::base36_128 "
            "FROM generate_series(1, 500) g");
    }
    const std::string before = registry(src.dsn());
    const std::string rows_before = accounts(src.dsn());
    ASSERT_EQ(before, "acct=accounts;inv2=invoices;usr=public.users;");

    const std::string file =
        idgen::it::env_or("IDGEN_WORK", "/tmp") + "/prefixed_dump_" + std::to_string(getpid()) + ".dump";
    const std::string conn = "-h '" + idgen::it::env_or("PGHOST", "/tmp") + "' -p " +
                             idgen::it::env_or("PGPORT", "5432") + " -U " + idgen::it::env_or("PGUSER", "postgres");
    ASSERT_EQ(idgen::it::run_pg_tool("pg_dump", conn + " -Fc -f '" + file + "' " + src.name()), 0);

    // Restore into an empty database: the dump itself creates the extension, then loads the rows.
    const std::string dst_name = "it_prefixed_dump_dst";
    {
        pqxx::connection admin(idgen::it::dsn());
        pqxx::nontransaction tx(admin);
        tx.exec("DROP DATABASE IF EXISTS " + dst_name);
        tx.exec("CREATE DATABASE " + dst_name);
    }
    const int rc = idgen::it::run_pg_tool("pg_restore", conn + " --exit-on-error -d " + dst_name + " '" + file + "'");
    std::remove(file.c_str());
    ASSERT_EQ(rc, 0);
    const std::string dst_dsn = idgen::it::dsn(dst_name);
    EXPECT_EQ(registry(dst_dsn), before);
    EXPECT_EQ(accounts(dst_dsn), rows_before);
    {
        pqxx::connection c(dst_dsn);
        pqxx::nontransaction tx(c);
        // Still unique after the restore, and still naming its owner.
        try {
            tx.exec("SELECT prefix_register('acct', 'other')");
            ADD_FAILURE() << "duplicate prefix accepted after restore";
        } catch (const pqxx::sql_error& e) {
            EXPECT_EQ(e.sqlstate(), "42710");
            EXPECT_NE(std::string(e.what()).find("\"accounts\""), std::string::npos) << e.what();
        }
        EXPECT_EQ(tx.exec1("SELECT gen_prefixed('usr') ~ '^usr_[0-9a-z]{25}$'").at(0).as<bool>(), true);
    }
    pqxx::connection admin(idgen::it::dsn());
    pqxx::nontransaction tx(admin);
    tx.exec("DROP DATABASE IF EXISTS " + dst_name + " WITH (FORCE)");
}

}  // namespace
