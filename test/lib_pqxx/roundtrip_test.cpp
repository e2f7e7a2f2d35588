// The C++ library against a real server (the cluster scripts/test.sh started): every ID type goes
// through libpqxx into a column of its SQL type and back, the extension decodes the library's IDs
// exactly as the library does (times, nodes, sequences, base36 and prefixed text), the library
// decodes the extension's IDs the same way, both sort alike, and text that one refuses the other
// refuses with the same SQLSTATE and message.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "../integration/common.h"
#include "id_gen/id_gen.hpp"
#include "id_gen/pqxx.hpp"

namespace {

using idgen::it::ScratchDb;

constexpr int kIds = 500;

std::int64_t us_of(const id_gen::sys_microseconds& t) { return t.time_since_epoch().count(); }

// The server's error for `sql` with one text parameter: SQLSTATE and primary message.
std::pair<std::string, std::string> server_error(pqxx::connection& c, const std::string& sql, const std::string& arg) {
    pqxx::work tx(c);
    try {
        tx.exec_params(sql, arg);
    } catch (const pqxx::sql_error& e) {
        std::string m = e.what();
        if (m.rfind("ERROR:  ", 0) == 0) m = m.substr(8);
        m = m.substr(0, m.find('\n'));
        return {e.sqlstate(), m};
    }
    return {"", "no error"};
}

template <class F>
std::pair<std::string, std::string> library_error(F f) {
    try {
        f();
    } catch (const id_gen::error& e) {
        return {e.sqlstate(), e.what()};
    }
    return {"", "no error"};
}

}  // namespace

TEST(LibPqxx, UlidRoundTripAndTimesAgree) {
    ScratchDb db("lib_pqxx_ulid");
    pqxx::connection c(db.dsn());
    {
        pqxx::work tx(c);
        tx.exec("CREATE TABLE t (id ulid PRIMARY KEY, n int)");
        tx.commit();
    }
    id_gen::UlidGenerator gen;
    std::vector<id_gen::Ulid> ids;
    {
        pqxx::work tx(c);
        for (int i = 0; i < kIds; ++i) {
            ids.push_back(gen.next());
            tx.exec_params("INSERT INTO t (id, n) VALUES ($1, $2)", ids.back(), i);
        }
        tx.commit();
    }
    pqxx::work tx(c);
    const auto r = tx.exec(
        "SELECT id, n, (extract(epoch FROM ulid_time(id)) * 1000)::bigint, id::uuid::text FROM t ORDER BY t.id");
    ASSERT_EQ(r.size(), ids.size());
    for (std::size_t i = 0; i < r.size(); ++i) {
        const auto id = r[i][0].as<id_gen::Ulid>();
        EXPECT_EQ(id, ids[r[i][1].as<int>()]);
        EXPECT_EQ(r[i][2].as<std::int64_t>(), id.unix_ms());
        EXPECT_EQ(r[i][3].as<std::string>(), id.to_uuid().to_string());
    }
    // The generator issued them in order, and SQL sorts them in that order.
    for (int i = 0; i < kIds; ++i) EXPECT_EQ(r[i][1].as<int>(), i);
    // A ULID the extension made, decoded by the library.
    const auto row = tx.exec1("SELECT gen_ulid() AS g, now() AS n");
    const auto g = row[0].as<id_gen::Ulid>();
    const auto t = tx.exec_params1("SELECT (extract(epoch FROM ulid_time($1)) * 1000)::bigint", g);
    EXPECT_EQ(t[0].as<std::int64_t>(), g.unix_ms());
    // Bounds agree.
    const auto b = tx.exec_params1("SELECT ulid_lower(ulid_time($1)), ulid_upper(ulid_time($1))", g);
    EXPECT_EQ(b[0].as<id_gen::Ulid>(), id_gen::Ulid::lower(g.time()));
    EXPECT_EQ(b[1].as<id_gen::Ulid>(), id_gen::Ulid::upper(g.time()));
    // A ULID parameter where the server expects a ULID: the index finds it.
    EXPECT_EQ(tx.exec_params1("SELECT n FROM t WHERE id = $1", ids[123])[0].as<int>(), 123);
}

