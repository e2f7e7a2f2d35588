// A node removed from the Citus cluster and added back after the cluster's created ID types
// changed (docs/citus.md, "Created ID types on a cluster"). It has id_gen already, so Citus does
// not run the install script there: id_gen's event trigger brings its types up to date when
// Citus sends it CREATE EXTENSION IF NOT EXISTS id_gen (id_type_cluster_pull()).
//
// These tests run after citus_test.cpp's (they are linked after it), on the same cluster: node 3
// is the spare that AddNodeIsReadyUnderRebalance added. They take it out and put it back, and
// leave it in the cluster, active, with none of their tables or types anywhere.
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <cstdlib>
#include <memory>
#include <pqxx/pqxx>
#include <sstream>
#include <string>
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

// Node i: 0 coordinator, 1 and 2 workers, 3 the node these tests remove and add back.
std::string dsn(int i) {
    return "host=" + host() + " port=" + std::to_string(ports().at(i)) + " user=postgres dbname=postgres";
}

// On a session kept for the next statement (kept_sessions.h).
pqxx::result run(int node, const std::string& sql) { return idgen::kept::run(dsn(node), sql); }

long long scalar(int node, const std::string& sql) { return run(node, sql)[0][0].as<long long>(); }
std::string text(int node, const std::string& sql) { return run(node, sql)[0][0].as<std::string>(); }
std::string node_name(int i) { return "'" + host() + "', " + std::to_string(ports().at(i)); }

// "<SQLSTATE> <message>" of running `sql` on `node`, "" when it succeeds.
std::string failure_of(int node, const std::string& sql) {
    try {
        run(node, sql);
    } catch (const pqxx::sql_error& e) {
        return std::string(e.sqlstate()) + " " + e.what();
    }
    return "";
}

// What a statement raised, with the warnings before it (each "<SQLSTATE> <message>"), through
// libpq: Citus passes a node's error on as a warning.
struct Outcome {
    std::string error;  // "" when it succeeded
    std::vector<std::string> warnings;
};

void collect_notice(void* arg, const PGresult* res) {
    const char* state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
    const char* message = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
    const char* detail = PQresultErrorField(res, PG_DIAG_MESSAGE_DETAIL);
    static_cast<Outcome*>(arg)->warnings.push_back(std::string(state ? state : "?") + " " + (message ? message : "") +
                                                   (detail ? std::string(" DETAIL: ") + detail : ""));
}

Outcome outcome_of(int node, const std::string& sql) {
    Outcome out;
    std::unique_ptr<PGconn, decltype(&PQfinish)> c(PQconnectdb(dsn(node).c_str()), &PQfinish);
    if (PQstatus(c.get()) != CONNECTION_OK) {
        out.error = std::string("connection: ") + PQerrorMessage(c.get());
        return out;
    }
    PQsetNoticeReceiver(c.get(), collect_notice, &out);
    std::unique_ptr<PGresult, decltype(&PQclear)> r(PQexec(c.get(), sql.c_str()), &PQclear);
    if (PQresultStatus(r.get()) == PGRES_FATAL_ERROR) {
        const char* state = PQresultErrorField(r.get(), PG_DIAG_SQLSTATE);
        out.error = std::string(state ? state : "?") + " " + PQresultErrorMessage(r.get());
    }
    return out;
}

// Each of `types` on `node`: "<type> <kind> <format> <prefix>" with " member" when it is a member
// of id_gen there, or "<type> missing"; one line each, in the order given.
std::string types_on(int node, const std::string& types) {
    return text(node,
                "SELECT string_agg(t || ' ' || coalesce((SELECT d.kind || ' ' || d.format || ' ' || d.prefix || "
                "CASE WHEN EXISTS (SELECT 1 FROM pg_depend k JOIN pg_extension e ON e.oid = k.refobjid AND e.extname = "
                "'id_gen' "
                "WHERE k.classid = 'pg_type'::regclass AND k.objid = to_regtype(t) AND k.deptype = 'e') THEN ' member' "
                "ELSE '' END "
                "FROM id_type_describe(to_regtype(t)) d WHERE d.kind IS NOT NULL), 'missing'), E'\\n' ORDER BY o) "
                "FROM unnest(string_to_array('" +
                    types + "', ' ')) WITH ORDINALITY AS x(t, o)");
}

