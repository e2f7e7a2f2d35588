// pg_dump -Fc of a database that uses ulid everywhere a user would (primary key with a generator
// default, hash and BRIN indexes, an array column, a view over ulid_time) restores with pg_restore
// into a fresh database with the same contents and valid, usable indexes.
#include <gtest/gtest.h>

#include <cstdio>
#include <pqxx/pqxx>
#include <string>

#include "common.h"

namespace {

// A database without the extension: pg_restore must create it from the dump.
class EmptyDb {
public:
    explicit EmptyDb(std::string name) : name_(std::move(name)) {
        pqxx::connection admin(idgen::it::dsn());
        pqxx::nontransaction tx(admin);
        tx.exec("DROP DATABASE IF EXISTS " + tx.quote_name(name_) + " WITH (FORCE)");
        tx.exec("CREATE DATABASE " + tx.quote_name(name_));
    }
    ~EmptyDb() {
        try {
            pqxx::connection admin(idgen::it::dsn());
            pqxx::nontransaction tx(admin);
            tx.exec("DROP DATABASE IF EXISTS " + tx.quote_name(name_) + " WITH (FORCE)");
        } catch (...) {}
    }
    [[nodiscard]] std::string dsn() const { return idgen::it::dsn(name_); }
    [[nodiscard]] const std::string& name() const { return name_; }

private:
    std::string name_;
};

constexpr int kRows = 100000;

// Everything that must come back identical, as one string per aspect.
struct Fingerprint {
    std::string table_md5, view_md5, array_md5, rows, id_default, indexes;
};

Fingerprint fingerprint(pqxx::connection& c) {
    pqxx::work tx(c);
    Fingerprint f;
    f.table_md5 = tx.exec1(
                        "SELECT md5(string_agg(id::text || '|' || n || '|' || uuid_send(id::uuid)::text, ',' ORDER BY "
                        "id)) FROM t")[0]
                      .c_str();
    f.view_md5 = tx.exec1("SELECT md5(string_agg(id::text || '|' || ts::text, ',' ORDER BY id)) FROM v")[0].c_str();
    f.array_md5 =
        tx.exec1("SELECT md5(string_agg(coalesce(related::text, 'NULL'), ',' ORDER BY id)) FROM t")[0].c_str();
    f.rows = tx.exec1("SELECT count(*) FROM t")[0].c_str();
    f.id_default =
        tx.exec1("SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef WHERE adrelid = 't'::regclass")[0].c_str();
    f.indexes = tx.exec1(
                      "SELECT string_agg(c.relname || ':' || am.amname || ':' || i.indisvalid || ':' || i.indisready, "
                      "',' ORDER BY c.relname) "
                      "FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam "
                      "WHERE i.indrelid = 't'::regclass")[0]
                    .c_str();
    return f;
}

TEST(UlidDumpRestore, CustomFormatDumpRestoresIdenticalContentsAndValidIndexes) {
    idgen::it::ScratchDb src("it_ulid_dump_src");
    EmptyDb dst("it_ulid_dump_dst");
    {
        pqxx::connection c(src.dsn());
        pqxx::work tx(c);
        tx.exec("CREATE TABLE t (id ulid PRIMARY KEY DEFAULT gen_ulid(), n int NOT NULL, related ulid[])");
        // Generated over a spread of times so the view's timestamps differ, plus extremes.
        tx.exec(
            "INSERT INTO t (id, n) SELECT gen_ulid(timestamptz '2020-01-01' + g * interval '7 seconds'), g "
            "FROM generate_series(1, " +
            std::to_string(kRows / 2) + ") g");
        tx.exec("INSERT INTO t (n) SELECT g FROM generate_series(" + std::to_string(kRows / 2 + 1) + ", " +
                std::to_string(kRows) + ") g");
        tx.exec("INSERT INTO t (id, n) VALUES ('00000000000000000000000000', 0), ('7ZZZZZZZZZZZZZZZZZZZZZZZZZ', -1)");
        tx.exec("UPDATE t SET related = ARRAY[id, '01ARZ3NDEKTSV4RRFFQ69G5FAV'::ulid] WHERE n % 10 = 0");
        tx.exec("CREATE INDEX t_id_hash ON t USING hash (id)");
        tx.exec("CREATE INDEX t_id_brin ON t USING brin (id)");
        tx.exec("CREATE VIEW v AS SELECT id, ulid_time(id) AS ts FROM t");
        tx.commit();
    }
    pqxx::connection sc(src.dsn());
    const Fingerprint before = fingerprint(sc);
    ASSERT_EQ(before.rows, std::to_string(kRows + 2));

    const std::string file = idgen::it::env_or("IDGEN_WORK", "/tmp") + "/it_ulid_dump.custom";
    const std::string conn_args = " -h '" + idgen::it::env_or("PGHOST", "/tmp") + "' -p " +
                                  idgen::it::env_or("PGPORT", "5432") + " -U " +
                                  idgen::it::env_or("PGUSER", "postgres");
    ASSERT_EQ(idgen::it::run_pg_tool("pg_dump", "-Fc" + conn_args + " -f '" + file + "' " + src.name()), 0);
    ASSERT_EQ(
        idgen::it::run_pg_tool("pg_restore", "--exit-on-error" + conn_args + " -d " + dst.name() + " '" + file + "'"),
        0);
    std::remove(file.c_str());

    pqxx::connection dc(dst.dsn());
    const Fingerprint after = fingerprint(dc);
    EXPECT_EQ(after.rows, before.rows);
    EXPECT_EQ(after.table_md5, before.table_md5);
    EXPECT_EQ(after.view_md5, before.view_md5);
    EXPECT_EQ(after.array_md5, before.array_md5);
    EXPECT_EQ(after.id_default, "gen_ulid()");
    EXPECT_EQ(after.indexes, "t_id_brin:brin:true:true,t_id_hash:hash:true:true,t_pkey:btree:true:true");
    EXPECT_EQ(after.indexes, before.indexes);

    // The restored indexes answer queries: each one in turn is the only way in (seqscan off,
    // the others dropped inside a transaction that is rolled back).
    pqxx::work tx(dc);
    tx.exec("CREATE EXTENSION amcheck");
    tx.exec("SELECT bt_index_check('t_pkey', true)");
    const std::string probe = tx.exec1("SELECT id::text FROM t WHERE n = 4242")[0].c_str();
    const long in_range =
        tx.exec1("SELECT count(*) FROM t WHERE ulid_time(id) >= '2020-01-02' AND ulid_time(id) < '2020-01-03'")[0]
            .as<long>();
    EXPECT_GT(in_range, 10000);  // 86400 s / 7 s
    auto plan_of = [&](const std::string& sql) {
        std::string plan;
        for (const auto& row : tx.exec("EXPLAIN " + sql)) plan += row[0].c_str() + std::string("\n");
        return plan;
    };
    tx.exec("SET LOCAL enable_seqscan = off");
    const std::string by_id = "SELECT n FROM t WHERE id = '" + probe + "'";
    const std::string by_range =
        "SELECT count(*) FROM t WHERE id >= ulid_lower('2020-01-02') AND id <= ulid_upper('2020-01-02 23:59:59.999')";
    EXPECT_EQ(tx.exec1(by_id)[0].as<int>(), 4242);
    EXPECT_EQ(tx.exec1(by_range)[0].as<long>(), in_range);
    tx.exec("SAVEPOINT s");
    tx.exec("DROP INDEX t_id_hash");
    EXPECT_NE(plan_of(by_id).find("t_pkey"), std::string::npos) << plan_of(by_id);
    EXPECT_EQ(tx.exec1(by_id)[0].as<int>(), 4242);
    tx.exec("ROLLBACK TO SAVEPOINT s");
    tx.exec("ALTER TABLE t DROP CONSTRAINT t_pkey");
    EXPECT_NE(plan_of(by_id).find("t_id_hash"), std::string::npos) << plan_of(by_id);
    EXPECT_EQ(tx.exec1(by_id)[0].as<int>(), 4242);
    tx.exec("DROP INDEX t_id_hash");
    EXPECT_NE(plan_of(by_range).find("t_id_brin"), std::string::npos) << plan_of(by_range);
    EXPECT_EQ(tx.exec1(by_range)[0].as<long>(), in_range);
    tx.abort();

    // The generator default still works in the restored database and sorts after existing IDs
    // (other than the all-ones extreme).
    pqxx::work tx2(dc);
    tx2.exec("INSERT INTO t (n) VALUES (-7)");
    EXPECT_TRUE(
        tx2.exec1("SELECT (SELECT id FROM t WHERE n = -7) > (SELECT max(id) FROM t WHERE n > 0)")[0].as<bool>());
    tx2.abort();
}

}  // namespace
