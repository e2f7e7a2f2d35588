// The library's ObjectId, TraceId, DecimalId, ShardId, UUIDv6 and NanoID against the extension
// on a real server: values go through libpqxx into columns and back, and each side decodes the
// other's IDs as it does its own.
#include <gtest/gtest.h>

#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "../integration/common.h"
#include "id_gen/id_gen.hpp"
#include "id_gen/pqxx.hpp"

namespace {

using idgen::it::ScratchDb;
constexpr int kIds = 500;

}  // namespace

TEST(LibPqxxKinds, ObjectIdBothWays) {
    ScratchDb db("lib_pqxx_objectid");
    pqxx::connection c(db.dsn());
    pqxx::work tx(c);
    tx.exec("CREATE TABLE t (n int, id objectid)");
    id_gen::ObjectIdGenerator g;
    std::vector<id_gen::ObjectId> ids;
    for (int i = 0; i < kIds; ++i) {
        ids.push_back(g.next());
        tx.exec_params("INSERT INTO t VALUES ($1, $2)", i, ids.back());
    }
    auto r = tx.exec("SELECT n, id, extract(epoch FROM objectid_time(id))::bigint FROM t ORDER BY id");
    ASSERT_EQ(r.size(), static_cast<std::size_t>(kIds));
    for (std::size_t i = 0; i < r.size(); ++i) {
        EXPECT_EQ(r[i][0].as<int>(), static_cast<int>(i)) << "server order differs from issue order";
        EXPECT_EQ(r[i][1].as<id_gen::ObjectId>(), ids[i]);
        EXPECT_EQ(r[i][2].as<std::int64_t>(), ids[i].unix_seconds());
    }
    // The server's ObjectIds read by the library: the same time, the same order.
    auto s = tx.exec(
        "SELECT o, extract(epoch FROM objectid_time(o))::bigint "
        "FROM (SELECT n, gen_objectid() AS o FROM generate_series(1, 200) n) x ORDER BY n");
    for (std::size_t i = 0; i < s.size(); ++i) {
        const auto o = s[i][0].as<id_gen::ObjectId>();
        EXPECT_EQ(o.unix_seconds(), s[i][1].as<std::int64_t>());
        if (i > 0) {
            EXPECT_LT(s[i - 1][0].as<id_gen::ObjectId>(), o);
        }
    }
    // Malformed text: the same SQLSTATE on both sides.
    try {
        pqxx::subtransaction sub(tx);
        sub.exec("SELECT 'xyz'::objectid");
        ADD_FAILURE() << "server accepted xyz";
    } catch (const pqxx::sql_error& e) {
        try {
            (void)id_gen::ObjectId::parse("xyz");
            ADD_FAILURE() << "library accepted xyz";
        } catch (const id_gen::error& le) {
            EXPECT_EQ(std::string(le.sqlstate()), "22P02");
            EXPECT_NE(std::string(e.what()).find(le.what()), std::string::npos) << e.what() << " / " << le.what();
        }
    }
}

TEST(LibPqxxKinds, TraceAndDecimalIdsFromTheServer) {
    ScratchDb db("lib_pqxx_trace_decimal");
    pqxx::connection c(db.dsn());
    pqxx::work tx(c);
    auto r = tx.exec(
        "SELECT id, trace_id_node(id), trace_id_counter(id), extract(epoch FROM trace_id_time(id))::bigint, "
        "extract(epoch FROM now())::bigint FROM (SELECT gen_trace_id() AS id FROM generate_series(1, 200)) s");
    for (const auto& row : r) {
        const auto t = row[0].as<id_gen::TraceId>();
        EXPECT_EQ(t.node(), row[1].as<std::uint32_t>());
        EXPECT_EQ(t.counter(), row[2].as<std::uint32_t>());
        EXPECT_EQ(t.unix_seconds(row[4].as<std::int64_t>()), row[3].as<std::int64_t>());
    }
    auto d = tx.exec(
        "SELECT id, decimal_id_counter(id), decimal_id_generator(id), decimal_id_launch(id) "
        "FROM (SELECT gen_decimal_id() AS id FROM generate_series(1, 200)) s");
    for (const auto& row : d) {
        const auto x = row[0].as<id_gen::DecimalId>();
        EXPECT_EQ(x.counter(), row[1].as<std::int64_t>());
        EXPECT_EQ(x.generator(), row[2].as<std::int64_t>());
        EXPECT_EQ(x.launch(), row[3].as<std::int64_t>());
        EXPECT_EQ(id_gen::DecimalId::pack(x.counter(), x.generator(), x.launch()), x);
    }
    // Library-packed values read by the server's decoders.
    const auto t = id_gen::TraceId::pack(1700000000, 65535, 4194303);
    auto back = tx.exec_params(
        "SELECT trace_id_node($1), trace_id_counter($1), "
        "extract(epoch FROM trace_id_time($1, to_timestamp(1700000000)))::bigint",
        t);
    EXPECT_EQ(back[0][0].as<std::uint32_t>(), 65535u);
    EXPECT_EQ(back[0][1].as<std::uint32_t>(), 4194303u);
    EXPECT_EQ(back[0][2].as<std::int64_t>(), 1700000000);
}