long long in_cluster(int node) {
    return scalar(
        0, "SELECT count(*) FROM pg_dist_node WHERE nodeport = " + std::to_string(ports().at(node)) + " AND isactive");
}

}  // namespace

// Node 3 out while a type is made (rd_new_id), one is dropped and made again with another kind
// (rd_kind_id, ulid then snowflake; node 3 keeps its copy of a table of the old one, rd_old) and
// one stays as it was (rd_same_id): citus_add_node() (which failed with Citus's XX000, a shell
// table's type missing on node 3) brings them to node 3 as the coordinator has them, the old
// kind replaced, the unchanged one kept. A shard of a table of all three moves onto node 3 (a
// binary copy, which retried for ever with the old kind there), inserts through every node, node
// 3 included, issue IDs none of which repeats, and reads work from every node. A type of node 3's
// own, not a member of id_gen, is left alone.
TEST(CitusReadd, ANodeAddedBackGetsTheCoordinatorsTypes) {
    // Run alone (GTEST_FILTER=CitusReadd.*), node 3 joins here first.
    if (in_cluster(3) == 0) run(0, "SELECT citus_add_node(" + node_name(3) + ")");
    ASSERT_EQ(in_cluster(3), 1);
    // Node 3 gets the shells of rd_old but no shards: citus_remove_node() takes a node without placements.
    run(0, "SELECT citus_set_node_property(" + node_name(3) + ", 'shouldhaveshards', false)");
    run(0, "SELECT create_id_type('rd_same_id', kind => 'ulid', prefix => 'rdsame')");
    run(0, "SELECT create_id_type('rd_kind_id', kind => 'ulid', prefix => 'rdkind')");
    run(0, "CREATE TABLE rd_old (id rd_kind_id PRIMARY KEY DEFAULT gen_rd_kind_id(), v int)");
    run(0, "SELECT create_distributed_table('rd_old', 'id', shard_count => 4)");
    ASSERT_EQ(text(3, "SELECT coalesce(to_regclass('rd_old')::text, 'missing')"), "rd_old");
    const std::string same_oid = text(3, "SELECT 'rd_same_id'::regtype::oid::text");
    run(0, "SELECT citus_remove_node(" + node_name(3) + ")");
    run(3, "SELECT id_type_create('rd_own_id', 'ulid', 'rdown', 'prefixed', 'public')");

    run(0, "DROP TABLE rd_old");
    run(0, "SELECT drop_id_type('rd_kind_id')");
    run(0, "SELECT create_id_type('rd_kind_id', kind => 'snowflake', prefix => 'rdkind')");
    run(0, "SELECT create_id_type('rd_new_id', kind => 'uuidv7', prefix => 'rdnew')");
    run(0,
        "CREATE TABLE rd_t (id rd_kind_id PRIMARY KEY DEFAULT gen_rd_kind_id(), s rd_same_id NOT NULL DEFAULT "
        "gen_rd_same_id(), "
        "n rd_new_id NOT NULL DEFAULT gen_rd_new_id(), v int)");
    run(0, "SELECT create_distributed_table('rd_t', 'id', shard_count => 4)");
    run(0, "INSERT INTO rd_t (v) SELECT g FROM generate_series(1, 100) g");
    const std::string types = "rd_same_id rd_kind_id rd_new_id rd_own_id";
    EXPECT_EQ(types_on(3, types),
              "rd_same_id ulid prefixed rdsame member\nrd_kind_id ulid prefixed rdkind member\nrd_new_id missing\n"
              "rd_own_id ulid prefixed rdown");

    ASSERT_EQ(failure_of(0, "SELECT citus_add_node(" + node_name(3) + ")"), "");
    const std::string want =
        "rd_same_id ulid prefixed rdsame member\nrd_kind_id snowflake prefixed rdkind member\n"
        "rd_new_id uuidv7 prefixed rdnew member\nrd_own_id ";
    for (int node = 0; node <= 3; ++node)
        EXPECT_EQ(types_on(node, types), want + (node == 3 ? "ulid prefixed rdown" : "missing")) << "node " << node;
    EXPECT_EQ(text(3, "SELECT 'rd_same_id'::regtype::oid::text"), same_oid);
    EXPECT_EQ(text(3, "SELECT coalesce(to_regclass('rd_old')::text, 'missing')"), "missing");
    run(3, "SELECT id_type_drop('rd_own_id', false)");

    const auto shard = run(0,
                           "SELECT shardid, nodename, nodeport FROM citus_shards WHERE table_name = 'rd_t'::regclass "
                           "ORDER BY shardid LIMIT 1");
    ASSERT_EQ(shard.size(), 1u);
    EXPECT_EQ(failure_of(0, "SELECT citus_move_shard_placement(" + shard[0][0].as<std::string>() + ", '" +
                                shard[0][1].as<std::string>() + "', " + shard[0][2].as<std::string>() + ", " +
                                node_name(3) + ", shard_transfer_mode => 'block_writes')"),
              "");
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM citus_shards WHERE table_name = 'rd_t'::regclass AND nodeport = " +
                            std::to_string(ports().at(3))),
              1);
    for (int node = 0; node <= 3; ++node)
        EXPECT_EQ(failure_of(node, "INSERT INTO rd_t (v) SELECT g FROM generate_series(1, 200) g"), "")
            << "node " << node;
    for (int node = 0; node <= 3; ++node)
        EXPECT_EQ(text(node,
                       "SELECT count(*) || ' ' || count(DISTINCT id) || ' ' || count(DISTINCT s) || ' ' || "
                       "count(DISTINCT n) FROM rd_t"),
                  "900 900 900 900")
            << "node " << node;
    // Node 3's snowflakes carry its node id; every node issued some.
    EXPECT_EQ(text(0, "SELECT string_agg(DISTINCT snowflake_node(id::snowflake)::text, ',') FROM rd_t"),
              "100,101,102,103");
    EXPECT_EQ(scalar(0,
                     "SELECT count(*) FROM rd_t WHERE id::text !~ '^rdkind_[0-9a-z]{13}$' OR s::text !~ '^rdsame_' OR "
                     "n::text !~ '^rdnew_'"),
              0);
}

