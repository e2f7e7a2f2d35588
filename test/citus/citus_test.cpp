// id_gen on a Citus cluster: a coordinator and two workers on loopback (scripts/test.sh, layer
// "Citus"), plus a fourth server that AddNodeIsReadyUnderRebalance adds. The tests run in order and share the cluster:
// each leaves its tables, and the last one checks every ID in the cluster for duplicates and prints
// the counts.
//   IDGEN_CITUS_HOST   the nodes' address (127.0.0.1)
//   IDGEN_CITUS_PORTS  "coordinator worker1 worker2 spare"
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <pqxx/pqxx>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "../integration/kept_sessions.h"
#include "../readme/readme_run.h"

namespace {

std::string host() {
    const char* h = std::getenv("IDGEN_CITUS_HOST");
    return h && *h ? h : "127.0.0.1";
}

std::vector<int> ports() {
    std::vector<int> p;
    const char* s = std::getenv("IDGEN_CITUS_PORTS");
    std::istringstream in(s ? s : "");
    int v;
    while (in >> v) p.push_back(v);
    return p;
}

// Node i: 0 coordinator, 1 and 2 workers, 3 the spare that AddNodeIsReadyUnderRebalance adds.
std::string dsn(int i) {
    return "host=" + host() + " port=" + std::to_string(ports().at(i)) + " user=postgres dbname=postgres";
}

// On a session kept for the next statement (kept_sessions.h).
pqxx::result run(int node, const std::string& sql) { return idgen::kept::run(dsn(node), sql); }

long long scalar(int node, const std::string& sql) { return run(node, sql)[0][0].as<long long>(); }
std::string text(int node, const std::string& sql) { return run(node, sql)[0][0].as<std::string>(); }

// The SQLSTATE of running `sql` on `node`, "" when it succeeds.
std::string sqlstate_of(int node, const std::string& sql) {
    try {
        run(node, sql);
    } catch (const pqxx::sql_error& e) {
        return e.sqlstate();
    }
    return "";
}

std::string node_name(int i) { return "'" + host() + "', " + std::to_string(ports().at(i)); }

// Inserts into `table` (its defaults fill the key) from `threads` connections to `node` until
// `stop` is set; returns the number of rows inserted; counts failures in `errors`.
void insert_until(int node, const std::string& table, std::atomic<bool>& stop, std::atomic<long long>& rows,
                  std::atomic<int>& errors, std::atomic<int>& refused, std::vector<std::string>& messages) {
    try {
        pqxx::connection c(dsn(node));
        while (!stop.load()) {
            try {
                pqxx::work tx(c);
                tx.exec("INSERT INTO " + table + " (payload) SELECT g FROM generate_series(1, 20) g");
                tx.commit();
                rows += 20;
                // Paced (at most 400 rows a second per writer): a steady stream, not a load test.
                // Unpaced, eight writers on two cores put millions of rows in the tables, which the
                // rebalance and the drain after it then copied (218 s and 71 s in one run).
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
            } catch (const std::exception& e) {
                // A batch Citus refused while a shard was split (its transaction rolled back; the
                // counts below say what landed): "could not find valid entry for shard", a Citus
                // race between a split's metadata change and a concurrent INSERT. Anything else
                // is a failure.
                const std::string m = e.what();
                if (m.find("could not find valid entry for shard") != std::string::npos) {
                    ++refused;
                } else {
                    ++errors;
                    if (messages.size() < 3) messages.push_back(m);
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
            }
        }
    } catch (const std::exception& e) {
        ++errors;
    }
}

class CitusCluster : public ::testing::Environment {
public:
    void SetUp() override {
        ASSERT_GE(ports().size(), 4u) << "IDGEN_CITUS_PORTS must name 4 ports";
        for (int i = 0; i < 4; ++i) run(i, "CREATE EXTENSION IF NOT EXISTS citus");
        run(0, "SELECT citus_set_coordinator_host(" + node_name(0) + ")");
        run(0, "SELECT citus_add_node(" + node_name(1) + ")");
        run(0, "SELECT citus_add_node(" + node_name(2) + ")");
        // Propagates to every worker (and to nodes added later).
        run(0, "CREATE EXTENSION id_gen");
        run(0, "CREATE EXTENSION IF NOT EXISTS amcheck");
    }
};
const auto* const g_env = ::testing::AddGlobalTestEnvironment(new CitusCluster);

TEST(Citus, ExtensionIsOnEveryNode) {
    const std::string v = text(0, "SELECT extversion FROM pg_extension WHERE extname = 'id_gen'");
    for (int i = 1; i <= 2; ++i)
        EXPECT_EQ(text(i, "SELECT coalesce((SELECT extversion FROM pg_extension WHERE extname = 'id_gen'), 'missing')"),
                  v)
            << "worker " << i;
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM pg_dist_node WHERE isactive"), 3);
}

// docs/citus.md's `sql citus` blocks, in order, in one session on the coordinator of this cluster
// (a coordinator and two workers, id_gen.node_id 100 to 102, as the page's results assume), with
// the README layer's checks of the results the page shows (test/readme/readme_run.h). First
// after the extension check, while the cluster is what the page describes.
TEST(Citus, ReadmeBlocks) {
    std::ifstream in(std::string(IDGEN_SOURCE_DIR) + "/docs/citus.md");
    ASSERT_TRUE(in.good());
    std::stringstream md;
    md << in.rdbuf();
    pqxx::connection c(dsn(0) + " options='-c TimeZone=UTC -c DateStyle=ISO,MDY'");
    int ran = 0;
    for (idgen::readme::Block& b : idgen::readme::parse_readme(md.str())) {
        b.file = "docs/citus.md";
        if (!b.error.empty()) ADD_FAILURE() << b.file << ":" << b.line << ": " << b.error;
        // The page's other blocks (none today) run in the README layer.
        if (!b.citus || b.fragment) continue;
        ++ran;
        const std::string failures = idgen::readme::run_statements(c, b, "Citus coordinator");
        if (!failures.empty()) ADD_FAILURE() << failures;
    }
    EXPECT_GE(ran, 4);
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM shard_42.photos WHERE shard_id_shard(id) = 42"), 1);
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM orders"), 1);
    EXPECT_EQ(scalar(0,
                     "SELECT count(DISTINCT colocationid) FROM pg_dist_partition WHERE logicalrelid IN "
                     "('orders'::regclass, 'order_lines'::regclass)"),
              1);
    for (int node = 1; node <= 2; ++node)
        EXPECT_EQ(scalar(node, "SELECT count(*) FROM shard_blocks WHERE shard = 42"), 3) << "node " << node;
}

// Every ID type as a distribution column; the hash of a ulid is uuid's, of a snowflake bigint's.
TEST(Citus, EveryTypeDistributes) {
    struct T {
        const char* table;
        const char* type;
        const char* def;
    };
    const std::vector<T> tables = {
        {"t_ulid", "ulid", "gen_ulid()"},
        {"t_uuidv7", "uuid", "gen_uuidv7()"},
        {"t_snowflake", "snowflake", "gen_snowflake()"},
        {"t_base36_64", "base36_64", "gen_snowflake()::base36_64"},
        {"t_base36_128", "base36_128", "gen_ulid()::base36_128"},
    };
    for (const auto& t : tables) {
        run(0, std::string("CREATE TABLE ") + t.table + " (id " + t.type + " PRIMARY KEY DEFAULT " + t.def +
                   ", payload int, node int DEFAULT current_setting('id_gen.node_id')::int)");
        run(0, std::string("SELECT create_distributed_table('") + t.table +
                   "', 'id', shard_count => 8, colocate_with => 'none')");
        // From the coordinator, and from each worker (their defaults run there).
        for (int node = 0; node <= 2; ++node)
            run(node, std::string("INSERT INTO ") + t.table + " (payload) SELECT g FROM generate_series(1, 2000) g");
        EXPECT_EQ(scalar(0, std::string("SELECT count(DISTINCT id) FROM ") + t.table), 6000) << t.table;
        EXPECT_EQ(scalar(0, std::string("SELECT count(DISTINCT node) FROM ") + t.table), 3) << t.table;
        // Rows on both workers: the hash spreads them.
        EXPECT_EQ(scalar(0, std::string("SELECT count(DISTINCT nodeport) FROM citus_shards WHERE table_name = '") +
                                t.table + "'::regclass"),
                  2)
            << t.table;
        // Each row is in the shard Citus computes for its value.
        EXPECT_EQ(scalar(0, std::string("SELECT count(*) FROM (SELECT id, get_shard_id_for_distribution_column('") +
                                t.table + "', id) AS s FROM " + t.table + " LIMIT 200) x WHERE s IS NULL"),
                  0);
    }
    // The hash agrees with uuid's and bigint's.
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM t_ulid WHERE worker_hash(id) <> worker_hash(id::uuid)"), 0);
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM t_snowflake WHERE worker_hash(id) <> worker_hash(id::bigint)"), 0);
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM t_base36_128 WHERE worker_hash(id) <> worker_hash(id::uuid)"), 0);
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM t_base36_64 WHERE worker_hash(id) <> worker_hash(id::bigint)"), 0);
}

// id = literal is a router plan (one task); IN prunes to the shards of its values.
TEST(Citus, RouterPlansAndPruning) {
    const std::string id = text(0, "SELECT id::text FROM t_ulid LIMIT 1");
    auto plan = [](const std::string& sql) {
        std::string all;
        for (const auto& r : run(0, "EXPLAIN " + sql)) all += r[0].as<std::string>() + "\n";
        return all;
    };
    const std::string p1 = plan("SELECT * FROM t_ulid WHERE id = '" + id + "'");
    EXPECT_NE(p1.find("Task Count: 1"), std::string::npos) << p1;
    const std::string sf = text(0, "SELECT id::text FROM t_snowflake LIMIT 1");
    const std::string p2 = plan("SELECT * FROM t_snowflake WHERE id = " + sf);
    EXPECT_NE(p2.find("Task Count: 1"), std::string::npos) << p2;
    const std::string two =
        text(0, "SELECT string_agg(quote_literal(id::text), ',') FROM (SELECT id FROM t_ulid LIMIT 2) x");
    const std::string p3 = plan("SELECT * FROM t_ulid WHERE id IN (" + two + ")");
    EXPECT_TRUE(p3.find("Task Count: 1") != std::string::npos || p3.find("Task Count: 2") != std::string::npos) << p3;
    // Not every shard: pruning happened (8 shards).
    EXPECT_EQ(p3.find("Task Count: 8"), std::string::npos) << p3;
}

// Inserts made on each worker, and an INSERT ... SELECT whose defaults Citus evaluates in the
// worker tasks: snowflakes carry the node number of the server that issued them.
TEST(Citus, WorkerInsertsAndInsertSelect) {
    run(0, "CREATE TABLE ev (id snowflake DEFAULT gen_snowflake(), payload int, origin text)");
    run(0, "SELECT create_distributed_table('ev', 'payload', shard_count => 8, colocate_with => 'none')");
    run(0, "CREATE TABLE ev_src (payload int)");
    run(0, "SELECT create_distributed_table('ev_src', 'payload', colocate_with => 'ev')");
    run(0, "INSERT INTO ev_src SELECT g FROM generate_series(1, 20000) g");
    std::vector<std::thread> threads;
    std::vector<std::string> errors(3);
    for (int node = 0; node <= 2; ++node)
        threads.emplace_back([&, node] {
            try {
                pqxx::connection c(dsn(node));
                for (int k = 0; k < 10; ++k) {
                    pqxx::work tx(c);
                    tx.exec("INSERT INTO ev (payload, origin) SELECT g, 'node" + std::to_string(node) +
                            "' FROM generate_series(1, 2000) g");
                    tx.commit();
                }
            } catch (const std::exception& e) {
                errors[node] = e.what();
            }
        });
    for (auto& t : threads) t.join();
    for (int node = 0; node <= 2; ++node) EXPECT_EQ(errors[node], "") << "node " << node;
    // Pushed down: each task evaluates gen_snowflake() on its worker.
    run(0, "INSERT INTO ev (payload, origin) SELECT payload, 'insert-select' FROM ev_src");
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM ev"), 80000);
    EXPECT_EQ(scalar(0, "SELECT count(DISTINCT id) FROM ev"), 80000);
    // Rows inserted through node N carry node N's id_gen.node_id (100 + N): the default ran there.
    for (int node = 0; node <= 2; ++node)
        EXPECT_EQ(scalar(0, "SELECT count(*) FROM ev WHERE origin = 'node" + std::to_string(node) +
                                "' AND snowflake_node(id) = " + std::to_string(100 + node)),
                  20000)
            << "node " << node;
    // The INSERT ... SELECT's IDs were issued by the workers (101, 102), both of them.
    EXPECT_EQ(scalar(0,
                     "SELECT count(DISTINCT snowflake_node(id)) FROM ev WHERE origin = 'insert-select' "
                     "AND snowflake_node(id) IN (101, 102)"),
              2);
    EXPECT_EQ(
        scalar(0, "SELECT count(*) FROM ev WHERE origin = 'insert-select' AND snowflake_node(id) NOT IN (101, 102)"),
        0);
}

// Shard moves (logical replication and blocking) and a split, each while rows keep arriving.
TEST(Citus, ShardMoveAndSplitUnderInserts) {
    run(0, "CREATE TABLE mv (id ulid PRIMARY KEY DEFAULT gen_ulid(), payload int)");
    run(0, "SELECT create_distributed_table('mv', 'id', shard_count => 4, colocate_with => 'none')");
    std::atomic<bool> stop{false};
    std::atomic<long long> rows{0};
    std::atomic<int> errors{0}, refused{0};
    std::vector<std::string> messages;
    std::vector<std::thread> writers;
    for (int k = 0; k < 2; ++k)
        writers.emplace_back([&] { insert_until(0, "mv", stop, rows, errors, refused, messages); });
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    // A shard on `node`, other than `other`.
    auto shard_on = [](int node, long long other = 0) {
        return scalar(0, "SELECT shardid FROM citus_shards WHERE table_name = 'mv'::regclass AND nodeport = " +
                             std::to_string(ports().at(node)) + " AND shardid <> " + std::to_string(other) +
                             " ORDER BY shardid LIMIT 1");
    };
    std::string failure;
    try {
        const long long moved = shard_on(1);
        run(0, "SELECT citus_move_shard_placement(" + std::to_string(moved) + ", " + node_name(1) + ", " +
                   node_name(2) + ", shard_transfer_mode => 'force_logical')");
        // Another shard back (the one just moved could not go back before Citus drops its old
        // placement there, which it defers: "orphaned shard ... could not be cleaned up").
        run(0, "SELECT citus_move_shard_placement(" + std::to_string(shard_on(2, moved)) + ", " + node_name(2) + ", " +
                   node_name(1) + ", shard_transfer_mode => 'block_writes')");
        const long long s = shard_on(1);
        const std::string nodes =
            "ARRAY[" + text(0, "SELECT nodeid FROM pg_dist_node WHERE nodeport = " + std::to_string(ports().at(1))) +
            ", " + text(0, "SELECT nodeid FROM pg_dist_node WHERE nodeport = " + std::to_string(ports().at(2))) + "]";
        const std::string mid = text(
            0,
            "SELECT ((shardminvalue::bigint + shardmaxvalue::bigint) / 2)::text FROM pg_dist_shard WHERE shardid = " +
                std::to_string(s));
        run(0, "SELECT citus_split_shard_by_split_points(" + std::to_string(s) + ", ARRAY['" + mid + "'], " + nodes +
                   ", shard_transfer_mode => 'force_logical')");
    } catch (const std::exception& e) {
        failure = e.what();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    stop = true;
    for (auto& t : writers) t.join();
    EXPECT_EQ(failure, "");
    EXPECT_GT(rows.load(), 0);
    EXPECT_EQ(errors.load(), 0) << (messages.empty() ? "" : messages[0]);
    std::cout << "[ note ] shard moves and split: " << rows.load() << " rows inserted meanwhile, " << refused.load()
              << " batches refused by Citus during the split (rolled back)" << std::endl;
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM mv"), rows.load());
    EXPECT_EQ(scalar(0, "SELECT count(DISTINCT id) FROM mv"), rows.load());
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM citus_shards WHERE table_name = 'mv'::regclass"), 5);
    // Every shard's primary key index is sound after the moves and the split.
    for (int node = 1; node <= 2; ++node) {
        // Citus hides shards from pg_class unless the application name asks to see them.
        auto r = run(node,
                     "SET citus.show_shards_for_app_name_prefixes = '*'; "
                     "SELECT count(*) FROM (SELECT bt_index_check(c.oid, true) FROM pg_class c "
                     "WHERE c.relname LIKE 'mv\\_pkey\\_%' AND c.relkind = 'i') x");
        EXPECT_GE(r[0][0].as<long long>(), 1) << "node " << node;
    }
}

// id_gen.node_id is checked on every node; a clash is reported and refused.
TEST(Citus, NodeIdsDifferOnEveryNode) {
    EXPECT_EQ(scalar(0, "SELECT count(DISTINCT node_id) FROM cluster_node_ids() WHERE problem IS NULL"), 3);
    EXPECT_EQ(scalar(0, "SELECT check_cluster_node_ids()"), 3);
    run(2, "ALTER SYSTEM SET id_gen.node_id = 101");
    run(2, "SELECT pg_reload_conf()");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM cluster_node_ids() WHERE problem LIKE '%101 is set on 2 nodes%'"), 2);
    EXPECT_EQ(sqlstate_of(0, "SELECT check_cluster_node_ids()"), "55000");
    EXPECT_EQ(sqlstate_of(0, "SELECT shard_cluster_sync()"), "55000");
    run(2, "ALTER SYSTEM RESET id_gen.node_id");
    run(2, "SELECT pg_reload_conf()");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM cluster_node_ids() WHERE problem IS NULL"), 3);
}

}  // namespace

namespace {

// SQL giving the node (its id_gen.node_id) whose block of shard `shard` issued shard ID `id`, from
// the coordinator's shard_blocks (spelt out: Citus does not join distributed and local tables).
std::string issuing_node(int shard) {
    std::string sql = "CASE";
    for (const auto& r :
         run(0, "SELECT node_id, seq_lo, seq_lo + (1 << seq_bits) - 1 FROM shard_blocks WHERE shard = " +
                    std::to_string(shard) + " ORDER BY node_id"))
        sql += " WHEN shard_id_sequence(id) BETWEEN " + r[1].as<std::string>() + " AND " + r[2].as<std::string>() +
               " THEN " + r[0].as<std::string>();
    return sql + " END";
}

// `per_node` next_id() calls of `fn` on each of `nodes` at once; every value distinct.
std::vector<std::vector<long long>> next_ids_everywhere(const std::vector<int>& nodes, const std::string& fn,
                                                        int per_node) {
    std::vector<std::vector<long long>> ids(nodes.size());
    std::vector<std::string> errors(nodes.size());
    std::vector<std::thread> threads;
    for (std::size_t k = 0; k < nodes.size(); ++k)
        threads.emplace_back([&, k] {
            try {
                for (const auto& r :
                     run(nodes[k], "SELECT " + fn + " FROM generate_series(1, " + std::to_string(per_node) +
                                       ") WITH ORDINALITY g(v, n) ORDER BY n"))
                    ids[k].push_back(r[0].as<long long>());
            } catch (const std::exception& e) {
                errors[k] = e.what();
            }
        });
    for (auto& t : threads) t.join();
    std::vector<long long> all;
    for (std::size_t k = 0; k < nodes.size(); ++k) {
        EXPECT_EQ(errors[k], "") << "node " << nodes[k];
        EXPECT_EQ(ids[k].size(), static_cast<std::size_t>(per_node)) << "node " << nodes[k];
        EXPECT_TRUE(std::is_sorted(ids[k].begin(), ids[k].end())) << "node " << nodes[k];
        all.insert(all.end(), ids[k].begin(), ids[k].end());
    }
    std::sort(all.begin(), all.end());
    EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << "duplicate IDs of " << fn;
    return ids;
}

}  // namespace

// Per-schema shards: the registry and a block of each shard on every node; next_id() on any node
// (directly, in a tenant schema's router INSERT and in INSERT ... SELECT tasks); never a duplicate.
TEST(Citus, PerSchemaShardsOnEveryNode) {
    // A tenant schema (schema-based sharding) and a plain one.
    run(0, "SET citus.enable_schema_based_sharding = on; SELECT create_shard(5)");
    run(0, "SELECT create_shard(6)");
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM citus_schemas WHERE schema_name::text = 'shard_5'"), 1);
    for (int node = 1; node <= 2; ++node) {
        EXPECT_EQ(scalar(node, "SELECT count(*) FROM shard_registry WHERE shard IN (5, 6)"), 2) << "node " << node;
        EXPECT_EQ(scalar(node, "SELECT count(*) FROM shard_blocks WHERE shard IN (5, 6)"), 6) << "node " << node;
    }
    // The default block with 3 nodes: 128 IDs per ms (room for twice as many nodes).
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM shard_blocks WHERE shard = 5 AND seq_bits = 7"), 3);
    // Blocks: one per node and shard, disjoint.
    EXPECT_EQ(
        scalar(0,
               "SELECT count(*) FROM shard_blocks a JOIN shard_blocks b ON a.shard = b.shard AND a.node_id < b.node_id "
               "AND a.seq_lo < b.seq_lo + (1 << b.seq_bits) AND b.seq_lo < a.seq_lo + (1 << a.seq_bits)"),
        0);
    // The issue's scenario: the coordinator and both workers at once, 100k each, no duplicate;
    // each node's IDs fall in its block.
    auto ids = next_ids_everywhere({0, 1, 2}, "shard_5.next_id()", 100000);
    for (int node = 0; node <= 2; ++node) {
        const auto lo =
            scalar(0, "SELECT seq_lo FROM shard_blocks WHERE shard = 5 AND node_id = " + std::to_string(100 + node));
        const auto bits =
            scalar(0, "SELECT seq_bits FROM shard_blocks WHERE shard = 5 AND node_id = " + std::to_string(100 + node));
        long long outside = 0, wrong_shard = 0;
        for (long long id : ids[node]) {
            const long long seq = id & 1023, shard = (id >> 10) & 8191;
            if (seq < lo || seq >= lo + (1LL << bits)) ++outside;
            if (shard != 5) ++wrong_shard;
        }
        EXPECT_EQ(outside, 0) << "node " << node;
        EXPECT_EQ(wrong_shard, 0) << "node " << node;
    }
    // A tenant table: rows routed to the schema's node, from the coordinator and from a worker,
    // and an INSERT ... SELECT inside the schema (its DEFAULT runs in the task).
    run(0, "CREATE TABLE shard_5.items (id bigint PRIMARY KEY DEFAULT shard_5.next_id(), payload int, origin text)");
    run(0, "CREATE TABLE shard_5.src (payload int)");
    run(0, "INSERT INTO shard_5.src SELECT g FROM generate_series(1, 5000) g");
    run(0, "INSERT INTO shard_5.items (payload, origin) SELECT g, 'coordinator' FROM generate_series(1, 5000) g");
    run(1, "INSERT INTO shard_5.items (payload, origin) SELECT g, 'worker1' FROM generate_series(1, 5000) g");
    run(0, "INSERT INTO shard_5.items (payload, origin) SELECT payload, 'insert-select' FROM shard_5.src");
    EXPECT_EQ(scalar(0, "SELECT count(DISTINCT id) FROM shard_5.items"), 15000);
    // A hash-distributed table keyed by shard IDs of shard 6, filled by INSERT ... SELECT tasks on
    // both workers.
    run(0, "CREATE TABLE sh (id bigint DEFAULT shard_6.next_id(), payload int)");
    run(0, "SELECT create_distributed_table('sh', 'payload', colocate_with => 'ev')");
    run(0, "INSERT INTO sh (payload) SELECT payload FROM ev_src");
    run(0, "INSERT INTO sh (payload) SELECT g FROM generate_series(1, 5000) g");
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM sh"), 25000);
    EXPECT_EQ(scalar(0, "SELECT count(DISTINCT id) FROM sh"), 25000);
    // Both workers issued some (their blocks), and nothing outside a block.
    EXPECT_EQ(
        scalar(0, "SELECT count(DISTINCT " + issuing_node(6) + ") FROM sh WHERE " + issuing_node(6) + " IN (101, 102)"),
        2);
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM sh WHERE " + issuing_node(6) + " IS NULL"), 0);
    // Decoders in pushed-down queries: the registry is on every node, so shard_id_time(id) is not
    // NULL there; the IMMUTABLE form with the epoch gives the same, and works in RETURNING.
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM sh WHERE shard_id_time(id) IS NULL"), 0);
    EXPECT_EQ(
        scalar(0,
               "SELECT count(*) FROM sh WHERE shard_id_time(id) IS DISTINCT FROM shard_id_time(id, '2024-01-01+00')"),
        0);
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM sh WHERE shard_id_shard(id) <> 6"), 0);
    auto r =
        run(0, "INSERT INTO sh (payload) VALUES (7) RETURNING shard_id_time(id, '2024-01-01+00'), shard_id_shard(id)");
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0][1].as<int>(), 6);
    EXPECT_EQ(text(0, "SELECT abs(extract(epoch FROM '" + r[0][0].as<std::string>() + "'::timestamptz - now())) < 60"),
              "t");
    // The registry-reading form is STABLE, which Citus refuses in RETURNING (the README says so;
    // Citus 14.0.1 raises it as XX000, an internal error, rather than 0A000).
    EXPECT_NE(sqlstate_of(0, "INSERT INTO sh (payload) VALUES (-8) RETURNING shard_id_time(id)"), "");
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM sh WHERE payload = -8"), 0);
    // A worker whose id_gen.node_id holds no block of a shard asks the coordinator for one by
    // itself (no id_gen call): a new block, disjoint from the others, valid at once.
    run(2, "ALTER SYSTEM SET id_gen.node_id = 150");
    run(2, "SELECT pg_reload_conf()");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_EQ(scalar(2, "SELECT shard_id_shard(shard_6.next_id())"), 6);
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM shard_blocks WHERE shard = 6 AND node_id = 150"), 1);
    EXPECT_EQ(
        scalar(0,
               "SELECT count(*) FROM shard_blocks a JOIN shard_blocks b ON a.shard = b.shard AND a.node_id < b.node_id "
               "AND a.seq_lo < b.seq_lo + (1 << b.seq_bits) AND b.seq_lo < a.seq_lo + (1 << a.seq_bits)"),
        0);
    run(2, "ALTER SYSTEM RESET id_gen.node_id");
    run(2, "SELECT pg_reload_conf()");
    // The coordinator, the authority, asks nobody: with a node id that holds no block it refuses.
    run(0, "ALTER SYSTEM SET id_gen.node_id = 160");
    run(0, "SELECT pg_reload_conf()");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_EQ(sqlstate_of(0, "SELECT shard_6.next_id()"), "55000");
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM shard_blocks WHERE node_id = 160"), 0);
    run(0, "ALTER SYSTEM RESET id_gen.node_id");
    run(0, "SELECT pg_reload_conf()");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_EQ(sqlstate_of(0, "SELECT shard_6.next_id()"), "");
    EXPECT_EQ(sqlstate_of(2, "SELECT shard_6.next_id()"), "");
    // Shards are made on the coordinator.
    EXPECT_EQ(sqlstate_of(1, "SELECT create_shard(7)"), "55000");
}

