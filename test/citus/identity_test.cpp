// id_gen on a Citus cluster: a node's identity is the cluster's (issue 29). These run after
// citus_test.cpp's tests (gtest runs them in link order, and CMake lists this file after it), on
// the same cluster: a coordinator and three workers, id_gen.node_id 100 to 103, with id_gen made
// again by the last test there (so every shard here is new, and no distributed table is left).
// Each test restores the node ids it changes. A copy of worker 2 (pg_basebackup) is started on
// the port after the spare's.
//   IDGEN_CITUS_HOST   the nodes' address (127.0.0.1)
//   IDGEN_CITUS_PORTS  "coordinator worker1 worker2 spare"
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <pqxx/pqxx>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "../integration/kept_sessions.h"

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

std::string dsn_port(int port) {
    return "host=" + host() + " port=" + std::to_string(port) + " user=postgres dbname=postgres";
}
std::string dsn(int i) { return dsn_port(ports().at(i)); }

// On a session kept for the next statement (kept_sessions.h).
pqxx::result run(int node, const std::string& sql) { return idgen::kept::run(dsn(node), sql); }

long long scalar(int node, const std::string& sql) { return run(node, sql)[0][0].as<long long>(); }
std::string text(int node, const std::string& sql) { return run(node, sql)[0][0].as<std::string>(); }
std::string node_name(int i) { return "'" + host() + "', " + std::to_string(ports().at(i)); }

// "SQLSTATE message" of running `sql` over `c`, "" when it succeeds.
std::string error_on(pqxx::connection& c, const std::string& sql) {
    try {
        pqxx::nontransaction tx(c);
        tx.exec(sql);
    } catch (const pqxx::sql_error& e) {
        return std::string(e.sqlstate()) + " " + e.what();
    }
    return "";
}
std::string error_text(int node, const std::string& sql) {
    pqxx::connection c(dsn(node));
    return error_on(c, sql);
}

void set_node_id(int node, const std::string& value) {
    run(node, value.empty() ? "ALTER SYSTEM RESET id_gen.node_id" : "ALTER SYSTEM SET id_gen.node_id = " + value);
    run(node, "SELECT pg_reload_conf()");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
}

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

// `n` next_id() calls of `fn` over `c`, in order; appends them to `ids`. "" or the failure.
std::string issue(pqxx::connection& c, const std::string& fn, int n, std::vector<long long>& ids) {
    try {
        pqxx::nontransaction tx(c);
        for (const auto& r : tx.exec("SELECT " + fn + " FROM generate_series(1, " + std::to_string(n) + ")"))
            ids.push_back(r[0].as<long long>());
    } catch (const pqxx::sql_error& e) {
        return std::string(e.sqlstate()) + " " + e.what();
    }
    return "";
}
std::string issue(int node, const std::string& fn, int n, std::vector<long long>& ids) {
    pqxx::connection c(dsn(node));
    return issue(c, fn, n, ids);
}

long long repeated(std::vector<long long> all) {
    std::sort(all.begin(), all.end());
    return static_cast<long long>(all.size()) -
           static_cast<long long>(std::unique(all.begin(), all.end()) - all.begin());
}

std::string group_of(int node) {
    return text(0, "SELECT groupid::text FROM pg_dist_node WHERE nodeport = " + std::to_string(ports().at(node)));
}

// The command that runs `shell` as the server's OS user, through COPY TO PROGRAM (the program
// reads COPY's row first: a program that exits unread fails COPY).
std::string shell_sql(const std::string& shell) {
    pqxx::connection c(dsn(0));
    return "COPY (SELECT 1) TO PROGRAM " + c.quote("cat >/dev/null; " + shell);
}

// Waits until Citus has synced the metadata of every active node (after a disable or removal).
void wait_metadata_synced() {
    for (int k = 0; k < 400; ++k) {
        if (scalar(0, "SELECT count(*) FROM pg_dist_node WHERE isactive AND hasmetadata AND NOT metadatasynced") == 0)
            return;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ADD_FAILURE() << "metadata not synced after 20 s";
}

// Node 3 is a node of the cluster (citus_test.cpp's AddNodeIsReadyUnderRebalance adds it; a test
// of this file run on its own adds it here).
void ensure_node3() {
    if (scalar(0, "SELECT count(*) FROM pg_dist_node WHERE nodeport = " + std::to_string(ports().at(3))) == 0)
        run(0, "SELECT citus_add_node(" + node_name(3) + ")");
}

}  // namespace