// A type that differs from the coordinator's and that something on the node uses is not replaced:
// id_type_cluster_pull() there refuses with 55000 naming what uses it, and citus_add_node() fails
// (Citus reports the node's 55000 as a warning, then its own XX000) and leaves the node out with
// nothing changed. Once that table is gone, the call by hand (as where event triggers are off)
// replaces the type, and the node is added.
TEST(CitusReadd, AMismatchingTypeInUseIsRefused) {
    ASSERT_EQ(in_cluster(3), 1);
    // rd_t goes, and its shard on node 3 with it: citus_remove_node() takes a node without placements.
    run(0, "DROP TABLE rd_t");
    // The moved shard's old copy, which Citus drops later (deferred), uses the types too.
    run(0, "CALL citus_cleanup_orphaned_resources()");
    run(0, "SELECT citus_remove_node(" + node_name(3) + ")");
    run(3, "SET citus.enable_ddl_propagation = off; CREATE TABLE rd_local (id rd_same_id)");
    run(0, "SELECT drop_id_type('rd_same_id')");
    run(0, "SELECT create_id_type('rd_same_id', kind => 'ksuid', prefix => 'rdsame')");

    const std::string by_hand = failure_of(3, "SELECT id_type_cluster_pull()");
    EXPECT_EQ(by_hand.rfind("55000 ERROR:  ID type public.rd_same_id on this node is not the coordinator's, and "
                            "objects on this node use it",
                            0),
              0u)
        << by_hand;
    const Outcome add = outcome_of(0, "SELECT citus_add_node(" + node_name(3) + ")");
    EXPECT_EQ(add.error.rfind("XX000 ", 0), 0u) << add.error;
    std::string ours;
    for (const auto& w : add.warnings)
        if (w.rfind("55000 ID type public.rd_same_id on this node is not the coordinator's", 0) == 0) ours = w;
    EXPECT_NE(ours.find("Here it is kind=ulid format=prefixed prefix=rdsame, on the coordinator kind=ksuid "
                        "format=prefixed prefix=rdsame."),
              std::string::npos)
        << ours;
    EXPECT_NE(ours.find("column id of table public.rd_local"), std::string::npos) << ours;
    EXPECT_EQ(in_cluster(3), 0);
    EXPECT_EQ(types_on(3, "rd_same_id"), "rd_same_id ulid prefixed rdsame member");

    run(3, "DROP TABLE rd_local");
    EXPECT_EQ(scalar(3, "SELECT id_type_cluster_pull()"), 1);
    EXPECT_EQ(types_on(3, "rd_same_id"), "rd_same_id ksuid prefixed rdsame member");
    ASSERT_EQ(failure_of(0, "SELECT citus_add_node(" + node_name(3) + ")"), "");
    EXPECT_EQ(text(3, "SELECT '" + text(0, "SELECT gen_rd_same_id()::text") + "'::rd_same_id IS NOT NULL"), "t");
}

