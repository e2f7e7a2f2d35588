// amcheck over ulid btree indexes: 1,000,000 keys inserted in generation order (gen_ulid(): every
// insert goes to the rightmost leaf) and 1,000,000 random keys (gen_random_uuid()::ulid: inserts
// everywhere, many page splits), plus a sorted CREATE INDEX build of the same keys.
// bt_index_check(heapallindexed) and bt_index_parent_check must find nothing. A negative control
// shows the check does see a wrongly ordered index in this setup.
#include <gtest/gtest.h>

#include <pqxx/pqxx>
#include <string>

#include "common.h"

namespace {

constexpr int kRows = 1000000;

void check_all(pqxx::work& tx, const std::string& index) {
    tx.exec("SELECT bt_index_check('" + index + "', true)");
    tx.exec("SELECT bt_index_parent_check('" + index + "', true)");
}

class UlidAmcheck : public ::testing::Test {
protected:
    void SetUp() override {
        db_ = std::make_unique<idgen::it::ScratchDb>("it_ulid_amcheck");
        conn_ = std::make_unique<pqxx::connection>(db_->dsn());
        pqxx::nontransaction tx(*conn_);
        tx.exec("CREATE EXTENSION amcheck");
    }
    // The index must hold exactly the table's keys (and be used to count them).
    long index_only_count(const std::string& table) {
        pqxx::work tx(*conn_);
        tx.exec("SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off");
        long n = tx.exec1("SELECT count(*) FROM (SELECT id FROM " + table + " ORDER BY id) s")[0].as<long>();
        bool sorted =
            tx.exec1("SELECT bool_and(ok) FROM (SELECT id > lag(id) OVER (ORDER BY id) AS ok FROM " + table + ") s")[0]
                .as<bool>(false);
        EXPECT_TRUE(sorted) << table << ": index order is not strictly increasing";
        tx.commit();
        return n;
    }
    std::unique_ptr<idgen::it::ScratchDb> db_;
    std::unique_ptr<pqxx::connection> conn_;
};

TEST_F(UlidAmcheck, GeneratedKeysInsertedInOrder) {
    {
        pqxx::work tx(*conn_);
        tx.exec("CREATE TABLE g (id ulid PRIMARY KEY DEFAULT gen_ulid(), n int)");
        tx.exec("INSERT INTO g (n) SELECT generate_series(1, " + std::to_string(kRows) + ")");
        tx.exec("CREATE INDEX g_sorted ON g (id)");  // sorted build of the same keys
        tx.commit();
    }
    pqxx::work tx(*conn_);
    EXPECT_EQ(tx.exec1("SELECT count(*) FROM g")[0].as<long>(), kRows);
    check_all(tx, "g_pkey");
    check_all(tx, "g_sorted");
    // Leaf pages of an append-only btree are packed to the leaf fillfactor (90%).
    tx.commit();
    EXPECT_EQ(index_only_count("g"), kRows);
}

TEST_F(UlidAmcheck, RandomKeysInsertedEverywhere) {
    {
        pqxx::work tx(*conn_);
        tx.exec("CREATE TABLE r (id ulid PRIMARY KEY, n int)");
        tx.exec("INSERT INTO r SELECT gen_random_uuid()::ulid, g FROM generate_series(1, " + std::to_string(kRows) +
                ") g");
        tx.exec("CREATE INDEX r_sorted ON r (id)");
        tx.commit();
    }
    pqxx::work tx(*conn_);
    check_all(tx, "r_pkey");
    check_all(tx, "r_sorted");
    // The btree order agrees with uuid's (same bytes) for every key.
    EXPECT_EQ(tx.exec1("SELECT count(*) FROM (SELECT id, row_number() OVER (ORDER BY id) a, "
                       "row_number() OVER (ORDER BY id::uuid) b FROM r) s WHERE a <> b")[0]
                  .as<long>(),
              0);
    tx.commit();
    EXPECT_EQ(index_only_count("r"), kRows);
}

// Negative control: an index whose comparison function is changed after the build (to the reverse
// order) must be reported by the same calls, or the checks above prove nothing.
TEST_F(UlidAmcheck, DetectsAWronglyOrderedIndex) {
    pqxx::work tx(*conn_);
    tx.exec(
        "CREATE FUNCTION bad_cmp(ulid, ulid) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT public.ulid_cmp($1, $2)'");
    tx.exec(
        "CREATE OPERATOR CLASS ulid_bad_ops FOR TYPE ulid USING btree AS "
        "OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >, FUNCTION 1 bad_cmp(ulid, ulid)");
    tx.exec("CREATE TABLE x (id ulid)");
    tx.exec("INSERT INTO x SELECT gen_ulid() FROM generate_series(1, 10000)");
    tx.exec("CREATE INDEX x_bad ON x (id ulid_bad_ops)");
    tx.exec("SELECT bt_index_check('x_bad', true)");  // still consistent
    tx.exec(
        "CREATE OR REPLACE FUNCTION bad_cmp(ulid, ulid) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT "
        "public.ulid_cmp($2, $1)'");
    tx.commit();
    pqxx::work t2(*conn_);
    std::string state;
    try {
        t2.exec("SELECT bt_index_check('x_bad', true)");
    } catch (const pqxx::sql_error& e) {
        state = e.sqlstate();
    }
    EXPECT_EQ(state, "XX002") << "amcheck did not report a corrupted ulid index";  // index_corrupted
}

}  // namespace
