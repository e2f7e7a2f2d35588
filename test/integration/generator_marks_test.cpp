// snowflake_raise_mark(), shard_raise_mark() and trace_id_raise_mark(): after a raise to an ID ahead of the clock (as IDs
// restored from a server whose clock ran ahead), every ID a generator issues is above it, in every
// session, also one that held a block of sequence numbers from before (without preloading, on 15
// and 16); a mark never moves back; the errors. On both test clusters: preloaded (shared memory)
// and not (the DSM registry on 17+, files on 15 and 16).
#include <gtest/gtest.h>

#include <memory>
#include <pqxx/pqxx>
#include <string>

#include "common.h"

namespace {

using idgen::it::env_or;

using idgen::it::Cluster;
using idgen::it::Db;
using idgen::it::main_cluster;
using idgen::it::nopreload_cluster;

Cluster cluster(bool preloaded) { return preloaded ? main_cluster() : nopreload_cluster(); }

void exec_on(const std::string& dsn, const std::string& sql) {
    pqxx::connection c(dsn);
    pqxx::nontransaction tx(c);
    tx.exec(sql);
}

std::string text(pqxx::transaction_base& tx, const std::string& sql) {
    const auto r = tx.exec(sql);
    return r[0][0].is_null() ? "NULL" : r[0][0].c_str();
}
long long num(pqxx::transaction_base& tx, const std::string& sql) { return tx.exec(sql)[0][0].as<long long>(); }

// `gen` issues one ID (a bigint), `above(at)` gives the largest ID of the time unit containing the
// instant `at` (an ID ahead of the clock, as one restored from a server whose clock ran ahead),
// `raise(x)` raises the mark above ID x and returns the mark, `time_of(x)` the time of ID x's unit.
struct Generator {
    std::string setup, gen;
    bool server_wide;  // a node generator: one per server, shared by every database
    std::string (*above)(const std::string& at);
    std::string (*raise)(const std::string& id);
    std::string (*time_of)(const std::string& id);
};

void raise_keeps_every_session_above(const Cluster& c, const std::string& dbname, const Generator& g) {
    Db db(c, dbname);
    if (!g.setup.empty()) exec_on(db.dsn(), g.setup);
    // For a node generator: another database of the server.
    std::unique_ptr<Db> other_db = g.server_wide ? std::make_unique<Db>(c, dbname + "_other") : nullptr;
    pqxx::connection ca(db.dsn()), cb(db.dsn());
    pqxx::nontransaction a(ca), b(cb);
    std::string above;
    long long b_before = 0;
    // A few rounds, each to a later ID: a block of sequence numbers session b took before a raise
    // must not serve after it, and whether b holds one at that moment depends on timing.
    for (int round = 0; round < 5; ++round) {
        // Session b issues first: without preloading on 15/16 it may now hold a block of the
        // current time unit's sequence numbers.
        b_before = num(b, "SELECT max(" + g.gen + ") FROM generate_series(1, 300)");
        above = text(a, "SELECT " + g.above("clock_timestamp() + interval '3 s' + " + std::to_string(round) +
                                            " * interval '300 ms'"));
        ASSERT_GT(std::stoll(above), b_before);
        // The mark is the time of the ID's time unit: it was below it (a fresh state starts
        // about 1.3 s ahead of the clock, the previous round 300 ms before).
        EXPECT_EQ(text(a, "SELECT " + g.raise(above) + " = " + g.time_of(above)), "t") << "round " << round;
        // Every ID after the raise is above it, in the other session too (and, for a node
        // generator, in another database).
        EXPECT_GT(num(b, "SELECT " + g.gen), std::stoll(above)) << "round " << round;
        if (other_db) {
            pqxx::connection co(other_db->dsn());
            pqxx::nontransaction other(co);
            EXPECT_GT(num(other, "SELECT " + g.gen), std::stoll(above)) << "round " << round;
        }
        EXPECT_EQ(num(a, "SELECT count(*) FROM (SELECT " + g.gen +
                             " AS id FROM generate_series(1, 1000)) s WHERE id <= " + above),
                  0)
            << "round " << round;
    }
    // A lower ID leaves the mark where it is (issuing since has moved it further ahead, never
    // back); each session's IDs keep increasing.
    const long long last = num(a, "SELECT " + g.gen);
    EXPECT_EQ(text(a, "SELECT " + g.raise(std::to_string(b_before)) + " >= " + g.time_of(above)), "t");
    EXPECT_GT(num(a, "SELECT " + g.gen), last);
}

const Generator kSonyflake{
    "",
    "gen_snowflake('sonyflake')::bigint",
    true,
    [](const std::string& at) { return "snowflake_upper(" + at + ", 'sonyflake')::bigint"; },
    [](const std::string& id) { return "snowflake_raise_mark(" + id + "::bigint::snowflake, 'sonyflake')"; },
    [](const std::string& id) { return "snowflake_time(" + id + "::bigint::snowflake, 'sonyflake')"; }};

const Generator kShard{
    "SELECT create_shard(77, 'shard_77', '2022-02-02 00:00:00+00')",
    "shard_77.next_id()",
    false,
    [](const std::string& at) { return "shard_id_upper(" + at + ", '2022-02-02 00:00:00+00')"; },
    [](const std::string& id) { return "shard_raise_mark(77, " + id + ")"; },
    [](const std::string& id) { return "shard_id_time(" + id + "::bigint, '2022-02-02 00:00:00+00')"; }};

TEST(GeneratorMarks, NodeGeneratorAboveARaisedMarkPreloaded) {
    raise_keeps_every_session_above(cluster(true), "it_marks_node_pre", kSonyflake);
}
TEST(GeneratorMarks, NodeGeneratorAboveARaisedMarkWithoutPreloading) {
    raise_keeps_every_session_above(cluster(false), "it_marks_node_nopre", kSonyflake);
}
TEST(GeneratorMarks, ShardAboveARaisedMarkPreloaded) {
    raise_keeps_every_session_above(cluster(true), "it_marks_shard_pre", kShard);
}
TEST(GeneratorMarks, ShardAboveARaisedMarkWithoutPreloading) {
    raise_keeps_every_session_above(cluster(false), "it_marks_shard_nopre", kShard);
}

// trace_id_raise_mark(): TraceIds have 1 s time units, so each round raises the mark to the last ID
// of a whole second further ahead (3 s, then 5 s, 7 s): the mark is that second, and every TraceId
// after it is above it, in another session (which may hold a block of the current second's
// counters, without preloading on 15/16) and in another database (the generator is the server's).
void trace_raise_keeps_every_session_above(const Cluster& c, const std::string& dbname) {
    Db db(c, dbname);
    Db other_db(c, dbname + "_other");
    pqxx::connection ca(db.dsn()), cb(db.dsn()), co(other_db.dsn());
    pqxx::nontransaction a(ca), b(cb), other(co);
    for (int round = 0; round < 3; ++round) {
        const long long b_before = num(b, "SELECT max(gen_trace_id()) FROM generate_series(1, 300)");
        const std::string above = text(a, "SELECT trace_id_upper(clock_timestamp() + interval '3 s' + " +
                                              std::to_string(round) + " * interval '2 s')");
        ASSERT_GT(std::stoll(above), b_before);
        EXPECT_EQ(text(a, "SELECT trace_id_raise_mark(" + above + ") = trace_id_time(" + above + ")"), "t")
            << "round " << round;
        EXPECT_GT(num(b, "SELECT gen_trace_id()"), std::stoll(above)) << "round " << round;
        EXPECT_GT(num(other, "SELECT gen_trace_id()"), std::stoll(above)) << "round " << round;
        EXPECT_EQ(
            num(a, "SELECT count(*) FROM (SELECT gen_trace_id() AS id FROM generate_series(1, 1000)) s WHERE id <= " +
                       above),
            0)
            << "round " << round;
    }
    // A lower ID leaves the mark where it is; each session's IDs keep increasing.
    const long long last = num(a, "SELECT gen_trace_id()");
    EXPECT_EQ(text(a, "SELECT trace_id_raise_mark(trace_id_lower(now())) > now()"), "t");
    EXPECT_GT(num(a, "SELECT gen_trace_id()"), last);
}

TEST(GeneratorMarks, TraceIdAboveARaisedMarkPreloaded) {
    trace_raise_keeps_every_session_above(cluster(true), "it_marks_trace_pre");
}
TEST(GeneratorMarks, TraceIdAboveARaisedMarkWithoutPreloading) {
    trace_raise_keeps_every_session_above(cluster(false), "it_marks_trace_nopre");
}

// A raise to an ID just ahead of what the generator has issued, but below the mark it has already
// saved (the saved mark leads the issued IDs by the reserve, about 100 ms; a TraceId's unit is the
// whole current second): the raise must still restart the generator above it, though the saved mark
// need not move. Every ID after it, in this session and another one that issued just before (and may
// hold a block of sequence numbers, without preloading on 15/16), is above it. Each round first lets
// the clock catch up with the IDs issued, then raises: many chances to land in that gap.
struct NearRaise {
    std::string setup, gen;
    std::string (*above)();  // SQL for an ID of the unit just ahead of the clock
    std::string (*raise)(const std::string& id);
    std::string (*time_of)(const std::string& id);
};

void raise_just_ahead_keeps_ids_above(const Cluster& c, const std::string& dbname, const NearRaise& g, int rounds) {
    Db db(c, dbname);
    if (!g.setup.empty()) exec_on(db.dsn(), g.setup);
    pqxx::connection ca(db.dsn()), cb(db.dsn());
    pqxx::nontransaction a(ca), b(cb);
    int failures = 0;
    for (int round = 0; round < rounds; ++round) {
        // Until the clock has caught up with the IDs issued (a fresh state, and one restarted by
        // the previous round's raise, starts ahead of the clock).
        for (int wait = 0; wait < 100; ++wait) {
            if (text(a, "SELECT " + g.time_of(g.gen) + " <= clock_timestamp()") == "t") break;
            a.exec("SELECT pg_sleep(0.05)");
        }
        num(b, "SELECT " + g.gen);
        num(a, "SELECT " + g.gen);
        const std::string above = text(a, "SELECT " + g.above());
        exec_on(db.dsn(), "SELECT " + g.raise(above));
        const long long got_a = num(a, "SELECT " + g.gen);
        const long long got_b = num(b, "SELECT " + g.gen);
        EXPECT_GT(got_a, std::stoll(above)) << "round " << round;
        EXPECT_GT(got_b, std::stoll(above)) << "round " << round << " (another session)";
        if (got_a <= std::stoll(above) || got_b <= std::stoll(above)) ++failures;
    }
    EXPECT_EQ(failures, 0);
}

const NearRaise kNearSnowflake{
    "", "gen_snowflake()::bigint",
    [] { return std::string("snowflake_upper(clock_timestamp() + interval '40 ms')::bigint"); },
    [](const std::string& id) { return "snowflake_raise_mark(" + id + "::bigint::snowflake)"; },
    [](const std::string& id) { return "snowflake_time((" + id + ")::snowflake)"; }};
const NearRaise kNearShard{
    "SELECT create_shard(79, 'shard_79', '2022-02-02 00:00:00+00')", "shard_79.next_id()",
    [] { return std::string("shard_id_upper(clock_timestamp() + interval '40 ms', '2022-02-02 00:00:00+00')"); },
    [](const std::string& id) { return "shard_raise_mark(79, " + id + ")"; },
    [](const std::string& id) { return "shard_id_time(" + id + ", '2022-02-02 00:00:00+00')"; }};
const NearRaise kNearTrace{"", "gen_trace_id()", [] { return std::string("trace_id_upper(clock_timestamp())"); },
                           [](const std::string& id) { return "trace_id_raise_mark(" + id + ")"; },
                           [](const std::string& id) { return "trace_id_time(" + id + ")"; }};

TEST(GeneratorMarks, NodeGeneratorRaisedJustAheadPreloaded) {
    raise_just_ahead_keeps_ids_above(cluster(true), "it_marks_near_node_pre", kNearSnowflake, 20);
}
TEST(GeneratorMarks, NodeGeneratorRaisedJustAheadWithoutPreloading) {
    raise_just_ahead_keeps_ids_above(cluster(false), "it_marks_near_node_nopre", kNearSnowflake, 20);
}
TEST(GeneratorMarks, ShardRaisedJustAheadPreloaded) {
    raise_just_ahead_keeps_ids_above(cluster(true), "it_marks_near_shard_pre", kNearShard, 20);
}
TEST(GeneratorMarks, ShardRaisedJustAheadWithoutPreloading) {
    raise_just_ahead_keeps_ids_above(cluster(false), "it_marks_near_shard_nopre", kNearShard, 20);
}
// TraceIds: `above` is the last ID of the current second (without preloading on 15/16 each raise
// waits for the clock to leave that second).
TEST(GeneratorMarks, TraceIdRaisedWithinTheCurrentSecondPreloaded) {
    raise_just_ahead_keeps_ids_above(cluster(true), "it_marks_near_trace_pre", kNearTrace, 20);
}
TEST(GeneratorMarks, TraceIdRaisedWithinTheCurrentSecondWithoutPreloading) {
    raise_just_ahead_keeps_ids_above(cluster(false), "it_marks_near_trace_nopre", kNearTrace, 20);
}

// Past a mark raised ahead of the clock, a generator issues id_gen.max_run_ahead (1 s) worth of
// IDs, then refuses with 54000 until the clock gets there (as after a clock that stepped back).
TEST(GeneratorMarks, AheadOfTheClockAtMostMaxRunAheadWorthOfIds) {
    Db db(cluster(true), "it_marks_run_ahead");
    exec_on(db.dsn(), "SELECT create_shard(80)");
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    const std::string above = text(tx, "SELECT shard_id_upper(clock_timestamp() + interval '20 s', '2024-01-01+00')");
    tx.exec("SELECT shard_raise_mark(80, " + above + ")");
    // 1,000 ms of 1,024 IDs each after the mark's millisecond.
    EXPECT_EQ(num(tx,
                  "SELECT count(*) FROM (SELECT shard_80.next_id() AS id FROM generate_series(1, 1000000)) s "
                  "WHERE id > " +
                      above),
              1000000);
    bool refused = false;
    try {
        tx.exec("SELECT count(shard_80.next_id()) FROM generate_series(1, 100000)");
    } catch (const pqxx::sql_error& e) {
        refused = e.sqlstate() == "54000";
        EXPECT_NE(std::string(e.what()).find("ahead of the clock"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(refused);
}

std::string sqlstate_of(pqxx::connection& c, const std::string& sql, std::string* message = nullptr) {
    try {
        pqxx::nontransaction tx(c);
        tx.exec(sql);
    } catch (const pqxx::sql_error& e) {
        if (message) *message = e.what();
        return e.sqlstate();
    }
    return "";
}

TEST(GeneratorMarks, ErrorsLabelsAndPrivileges) {
    Db db(cluster(true), "it_marks_errors");
    exec_on(db.dsn(), "SELECT create_shard(78)");
    pqxx::connection c(db.dsn());
    std::string msg;
    EXPECT_EQ(sqlstate_of(c, "SELECT shard_raise_mark(79, 1)", &msg), "55000");
    EXPECT_NE(msg.find("shard 79 is not registered"), std::string::npos) << msg;
    EXPECT_EQ(sqlstate_of(c, "SELECT shard_raise_mark(78, 0)"), "22003");
    EXPECT_EQ(sqlstate_of(c, "SELECT shard_raise_mark(78, -5)"), "22003");
    // A day or more ahead of the clock is refused, and nothing moves.
    EXPECT_EQ(sqlstate_of(c, "SELECT snowflake_raise_mark(snowflake_upper(now() + interval '2 days'))", &msg), "22003");
    EXPECT_NE(msg.find("ahead of the clock, more than a day"), std::string::npos) << msg;
    EXPECT_EQ(
        sqlstate_of(c, "SELECT shard_raise_mark(78, shard_id_upper(now() + interval '30 hours', '2024-01-01+00'))"),
        "22003");
    {
        pqxx::nontransaction tx(c);
        EXPECT_EQ(num(tx,
                      "SELECT count(*) FROM (SELECT shard_78.next_id() AS id FROM generate_series(1, 10)) s "
                      "WHERE shard_id_time(id) > clock_timestamp() + interval '1 hour'"),
                  0);
        EXPECT_EQ(text(tx, "SELECT snowflake_raise_mark(NULL)"), "NULL");
        EXPECT_EQ(text(tx, "SELECT shard_raise_mark(78, NULL)"), "NULL");
        // Labels: generator-state writers.
        EXPECT_EQ(num(tx,
                      "SELECT count(*) FROM pg_proc WHERE proname IN ('snowflake_raise_mark', 'shard_raise_mark') "
                      "AND provolatile = 'v' AND proparallel = 'u' AND proisstrict"),
                  2);
    }
    EXPECT_EQ(sqlstate_of(c, "SELECT snowflake_raise_mark(1::snowflake, 'instagram')", &msg), "22023");
    EXPECT_NE(msg.find("shard_raise_mark"), std::string::npos) << msg;
    EXPECT_EQ(sqlstate_of(c, "SELECT snowflake_raise_mark(1::snowflake, 'nope')"), "22023");
    EXPECT_EQ(sqlstate_of(c, "BEGIN READ ONLY; SELECT shard_raise_mark(78, 1)"), "25006");
    {
        pqxx::nontransaction tx(c);
        tx.exec("ROLLBACK");
    }
    // Not for PUBLIC: a role without EXECUTE is refused (libpqxx 6.4 reports 42501 as
    // insufficient_privilege, without the SQLSTATE).
    exec_on(db.dsn(), "DROP ROLE IF EXISTS it_marks_user; CREATE ROLE it_marks_user");
    for (const char* call : {"snowflake_raise_mark(1::snowflake)", "shard_raise_mark(78, 1)"}) {
        bool refused = false;
        try {
            pqxx::nontransaction tx(c);
            tx.exec("SET ROLE it_marks_user");
            tx.exec(std::string("SELECT ") + call);
        } catch (const pqxx::insufficient_privilege& e) {
            refused = std::string(e.what()).find("permission denied for function") != std::string::npos;
        } catch (const pqxx::sql_error& e) {
            ADD_FAILURE() << call << ": " << e.what();
        }
        EXPECT_TRUE(refused) << call;
        pqxx::nontransaction tx(c);
        tx.exec("RESET ROLE");
    }
    exec_on(db.dsn(), "DROP ROLE it_marks_user");
}

TEST(GeneratorMarks, TraceIdErrorsAndPrivileges) {
    Db db(cluster(true), "it_marks_trace_errors");
    pqxx::connection c(db.dsn());
    std::string msg;
    // Not a TraceId: 0, negative, counter 0; the message names the value.
    EXPECT_EQ(sqlstate_of(c, "SELECT trace_id_raise_mark(0)", &msg), "22003");
    EXPECT_NE(msg.find("\"0\""), std::string::npos) << msg;
    EXPECT_EQ(sqlstate_of(c, "SELECT trace_id_raise_mark(-6123839962090569733)"), "22003");
    EXPECT_EQ(sqlstate_of(c, "SELECT trace_id_raise_mark(6123839962061209600)", &msg), "22003");
    EXPECT_NE(msg.find("6123839962061209600"), std::string::npos) << msg;
    // More than a day ahead of the clock: refused, and nothing moves.
    EXPECT_EQ(
        sqlstate_of(c, "SELECT trace_id_raise_mark(trace_id_upper(clock_timestamp() + interval '30 hours'))", &msg),
        "22003");
    EXPECT_NE(msg.find("ahead of the clock, more than a day"), std::string::npos) << msg;
    EXPECT_NE(msg.find("gen_trace_id()"), std::string::npos) << msg;
    {
        pqxx::nontransaction tx(c);
        EXPECT_EQ(num(tx,
                      "SELECT count(*) FROM (SELECT gen_trace_id() AS id FROM generate_series(1, 10)) s "
                      "WHERE trace_id_time(id) > clock_timestamp() + interval '1 hour'"),
                  0);
        EXPECT_EQ(text(tx, "SELECT trace_id_raise_mark(NULL)"), "NULL");
    }
    EXPECT_EQ(sqlstate_of(c, "BEGIN READ ONLY; SELECT trace_id_raise_mark(trace_id_lower(now()))", &msg), "25006");
    EXPECT_NE(msg.find("trace_id_raise_mark()"), std::string::npos) << msg;
    {
        pqxx::nontransaction tx(c);
        tx.exec("ROLLBACK");
    }
    // Bounds: before 1970 22003 naming the time, infinite 22008.
    EXPECT_EQ(sqlstate_of(c, "SELECT trace_id_lower('1969-12-31 23:59:59+00')", &msg), "22003");
    EXPECT_NE(msg.find("1969-12-31"), std::string::npos) << msg;
    EXPECT_EQ(sqlstate_of(c, "SELECT trace_id_upper('infinity')"), "22008");
    // Not for PUBLIC (libpqxx 6.4 reports 42501 as insufficient_privilege, without the SQLSTATE);
    // the bounds are.
    exec_on(db.dsn(), "DROP ROLE IF EXISTS it_marks_trace_user; CREATE ROLE it_marks_trace_user");
    bool refused = false;
    try {
        pqxx::nontransaction tx(c);
        tx.exec("SET ROLE it_marks_trace_user");
        EXPECT_EQ(text(tx, "SELECT trace_id_lower(now()) <= trace_id_upper(now())"), "t");
        tx.exec("SELECT trace_id_raise_mark(trace_id_lower(now()))");
    } catch (const pqxx::insufficient_privilege& e) {
        refused = std::string(e.what()).find("permission denied for function") != std::string::npos;
    } catch (const pqxx::sql_error& e) {
        ADD_FAILURE() << e.what();
    }
    EXPECT_TRUE(refused);
    {
        pqxx::nontransaction tx(c);
        tx.exec("RESET ROLE");
    }
    exec_on(db.dsn(), "DROP ROLE it_marks_trace_user");
}

}  // namespace
