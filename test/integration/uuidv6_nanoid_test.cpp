// UUIDv6 and NanoID against independent implementations: the npm packages `uuid` and `nanoid`
// (installed by scripts/npm_oracles.sh, run with node through test/oracle/uuid_nanoid.mjs), plus
// concurrency and a χ² test of gen_nanoid() over 1,000,000 characters on the server.
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common.h"

namespace {

using idgen::it::ScratchDb;

// Runs the oracle script with `cmd` (and `arg`), `input` lines on stdin; returns its lines.
std::vector<std::string> oracle(const std::string& cmd, const std::string& arg, const std::vector<std::string>& input) {
    const std::string work = idgen::it::env_or("IDGEN_WORK", "/tmp");
    const std::string in = work + "/oracle_in_" + cmd + ".txt", out = work + "/oracle_out_" + cmd + ".txt";
    {
        std::ofstream f(in);
        for (const auto& l : input) f << l << '\n';
    }
    const std::string line =
        "node " IDGEN_SOURCE_DIR "/test/oracle/uuid_nanoid.mjs " + cmd + " " + arg + " <" + in + " >" + out;
    const int rc = std::system(line.c_str());
    EXPECT_EQ(rc, 0) << line;
    std::vector<std::string> lines;
    std::ifstream f(out);
    for (std::string l; std::getline(f, l);) lines.push_back(l);
    std::remove(in.c_str());
    std::remove(out.c_str());
    return lines;
}

std::vector<std::string> split(const std::string& s) {
    std::istringstream is(s);
    std::vector<std::string> w;
    for (std::string x; is >> x;) w.push_back(x);
    return w;
}

std::string joined(const std::vector<std::string>& v, std::size_t field) {
    std::string s;
    for (const auto& l : v) {
        s += split(l).at(field);
        s += '\n';
    }
    return s;
}

constexpr int kValues = 100000;

class Oracle : public ::testing::Test {
protected:
    void SetUp() override {
        if (!std::getenv("IDGEN_NPM_DIR"))
            GTEST_SKIP()
                << "IDGEN_NPM_DIR is not set: scripts/test.sh installs the npm oracles (scripts/npm_oracles.sh)";
    }
};

}  // namespace

// 100,000 uuidv6() values: npm's parser accepts each as a valid version 6 UUID, prints it back the
// same, and its v6ToV1 gives what our uuid_v6_to_v1 gives.
TEST_F(Oracle, NpmUuidReadsOurUuidv6) {
    ScratchDb db("it_v6_npm_reads");
    pqxx::connection c(db.dsn());
    pqxx::work tx(c);
    auto r = tx.exec(
        "SELECT id::text, uuid_v6_to_v1(id)::text FROM (SELECT n, uuidv6() AS id FROM "
        "generate_series(1, " +
        std::to_string(kValues) + ") n) s ORDER BY n");
    ASSERT_EQ(r.size(), static_cast<std::size_t>(kValues));
    std::vector<std::string> ids;
    for (const auto& row : r) ids.push_back(row[0].c_str());
    const auto out = oracle("v6-read", "", ids);
    ASSERT_EQ(out.size(), ids.size());
    int bad = 0;
    for (std::size_t i = 0; i < ids.size(); ++i) {
        const auto w = split(out[i]);
        ASSERT_EQ(w.size(), 4u) << out[i];
        if (w[0] != "true" || w[1] != "6" || w[2] != r[i][1].c_str() || w[3] != ids[i]) {
            if (++bad < 5) ADD_FAILURE() << ids[i] << " -> " << out[i];
        }
    }
    EXPECT_EQ(bad, 0);
}

// 100,000 npm v1 UUIDs (a second apart, each with its own 100 ns field): our uuid_v1_to_v6 gives
// npm's v1ToV6, our uuid_v6_to_v1 takes it back, both versions show the time npm was given (to
// the µs), and order by the v6 value is order by time.
TEST_F(Oracle, OurV1ToV6AgreesWithNpm) {
    const auto made = oracle("v1-make", std::to_string(kValues), {});
    ASSERT_EQ(made.size(), static_cast<std::size_t>(kValues));
    ScratchDb db("it_v6_npm_v1");
    pqxx::connection c(db.dsn());
    pqxx::work tx(c);
    tx.exec_params(
        "CREATE TEMP TABLE npm AS SELECT v1.n, v1.v::uuid AS v1, v6.v::uuid AS v6, ms.v::bigint AS ms, ns.v::int AS ns "
        "FROM string_to_table($1, E'\\n') WITH ORDINALITY v1(v, n) "
        "JOIN string_to_table($2, E'\\n') WITH ORDINALITY v6(v, n) USING (n) "
        "JOIN string_to_table($3, E'\\n') WITH ORDINALITY ms(v, n) USING (n) "
        "JOIN string_to_table($4, E'\\n') WITH ORDINALITY ns(v, n) USING (n) WHERE v1.v <> ''",
        joined(made, 0), joined(made, 1), joined(made, 2), joined(made, 3));
    auto r = tx.exec(
        "SELECT count(*), "
        "count(*) FILTER (WHERE uuid_v1_to_v6(v1) <> v6), "
        "count(*) FILTER (WHERE uuid_v6_to_v1(v6) <> v1), "
        "count(*) FILTER (WHERE (extract(epoch FROM public.uuid_extract_timestamp(v6)) * 1000000)::bigint "
        "                       <> ms * 1000 + ns / 10), "
        "count(*) FILTER (WHERE public.uuid_extract_timestamp(v1) <> public.uuid_extract_timestamp(v6)), "
        "count(*) FILTER (WHERE public.uuid_extract_version(v6) <> 6) FROM npm");
    EXPECT_EQ(r[0][0].as<long>(), kValues);
    EXPECT_EQ(r[0][1].as<long>(), 0) << "uuid_v1_to_v6 differs from npm's v1ToV6";
    EXPECT_EQ(r[0][2].as<long>(), 0) << "uuid_v6_to_v1 does not undo npm's v1ToV6";
    EXPECT_EQ(r[0][3].as<long>(), 0) << "time differs from the one npm was given";
    EXPECT_EQ(r[0][4].as<long>(), 0);
    EXPECT_EQ(r[0][5].as<long>(), 0);
    auto order = tx.exec("SELECT count(*) FROM (SELECT n < lag(n) OVER (ORDER BY v6) AS down FROM npm) s WHERE down");
    EXPECT_EQ(order[0][0].as<long>(), 0) << "order by v6 value is not order by time";
}