// Finding 1: a worker renumbered to another node's id (ALTER SYSTEM + reload) holds that node's
// block in its copy of shard_blocks, granted to the other node's Citus group: it asks the
// coordinator, which refuses (55000, naming the node that holds the id), and issues nothing.
// Before 0.3.0 it issued from the other node's block at once, the same IDs.
TEST(CitusIdentity, AWorkerRenumberedToAnotherNodesIdRefuses) {
    ensure_node3();
    run(0, "SELECT create_shard(60)");
    std::vector<long long> ids;
    for (int node = 0; node <= 3; ++node)
        ASSERT_EQ(issue(node, "shard_60.next_id()", 2000, ids), "") << "node " << node;
    NodeIdReset reset{2};
    set_node_id(2, "101");
    // Worker 1 and the renumbered worker 2 at once.
    std::string w1_error, w2_error;
    std::vector<long long> w1_ids, w2_ids;
    std::thread t1([&] { w1_error = issue(1, "shard_60.next_id()", 20000, w1_ids); });
    std::thread t2([&] { w2_error = issue(2, "shard_60.next_id()", 20000, w2_ids); });
    t1.join();
    t2.join();
    EXPECT_EQ(w1_error, "");
    EXPECT_EQ(w2_error.rfind("55000", 0), 0u) << w2_error;
    EXPECT_NE(w2_error.find("id_gen.node_id 101 is held by another node of the cluster"), std::string::npos)
        << w2_error;
    EXPECT_NE(w2_error.find(std::to_string(ports().at(1))), std::string::npos) << w2_error;
    EXPECT_TRUE(w2_ids.empty());
    // The refused request recorded no identity on worker 2 (the node id is checked first).
    EXPECT_EQ(scalar(2, "SELECT count(*) FROM shard_node_identity WHERE node_id = 101"), 0);
    ids.insert(ids.end(), w1_ids.begin(), w1_ids.end());
    ids.insert(ids.end(), w2_ids.begin(), w2_ids.end());
    EXPECT_EQ(repeated(ids), 0);
    // The coordinator renumbered to a worker's id asks no one: refused at once, naming both groups.
    {
        run(0, "ALTER SYSTEM SET id_gen.node_id = 101");
        run(0, "SELECT pg_reload_conf()");
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        const std::string c_error = error_text(0, "SELECT shard_60.next_id()");
        run(0, "ALTER SYSTEM RESET id_gen.node_id");
        run(0, "SELECT pg_reload_conf()");
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        EXPECT_EQ(c_error.rfind("55000", 0), 0u) << c_error;
        EXPECT_NE(c_error.find("id_gen.node_id 101 of this node (Citus group 0) is another node's"), std::string::npos)
            << c_error;
        EXPECT_NE(c_error.find("granted to Citus group " + group_of(1)), std::string::npos) << c_error;
    }
    std::cout << "[ count ] renumbered worker: " << ids.size() << " IDs on 4 nodes, 0 from the renumbered one, "
              << repeated(ids) << " repeated" << std::endl;
}

// Finding 1: a worker renumbered to a disabled node's id, then the node activated again: the
// renumbered worker is refused while the node is disabled and after, and the node issues from its
// own block; nothing repeats.
TEST(CitusIdentity, AWorkerRenumberedToADisabledNodesIdRefuses) {
    ensure_node3();
    run(0, "SELECT create_shard(61)");
    std::vector<long long> ids;
    for (int node = 0; node <= 3; ++node)
        ASSERT_EQ(issue(node, "shard_61.next_id()", 2000, ids), "") << "node " << node;
    run(0, "SELECT citus_disable_node(" + node_name(3) + ")");
    NodeIdReset reset{2};
    set_node_id(2, "103");
    const std::string disabled_error = issue(2, "shard_61.next_id()", 1000, ids);
    wait_metadata_synced();
    run(0, "SELECT citus_activate_node(" + node_name(3) + ")");
    std::string w2_error, w3_error;
    std::vector<long long> w2_ids, w3_ids;
    std::thread t2([&] { w2_error = issue(2, "shard_61.next_id()", 20000, w2_ids); });
    std::thread t3([&] { w3_error = issue(3, "shard_61.next_id()", 20000, w3_ids); });
    t2.join();
    t3.join();
    EXPECT_EQ(disabled_error.rfind("55000", 0), 0u) << disabled_error;
    EXPECT_NE(disabled_error.find("id_gen.node_id 103 is held by another node of the cluster"), std::string::npos)
        << disabled_error;
    EXPECT_NE(disabled_error.find("disabled"), std::string::npos) << disabled_error;
    EXPECT_EQ(w2_error.rfind("55000", 0), 0u) << w2_error;
    EXPECT_EQ(w3_error, "");
    ids.insert(ids.end(), w2_ids.begin(), w2_ids.end());
    ids.insert(ids.end(), w3_ids.begin(), w3_ids.end());
    EXPECT_EQ(w3_ids.size(), 20000u);
    EXPECT_TRUE(w2_ids.empty());
    EXPECT_EQ(repeated(ids), 0);
    std::cout << "[ count ] disabled node's id: " << ids.size() << " IDs, " << repeated(ids) << " repeated"
              << std::endl;
}