TEST(LibPqxx, Uuidv7RoundTripAndTimesAgree) {
    ScratchDb db("lib_pqxx_uuidv7");
    pqxx::connection c(db.dsn());
    pqxx::work tx(c);
    tx.exec("CREATE TABLE t (id uuid PRIMARY KEY)");
    id_gen::Uuidv7Generator gen;
    std::vector<id_gen::Uuid> ids;
    for (int i = 0; i < kIds; ++i) {
        ids.push_back(gen.next());
        tx.exec_params("INSERT INTO t VALUES ($1)", ids.back());
    }
    // uuid_time is id_gen's; so is uuid_extract_timestamp in the extension's schema, with PostgreSQL
    // 18's semantics (unqualified, PostgreSQL 17 resolves it to core's, which reads version 1 only).
    const auto r = tx.exec(
        "SELECT id, uuid_extract_version(id), (extract(epoch FROM uuid_time(id)) * 1000000)::bigint, "
        "(extract(epoch FROM uuidv7_time_precise(id)) * 1000000)::bigint, "
        "(extract(epoch FROM public.uuid_extract_timestamp(id)) * 1000000)::bigint FROM t ORDER BY t.id");
    ASSERT_EQ(r.size(), ids.size());
    for (std::size_t i = 0; i < r.size(); ++i) {
        const auto id = r[i][0].as<id_gen::Uuid>();
        EXPECT_EQ(id, ids[i]) << "SQL order = generation order";
        EXPECT_EQ(r[i][1].as<int>(), 7);
        EXPECT_EQ(r[i][2].as<std::int64_t>(), us_of(*id.time()));
        EXPECT_EQ(r[i][3].as<std::int64_t>(), us_of(*id.v7_time_precise()));
        EXPECT_EQ(r[i][4].as<std::int64_t>(), us_of(*id.time()));
    }
    // The extension's UUIDv7 read by the library, and its v7 bounds.
    const auto g = tx.exec1("SELECT gen_uuidv7()")[0].as<id_gen::Uuid>();
    EXPECT_EQ(g.version(), 7);
    const auto s = tx.exec_params1(
        "SELECT (extract(epoch FROM uuidv7_time_precise($1)) * 1000000)::bigint, "
        "(extract(epoch FROM uuid_time($1)) * 1000)::bigint",
        g);
    EXPECT_EQ(s[0].as<std::int64_t>(), us_of(*g.v7_time_precise()));
    const id_gen::sys_milliseconds ms(std::chrono::milliseconds(s[1].as<std::int64_t>()));
    EXPECT_LE(id_gen::Uuid::v7_lower(ms), g);
    EXPECT_LE(g, id_gen::Uuid::v7_upper(ms));
    // The library's ULID and UUID are the same 16 bytes as the SQL cast says.
    const auto u = gen.next();
    EXPECT_EQ(tx.exec_params1("SELECT $1::uuid::ulid", u)[0].as<id_gen::Ulid>(), u.to_ulid());
}