// citus_schema_move: the tenant schema moves to the other worker while rows keep arriving; IDs
// continue on every node without a duplicate (each node issues from its own block, wherever the
// schema lives).
TEST(Citus, SchemaMoveUnderInserts) {
    const std::string from =
        text(0, "SELECT nodeport::text FROM citus_shards WHERE table_name = 'shard_5.items'::regclass");
    const int to = std::stoi(from) == ports().at(1) ? 2 : 1;
    std::atomic<bool> stop{false};
    std::atomic<long long> rows{0};
    std::atomic<int> errors{0}, refused{0};
    std::vector<std::string> messages;
    std::vector<std::thread> writers;
    for (int node : {0, 1, 2})
        writers.emplace_back([&, node] { insert_until(node, "shard_5.items", stop, rows, errors, refused, messages); });
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    std::string failure;
    try {
        run(0, "SELECT citus_schema_move('shard_5', " + node_name(to) + ", shard_transfer_mode => 'force_logical')");
    } catch (const std::exception& e) {
        failure = e.what();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    stop = true;
    for (auto& t : writers) t.join();
    EXPECT_EQ(failure, "");
    EXPECT_EQ(errors.load(), 0) << (messages.empty() ? "" : messages[0]);
    EXPECT_EQ(text(0, "SELECT nodeport::text FROM citus_shards WHERE table_name = 'shard_5.items'::regclass"),
              std::to_string(ports().at(to)));
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM shard_5.items"), 15000 + rows.load());
    EXPECT_EQ(scalar(0, "SELECT count(DISTINCT id) FROM shard_5.items"), 15000 + rows.load());
    // After the move, every node still issues above what it issued before.
    for (int node : {0, 1, 2}) {
        const long long before = scalar(
            0, "SELECT max(id) FROM shard_5.items WHERE " + issuing_node(5) + " = " + std::to_string(100 + node));
        EXPECT_GT(scalar(node, "SELECT shard_5.next_id()"), before) << "node " << node;
    }
}

// create_id_type() on the coordinator makes the type on every node, as a member of id_gen (the
// objects Citus knows how to make on a node: it creates the extension), in the coordinator's
// transaction: a created type can key a distributed table, workers insert with its generator,
// and an INSERT ... SELECT runs it in its tasks on the workers. AddNodeIsReadyUnderRebalance
// then adds a node, which gets the types when Citus creates id_gen there.
// How many of the two created types of CreatedIdTypesOnEveryNode are members of id_gen.
const char* const kCreatedTypeMembers =
    "SELECT count(*) FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'id_gen' "
    "WHERE d.deptype = 'e' AND d.classid = 'pg_type'::regclass AND d.objid IN ('cit_account_id'::regtype, "
    "'cit_billing.cit_invoice_id'::regtype)";

TEST(Citus, CreatedIdTypesOnEveryNode) {
    run(0, "SELECT create_id_type('cit_account_id', kind => 'ulid', prefix => 'cacct')");
    run(0, "CREATE SCHEMA cit_billing");
    run(0,
        "SELECT create_id_type('cit_invoice_id', kind => 'snowflake', prefix => 'cinv', schema_name => 'cit_billing')");
    const std::string member = kCreatedTypeMembers;
    // Everything create_id_type() made (the type, 23 functions, 6 operators, 3 operator classes
    // and their families, 2 casts), and all of it a member of id_gen.
    const std::string objects =
        "SELECT string_agg(c, '/') FROM (SELECT count(*) || ' ' || count(*) FILTER (WHERE EXISTS (SELECT 1 FROM "
        "pg_depend d "
        "JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'id_gen' WHERE d.classid = o.classid AND d.objid = "
        "o.objid "
        "AND d.deptype = 'e')) c FROM (VALUES ('cit_account_id'::regtype), ('cit_billing.cit_invoice_id')) t(y), "
        "id_type_objects(t.y) o GROUP BY t.y) q";
    const std::string value = text(0, "SELECT gen_cit_account_id()::text");
    for (int node = 0; node <= 2; ++node) {
        EXPECT_EQ(scalar(node, member), 2) << "node " << node;
        EXPECT_EQ(text(node, objects), "38 38/38 38") << "node " << node;
        EXPECT_EQ(
            text(node,
                 "SELECT kind || ' ' || format || ' ' || prefix FROM id_type_describe('cit_billing.cit_invoice_id')"),
            "snowflake prefixed cinv")
            << "node " << node;
        EXPECT_EQ(text(node, "SELECT '" + value + "'::cit_account_id::text"), value) << "node " << node;
        EXPECT_EQ(text(node, "SELECT owner FROM prefix_registry WHERE prefix = 'cacct'"),
                  "ID type public.cit_account_id")
            << "node " << node;
    }
    run(0, "CREATE TABLE cit_accounts (id cit_account_id PRIMARY KEY DEFAULT gen_cit_account_id(), v int)");
    run(0, "SELECT create_distributed_table('cit_accounts', 'id')");
    run(0,
        "CREATE TABLE cit_billing.invoices (id cit_billing.cit_invoice_id NOT NULL DEFAULT "
        "cit_billing.gen_cit_invoice_id(), "
        "account cit_account_id NOT NULL, v int)");
    run(0, "SELECT create_distributed_table('cit_billing.invoices', 'account', colocate_with => 'cit_accounts')");
    for (int node = 0; node <= 2; ++node)
        run(node, "INSERT INTO cit_accounts (v) SELECT g FROM generate_series(1, 300) g");
    EXPECT_EQ(scalar(0, "SELECT count(DISTINCT id) FROM cit_accounts"), 900);
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM cit_accounts WHERE id::text !~ '^cacct_[0-9a-z]{25}$'"), 0);
    // Rows are where the type's hash puts them: a lookup by key is routed to one shard.
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM cit_accounts WHERE id = '" +
                            text(1, "SELECT max(id)::text FROM cit_accounts") + "'"),
              1);
    // The invoices' IDs are made in the INSERT ... SELECT's tasks, on the workers (node ids 101 and
    // 102; the coordinator's is 100).
    std::string plan;
    for (const auto& r :
         run(0, "EXPLAIN (COSTS OFF) INSERT INTO cit_billing.invoices (account, v) SELECT id, v FROM cit_accounts"))
        plan += r[0].as<std::string>() + "\n";
    EXPECT_NE(plan.find("Task Count: 32"), std::string::npos) << plan;
    run(0, "INSERT INTO cit_billing.invoices (account, v) SELECT id, v FROM cit_accounts");
    EXPECT_EQ(scalar(0, "SELECT count(DISTINCT id) FROM cit_billing.invoices"), 900);
    EXPECT_EQ(text(0, "SELECT string_agg(DISTINCT snowflake_node(id::snowflake)::text, ',') FROM cit_billing.invoices"),
              "101,102");
    // Rolled back on the coordinator: on no node.
    run(0, "BEGIN; SELECT create_id_type('cit_rolled_back_id', kind => 'xid', prefix => 'crb'); ROLLBACK");
    for (int node = 0; node <= 2; ++node) {
        EXPECT_EQ(scalar(node, "SELECT count(*) FROM pg_type WHERE typname = 'cit_rolled_back_id'"), 0)
            << "node " << node;
        EXPECT_EQ(scalar(node, "SELECT count(*) FROM prefix_registry WHERE prefix = 'crb'"), 0) << "node " << node;
    }
    // A node that refuses (the name taken there) fails the call, and it is left on no node: Citus
    // reports XX000 after the node's own error, passed on as a warning.
    run(1, "SET citus.enable_ddl_propagation = off; CREATE TYPE public.cit_clash_id AS (a int)");
    std::string clash;
    try {
        run(0, "SELECT create_id_type('cit_clash_id', kind => 'ulid', prefix => 'cclash')");
    } catch (const pqxx::sql_error& e) {
        clash = std::string(e.sqlstate()) + " " + e.what();
    }
    EXPECT_EQ(clash.find("XX000 ERROR:  failure on connection marked as essential"), 0u) << clash;
    run(1, "SET citus.enable_ddl_propagation = off; DROP TYPE public.cit_clash_id");
    for (int node = 0; node <= 2; ++node) {
        EXPECT_EQ(scalar(node, "SELECT count(*) FROM pg_type WHERE typname = 'cit_clash_id'"), 0) << "node " << node;
        EXPECT_EQ(scalar(node, "SELECT count(*) FROM prefix_registry WHERE prefix = 'cclash'"), 0) << "node " << node;
    }
    // A worker refuses: a type made there would be on no other node.
    std::string message;
    try {
        run(1, "SELECT create_id_type('cit_worker_id', kind => 'ulid', prefix => 'cwk')");
    } catch (const pqxx::sql_error& e) {
        message = std::string(e.sqlstate()) + " " + e.what();
    }
    EXPECT_NE(message.find("55000 ERROR:  create_id_type() runs on the coordinator of a Citus cluster"),
              std::string::npos)
        << message;
    EXPECT_EQ(scalar(1, "SELECT count(*) FROM pg_type WHERE typname = 'cit_worker_id'"), 0);
    // Cascade would drop a distributed table's column behind Citus's back, one whose type is a
    // domain over the type too: refused, nothing dropped.
    run(0, "CREATE DOMAIN cit_account_domain AS cit_account_id");
    run(0, "CREATE TABLE cit_by_domain (id cit_account_domain PRIMARY KEY)");
    run(0, "SELECT create_distributed_table('cit_by_domain', 'id')");
    run(0, "INSERT INTO cit_by_domain SELECT gen_cit_account_id() FROM generate_series(1, 10)");
    run(0, "CREATE TYPE cit_account_pair AS (a cit_account_id, n int)");
    run(0, "CREATE TABLE cit_by_composite (k int PRIMARY KEY, c cit_account_pair)");
    run(0, "SELECT create_distributed_table('cit_by_composite', 'k')");
    run(0,
        "INSERT INTO cit_by_composite SELECT g, format('(%s,%s)', gen_cit_account_id(), g)::cit_account_pair FROM "
        "generate_series(1, 10) g");
    message.clear();
    try {
        run(0, "SELECT drop_id_type('cit_account_id', cascade => true)");
    } catch (const pqxx::sql_error& e) {
        message = std::string(e.sqlstate()) + " " + e.what();
    }
    EXPECT_NE(message.find("2BP01"), std::string::npos) << message;
    EXPECT_NE(
        message.find("while Citus tables use it: cit_billing.invoices, public.cit_accounts, public.cit_by_composite, "
                     "public.cit_by_domain"),
        std::string::npos)
        << message;
    for (int node = 0; node <= 2; ++node) EXPECT_EQ(scalar(node, member), 2) << "node " << node;
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM cit_billing.invoices"), 900);
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM cit_by_domain"), 10);
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM cit_by_composite WHERE (c).a IS NOT NULL"), 10);
    // Made and distributed in one transaction (a migration): the shards are made over the
    // connections that made the type on each node.
    run(0,
        "BEGIN; SELECT create_id_type('cit_tx_id', kind => 'ksuid', prefix => 'ctx'); "
        "CREATE TABLE cit_tx (id cit_tx_id PRIMARY KEY DEFAULT gen_cit_tx_id(), v int); "
        "SELECT create_distributed_table('cit_tx', 'id'); INSERT INTO cit_tx (v) SELECT g FROM generate_series(1, 50) "
        "g; COMMIT");
    EXPECT_EQ(scalar(0, "SELECT count(DISTINCT id) FROM cit_tx"), 50);
    for (int node = 1; node <= 2; ++node) run(node, "INSERT INTO cit_tx (v) SELECT g FROM generate_series(1, 50) g");
    EXPECT_EQ(scalar(0, "SELECT count(DISTINCT id) FROM cit_tx"), 150);
}

