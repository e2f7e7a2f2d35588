// The core's error table (core/base/errors.h) on both sides of a real server: for each core error
// a SQL call raises, the server's SQLSTATE is the table's and its message the table's text, and
// the library, given the same input, throws the same SQLSTATE and the same message. (The codes no
// SQL call on a healthy server raises, the generator state's, are the fault layer's.)
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "../integration/common.h"
#include "core/base/errors.h"
#include "id_gen/id_gen.hpp"

namespace {

using idgen::Error;
using idgen::it::ScratchDb;

struct Raised {
    std::string sqlstate, message;
};

Raised server_error(pqxx::connection& c, const std::string& sql, const std::string& arg) {
    pqxx::work tx(c);
    tx.exec("SET LOCAL TimeZone = 'UTC'");
    try {
        tx.exec_params(sql, arg);
    } catch (const pqxx::sql_error& e) {
        std::string m = e.what();
        if (m.rfind("ERROR:  ", 0) == 0) m = m.substr(8);
        return {e.sqlstate(), m.substr(0, m.find('\n'))};
    }
    return {"", "no error"};
}

Raised library_error(const std::function<void()>& f) {
    try {
        f();
    } catch (const id_gen::error& e) {
        return {e.sqlstate(), e.what()};
    }
    return {"", "no error"};
}

std::string table_message(Error e, const char* type, const std::string& value) {
    char buf[1024];
    idgen::error_message(e, type, value.data(), value.size(), buf, sizeof buf);
    return buf;
}

}  // namespace

TEST(ErrorTable, ServerAndLibraryRaiseTheTablesSqlstateAndText) {
    ScratchDb db("lib_pqxx_error_table");
    pqxx::connection c(db.dsn());
    const std::string body = "0b6ol7g0qk5tbhc8y8hbzs2sf";
    struct Case {
        Error code;
        const char* sql;
        std::string arg;
        const char* type;               // the SQL type the message names
        std::string value;              // the value the message shows
        std::function<void()> library;  // the same input to the library (empty: see below)
    };
    const std::vector<Case> cases = {
        {Error::kInvalidSyntax, "SELECT $1::ulid", "not-a-ulid", "ulid", "not-a-ulid",
         [] { (void)id_gen::Ulid::parse("not-a-ulid"); }},
        {Error::kOutOfRange, "SELECT $1::ulid", "80000000000000000000000000", "ulid", "80000000000000000000000000",
         [] { (void)id_gen::Ulid::parse("80000000000000000000000000"); }},
        {Error::kTimeOutOfRange, "SELECT ulid_lower($1::timestamptz)", "1969-12-31 23:59:59.999+00", "ulid",
         "1969-12-31 23:59:59.999+00",
         [] { (void)id_gen::Ulid::lower(id_gen::sys_milliseconds(std::chrono::milliseconds(-1))); }},
        {Error::kInvalidPrefix, "SELECT prefixed_format($1, '00000000-0000-0000-0000-000000000000'::uuid)", "Bad",
         "prefixed ID", "Bad", [] { (void)id_gen::PrefixedId("Bad", id_gen::Uuid{}); }},
        {Error::kWrongPrefix, "SELECT prefixed_parse('acct', $1)", "usr_" + body, "prefixed ID",
         "expected prefix \"acct\", found \"usr\" in \"usr_" + body + "\"",
         [body] { (void)id_gen::PrefixedId::parse("acct", "usr_" + body); }},
    };
    for (const auto& k : cases) {
        const idgen::ErrorText* t = idgen::error_text(k.code);
        ASSERT_NE(t, nullptr);
        const Raised server = server_error(c, k.sql, k.arg);
        EXPECT_EQ(server.sqlstate, t->sqlstate) << k.sql;
        EXPECT_EQ(server.message, table_message(k.code, k.type, k.value)) << k.sql;
        if (k.library) {
            const Raised library = library_error(k.library);
            EXPECT_EQ(library.sqlstate, server.sqlstate) << k.sql;
            EXPECT_EQ(library.message, server.message) << k.sql;
        }
    }
    // A layout used up: no SQL call reaches it on a test server (a shard's epoch must be in the last
    // 34.8 years, id_gen.test_clock_offset moves the clock by a day at most), so the library's
    // snowflake generator past its layout's last time unit is checked against the table alone.
    const std::int64_t now_ms = 1700000000000;
    id_gen::SnowflakeOptions o;
    o.clock = [now_ms] { return now_ms * 1000000; };
    o.max_run_ahead = std::chrono::milliseconds(0);
    const Raised library = library_error([&] {
        id_gen::SnowflakeGenerator g(0, id_gen::SnowflakeLayout::custom(0, 20, 1, 1), o);
        (void)g.next();
    });
    const idgen::ErrorText* t = idgen::error_text(Error::kLayoutExhausted);
    EXPECT_EQ(library.sqlstate, t->sqlstate);
    EXPECT_EQ(library.message, table_message(Error::kLayoutExhausted, "snowflake",
                                             "the layout's time field is used up at 2023-11-14 22:13:20.000+00"));
}