// Every layout: the extension reads the library's snowflakes exactly as the library does.
TEST(LibPqxx, SnowflakeLayoutsAgree) {
    ScratchDb db("lib_pqxx_snowflake");
    pqxx::connection c(db.dsn());
    pqxx::work tx(c);
    tx.exec("CREATE TABLE t (id snowflake PRIMARY KEY, layout text)");
    struct Case {
        const char* name;
        id_gen::SnowflakeLayout layout;
        std::uint32_t node;
    };
    const Case cases[] = {{"twitter", id_gen::SnowflakeLayout::twitter(), 1023},
                          {"sonyflake", id_gen::SnowflakeLayout::sonyflake(), 65000},
                          {"javascript", id_gen::SnowflakeLayout::javascript(), 9},
                          {"instagram", id_gen::SnowflakeLayout::instagram(), 8191}};
    for (const auto& k : cases) {
        id_gen::SnowflakeGenerator gen(k.node, k.layout);
        std::vector<id_gen::Snowflake> ids;
        for (int i = 0; i < 200; ++i) ids.push_back(gen.next());
        for (const auto& id : ids) tx.exec_params("INSERT INTO t VALUES ($1, $2)", id, k.name);
        const auto r = tx.exec_params(
            "SELECT id, (extract(epoch FROM snowflake_time(id, $1)) * 1000)::bigint, snowflake_node(id, $1), "
            "snowflake_sequence(id, $1), snowflake_to_base36(id), id::bigint FROM t WHERE layout = $1 ORDER BY t.id",
            k.name);
        ASSERT_EQ(r.size(), ids.size()) << k.name;
        for (std::size_t i = 0; i < r.size(); ++i) {
            const auto id = r[i][0].as<id_gen::Snowflake>();
            ASSERT_EQ(id, ids[i]) << k.name;
            EXPECT_EQ(r[i][1].as<std::int64_t>(), id.unix_ms(k.layout)) << k.name;
            EXPECT_EQ(r[i][2].as<std::uint32_t>(), k.node) << k.name;
            EXPECT_EQ(r[i][2].as<std::uint32_t>(), id.node(k.layout)) << k.name;
            EXPECT_EQ(r[i][3].as<std::uint32_t>(), id.sequence(k.layout)) << k.name;
            EXPECT_EQ(r[i][4].as<std::string>(), id.to_base36()) << k.name;
            EXPECT_EQ(r[i][5].as<std::int64_t>(), id.value()) << k.name;
        }
        // lower/upper of the first ID's time unit.
        const auto b = tx.exec_params1(
            "SELECT snowflake_lower(snowflake_time($1, $2), $2), "
            "snowflake_upper(snowflake_time($1, $2), $2)",
            ids[0], k.name);
        EXPECT_EQ(b[0].as<id_gen::Snowflake>(), k.layout.lower(ids[0].time(k.layout))) << k.name;
        EXPECT_EQ(b[1].as<id_gen::Snowflake>(), k.layout.upper(ids[0].time(k.layout))) << k.name;
    }
    // A custom layout, through the five-argument decoders.
    const auto custom = id_gen::SnowflakeLayout::custom(1600000000000, 42, 7, 9);
    id_gen::SnowflakeGenerator gen(77, custom);
    const auto id = gen.next();
    const auto r = tx.exec_params1(
        "SELECT (extract(epoch FROM snowflake_time($1, e, 42, 7, 9)) * 1000)::bigint, snowflake_node($1, e, 42, 7, 9), "
        "snowflake_sequence($1, e, 42, 7, 9), snowflake_upper(snowflake_time($1, e, 42, 7, 9), e, 42, 7, 9) "
        "FROM (SELECT timestamptz 'epoch' + 1600000000000 * interval '1 ms' AS e) s",
        id);
    EXPECT_EQ(r[0].as<std::int64_t>(), id.unix_ms(custom));
    EXPECT_EQ(r[1].as<std::uint32_t>(), 77u);
    EXPECT_EQ(r[2].as<std::uint32_t>(), id.sequence(custom));
    EXPECT_EQ(r[3].as<id_gen::Snowflake>(), custom.upper(id.time(custom)));
    // The extension's own snowflake (this cluster is node 1) decoded by the library.
    const auto s = tx.exec1("SELECT gen_snowflake(), snowflake_node(gen_snowflake())");
    EXPECT_EQ(s[0].as<id_gen::Snowflake>().node(), s[1].as<std::uint32_t>());
}

