// Soft input errors on every server version. id_gen's input functions report malformed (22P02)
// and out-of-range (22003) text through the caller's ErrorSaveContext on 16 and later, so core's
// pg_input_is_valid()/pg_input_error_info() and, on 17 and later, COPY ... (ON_ERROR ignore) and
// JSON_VALUE(... ON ERROR) work on every id_gen type; id_gen_input_is_valid() and
// id_gen_input_error_info() give the same answers on every version, 15 included, for any type.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <pqxx/pqxx>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

#include "common.h"
#include "core/text/base36.h"
#include "core/types/ulid.h"

namespace {

// One input and what it must give: sqlstate empty = valid.
struct Case {
    std::string type;
    std::string value;
    std::string sqlstate;
};

// The SQLSTATE `sql` raises, or "" if it succeeds. A nontransaction stays usable after an error.
std::string sqlstate_of(pqxx::nontransaction& tx, const std::string& sql, std::string* what = nullptr) {
    try {
        tx.exec(sql);
        return "";
    } catch (const pqxx::sql_error& e) {
        if (what) *what = e.what();
        return e.sqlstate();
    }
}

// Collects the server's notices (COPY's reports of skipped rows).
class Notices : public pqxx::errorhandler {
public:
    explicit Notices(pqxx::connection_base& c) : pqxx::errorhandler(c) {}
    bool operator()(const char msg[]) noexcept override {
        try {
            seen.emplace_back(msg);
        } catch (...) {}
        return false;
    }
    [[nodiscard]] bool has(const std::string& part) const {
        for (const auto& s : seen)
            if (s.find(part) != std::string::npos) return true;
        return false;
    }
    std::vector<std::string> seen;
};

class SoftErrors : public ::testing::Test {
protected:
    static void SetUpTestSuite() { db_ = new idgen::it::ScratchDb("it_soft_errors"); }
    static void TearDownTestSuite() {
        delete db_;
        db_ = nullptr;
    }
    void SetUp() override {
        conn_ = std::make_unique<pqxx::connection>(db_->dsn());
        version_ = conn_->server_version();
    }

    // Checks every case through id_gen_input_is_valid/id_gen_input_error_info in one query; on 16
    // and later also that core's pg_input_is_valid/pg_input_error_info say exactly the same.
    void check_cases(const std::vector<Case>& cases, const std::string& trace) {
        SCOPED_TRACE(trace);
        pqxx::nontransaction tx(*conn_);
        std::string values;
        for (std::size_t i = 0; i < cases.size(); ++i) {
            if (i) values += ",";
            values += "(" + std::to_string(i) + "," + tx.quote(cases[i].value) + "," + tx.quote(cases[i].type) + ")";
        }
        const bool core = version_ >= 160000;
        const std::string sql =
            "SELECT n, id_gen_input_is_valid(v, t), e.message, e.detail, e.hint, e.sql_error_code" +
            std::string(core ? ", pg_input_is_valid(v, t) IS NOT DISTINCT FROM id_gen_input_is_valid(v, t),"
                               " (SELECT ROW(c.*) FROM pg_input_error_info(v, t) c) IS NOT DISTINCT FROM ROW(e.*)"
                             : ", true, true") +
            " FROM (VALUES " + values + ") s(n, v, t), LATERAL id_gen_input_error_info(v, t) e ORDER BY n";
        const auto r = tx.exec(sql);
        ASSERT_EQ(r.size(), cases.size());
        for (const auto& row : r) {
            const Case& c = cases.at(row[0].as<std::size_t>());
            SCOPED_TRACE(c.type + " '" + c.value + "'");
            EXPECT_EQ(row[1].as<bool>(), c.sqlstate.empty());
            if (c.sqlstate.empty()) {
                for (int f = 2; f <= 5; ++f) EXPECT_TRUE(row[f].is_null()) << f;
            } else {
                EXPECT_EQ(row[5].c_str(), c.sqlstate);
                const std::string message = row[2].c_str();
                // The message names the type and carries the offending value, quoted.
                EXPECT_NE(message.find("type " + c.type), std::string::npos) << message;
                EXPECT_NE(message.find("\"" + c.value + "\""), std::string::npos) << message;
                EXPECT_TRUE(row[3].is_null());
                EXPECT_TRUE(row[4].is_null());
            }
            EXPECT_TRUE(row[6].as<bool>()) << "pg_input_is_valid differs";
            EXPECT_TRUE(row[7].as<bool>()) << "pg_input_error_info differs";
        }
    }