// A node added while rows keep arriving on every node is ready with no id_gen call: it gets the
// extension from Citus, and its first next_id() of a shard asks the coordinator for its block.
// Then shards move onto it (of sh, of cit_accounts, and the tenant schema shard_5, as a rebalance
// would move them) while the inserts go on everywhere, the new node included, and a pushed-down INSERT ... SELECT runs tasks
// there. No insert fails, no ID repeats.
TEST(Citus, AddNodeIsReadyUnderRebalance) {
    const long long sh_before = scalar(0, "SELECT count(*) FROM sh");
    const long long items_before = scalar(0, "SELECT count(*) FROM shard_5.items");
    std::atomic<bool> stop{false}, stop_new{false};
    std::atomic<long long> rows_sh{0}, rows_items{0}, rows_new{0};
    std::atomic<int> errors{0}, refused{0};
    std::vector<std::string> messages;
    std::vector<std::thread> writers;
    for (int node : {0, 1, 2}) {
        writers.emplace_back([&, node] { insert_until(node, "sh", stop, rows_sh, errors, refused, messages); });
        writers.emplace_back(
            [&, node] { insert_until(node, "shard_5.items", stop, rows_items, errors, refused, messages); });
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    run(0, "SELECT citus_add_node(" + node_name(3) + ")");
    const auto added = std::chrono::steady_clock::now();
    EXPECT_EQ(text(3, "SELECT coalesce((SELECT extversion FROM pg_extension WHERE extname = 'id_gen'), 'missing')"),
              text(0, "SELECT extversion FROM pg_extension WHERE extname = 'id_gen'"));
    // The new node's first next_id() calls: several sessions at once, each a first call.
    auto first = next_ids_everywhere({3, 3, 3}, "shard_6.next_id()", 2000);
    const auto ready_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - added).count();
    EXPECT_LT(ready_ms, 10000);
    for (const auto& v : first)
        for (long long id : v) ASSERT_EQ((id >> 10) & 8191, 6);
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM shard_blocks WHERE node_id = 103 AND shard = 6"), 1);
    // Inserts on the new node too, while shards move onto it.
    std::vector<std::thread> new_writers;
    new_writers.emplace_back([&] { insert_until(3, "sh", stop_new, rows_new, errors, refused, messages); });
    new_writers.emplace_back([&] { insert_until(3, "shard_5.items", stop_new, rows_new, errors, refused, messages); });
    std::string failure;
    const auto t0 = std::chrono::steady_clock::now();
    // The moves a rebalance makes onto the new node, for the colocation groups this test checks:
    // a shard of sh (from worker 1), the tenant schema shard_5 (from where it is) and a shard of
    // cit_accounts (from where it is), each with the rebalancer's own function. (The whole rebalance
    // moved every group the earlier tests made, 73 moves: 218 s in one run.)
    const std::string to = node_name(3);
    const auto shard_on = [](const std::string& table, const std::string& where) {
        return text(0,
                    "SELECT shardid || ', ' || quote_literal(nodename) || ', ' || nodeport FROM citus_shards WHERE "
                    "table_name = '" +
                        table + "'::regclass AND " + where + " ORDER BY shardid LIMIT 1");
    };
    try {
        for (const auto& move :
             {shard_on("sh", "nodeport = " + std::to_string(ports().at(1))), shard_on("shard_5.items", "true"),
              // The shard of an account the INSERT ... SELECT below reads (v <= 20), so
              // that the new node makes invoice IDs there.
              shard_on("cit_accounts",
                       "shardid = (SELECT get_shard_id_for_distribution_column("
                       "'cit_accounts', id) FROM cit_accounts WHERE v <= 20 ORDER BY id LIMIT 1)")})
            run(0,
                "SELECT citus_move_shard_placement(" + move + ", " + to + ", shard_transfer_mode => 'block_writes')");
    } catch (const std::exception& e) {
        failure = e.what();
    }
    const auto rebalance_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    stop = true;
    stop_new = true;
    for (auto& t : writers) t.join();
    for (auto& t : new_writers) t.join();
    EXPECT_EQ(failure, "");
    EXPECT_EQ(errors.load(), 0) << (messages.empty() ? "" : messages[0]);
    EXPECT_GT(rows_new.load(), 0);
    // Each shard is granted to the new node at its first use there.
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM shard_blocks WHERE node_id = 103 AND shard IN (5, 6)"), 2);
    EXPECT_GT(scalar(0, "SELECT count(*) FROM citus_shards WHERE nodeport = " + std::to_string(ports().at(3))), 0);
    // The created types came with id_gen (CreatedIdTypesOnEveryNode): the new node holds shards of
    // the tables they key, inserts with their generators, and makes invoice IDs in an INSERT ... SELECT.
    EXPECT_EQ(scalar(3, kCreatedTypeMembers), 2);
    EXPECT_GT(
        scalar(0, "SELECT count(*) FROM citus_shards WHERE table_name = 'cit_accounts'::regclass AND nodeport = " +
                      std::to_string(ports().at(3))),
        0);
    run(3, "INSERT INTO cit_accounts (v) SELECT g FROM generate_series(1, 300) g");
    EXPECT_EQ(scalar(0, "SELECT count(DISTINCT id) FROM cit_accounts"), 1200);
    run(0, "INSERT INTO cit_billing.invoices (account, v) SELECT id, -v FROM cit_accounts WHERE v <= 20");
    EXPECT_EQ(scalar(0, "SELECT count(DISTINCT id) FROM cit_billing.invoices"), 980);
    EXPECT_EQ(text(0,
                   "SELECT string_agg(DISTINCT snowflake_node(id::snowflake)::text, ',') FROM cit_billing.invoices "
                   "WHERE v < 0"),
              "101,102,103");
    const long long sh_rows = scalar(0, "SELECT count(*) FROM sh");
    const long long items_rows = scalar(0, "SELECT count(*) FROM shard_5.items");
    EXPECT_EQ(sh_rows + items_rows, sh_before + items_before + rows_sh.load() + rows_items.load() + rows_new.load());
    EXPECT_EQ(scalar(0, "SELECT count(DISTINCT id) FROM sh"), sh_rows);
    EXPECT_EQ(scalar(0, "SELECT count(DISTINCT id) FROM shard_5.items"), items_rows);
    EXPECT_GT(scalar(0, "SELECT count(*) FROM sh WHERE " + issuing_node(6) + " = 103"), 0);
    // A pushed-down INSERT ... SELECT: tasks on every worker, the new one included, issue there.
    const long long new_before = scalar(0, "SELECT count(*) FROM sh WHERE " + issuing_node(6) + " = 103");
    run(0, "INSERT INTO sh (payload) SELECT payload FROM ev_src");
    EXPECT_GT(scalar(0, "SELECT count(*) FROM sh WHERE " + issuing_node(6) + " = 103"), new_before);
    EXPECT_EQ(scalar(0, "SELECT count(*) - count(DISTINCT id) FROM sh"), 0);
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM sh WHERE " + issuing_node(6) + " IS NULL"), 0);
    std::cout << "[ note ] node added under inserts: its first next_id() " << ready_ms
              << " ms after citus_add_node(); 3 shard moves " << rebalance_ms << " ms; "
              << rows_sh.load() + rows_items.load() << " rows on the old nodes and " << rows_new.load()
              << " on the new one meanwhile, " << refused.load() << " batches refused by Citus" << std::endl;
}