TEST(LibPqxx, Base36TypesAgree) {
    ScratchDb db("lib_pqxx_base36");
    pqxx::connection c(db.dsn());
    pqxx::work tx(c);
    tx.exec("CREATE TABLE t64 (id base36_64 PRIMARY KEY)");
    tx.exec("CREATE TABLE t128 (id base36_128 PRIMARY KEY)");
    id_gen::Uuidv7Generator ugen;
    id_gen::SnowflakeGenerator sgen(5);
    std::vector<id_gen::Base36_64> small;
    std::vector<id_gen::Base36_128> big;
    for (std::int64_t v : {std::int64_t{0}, std::int64_t{1}, std::int64_t{1295}, INT64_MAX})
        small.push_back(id_gen::Base36_64::from_int(v));
    for (int i = 0; i < 100; ++i) {
        small.push_back(id_gen::Base36_64::from_int(sgen.next().value()));
        big.emplace_back(ugen.next());
    }
    for (const auto& v : small) tx.exec_params("INSERT INTO t64 VALUES ($1)", v);
    for (const auto& v : big) tx.exec_params("INSERT INTO t128 VALUES ($1)", v);
    std::sort(small.begin(), small.end());
    std::sort(big.begin(), big.end());
    const auto r64 = tx.exec("SELECT id, id::bigint, base36_encode(id::bigint) FROM t64 ORDER BY t64.id");
    ASSERT_EQ(r64.size(), small.size());
    for (std::size_t i = 0; i < small.size(); ++i) {
        EXPECT_EQ(r64[i][0].as<id_gen::Base36_64>(), small[i]);
        EXPECT_EQ(r64[i][1].as<std::int64_t>(), small[i].value());
        EXPECT_EQ(r64[i][2].as<std::string>(), small[i].to_string());
    }
    const auto r128 = tx.exec("SELECT id, id::uuid, base36_encode(id::uuid), id::ulid FROM t128 ORDER BY t128.id");
    ASSERT_EQ(r128.size(), big.size());
    for (std::size_t i = 0; i < big.size(); ++i) {
        EXPECT_EQ(r128[i][0].as<id_gen::Base36_128>(), big[i]);
        EXPECT_EQ(r128[i][1].as<id_gen::Uuid>(), big[i].to_uuid());
        EXPECT_EQ(r128[i][2].as<std::string>(), big[i].to_string());
        EXPECT_EQ(r128[i][3].as<id_gen::Ulid>(), big[i].to_ulid());
    }
    // Shorter and upper-case text, as the server reads it.
    EXPECT_EQ(tx.exec1("SELECT 'ZZ'::base36_64")[0].as<id_gen::Base36_64>(), id_gen::Base36_64::parse("ZZ"));
}

TEST(LibPqxx, Base62TypesAgree) {
    ScratchDb db("lib_pqxx_base62");
    pqxx::connection c(db.dsn());
    pqxx::work tx(c);
    tx.exec("CREATE TABLE t64 (id base62_64 PRIMARY KEY)");
    tx.exec("CREATE TABLE t128 (id base62_128 PRIMARY KEY)");
    id_gen::Uuidv7Generator ugen;
    id_gen::SnowflakeGenerator sgen(6);
    std::vector<id_gen::Base62_64> small;
    std::vector<id_gen::Base62_128> big;
    for (std::int64_t v : {std::int64_t{0}, std::int64_t{10}, std::int64_t{36}, INT64_MAX})
        small.push_back(id_gen::Base62_64::from_int(v));
    for (int i = 0; i < 100; ++i) {
        small.push_back(id_gen::Base62_64::from_int(sgen.next().value()));
        big.emplace_back(ugen.next());
    }
    for (const auto& v : small) tx.exec_params("INSERT INTO t64 VALUES ($1)", v);
    for (const auto& v : big) tx.exec_params("INSERT INTO t128 VALUES ($1)", v);
    std::sort(small.begin(), small.end());
    std::sort(big.begin(), big.end());
    const auto r64 = tx.exec("SELECT id, id::bigint, base62_encode(id::bigint) FROM t64 ORDER BY t64.id");
    ASSERT_EQ(r64.size(), small.size());
    for (std::size_t i = 0; i < small.size(); ++i) {
        EXPECT_EQ(r64[i][0].as<id_gen::Base62_64>(), small[i]);
        EXPECT_EQ(r64[i][1].as<std::int64_t>(), small[i].value());
        EXPECT_EQ(r64[i][2].as<std::string>(), small[i].to_string());
    }
    const auto r128 = tx.exec("SELECT id, id::uuid, base62_encode(id::uuid) FROM t128 ORDER BY t128.id");
    ASSERT_EQ(r128.size(), big.size());
    for (std::size_t i = 0; i < big.size(); ++i) {
        EXPECT_EQ(r128[i][0].as<id_gen::Base62_128>(), big[i]);
        EXPECT_EQ(r128[i][1].as<id_gen::Uuid>(), big[i].to_uuid());
        EXPECT_EQ(r128[i][2].as<std::string>(), big[i].to_string());
    }
    // Prefixed IDs with a base62 body.
    const auto u = ugen.next();
    const id_gen::PrefixedId p("acct", u, id_gen::PrefixedBody::base62);
    const auto r =
        tx.exec_params1("SELECT prefixed_format('acct', $1, 'base62'), prefixed_parse('acct', $2, 'base62')", u, p);
    EXPECT_EQ(id_gen::PrefixedId::parse(r[0].as<std::string>(), id_gen::PrefixedBody::base62), p);
    EXPECT_EQ(r[0].as<std::string>(), p.to_string());
    EXPECT_EQ(r[1].as<id_gen::Uuid>(), u);
}