// 100,000 npm v6 UUIDs: we read version 6 and a time near now, and our uuid_v6_to_v1 gives npm's v6ToV1.
TEST_F(Oracle, WeReadNpmUuidv6) {
    const auto made = oracle("v6-make", std::to_string(kValues), {});
    ASSERT_EQ(made.size(), static_cast<std::size_t>(kValues));
    ScratchDb db("it_v6_npm_v6");
    pqxx::connection c(db.dsn());
    pqxx::work tx(c);
    auto r = tx.exec_params(
        "SELECT count(*), "
        "count(*) FILTER (WHERE public.uuid_extract_version(v6.v::uuid) <> 6), "
        "count(*) FILTER (WHERE public.uuid_extract_timestamp(v6.v::uuid) NOT BETWEEN now() - interval '10 min' "
        "                                                                  AND now() + interval '1 min'), "
        "count(*) FILTER (WHERE uuid_v6_to_v1(v6.v::uuid) <> v1.v::uuid), "
        "count(*) FILTER (WHERE uuid_v1_to_v6(v1.v::uuid) <> v6.v::uuid) "
        "FROM string_to_table($1, E'\\n') WITH ORDINALITY v6(v, n) "
        "JOIN string_to_table($2, E'\\n') WITH ORDINALITY v1(v, n) USING (n) WHERE v6.v <> ''",
        joined(made, 0), joined(made, 1));
    EXPECT_EQ(r[0][0].as<long>(), kValues);
    EXPECT_EQ(r[0][1].as<long>(), 0);
    EXPECT_EQ(r[0][2].as<long>(), 0);
    EXPECT_EQ(r[0][3].as<long>(), 0) << "uuid_v6_to_v1 differs from npm's v6ToV1";
    EXPECT_EQ(r[0][4].as<long>(), 0);
}

// nanoid's own URL-safe alphabet is our default, as a set; 100,000 gen_nanoid() values are 21
// characters of it, all distinct.
TEST_F(Oracle, NanoidDefaultAlphabetAndFormat) {
    ScratchDb db("it_nanoid_npm");
    pqxx::connection c(db.dsn());
    pqxx::work tx(c);
    const auto alphabet = oracle("nanoid-alphabet", "", {});
    ASSERT_EQ(alphabet.size(), 1u);
    // The default as the function declares it.
    auto def = tx.exec(
        "SELECT string_agg(c, '' ORDER BY c COLLATE \"C\") FROM string_to_table(substring("
        "pg_get_function_arguments('gen_nanoid(int, text)'::regprocedure) FROM 'alphabet text DEFAULT ''([^'']*)'''), "
        "NULL) c");
    EXPECT_EQ(def[0][0].c_str(), alphabet[0]);
    auto r = tx.exec("SELECT gen_nanoid() FROM generate_series(1, " + std::to_string(kValues) + ")");
    std::vector<std::string> ids;
    std::set<std::string> distinct;
    for (const auto& row : r) {
        ids.push_back(row[0].c_str());
        distinct.insert(ids.back());
    }
    EXPECT_EQ(distinct.size(), ids.size());
    const auto out = oracle("nanoid-read", "", ids);
    ASSERT_EQ(out.size(), ids.size());
    long bad = 0;
    for (const auto& l : out) bad += l != "21 true";
    EXPECT_EQ(bad, 0);
}