// Two nodes that hold no block of a shard ask at once, several sessions each: the coordinator
// grants one request at a time, disjoint blocks; nothing repeats.
TEST(Citus, TwoNodesAskAtOnce) {
    run(0, "SELECT create_shard(16)");
    // As if nodes 2 and 3 had never seen shard 16 (nothing was issued from their blocks).
    run(0, "DELETE FROM shard_blocks WHERE shard = 16 AND node_id IN (102, 103)");
    for (int node : {2, 3}) run(node, "DELETE FROM shard_registry WHERE shard = 16");
    next_ids_everywhere({0, 1, 2, 2, 3, 3}, "shard_16.next_id()", 5000);
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM shard_blocks WHERE shard = 16"), 4);
    EXPECT_EQ(
        scalar(0,
               "SELECT count(*) FROM shard_blocks a JOIN shard_blocks b ON a.shard = b.shard AND a.node_id < b.node_id "
               "AND a.seq_lo < b.seq_lo + (1 << b.seq_bits) AND b.seq_lo < a.seq_lo + (1 << a.seq_bits) WHERE a.shard "
               "= 16"),
        0);
}

// A worker's copy can be stale (a node disabled while a shard was dropped and made again comes
// back with its old block, and next_id() there has no reason to ask): the coordinator never grants
// a run of a shard's field that another node id held of that shard number, and gives a node id
// back its own.
TEST(Citus, ABlockGoesToOneNodeIdOnly) {
    run(0, "SELECT create_shard(18)");
    const std::string p_lo = text(0, "SELECT seq_lo::text FROM shard_blocks WHERE shard = 18 AND node_id = 102");
    const std::string p_bits = text(0, "SELECT seq_bits::text FROM shard_blocks WHERE shard = 18 AND node_id = 102");
    const std::string blocks_103 =
        text(0, "SELECT seq_lo || '/' || seq_bits FROM shard_blocks WHERE shard = 18 AND node_id = 103");
    run(0, "SELECT drop_shard(18)");
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM shard_block_history WHERE shard = 18"), 4);
    // Worker 2 comes back as another node id: the shard is made again without node id 102.
    run(2, "ALTER SYSTEM SET id_gen.node_id = 170");
    run(2, "SELECT pg_reload_conf()");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    run(0, "SELECT create_shard(18)");
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM shard_blocks WHERE shard = 18 AND seq_lo < " + p_lo + " + (1 << " +
                            p_bits + ") AND " + p_lo + " < seq_lo + (1 << seq_bits)"),
              0)
        << "node id 102's old block of shard 18 was granted to another node id";
    EXPECT_EQ(text(0, "SELECT seq_lo || '/' || seq_bits FROM shard_blocks WHERE shard = 18 AND node_id = 103"),
              blocks_103);
    run(2, "ALTER SYSTEM RESET id_gen.node_id");
    run(2, "SELECT pg_reload_conf()");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    // Node id 102 asks (worker 2's first call) and gets its own block back.
    EXPECT_EQ(scalar(2, "SELECT shard_id_shard(shard_18.next_id())"), 18);
    EXPECT_EQ(text(0, "SELECT seq_lo::text FROM shard_blocks WHERE shard = 18 AND node_id = 102"), p_lo);
    next_ids_everywhere({0, 1, 2, 3}, "shard_18.next_id()", 5000);
    run(0, "SELECT drop_shard(18)");
}

// While the coordinator cannot grant (here its blocks table is locked longer than the grant's
// 5 s lock timeout), a node without a block refuses with 55000 and issues nothing; it asks
// again at its next call and then issues.
TEST(Citus, RefusesWhileTheCoordinatorCannotGrant) {
    // Shard 17, its field all granted (the nodes' blocks and made-up ones for node ids 900...).
    run(0, "SELECT create_shard(17)");
    run(0,
        "INSERT INTO shard_blocks SELECT 17, 900 + k, lo, 7, epoch FROM shard_registry, "
        "LATERAL (SELECT row_number() OVER () AS k, g AS lo FROM generate_series(0, 896, 128) g "
        "WHERE NOT EXISTS (SELECT 1 FROM shard_blocks b WHERE b.shard = 17 AND b.seq_lo = g)) f WHERE shard = 17");
    EXPECT_EQ(scalar(0, "SELECT sum(1 << seq_bits) FROM shard_blocks WHERE shard = 17"), 1024);
    run(3, "ALTER SYSTEM SET id_gen.node_id = 151");
    run(3, "SELECT pg_reload_conf()");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    auto error_of = [](int node, const std::string& sql) {
        try {
            run(node, sql);
        } catch (const pqxx::sql_error& e) {
            return std::string(e.sqlstate()) + " " + e.what();
        }
        return std::string();
    };
    std::string message;
    {
        pqxx::connection lock_holder(dsn(0));
        pqxx::work tx(lock_holder);
        tx.exec("LOCK TABLE shard_blocks IN SHARE MODE");
        message = error_of(3, "SELECT shard_5.next_id()");
        tx.abort();
    }
    EXPECT_NE(message.find("55000"), std::string::npos) << message;
    EXPECT_NE(message.find("could not get its block"), std::string::npos) << message;
    EXPECT_NE(message.find("lock timeout"), std::string::npos) << message;
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM shard_blocks WHERE node_id = 151"), 0);
    // It asks again at its next call.
    EXPECT_EQ(scalar(3, "SELECT shard_id_shard(shard_5.next_id())"), 5);
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM shard_blocks WHERE node_id = 151"), 1);
    // The full shard: the coordinator refuses (54000, in the detail), and nothing is granted.
    message = error_of(3, "SELECT shard_17.next_id()");
    EXPECT_NE(message.find("55000"), std::string::npos) << message;
    EXPECT_NE(message.find("no free block"), std::string::npos) << message;
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM shard_blocks WHERE shard = 17 AND node_id = 151"), 0);
    // Other shards are still granted to it.
    EXPECT_EQ(scalar(3, "SELECT shard_id_shard(shard_6.next_id())"), 6);
    run(0, "SELECT drop_shard(17)");
    run(3, "ALTER SYSTEM RESET id_gen.node_id");
    run(3, "SELECT pg_reload_conf()");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
}

