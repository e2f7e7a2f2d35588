// The cluster functions of per-schema shards on a single server (no Citus): what they say there,
// and how next_id() follows shard_blocks as soon as a change to it commits.
#include "common.h"

namespace {

using idgen::it::ScratchDb;

// One statement at a time on one connection (so one backend, whose cache the test follows).
pqxx::result q(pqxx::connection& c, const std::string& sql) {
    pqxx::nontransaction tx(c);
    return tx.exec(sql);
}

std::string sqlstate_of(pqxx::connection& c, const std::string& sql) {
    try {
        q(c, sql);
    } catch (const pqxx::sql_error& e) {
        return e.sqlstate();
    }
    return "";
}

TEST(ShardCluster, WithoutCitus) {
    ScratchDb db("idgen_shard_cluster");
    pqxx::connection c(db.dsn());
    // This server alone, with its id_gen.node_id (scripts/test.sh sets 1).
    auto r = q(c, "SELECT node_id, problem IS NULL FROM cluster_node_ids()");
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0][0].as<int>(), std::stoi(q(c, "SHOW id_gen.node_id")[0][0].as<std::string>()));
    EXPECT_TRUE(r[0][1].as<bool>());
    EXPECT_EQ(q(c, "SELECT check_cluster_node_ids()")[0][0].as<int>(), 1);
    EXPECT_EQ(sqlstate_of(c, "SELECT shard_cluster_sync()"), "55000");
    // A shard on one server has no blocks: its whole sequence field.
    q(c, "SELECT create_shard(3)");
    EXPECT_EQ(q(c, "SELECT count(*) FROM shard_blocks")[0][0].as<int>(), 0);
    const long long before = q(c, "SELECT shard_3.next_id()")[0][0].as<long long>();
    // Blocks held only by another node: this server refuses, from the commit of that change on,
    // in a backend that had the shard cached.
    q(c, "INSERT INTO shard_blocks VALUES (3, 999, 0, 4, '2024-01-01+00')");
    EXPECT_EQ(sqlstate_of(c, "SELECT shard_3.next_id()"), "55000");
    // Its own block: IDs from that block only.
    q(c, "INSERT INTO shard_blocks SELECT 3, current_setting('id_gen.node_id')::int, 512, 4, '2024-01-01+00'");
    auto ids = q(c, "SELECT shard_3.next_id() AS id FROM generate_series(1, 3000)");
    long long outside = 0, prev = before;
    bool increasing = true;
    for (const auto& row : ids) {
        const long long id = row[0].as<long long>();
        if ((id & 1023) < 512 || (id & 1023) >= 528 || ((id >> 10) & 8191) != 3) ++outside;
        if (id <= prev) increasing = false;
        prev = id;
    }
    EXPECT_EQ(outside, 0);
    EXPECT_TRUE(increasing);
    // A block not yet valid: 55000 until its time.
    q(c, "DELETE FROM shard_blocks");
    q(c, "INSERT INTO shard_blocks SELECT 3, current_setting('id_gen.node_id')::int, 0, 4, now() + interval '1 hour'");
    EXPECT_EQ(sqlstate_of(c, "SELECT shard_3.next_id()"), "55000");
    EXPECT_EQ(sqlstate_of(c, "SELECT shard_3.next_id()"), "55000");  // a refusal is not remembered as valid
    // A block that becomes valid in 1.5 s: refused before, issued after (the backend then reads no
    // clock for it); a new grant, valid later, is refused again in the same backend.
    q(c, "DELETE FROM shard_blocks");
    q(c,
      "INSERT INTO shard_blocks SELECT 3, current_setting('id_gen.node_id')::int, 0, 4, "
      "clock_timestamp() + interval '1.5 seconds'");
    EXPECT_EQ(sqlstate_of(c, "SELECT shard_3.next_id()"), "55000");
    q(c, "SELECT pg_sleep(2)");
    EXPECT_EQ(q(c, "SELECT count(DISTINCT shard_3.next_id()) FROM generate_series(1, 100)")[0][0].as<int>(), 100);
    EXPECT_EQ(q(c, "SELECT count(DISTINCT shard_3.next_id()) FROM generate_series(1, 100)")[0][0].as<int>(), 100);
    q(c, "DELETE FROM shard_blocks");
    q(c, "INSERT INTO shard_blocks SELECT 3, current_setting('id_gen.node_id')::int, 16, 4, now() + interval '1 hour'");
    EXPECT_EQ(sqlstate_of(c, "SELECT shard_3.next_id()"), "55000");
    // Blocks are aligned runs inside the field.
    EXPECT_EQ(sqlstate_of(c, "INSERT INTO shard_blocks VALUES (3, 7, 8, 4, '2024-01-01+00')"), "23514");
    EXPECT_EQ(sqlstate_of(c, "INSERT INTO shard_blocks VALUES (3, 8, 1024, 0, '2024-01-01+00')"), "23514");
    // Back to no blocks: this backend issues from the whole field again (sequence numbers below
    // the block's). A block has generator state of its own, so returning to the whole field is
    // not ordered after the block's IDs: blocks are for clusters, granted once per node.
    q(c, "DELETE FROM shard_blocks");
    EXPECT_GT(q(c,
                "SELECT count(*) FROM (SELECT shard_3.next_id() AS id FROM generate_series(1, 2000)) x "
                "WHERE shard_id_sequence(id) < 512")[0][0]
                  .as<long long>(),
              0);
}

}  // namespace