// The trigger acts only where no uncommitted change can be undone: on worker 1, a member type the
// coordinator does not have (as if made by a coordinator transaction still open) survives CREATE
// EXTENSION IF NOT EXISTS id_gen in a transaction that has written already, and is dropped when
// the statement runs in one of its own (so is one the coordinator dropped while a node was out).
TEST(CitusReadd, TheTriggerLeavesATransactionThatChangedSomething) {
    run(1, "SELECT id_type_membership(id_type_create('rd_tx_id', 'ulid', 'rdtx', 'prefixed', 'public'), true)");
    {
        pqxx::connection c(dsn(1));
        pqxx::work tx(c);
        tx.exec("SET LOCAL citus.enable_ddl_propagation = off");
        tx.exec("CREATE TABLE rd_tx_written (a int)");
        tx.exec("CREATE EXTENSION IF NOT EXISTS id_gen");
        EXPECT_EQ(tx.exec("SELECT count(*) FROM pg_type WHERE typname = 'rd_tx_id'")[0][0].as<long long>(), 1);
        tx.abort();
    }
    EXPECT_EQ(types_on(1, "rd_tx_id"), "rd_tx_id ulid prefixed rdtx member");
    run(1, "SET citus.enable_ddl_propagation = off; CREATE EXTENSION IF NOT EXISTS id_gen");
    EXPECT_EQ(types_on(1, "rd_tx_id"), "rd_tx_id missing");
    EXPECT_EQ(scalar(1, "SELECT count(*) FROM prefix_registry WHERE prefix = 'rdtx'"), 0);
}

// What the tests above made, off every node; node 3 is left in the cluster, active, able to hold
// shards (citus_add_node() set it so).
TEST(CitusReadd, CleanUp) {
    run(0, "DROP TABLE IF EXISTS rd_t");
    for (const char* type : {"rd_same_id", "rd_new_id", "rd_kind_id"})
        run(0, std::string("SELECT drop_id_type(t) FROM to_regtype('") + type + "') t WHERE t IS NOT NULL");
    EXPECT_EQ(scalar(0, "SELECT count(*) FROM pg_dist_node WHERE isactive AND shouldhaveshards AND groupid <> 0"), 3);
    for (int node = 0; node <= 3; ++node)
        EXPECT_EQ(scalar(node, "SELECT count(*) FROM pg_type WHERE typname ~ '^rd_(same|new|kind|own|tx)_id$'"), 0)
            << "node " << node;
}