TEST(LibPqxx, PrefixedIdsAgree) {
    ScratchDb db("lib_pqxx_prefixed");
    pqxx::connection c(db.dsn());
    pqxx::work tx(c);
    id_gen::Uuidv7Generator gen;
    for (int i = 0; i < 100; ++i) {
        const auto u = gen.next();
        const id_gen::PrefixedId p("acct", u);
        const auto r = tx.exec_params1(
            "SELECT prefixed_format('acct', $1), prefixed_parse('acct', $2), s.prefix, s.id "
            "FROM prefixed_split($2) s",
            u, p);
        EXPECT_EQ(r[0].as<id_gen::PrefixedId>(), p);
        EXPECT_EQ(r[0].as<std::string>(), p.to_string());
        EXPECT_EQ(r[1].as<id_gen::Uuid>(), u);
        EXPECT_EQ(r[2].as<std::string>(), "acct");
        EXPECT_EQ(r[3].as<id_gen::Uuid>(), u);
    }
    // gen_prefixed's body is a UUIDv7 the library reads.
    tx.exec("SELECT prefix_register('ord', 'orders')");
    const auto p = tx.exec1("SELECT gen_prefixed('ord')")[0].as<id_gen::PrefixedId>();
    EXPECT_EQ(p.prefix(), "ord");
    EXPECT_EQ(p.id().version(), 7);
}