// Pearson's χ² over 1,000,000 characters of gen_nanoid() for alphabets of 64, 62 and 36
// characters, counted on the server: within the two-sided p = 1e-6 bounds for k - 1 degrees of
// freedom (64: 23.2 .. 131.4; 62: 22.0 .. 128.5; 36: 8.4 .. 89.9). Modulo sampling would give
// about 6,600 (62) and 1,950 (36).
TEST(Nanoid, ChiSquaredOnTheServer) {
    ScratchDb db("it_nanoid_chi2");
    pqxx::connection c(db.dsn());
    pqxx::work tx(c);
    struct Case {
        std::string alphabet;
        double low, high;
    };
    const std::string all = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
    const Case cases[] = {
        {all, 23.2, 131.4}, {all.substr(0, 62), 22.0, 128.5}, {"0123456789abcdefghijklmnopqrstuvwxyz", 8.4, 89.9}};
    for (const Case& k : cases) {
        auto r = tx.exec_params(
            // The set-returning function in the select list: one gen_nanoid() call per row (in FROM,
            // without a reference to the series, it would be called once and its result repeated).
            "WITH chars AS (SELECT string_to_table(gen_nanoid(250, $1), NULL) AS c FROM generate_series(1, 4000)), "
            "counts AS (SELECT c, count(*) AS n FROM chars GROUP BY c), "
            "total AS (SELECT sum(n) AS total FROM counts) "
            "SELECT (SELECT total FROM total), count(*), "
            "sum((n - total / length($1)) ^ 2 / (total / length($1))), "
            "count(*) FILTER (WHERE strpos($1, c) = 0) FROM counts, total",
            k.alphabet);
        EXPECT_EQ(r[0][0].as<long>(), 1000000);
        EXPECT_EQ(r[0][1].as<std::size_t>(), k.alphabet.size()) << "every character appears";
        EXPECT_EQ(r[0][3].as<long>(), 0) << "only the alphabet's characters";
        const double chi = r[0][2].as<double>();
        std::printf("[ chi2 ] server, alphabet %zu: %.1f (bounds %.1f .. %.1f)\n", k.alphabet.size(), chi, k.low,
                    k.high);
        EXPECT_GT(chi, k.low);
        EXPECT_LT(chi, k.high);
    }
}

// Several sessions at once: uuidv6() values are distinct across them, increasing within each.
TEST(Uuidv6, ConcurrentSessionsDistinctAndMonotonic) {
    ScratchDb db("it_v6_concurrent");
    {
        pqxx::connection c(db.dsn());
        pqxx::work tx(c);
        tx.exec("CREATE TABLE ids (session int, n int, id uuid)");
        tx.commit();
    }
    std::vector<std::thread> threads;
    for (int s = 0; s < 4; ++s)
        threads.emplace_back([&, s] {
            pqxx::connection c(db.dsn());
            pqxx::work tx(c);
            tx.exec("INSERT INTO ids SELECT " + std::to_string(s) + ", n, uuidv6() FROM generate_series(1, 25000) n");
            tx.commit();
        });
    for (auto& t : threads) t.join();
    pqxx::connection c(db.dsn());
    pqxx::work tx(c);
    auto r = tx.exec("SELECT count(*), count(DISTINCT id) FROM ids");
    EXPECT_EQ(r[0][0].as<long>(), 100000);
    EXPECT_EQ(r[0][1].as<long>(), 100000);
    auto down = tx.exec(
        "SELECT count(*) FROM (SELECT id <= lag(id) OVER (PARTITION BY session ORDER BY n) AS d "
        "FROM ids) s WHERE d");
    EXPECT_EQ(down[0][0].as<long>(), 0);
}

// In a single-byte encoding every byte but \0 is a character: an alphabet may use bytes >= 0x80
// there (in UTF-8 they are parts of multibyte characters, refused with 22023).
TEST(Nanoid, SingleByteEncodingAcceptsHighBytes) {
    {
        pqxx::connection admin(idgen::it::dsn());
        pqxx::nontransaction tx(admin);
        tx.exec("DROP DATABASE IF EXISTS it_nanoid_latin1 WITH (FORCE)");
        tx.exec("CREATE DATABASE it_nanoid_latin1 ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0");
    }
    {
        pqxx::connection c(idgen::it::dsn("it_nanoid_latin1"));
        c.set_client_encoding("LATIN1");
        pqxx::work tx(c);
        tx.exec("CREATE EXTENSION id_gen");
        // 'ab' plus é (0xE9) and ÿ (0xFF) as LATIN1 bytes.
        auto r = tx.exec(
            "SELECT count(*) FILTER (WHERE convert_to(c, 'LATIN1') NOT IN ('\\x61', '\\x62', '\\xe9', '\\xff')), "
            "count(DISTINCT c), sum(octet_length(c)) "
            "FROM (SELECT string_to_table(gen_nanoid(200, convert_from('\\x6162e9ff', 'LATIN1')), NULL) AS c "
            "      FROM generate_series(1, 20)) s");
        EXPECT_EQ(r[0][0].as<long>(), 0);
        EXPECT_EQ(r[0][1].as<long>(), 4);
        EXPECT_EQ(r[0][2].as<long>(), 4000);
        tx.commit();
    }
    pqxx::connection admin(idgen::it::dsn());
    pqxx::nontransaction tx(admin);
    tx.exec("DROP DATABASE IF EXISTS it_nanoid_latin1 WITH (FORCE)");
}