// Finding 1: a copy of worker 2 made with pg_basebackup and started as a server of its own (same
// group, blocks, settings and generator state) refuses (55000): its identity is confirmed only by
// the coordinator, over a connection to worker 2's address, and pg_basebackup does not copy the
// unlogged table that holds it. Worker 2 goes on issuing. Then a switchover to the copy
// (citus_update_node()) with worker 2 stopped: the copy issues, and worker 2 started again refuses.
TEST(CitusIdentity, ACopyOfAWorkerRefuses) {
    ensure_node3();
    run(0, "SELECT create_shard(62)");
    std::vector<long long> ids;
    ASSERT_EQ(issue(2, "shard_62.next_id()", 5000, ids), "");
    const std::string bindir = text(2, "SELECT setting FROM pg_config WHERE name = 'BINDIR'");
    const std::string dir = text(2, "SHOW data_directory") + "_copy";
    const int port = ports().at(3) + 1;
    auto sh = [&](const std::string& cmd) { run(2, shell_sql(cmd)); };
    // Quoted for the shell with single quotes (the paths have none).
    const std::string d = "'" + dir + "'";
    sh("rm -rf " + d + "; '" + bindir + "/pg_basebackup' -h " + host() + " -p " + std::to_string(ports().at(2)) +
       " -U postgres -D " + d + " -c fast -X stream >/dev/null 2>&1");
    sh("'" + bindir + "/pg_ctl' -D " + d + " -l " + d + "/copy.log -w -t 60 -o '-p " + std::to_string(port) +
       "' start >/dev/null 2>&1");
    std::string copy_error;
    std::vector<long long> copy_ids;
    try {
        pqxx::connection copy(dsn_port(port));
        copy_error = issue(copy, "shard_62.next_id()", 5000, copy_ids);
        // A second session of the copy, and a pushed-down path alike: every call refuses.
        pqxx::connection copy2(dsn_port(port));
        const std::string again = issue(copy2, "shard_62.next_id()", 10, copy_ids);
        EXPECT_EQ(again.rfind("55000", 0), 0u) << again;
    } catch (const std::exception& e) {
        copy_error = std::string("could not use the copy: ") + e.what();
    }
    EXPECT_EQ(copy_error.rfind("55000", 0), 0u) << copy_error;
    EXPECT_NE(copy_error.find("is not confirmed by the coordinator"), std::string::npos) << copy_error;
    EXPECT_TRUE(copy_ids.empty());
    // A switchover: worker 2 stopped, and the copy put in its place in pg_dist_node
    // (citus_update_node()). The copy is confirmed and issues; worker 2, started again, is not the
    // node at the registered address any more and refuses. Then back: the copy stopped, worker 2
    // registered again, and it issues.
    const std::string nodeid =
        text(0, "SELECT nodeid::text FROM pg_dist_node WHERE nodeport = " + std::to_string(ports().at(2)));
    const std::string w2 = "'" + text(2, "SHOW data_directory") + "'";
    auto sh0 = [&](const std::string& cmd) { run(0, shell_sql(cmd)); };
    std::string switched_error, old_error, back_error;
    std::vector<long long> switched_ids, old_ids;
    sh0("'" + bindir + "/pg_ctl' -D " + w2 + " -m fast -w -t 60 stop >/dev/null 2>&1");
    run(0, "SELECT citus_update_node(" + nodeid + ", '" + host() + "', " + std::to_string(port) + ")");
    wait_metadata_synced();
    try {
        pqxx::connection copy(dsn_port(port));
        switched_error = issue(copy, "shard_62.next_id()", 100, switched_ids);
        sh0("'" + bindir + "/pg_ctl' -D " + w2 + " -l " + w2 + "/restart.log -w -t 60 start >/dev/null 2>&1");
        old_error = issue(2, "shard_62.next_id()", 100, old_ids);
    } catch (const std::exception& e) {
        old_error = std::string("could not switch over: ") + e.what();
    }
    sh("'" + bindir + "/pg_ctl' -D " + d + " -m fast -w stop >/dev/null 2>&1; rm -rf " + d);
    run(0, "SELECT citus_update_node(" + nodeid + ", '" + host() + "', " + std::to_string(ports().at(2)) + ")");
    wait_metadata_synced();
    back_error = issue(2, "shard_62.next_id()", 5000, ids);
    EXPECT_EQ(switched_error, "");
    EXPECT_EQ(switched_ids.size(), 100u);
    EXPECT_EQ(old_error.rfind("55000", 0), 0u) << old_error;
    EXPECT_NE(old_error.find("is not confirmed by the coordinator"), std::string::npos) << old_error;
    EXPECT_TRUE(old_ids.empty());
    EXPECT_EQ(back_error, "");
    ids.insert(ids.end(), copy_ids.begin(), copy_ids.end());
    ids.insert(ids.end(), switched_ids.begin(), switched_ids.end());
    ids.insert(ids.end(), old_ids.begin(), old_ids.end());
    EXPECT_EQ(repeated(ids), 0);
    std::cout << "[ count ] copy of a worker: " << copy_ids.size() << " IDs issued by the copy before the switchover, "
              << switched_ids.size() << " after, " << old_ids.size() << " by the old worker started again, "
              << repeated(ids) << " repeated" << std::endl;
}