TEST(LibPqxxKinds, ShardIdsBothWays) {
    ScratchDb db("lib_pqxx_shard");
    pqxx::connection c(db.dsn());
    pqxx::work tx(c);
    const std::int64_t epoch_ms = 1577836800000;  // 2020-01-01
    id_gen::ShardIdGenerator g(4321, epoch_ms);
    for (int i = 0; i < kIds; ++i) {
        const auto id = g.next();
        auto r = tx.exec_params(
            "SELECT shard_id_shard($1), shard_id_sequence($1), "
            "(extract(epoch FROM shard_id_time($1, '2020-01-01+00')) * 1000)::bigint",
            id);
        EXPECT_EQ(r[0][0].as<std::uint32_t>(), 4321u);
        EXPECT_EQ(r[0][1].as<std::uint32_t>(), id.sequence());
        EXPECT_EQ(r[0][2].as<std::int64_t>(), id.unix_ms(epoch_ms));
    }
    tx.exec("SELECT create_shard(77)");
    auto s = tx.exec(
        "SELECT id, shard_id_shard(id), shard_id_sequence(id), "
        "(extract(epoch FROM shard_id_time(id)) * 1000)::bigint "
        "FROM (SELECT shard_77.next_id() AS id FROM generate_series(1, 100)) x");
    for (const auto& row : s) {
        const auto id = row[0].as<id_gen::ShardId>();
        EXPECT_EQ(id.shard(), 77u);
        EXPECT_EQ(id.sequence(), row[2].as<std::uint32_t>());
        EXPECT_EQ(id.unix_ms(), row[3].as<std::int64_t>());  // create_shard()'s default epoch
    }
}

TEST(LibPqxxKinds, Uuidv6BothWays) {
    ScratchDb db("lib_pqxx_uuidv6");
    pqxx::connection c(db.dsn());
    pqxx::work tx(c);
    tx.exec("CREATE TABLE t (n int, id uuid)");
    id_gen::Uuidv6Generator g;
    std::vector<id_gen::Uuid> ids;
    for (int i = 0; i < kIds; ++i) {
        ids.push_back(g.next());
        tx.exec_params("INSERT INTO t VALUES ($1, $2)", i, ids.back());
    }
    auto r = tx.exec(
        "SELECT n, id, public.uuid_extract_version(id), "
        "(extract(epoch FROM public.uuid_extract_timestamp(id)) * 1000000)::bigint, uuid_v6_to_v1(id) "
        "FROM t ORDER BY id");
    for (std::size_t i = 0; i < r.size(); ++i) {
        EXPECT_EQ(r[i][0].as<int>(), static_cast<int>(i));
        EXPECT_EQ(r[i][1].as<id_gen::Uuid>(), ids[i]);
        EXPECT_EQ(r[i][2].as<int>(), 6);
        EXPECT_EQ(r[i][3].as<std::int64_t>(), ids[i].time()->time_since_epoch().count());
        EXPECT_EQ(r[i][4].as<id_gen::Uuid>(), id_gen::uuid_v6_to_v1(ids[i]));
    }
    auto s = tx.exec(
        "SELECT id, uuid_v6_to_v1(id), (extract(epoch FROM public.uuid_extract_timestamp(id)) * 1000000)::bigint "
        "FROM (SELECT uuidv6() AS id FROM generate_series(1, 200)) x");
    for (const auto& row : s) {
        const auto id = row[0].as<id_gen::Uuid>();
        EXPECT_EQ(id_gen::uuid_v6_to_v1(id), row[1].as<id_gen::Uuid>());
        EXPECT_EQ(id_gen::uuid_v1_to_v6(row[1].as<id_gen::Uuid>()), id);
        EXPECT_EQ(id.time()->time_since_epoch().count(), row[2].as<std::int64_t>());
    }
}

TEST(LibPqxxKinds, NanoidDefaultAlphabetIsTheExtensions) {
    ScratchDb db("lib_pqxx_nanoid");
    pqxx::connection c(db.dsn());
    pqxx::work tx(c);
    auto r = tx.exec("SELECT pg_get_function_arguments('gen_nanoid(int, text)'::regprocedure)");
    EXPECT_NE(std::string(r[0][0].c_str())
                  .find("size integer DEFAULT 21, alphabet text DEFAULT '" +
                        std::string(id_gen::NanoidGenerator::default_alphabet) + "'"),
              std::string::npos);
}