    static idgen::it::ScratchDb* db_;
    std::unique_ptr<pqxx::connection> conn_;
    int version_ = 0;
};
idgen::it::ScratchDb* SoftErrors::db_ = nullptr;

const std::vector<Case>& fixed_cases() {
    static const std::vector<Case> cases = {
        {"ulid", "01ARZ3NDEKTSV4RRFFQ69G5FAV", ""},
        {"ulid", "01arz3ndektsv4rrffq69g5fav", ""},
        {"ulid", "7ZZZZZZZZZZZZZZZZZZZZZZZZZ", ""},
        {"ulid", "01ARZ3NDEKTSV4RRFFQ69G5FAU", "22P02"},
        {"ulid", "01ARZ3NDEKTSV4RRFFQ69G5FAI", "22P02"},
        {"ulid", "01ARZ3NDEKTSV4RRFFQ69G5FA", "22P02"},
        {"ulid", "01ARZ3NDEKTSV4RRFFQ69G5FAVV", "22P02"},
        {"ulid", "", "22P02"},
        {"ulid", "01ARZ3NDEKTSV4RRFFQ69G5FA\xc3\xa9", "22P02"},  // a two-byte character, 26 bytes
        {"ulid", "80000000000000000000000000", "22003"},
        {"ulid", "ZZZZZZZZZZZZZZZZZZZZZZZZZZ", "22003"},
        {"snowflake", "1", ""},
        {"snowflake", " 1541815603606036480 ", ""},
        {"snowflake", "9223372036854775807", ""},
        {"snowflake", "", "22P02"},
        {"snowflake", "12x", "22P02"},
        {"snowflake", "0x10", "22P02"},
        {"snowflake", "0", "22003"},
        {"snowflake", "-1", "22003"},
        {"snowflake", "9223372036854775808", "22003"},
        {"snowflake", "99999999999999999999999", "22003"},
        {"base36_64", "0", ""},
        {"base36_64", "ZZ", ""},
        {"base36_64", "1y2p0ij32e8e7", ""},
        {"base36_64", "", "22P02"},
        {"base36_64", "a-b", "22P02"},
        {"base36_64", "+1", "22P02"},
        {"base36_64", "1y2p0ij32e8e8", "22003"},
        {"base36_64", "zzzzzzzzzzzzzz", "22003"},
        {"base36_128", "0", ""},
        {"base36_128", "f5lxx1zz5pnorynqglhzmsp33", ""},
        {"base36_128", "", "22P02"},
        {"base36_128", " 1", "22P02"},
        {"base36_128", "f5lxx1zz5pnorynqglhzmsp34", "22003"},
        {"base36_128", "g0000000000000000000000000", "22003"},
    };
    return cases;
}

// Every id_gen type: valid text, malformed text, text out of range, with the exact SQLSTATE and
// the value in the message; core's functions agree on 16 and later; and the text stored in a
// column of the type succeeds or raises exactly that error.
TEST_F(SoftErrors, EveryTypeReportsEachErrorWithItsSqlstate) {
    check_cases(fixed_cases(), "fixed cases, server " + std::to_string(version_));
    for (const auto& c : fixed_cases()) {
        SCOPED_TRACE(c.type + " '" + c.value + "'");
        pqxx::nontransaction tx(*conn_);
        tx.exec("DROP TABLE IF EXISTS probe; CREATE TABLE probe (x " + c.type + ")");
        std::string what;
        EXPECT_EQ(sqlstate_of(tx, "INSERT INTO probe VALUES (" + tx.quote(c.value) + ")", &what), c.sqlstate);
        if (!c.sqlstate.empty()) {
            EXPECT_NE(what.find(c.value), std::string::npos) << what;
        }
    }
}

// Random IDs, encoded by the core: every one valid; the same text with one character replaced
// by a character outside the alphabet is 22P02; a value above the type's range is 22003.
TEST_F(SoftErrors, RandomValuesAndTheirCorruptions) {
    const auto seed = std::random_device{}();
    std::mt19937_64 rng(seed);
    const std::string trace = "seed " + std::to_string(seed) + ", server " + std::to_string(version_);
    auto mutate = [&](std::string s, const std::string& bad_chars) {
        const std::size_t at = rng() % s.size();
        s[at] = bad_chars[rng() % bad_chars.size()];
        return s;
    };
    std::vector<Case> cases;
    for (int i = 0; i < 300; ++i) {
        // ulid: 16 random bytes (the first character is then 0-7).
        idgen::Ulid u{};
        for (auto& b : u.bytes) b = static_cast<std::uint8_t>(rng());
        char text[idgen::kUlidTextLen];
        idgen::ulid_format(u, text);
        const std::string ulid(text, idgen::kUlidTextLen);
        cases.push_back({"ulid", ulid, ""});
        cases.push_back({"ulid", mutate(ulid, "ILOUilou!-_ .#"), "22P02"});
        std::string high = ulid;
        high[0] = "89ABCDEFGHJKMNPQRSTVWXYZ"[rng() % 24];
        cases.push_back({"ulid", high, "22003"});

        // snowflake: 1 .. 2^63-1 valid; 2^63 .. 2^64-1 and negatives out of range.
        const std::uint64_t r = rng();
        const std::uint64_t in_range = (r >> 1) == 0 ? 1 : (r >> 1);
        const std::string sf = std::to_string(in_range);
        cases.push_back({"snowflake", sf, ""});
        cases.push_back({"snowflake", mutate(sf, "abx.,e_"), "22P02"});
        cases.push_back({"snowflake", std::to_string(r | (std::uint64_t{1} << 63)), "22003"});
        cases.push_back({"snowflake", "-" + sf, "22003"});

        // base36_64: 0 .. 2^63-1 valid; the 13-character text of 2^63 .. 2^64-1 out of range.
        char b64[idgen::kBase36Len64];
        idgen::base36_encode64(r >> 1, b64);
        const std::string s64(b64, idgen::kBase36Len64);
        cases.push_back({"base36_64", s64, ""});
        cases.push_back({"base36_64", mutate(s64, "-+_. !"), "22P02"});
        idgen::base36_encode64(r | (std::uint64_t{1} << 63), b64);
        cases.push_back({"base36_64", std::string(b64, idgen::kBase36Len64), "22003"});

        // base36_128: any 128-bit value valid; 25 characters from 'g' up exceed 2^128-1.
        const unsigned __int128 v = (static_cast<unsigned __int128>(rng()) << 64) | rng();
        char b128[idgen::kBase36Len128];
        idgen::base36_encode128(v, b128);
        const std::string s128(b128, idgen::kBase36Len128);
        cases.push_back({"base36_128", s128, ""});
        cases.push_back({"base36_128", mutate(s128, "-+_. !"), "22P02"});
        std::string big = s128;
        big[0] = "ghijklmnopqrstuvwxyz"[rng() % 20];
        cases.push_back({"base36_128", big, "22003"});
    }
    check_cases(cases, trace);
}

// Long input: the message carries the value, cut after 252 bytes and marked with "...".
TEST_F(SoftErrors, LongInputIsQuotedUpToALimit) {
    pqxx::nontransaction tx(*conn_);
    const std::string value(1000, 'U');
    const auto r =
        tx.exec1("SELECT message, sql_error_code FROM id_gen_input_error_info(" + tx.quote(value) + ", 'ulid')");
    EXPECT_EQ(std::string(r[1].c_str()), "22P02");
    EXPECT_EQ(std::string(r[0].c_str()), "invalid input syntax for type ulid: \"" + std::string(252, 'U') + "...\"");
}

// Any type, with 16's semantics: the same answers as core's functions on 16 and later, and the
// same error as storing the text in a column of the type on every version.
TEST_F(SoftErrors, AnyTypeAsCoreDoes) {
    pqxx::nontransaction tx(*conn_);
    tx.exec(
        "DROP DOMAIN IF EXISTS early_ulid; CREATE DOMAIN early_ulid AS ulid CHECK (ulid_time(VALUE) < '2000-01-01')");
    tx.exec("DROP TYPE IF EXISTS mood; CREATE TYPE mood AS ENUM ('ok', 'sad')");
    const std::vector<std::pair<std::string, std::string>> inputs = {
        {"42", "integer"},
        {"forty-two", "integer"},
        {"3000000000", "integer"},
        {"abc", "varchar(2)"},
        {"ab", "varchar(2)"},
        {"1.5e400", "float8"},
        {"{1,2", "integer[]"},
        {"{1,x}", "integer[]"},
        {"2024-02-30", "date"},
        {"nope", "mood"},
        {"ok", "mood"},
        {"no_such_table", "regclass"},
        {"pg_class", "regclass"},
        {"{\"a\":", "jsonb"},
        {"12345678901234567890", "numeric(5,2)"},
        {"01ARZ3NDEKTSV4RRFFQ69G5FAV", "early_ulid"},
        {"00000000000000000000000000", "early_ulid"},
        {"01ARZ3NDEKTSV4RRFFQ69G5FAU", "early_ulid"},
        {"{1,0}", "snowflake[]"},
        {"(1,2)", "point"},
        {"(1,2", "point"},
        {"\\xzz", "bytea"},
        {"{{{{{{{1}}}}}}}", "integer[]"},  // 54000: more dimensions than an array may have
    };
    for (const auto& [value, type] : inputs) {
        SCOPED_TRACE(type + " '" + value + "'");
        const auto ours =
            tx.exec1("SELECT id_gen_input_is_valid(" + tx.quote(value) + ", " + tx.quote(type) +
                     "), e.* FROM id_gen_input_error_info(" + tx.quote(value) + ", " + tx.quote(type) + ") e");
        if (version_ >= 160000) {
            const auto core =
                tx.exec1("SELECT pg_input_is_valid(" + tx.quote(value) + ", " + tx.quote(type) +
                         "), e.* FROM pg_input_error_info(" + tx.quote(value) + ", " + tx.quote(type) + ") e");
            for (int f = 0; f < 5; ++f) {
                EXPECT_EQ(ours[f].is_null(), core[f].is_null()) << f;
                if (!ours[f].is_null() && !core[f].is_null()) {
                    EXPECT_EQ(std::string(ours[f].c_str()), core[f].c_str()) << f;
                }
            }
        }
        tx.exec("DROP TABLE IF EXISTS probe; CREATE TABLE probe (x " + type + ")");
        std::string what;
        const std::string stored = sqlstate_of(tx, "INSERT INTO probe VALUES (" + tx.quote(value) + ")", &what);
        EXPECT_EQ(ours[0].as<bool>(), stored.empty()) << what;
        EXPECT_EQ(ours[4].is_null() ? std::string() : std::string(ours[4].c_str()), stored);
        if (!stored.empty()) {
            EXPECT_NE(what.find(ours[1].c_str()), std::string::npos) << what;
        }
    }
}

// What is not about the input is raised, on every version and by core's functions alike: an
// unknown type name; an error raised while a domain's CHECK runs; a statement timeout that fires
// inside the input function (on 15 it is caught in the subtransaction and must be re-raised).
TEST_F(SoftErrors, OtherErrorsAreRaised) {
    pqxx::nontransaction tx(*conn_);
    tx.exec("DROP DOMAIN IF EXISTS refused_ulid; DROP FUNCTION IF EXISTS refuse(ulid)");
    tx.exec(
        "CREATE FUNCTION refuse(ulid) RETURNS boolean LANGUAGE plpgsql AS "
        "$$ BEGIN RAISE EXCEPTION 'refused %', $1 USING ERRCODE = 'P0001'; END $$");
    tx.exec("CREATE DOMAIN refused_ulid AS ulid CHECK (refuse(VALUE))");
    tx.exec("DROP DOMAIN IF EXISTS slow_ulid; CREATE DOMAIN slow_ulid AS ulid CHECK (pg_sleep(30)::text = '')");
    std::vector<std::string> functions = {"id_gen_input_is_valid", "id_gen_input_error_info"};
    if (version_ >= 160000) {
        functions.emplace_back("pg_input_is_valid");
        functions.emplace_back("pg_input_error_info");
    }
    for (const auto& f : functions) {
        SCOPED_TRACE(f);
        EXPECT_EQ(sqlstate_of(tx, "SELECT " + f + "('1', 'no_such_type')"), "42704");
        std::string what;
        EXPECT_EQ(sqlstate_of(tx, "SELECT " + f + "('01ARZ3NDEKTSV4RRFFQ69G5FAV', 'refused_ulid')", &what), "P0001");
        EXPECT_NE(what.find("refused 01ARZ3NDEKTSV4RRFFQ69G5FAV"), std::string::npos) << what;
        // A malformed value is reported before the CHECK would run.
        EXPECT_EQ(sqlstate_of(tx, "SELECT " + f + "('01ARZ3NDEKTSV4RRFFQ69G5FAU', 'refused_ulid')"), "");

        const auto t0 = std::chrono::steady_clock::now();
        EXPECT_EQ(sqlstate_of(tx, "SET statement_timeout = '300ms'; SELECT " + f +
                                      "('01ARZ3NDEKTSV4RRFFQ69G5FAV', 'slow_ulid')"),
                  "57014");
        EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
        tx.exec("RESET statement_timeout");
        EXPECT_EQ(tx.exec1("SELECT 1")[0].as<int>(), 1);
    }
}

// Checking values leaves the transaction as it was: rows written before stay, savepoints work,
// and the checks consume no transaction IDs (on 15 each failed check is a subtransaction rolled
// back, which never gets an ID: 20,000 of them would otherwise use 20,000).
TEST_F(SoftErrors, ChecksLeaveTheTransactionAsItWas) {
    const std::string checks =
        "SELECT count(*) FILTER (WHERE id_gen_input_is_valid('bad' || g, 'ulid')), "
        "count(*) FILTER (WHERE (id_gen_input_error_info(g::text, 'snowflake')).sql_error_code = '22003'), "
        "count(*) FILTER (WHERE id_gen_input_is_valid(g::text, 'snowflake')) "
        "FROM generate_series(-10000, 9999) g";
    {
        pqxx::work tx(*conn_);
        tx.exec("CREATE TEMP TABLE kept (n int)");
        tx.exec("INSERT INTO kept SELECT generate_series(1, 10)");
        const auto r = tx.exec1(checks);
        EXPECT_EQ(r[0].as<long>(), 0);
        EXPECT_EQ(r[1].as<long>(), 10001);  // -10000 .. 0
        EXPECT_EQ(r[2].as<long>(), 9999);   // 1 .. 9999
        EXPECT_EQ(tx.exec1("SELECT count(*) FROM kept")[0].as<long>(), 10);
        tx.exec("SAVEPOINT s");
        tx.exec("INSERT INTO kept VALUES (11)");
        EXPECT_FALSE(tx.exec1("SELECT id_gen_input_is_valid('x', 'ulid')")[0].as<bool>());
        tx.exec("ROLLBACK TO SAVEPOINT s");
        EXPECT_EQ(tx.exec1("SELECT count(*) FROM kept")[0].as<long>(), 10);
        tx.commit();
    }
    pqxx::nontransaction tx(*conn_);
    EXPECT_EQ(tx.exec1("SELECT count(*) FROM kept")[0].as<long>(), 10);
    tx.exec("BEGIN");
    tx.exec(checks);
    EXPECT_TRUE(tx.exec1("SELECT pg_current_xact_id_if_assigned() IS NULL")[0].as<bool>());
    tx.exec("COMMIT");
    const auto before = tx.exec1("SELECT pg_current_xact_id()::text::bigint")[0].as<long long>();
    tx.exec(checks);
    const auto after = tx.exec1("SELECT pg_current_xact_id()::text::bigint")[0].as<long long>();
    EXPECT_LE(after - before, 10) << "transaction IDs used by 20,000 checks";
}

// PARALLEL UNSAFE is the right label: with parallel query forced, a query calling the functions
// runs (in the leader) and answers; on 15 a PARALLEL SAFE declaration of the same C function fails
// in a parallel worker, because a subtransaction cannot start in parallel mode.
TEST_F(SoftErrors, ParallelLabel) {
    pqxx::nontransaction tx(*conn_);
    const auto labels = tx.exec(
        "SELECT proname, provolatile, proparallel, proisstrict FROM pg_proc "
        "WHERE proname IN ('id_gen_input_is_valid', 'id_gen_input_error_info') ORDER BY 1");
    ASSERT_EQ(labels.size(), 2u);
    for (const auto& row : labels) {
        EXPECT_EQ(std::string(row[1].c_str()), "s") << row[0].c_str();
        EXPECT_EQ(std::string(row[2].c_str()), "u") << row[0].c_str();
        EXPECT_TRUE(row[3].as<bool>()) << row[0].c_str();
    }
    const std::string force = version_ >= 160000 ? "debug_parallel_query" : "force_parallel_mode";
    tx.exec(
        "DROP TABLE IF EXISTS par; CREATE TABLE par AS SELECT g, CASE WHEN g % 4 = 0 THEN gen_ulid()::text "
        "ELSE 'x' || g END AS v FROM generate_series(1, 20000) g");
    tx.exec("ANALYZE par");
    tx.exec("SET " + force + " = on");
    tx.exec("SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0");
    // The same scan is parallel without the function, and not with it.
    auto plan = [&](const std::string& where) {
        std::string text;
        for (const auto& row : tx.exec("EXPLAIN (COSTS OFF) SELECT count(*) FROM par WHERE " + where))
            text += row[0].c_str();
        return text;
    };
    EXPECT_NE(plan("v IS NOT NULL").find("Gather"), std::string::npos);
    EXPECT_EQ(plan("id_gen_input_is_valid(v, 'ulid')").find("Gather"), std::string::npos);
    EXPECT_EQ(plan("(id_gen_input_error_info(v, 'ulid')).message IS NULL").find("Gather"), std::string::npos);
    if (version_ >= 160000) {
        EXPECT_NE(plan("pg_input_is_valid(v, 'ulid')").find("Gather"), std::string::npos);
        EXPECT_EQ(
            std::string(tx.exec1("SELECT proparallel FROM pg_proc WHERE proname = 'pg_input_is_valid'")[0].c_str()),
            "s");
    }
    EXPECT_EQ(tx.exec1("SELECT count(*) FROM par WHERE id_gen_input_is_valid(v, 'ulid')")[0].as<long>(), 5000);
    EXPECT_EQ(
        tx.exec1("SELECT count(*) FROM par WHERE (id_gen_input_error_info(v, 'ulid')).sql_error_code = '22P02'")[0]
            .as<long>(),
        15000);
    tx.exec("DROP FUNCTION IF EXISTS valid_parallel_safe(text, text)");
    tx.exec(
        "CREATE FUNCTION valid_parallel_safe(text, text) RETURNS boolean AS 'id_gen', 'id_gen_input_is_valid' "
        "LANGUAGE C STABLE STRICT PARALLEL SAFE");
    std::string what;
    const std::string state = sqlstate_of(tx,
                                          "SET " + force +
                                              " = on; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;"
                                              "SELECT count(*) FROM par WHERE valid_parallel_safe(v, 'ulid')",
                                          &what);
    if (version_ < 160000) {
        EXPECT_EQ(state, "25000");
        EXPECT_NE(what.find("cannot start subtransactions during a parallel operation"), std::string::npos) << what;
    } else {
        EXPECT_EQ(state, "") << what;
    }
    tx.exec("RESET " + force);
}

// COPY ... (ON_ERROR ignore) skips exactly the rows whose text an id_gen type rejects (17+), and
// LOG_VERBOSITY verbose names each one; on 15 and 16 the option does not exist.
TEST_F(SoftErrors, CopyOnErrorIgnore) {
    pqxx::nontransaction tx(*conn_);
    Notices notices(*conn_);
    tx.exec("DROP TABLE IF EXISTS rows_in, copied");
    tx.exec("CREATE TABLE rows_in (n int, u text, s text, b64 text, b128 text)");
    // Rows 1, 4 and 9 are good; every other row has one bad field (column, SQLSTATE in the comment).
    tx.exec(
        "INSERT INTO rows_in VALUES "
        "(1, '01ARZ3NDEKTSV4RRFFQ69G5FAV', '1', 'zz', 'zz'),"
        "(2, '01ARZ3NDEKTSV4RRFFQ69G5FAU', '2', 'zz', 'zz'),"  // u 22P02
        "(3, '81ARZ3NDEKTSV4RRFFQ69G5FAV', '3', 'zz', 'zz'),"  // u 22003
        "(4, '7ZZZZZZZZZZZZZZZZZZZZZZZZZ', '9223372036854775807', '1y2p0ij32e8e7', 'f5lxx1zz5pnorynqglhzmsp33'),"
        "(5, '01ARZ3NDEKTSV4RRFFQ69G5FAV', '0', 'zz', 'zz'),"             // s 22003
        "(6, '01ARZ3NDEKTSV4RRFFQ69G5FAV', '6e3', 'zz', 'zz'),"           // s 22P02
        "(7, '01ARZ3NDEKTSV4RRFFQ69G5FAV', '7', '1y2p0ij32e8e8', 'zz'),"  // b64 22003
        "(8, '01ARZ3NDEKTSV4RRFFQ69G5FAV', '8', 'zz', 'z-z'),"            // b128 22P02
        "(9, '00000000000000000000000000', '9', '0', '0'),"
        "(10, '01ARZ3NDEKTSV4RRFFQ69G5FAV', '10', 'zz', 'g0000000000000000000000000')");  // b128 22003
    tx.exec("CREATE TABLE copied (n int, u ulid, s snowflake, b64 base36_64, b128 base36_128)");
    const std::string file = "/tmp/idgen_it_soft_copy_" + std::to_string(getpid());
    for (const char* format : {"text", "csv"}) {
        SCOPED_TRACE(format);
        tx.exec("COPY (SELECT * FROM rows_in ORDER BY n) TO '" + file + "' WITH (FORMAT " + format + ")");
        tx.exec("TRUNCATE copied");
        if (version_ < 170000) {
            EXPECT_EQ(sqlstate_of(tx, "COPY copied FROM '" + file + "' WITH (FORMAT " + format + ", ON_ERROR ignore)"),
                      "42601");
            // Without the option, the first bad row stops the COPY with its error.
            EXPECT_EQ(sqlstate_of(tx, "COPY copied FROM '" + file + "' WITH (FORMAT " + format + ")"), "22P02");
            continue;
        }
        notices.seen.clear();
        const auto r = tx.exec("COPY copied FROM '" + file + "' WITH (FORMAT " + format + ", ON_ERROR ignore)");
        EXPECT_EQ(r.affected_rows(), 3u);
        EXPECT_EQ(std::string(tx.exec1("SELECT array_agg(n ORDER BY n)::text FROM copied")[0].c_str()), "{1,4,9}");
        EXPECT_EQ(
            std::string(tx.exec1("SELECT string_agg(concat_ws(' ', n, u, s, b64, b128), ',' ORDER BY n) FROM copied")[0]
                            .c_str()),
            "1 01ARZ3NDEKTSV4RRFFQ69G5FAV 1 00000000000zz 00000000000000000000000zz,"
            "4 7ZZZZZZZZZZZZZZZZZZZZZZZZZ 9223372036854775807 1y2p0ij32e8e7 f5lxx1zz5pnorynqglhzmsp33,"
            "9 00000000000000000000000000 9 0000000000000 0000000000000000000000000");
        EXPECT_TRUE(notices.has("7 rows were skipped due to data type incompatibility"));

        tx.exec("TRUNCATE copied");
        notices.seen.clear();
        EXPECT_EQ(tx.exec("COPY copied FROM '" + file + "' WITH (FORMAT " + format +
                          ", ON_ERROR ignore, LOG_VERBOSITY verbose)")
                      .affected_rows(),
                  3u);
        const std::vector<std::string> skipped = {"line 2 for column \"u\": \"01ARZ3NDEKTSV4RRFFQ69G5FAU\"",
                                                  "line 3 for column \"u\": \"81ARZ3NDEKTSV4RRFFQ69G5FAV\"",
                                                  "line 5 for column \"s\": \"0\"",
                                                  "line 6 for column \"s\": \"6e3\"",
                                                  "line 7 for column \"b64\": \"1y2p0ij32e8e8\"",
                                                  "line 8 for column \"b128\": \"z-z\"",
                                                  "line 10 for column \"b128\": \"g0000000000000000000000000\""};
        for (const auto& s : skipped)
            EXPECT_TRUE(notices.has("skipping row due to data type incompatibility at " + s)) << s;
        std::size_t row_notices = 0;
        for (const auto& n : notices.seen) row_notices += n.find("skipping row") != std::string::npos;
        EXPECT_EQ(row_notices, skipped.size());

        if (version_ >= 180000) {
            // REJECT_LIMIT (18+): up to that many skipped rows; one more fails the whole COPY, at the
            // row that went over (22P02, core's code for it).
            tx.exec("TRUNCATE copied");
            EXPECT_EQ(
                tx.exec("COPY copied FROM '" + file + "' WITH (FORMAT " + format + ", ON_ERROR ignore, REJECT_LIMIT 7)")
                    .affected_rows(),
                3u);
            tx.exec("TRUNCATE copied");
            std::string what;
            EXPECT_EQ(
                sqlstate_of(
                    tx, "COPY copied FROM '" + file + "' WITH (FORMAT " + format + ", ON_ERROR ignore, REJECT_LIMIT 6)",
                    &what),
                "22P02");
            EXPECT_NE(what.find("skipped more than REJECT_LIMIT (6) rows"), std::string::npos) << what;
            EXPECT_NE(what.find("line 10, column b128"), std::string::npos) << what;
            EXPECT_EQ(tx.exec1("SELECT count(*) FROM copied")[0].as<long>(), 0);
        }
    }
    std::remove(file.c_str());
}

// SQL/JSON (17+): JSON_VALUE(... RETURNING <id_gen type> DEFAULT ... ON ERROR) takes the default
// for text the type rejects, through the same soft errors.
TEST_F(SoftErrors, JsonValueOnError) {
    pqxx::nontransaction tx(*conn_);
    if (version_ < 170000) {
        EXPECT_NE(sqlstate_of(tx, "SELECT JSON_VALUE(jsonb '\"x\"', '$' RETURNING ulid DEFAULT NULL ON ERROR)"), "");
        return;
    }
    for (const auto& c : fixed_cases()) {
        SCOPED_TRACE(c.type + " '" + c.value + "'");
        const auto r = tx.exec1("SELECT JSON_VALUE(to_jsonb(" + tx.quote(c.value) + "::text), '$' RETURNING " + c.type +
                                " DEFAULT NULL ON ERROR) IS NULL");
        EXPECT_EQ(r[0].as<bool>(), !c.sqlstate.empty());
        EXPECT_EQ(sqlstate_of(tx, "SELECT JSON_VALUE(to_jsonb(" + tx.quote(c.value) + "::text), '$' RETURNING " +
                                      c.type + " ERROR ON ERROR)"),
                  c.sqlstate);
    }
}

// The README's examples, as written there.
TEST_F(SoftErrors, ReadmeExamples) {
    pqxx::nontransaction tx(*conn_);
    EXPECT_TRUE(tx.exec1("SELECT id_gen_input_is_valid('01ARZ3NDEKTSV4RRFFQ69G5FAV', 'ulid')")[0].as<bool>());
    auto info = [&](const std::string& value, const std::string& type) {
        const auto r =
            tx.exec1("SELECT concat_ws(' | ', message, detail, hint, sql_error_code) FROM id_gen_input_error_info(" +
                     tx.quote(value) + ", " + tx.quote(type) + ")");
        return std::string(r[0].c_str());
    };
    EXPECT_EQ(info("01ARZ3NDEKTSV4RRFFQ69G5FAU", "ulid"),
              "invalid input syntax for type ulid: \"01ARZ3NDEKTSV4RRFFQ69G5FAU\" | 22P02");
    EXPECT_EQ(info("0", "snowflake"), "value \"0\" is out of range for type snowflake | 22003");
    tx.exec("DROP TABLE IF EXISTS incoming; CREATE TABLE incoming (line int, id text)");
    tx.exec("INSERT INTO incoming VALUES (1, '01ARZ3NDEKTSV4RRFFQ69G5FAV'), (2, '81ARZ3NDEKTSV4RRFFQ69G5FAV')");
    const auto rejected = tx.exec(
        "SELECT i.line, e.sql_error_code, e.message FROM incoming i, "
        "id_gen_input_error_info(i.id, 'ulid') e WHERE e.sql_error_code IS NOT NULL");
    ASSERT_EQ(rejected.size(), 1u);
    EXPECT_EQ(rejected[0][0].as<int>(), 2);
    EXPECT_EQ(std::string(rejected[0][1].c_str()), "22003");
    EXPECT_EQ(std::string(rejected[0][2].c_str()),
              "value \"81ARZ3NDEKTSV4RRFFQ69G5FAV\" is out of range for type ulid");

    // The COPY fragment (17+), its two data lines from a server-side file instead of psql's stdin.
    if (version_ < 170000) return;
    Notices notices(*conn_);
    const std::string file = "/tmp/idgen_it_soft_readme_" + std::to_string(getpid());
    tx.exec(
        "COPY (VALUES ('01ARZ3NDEKTSV4RRFFQ69G5FAV', '1541815603606036480'), "
        "('01ARZ3NDEKTSV4RRFFQ69G5FAU', '1541815603606036481')) TO '" +
        file + "'");
    tx.exec("DROP TABLE IF EXISTS arrivals; CREATE TABLE arrivals (id ulid, at snowflake)");
    EXPECT_EQ(
        tx.exec("COPY arrivals FROM '" + file + "' WITH (ON_ERROR ignore, LOG_VERBOSITY verbose)").affected_rows(), 1u);
    std::remove(file.c_str());
    EXPECT_TRUE(
        notices.has("NOTICE:  skipping row due to data type incompatibility at line 2 for column \"id\": "
                    "\"01ARZ3NDEKTSV4RRFFQ69G5FAU\""));
    EXPECT_TRUE(notices.has("NOTICE:  1 row was skipped due to data type incompatibility"));
    EXPECT_EQ(std::string(tx.exec1("SELECT id::text || ' ' || at::text FROM arrivals")[0].c_str()),
              "01ARZ3NDEKTSV4RRFFQ69G5FAV 1541815603606036480");
}

}  // namespace