// A cold copy of a cleanly stopped worker's data directory (cp -a) keeps the rows of
// shard_node_identity (a clean stop does not empty an unlogged table): a row counts only for the
// run of the server that the coordinator confirmed (its started_at is that postmaster's start
// time). The copy, started on a port of its own, refuses (55000) and issues nothing; worker 2,
// started again, asks the coordinator once and issues. Before, both issued the same IDs.
TEST(CitusIdentity, AColdCopyOfAStoppedWorkerRefuses) {
    ensure_node3();
    run(0, "SELECT create_shard(67)");
    std::vector<long long> ids;
    ASSERT_EQ(issue(2, "shard_67.next_id()", 5000, ids), "");
    const std::string bindir = text(2, "SELECT setting FROM pg_config WHERE name = 'BINDIR'");
    const std::string data = text(2, "SHOW data_directory");
    const int port = ports().at(3) + 1;
    auto sh = [&](const std::string& cmd) { run(0, shell_sql(cmd)); };
    const std::string d = "'" + data + "'", c = "'" + data + "_cold'";
    sh("'" + bindir + "/pg_ctl' -D " + d + " -m fast -w -t 60 stop >/dev/null 2>&1; rm -rf " + c + "; cp -a " + d +
       " " + c);
    sh("'" + bindir + "/pg_ctl' -D " + c + " -l " + c + "/copy.log -w -t 60 -o '-p " + std::to_string(port) +
       "' start >/dev/null 2>&1");
    sh("'" + bindir + "/pg_ctl' -D " + d + " -l " + d + "/restart.log -w -t 60 start >/dev/null 2>&1");
    std::string copy_error, original_error;
    std::vector<long long> copy_ids, original_ids;
    try {
        pqxx::connection copy(dsn_port(port));
        pqxx::connection original(dsn(2));
        std::thread t([&] { original_error = issue(original, "shard_67.next_id()", 20000, original_ids); });
        copy_error = issue(copy, "shard_67.next_id()", 20000, copy_ids);
        t.join();
    } catch (const std::exception& e) {
        copy_error = std::string("could not use the copy: ") + e.what();
    }
    sh("'" + bindir + "/pg_ctl' -D " + c + " -m immediate -w stop >/dev/null 2>&1; rm -rf " + c);
    EXPECT_EQ(copy_error.rfind("55000", 0), 0u) << copy_error;
    EXPECT_NE(copy_error.find("is not confirmed by the coordinator"), std::string::npos) << copy_error;
    EXPECT_TRUE(copy_ids.empty());
    EXPECT_EQ(original_error, "");
    EXPECT_EQ(original_ids.size(), 20000u);
    ids.insert(ids.end(), copy_ids.begin(), copy_ids.end());
    ids.insert(ids.end(), original_ids.begin(), original_ids.end());
    EXPECT_EQ(repeated(ids), 0);
    std::cout << "[ count ] cold copy of a stopped worker: " << copy_ids.size() << " IDs issued by the copy, "
              << original_ids.size() << " by the worker, " << repeated(ids) << " repeated" << std::endl;
}

