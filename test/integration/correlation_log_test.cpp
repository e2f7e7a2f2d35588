// Correlation IDs against the real server log, on the main cluster (id_gen preloaded: every line
// of every backend is tagged, counters in shared memory) and on the second cluster (not preloaded:
// lines are tagged from the session's first id_gen call on; counters in the DSM registry on 17+,
// per backend with a random tag on 15 and 16).
//
// The log is the clusters' stderr log (scripts/test.sh starts them with pg_ctl -l server.log) in
// the default log_line_prefix, '%m [%p] ': each entry starts with "<time> <zone> [<pid>] LEVEL:  ".
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <pqxx/pqxx>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common.h"

namespace {

using idgen::it::env_or;
using idgen::it::keep_server_logs;

struct Server {
    std::string host, port, log;
    bool preloaded;
    [[nodiscard]] std::string dsn(const std::string& db = "postgres", const std::string& options = "") const {
        std::string d = "host=" + host + " port=" + port + " user=" + env_or("PGUSER", "postgres") + " dbname=" + db;
        if (!options.empty()) d += " options='" + options + "'";
        return d;
    }
};

Server main_server() {
    return {env_or("PGHOST", "/tmp"), env_or("PGPORT", "5432"), env_or("IDGEN_WORK", "/tmp") + "/pg/server.log", true};
}
Server nopreload_server() {
    return {env_or("IDGEN_NOPRELOAD_PGHOST", ""), env_or("IDGEN_NOPRELOAD_PGPORT", ""),
            env_or("IDGEN_WORK", "/tmp") + "/pg2/server.log", false};
}

void exec(const std::string& dsn, const std::string& sql) {
    pqxx::connection c(dsn);
    pqxx::nontransaction tx(c);
    tx.exec(sql);
}

// A database with the extension on `s`, dropped at the end.
class Db {
public:
    Db(Server s, std::string name) : s_(std::move(s)), name_(std::move(name)) {
        exec(s_.dsn(), "DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)");
        exec(s_.dsn(), "CREATE DATABASE " + name_);
        exec(s_.dsn(name_), "CREATE EXTENSION id_gen");
    }
    ~Db() {
        try {
            exec(s_.dsn(), "DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)");
        } catch (...) {}
    }
    Db(const Db&) = delete;
    Db& operator=(const Db&) = delete;
    [[nodiscard]] std::string dsn(const std::string& options = "") const { return s_.dsn(name_, options); }

private:
    Server s_;
    std::string name_;
};

// A token no earlier run can have logged.
std::string unique(const std::string& stem) {
    std::random_device rd;
    std::ostringstream o;
    o << stem << '-' << std::hex << rd() << rd();
    return o.str();
}

struct Entry {
    int pid;
    std::string level;  // LOG, ERROR, FATAL, ... or DETAIL, HINT, CONTEXT, STATEMENT, QUERY
    std::string text;   // the rest of the line
};

bool is_continuation(const std::string& level) {
    return level == "DETAIL" || level == "HINT" || level == "CONTEXT" || level == "STATEMENT" || level == "QUERY" ||
           level == "LOCATION";
}

// The server log from the moment it was opened on.
class Log {
public:
    explicit Log(std::string path) : path_(std::move(path)) {
        std::ifstream f(path_, std::ios::binary | std::ios::ate);
        start_ = f ? static_cast<std::streamoff>(f.tellg()) : 0;
    }
    [[nodiscard]] std::string text() const {
        std::ifstream f(path_, std::ios::binary);
        f.seekg(start_);
        std::ostringstream o;
        o << f.rdbuf();
        return o.str();
    }
    // Every line that starts an entry or continues one (lines of multi-line messages are left out).
    // Parsed by hand: a line can be 100 kB long, too long for std::regex's recursion.
    [[nodiscard]] std::vector<Entry> entries() const {
        std::vector<Entry> out;
        std::istringstream in(text());
        std::string line;
        while (std::getline(in, line)) {
            Entry e;
            if (parse(line, e)) out.push_back(std::move(e));
        }
        return out;
    }
    // "<date> <time> <zone> [<pid>] <LEVEL>:  <text>"
    static bool parse(const std::string& line, Entry& e) {
        static const std::regex kDate(R"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} )");
        if (line.size() < 24 || !std::regex_match(line.substr(0, 24), kDate)) return false;
        const std::size_t open = line.find(" [", 24);
        if (open == std::string::npos || open > 40) return false;
        const std::size_t close = line.find("] ", open);
        if (close == std::string::npos || close == open + 2) return false;
        for (std::size_t i = open + 2; i < close; ++i)
            if (line[i] < '0' || line[i] > '9') return false;
        const std::size_t colon = line.find(":  ", close + 2);
        if (colon == std::string::npos) return false;
        for (std::size_t i = close + 2; i < colon; ++i)
            if (!((line[i] >= 'A' && line[i] <= 'Z') || (line[i] >= '0' && line[i] <= '9'))) return false;
        e.pid = std::stoi(line.substr(open + 2, close - open - 2));
        e.level = line.substr(close + 2, colon - close - 2);
        e.text = line.substr(colon + 3);
        return !e.level.empty();
    }
    [[nodiscard]] std::vector<Entry> of_pid(int pid) const {
        std::vector<Entry> out;
        for (auto& e : entries())
            if (e.pid == pid) out.push_back(e);
        return out;
    }
    // Waits (bounded) until the log holds `needle`.
    bool wait_for(const std::string& needle, int seconds = 20) const {
        for (int i = 0; i < seconds * 10; ++i) {
            if (text().find(needle) != std::string::npos) return true;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        return false;
    }

private:
    std::string path_;
    std::streamoff start_;
};

bool ends_with(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The message of a log line: the server appends " at character N" to a message with an error
// position, after the message (and so after the tag).
std::string message_of(const std::string& text) {
    static const std::regex kPosition(R"( at character [0-9]+$)");
    std::smatch m;
    if (text.size() < 1000 && std::regex_search(text, m, kPosition)) return text.substr(0, m.position(0));
    return text;
}

std::string tag(const std::string& id) { return " [corr_id=" + id + "]"; }

int backend_pid(pqxx::connection& c) {
    pqxx::nontransaction tx(c);
    return tx.exec1("SELECT pg_backend_pid()")[0].as<int>();
}

std::string one(pqxx::connection& c, const std::string& sql) {
    pqxx::nontransaction tx(c);
    auto r = tx.exec1(sql);
    return r[0].is_null() ? "<null>" : r[0].as<std::string>();
}

std::string sqlstate_of(pqxx::connection& c, const std::string& sql) {
    try {
        pqxx::nontransaction tx(c);
        tx.exec(sql);
    } catch (const pqxx::sql_error& e) {
        return e.sqlstate();
    }
    return "";
}

// ---------------------------------------------------------------------------------------------

// The LOG level of the linking lines is not filtered out by default: the clusters run with the
// default log_min_messages.
TEST(CorrelationLog, ClustersUseTheDefaultLogLevel) {
    for (const Server& s : {main_server(), nopreload_server()}) {
        pqxx::connection c(s.dsn());
        EXPECT_EQ(one(c, "SHOW log_min_messages"), "warning");
        EXPECT_EQ(one(c, "SHOW log_line_prefix"), "%m [%p] ");
    }
}

// Preloaded: every message of the backend, whatever its level or origin, ends with the tag of the
// ID current when it was written; DETAIL/HINT/CONTEXT/STATEMENT lines are the same entry's.
TEST(CorrelationLog, PreloadedEveryMessageCarriesTheCurrentId) {
    Db db(main_server(), "it_corr_every");
    Log log(main_server().log);
    const std::string id = unique("req"), local = unique("tx");
    pqxx::connection c(db.dsn());
    const int pid = backend_pid(c);
    {
        pqxx::nontransaction tx(c);
        tx.exec("SET id_gen.correlation_id = '" + id + "'");
        tx.exec("SET log_statement = 'all'");  // a LOG line per statement
        tx.exec("SELECT 'statement-line'");
        tx.exec("DO $$BEGIN RAISE LOG 'raised at LOG'; RAISE WARNING 'raised at WARNING'; END$$");
        // A message of 100 kB: tagged at its end, in one piece.
        tx.exec("DO $$BEGIN RAISE LOG 'big %', repeat('b', 100000); END$$");
    }
    EXPECT_EQ(sqlstate_of(c, "SELECT 1/0"), "22012");
    // An error in a subtransaction caught by PL/pgSQL, then re-raised from the handler.
    EXPECT_EQ(sqlstate_of(c,
                          "DO $$BEGIN BEGIN PERFORM 1/0; EXCEPTION WHEN division_by_zero THEN "
                          "RAISE LOG 'caught'; RAISE EXCEPTION 'handler failed' USING ERRCODE = 'P0001'; END; END$$"),
              "P0001");
    // SET LOCAL: the transaction's ID while it runs, also in its error; the session's after.
    {
        pqxx::nontransaction tx(c);
        tx.exec("BEGIN");
        tx.exec("SET LOCAL id_gen.correlation_id = '" + local + "'");
        tx.exec("DO $$BEGIN RAISE LOG 'inside the transaction'; END$$");
    }
    EXPECT_EQ(sqlstate_of(c, "SELECT 'x'::int"), "22P02");
    {
        pqxx::nontransaction tx(c);
        tx.exec("ROLLBACK");
        tx.exec("DO $$BEGIN RAISE LOG 'after the transaction'; END$$");
        tx.exec("RESET log_statement");
        tx.exec("RESET id_gen.correlation_id");
        tx.exec("DO $$BEGIN RAISE LOG 'no id any more'; END$$");
    }
    const auto lines = log.of_pid(pid);
    // The server's " at character N" follows the tag.
    bool seen_position = false;
    for (const auto& e : lines)
        if (e.level == "ERROR" && ends_with(e.text, tag(local) + " at character 8")) seen_position = true;
    EXPECT_TRUE(seen_position) << log.text().substr(0, 5000);
    int messages = 0;
    bool seen_local_error = false, seen_big = false, seen_untagged = false, seen_after = false, seen_warning = false;
    bool after_reset = false;
    for (auto e : lines) {
        e.text = message_of(e.text);
        if (is_continuation(e.level)) {
            EXPECT_EQ(e.text.find("[corr_id="), std::string::npos) << e.level << ": " << e.text.substr(0, 200);
            continue;
        }
        if (e.text.find("statement: SET id_gen.correlation_id = '" + id) != std::string::npos)
            continue;  // logged before it ran
        if (e.text.rfind("no id any more", 0) == 0) {
            EXPECT_EQ(e.text, "no id any more");
            seen_untagged = true;
            continue;
        }
        if (e.text.find("statement: RESET id_gen.correlation_id") != std::string::npos) after_reset = true;
        if (after_reset) continue;
        ++messages;
        const bool in_tx = e.text.find("inside the transaction") != std::string::npos ||
                           e.text.find("'x'::int") != std::string::npos ||
                           e.text.find("invalid input syntax for type integer") != std::string::npos ||
                           e.text == "statement: ROLLBACK" + tag(local);
        const std::string want = in_tx ? tag(local) : tag(id);
        EXPECT_TRUE(ends_with(e.text, want)) << e.level << ": " << e.text.substr(0, 300) << "\nwanted " << want;
        // Exactly one tag.
        EXPECT_EQ(e.text.find("[corr_id="), e.text.size() - want.size() + 1) << e.text.substr(0, 300);
        if (e.level == "ERROR" && ends_with(e.text, tag(local))) seen_local_error = true;
        if (e.text.rfind("big ", 0) == 0) {
            EXPECT_EQ(e.text, "big " + std::string(100000, 'b') + tag(id));
            seen_big = true;
        }
        if (e.level == "WARNING") seen_warning = true;
        if (e.text == "after the transaction" + tag(id)) seen_after = true;
    }
    EXPECT_GE(messages, 12);
    EXPECT_TRUE(seen_local_error);
    EXPECT_TRUE(seen_big);
    EXPECT_TRUE(seen_untagged);
    EXPECT_TRUE(seen_after);
    EXPECT_TRUE(seen_warning);
}

// A FATAL while the backend is being terminated, and the disconnection line written on exit.
TEST(CorrelationLog, PreloadedTerminationAndExitLinesCarryTheId) {
    Db db(main_server(), "it_corr_exit");
    Log log(main_server().log);
    const std::string id = unique("dying");
    // The ID and log_disconnections from the connection's options (no SET needed).
    pqxx::connection victim(db.dsn("-c id_gen.correlation_id=" + id + " -c log_disconnections=on"));
    const int pid = backend_pid(victim);
    EXPECT_EQ(one(victim, "SELECT correlation_id()"), id);
    pqxx::connection killer(db.dsn());
    EXPECT_EQ(one(killer, "SELECT pg_terminate_backend(" + std::to_string(pid) + ")"), "t");
    ASSERT_TRUE(log.wait_for("disconnection: session time:")) << log.text();
    bool fatal = false, disconnection = false;
    for (const auto& e : log.of_pid(pid)) {
        if (e.level == "FATAL") {
            EXPECT_TRUE(ends_with(e.text, tag(id))) << e.text;
            fatal = true;
        }
        if (e.text.rfind("disconnection:", 0) == 0) {
            EXPECT_TRUE(ends_with(e.text, tag(id))) << e.text;
            disconnection = true;
        }
    }
    EXPECT_TRUE(fatal) << log.text();
    EXPECT_TRUE(disconnection) << log.text();
}

// A parallel worker has the leader's ID and tags its own messages; the leader re-raises the
// worker's error and warnings (the text the worker's hook tagged) and writes them again: still
// one tag, in the leader's log lines and in the error the client gets.
TEST(CorrelationLog, PreloadedParallelWorkerMessagesAreTaggedOnce) {
    Db db(main_server(), "it_corr_parallel");
    Log log(main_server().log);
    const std::string id = unique("par");
    pqxx::connection c(db.dsn());
    const int pid = backend_pid(c);
    {
        pqxx::nontransaction tx(c);
        tx.exec("CREATE TABLE t AS SELECT g AS x FROM generate_series(0, 9) g");
        tx.exec(
            "CREATE FUNCTION warn_from(x int) RETURNS int LANGUAGE plpgsql PARALLEL SAFE AS "
            "$$BEGIN IF x = 3 THEN RAISE WARNING 'warned by a worker'; END IF; RETURN x; END$$");
        // Every query under a Gather whose one worker runs it all (the leader only gathers):
        // force_parallel_mode on 15, debug_parallel_query from 16 on.
        tx.exec(
            "SELECT set_config(CASE WHEN current_setting('server_version_num')::int >= 160000 "
            "THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END, 'on', false)");
        tx.exec("SET parallel_leader_participation = off");
        tx.exec("SET id_gen.correlation_id = '" + id + "'");
        EXPECT_NE(tx.exec("EXPLAIN SELECT 1 / x FROM t")[0][0].as<std::string>().find("Gather"), std::string::npos);
        tx.exec("SELECT sum(warn_from(x)) FROM t");
    }
    std::string error;
    try {
        pqxx::nontransaction tx(c);
        tx.exec("SELECT 1 / x FROM t");
    } catch (const pqxx::sql_error& e) {
        error = e.what();
    }
    EXPECT_NE(error.find("division by zero" + tag(id) + "\n"), std::string::npos) << error;
    EXPECT_NE(error.find("parallel worker"), std::string::npos) << error;  // CONTEXT: raised in a worker
    EXPECT_EQ(error.find(tag(id) + tag(id)), std::string::npos) << error;
    ASSERT_TRUE(log.wait_for("division by zero"));
    int leader_error = 0, leader_warning = 0, worker_lines = 0;
    for (const auto& e : log.entries()) {
        if (e.text.find(id) == std::string::npos) continue;
        EXPECT_EQ(e.text.find(tag(id) + tag(id)), std::string::npos) << e.level << ": " << e.text;
        const bool error_line = e.level == "ERROR" && e.text == "division by zero" + tag(id);
        const bool warning_line = e.level == "WARNING" && e.text == "warned by a worker" + tag(id);
        if (e.pid == pid) {
            leader_error += error_line;
            leader_warning += warning_line;
        } else if (error_line || warning_line) {
            ++worker_lines;
        }
    }
    EXPECT_EQ(leader_error, 1) << log.text();
    EXPECT_EQ(leader_warning, 1) << log.text();
    EXPECT_GE(worker_lines, 2) << log.text();  // the workers wrote their own, tagged once too
}

// grep on an ID finds its whole story: the parent's lines and those of sessions working for its
// children, which carry it as their prefix.
TEST(CorrelationLog, PreloadedPrefixSearchFindsDescendants) {
    Db db(main_server(), "it_corr_tree");
    Log log(main_server().log);
    const std::string parent = unique("order");
    pqxx::connection p(db.dsn());
    pqxx::connection w1(db.dsn());
    pqxx::connection w2(db.dsn());
    pqxx::connection other(db.dsn());
    const std::set<int> family{backend_pid(p), backend_pid(w1), backend_pid(w2)};
    exec(db.dsn(), "SELECT 1");  // an unrelated session
    {
        pqxx::nontransaction tx(p);
        tx.exec("SET id_gen.correlation_id = '" + parent + "'");
        tx.exec("DO $$BEGIN RAISE LOG 'parent at work'; END$$");
    }
    const std::string c1 = one(p, "SELECT correlation_extend()");
    const std::string c2 = one(p, "SELECT correlation_extend()");
    EXPECT_EQ(c1, parent + ".1");
    EXPECT_EQ(c2, parent + ".2");
    const std::string g1 = one(w1, "SELECT correlation_extend('" + c1 + "')");
    EXPECT_EQ(g1, c1 + ".1");
    for (auto [conn, id] : {std::pair{&w1, c1}, std::pair{&w2, g1}}) {
        pqxx::nontransaction tx(*conn);
        tx.exec("SET id_gen.correlation_id = '" + id + "'");
        tx.exec("DO $$BEGIN RAISE LOG 'child at work'; END$$");
    }
    {
        pqxx::nontransaction tx(other);
        tx.exec("SET id_gen.correlation_id = '" + unique("unrelated") + "'");
        tx.exec("DO $$BEGIN RAISE LOG 'someone else'; END$$");
    }
    std::set<int> found;
    int child_lines = 0;
    for (const auto& e : log.entries()) {
        if (e.text.find("[corr_id=" + parent) == std::string::npos) continue;
        found.insert(e.pid);
        if (e.text.rfind("child at work", 0) == 0) ++child_lines;
    }
    EXPECT_EQ(found, family);
    EXPECT_EQ(child_lines, 2);
}

// The two linking lines, exactly as specified, in order, at LOG, each with one tag.
void expect_linking_lines(const Server& s, const std::string& dbname) {
    Db db(s, dbname);
    Log log(s.log);
    const std::string a = unique("old"), b = unique("new"), c = unique("more");
    pqxx::connection conn(db.dsn());
    const int pid = backend_pid(conn);
    one(conn, "SELECT set_config('id_gen.correlation_id', '" + a + "', false)");
    EXPECT_EQ(one(conn, "SELECT correlation_replace('" + b + "')"), b);
    EXPECT_EQ(one(conn, "SELECT correlation_combine('" + c + "')"), b + "+" + c);
    const std::string tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    EXPECT_EQ(one(conn, "SELECT correlation_from_traceparent('" + tp + "')"), "4bf92f3577b34da6a3ce929d0e0e4736");
    // Replacing with the current ID, or with none current, links nothing.
    EXPECT_EQ(one(conn, "SELECT correlation_replace('4bf92f3577b34da6a3ce929d0e0e4736')"),
              "4bf92f3577b34da6a3ce929d0e0e4736");
    one(conn, "SELECT set_config('id_gen.correlation_id', '', false)");
    EXPECT_EQ(one(conn, "SELECT correlation_replace('" + a + "')"), a);
    std::vector<std::string> got;
    for (const auto& e : log.of_pid(pid))
        if (e.text.find("orrelation id [") != std::string::npos) got.push_back(e.level + ": " + e.text);
    const std::string bc = b + "+" + c, t = "4bf92f3577b34da6a3ce929d0e0e4736";
    const std::vector<std::string> want{
        "LOG: Replacing correlation id [corr_id=" + a + "] [new_corr_id=" + b + "]",
        "LOG: Replaced correlation id [corr_id=" + b + "] [old_corr_id=" + a + "]",
        "LOG: Replacing correlation id [corr_id=" + b + "] [new_corr_id=" + bc + "]",
        "LOG: Replaced correlation id [corr_id=" + bc + "] [old_corr_id=" + b + "]",
        "LOG: Replacing correlation id [corr_id=" + bc + "] [new_corr_id=" + t + "]",
        "LOG: Replaced correlation id [corr_id=" + t + "] [old_corr_id=" + bc + "]",
    };
    EXPECT_EQ(got, want);
}

TEST(CorrelationLog, PreloadedReplacementWritesTheLinkingLines) { expect_linking_lines(main_server(), "it_corr_link"); }
TEST(CorrelationLog, NotPreloadedReplacementWritesTheLinkingLines) {
    expect_linking_lines(nopreload_server(), "it_corr_link2");
}

// Not preloaded: nothing is tagged before the session's first id_gen call loads the library; from
// then on, every message is. An ID given in the connection's options waits for that moment.
TEST(CorrelationLog, NotPreloadedTagsFromTheFirstCall) {
    Db db(nopreload_server(), "it_corr_late");
    Log log(nopreload_server().log);
    const std::string id = unique("late");
    pqxx::connection c(db.dsn("-c id_gen.correlation_id=" + id));
    const int pid = backend_pid(c);
    {
        pqxx::nontransaction tx(c);
        tx.exec("DO $$BEGIN RAISE LOG 'before the library'; END$$");
        EXPECT_EQ(tx.exec1("SELECT correlation_id()")[0].as<std::string>(), id);
        tx.exec("DO $$BEGIN RAISE LOG 'after the library'; END$$");
    }
    EXPECT_EQ(sqlstate_of(c, "SELECT 1/0"), "22012");
    bool before = false, after = false, error = false;
    for (const auto& e : log.of_pid(pid)) {
        if (e.text == "before the library") before = true;
        if (e.text == "after the library" + tag(id)) after = true;
        if (e.level == "ERROR" && e.text == "division by zero" + tag(id)) error = true;
    }
    EXPECT_TRUE(before) << log.text();
    EXPECT_TRUE(after) << log.text();
    EXPECT_TRUE(error) << log.text();
}

// Before the library is loaded the server keeps any text as a placeholder; when the library loads,
// the placeholder is checked like a SET: an invalid one is dropped with a warning (value escaped).
TEST(CorrelationLog, NotPreloadedInvalidPlaceholderIsDropped) {
    Db db(nopreload_server(), "it_corr_placeholder");
    Log log(nopreload_server().log);
    const std::string marker = unique("bad");
    pqxx::connection c(db.dsn("-c id_gen.correlation_id=" + marker + "]x"));
    const std::string id = one(c, "SELECT correlation_id()");
    EXPECT_EQ(id.find(marker), std::string::npos) << id;
    EXPECT_EQ(id.size(), 36u) << id;  // a fresh UUIDv7
    const std::string text = log.text();
    EXPECT_NE(text.find("WARNING:  invalid value for parameter \"id_gen.correlation_id\": \"" + marker + "\\x5dx\""),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find("[corr_id=" + marker), std::string::npos) << text;
}

// session_preload_libraries (here from the connection string, as a superuser may; per database or
// role with ALTER ... SET) loads the library when the session starts: every line is tagged.
TEST(CorrelationLog, NotPreloadedSessionPreloadTagsFromTheStart) {
    Db db(nopreload_server(), "it_corr_session");
    Log log(nopreload_server().log);
    const std::string id = unique("early");
    pqxx::connection c(db.dsn("-c session_preload_libraries=id_gen -c id_gen.correlation_id=" + id));
    const int pid = backend_pid(c);
    {
        pqxx::nontransaction tx(c);
        tx.exec("DO $$BEGIN RAISE LOG 'first statement'; END$$");
    }
    bool first = false;
    for (const auto& e : log.of_pid(pid))
        if (e.text == "first statement" + tag(id)) first = true;
    EXPECT_TRUE(first) << log.text();
}

// No log injection: a value with a line break, a bracket or a space is refused (22023) and shown
// escaped; the log holds no forged line.
TEST(CorrelationLog, ForgedLinesAreRefused) {
    for (const Server& s : {main_server(), nopreload_server()}) {
        Db db(s, "it_corr_forge");
        Log log(s.log);
        pqxx::connection c(db.dsn());
        one(c, "SELECT correlation_id()");  // the library is loaded
        const std::string marker = unique("forged");
        EXPECT_EQ(
            sqlstate_of(c, "SET id_gen.correlation_id = E'x\\n2030-01-01 00:00:00.000 UTC [1] LOG:  " + marker + "'"),
            "22023");
        EXPECT_EQ(sqlstate_of(c, "SET id_gen.correlation_id = 'x] [corr_id=" + marker + "'"), "22023");
        EXPECT_EQ(sqlstate_of(c, "SELECT correlation_replace(E'y\\r" + marker + "')"), "22P02");
        EXPECT_EQ(sqlstate_of(c, "SELECT correlation_extend(E'z\\n" + marker + "')"), "22P02");
        EXPECT_EQ(one(c, "SELECT current_setting('id_gen.correlation_id')"), "");
        const std::string text = log.text();
        EXPECT_NE(text.find("\\x0a2030-01-01"), std::string::npos) << text;
        std::istringstream in(text);
        std::string line;
        while (std::getline(in, line)) {
            EXPECT_NE(line.rfind("2030-01-01", 0), 0u) << line;
            EXPECT_EQ(line.find(marker + "\r"), std::string::npos) << line;
            // (A STATEMENT line repeats the client's SQL text as sent, which is the client's to write.)
            Entry e;
            if (Log::parse(line, e) && e.level != "STATEMENT") {
                EXPECT_EQ(line.find("[corr_id=" + marker), std::string::npos) << line;
            }
        }
    }
}

// A message of several lines: the tag ends its first line, the line that starts the entry in the
// log (and what the client receives); the other lines are the same entry's, untagged.
TEST(CorrelationLog, MultiLineMessageIsTaggedOnItsFirstLine) {
    for (const Server& s : {main_server(), nopreload_server()}) {
        Db db(s, "it_corr_lines");
        Log log(s.log);
        const std::string id = unique("lines"), u = unique("l");
        pqxx::connection c(db.dsn("-c id_gen.correlation_id=" + id));
        one(c, "SELECT traceparent_valid('x')");  // the library is loaded
        {
            pqxx::nontransaction tx(c);
            tx.exec("DO $$BEGIN RAISE LOG E'first-" + u + "\\nsecond-" + u + "\\nthird-" + u + "'; END$$");
        }
        std::string error;
        try {
            pqxx::nontransaction tx(c);
            tx.exec("DO $$BEGIN RAISE EXCEPTION E'efirst-" + u + "\\nesecond-" + u + "'; END$$");
        } catch (const pqxx::sql_error& e) {
            error = e.what();
        }
        EXPECT_NE(error.find("efirst-" + u + tag(id) + "\nesecond-" + u + "\n"), std::string::npos) << error;
        ASSERT_TRUE(log.wait_for("esecond-" + u));
        const std::string text = log.text();
        // stderr: the lines after the first are indented with a tab.
        EXPECT_NE(text.find("LOG:  first-" + u + tag(id) + "\n\tsecond-" + u + "\n\tthird-" + u + "\n"),
                  std::string::npos)
            << text;
        EXPECT_NE(text.find("ERROR:  efirst-" + u + tag(id) + "\n\tesecond-" + u + "\n"), std::string::npos) << text;
        EXPECT_EQ(text.find("third-" + u + tag(id)), std::string::npos) << text;
    }
}

std::string lower(std::string s) {
    for (char& ch : s)
        if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
    return s;
}

// What a session writes itself: messages, details, hints, contexts and internal queries that hold
// the tag marker (in any letter case, bracketed or as the linking lines' old_/new_corr_id=), on
// one line or several. The SQL text spells the marker in two pieces, so that it is only ever
// whole in what the session made the server write.
std::vector<std::string> forging_statements(const std::string& victim) {
    const std::string m = "m text := 'x [corr' || '_id=" + victim + "] [old_corr' || '_id=" + victim +
                          "] [CORR' || '_ID=" + victim + "]'";
    return {
        "DO $$DECLARE " + m + "; BEGIN RAISE LOG '%', m USING DETAIL = m, HINT = m; END$$",
        "DO $$DECLARE " + m + "; BEGIN RAISE LOG E'first\\n%\\n%', m, m; END$$",
        "DO $$DECLARE " + m + "; BEGIN RAISE WARNING '%', m USING DETAIL = E'a\\n' || m; END$$",
        "DO $$DECLARE " + m + "; BEGIN RAISE EXCEPTION '%', m USING DETAIL = m, HINT = m; END$$",
        "DO $$DECLARE " + m + "; BEGIN EXECUTE 'SELECT 1/0 AS \"' || m || '\"'; END$$",                // CONTEXT
        "DO $$DECLARE " + m + "; BEGIN EXECUTE 'SELEC ' || quote_literal(m); END$$",                   // QUERY
        "DO $$DECLARE " + m + "; BEGIN PERFORM set_config('id_gen.correlation_id', m, false); END$$",  // refused
    };
}

// Runs the forging statements in a session without an ID and in one with an ID of its own;
// returns the errors the clients received.
std::string forge(const Server& s, const std::string& dbdsn_plain, const std::string& dbdsn_own,
                  const std::string& victim, const std::string& done) {
    std::string errors;
    for (const std::string& d : {dbdsn_plain, dbdsn_own}) {
        pqxx::connection c(d);
        one(c, "SELECT traceparent_valid('x')");  // the library is loaded (no ID is made)
        for (const std::string& sql : forging_statements(victim)) {
            try {
                pqxx::nontransaction tx(c);
                tx.exec(sql);
            } catch (const pqxx::sql_error& e) {
                errors += e.what();
                errors += "\n";
            }
        }
        pqxx::nontransaction tx(c);
        tx.exec("DO $$BEGIN RAISE LOG '" + done + "'; END$$");
    }
    (void)s;
    return errors;
}

// A session cannot write a line that looks tagged with an ID it does not hold: the marker in its
// own text is neutralised (corr_id= becomes corr_id~), whether or not it has an ID; a real tag is
// still added, on the first line. (stderr here; csvlog and jsonlog below.)
TEST(CorrelationLog, SessionTextCannotForgeATag) {
    for (const Server& s : {main_server(), nopreload_server()}) {
        Db db(s, "it_corr_noforge");
        Log log(s.log);
        const std::string victim = unique("req-victim"), mine = unique("mine"), done = unique("forged-done");
        const std::string errors = forge(s, db.dsn(), db.dsn("-c id_gen.correlation_id=" + mine), victim, done);
        ASSERT_TRUE(log.wait_for(done + tag(mine)));
        const std::string text = log.text();
        EXPECT_EQ(lower(text).find("corr_id=" + victim), std::string::npos) << text;
        EXPECT_EQ(lower(errors).find("corr_id=" + victim), std::string::npos) << errors;
        EXPECT_NE(text.find("x [corr_id~" + victim + "] [old_corr_id~" + victim + "] [CORR_ID~" + victim + "]"),
                  std::string::npos)
            << text;
        EXPECT_NE(text.find("LOG:  x [corr_id~" + victim + "] [old_corr_id~" + victim + "] [CORR_ID~" + victim + "]" +
                            tag(mine) + "\n"),
                  std::string::npos)
            << text;
        EXPECT_NE(text.find("LOG:  first" + tag(mine) + "\n\tx [corr_id~" + victim), std::string::npos) << text;
        EXPECT_NE(text.find("DETAIL:  x [corr_id~" + victim), std::string::npos) << text;
        EXPECT_NE(text.find("HINT:  x [corr_id~" + victim), std::string::npos) << text;
        EXPECT_NE(text.find("CONTEXT:  SQL statement \"SELECT 1/0 AS \"x [corr_id~" + victim), std::string::npos)
            << text;
        EXPECT_NE(text.find("QUERY:  SELEC 'x [corr_id~" + victim), std::string::npos) << text;
    }
}

// Children by counter from many backends at once: distinct, and with shared state exactly
// parent.1 .. parent.N; without it (15 and 16 not preloaded) parent.<n>-<tag of the backend>.
TEST(CorrelationLog, CountedChildrenAreUniqueAcrossBackends) {
    constexpr int kConns = 8, kEach = 250;
    for (const Server& s : {main_server(), nopreload_server()}) {
        Db db(s, "it_corr_count");
        pqxx::connection c(db.dsn());
        const std::string storage = one(c, "SELECT correlation_counter_storage()");
        const int major = std::stoi(one(c, "SELECT current_setting('server_version_num')")) / 10000;
        if (s.preloaded)
            EXPECT_EQ(storage, "shared memory");
        else
            EXPECT_EQ(storage, major >= 17 ? "dsm registry" : "per backend");
        const std::string parent = unique("fanout");
        std::vector<std::thread> threads;
        std::vector<std::vector<std::string>> per(kConns);
        for (int k = 0; k < kConns; ++k)
            threads.emplace_back([&, k] {
                pqxx::connection cc(db.dsn());
                pqxx::nontransaction tx(cc);
                for (const auto& row : tx.exec("SELECT correlation_extend('" + parent + "') FROM generate_series(1, " +
                                               std::to_string(kEach) + ")"))
                    per[k].push_back(row[0].as<std::string>());
            });
        for (auto& t : threads) t.join();
        std::set<std::string> distinct;
        const std::regex shared("^" + parent + R"(\.([0-9]+)$)");
        const std::regex local("^" + parent + R"(\.([0-9]+)-([0-9a-hjkmnp-tv-z]{8})$)");
        std::set<long> numbers;
        for (const auto& v : per) {
            EXPECT_EQ(v.size(), static_cast<std::size_t>(kEach));
            for (const auto& id : v) {
                distinct.insert(id);
                std::smatch m;
                if (storage == "per backend") {
                    EXPECT_TRUE(std::regex_match(id, m, local)) << id;
                } else {
                    ASSERT_TRUE(std::regex_match(id, m, shared)) << id;
                    numbers.insert(std::stol(m[1]));
                }
            }
        }
        EXPECT_EQ(distinct.size(), static_cast<std::size_t>(kConns * kEach)) << storage;
        if (storage != "per backend") {
            // A fresh parent: exactly 1 .. kConns*kEach, no gap, no repeat.
            EXPECT_EQ(numbers.size(), static_cast<std::size_t>(kConns * kEach));
            EXPECT_EQ(*numbers.begin(), 1);
            EXPECT_EQ(*numbers.rbegin(), kConns * kEach);
            // The counters are the server's, not the database's.
            Db other(s, "it_corr_count_other");
            pqxx::connection oc(other.dsn());
            EXPECT_EQ(one(oc, "SELECT correlation_extend('" + parent + "')"),
                      parent + "." + std::to_string(kConns * kEach + 1));
        }
    }
}

// A preloaded cluster of its own (the test fills the counter table for good): a parent whose slot
// was evicted continues above every number it was given, parents counted after the table filled up
// no longer start at 1, and a restart starts the counters over.
class OwnCluster {
public:
    explicit OwnCluster(const std::string& name = "corr_own", const std::string& extra_conf = "") {
        dir_ = env_or("IDGEN_WORK", "/tmp") + "/" + name;
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
              "'\\nfsync = off\\nshared_buffers = 32MB\\nshared_preload_libraries = 'id_gen'\\n\" | " + as_ +
              "tee -a " + dir_ + "/data/postgresql.conf >/dev/null";
        ok_ = ok_ && std::system(cmd.c_str()) == 0;
        if (ok_ && !extra_conf.empty()) {
            std::ofstream(dir_ + "/extra.conf") << extra_conf;
            cmd = as_ + "tee -a " + dir_ + "/data/postgresql.conf <" + dir_ + "/extra.conf >/dev/null";
            ok_ = std::system(cmd.c_str()) == 0;
        }
        ok_ = ok_ && pg_ctl("start") == 0;
    }
    ~OwnCluster() {
        pg_ctl("stop -m fast");
        keep_server_logs(dir_);
        std::system(("rm -rf " + dir_).c_str());
    }
    OwnCluster(const OwnCluster&) = delete;
    OwnCluster& operator=(const OwnCluster&) = delete;
    [[nodiscard]] bool ok() const { return ok_; }
    [[nodiscard]] const std::string& dir() const { return dir_; }
    [[nodiscard]] Server server() const { return {dir_, port_, dir_ + "/server.log", true}; }
    int pg_ctl(const std::string& args) const {
        const std::string cmd =
            as_ + bin_ + "/pg_ctl -D " + dir_ + "/data -l " + dir_ + "/server.log -w -t 60 " + args + " >/dev/null";
        return std::system(cmd.c_str());
    }

private:
    std::string dir_, port_, as_, bin_;
    bool ok_ = false;
};

TEST(CorrelationCounterTable, EvictionAndRestart) {
    OwnCluster own;
    ASSERT_TRUE(own.ok());
    const Server s = own.server();
    exec(s.dsn(), "CREATE EXTENSION id_gen");
    {
        pqxx::connection c(s.dsn());
        EXPECT_EQ(one(c, "SELECT correlation_counter_storage()"), "shared memory");
        EXPECT_EQ(one(c, "SELECT correlation_extend('keep')"), "keep.1");
        EXPECT_EQ(one(c, "SELECT correlation_extend('keep')"), "keep.2");
        EXPECT_EQ(one(c, "SELECT correlation_extend('keep')"), "keep.3");
        // 30,000 other parents once each: far more than the 8,192 slots.
        EXPECT_EQ(one(c, "SELECT count(DISTINCT correlation_extend('flood-' || g)) FROM generate_series(1, 30000) g"),
                  "30000");
        // Whether or not 'keep' lost its slot, it continues above 3.
        const std::string next = one(c, "SELECT correlation_extend('keep')");
        ASSERT_EQ(next.rfind("keep.", 0), 0u) << next;
        EXPECT_GT(std::stol(next.substr(5)), 3) << next;
        // New parents now take evicted slots: they start above the numbers evicted before them.
        EXPECT_EQ(one(c,
                      "SELECT count(*) FILTER (WHERE correlation_extend('new-' || g) <> 'new-' || g || '.1') "
                      "FROM generate_series(1, 100) g"),
                  "100");
    }
    ASSERT_EQ(own.pg_ctl("restart"), 0);
    pqxx::connection c(s.dsn());
    EXPECT_EQ(one(c, "SELECT correlation_extend('keep')"), "keep.1");  // counts from 1 again
}

// The same in every log format: a cluster of its own with the logging collector writing stderr,
// csvlog and (15+) jsonlog. In each file the forged marker is neutralised and a real tag ends the
// first line of the message.
TEST(CorrelationLogFormats, ForgingIsNeutralisedInStderrCsvAndJson) {
    OwnCluster own("corr_formats",
                   "logging_collector = on\n"
                   "log_destination = 'stderr,csvlog,jsonlog'\n"
                   "log_filename = 'postgresql.log'\n"
                   "log_rotation_age = 0\n"
                   "log_rotation_size = 0\n");
    ASSERT_TRUE(own.ok());
    const Server s = own.server();
    exec(s.dsn(), "CREATE EXTENSION id_gen");
    const std::string victim = unique("req-victim"), mine = unique("mine"), done = unique("formats-done");
    const std::string u = unique("ml");
    forge(s, s.dsn(), s.dsn("postgres", "-c id_gen.correlation_id=" + mine), victim, done);
    {
        pqxx::connection c(s.dsn("postgres", "-c id_gen.correlation_id=" + mine));
        pqxx::nontransaction tx(c);
        tx.exec("DO $$BEGIN RAISE LOG E'first-" + u + "\\nsecond-" + u + "'; END$$");
        tx.exec("DO $$BEGIN RAISE LOG '" + done + "-end'; END$$");
    }
    const std::string dir = own.dir() + "/data/log/";
    struct Format {
        std::string file, forged_line, multi_line;
    };
    const std::string forged = "x [corr_id~" + victim + "] [old_corr_id~" + victim + "] [CORR_ID~" + victim + "]";
    const std::vector<Format> formats = {
        {"postgresql.log", "LOG:  " + forged + tag(mine) + "\n",
         "LOG:  first-" + u + tag(mine) + "\n\tsecond-" + u + "\n"},
        {"postgresql.csv", ",\"" + forged + tag(mine) + "\",", ",\"first-" + u + tag(mine) + "\nsecond-" + u + "\","},
        {"postgresql.json", "\"message\":\"" + forged + tag(mine) + "\"",
         "\"message\":\"first-" + u + tag(mine) + "\\nsecond-" + u + "\""},
    };
    for (const Format& f : formats) {
        std::string text;
        for (int i = 0; i < 200; ++i) {
            std::ifstream in(dir + f.file, std::ios::binary);
            std::ostringstream o;
            o << in.rdbuf();
            text = o.str();
            if (text.find(done + "-end") != std::string::npos) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        ASSERT_NE(text.find(done + "-end"), std::string::npos) << f.file << "\n" << text;
        EXPECT_EQ(lower(text).find("corr_id=" + victim), std::string::npos) << f.file << "\n" << text;
        EXPECT_NE(text.find(f.forged_line), std::string::npos) << f.file << "\n" << text;
        EXPECT_NE(text.find(f.multi_line), std::string::npos) << f.file << "\n" << text;
    }
}

}  // namespace