// Text one side refuses, the other refuses too: same SQLSTATE, same message.
TEST(LibPqxx, MalformedTextIsRefusedAlike) {
    ScratchDb db("lib_pqxx_errors");
    pqxx::connection c(db.dsn());
    struct Case {
        const char* sql;
        std::vector<std::string> inputs;
        std::function<void(const std::string&)> parse;
    };
    const std::string body = "0b6ol7g0qk5tbhc8y8hbzs2sf";
    const std::vector<Case> cases = {
        {"SELECT $1::ulid",
         {"", "01ARYZ6S41TSV4RRFFQ69G5FA", "01ARYZ6S41TSV4RRFFQ69G5FAI", "80000000000000000000000000",
          "01ARYZ6S41TSV4RRFFQ69G5FAV "},
         [](const std::string& s) { (void)id_gen::Ulid::parse(s); }},
        {"SELECT $1::uuid",
         {"", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1", "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
          "a0eebc9-99c0b-4ef8-bb6d-6bb9bd380a11", " a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
          "a0eebc99--9c0b4ef8bb6d6bb9bd380a11"},
         [](const std::string& s) { (void)id_gen::Uuid::parse(s); }},
        {"SELECT $1::snowflake",
         {"", "abc", "0", "-1", "9223372036854775808", "1.5"},
         [](const std::string& s) { (void)id_gen::Snowflake::parse(s); }},
        {"SELECT $1::base36_64",
         {"", "-1", "1y2p0ij32e8e8", "a b"},
         [](const std::string& s) { (void)id_gen::Base36_64::parse(s); }},
        {"SELECT $1::base36_128",
         {"", "f5lxx1zz5pnorynqglhzmsp34", "_"},
         [](const std::string& s) { (void)id_gen::Base36_128::parse(s); }},
        {"SELECT * FROM prefixed_split($1)",
         {"acct" + body, "Acct_" + body, "acct_" + body.substr(1), "acct_f5lxx1zz5pnorynqglhzmsp34"},
         [](const std::string& s) { (void)id_gen::PrefixedId::parse(s); }},
        {"SELECT prefixed_parse('acct', $1)",
         {"usr_" + body},
         [](const std::string& s) { (void)id_gen::PrefixedId::parse("acct", s); }},
        {"SELECT $1::base62_64",
         {"", "LjaL3EZ", "0000LjaL3E-", "AzL8n0Y58m8"},
         [](const std::string& s) { (void)id_gen::Base62_64::parse(s); }},
        {"SELECT $1::base62_128",
         {"02p5oQZoHTv0zeY5yG21K", "7n42DGM5Tflk9n8mt7Fhc8"},
         [](const std::string& s) { (void)id_gen::Base62_128::parse(s); }},
        {"SELECT * FROM prefixed_split($1, 'base62')",
         {"acct_" + body, "acct_02p5oQZoHTv0zeY5yG21K", "acct_7n42DGM5Tflk9n8mt7Fhc8"},
         [](const std::string& s) { (void)id_gen::PrefixedId::parse(s, id_gen::PrefixedBody::base62); }},
    };
    int compared = 0;
    for (const auto& k : cases) {
        for (const auto& in : k.inputs) {
            const auto server = server_error(c, k.sql, in);
            const auto library = library_error([&] { k.parse(in); });
            EXPECT_NE(server.first, "") << k.sql << " accepted \"" << in << "\"";
            EXPECT_EQ(library.first, server.first) << k.sql << " \"" << in << "\"";
            EXPECT_EQ(library.second, server.second) << k.sql << " \"" << in << "\"";
            ++compared;
        }
    }
    EXPECT_EQ(compared, 38);
    // And what the server accepts, the library reads as the same value.
    pqxx::work tx(c);
    for (const char* ok : {"{A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11}", "a0eebc999c0b4ef8bb6d6bb9bd380a11",
                           "a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11"})
        EXPECT_EQ(tx.exec_params1("SELECT $1::uuid", std::string(ok))[0].as<id_gen::Uuid>(), id_gen::Uuid::parse(ok))
            << ok;
    EXPECT_EQ(tx.exec1("SELECT ' +42 '::snowflake")[0].as<id_gen::Snowflake>(), id_gen::Snowflake::parse(" +42 "));
}

// NULLs, conversion errors, prepared statements.
TEST(LibPqxx, NullsConversionErrorsAndPreparedStatements) {
    ScratchDb db("lib_pqxx_misc");
    pqxx::connection c(db.dsn());
    c.prepare("echo_ulid", "SELECT $1::ulid");
    pqxx::work tx(c);
    const auto r = tx.exec1("SELECT NULL::ulid, NULL::uuid, NULL::snowflake, 'not an ID'::text");
    // No ID type has a null value of its own: NULL is an error, or an empty optional on 7.x (Debian's
    // libpqxx 6.4 is built without std::optional support: check is_null() there).
    EXPECT_TRUE(r[0].is_null());
    EXPECT_THROW((void)r[0].as<id_gen::Ulid>(), pqxx::conversion_error);
    EXPECT_THROW((void)r[1].as<id_gen::Uuid>(), pqxx::conversion_error);
    EXPECT_THROW((void)r[2].as<id_gen::Snowflake>(), pqxx::conversion_error);
#if PQXX_VERSION_MAJOR >= 7
    EXPECT_FALSE(r[0].as<std::optional<id_gen::Ulid>>().has_value());
    EXPECT_FALSE(r[1].as<std::optional<id_gen::Uuid>>().has_value());
    EXPECT_FALSE(r[2].as<std::optional<id_gen::Snowflake>>().has_value());
#endif
    try {
        (void)r[3].as<id_gen::Ulid>();
        ADD_FAILURE() << "no conversion_error";
    } catch (const pqxx::conversion_error& e) {
        EXPECT_EQ(std::string(e.what()), "invalid input syntax for type ulid: \"not an ID\"");
    }
    const auto u = id_gen::new_ulid();
    EXPECT_EQ(tx.exec_prepared1("echo_ulid", u)[0].as<id_gen::Ulid>(), u);
    EXPECT_EQ(pqxx::to_string(u), u.to_string());
#if PQXX_VERSION_MAJOR >= 7
    const auto present = tx.exec_params1("SELECT $1::ulid", u)[0].as<std::optional<id_gen::Ulid>>();
    ASSERT_TRUE(present.has_value());
    EXPECT_EQ(*present, u);
#endif
}