// 0.2.0's SQL (no node_group column; here dropped in a transaction that is rolled back) with this
// library: a worker issues from the block of its node id, as 0.2.0 did (it refused every block
// shard before).
TEST(CitusIdentity, AWorkerOnZeroTwoSqlIssuesFromItsBlock) {
    pqxx::connection c(dsn(1));
    const std::string e = error_on(c,
                                   "BEGIN; ALTER TABLE shard_blocks DROP COLUMN node_group; "
                                   "SELECT count(DISTINCT shard_60.next_id()) FROM generate_series(1, 1000); ROLLBACK");
    EXPECT_EQ(e, "");
}

// Finding 3: a grant conflicts with no transaction that issues. A coordinator transaction that
// issues and then runs a pushed-down INSERT ... SELECT whose tasks on the workers need blocks they
// do not hold commits (before 0.3.0 the grant waited for that very transaction and failed after
// 5 s); and while a coordinator transaction holds a shard open, a worker's grant of that shard
// and new next_id() calls on the coordinator do not wait.
TEST(CitusIdentity, AGrantWaitsForNoIssuingTransaction) {
    ensure_node3();
    run(0, "SELECT create_shard(63)");
    run(0, "CREATE TABLE t63 (id bigint DEFAULT shard_63.next_id(), k int)");
    run(0, "SELECT create_distributed_table('t63', 'k', shard_count => 4)");
    run(0, "INSERT INTO t63 (k) SELECT g FROM generate_series(1, 200) g");
    // As if the workers had never issued shard 63: no blocks of theirs anywhere.
    run(0, "DELETE FROM shard_blocks WHERE shard = 63 AND node_id <> 100");
    for (int node = 1; node <= 3; ++node) run(node, "DELETE FROM shard_blocks WHERE shard = 63 AND node_id <> 100");
    const auto t0 = std::chrono::steady_clock::now();
    pqxx::connection c(dsn(0));
    const std::string one_tx =
        error_on(c, "BEGIN; SELECT shard_63.next_id(); INSERT INTO t63 (k) SELECT k FROM t63; COMMIT");
    const long long one_tx_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(one_tx, "");
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM t63"), 400);
    EXPECT_EQ(scalar(0, "SELECT count(DISTINCT id) FROM t63"), 400);
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM shard_blocks WHERE shard = 63"), 4);

    // A coordinator transaction holds shard 63 open; worker 1, renumbered, asks for a block of it.
    NodeIdReset reset{1};
    set_node_id(1, "143");
    pqxx::connection open(dsn(0));
    pqxx::nontransaction otx(open);
    otx.exec("BEGIN");
    otx.exec("SELECT shard_63.next_id()");
    std::vector<long long> w1_ids, c_ids;
    std::string grant_error, c_error;
    long long grant_ms = 0, c_ms = 0;
    // The worker's grant, and new next_id() calls on the coordinator while it is being made.
    std::thread grant([&] {
        const auto t1 = std::chrono::steady_clock::now();
        grant_error = issue(1, "shard_63.next_id()", 1000, w1_ids);
        grant_ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t1).count();
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const auto t2 = std::chrono::steady_clock::now();
    for (int k = 0; k < 10 && c_error.empty(); ++k) c_error = issue(0, "shard_63.next_id()", 100, c_ids);
    c_ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t2).count();
    grant.join();
    otx.exec("COMMIT");
    EXPECT_EQ(grant_error, "");
    EXPECT_LT(grant_ms, 4500);
    EXPECT_EQ(c_error, "");
    EXPECT_LT(c_ms, 4500);
    std::vector<long long> all = w1_ids;
    all.insert(all.end(), c_ids.begin(), c_ids.end());
    for (const auto& r : run(0, "SELECT id FROM t63")) all.push_back(r[0].as<long long>());
    EXPECT_EQ(repeated(all), 0);
    run(0, "DROP TABLE t63");
    std::cout << "[ note ] grant under an open coordinator transaction: one transaction " << one_tx_ms
              << " ms, a worker's grant " << grant_ms << " ms, coordinator next_id() meanwhile " << c_ms << " ms; "
              << all.size() << " IDs, " << repeated(all) << " repeated" << std::endl;
}