namespace {

// "SQLSTATE message" of running `sql` on `node`, "" when it succeeds.
std::string error_text(int node, const std::string& sql) {
    try {
        run(node, sql);
    } catch (const pqxx::sql_error& e) {
        return std::string(e.sqlstate()) + " " + e.what();
    }
    return std::string();
}

void set_node_id(int node, const std::string& value) {
    run(node, value.empty() ? "ALTER SYSTEM RESET id_gen.node_id" : "ALTER SYSTEM SET id_gen.node_id = " + value);
    run(node, "SELECT pg_reload_conf()");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
}

// The command that sends signal `sig` to `target` (a pid, or "-<pid>" for a process group) as
// the server's OS user, through COPY TO PROGRAM. The program reads COPY's row first: a program
// that exits unread fails COPY (broken pipe).
std::string signal_sql(const std::string& sig, const std::string& target) {
    return "COPY (SELECT 1) TO PROGRAM 'cat >/dev/null; /bin/kill -" + sig + " -- " + target + "'";
}

// Crashes server `node`: process `pid` of it (by default the backend of the connection that
// asks) is killed with SIGKILL, so the postmaster stops every process and recovers from its WAL.
// "" when it did.
std::string crash(int node, const std::string& pid = "") {
    // Kept sessions do not outlive a crash: a coordinator's session holds connections to the
    // crashed node too, which Citus would fail on once each.
    idgen::kept::forget_all();
    try {
        pqxx::connection k(dsn(node));
        pqxx::nontransaction ktx(k);
        const std::string target = pid.empty() ? ktx.exec("SELECT pg_backend_pid()")[0][0].as<std::string>() : pid;
        ktx.exec(signal_sql("9", target));
        return "the server survived";
    } catch (const pqxx::broken_connection&) {
        // The connection that asked dies with the server's other processes.
        return "";
    } catch (const std::exception& e) {
        return e.what();
    }
}

// The values of `sql` (one text value each) on nodes 1 to 3, joined with ','.
std::string on_workers(const std::string& sql) {
    std::string r;
    for (int node = 1; node <= 3; ++node) r += (node > 1 ? "," : "") + text(node, sql);
    return r;
}

// What running `sql` on `node` raised, whatever it was (a lost connection included); "" when it
// succeeded. For a thread, which must not let an exception out.
std::string failure_of(int node, const std::string& sql) {
    try {
        run(node, sql);
    } catch (const pqxx::sql_error& e) {
        return std::string(e.sqlstate()) + " " + e.what();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

// Polls `node` until `sql` returns a row (its first value), for up to 20 s; "" if it never does.
std::string wait_for_row(int node, const std::string& sql) {
    for (int k = 0; k < 400; ++k) {
        const pqxx::result r = run(node, sql);
        if (!r.empty()) return r[0][0].c_str();
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return "";
}

// Waits until `node` answers again (after a crash and its recovery).
bool wait_back(int node) {
    for (int k = 0; k < 300; ++k) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        try {
            if (scalar(node, "SELECT 1") == 1) return true;
        } catch (const std::exception&) {}
    }
    return false;
}

// SIGSTOPs every process of server `node` (its postmaster leads a process group of its own),
// from server `from` (same OS user, through COPY TO PROGRAM); SIGCONT when this goes out of scope.
class Frozen {
public:
    Frozen(int node, int from) : from_(from) {
        pid_ = text(node, "SELECT split_part(pg_read_file('postmaster.pid'), E'\\n', 1)");
        try {
            signal("STOP");
        } catch (...) {
            resume();
            throw;
        }
    }
    ~Frozen() { resume(); }
    Frozen(const Frozen&) = delete;
    Frozen& operator=(const Frozen&) = delete;

private:
    void signal(const char* sig) { run(from_, signal_sql(sig, "-" + pid_)); }
    void resume() {
        try {
            signal("CONT");
        } catch (const std::exception& e) {
            std::cerr << "could not resume server " << pid_ << ": " << e.what() << std::endl;
        }
    }
    int from_;
    std::string pid_;
};

// Resets a node's id_gen.node_id when it goes out of scope (a failed assertion included).
struct NodeIdReset {
    int node;
    ~NodeIdReset() {
        try {
            set_node_id(node, "");
        } catch (const std::exception& e) {
            std::cerr << "could not reset id_gen.node_id on node " << node << ": " << e.what() << std::endl;
        }
    }
};

long long ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

// A grant is durable before the worker issues from it, whatever synchronous_commit the database
// says: the coordinator runs with synchronous_commit = off (and a WAL writer that waits 10 s), a
// worker asks for a block, the coordinator crashes at once (a backend killed: every process
// stops and the server recovers from its WAL); the grant is still there after recovery.
TEST(Citus, AGrantSurvivesACoordinatorCrash) {
    run(0, "ALTER DATABASE postgres SET synchronous_commit = off");
    run(0, "ALTER SYSTEM SET wal_writer_delay = '10s'");
    run(0, "SELECT pg_reload_conf()");
    NodeIdReset reset{3};
    set_node_id(3, "153");
    EXPECT_EQ(text(0, "SELECT current_setting('synchronous_commit')"), "off");
    EXPECT_EQ(scalar(3, "SELECT shard_id_shard(shard_6.next_id())"), 6);
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM shard_blocks WHERE shard = 6 AND node_id = 153"), 1);
    EXPECT_EQ(crash(0), "");
    ASSERT_TRUE(wait_back(0)) << "the coordinator did not come back";
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM shard_blocks WHERE shard = 6 AND node_id = 153"), 1)
        << "the coordinator lost a grant a worker issues from";
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM shard_block_history WHERE shard = 6 AND node_id = 153"), 1);
    run(0, "ALTER DATABASE postgres RESET synchronous_commit");
    run(0, "ALTER SYSTEM RESET wal_writer_delay");
    run(0, "SELECT pg_reload_conf()");
}

// A node id whose blocks went to a node that is disabled (still in pg_dist_node) is not granted to
// another node: the grant sees the holder in shard_block_history, not by asking the nodes (a
// disabled node is not asked), and refuses (55000) naming it; shard_cluster_sync() refuses too.
// The spare node is drained first (Citus disables no node that holds a shard's only placement).
TEST(Citus, ANodeIdOfADisabledNodeGoesToNoOtherNode) {
    const std::string group3 =
        text(0, "SELECT groupid::text FROM pg_dist_node WHERE nodeport = " + std::to_string(ports().at(3)));
    const std::string block =
        text(0, "SELECT seq_lo || '/' || seq_bits FROM shard_blocks WHERE shard = 5 AND node_id = 103");
    run(0, "SELECT citus_drain_node(" + node_name(3) + ", shard_transfer_mode => 'block_writes')");
    run(0, "SELECT citus_disable_node(" + node_name(3) + ")");
    // While a node is disabled, create_id_type() and drop_id_type() refuse: it would miss the change.
    const std::string create_message =
        error_text(0, "SELECT create_id_type('cit_never_id', kind => 'ulid', prefix => 'cnever')");
    const std::string drop_message = error_text(0, "SELECT drop_id_type('cit_billing.cit_invoice_id')");
    NodeIdReset reset{2};
    set_node_id(2, "103");
    // Worker 2 holds no copy of node id 103's block of shard 5, so its next_id() asks.
    run(2, "DELETE FROM shard_blocks WHERE shard = 5 AND node_id = 103");
    const auto t0 = std::chrono::steady_clock::now();
    const std::string message = error_text(2, "SELECT shard_5.next_id()");
    const long long ms = ms_since(t0);
    const std::string sync_message = error_text(0, "SELECT shard_cluster_sync()");
    set_node_id(2, "");
    // Citus syncs the other nodes' metadata after citus_disable_node() in the background, and
    // activates no node while a metadata node is out of sync.
    EXPECT_EQ(
        wait_for_row(0,
                     "SELECT 'synced' WHERE NOT EXISTS (SELECT 1 FROM pg_dist_node WHERE isactive AND hasmetadata "
                     "AND NOT metadatasynced)"),
        "synced");
    run(0, "SELECT citus_activate_node(" + node_name(3) + ")");
    run(0, "SELECT citus_set_node_property(" + node_name(3) + ", 'shouldhaveshards', true)");
    const std::string disabled =
        "needs every node of the Citus cluster active; disabled: " + host() + ":" + std::to_string(ports().at(3));
    EXPECT_EQ(create_message.find("55000 ERROR:  create_id_type() " + disabled), 0u) << create_message;
    EXPECT_EQ(drop_message.find("55000 ERROR:  drop_id_type() " + disabled), 0u) << drop_message;
    for (int node = 0; node <= 3; ++node) {
        EXPECT_EQ(scalar(node, "SELECT count(*) FROM pg_type WHERE typname = 'cit_never_id'"), 0) << "node " << node;
        EXPECT_EQ(scalar(node, kCreatedTypeMembers), 2) << "node " << node;
    }
    EXPECT_NE(message.find("55000"), std::string::npos) << message;
    EXPECT_NE(message.find("id_gen.node_id 103 is held by another node of the cluster"), std::string::npos) << message;
    EXPECT_NE(message.find(std::to_string(ports().at(3))), std::string::npos) << message;
    EXPECT_NE(message.find("disabled"), std::string::npos) << message;
    EXPECT_NE(message.find("ALTER SYSTEM SET id_gen.node_id"), std::string::npos) << message;
    EXPECT_NE(sync_message.find("55000"), std::string::npos) << sync_message;
    EXPECT_NE(sync_message.find("id_gen.node_id 103 is held by another node"), std::string::npos) << sync_message;
    EXPECT_LT(ms, 10000);
    EXPECT_EQ(
        text(0,
             "SELECT string_agg(seq_lo || '/' || seq_bits, ',') FROM shard_blocks WHERE shard = 5 AND node_id = 103"),
        block);
    // Back in the cluster, each issues from its own block.
    EXPECT_EQ(scalar(2, "SELECT shard_id_shard(shard_5.next_id())"), 5);
    EXPECT_EQ(scalar(3, "SELECT shard_id_shard(shard_5.next_id())"), 5);
    // Every block of node id 103 is recorded as node 3's.
    EXPECT_EQ(
        scalar(0, "SELECT count(*) FROM shard_block_history WHERE node_id = 103 AND node_group IS DISTINCT FROM " +
                      group3),
        0);
    EXPECT_GT(scalar(0, "SELECT count(*) FROM shard_block_history WHERE node_id = 103"), 0);
}

// One unreachable worker (every process of it stopped) delays no grant: the coordinator checks
// the asking node's id in its own tables and connects to no other node. A hung coordinator fails
// the request within the pull's 5 s connection timeout, with 55000.
TEST(Citus, AnUnreachableWorkerDelaysNoGrant) {
    NodeIdReset reset{3};
    set_node_id(3, "154");
    long long granted_ms = -1;
    {
        Frozen stopped(1, 0);
        const auto t0 = std::chrono::steady_clock::now();
        EXPECT_EQ(error_text(3, "SELECT shard_id_shard(shard_16.next_id())"), "");
        granted_ms = ms_since(t0);
    }
    EXPECT_LT(granted_ms, 10000);
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM shard_blocks WHERE shard = 16 AND node_id = 154"), 1);
    set_node_id(3, "155");
    std::string message;
    long long refused_ms = -1;
    {
        Frozen stopped(0, 1);
        const auto t0 = std::chrono::steady_clock::now();
        message = error_text(3, "SELECT shard_16.next_id()");
        refused_ms = ms_since(t0);
    }
    EXPECT_NE(message.find("55000"), std::string::npos) << message;
    EXPECT_NE(message.find("could not get its block"), std::string::npos) << message;
    EXPECT_LT(refused_ms, 10000);
    ASSERT_TRUE(wait_back(0));
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM shard_blocks WHERE node_id = 155"), 0);
    // Asked again with the coordinator back, it is granted.
    EXPECT_EQ(scalar(3, "SELECT shard_id_shard(shard_16.next_id())"), 16);
    std::cout << "[ note ] grant with a stopped worker: " << granted_ms
              << " ms; refusal with a stopped coordinator: " << refused_ms << " ms" << std::endl;
}

namespace {

using ConnPtr = std::unique_ptr<PGconn, decltype(&PQfinish)>;
using ResPtr = std::unique_ptr<PGresult, decltype(&PQclear)>;

// COPY ... TO STDOUT over libpq (libpqxx 6.4 streams are text-only): the whole stream, or `err`.
std::string copy_out(PGconn* c, const std::string& sql, std::string& err) {
    ResPtr r(PQexec(c, sql.c_str()), &PQclear);
    if (PQresultStatus(r.get()) != PGRES_COPY_OUT) {
        err = PQerrorMessage(c);
        return {};
    }
    std::string data;
    for (;;) {
        char* buf = nullptr;
        const int n = PQgetCopyData(c, &buf, 0);
        if (n > 0) {
            data.append(buf, static_cast<std::size_t>(n));
            PQfreemem(buf);
        } else if (n == -1) {
            break;
        } else {
            err = PQerrorMessage(c);
            return {};
        }
    }
    while (PGresult* fin = PQgetResult(c)) {
        if (PQresultStatus(fin) != PGRES_COMMAND_OK && err.empty()) err = PQresultErrorMessage(fin);
        PQclear(fin);
    }
    return data;
}

// COPY ... FROM STDIN with `data`; "" or the server's error.
std::string copy_in(PGconn* c, const std::string& sql, const std::string& data) {
    ResPtr r(PQexec(c, sql.c_str()), &PQclear);
    if (PQresultStatus(r.get()) != PGRES_COPY_IN) return PQerrorMessage(c);
    for (std::size_t off = 0; off < data.size(); off += 65536) {
        const std::size_t n = std::min<std::size_t>(65536, data.size() - off);
        if (PQputCopyData(c, data.data() + off, static_cast<int>(n)) != 1) return PQerrorMessage(c);
    }
    if (PQputCopyEnd(c, nullptr) != 1) return PQerrorMessage(c);
    std::string err;
    while (PGresult* fin = PQgetResult(c)) {
        if (PQresultStatus(fin) != PGRES_COMMAND_OK && err.empty()) err = PQresultErrorMessage(fin);
        PQclear(fin);
    }
    return err;
}

}  // namespace

// Binary COPY into a distributed table of every id_gen type (the coordinator parses each value
// with the type's receive function and routes it by its hash): every row lands, and COPY out in
// binary gives back the same bytes (rows compared after sorting by the text of the key).
TEST(Citus, BinaryCopyOfEveryType) {
    struct T {
        const char* type;
        const char* gen;
    };
    const std::vector<T> types = {
        {"ulid", "gen_ulid()"},
        {"uuid", "gen_uuidv7()"},
        {"snowflake", "gen_snowflake()"},
        {"base36_64", "gen_snowflake()::base36_64"},
        {"base36_128", "gen_ulid()::base36_128"},
        {"base62_64", "gen_snowflake()::base62_64"},
        {"base62_128", "gen_ulid()::base62_128"},
        {"ksuid", "gen_ksuid()"},
        {"objectid", "gen_objectid()"},
        {"rsxid", "gen_xid()"},
    };
    // Every base type of the extension is in the list (not the types create_id_type() made, members on a Citus cluster).
    std::string listed;
    for (const auto& t : types) listed += std::string(listed.empty() ? "" : ",") + "'" + t.type + "'";
    EXPECT_EQ(text(0,
                   "SELECT coalesce(string_agg(t.typname, ','), '') FROM pg_type t JOIN pg_depend d ON d.classid = "
                   "'pg_type'::regclass "
                   "AND d.objid = t.oid AND d.deptype = 'e' JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = "
                   "'id_gen' "
                   "WHERE t.typtype = 'b' AND t.typcategory <> 'A' AND t.typname NOT IN (" +
                       listed +
                       ") "
                       "AND (SELECT kind FROM id_type_describe(t.oid::regtype)) IS NULL"),
              "");
    ConnPtr c(PQconnectdb(dsn(0).c_str()), &PQfinish);
    ASSERT_EQ(PQstatus(c.get()), CONNECTION_OK) << PQerrorMessage(c.get());
    long long total = 0;
    for (const auto& t : types) {
        const std::string table = std::string("bc_") + t.type;
        run(0, "CREATE TABLE " + table + "_src (id " + t.type + ", n int)");
        run(0, "INSERT INTO " + table + "_src SELECT " + t.gen + ", g FROM generate_series(1, 3000) g");
        run(0, "CREATE TABLE " + table + " (id " + t.type + " PRIMARY KEY, n int)");
        run(0, "SELECT create_distributed_table('" + table + "', 'id', shard_count => 4, colocate_with => 'none')");
        std::string err;
        const std::string data = copy_out(
            c.get(), "COPY (SELECT id, n FROM " + table + "_src ORDER BY id::text) TO STDOUT (FORMAT binary)", err);
        ASSERT_EQ(err, "") << t.type;
        EXPECT_EQ(copy_in(c.get(), "COPY " + table + " FROM STDIN (FORMAT binary)", data), "") << t.type;
        EXPECT_EQ(scalar(0, "SELECT count(DISTINCT id) FROM " + table), 3000) << t.type;
        EXPECT_EQ(
            scalar(0, "SELECT count(DISTINCT nodeport) FROM citus_shards WHERE table_name = '" + table + "'::regclass"),
            3)
            << t.type;
        // The same bytes back, in the same order.
        const std::string back = copy_out(
            c.get(), "COPY (SELECT id, n FROM " + table + " ORDER BY id::text) TO STDOUT (FORMAT binary)", err);
        ASSERT_EQ(err, "") << t.type;
        EXPECT_TRUE(back == data) << t.type << ": binary COPY out differs from what went in";
        // Rows are where Citus looks for them: a router query (one shard, from the value's hash)
        // finds each of a sample.
        {
            pqxx::connection rc(dsn(0));
            pqxx::nontransaction rtx(rc);
            int found = 0;
            const auto sample = rtx.exec("SELECT id::text FROM " + table + "_src ORDER BY n LIMIT 40");
            for (const auto& row : sample)
                found += rtx.exec("SELECT count(*) FROM " + table +
                                  " WHERE id = " + rtx.quote(row[0].as<std::string>()) + "::" + t.type)[0][0]
                             .as<int>();
            EXPECT_EQ(found, 40) << t.type;
        }
        total += scalar(0, "SELECT count(*) FROM " + table);
    }
    std::cout << "[ count ] binary COPY: " << types.size() << " types, " << total
              << " rows, every value distinct and back byte for byte" << std::endl;
}

// A worker crashes and restarts (a backend killed with SIGKILL: the postmaster resets shared
// memory and every connection) while inserts with next_id() and gen_snowflake() defaults run on
// the coordinator and on both workers. Batches that fail while it is down (connection errors,
// listed) are retried; once it is back every insert succeeds, it issues above every ID it issued
// before the crash, and no ID repeats.
TEST(Citus, WorkerRestartedMidRun) {
    run(0,
        "CREATE TABLE rs (id bigint DEFAULT shard_6.next_id(), sf snowflake DEFAULT gen_snowflake(), payload int, "
        "origin int)");
    run(0, "SELECT create_distributed_table('rs', 'payload', shard_count => 8, colocate_with => 'none')");
    const long long before_max =
        scalar(2, "SELECT max(x) FROM (SELECT shard_6.next_id() AS x FROM generate_series(1, 20000)) s");
    std::atomic<bool> stop{false}, restarting{false};
    std::atomic<long long> rows{0};
    std::atomic<int> retried{0}, errors{0}, in_doubt{0};
    std::mutex mu;
    std::vector<std::string> messages, retry_messages;
    auto writer = [&](int node) {
        std::unique_ptr<pqxx::connection> c;
        while (!stop.load()) {
            try {
                if (!c) c = std::make_unique<pqxx::connection>(dsn(node));
                pqxx::work tx(*c);
                tx.exec("INSERT INTO rs (payload, origin) SELECT g, " + std::to_string(node) +
                        " FROM generate_series(1, 40) g");
                tx.commit();
                rows += 40;
            } catch (const std::exception& e) {
                c.reset();
                std::lock_guard<std::mutex> lock(mu);
                if (restarting.load()) {
                    ++retried;
                    // A batch whose commit lost its connection may have committed all the same
                    // (Citus says so, or libpqxx raises in_doubt_error): counted apart.
                    const std::string what = e.what();
                    if (dynamic_cast<const pqxx::in_doubt_error*>(&e) != nullptr ||
                        what.find("no way to tell whether the transaction succeeded") != std::string::npos)
                        ++in_doubt;
                    if (retry_messages.size() < 4) retry_messages.push_back(e.what());
                } else {
                    ++errors;
                    if (messages.size() < 3) messages.push_back(e.what());
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
            }
        }
    };
    std::vector<std::thread> writers;
    for (int node : {0, 1, 2}) writers.emplace_back(writer, node);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    restarting = true;
    // SIGKILL one backend of worker 2; back when it answers again.
    EXPECT_EQ(crash(2), "");
    ASSERT_TRUE(wait_back(2)) << "worker 2 did not come back";
    // Citus's cached connections to it may still fail once each: give them a moment.
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    restarting = false;
    const long long rows_at_restart = rows.load();
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    stop = true;
    for (auto& t : writers) t.join();
    // A batch that Citus committed on the coordinator while worker 2 went down can still be
    // prepared there (its COMMIT PREPARED failed): Citus's recovery, which its maintenance daemon
    // runs every minute, commits it. Run it now, and again while one is left: recovery passes over
    // a transaction whose coordinator backend has not finished yet (one still waiting on its
    // connection to the restarted worker, up to citus.node_connection_timeout, 30 s): up to 60 s.
    for (int k = 0; k < 300; ++k) {
        run(0, "SELECT recover_prepared_transactions()");
        if (scalar(2, "SELECT count(*) FROM pg_prepared_xacts") == 0) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    EXPECT_EQ(scalar(2, "SELECT count(*) FROM pg_prepared_xacts"), 0)
        << "coordinator backends: "
        << text(0,
                "SELECT coalesce(string_agg(pid || ' ' || state || ' ' || coalesce(wait_event, '-') || ' ' || "
                "left(query, 60), ' | '), "
                "'none') FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()");
    EXPECT_EQ(errors.load(), 0) << (messages.empty() ? "" : messages[0]);
    EXPECT_GT(retried.load(), 0) << "no insert failed: did worker 2 restart?";
    EXPECT_GT(rows.load(), rows_at_restart) << "no insert after the restart";
    // Every batch that reported success is there, and at most the in-doubt ones besides; no ID repeats.
    const long long stored = scalar(0, "SELECT count(*) FROM rs");
    EXPECT_GE(stored, rows.load());
    EXPECT_LE(stored, rows.load() + 40LL * in_doubt.load()) << in_doubt.load() << " batches in doubt";
    EXPECT_EQ(stored % 40, 0);
    EXPECT_EQ(scalar(0, "SELECT count(DISTINCT id) FROM rs"), stored);
    EXPECT_EQ(scalar(0, "SELECT count(DISTINCT sf) FROM rs"), stored);
    EXPECT_GT(scalar(2, "SELECT shard_6.next_id()"), before_max);
    std::string listed;
    for (const auto& m : retry_messages) listed += " | " + m.substr(0, m.find('\n'));
    std::cout << "[ count ] rs: " << stored << " rows, as many distinct shard IDs and snowflakes; " << retried.load()
              << " batches retried while worker 2 restarted, " << in_doubt.load() << " of them in doubt" << listed
              << std::endl;
}

// drop_id_type() on the coordinator drops the type and all it made on every node, the one added
// later included, in one transaction; a rollback leaves it everywhere.
TEST(Citus, DropIdTypeReachesEveryNode) {
    run(0, "DROP TABLE cit_billing.invoices, cit_accounts, cit_by_domain, cit_by_composite, cit_tx");
    run(0, "DROP TYPE cit_account_pair");
    run(0, "SELECT drop_id_type('cit_tx_id')");
    run(0, "DROP DOMAIN cit_account_domain");
    run(0, "BEGIN; SELECT drop_id_type('cit_account_id'); ROLLBACK");
    for (int node = 0; node <= 3; ++node) EXPECT_EQ(scalar(node, kCreatedTypeMembers), 2) << "node " << node;
    run(0, "SELECT drop_id_type('cit_account_id')");
    run(0, "SELECT drop_id_type('cit_billing.cit_invoice_id')");
    // A type as 0.2.0 made one on a Citus coordinator, or as one was made before Citus was
    // installed: not a member, on the coordinator alone. drop_id_type() drops it there only.
    run(0, "SELECT id_type_create('cit_local_id', 'ulid', 'cloc', 'prefixed', 'public')");
    EXPECT_EQ(scalar(0,
                     "SELECT count(*) FROM id_type_objects('cit_local_id') o JOIN pg_depend d ON d.classid = o.classid "
                     "AND d.objid = o.objid AND d.deptype = 'e'"),
              0);
    for (int node = 1; node <= 3; ++node)
        EXPECT_EQ(scalar(node, "SELECT count(*) FROM pg_type WHERE typname = 'cit_local_id'"), 0) << "node " << node;
    run(0, "SELECT drop_id_type('cit_local_id')");
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM pg_type WHERE typname = 'cit_local_id'"), 0);
    // id_type_distribute() makes such a type what create_id_type() makes now: on every node, a
    // member of id_gen, able to key a distributed table; the workers insert with its generator.
    // As 0.2.0's create_id_type() left it under Citus's DDL propagation: the two functions that do
    // not depend on the type (its TYPMOD_IN and sortsupport functions) copied to every worker.
    run(0, "SELECT id_type_create('cit_old_id', 'snowflake', 'cold', 'prefixed', 'public')");
    const std::string modin = text(0, "SELECT prosrc FROM pg_proc WHERE proname = 'cit_old_id_typmod_in'");
    for (int node = 1; node <= 3; ++node)
        run(node,
            "SET citus.enable_ddl_propagation = off; "
            "CREATE FUNCTION public.cit_old_id_typmod_in(cstring[]) RETURNS int4 LANGUAGE sql IMMUTABLE STRICT "
            "PARALLEL SAFE AS $b$" +
                modin +
                "$b$; CREATE FUNCTION public.cit_old_id_sortsupport(internal) RETURNS void LANGUAGE internal "
                "IMMUTABLE STRICT PARALLEL SAFE AS 'btint8sortsupport'");
    // And one in a schema the workers do not have (made before Citus, or with its propagation off).
    run(0,
        "SET citus.enable_ddl_propagation = off; CREATE SCHEMA cit_old_schema; "
        "SELECT id_type_create('cit_older_id', 'ulid', 'colder', 'typeid', 'cit_old_schema')");
    EXPECT_EQ(text(0, "SELECT id_type_distribute('cit_old_schema.cit_older_id')::text"), "cit_old_schema.cit_older_id");
    for (int node = 1; node <= 3; ++node)
        EXPECT_EQ(text(node, "SELECT gen_ulid() < cit_old_schema.gen_cit_older_id()::ulid"), "t") << "node " << node;
    run(0, "SELECT drop_id_type('cit_old_schema.cit_older_id')");
    EXPECT_EQ(text(0, "SELECT id_type_distribute('cit_old_id')::text"), "cit_old_id");
    EXPECT_EQ(text(0, "SELECT id_type_distribute('cit_old_id')::text"), "cit_old_id");  // a member already: as it is
    for (int node = 0; node <= 3; ++node)
        EXPECT_EQ(
            scalar(node,
                   "SELECT count(*) FROM id_type_objects('cit_old_id') o JOIN pg_depend d ON d.classid = o.classid "
                   "AND d.objid = o.objid AND d.deptype = 'e'"),
            38)
            << "node " << node;
    run(0, "CREATE TABLE cit_old (id cit_old_id PRIMARY KEY DEFAULT gen_cit_old_id(), v int)");
    run(0, "SELECT create_distributed_table('cit_old', 'id')");
    for (int node = 0; node <= 3; ++node) run(node, "INSERT INTO cit_old (v) SELECT g FROM generate_series(1, 100) g");
    EXPECT_EQ(scalar(0, "SELECT count(DISTINCT id) FROM cit_old"), 400);
    EXPECT_EQ(sqlstate_of(1, "SELECT id_type_distribute('cit_old_id')"), "55000");
    EXPECT_EQ(sqlstate_of(0, "SELECT id_type_distribute('ulid')"), "42809");
    run(0, "DROP TABLE cit_old");
    run(0, "SELECT drop_id_type('cit_old_id')");
    for (int node = 0; node <= 3; ++node) {
        EXPECT_EQ(
            scalar(node,
                   "SELECT count(*) FROM pg_type WHERE typname LIKE 'cit\\_%\\_id' OR typname LIKE '\\_cit\\_%\\_id'"),
            0)
            << "node " << node;
        EXPECT_EQ(scalar(node,
                         "SELECT count(*) FROM pg_proc WHERE proname LIKE '%cit\\_account\\_id%' OR proname LIKE "
                         "'%cit\\_invoice\\_id%'"),
                  0)
            << "node " << node;
        EXPECT_EQ(scalar(node, "SELECT count(*) FROM pg_opfamily WHERE opfname LIKE 'cit\\_%'"), 0) << "node " << node;
        EXPECT_EQ(scalar(node, "SELECT count(*) FROM prefix_registry WHERE prefix IN ('cacct', 'cinv')"), 0)
            << "node " << node;
        // Nothing of id_gen's own went with them.
        EXPECT_EQ(text(node, "SELECT (gen_ulid() IS NOT NULL)::text"), "true") << "node " << node;
    }
}

// rename_shard and drop_shard reach every node.
TEST(Citus, RenameAndDropReachEveryNode) {
    run(0, "SELECT create_shard(9)");
    run(0, "SELECT rename_shard(9, 'shard_nine')");
    for (int node = 1; node <= 3; ++node) {
        EXPECT_EQ(text(node, "SELECT schema_name::text FROM shard_registry WHERE shard = 9"), "shard_nine")
            << "node " << node;
        EXPECT_EQ(scalar(node, "SELECT count(*) FROM shard_blocks WHERE shard = 9"), 4) << "node " << node;
        EXPECT_EQ(scalar(node, "SELECT shard_id_shard(shard_nine.next_id())"), 9) << "node " << node;
    }
    run(0, "SELECT drop_shard(9)");
    for (int node = 1; node <= 3; ++node) {
        EXPECT_EQ(scalar(node, "SELECT count(*) FROM shard_registry WHERE shard = 9"), 0) << "node " << node;
        EXPECT_EQ(scalar(node, "SELECT count(*) FROM shard_blocks WHERE shard = 9"), 0) << "node " << node;
    }
}

// Citus colocates only distribution columns of one type: ulid with uuid is refused although the
// hashes agree; ulid with ulid works.
TEST(Citus, ColocationNeedsTheSameType) {
    run(0, "CREATE TABLE co_uuid (id uuid PRIMARY KEY DEFAULT gen_uuidv7())");
    run(0, "SELECT create_distributed_table('co_uuid', 'id')");
    run(0, "CREATE TABLE co_ulid (id ulid PRIMARY KEY DEFAULT gen_ulid())");
    EXPECT_NE(sqlstate_of(0, "SELECT create_distributed_table('co_ulid', 'id', colocate_with => 'co_uuid')"), "");
    run(0, "CREATE TABLE co_sf (id snowflake)");
    run(0, "SELECT create_distributed_table('co_sf', 'id')");
    run(0, "CREATE TABLE co_bigint (id bigint)");
    EXPECT_NE(sqlstate_of(0, "SELECT create_distributed_table('co_bigint', 'id', colocate_with => 'co_sf')"), "");
    run(0, "SELECT create_distributed_table('co_ulid', 'id', colocate_with => 't_ulid')");
    EXPECT_EQ(scalar(0,
                     "SELECT count(DISTINCT colocationid) FROM pg_dist_partition WHERE logicalrelid IN "
                     "('co_ulid'::regclass, 't_ulid'::regclass)"),
              1);
}

// Block grants: sizes are powers of two; a shard whose sequence field is full refuses (54000); a
// shard that had no blocks (made before Citus) gets blocks valid only after the run-ahead allowance.
TEST(Citus, BlockGrants) {
    EXPECT_EQ(sqlstate_of(0, "SELECT shard_cluster_sync(ids_per_ms => 3)"), "22023");
    run(0, "SELECT create_shard(12)");
    // As if shard 12 had been made before Citus: no blocks anywhere, none ever granted.
    run(0, "DELETE FROM shard_blocks WHERE shard = 12; DELETE FROM shard_block_history WHERE shard = 12");
    // 4 nodes x 512 do not fit in 1,024: refused, and nothing changes.
    EXPECT_EQ(sqlstate_of(0, "SELECT shard_cluster_sync(ids_per_ms => 512)"), "54000");
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM shard_blocks WHERE shard = 12"), 0);
    EXPECT_EQ(scalar(0, "SELECT shard_cluster_sync(ids_per_ms => 256)"), 4);
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM shard_blocks WHERE shard = 12 AND seq_bits = 8"), 4);
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM shard_blocks WHERE shard = 12 AND valid_from > now()"), 4);
    EXPECT_EQ(sqlstate_of(0, "SELECT shard_12.next_id()"), "55000");
    EXPECT_EQ(sqlstate_of(1, "SELECT shard_12.next_id()"), "55000");
    const long long wait_ms = scalar(0,
                                     "SELECT ceil(extract(epoch FROM max(valid_from) - clock_timestamp()) * "
                                     "1000)::bigint FROM shard_blocks WHERE shard = 12");
    EXPECT_LE(wait_ms, 2500);
    std::this_thread::sleep_for(std::chrono::milliseconds(std::max(0LL, wait_ms) + 100));
    next_ids_everywhere({0, 1, 2, 3}, "shard_12.next_id()", 20000);
}

// The grant of issue 17: a shard made before Citus (registry on the coordinator only, no blocks)
// issues from its whole sequence field on the coordinator, in one statement that goes on for
// three seconds, when shard_cluster_sync() grants it blocks. The grant must wait for that
// transaction (before 0.3.0 it did not, and the statement went on issuing from the whole field
// after the blocks became valid); then the coordinator and a worker issue from their blocks.
// Every ID of every session is distinct.
TEST(Citus, GrantWhileTheCoordinatorIssues) {
    run(0, "SELECT create_shard(13)");
    run(0, "DELETE FROM shard_blocks WHERE shard = 13; DELETE FROM shard_block_history WHERE shard = 13");
    for (int node = 1; node <= 3; ++node) run(node, "DELETE FROM shard_registry WHERE shard = 13");
    EXPECT_EQ(scalar(1, "SELECT count(*) FROM shard_registry WHERE shard = 13"), 0);
    run(0, "CREATE TABLE g13_whole (id bigint); CREATE TABLE g13_block (id bigint, node int)");

    pqxx::connection a(dsn(0));
    pqxx::nontransaction ta(a);
    ta.exec("BEGIN");
    ta.exec("INSERT INTO g13_whole SELECT shard_13.next_id() FROM generate_series(1, 1000)");
    std::atomic<bool> a_done{false};
    bool synced_before_a_ended = false;
    std::string sync_error;
    std::thread sync([&] {
        try {
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            run(0, "SELECT shard_cluster_sync()");
            synced_before_a_ended = !a_done.load();
        } catch (const std::exception& e) {
            sync_error = e.what();
        }
    });
    std::string a_error;
    try {
        ta.exec(
            "INSERT INTO g13_whole SELECT shard_13.next_id() FROM (WITH RECURSIVE t(i) AS (SELECT 1 UNION ALL "
            "SELECT i + 1 FROM t WHERE clock_timestamp() < statement_timestamp() + interval '3 s') SELECT i FROM t) s");
        a_done = true;
        ta.exec("COMMIT");
    } catch (const std::exception& e) {
        a_done = true;
        a_error = e.what();
    }
    sync.join();
    ASSERT_EQ(a_error, "");
    ASSERT_EQ(sync_error, "");
    EXPECT_FALSE(synced_before_a_ended) << "the grant committed while the coordinator issued from the whole field";
    // Once the blocks are valid, the coordinator and worker 1 issue from them.
    const long long wait_ms =
        scalar(0,
               "SELECT greatest(0, ceil(extract(epoch FROM max(valid_from) - clock_timestamp()) * 1000))::bigint "
               "FROM shard_blocks WHERE shard = 13");
    std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms + 100));
    auto ids = next_ids_everywhere({0, 1}, "shard_13.next_id()", 100000);
    for (std::size_t n = 0; n < ids.size(); ++n) {
        std::string values;
        for (long long id : ids[n]) values += (values.empty() ? "" : ",") + std::to_string(id);
        run(0, "INSERT INTO g13_block SELECT unnest('{" + values + "}'::bigint[]), " + std::to_string(n));
    }
    const long long whole = scalar(0, "SELECT count(*) FROM g13_whole");
    EXPECT_GT(whole, 1000);
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM g13_block"), 200000);
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM (SELECT id FROM g13_whole INTERSECT SELECT id FROM g13_block) d"), 0);
    EXPECT_EQ(
        scalar(0, "SELECT count(DISTINCT id) FROM (SELECT id FROM g13_whole UNION ALL SELECT id FROM g13_block) u"),
        whole + 200000);
    std::cout << "[ count ] grant under traffic: " << whole
              << " IDs from the whole field, 200000 from blocks, 0 repeated" << std::endl;
}

// drop_shard() then create_shard() with the same number, on the same nodes: the new blocks are
// valid at once, and each node gets back the block it had, so it issues with the generator state
// it had, above every ID it issued before the drop (run ahead of the clock by a burst here).
TEST(Citus, DropAndCreateAgainContinuesAboveEarlierIds) {
    run(0, "SELECT create_shard(14)");
    const std::string blocks_sql =
        "SELECT string_agg(node_id || ':' || seq_lo || '/' || seq_bits, ',' ORDER BY node_id) "
        "FROM shard_blocks WHERE shard = 14";
    const std::string before_blocks = text(0, blocks_sql);
    auto before = next_ids_everywhere({0, 1, 2, 3}, "shard_14.next_id()", 30000);
    run(0, "SELECT drop_shard(14)");
    run(0, "SELECT create_shard(14)");
    EXPECT_EQ(text(0, blocks_sql), before_blocks);
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM shard_blocks WHERE shard = 14 AND valid_from > now()"), 0);
    auto after = next_ids_everywhere({0, 1, 2, 3}, "shard_14.next_id()", 30000);
    std::vector<long long> all;
    for (std::size_t k = 0; k < before.size(); ++k) {
        EXPECT_GT(after[k].front(), before[k].back()) << "node " << k;
        all.insert(all.end(), before[k].begin(), before[k].end());
        all.insert(all.end(), after[k].begin(), after[k].end());
    }
    std::sort(all.begin(), all.end());
    EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << "an ID repeated across drop_shard/create_shard";
}

// The labels the README's cluster reference gives.
TEST(Citus, ClusterFunctionLabels) {
    EXPECT_EQ(text(0,
                   "SELECT string_agg(proname || ':' || provolatile::text || proparallel::text, ',' ORDER BY proname) "
                   "FROM pg_proc "
                   "WHERE proname IN ('cluster_node_ids', 'check_cluster_node_ids', 'shard_cluster_sync', "
                   "'shard_cluster_apply', "
                   "'shard_cluster_grant', 'shard_cluster_pull') "
                   "AND pronamespace = (SELECT extnamespace FROM pg_extension WHERE extname = 'id_gen')"),
              "check_cluster_node_ids:vu,cluster_node_ids:vu,shard_cluster_apply:vu,"
              "shard_cluster_grant:vu,shard_cluster_pull:vu,shard_cluster_sync:vu");
    EXPECT_EQ(
        text(0,
             "SELECT string_agg(proname || ':' || provolatile::text || proparallel::text, ',' ORDER BY proname) FROM "
             "pg_proc "
             "WHERE proname IN ('shard_cluster_grant_blocks', 'shard_cluster_block_width', 'shard_cluster_snapshot', "
             "'shard_cluster_check', 'shard_cluster_check_coordinator', 'shard_cluster_check_holder', "
             "'shard_cluster_durable', "
             "'shard_cluster_check_caller', 'shard_cluster_send', 'shard_cluster_request_timer') "
             "AND pronamespace = (SELECT extnamespace FROM pg_extension WHERE extname = 'id_gen')"),
        "shard_cluster_block_width:is,shard_cluster_check:vu,shard_cluster_check_caller:vu,shard_cluster_check_"
        "coordinator:vu,"
        "shard_cluster_check_holder:vu,shard_cluster_durable:vu,shard_cluster_grant_blocks:vu,shard_cluster_request_"
        "timer:vu,"
        "shard_cluster_send:vu,shard_cluster_snapshot:ss");
    EXPECT_EQ(sqlstate_of(0, "SELECT shard_cluster_block_width(3, 4)"), "22023");
    EXPECT_EQ(scalar(0, "SELECT shard_cluster_block_width(NULL, 3)"), 128);
    EXPECT_EQ(scalar(0, "SELECT shard_cluster_block_width(NULL, 100)"), 4);
    // next_id() asks for its grant as the function's owner: SECURITY DEFINER, and only that one.
    EXPECT_EQ(text(0,
                   "SELECT string_agg(proname, ',' ORDER BY proname) FROM pg_proc WHERE prosecdef "
                   "AND pronamespace = (SELECT extnamespace FROM pg_extension WHERE extname = 'id_gen')"),
              "shard_cluster_pull");
    // Not for PUBLIC; superuser only where the README says so.
    run(0, "DROP ROLE IF EXISTS idgen_plain; CREATE ROLE idgen_plain LOGIN");
    EXPECT_EQ(scalar(0,
                     "SELECT count(*) FROM pg_proc WHERE proname IN ('cluster_node_ids', 'check_cluster_node_ids', "
                     "'shard_cluster_sync', 'shard_cluster_apply', 'shard_cluster_grant', 'shard_cluster_pull', "
                     "'shard_cluster_grant_blocks', 'shard_cluster_snapshot', 'shard_cluster_check', "
                     "'shard_cluster_block_width', "
                     "'shard_cluster_check_coordinator', 'shard_cluster_check_holder', 'shard_cluster_durable', "
                     "'shard_cluster_check_caller', 'shard_cluster_send', 'shard_cluster_request_timer') "
                     "AND has_function_privilege('idgen_plain', oid, 'EXECUTE')"),
              0);
    EXPECT_EQ(
        scalar(
            0,
            "SELECT count(*) FROM shard_blocks WHERE NOT has_table_privilege('idgen_plain', 'shard_blocks', 'SELECT')"),
        0);
    EXPECT_EQ(text(0,
                   "SELECT has_table_privilege('idgen_plain', 'shard_block_history', 'SELECT')::text || "
                   "has_table_privilege('idgen_plain', 'shard_block_history', 'INSERT')::text"),
              "truefalse");
    run(0, "DROP ROLE idgen_plain");
}

// A registry change reaches the workers inside the coordinator's transaction, under Citus's
// two-phase commit: no worker sees it before the coordinator commits, and a rollback (a failed
// create_shard(), or the caller's) leaves it on no node.
TEST(Citus, ChangesCommitEverywhereOrNowhere) {
    const std::string count21 = "SELECT count(*)::text FROM shard_registry WHERE shard = 21";
    {
        pqxx::connection c(dsn(0));
        pqxx::work tx(c);
        tx.exec("SELECT create_shard(21)");
        EXPECT_EQ(on_workers(count21), "0,0,0") << "a worker sees a change the coordinator has not committed";
        tx.abort();
    }
    EXPECT_EQ(text(0, count21), "0");
    EXPECT_EQ(on_workers(count21), "0,0,0") << "a change rolled back on the coordinator stayed on a worker";
    EXPECT_EQ(on_workers("SELECT count(*)::text FROM pg_prepared_xacts"), "0,0,0");
    run(0, "SELECT create_shard(21)");
    EXPECT_EQ(on_workers("SELECT count(*)::text FROM shard_blocks WHERE shard = 21"), "4,4,4");
    const std::string name21 =
        "SELECT coalesce((SELECT schema_name::text FROM shard_registry WHERE shard = 21), 'none')";
    for (const std::string change : {"SELECT rename_shard(21, 'shard_twentyone')", "SELECT drop_shard(21)"}) {
        pqxx::connection c(dsn(0));
        pqxx::work tx(c);
        tx.exec(change);
        tx.abort();
        EXPECT_EQ(on_workers(name21), "shard_21,shard_21,shard_21") << change;
    }
    run(0, "SELECT rename_shard(21, 'shard_twentyone')");
    EXPECT_EQ(on_workers(name21), "shard_twentyone,shard_twentyone,shard_twentyone");
    run(0, "SELECT drop_shard(21)");
    EXPECT_EQ(on_workers(name21), "none,none,none");
}

// A worker killed in the middle of a change: create_shard() waits for the worker's apply (a
// session there holds its table's lock), the worker crashes (its processes killed, it recovers
// and comes back), the change fails on the coordinator and is on no node, the worker back
// included. Made again with every node up, it is everywhere, and next_id() on every node issues
// IDs from its own block, none repeated.
TEST(Citus, AWorkerKilledMidChangeLeavesItNowhere) {
    std::string change_error = "not run", waiting;
    {
        pqxx::connection holder(dsn(1));
        pqxx::work hold(holder);
        hold.exec("LOCK TABLE shard_registry IN ACCESS EXCLUSIVE MODE");
        std::thread change([&] { change_error = failure_of(0, "SELECT create_shard(22)"); });
        waiting = wait_for_row(1,
                               "SELECT pid::text FROM pg_stat_activity WHERE query LIKE '%shard_cluster_apply%' "
                               "AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()");
        if (!waiting.empty()) {
            EXPECT_EQ(text(0, "SELECT count(*)::text FROM shard_registry WHERE shard = 22"), "0");
            EXPECT_EQ(text(2, "SELECT count(*)::text FROM shard_registry WHERE shard = 22"), "0");
            EXPECT_EQ(crash(1), "");
        } else {
            hold.abort();
        }
        change.join();
    }
    ASSERT_FALSE(waiting.empty()) << "create_shard() never reached worker 1";
    EXPECT_NE(change_error, "") << "create_shard() succeeded without worker 1";
    ASSERT_TRUE(wait_back(1)) << "worker 1 did not come back";
    const std::string count22 = "SELECT count(*)::text FROM shard_registry WHERE shard = 22";
    EXPECT_EQ(text(0, count22), "0");
    EXPECT_EQ(on_workers(count22), "0,0,0");
    EXPECT_EQ(on_workers("SELECT count(*)::text FROM pg_prepared_xacts"), "0,0,0");
    run(0, "SELECT create_shard(22)");
    EXPECT_EQ(on_workers("SELECT count(*)::text FROM shard_blocks WHERE shard = 22"), "4,4,4");
    const auto ids = next_ids_everywhere({0, 1, 2, 3}, "shard_22.next_id()", 500);
    const std::vector<int> node_ids = {100, 101, 102, 103};
    for (std::size_t k = 0; k < ids.size(); ++k) {
        const std::string block =
            "(SELECT seq_lo || ',' || seq_lo + (1 << seq_bits) - 1 FROM shard_blocks WHERE shard = 22 AND node_id = " +
            std::to_string(node_ids[k]) + ")";
        for (long long id : {ids[k].front(), ids[k].back()})
            EXPECT_EQ(
                scalar(0, "SELECT count(*) FROM (SELECT split_part(" + block + ", ',', 1)::int AS lo, split_part(" +
                              block + ", ',', 2)::int AS hi) b WHERE shard_id_sequence(" + std::to_string(id) +
                              ") BETWEEN lo AND hi"),
                1)
                << "node " << node_ids[k] << " issued outside its block";
    }
    run(0, "SELECT drop_shard(22)");
}

// The coordinator crashes between PREPARE and COMMIT PREPARED: its commit is on disk (it then
// waits for a synchronous standby that never answers), every worker holds the change prepared,
// none shows it. After the coordinator's restart, Citus's recovery (recover_prepared_transactions(),
// which its maintenance daemon runs every minute) commits it on every worker.
TEST(Citus, ACoordinatorCrashBetweenPrepareAndCommitCommitsEverywhere) {
    run(0, "SELECT create_shard(25)");  // another shard, which every node holds a block of
    run(0, "ALTER SYSTEM SET synchronous_standby_names = 'nobody'");
    run(0, "SELECT pg_reload_conf()");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    std::string change_error = "not run";
    std::thread change([&] { change_error = failure_of(0, "SELECT create_shard(23)"); });
    const std::string waiting = wait_for_row(
        0, "SELECT pid::text FROM pg_stat_activity WHERE wait_event = 'SyncRep' AND query LIKE '%create_shard(23)%'");
    std::string prepared, visible, blocked;
    if (!waiting.empty()) {
        prepared = on_workers("SELECT count(*)::text FROM pg_prepared_xacts");
        visible = on_workers("SELECT count(*)::text FROM shard_registry WHERE shard = 23");
        // The prepared change holds the locks of the shards whose rows it changes only (docs/citus.md):
        // next_id() of another shard there does not wait for it (before 0.3.0, of every shard did).
        blocked = failure_of(1, "SET statement_timeout = '2s'; SELECT shard_25.next_id()");
        EXPECT_EQ(crash(0), "");
    }
    bool back = true;
    if (waiting.empty()) {
        run(0, "ALTER SYSTEM RESET synchronous_standby_names");
        run(0, "SELECT pg_reload_conf()");
    } else {
        back = wait_back(0);
        if (back) {
            run(0, "ALTER SYSTEM RESET synchronous_standby_names");
            run(0, "SELECT pg_reload_conf()");
        }
    }
    change.join();
    ASSERT_FALSE(waiting.empty()) << "create_shard() never waited for its commit: " << change_error;
    ASSERT_TRUE(back) << "the coordinator did not come back";
    EXPECT_EQ(prepared, "1,1,1");
    EXPECT_EQ(visible, "0,0,0");
    EXPECT_EQ(text(0, "SELECT count(*)::text FROM shard_registry WHERE shard = 23"), "1");
    run(0, "SELECT recover_prepared_transactions()");
    EXPECT_EQ(on_workers("SELECT count(*)::text FROM pg_prepared_xacts"), "0,0,0");
    EXPECT_EQ(on_workers("SELECT count(*)::text FROM shard_blocks WHERE shard = 23"), "4,4,4");
    EXPECT_EQ(blocked, "");
    EXPECT_EQ(failure_of(1, "SET statement_timeout = '2s'; SELECT shard_25.next_id()"), "");  // after recovery
    run(0, "SELECT drop_shard(23)");
    run(0, "SELECT drop_shard(25)");
}

// shard_cluster_sync() and, in the same transaction, a query whose tasks call next_id() on the
// workers over several connections each, on a worker that lacks its block (so those tasks ask the
// coordinator): the sync leaves the rest of the transaction on one connection per worker, the one
// that holds its copy, so no task waits on the transaction's own locks. Before, Citus cancelled it
// as a distributed deadlock.
TEST(Citus, SyncThenParallelNextIdInOneTransaction) {
    run(0, "SELECT create_shard(27)");
    run(0, "CREATE TABLE sync_src (payload int)");
    run(0, "SELECT create_distributed_table('sync_src', 'payload', shard_count => 16, colocate_with => 'none')");
    run(0, "INSERT INTO sync_src SELECT g FROM generate_series(1, 200) g");
    run(1, "DELETE FROM shard_blocks WHERE shard = 27 AND node_id = " + text(1, "SHOW id_gen.node_id"));
    std::string failure;
    long long ids = -1, distinct_ids = -1;
    try {
        pqxx::connection c(dsn(0));
        pqxx::work tx(c);
        tx.exec("SET LOCAL citus.force_max_query_parallelization = on");
        tx.exec("SELECT shard_cluster_sync()");
        const pqxx::row r =
            tx.exec1("SELECT count(*), count(DISTINCT x) FROM (SELECT shard_27.next_id() AS x FROM sync_src) q");
        ids = r[0].as<long long>();
        distinct_ids = r[1].as<long long>();
        tx.commit();
    } catch (const std::exception& e) {
        failure = e.what();
    }
    EXPECT_EQ(failure, "");
    EXPECT_EQ(ids, 200);
    EXPECT_EQ(distinct_ids, 200);
    run(0, "DROP TABLE sync_src");
    run(0, "SELECT drop_shard(27)");
}

// A coordinator that accepts the pull's connection and then hangs (its backend stopped while it
// waits for a lock) fails the pull within the 10 s bound, with 55000 saying so, whatever the
// caller's statement_timeout (40 s here); asked again, the node is granted.
TEST(Citus, AHungCoordinatorFailsThePullWithin10s) {
    run(0, "SELECT create_shard(24)");
    NodeIdReset reset{3};
    set_node_id(3, "156");
    std::string message, stopped;
    long long ms = -1;
    {
        pqxx::connection holder(dsn(0));
        pqxx::work hold(holder);
        hold.exec("LOCK TABLE shard_blocks IN SHARE MODE");
        std::thread asker([&] {
            const auto t0 = std::chrono::steady_clock::now();
            message = failure_of(3, "SET statement_timeout = '40s'; SELECT shard_24.next_id()");
            ms = ms_since(t0);
        });
        stopped = wait_for_row(0,
                               "SELECT pid::text FROM pg_stat_activity WHERE query LIKE '%shard_cluster_grant(156,%' "
                               "AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()");
        if (!stopped.empty()) run(0, signal_sql("STOP", stopped));
        hold.abort();
        asker.join();
        if (!stopped.empty()) run(0, signal_sql("CONT", stopped));
    }
    ASSERT_FALSE(stopped.empty()) << "the grant never waited on the coordinator: " << message;
    EXPECT_NE(message.find("55000"), std::string::npos) << message;
    EXPECT_NE(message.find("could not get its block"), std::string::npos) << message;
    EXPECT_NE(message.find("did not answer within 10 s"), std::string::npos) << message;
    EXPECT_GE(ms, 9000);
    EXPECT_LT(ms, 15000);
    EXPECT_EQ(scalar(3, "SELECT shard_id_shard(shard_24.next_id())"), 24);
    // drop_shard() grants every node's current id a block of every shard: node 3's own id first.
    set_node_id(3, "");
    run(0, "SELECT drop_shard(24)");
    std::cout << "[ note ] pull refused " << ms << " ms after it asked a hung coordinator" << std::endl;
}

// A worker whose pg_dist_node has no coordinator cannot ask for its grant and says so (55000,
// with what to run); nothing is granted.
TEST(Citus, APullWithoutTheCoordinatorInPgDistNode) {
    NodeIdReset reset{2};
    set_node_id(2, "157");
    std::string message;
    {
        pqxx::connection c(dsn(2));
        pqxx::work tx(c);
        tx.exec("DELETE FROM pg_dist_node WHERE groupid = 0");
        try {
            tx.exec("SELECT shard_6.next_id()");
        } catch (const pqxx::sql_error& e) {
            message = std::string(e.sqlstate()) + " " + e.what();
        }
        tx.abort();
    }
    EXPECT_NE(message.find("55000"), std::string::npos) << message;
    EXPECT_NE(message.find("the coordinator is not in pg_dist_node"), std::string::npos) << message;
    EXPECT_NE(message.find("citus_set_coordinator_host"), std::string::npos) << message;
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM shard_blocks WHERE node_id = 157"), 0);
    EXPECT_EQ(scalar(2, "SELECT count(*) FROM pg_dist_node WHERE groupid = 0"), 1);
}

// What a node does when it cannot get the coordinator's created types (id_type_cluster_pull(),
// which the install script runs on a node Citus adds): without a coordinator in pg_dist_node it
// has nothing to ask and makes none; a coordinator it cannot reach, one that does not answer
// within 10 s, and a type whose spec function create_id_type() did not write fail it with 55000.
TEST(Citus, ATypePullThatCannotAskTheCoordinator) {
    auto pull_on_2 = [](const std::string& change) {
        pqxx::connection c(dsn(2));
        pqxx::work tx(c);
        if (!change.empty()) tx.exec(change);
        std::string result;
        try {
            result = "made " + tx.exec("SELECT id_type_cluster_pull()")[0][0].as<std::string>();
        } catch (const pqxx::sql_error& e) {
            result = std::string(e.sqlstate()) + " " + e.what();
        }
        tx.abort();
        return result;
    };
    run(0, "SELECT create_id_type('cit_pull_id', kind => 'uuidv7', prefix => 'cpull')");
    // Every type is there already: nothing to make.
    EXPECT_EQ(pull_on_2(""), "made 0");
    EXPECT_EQ(pull_on_2("DELETE FROM pg_dist_node WHERE groupid = 0"), "made 0");
    // Made again on a node that lacks it (dropped here by hand, in the transaction).
    EXPECT_EQ(pull_on_2("SET citus.enable_ddl_propagation = off; SELECT id_type_drop('cit_pull_id', false)"), "made 1");
    std::string m = pull_on_2("UPDATE pg_dist_node SET nodeport = 1 WHERE groupid = 0");
    EXPECT_EQ(m.find("55000 ERROR:  id_gen could not get the coordinator's ID types (create_id_type()) from " + host() +
                     ":1"),
              0u)
        << m;
    // A coordinator that does not answer: a session there holds pg_depend, which the question reads.
    {
        pqxx::connection holder(dsn(0));
        pqxx::work hold(holder);
        hold.exec("LOCK TABLE pg_catalog.pg_depend IN ACCESS EXCLUSIVE MODE");
        const auto t0 = std::chrono::steady_clock::now();
        m = pull_on_2("");
        const long long ms = ms_since(t0);
        hold.abort();
        EXPECT_NE(m.find("55000"), std::string::npos) << m;
        EXPECT_NE(m.find("did not answer within 10 s"), std::string::npos) << m;
        EXPECT_GE(ms, 9000);
        EXPECT_LT(ms, 15000);
    }
    const std::string body = text(0, "SELECT prosrc FROM pg_proc WHERE proname = 'cit_pull_id_typmod_in'");
    run(0,
        "SET citus.enable_ddl_propagation = off; CREATE OR REPLACE FUNCTION cit_pull_id_typmod_in(cstring[]) RETURNS "
        "int4 "
        "LANGUAGE sql IMMUTABLE STRICT AS 'SELECT -1'");
    m = pull_on_2("");
    run(0,
        "SET citus.enable_ddl_propagation = off; CREATE OR REPLACE FUNCTION cit_pull_id_typmod_in(cstring[]) RETURNS "
        "int4 "
        "LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $b$" +
            body + "$b$");
    EXPECT_EQ(m.find("55000 ERROR:  the coordinator's ID type public.cit_pull_id has a TYPMOD_IN function "
                     "create_id_type() did not write"),
              0u)
        << m;
    run(0, "SELECT drop_id_type('cit_pull_id')");
    for (int node = 0; node <= 3; ++node)
        EXPECT_EQ(scalar(node, "SELECT count(*) FROM pg_type WHERE typname = 'cit_pull_id'"), 0) << "node " << node;
}

// A node whose install cannot ask the coordinator for its created types fails the install (and
// so its addition): going on would leave it without types the cluster's tables may need. A
// scratch database on worker 2 that Citus's metadata calls a worker of a coordinator at port 1
// (nothing listens there).
TEST(Citus, AnInstallThatCannotAskTheCoordinatorFails) {
    // DDL on a worker: with Citus's propagation off, as Citus itself sends it.
    const std::string local = "SET citus.enable_ddl_propagation = off";
    auto on_worker_2 = [&](const std::string& sql) {
        pqxx::connection c(dsn(2));
        pqxx::nontransaction tx(c);
        tx.exec(local);
        tx.exec(sql);
    };
    on_worker_2("DROP DATABASE IF EXISTS cit_scratch WITH (FORCE)");
    on_worker_2("CREATE DATABASE cit_scratch");
    std::string message, extensions;
    {
        pqxx::connection c("host=" + host() + " port=" + std::to_string(ports().at(2)) +
                           " user=postgres dbname=cit_scratch");
        pqxx::nontransaction tx(c);
        tx.exec(local);
        tx.exec("CREATE EXTENSION citus");
        tx.exec("UPDATE pg_dist_local_group SET groupid = 7");
        tx.exec(
            "INSERT INTO pg_dist_node (nodeid, groupid, nodename, nodeport, noderole, isactive) "
            "VALUES (1, 0, '" +
            host() + "', 1, 'primary', true)");
        try {
            tx.exec("CREATE EXTENSION id_gen");
        } catch (const pqxx::sql_error& e) {
            message = std::string(e.sqlstate()) + " " + e.what();
        }
        extensions = tx.exec("SELECT count(*) FROM pg_extension WHERE extname = 'id_gen'")[0][0].as<std::string>();
    }
    on_worker_2("DROP DATABASE cit_scratch WITH (FORCE)");
    EXPECT_EQ(message.find("55000 ERROR:  id_gen could not get the coordinator's ID types (create_id_type()) from " +
                           host() + ":1"),
              0u)
        << message;
    EXPECT_EQ(extensions, "0");
}

// The grant refuses what it does not know, as an answer the pull raises: a node id out of range,
// a Citus group not in pg_dist_node; a schema that is no shard gets the registry and no block.
TEST(Citus, AGrantRefusesWhatItDoesNotKnow) {
    const std::string group1 =
        text(0, "SELECT groupid::text FROM pg_dist_node WHERE nodeport = " + std::to_string(ports().at(1)));
    auto refusal = [](const std::string& args) {
        return text(0,
                    "SELECT coalesce((g -> 'error' ->> 'sqlstate') || ' ' || (g -> 'error' ->> 'message'), 'granted') "
                    "FROM shard_cluster_grant(" +
                        args + ") g");
    };
    EXPECT_EQ(refusal("70000, 'shard_6', " + group1), "55000 id_gen.node_id 70000 is not a node id");
    EXPECT_EQ(refusal("158, 'shard_6', 9999"), "55000 the node asking (Citus group 9999) is not a node of the cluster");
    // A node id the node at group 1's address does not have: its identity is not confirmed there.
    EXPECT_EQ(refusal("158, 'no_such_schema', " + group1),
              "55000 could not confirm the identity of the node asking at " + host() + ":" +
                  std::to_string(ports().at(1)) + ", the address of Citus group " + group1);
    EXPECT_EQ(refusal("101, 'no_such_schema', " + group1), "granted");
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM shard_blocks WHERE node_id IN (70000, 158)"), 0);
    EXPECT_EQ(scalar(0, "SELECT jsonb_array_length(shard_cluster_grant(101, 'no_such_schema', " + group1 +
                            ") -> 'registry')"),
              scalar(0, "SELECT count(*) FROM shard_registry"));
}

// The copy a worker keeps of its pulled grant: kept when its tables' lock is free within 50 ms,
// else dropped (next_id() still issues from the answer at once); the next call asks again and
// gets the same block, which is kept then.
TEST(Citus, APulledGrantIsKeptWhenTheLockIsFree) {
    NodeIdReset reset{3};
    set_node_id(3, "159");
    long long first = 0, ms = -1;
    std::string kept_while_locked;
    {
        pqxx::connection holder(dsn(3));
        pqxx::work hold(holder);
        hold.exec("LOCK TABLE shard_blocks IN SHARE MODE");
        const auto t0 = std::chrono::steady_clock::now();
        first = scalar(3, "SET statement_timeout = '20s'; SELECT shard_5.next_id()");
        ms = ms_since(t0);
        kept_while_locked = hold.exec("SELECT count(*)::text FROM shard_blocks WHERE node_id = 159")[0][0].c_str();
        hold.abort();
    }
    EXPECT_LT(ms, 5000);
    EXPECT_EQ(kept_while_locked, "0");
    const std::string granted =
        text(0, "SELECT seq_lo || '/' || seq_bits FROM shard_blocks WHERE shard = 5 AND node_id = 159");
    EXPECT_EQ(scalar(3, "SELECT count(*) FROM shard_blocks WHERE node_id = 159"), 0);
    const long long second = scalar(3, "SELECT shard_5.next_id()");
    EXPECT_EQ(text(3,
                   "SELECT coalesce((SELECT seq_lo || '/' || seq_bits FROM shard_blocks WHERE shard = 5 AND node_id = "
                   "159), 'none')"),
              granted);
    EXPECT_GT(second, first);
    for (long long id : {first, second})
        EXPECT_EQ(
            scalar(0, "SELECT count(*) FROM shard_blocks WHERE shard = 5 AND node_id = 159 AND shard_id_sequence(" +
                          std::to_string(id) + ") BETWEEN seq_lo AND seq_lo + (1 << seq_bits) - 1"),
            1)
            << id;
}

// Every ID in the cluster, once: no duplicate in any table, and the counts for the note.
TEST(Citus, NoDuplicateAnywhere) {
    struct T {
        const char* table;
        std::string node_expr;  // the node that issued a row's ID, as SQL over the row
    };
    const std::vector<T> tables = {
        {"t_ulid", "node"},
        {"t_uuidv7", "node"},
        {"t_snowflake", "snowflake_node(id)"},
        {"t_base36_64", "snowflake_node(id::bigint::snowflake)"},
        {"t_base36_128", "node"},
        {"ev", "snowflake_node(id)"},
        {"mv", "NULL::int"},
        {"shard_5.items", issuing_node(5)},
        {"sh", issuing_node(6)},
        {"rs", issuing_node(6)},
    };
    long long total = 0;
    for (const auto& t : tables) {
        const long long rows = scalar(0, std::string("SELECT count(*) FROM ") + t.table);
        const long long distinct = scalar(0, std::string("SELECT count(DISTINCT id) FROM ") + t.table);
        EXPECT_EQ(rows, distinct) << t.table;
        total += rows;
        std::string per_node;
        for (const auto& r :
             run(0, std::string("SELECT coalesce(n::text, '-'), count(*), count(DISTINCT id) FROM (SELECT ") +
                        t.node_expr + " AS n, id FROM " + t.table + ") x GROUP BY n ORDER BY n"))
            per_node +=
                " node " + r[0].as<std::string>() + ": " + r[1].as<std::string>() + "/" + r[2].as<std::string>();
        std::cout << "[ count ] " << t.table << ": " << rows << " rows, " << distinct << " distinct IDs;" << per_node
                  << std::endl;
    }
    // Across tables of one kind too: bigint shard IDs of shards 5 and 6 and the snowflakes.
    EXPECT_EQ(
        scalar(0,
               "SELECT count(*) - count(DISTINCT id) FROM (SELECT id FROM shard_5.items UNION ALL SELECT id FROM sh "
               "UNION ALL SELECT id FROM rs UNION ALL SELECT sf::bigint FROM rs "
               "UNION ALL SELECT id::bigint FROM ev UNION ALL SELECT id::bigint FROM t_snowflake) x"),
        0);
    EXPECT_EQ(scalar(0,
                     "SELECT count(*) - count(DISTINCT id) FROM (SELECT id::uuid AS id FROM t_ulid UNION ALL SELECT id "
                     "FROM t_uuidv7 "
                     "UNION ALL SELECT id::uuid FROM t_base36_128 UNION ALL SELECT id::uuid FROM mv) x"),
              0);
    std::cout << "[ count ] all tables: " << total << " rows" << std::endl;
}

// Last, as it drops every distributed table: id_gen dropped and created again in one transaction
// on the coordinator (Citus does both on every worker). A worker's install script asks the
// coordinator for its created types while the coordinator's session is dropping them: it is given
// none, so no worker keeps a type the coordinator no longer has.
TEST(Citus, ReinstallInOneTransactionLeavesNoStaleType) {
    run(0, "SELECT create_id_type('cit_last_id', kind => 'ulid', prefix => 'clast')");
    for (int node = 0; node <= 3; ++node)
        EXPECT_EQ(scalar(node, "SELECT count(*) FROM pg_type WHERE typname = 'cit_last_id'"), 1) << "node " << node;
    run(0,
        "DO $$ DECLARE r record; BEGIN FOR r IN SELECT table_name FROM citus_tables LOOP "
        "EXECUTE format('DROP TABLE IF EXISTS %s CASCADE', r.table_name); END LOOP; END $$");
    run(0, "BEGIN; DROP EXTENSION id_gen CASCADE; CREATE EXTENSION id_gen; COMMIT");
    for (int node = 0; node <= 3; ++node) {
        EXPECT_EQ(scalar(node, "SELECT count(*) FROM pg_type WHERE typname = 'cit_last_id'"), 0) << "node " << node;
        EXPECT_EQ(scalar(node, "SELECT count(*) FROM pg_extension WHERE extname = 'id_gen'"), 1) << "node " << node;
    }
    run(0, "SELECT create_id_type('cit_last_id', kind => 'ulid', prefix => 'clast')");
    for (int node = 0; node <= 3; ++node)
        EXPECT_EQ(scalar(node, "SELECT count(*) FROM pg_type WHERE typname = 'cit_last_id'"), 1) << "node " << node;
}
