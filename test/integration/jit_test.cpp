// The LLVM bitcode path. A server built with LLVM (--with-llvm: Debian's 15, and the 18 that
// scripts/pg_versions.sh builds; its 17 is built without, where both tests skip) makes PGXS compile each source file of id_gen to bitcode as well,
// installed under $pkglibdir/bitcode, which the JIT reads to inline id_gen's functions into
// compiled expressions. These tests check that the bitcode is installed and that queries over
// every id_gen type give the same answers with the JIT forced on (inlining included) as without.
#include <sys/stat.h>

#include <regex>

#include "common.h"

namespace {

using idgen::it::ScratchDb;

std::string scalar(pqxx::connection& c, const std::string& sql) {
    pqxx::nontransaction tx(c);
    auto r = tx.exec1(sql);
    return r[0].is_null() ? std::string() : r[0].c_str();
}

bool server_built_with_llvm(pqxx::connection& c) {
    return scalar(c, "SELECT setting FROM pg_config WHERE name = 'CONFIGURE'").find("--with-llvm") != std::string::npos;
}

bool exists(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0;
}

TEST(Jit, BitcodeIsInstalledWhereTheServerHasLlvm) {
    pqxx::connection c(idgen::it::dsn());
    if (!server_built_with_llvm(c)) GTEST_SKIP() << "server built without LLVM: PGXS compiles no bitcode";
    std::string lib = scalar(c, "SELECT setting FROM pg_config WHERE name = 'PKGLIBDIR'");
    std::string index = lib + "/bitcode/id_gen.index.bc";
    ASSERT_TRUE(exists(index)) << index;
    // One module per source file of the library, which the inliner loads through the index.
    for (const char* m :
         {"src/pg/types/ulid.bc", "src/pg/types/snowflake.bc", "src/pg/types/base36.bc", "src/core/types/ulid.bc"}) {
        EXPECT_TRUE(exists(lib + "/bitcode/id_gen/" + m)) << m;
    }
}

// Every expression uses id_gen functions or operators; the result is a digest of all rows.
const char* kQuery =
    "SELECT count(*), md5(string_agg(concat_ws(',', u::text, ulid_time(u), s::text, snowflake_time(s), "
    "  b::text, base36_encode(v), uuid_extract_timestamp(v), u < '01J00000000000000000000000'::ulid, "
    "  s > 100000::snowflake), ';' ORDER BY n)) "
    "FROM jit_t WHERE u > '00000000000000000000000000'::ulid AND s >= 1::snowflake AND b::bigint > 0";

struct Plan {
    long functions = -1;
    bool inlined = false;
};

Plan jit_plan(pqxx::connection& c) {
    pqxx::nontransaction tx(c);
    std::string json = tx.exec1(std::string("EXPLAIN (ANALYZE, FORMAT JSON) ") + kQuery)[0].c_str();
    Plan p;
    std::smatch m;
    if (std::regex_search(json, m, std::regex("\"Functions\": ([0-9]+)"))) p.functions = std::stol(m[1]);
    p.inlined = std::regex_search(json, std::regex("\"Inlining\": true"));
    return p;
}

TEST(Jit, ForcedJitWithInliningGivesTheSameAnswers) {
    ScratchDb db("idgen_jit");
    pqxx::connection c(db.dsn());
    // pg_jit_available() is false while jit is off (the test command's clusters turn it off).
    {
        pqxx::nontransaction tx(c);
        tx.exec("SET jit = on");
    }
    if (scalar(c, "SELECT pg_jit_available()") != "t") {
        ASSERT_FALSE(server_built_with_llvm(c)) << "the server has LLVM but its JIT is not available";
        GTEST_SKIP() << "no JIT on this server";
    }
    {
        pqxx::nontransaction tx(c);
        tx.exec(
            "CREATE TABLE jit_t AS SELECT n, gen_ulid() AS u, gen_snowflake() AS s, "
            "  (n * 7919)::bigint::base36_64 AS b, gen_uuidv7() AS v FROM generate_series(1, 20000) n");
        tx.exec("ANALYZE jit_t");
    }
    std::string plain;
    {
        pqxx::nontransaction tx(c);
        tx.exec("SET jit = off");
        auto r = tx.exec1(kQuery);
        ASSERT_EQ(r[0].as<long>(), 20000);
        plain = r[1].c_str();
    }
    {
        pqxx::nontransaction tx(c);
        tx.exec("SET jit = on");
        tx.exec("SET jit_above_cost = 0");
        tx.exec("SET jit_inline_above_cost = 0");
        tx.exec("SET jit_optimize_above_cost = 0");
        auto r = tx.exec1(kQuery);
        EXPECT_EQ(r[0].as<long>(), 20000);
        EXPECT_EQ(plain, r[1].c_str());
    }
    Plan p = jit_plan(c);
    EXPECT_GT(p.functions, 0) << "the query was not compiled";
    EXPECT_TRUE(p.inlined) << "inlining was not on";
}

}  // namespace