// Finding 5: a shard whose blocks were wider (made when the cluster was smaller; here granted
// with ids_per_ms => 256) dropped and made again gives each node id its own old run back at its
// old width, so the node continues under the same generator key, above every ID it issued: with
// its clock stepped back to where the first IDs began, worker 1 repeats none of them. Before 0.3.0
// it got a narrower block inside its old run, under a new key that knew nothing of those IDs.
TEST(CitusIdentity, ARecreatedShardGivesTheOldRunBackAtItsWidth) {
    ensure_node3();
    run(0, "SELECT create_shard(64)");
    run(0, "DELETE FROM shard_blocks WHERE shard = 64; DELETE FROM shard_block_history WHERE shard = 64");
    EXPECT_EQ(scalar(0, "SELECT shard_cluster_sync(ids_per_ms => 256)"), 4);
    const long long wait_ms =
        scalar(0,
               "SELECT greatest(0, ceil(extract(epoch FROM max(valid_from) - clock_timestamp()) * 1000))::bigint "
               "FROM shard_blocks WHERE shard = 64");
    std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms + 100));
    const std::string before_blocks =
        text(0, "SELECT seq_lo || '/' || seq_bits FROM shard_blocks WHERE shard = 64 AND node_id = 101");
    std::vector<long long> first, second;
    pqxx::connection w1(dsn(1));
    const std::string started = pqxx::nontransaction(w1).exec("SELECT clock_timestamp()::text")[0][0].as<std::string>();
    ASSERT_EQ(issue(w1, "shard_64.next_id()", 50000, first), "");
    run(0, "SELECT drop_shard(64)");
    run(0, "SELECT create_shard(64)");
    EXPECT_EQ(text(0, "SELECT seq_lo || '/' || seq_bits FROM shard_blocks WHERE shard = 64 AND node_id = 101"),
              before_blocks);
    pqxx::connection w1b(dsn(1));
    {
        pqxx::nontransaction tx(w1b);
        tx.exec("SELECT set_config('id_gen.test_clock_offset', (-(extract(epoch FROM clock_timestamp() - " +
                tx.quote(started) + "::timestamptz) * 1000)::int)::text, false)");
    }
    ASSERT_EQ(issue(w1b, "shard_64.next_id()", 50000, second), "");
    std::vector<long long> all = first;
    all.insert(all.end(), second.begin(), second.end());
    EXPECT_EQ(repeated(all), 0);
    EXPECT_GT(second.front(), first.back());
    std::cout << "[ count ] re-created shard, clock stepped back: " << all.size() << " IDs, " << repeated(all)
              << " repeated" << std::endl;
    run(0, "SELECT drop_shard(64)");
}