TEST(LibPqxx, KsuidAndXidRoundTripAndFieldsAgree) {
    ScratchDb db("lib_pqxx_ksuid_xid");
    pqxx::connection c(db.dsn());
    {
        pqxx::work tx(c);
        tx.exec("CREATE TABLE k (id ksuid PRIMARY KEY, n int)");
        tx.exec("CREATE TABLE x (id rsxid PRIMARY KEY, n int)");
        tx.commit();
    }
    id_gen::KsuidGenerator kg;
    id_gen::XidGenerator xg(0x123456);
    std::vector<id_gen::Ksuid> ks;
    std::vector<id_gen::Xid> xs;
    {
        pqxx::work tx(c);
        for (int i = 0; i < kIds; ++i) {
            ks.push_back(kg.next());
            xs.push_back(xg.next());
            tx.exec_params("INSERT INTO k VALUES ($1, $2)", ks.back(), i);
            tx.exec_params("INSERT INTO x VALUES ($1, $2)", xs.back(), i);
        }
        tx.commit();
    }
    pqxx::work tx(c);
    auto rk = tx.exec("SELECT id, n, extract(epoch FROM ksuid_time(id))::bigint FROM k ORDER BY id");
    ASSERT_EQ(rk.size(), static_cast<std::size_t>(kIds));
    for (int i = 0; i < kIds; ++i) {
        EXPECT_EQ(rk[i][0].as<id_gen::Ksuid>(), ks[i]);  // generator order = server order
        EXPECT_EQ(rk[i][1].as<int>(), i);
        EXPECT_EQ(rk[i][2].as<std::int64_t>(), ks[i].unix_seconds());
    }
    auto rx = tx.exec(
        "SELECT id, n, xid_machine(id), xid_pid(id), xid_counter(id), extract(epoch FROM xid_time(id))::bigint FROM x "
        "ORDER BY id");
    ASSERT_EQ(rx.size(), static_cast<std::size_t>(kIds));
    for (int i = 0; i < kIds; ++i) {
        EXPECT_EQ(rx[i][0].as<id_gen::Xid>(), xs[i]);
        EXPECT_EQ(rx[i][2].as<std::uint32_t>(), xs[i].machine());
        EXPECT_EQ(rx[i][3].as<unsigned>(), xs[i].pid());
        EXPECT_EQ(rx[i][4].as<std::uint32_t>(), xs[i].counter());
        EXPECT_EQ(rx[i][5].as<std::int64_t>(), xs[i].unix_seconds());
    }
    // The server's machine ID is what the library derives from its system identifier.
    auto m = tx.exec1("SELECT system_identifier::text, xid_server_machine() FROM pg_control_system()");
    EXPECT_EQ(id_gen::XidGenerator::machine_from_system_identifier(std::stoull(m[0].as<std::string>())),
              m[1].as<std::uint32_t>());
    // Text each side refuses, with the same SQLSTATE and message.
    for (const std::string bad : {"0ujtsYcgvSTl8PAuAdqWYSMnLO", "aWgEPTl1tmebfsQzFP4bxwgy80W"}) {
        tx.abort();
        const auto srv = server_error(c, "SELECT $1::ksuid", bad);
        const auto lib = library_error([&] { (void)id_gen::Ksuid::parse(bad); });
        EXPECT_EQ(srv, lib) << bad;
    }
    for (const std::string bad : {"9M4E2MR0UI3E8A215N4G", "9m4e2mr0ui3e8a215n4h"}) {
        const auto srv = server_error(c, "SELECT $1::rsxid", bad);
        const auto lib = library_error([&] { (void)id_gen::Xid::parse(bad); });
        EXPECT_EQ(srv, lib) << bad;
    }
}