// Finding 2: a removed node's blocks are handed over explicitly to exactly one node. Node 3 is
// removed (citus_remove_node); worker 2 takes its node id: the coordinator records node id 103's
// blocks as worker 2's in the same transaction as the grant, valid from 61 s after the claim (one
// second plus the largest id_gen.max_run_ahead: node 3 may have run up to its own setting ahead),
// and worker 2 refuses (55000, naming the hand-over) until then. Shard 68, dropped and made again
// while node 3 was out, gives node id 103 its old run back with the same delay (it was last held
// by node 3, not by worker 2). A coordinator transaction holding shard 65 open does not hold the
// hand-over up, nor new next_id() calls behind it. Worker 1, given that node id by mistake too,
// is refused (55000): the record names worker 2, which is in pg_dist_node. The delay is then
// shortened by hand (node 3 ran at most 1 s ahead: the default) for worker 2 to issue above node
// 3's IDs. Node 3 is added back at the end, and node id 103 handed back to it.
TEST(CitusIdentity, ARemovedNodesIdGoesToOneNodeOnly) {
    ensure_node3();
    run(0, "SELECT create_shard(65)");
    run(0, "SELECT create_shard(68)");
    std::vector<long long> ids, ids68;
    ASSERT_EQ(issue(3, "shard_65.next_id()", 20000, ids), "");
    ASSERT_EQ(issue(3, "shard_68.next_id()", 20000, ids68), "");
    run(0, "SELECT citus_remove_node(" + node_name(3) + ")");
    wait_metadata_synced();
    run(0, "SELECT drop_shard(68)");
    run(0, "SELECT create_shard(68)");
    std::string second_error;
    {
        NodeIdReset reset2{2};
        set_node_id(2, "103");
        // A coordinator transaction issuing shard 65, open during the hand-over.
        pqxx::connection open(dsn(0));
        pqxx::nontransaction otx(open);
        otx.exec("BEGIN");
        otx.exec("SELECT shard_65.next_id()");
        const std::string claimed = text(0, "SELECT clock_timestamp()::text");
        const auto t0 = std::chrono::steady_clock::now();
        // Shard 68 first: the hand-over and the grant of its old run in one transaction.
        const std::string first_call = error_text(2, "SELECT shard_68.next_id()");
        const long long claim_ms =
            std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
        const auto t1 = std::chrono::steady_clock::now();
        std::vector<long long> c_ids;
        const std::string c_error = issue(0, "shard_65.next_id()", 100, c_ids);
        const long long c_ms =
            std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t1).count();
        const std::string call65 = error_text(2, "SELECT shard_65.next_id()");
        otx.exec("COMMIT");
        ids.insert(ids.end(), c_ids.begin(), c_ids.end());
        EXPECT_EQ(c_error, "");
        EXPECT_LT(c_ms, 2500);
        EXPECT_LT(claim_ms, 4500);
        for (const std::string& e : {first_call, call65}) {
            EXPECT_EQ(e.rfind("55000", 0), 0u) << e;
            EXPECT_NE(e.find("valid from"), std::string::npos) << e;
            EXPECT_NE(e.find("by the node that held it before"), std::string::npos) << e;
        }
        // Both of node id 103's blocks: from 61 s after the claim on, on the coordinator and on worker 2.
        const std::string late =
            "SELECT count(*) FROM shard_blocks WHERE node_id = 103 AND shard IN (65, 68) AND valid_from >= " +
            pqxx::connection(dsn(0)).quote(claimed) + "::timestamptz + interval '61 seconds'";
        EXPECT_EQ(scalar(0, late), 2);
        EXPECT_EQ(scalar(2, late), 2);
        EXPECT_EQ(text(0, "SELECT seq_lo || '/' || seq_bits FROM shard_blocks WHERE shard = 68 AND node_id = 103"),
                  text(0,
                       "SELECT string_agg(seq_lo || '/' || seq_bits, ',') FROM shard_block_history WHERE shard = 68 "
                       "AND node_id = 103"));
        // Node 3 ran at most 1 s ahead (its id_gen.max_run_ahead is the default): shortened by hand to that.
        const std::string shorten =
            "UPDATE shard_blocks SET valid_from = clock_timestamp() + interval '1 second' WHERE node_id = 103";
        run(0, shorten);
        run(2, shorten);
        std::this_thread::sleep_for(std::chrono::milliseconds(1100));
        std::vector<long long> w2_ids, w2_ids68;
        EXPECT_EQ(issue(2, "shard_65.next_id()", 20000, w2_ids), "");
        EXPECT_EQ(issue(2, "shard_68.next_id()", 20000, w2_ids68), "");
        EXPECT_EQ(w2_ids.size(), 20000u);
        EXPECT_EQ(w2_ids68.size(), 20000u);
        ids.insert(ids.end(), w2_ids.begin(), w2_ids.end());
        ids68.insert(ids68.end(), w2_ids68.begin(), w2_ids68.end());
        // A second claimant.
        NodeIdReset reset1{1};
        set_node_id(1, "103");
        std::vector<long long> w1_ids;
        second_error = issue(1, "shard_65.next_id()", 20000, w1_ids);
        EXPECT_TRUE(w1_ids.empty());
        ids.insert(ids.end(), w1_ids.begin(), w1_ids.end());
        std::cout << "[ note ] hand-over under an open coordinator transaction: the claim " << claim_ms
                  << " ms, coordinator next_id() meanwhile " << c_ms << " ms" << std::endl;
    }
    EXPECT_EQ(second_error.rfind("55000", 0), 0u) << second_error;
    EXPECT_NE(second_error.find("id_gen.node_id 103 is held by another node of the cluster"), std::string::npos)
        << second_error;
    EXPECT_NE(second_error.find(std::to_string(ports().at(2))), std::string::npos) << second_error;
    EXPECT_EQ(repeated(ids), 0);
    EXPECT_EQ(repeated(ids68), 0);
    // The record names worker 2 for every block of node id 103.
    const std::string g2 = group_of(2);
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM shard_blocks WHERE node_id = 103 AND node_group IS DISTINCT FROM " + g2),
              0);
    EXPECT_EQ(
        scalar(0, "SELECT count(*) FROM shard_block_history WHERE node_id = 103 AND node_group IS DISTINCT FROM " + g2),
        0);
    std::cout << "[ count ] removed node's id taken over: " << ids.size() + ids68.size() << " IDs, "
              << repeated(ids) + repeated(ids68) << " repeated" << std::endl;
    // Node 3 back, and node id 103 handed back to it (by hand: worker 2 no longer uses it).
    run(0, "SELECT citus_add_node(" + node_name(3) + ")");
    const std::string g3 = group_of(3);
    run(0, "UPDATE shard_blocks SET node_group = " + g3 +
               ", valid_from = least(valid_from, clock_timestamp()) WHERE node_id = 103");
    run(0, "UPDATE shard_block_history SET node_group = " + g3 + ", valid_from = NULL WHERE node_id = 103");
    run(0, "SELECT drop_shard(65)");
    run(0, "SELECT drop_shard(68)");
    std::vector<long long> back;
    EXPECT_EQ(issue(3, "shard_60.next_id()", 1000, back), "");
}

// shard_raise_mark() on a node that issues from a block (every node of a Citus cluster): the
// block's own generator state is raised, so next_id() there issues above the mark. A mark 60 s
// ahead of the clock, on the coordinator and on worker 1. Before, the mark went to the key of a
// shard without blocks, which no node of the cluster issues under: every ID came out below it
// (the restore procedure of docs/upgrades.md did nothing there).
TEST(CitusIdentity, ARaisedMarkHoldsForTheNodesBlock) {
    run(0, "SELECT create_shard(69)");
    for (int node : {0, 1}) {
        pqxx::connection c(dsn(node));
        pqxx::nontransaction tx(c);
        const long long above = tx.exec1("SELECT shard_69.next_id() + (60000::bigint << 23)")[0].as<long long>();
        tx.exec("SELECT shard_raise_mark(69, " + std::to_string(above) + ")");
        const auto r = tx.exec1("SELECT count(*) FILTER (WHERE id <= " + std::to_string(above) +
                                "), count(*) FROM (SELECT shard_69.next_id() AS id FROM generate_series(1, 100)) x");
        EXPECT_EQ(r[0].as<long long>(), 0) << "node " << node;
        EXPECT_EQ(r[1].as<long long>(), 100) << "node " << node;
        EXPECT_EQ(
            scalar(0, "SELECT count(*) FROM shard_blocks WHERE shard = 69 AND node_id = " + std::to_string(100 + node)),
            1);
    }
    run(0, "SELECT drop_shard(69)");
}

// The labels docs/citus.md gives the new pieces: VOLATILE, PARALLEL UNSAFE, not for PUBLIC;
// shard_node_identity UNLOGGED, not dumped (no configuration table), readable by superusers only.
TEST(CitusIdentity, LabelsOfTheNewPieces) {
    ensure_node3();
    EXPECT_EQ(text(0,
                   "SELECT string_agg(proname || ':' || provolatile::text || proparallel::text, ',' ORDER BY proname) "
                   "FROM pg_proc "
                   "WHERE proname IN ('shard_cluster_identify', 'shard_rows_lock') "
                   "AND pronamespace = (SELECT extnamespace FROM pg_extension WHERE extname = 'id_gen')"),
              "shard_cluster_identify:vu,shard_rows_lock:vu");
    run(0, "DROP ROLE IF EXISTS idgen_plain2; CREATE ROLE idgen_plain2 LOGIN");
    EXPECT_EQ(scalar(0,
                     "SELECT count(*) FROM pg_proc WHERE proname IN ('shard_cluster_identify', 'shard_rows_lock') "
                     "AND has_function_privilege('idgen_plain2', oid, 'EXECUTE')"),
              0);
    EXPECT_EQ(text(0,
                   "SELECT has_table_privilege('idgen_plain2', 'shard_node_identity', 'SELECT')::text || "
                   "c.relpersistence::text "
                   "FROM pg_class c WHERE c.oid = 'shard_node_identity'::regclass"),
              "falseu");
    EXPECT_EQ(scalar(0,
                     "SELECT count(*) FROM pg_extension e, unnest(e.extconfig) r(oid) WHERE e.extname = 'id_gen' "
                     "AND r.oid = 'shard_node_identity'::regclass"),
              0);
    run(0, "DROP ROLE idgen_plain2");
    // Every worker's identity as the coordinator confirmed it: its own group and node id.
    for (int node = 1; node <= 3; ++node)
        EXPECT_GE(scalar(node,
                         "SELECT count(*) FROM shard_node_identity i, pg_dist_local_group g "
                         "WHERE i.node_group = g.groupid AND i.node_id = current_setting('id_gen.node_id')::int"),
                  1)
            << "node " << node;
}
