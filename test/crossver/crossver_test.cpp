// Moving an id_gen database between PostgreSQL major versions: a dump of the old server (the lowest
// major given, 15) restored on each newer one, and pg_upgrade from the old server to each newer
// one. The old server issues its snowflake and shard IDs with its clock an hour ahead, as a server
// whose clock ran ahead would; the new servers run on the real clock. After each move: every row
// reads back the same (a checksum of the text forms), the column defaults and generated columns
// are the same expressions calling the same id_gen functions (never core's functions of the same
// names), the views give the same rows, every index is valid (amcheck for btree) and finds the
// same rows as a sequential scan, and every generator issues IDs above every ID moved over.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "harness.h"

namespace {

using namespace idgen::cross;

constexpr const char* kDb = "app";
// A second database, created at the newest released version (not the build's default), that
// pg_upgrade carries to each newer server, where ALTER EXTENSION id_gen UPDATE takes it on.
constexpr const char* kPrevDb = "app_prev";

// The old server's clock while it issues IDs: this far ahead (at most id_gen.test_clock_offset's 1 day).
constexpr const char* kOldClockAhead = "1h";

// A database that uses every ID kind and every name a dump writes: generator defaults (uuidv7() is
// the one a dump writes as public.uuidv7(), which must not become core's on 18), generated
// columns and views over uuid_extract_timestamp()/uuid_extract_version() (core's on 17 reads
// version 1 only), the prefix and shard registries, btree, hash and BRIN indexes on each type.
constexpr const char* kSchema = R"sql(
CREATE EXTENSION id_gen;
SELECT prefix_register('acct', 'accounts');
SELECT create_shard(5);
SELECT create_shard(6, 'photos_b', '2020-01-01 00:00:00+00');

CREATE TABLE events (id ulid PRIMARY KEY DEFAULT gen_ulid(), ref ulid, at ulid, body text);
CREATE INDEX events_ref_hash ON events USING hash (ref);
CREATE INDEX events_at_brin ON events USING brin (at) WITH (pages_per_range = 2);
CREATE VIEW event_times AS SELECT id, ulid_time(id) AS t, id::uuid AS u FROM events;

CREATE TABLE orders (
    id uuid PRIMARY KEY DEFAULT uuidv7(),
    legacy uuid DEFAULT uuidv4(),
    g uuid DEFAULT gen_uuidv7(),
    placed_at timestamptz GENERATED ALWAYS AS (uuid_extract_timestamp(id)) STORED
);
CREATE INDEX orders_g_hash ON orders USING hash (g);
CREATE VIEW order_times AS
    SELECT id, uuid_extract_timestamp(id) AS t, uuid_extract_version(id) AS v, uuid_extract_version(legacy) AS lv
    FROM orders;

CREATE TABLE tweets (
    id snowflake PRIMARY KEY DEFAULT gen_snowflake(),
    ref snowflake,
    at snowflake,
    sony snowflake DEFAULT gen_snowflake('sonyflake')
);
CREATE INDEX tweets_ref_hash ON tweets USING hash (ref);
CREATE INDEX tweets_at_brin ON tweets USING brin (at) WITH (pages_per_range = 2);
CREATE VIEW tweet_times AS
    SELECT id, snowflake_time(id) AS t, snowflake_node(id) AS node, snowflake_to_base36(id) AS b36 FROM tweets;

CREATE TABLE links (
    id base36_128 PRIMARY KEY DEFAULT gen_uuidv7()::base36_128,
    short_h base36_64, short_b base36_64, wide_h base36_128, wide_b base36_128
);
CREATE INDEX links_short_hash ON links USING hash (short_h);
CREATE INDEX links_short_brin ON links USING brin (short_b) WITH (pages_per_range = 2);
CREATE INDEX links_wide_hash ON links USING hash (wide_h);
CREATE INDEX links_wide_brin ON links USING brin (wide_b) WITH (pages_per_range = 2);

CREATE TABLE accounts (
    id uuid PRIMARY KEY DEFAULT gen_uuidv7(),
    public_id text GENERATED ALWAYS AS (prefixed_format('acct', id)) STORED,
    token text NOT NULL DEFAULT gen_prefixed('acct'),
    name text
);
CREATE INDEX accounts_by_prefixed ON accounts (prefixed_format('acct', id));

CREATE TABLE shard_5.photos (id bigint PRIMARY KEY DEFAULT shard_5.next_id(), url text);
CREATE TABLE photos_b.photos (id bigint PRIMARY KEY DEFAULT photos_b.next_id(), url text);
CREATE VIEW photo_times AS
    SELECT id, shard_id_shard(id) AS shard, shard_id_time(id) AS t FROM shard_5.photos
    UNION ALL
    SELECT id, shard_id_shard(id), shard_id_time(id) FROM photos_b.photos;
)sql";

constexpr const char* kData = R"sql(
INSERT INTO events (ref, at, body)
    SELECT gen_ulid(), gen_ulid(timestamptz '2024-01-01' + g * interval '1 minute'), 'e' || g
    FROM generate_series(1, 2000) g;
INSERT INTO events (ref, at, body) VALUES ('7ZZZZZZZZZZZZZZZZZZZZZZZZZ', '00000000000000000000000000', 'extremes');
INSERT INTO orders SELECT FROM generate_series(1, 2000);
INSERT INTO tweets (ref, at)
    SELECT gen_snowflake(), (snowflake_lower(timestamptz '2024-01-01' + g * interval '1 minute')::bigint + g)::snowflake
    FROM generate_series(1, 2000) g;
INSERT INTO links (short_h, short_b, wide_h, wide_b)
    SELECT (g * 7919)::bigint::base36_64, g::bigint::base36_64, gen_random_uuid()::base36_128, gen_uuidv7()::base36_128
    FROM generate_series(1, 2000) g;
INSERT INTO links (short_h, short_b, wide_h, wide_b)
    VALUES ('1y2p0ij32e8e7', '0', 'f5lxx1zz5pnorynqglhzmsp33', '0');
INSERT INTO accounts (name) SELECT 'a' || g FROM generate_series(1, 2000) g;
INSERT INTO shard_5.photos (url) SELECT 'p' || g FROM generate_series(1, 2000) g;
INSERT INTO photos_b.photos (url) SELECT 'q' || g FROM generate_series(1, 2000) g;
)sql";

const std::vector<std::string> kTables = {"events",          "orders",          "tweets",
                                          "links",           "accounts",        "shard_5.photos",
                                          "photos_b.photos", "prefix_registry", "shard_registry"};
const std::vector<std::string> kViews = {"event_times", "order_times", "tweet_times", "photo_times"};

// Every generator's column: (table, column, SQL type). New rows must get IDs above every one here.
// A uuid is compared as its text (15 has no max(uuid)), the prefixed IDs as theirs: both are of a
// fixed width, so in the "C" collation text order is byte order, which is ID order.
struct GenColumn {
    std::string table, column, type;
    [[nodiscard]] bool as_text() const { return type == "uuid" || type == "text"; }
    [[nodiscard]] std::string expr() const { return as_text() ? column + "::text COLLATE \"C\"" : column; }
    [[nodiscard]] std::string cmp_type() const { return as_text() ? "text" : type; }
};
const std::vector<GenColumn> kGenerated = {
    {"events", "id", "ulid"},
    {"orders", "id", "uuid"},
    {"orders", "g", "uuid"},
    {"tweets", "id", "snowflake"},
    {"tweets", "sony", "snowflake"},
    {"links", "id", "base36_128"},
    {"accounts", "id", "uuid"},
    {"accounts", "token", "text"},
    {"shard_5.photos", "id", "bigint"},
    {"photos_b.photos", "id", "bigint"},
};

// A table or view name, qualified (the shards' tables are in their schemas, the rest in public).
std::string qualified(const std::string& rel) { return rel.find('.') == std::string::npos ? "public." + rel : rel; }

// An index that only a scan of it can answer for its column (no other index on the column), and
// the predicate to probe it with: `=` for hash, a range for BRIN.
struct Probe {
    std::string table, column, index, type;
    bool range;
};
const std::vector<Probe> kProbes = {
    {"events", "ref", "events_ref_hash", "ulid", false},
    {"events", "at", "events_at_brin", "ulid", true},
    {"orders", "g", "orders_g_hash", "uuid", false},
    {"tweets", "ref", "tweets_ref_hash", "snowflake", false},
    {"tweets", "at", "tweets_at_brin", "snowflake", true},
    {"links", "short_h", "links_short_hash", "base36_64", false},
    {"links", "short_b", "links_short_brin", "base36_64", true},
    {"links", "wide_h", "links_wide_hash", "base36_128", false},
    {"links", "wide_b", "links_wide_brin", "base36_128", true},
};

// The session settings every comparison runs under, so text forms do not depend on a server's
// defaults.
constexpr const char* kSession = "SET TimeZone = 'UTC'; SET DateStyle = 'ISO, YMD'; SET extra_float_digits = 1";

// What must be the same after a move.
struct Snapshot {
    std::map<std::string, std::string> rows;  // table or view -> md5 of its rows' text, in key order
    std::map<std::string, std::string> counts;
    std::string defaults;                        // every column default and generation expression, deparsed
    std::string viewdefs;                        // every view's definition, deparsed
    std::string view_functions;                  // every function a view calls, with its schema and argument types
    std::string core_names;                      // functions with core's names that defaults and views call, by schema
    std::map<std::string, std::string> max_ids;  // "table.column" -> its largest ID, as text
    std::string datoid;
};

Snapshot snapshot(const std::string& dsn) {
    pqxx::connection c(dsn);
    pqxx::nontransaction tx(c);
    tx.exec(kSession);
    Snapshot s;
    auto one = [&tx](const std::string& sql) {
        const auto r = tx.exec(sql);
        return r.empty() || r[0][0].is_null() ? std::string() : std::string(r[0][0].c_str());
    };
    for (const auto& rel : kTables) {
        // The registries are ordered by their rows' text; the rest by ID.
        const std::string key = rel.find("registry") != std::string::npos ? "t::text" : "t.id";
        s.rows[rel] = one("SELECT md5(string_agg(t::text, E'\\n' ORDER BY " + key + ")) FROM " + qualified(rel) + " t");
        s.counts[rel] = one("SELECT count(*) FROM " + qualified(rel));
    }
    for (const auto& v : kViews) {
        s.rows[v] = one("SELECT md5(string_agg(t::text, E'\\n' ORDER BY t.id, t::text)) FROM " + qualified(v) + " t");
        s.counts[v] = one("SELECT count(*) FROM " + qualified(v));
    }
    for (const auto& g : kGenerated)
        s.max_ids[g.table + "." + g.column] = one("SELECT max(" + g.expr() + ")::text FROM " + qualified(g.table));
    s.datoid = one("SELECT oid FROM pg_database WHERE datname = current_database()");
    // Deparsed under search_path = pg_catalog, so every name of another schema is qualified.
    tx.exec("SET search_path = pg_catalog");
    s.defaults =
        one("SELECT string_agg(x, E'\\n' ORDER BY x) FROM (SELECT format('%s.%s %s', c.oid::regclass, a.attname, "
            "pg_get_expr(d.adbin, d.adrelid)) AS x FROM pg_attrdef d JOIN pg_attribute a ON a.attrelid = d.adrelid AND "
            "a.attnum = d.adnum JOIN pg_class c ON c.oid = d.adrelid) s");
    // How views are deparsed changed in 16 (a column of a single-table view lost its table name), so
    // the definitions are compared by the functions they call; the text is kept for messages.
    s.viewdefs = one(
        "SELECT string_agg(x, E'\\n' ORDER BY x) FROM (SELECT c.oid::regclass || ': ' || pg_get_viewdef(c.oid) AS x "
        "FROM pg_class c WHERE c.relkind = 'v' AND c.relnamespace NOT IN ('pg_catalog'::regnamespace, "
        "'information_schema'::regnamespace)) s");
    s.view_functions =
        one("SELECT string_agg(DISTINCT r.ev_class::regclass || ' calls ' || d.refobjid::regprocedure, E'\\n') "
            "FROM pg_depend d JOIN pg_rewrite r ON r.oid = d.objid WHERE d.classid = 'pg_rewrite'::regclass "
            "AND d.refclassid = 'pg_proc'::regclass");
    s.core_names = one(
        "SELECT string_agg(x, ', ' ORDER BY x) FROM (SELECT format('%s.%s: %s', p.pronamespace::regnamespace, "
        "p.proname, count(*)) AS x FROM pg_depend d JOIN pg_proc p ON p.oid = d.refobjid "
        "WHERE d.classid IN ('pg_attrdef'::regclass, 'pg_rewrite'::regclass) AND d.refclassid = 'pg_proc'::regclass "
        "AND p.proname IN ('uuidv7', 'uuidv4', 'uuid_extract_timestamp', 'uuid_extract_version') "
        "GROUP BY p.pronamespace, p.proname) s");
    return s;
}

void expect_same(const Snapshot& before, const Snapshot& after, const std::string& what) {
    for (const auto& [rel, md5] : before.rows) {
        EXPECT_FALSE(md5.empty()) << rel;
        EXPECT_EQ(after.rows.at(rel), md5) << what << ": rows of " << rel << " differ";
        EXPECT_EQ(after.counts.at(rel), before.counts.at(rel)) << what << ": row count of " << rel;
    }
    EXPECT_EQ(after.defaults, before.defaults) << what;
    EXPECT_FALSE(before.view_functions.empty());
    EXPECT_EQ(after.view_functions, before.view_functions) << what << ", views:\n" << after.viewdefs;
    EXPECT_EQ(after.core_names, before.core_names) << what;
    EXPECT_EQ(after.max_ids, before.max_ids) << what;
}

// Every index valid; each btree passes amcheck (with the heap check); each hash and BRIN index finds
// exactly the rows a sequential scan finds, and the plan does use it.
void check_indexes(const std::string& dsn) {
    pqxx::connection c(dsn);
    pqxx::nontransaction tx(c);
    tx.exec("CREATE EXTENSION IF NOT EXISTS amcheck");
    const auto user_tables =
        "t.relnamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace, "
        "'pg_toast'::regnamespace)";
    EXPECT_EQ(tx.exec(std::string("SELECT count(*) FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid WHERE ") +
                      user_tables + " AND NOT (i.indisvalid AND i.indisready)")[0][0]
                  .as<int>(),
              0);
    const auto btrees =
        tx.exec(std::string("SELECT i.indexrelid::regclass::text FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid "
                            "JOIN pg_class x ON x.oid = i.indexrelid JOIN pg_am am ON am.oid = x.relam "
                            "WHERE am.amname = 'btree' AND ") +
                user_tables + " ORDER BY 1");
    EXPECT_GE(btrees.size(), 10u);
    for (const auto& row : btrees) {
        const std::string idx = row[0].c_str();
        try {
            tx.exec("SELECT bt_index_check(" + tx.quote(idx) + "::regclass, true)");
        } catch (const std::exception& e) {
            ADD_FAILURE() << "amcheck of " << idx << ": " << e.what();
        }
    }
    for (const auto& p : kProbes) {
        // Samples spread over the table, the smallest included: every 100th value.
        const auto samples =
            tx.exec("SELECT v::text FROM (SELECT " + p.column + " AS v, row_number() OVER (ORDER BY " + p.column +
                    ") AS n FROM " + p.table + " WHERE " + p.column + " IS NOT NULL) s WHERE n % 100 = 1 ORDER BY v");
        ASSERT_GE(samples.size(), 10u) << p.index;
        std::string pred;
        if (p.range) {
            pred = p.column + " BETWEEN " + tx.quote(samples[2][0].c_str()) + "::" + p.type + " AND " +
                   tx.quote(samples[samples.size() - 3][0].c_str()) + "::" + p.type;
        } else {
            pred = p.column + " IN (";
            for (std::size_t i = 0; i < samples.size(); ++i)
                pred += (i ? ", " : "") + tx.quote(samples[i][0].c_str()) + "::" + p.type;
            pred += ")";
        }
        const std::string q = "SELECT count(*) FROM " + p.table + " WHERE " + pred;
        tx.exec("SET enable_seqscan = on; SET enable_indexscan = off; SET enable_bitmapscan = off");
        const long long by_seqscan = tx.exec(q)[0][0].as<long long>();
        tx.exec("SET enable_seqscan = off; SET enable_indexscan = on; SET enable_bitmapscan = on");
        const std::string plan = tx.exec("EXPLAIN (FORMAT JSON) " + q)[0][0].c_str();
        EXPECT_NE(plan.find("\"" + p.index + "\""), std::string::npos) << p.index << " is not used:\n" << plan;
        EXPECT_EQ(tx.exec(q)[0][0].as<long long>(), by_seqscan) << p.index;
        EXPECT_GE(by_seqscan, p.range ? 100 : static_cast<long long>(samples.size())) << p.index;
        tx.exec("RESET enable_seqscan; RESET enable_indexscan; RESET enable_bitmapscan");
    }
}

// New rows through every generator column's default: their IDs are above every ID moved over
// (`before`, the largest of each column), including the ones the old server issued with its clock
// an hour ahead.
void expect_generators_continue(const std::string& dsn, const Snapshot& before, const std::string& what) {
    pqxx::connection c(dsn);
    pqxx::nontransaction tx(c);
    tx.exec("INSERT INTO events (body) SELECT 'new' FROM generate_series(1, 100)");
    tx.exec("INSERT INTO orders SELECT FROM generate_series(1, 100)");
    tx.exec("INSERT INTO tweets (ref) SELECT NULL FROM generate_series(1, 100)");
    tx.exec("INSERT INTO links (short_h) SELECT NULL FROM generate_series(1, 100)");
    tx.exec("INSERT INTO accounts (name) SELECT 'new' FROM generate_series(1, 100)");
    tx.exec("INSERT INTO shard_5.photos (url) SELECT 'new' FROM generate_series(1, 100)");
    tx.exec("INSERT INTO photos_b.photos (url) SELECT 'new' FROM generate_series(1, 100)");
    for (const auto& g : kGenerated) {
        const std::string old_max = before.max_ids.at(g.table + "." + g.column);
        ASSERT_FALSE(old_max.empty());
        const auto r = tx.exec("SELECT count(*), min(" + g.expr() + ")::text FROM " + g.table + " WHERE " + g.expr() +
                               " > " + tx.quote(old_max) + "::" + g.cmp_type());
        EXPECT_EQ(r[0][0].as<long long>(), 100)
            << what << ": new IDs of " << g.table << "." << g.column << " not above " << old_max
            << " (smallest above: " << (r[0][1].is_null() ? "none" : r[0][1].c_str()) << ")";
    }
    // The new shard IDs carry their shard, the new snowflakes this server's node.
    EXPECT_EQ(tx.exec("SELECT count(*) FROM shard_5.photos WHERE id > " + before.max_ids.at("shard_5.photos.id") +
                      " AND shard_id_shard(id) <> 5")[0][0]
                  .as<int>(),
              0);
    EXPECT_EQ(tx.exec("SELECT count(*) FROM tweets WHERE id > " + before.max_ids.at("tweets.id") +
                      " AND snowflake_node(id) <> 1")[0][0]
                  .as<int>(),
              0);
}

// The step a restored database, or an upgraded cluster without the old pg_idgen/, needs: raise
// each generator's mark above the IDs in the data (README, "Moving between servers").
constexpr const char* kRaiseMarks = R"sql(
SELECT snowflake_raise_mark(max(id)) FROM tweets;
SELECT snowflake_raise_mark(max(sony), 'sonyflake') FROM tweets;
SELECT shard_raise_mark(5, max(id)) FROM shard_5.photos;
SELECT shard_raise_mark(6, max(id)) FROM photos_b.photos;
)sql";

// Checks what each server version gives for the core names, on data moved over from the old
// server: the view and the generated column (both written schema-qualified by pg_dump) give the
// time of every UUIDv7; an unqualified call reaches core's function where the server has one, which
// on 17 reads version 1 only (NULL for v7), on 18 gives the same as ours.
void check_core_names(const std::string& dsn, int major) {
    pqxx::connection c(dsn);
    pqxx::nontransaction tx(c);
    const auto n = [&tx](const std::string& sql) { return tx.exec(sql)[0][0].as<long long>(); };
    EXPECT_EQ(n("SELECT count(*) FROM order_times WHERE t IS NULL OR v <> 7 OR lv <> 4"), 0);
    EXPECT_EQ(n("SELECT count(*) FROM orders WHERE placed_at IS DISTINCT FROM uuid_time(id)"), 0);
    const long long unqualified_null = n("SELECT count(*) FROM orders WHERE uuid_extract_timestamp(id) IS NULL");
    const long long rows = n("SELECT count(*) FROM orders");
    if (major == 17)
        EXPECT_EQ(unqualified_null, rows) << "core's uuid_extract_timestamp() on 17 reads version 1 only";
    else
        EXPECT_EQ(unqualified_null, 0);
    EXPECT_EQ(n("SELECT count(*) FROM orders WHERE public.uuid_extract_timestamp(id) IS DISTINCT FROM uuid_time(id)"),
              0);
    // The dump and pg_upgrade keep the version installed there: the build's default version.
    EXPECT_EQ(n("SELECT count(*) FROM pg_extension e JOIN pg_available_extensions a ON a.name = e.extname "
                "WHERE e.extname = 'id_gen' AND e.extversion = a.default_version"),
              1);
}

// ---------------------------------------------------------------------------------------------
// The old server: a cluster of the lowest major with the database above, dumped with its own
// pg_dump (plain and custom format) and with each target's pg_dump (custom), then stopped, for
// pg_upgrade.
struct Source {
    std::unique_ptr<Cluster> cluster;
    std::map<int, std::unique_ptr<Cluster>> restore_targets;  // one per newer major, made on first use
    Snapshot before;
    std::string plain, custom;
    std::map<int, std::string> target_custom;  // by the target's pg_dump
    std::string setup_error;
    std::string prev_version;  // the newest released version (kPrevDb's)
    std::string prev_counts;   // kPrevDb's rows per table before the move
};
Source* g_source = nullptr;

// kPrevDb: a few tables of the long-lived kinds, made under the newest released version's script.
constexpr const char* kPrevSchema = R"sql(
SELECT create_shard(9);
CREATE TABLE events (id ulid PRIMARY KEY DEFAULT gen_ulid(), n int);
CREATE TABLE tweets (id snowflake PRIMARY KEY DEFAULT gen_snowflake(), n int);
CREATE TABLE shard_9.photos (id bigint PRIMARY KEY DEFAULT shard_9.next_id(), n int);
INSERT INTO events (n) SELECT generate_series(1, 500);
INSERT INTO tweets (n) SELECT generate_series(1, 500);
INSERT INTO shard_9.photos (n) SELECT generate_series(1, 500);
)sql";
constexpr const char* kPrevCounts =
    "SELECT (SELECT count(DISTINCT id) FROM events) || ' ' || (SELECT count(DISTINCT id) FROM tweets) || ' ' || "
    "(SELECT count(DISTINCT id) FROM shard_9.photos)";

// Debian 12's PostgreSQL 15.20 stores a column option, pg_attver, in every column's attoptions.
// Its own pg_dump leaves it out; pg_dump of 17.11 and 18.6 (and so pg_upgrade to them) copies it,
// and those servers refuse it ("unrecognized parameter \"pg_attver\""), for any table, id_gen's or
// not. Before a newer major's pg_dump or pg_upgrade reads the old cluster, the option is removed
// from its catalog. Returns how many columns had it.
long long drop_unknown_column_option(const Cluster& c) {
    long long n = 0;
    for (const std::string db : {"template1", "postgres", kDb, kPrevDb}) {
        pqxx::connection conn(c.dsn(db));
        pqxx::nontransaction tx(conn);
        n +=
            tx.exec(
                  "UPDATE pg_catalog.pg_attribute SET attoptions = (SELECT pg_catalog.array_agg(o) FILTER (WHERE o NOT "
                  "LIKE 'pg_attver=%') FROM pg_catalog.unnest(attoptions) o) WHERE attoptions::text LIKE "
                  "'%pg_attver=%'")
                .affected_rows();
    }
    return n;
}

class SourceEnvironment : public testing::Environment {
public:
    void SetUp() override {
        g_source = new Source;
        try {
            build(*g_source);
        } catch (const std::exception& e) {
            g_source->setup_error = e.what();
        }
    }
    void TearDown() override {
        // Clusters first (their destructors stop them), then the rest.
        g_source->restore_targets.clear();
        delete g_source;
        g_source = nullptr;
    }

private:
    static void build(Source& s) {
        const int old = old_major();
        s.cluster =
            std::make_unique<Cluster>("old-" + std::to_string(old), old, port(kOldPort),
                                      std::vector<std::string>{"shared_preload_libraries = 'id_gen'",
                                                               "id_gen.node_id = 1", "id_gen.enable_test_clock = on"});
        Cluster& c = *s.cluster;
        c.start();
        c.exec("CREATE DATABASE " + std::string(kDb));
        {
            pqxx::connection conn(c.dsn(kDb));
            pqxx::nontransaction tx(conn);
            tx.exec(kSchema);
            tx.exec(std::string("SET id_gen.test_clock_offset = '") + kOldClockAhead + "'");
            tx.exec(kData);
        }
        // The clock offset did count: the snowflakes and shard IDs lie ahead of the real clock.
        if (c.value("SELECT count(*) FROM tweets WHERE snowflake_time(id) < clock_timestamp() + interval '50 minutes'",
                    kDb) != "0" ||
            c.value("SELECT count(*) FROM shard_5.photos WHERE shard_id_time(id) < clock_timestamp() + interval '50 "
                    "minutes'",
                    kDb) != "0")
            throw std::runtime_error("the old server's IDs are not ahead of its clock");
        s.before = snapshot(c.dsn(kDb));
        // The newest version with an install script that is not the default: the last release.
        s.prev_version = c.value(
            "SELECT version FROM pg_available_extension_versions WHERE name = 'id_gen' AND version <> "
            "(SELECT default_version FROM pg_available_extensions WHERE name = 'id_gen') "
            "ORDER BY string_to_array(version, '.')::int[] DESC LIMIT 1");
        if (s.prev_version.empty()) throw std::runtime_error("no released version of id_gen is installed");
        c.exec("CREATE DATABASE " + std::string(kPrevDb));
        {
            pqxx::connection conn(c.dsn(kPrevDb));
            pqxx::nontransaction tx(conn);
            tx.exec("CREATE EXTENSION id_gen VERSION '" + s.prev_version + "'");
            tx.exec(kPrevSchema);
            s.prev_counts = tx.exec(kPrevCounts)[0][0].as<std::string>();
        }
        if (s.prev_counts != "500 500 500") throw std::runtime_error("kPrevDb's rows: " + s.prev_counts);
        s.plain = work() + "/app.sql";
        s.custom = work() + "/app.dump";
        if (run(shell_quote(c.bin("pg_dump")) + " " + c.conn_args() + " -f " + shell_quote(s.plain) + " " + kDb) != 0 ||
            run(shell_quote(c.bin("pg_dump")) + " -Fc " + c.conn_args() + " -f " + shell_quote(s.custom) + " " + kDb) !=
                0)
            throw std::runtime_error("pg_dump of the old server failed");
        const long long dropped = drop_unknown_column_option(c);
        if (dropped > 0)
            std::cout << "note: removed the column option pg_attver (PostgreSQL " << old
                      << " as packaged by Debian; later majors here do not know it) from " << dropped
                      << " columns of the old cluster before newer majors' pg_dump and pg_upgrade read it\n";
        for (int t : target_majors()) {
            const std::string file = work() + "/app-by-" + std::to_string(t) + ".dump";
            if (run(shell_quote(bindir(t) + "/pg_dump") + " -Fc " + c.conn_args() + " -f " + shell_quote(file) + " " +
                    kDb) != 0)
                throw std::runtime_error("pg_dump of PostgreSQL " + std::to_string(t) + " failed on the old server");
            s.target_custom[t] = file;
        }
        c.stop();
    }
};

const testing::Environment* const g_env = testing::AddGlobalTestEnvironment(new SourceEnvironment);

#define REQUIRE_SOURCE()                                                            \
    do {                                                                            \
        ASSERT_NE(g_source, nullptr);                                               \
        ASSERT_EQ(g_source->setup_error, "") << "setting up the old server failed"; \
    } while (0)

// ---------------------------------------------------------------------------------------------
// Dump on the old server, restore on a newer one.
enum class DumpKind { kPlainByOld, kCustomByOld, kCustomByTarget };
struct DumpCase {
    int target;
    DumpKind kind;
};
void PrintTo(const DumpCase& c, std::ostream* os) {
    *os << "PostgreSQL " << c.target << ", dump kind " << static_cast<int>(c.kind);
}
std::string dump_name(const testing::TestParamInfo<DumpCase>& i) {
    const char* k = i.param.kind == DumpKind::kPlainByOld    ? "PlainDumpByOld"
                    : i.param.kind == DumpKind::kCustomByOld ? "CustomDumpByOld"
                                                             : "CustomDumpByTarget";
    return std::string(k) + "To" + std::to_string(i.param.target);
}
std::vector<DumpCase> dump_cases() {
    std::vector<DumpCase> v;
    for (int t : target_majors())
        for (DumpKind k : {DumpKind::kPlainByOld, DumpKind::kCustomByOld, DumpKind::kCustomByTarget})
            v.push_back({t, k});
    return v;
}

// The server of major `target` that dumps are restored on: one per major, each dump into a
// database of its own (the node generators are the server's: the second restore's raise of their
// marks finds them raised already).
Cluster& restore_target(int target) {
    auto& c = g_source->restore_targets[target];
    if (!c) {
        const auto majors = target_majors();
        const int index = static_cast<int>(std::find(majors.begin(), majors.end(), target) - majors.begin());
        c = std::make_unique<Cluster>("restore-" + std::to_string(target), target,
                                      port(static_cast<Port>(kRestorePort + index)),
                                      std::vector<std::string>{"shared_preload_libraries = 'id_gen'",
                                                               "id_gen.node_id = 1", "id_gen.enable_test_clock = on"});
        c->start();
    }
    return *c;
}

class DumpRestore : public testing::TestWithParam<DumpCase> {};

TEST_P(DumpRestore, RestoresTheSameDatabaseAndGeneratorsContinueAboveIt) {
    REQUIRE_SOURCE();
    const DumpCase dc = GetParam();
    Cluster& dst = restore_target(dc.target);
    const std::string db = std::string(kDb) + "_" + std::to_string(static_cast<int>(dc.kind));
    dst.exec("CREATE DATABASE " + db + " TEMPLATE template0");
    const std::string log = dst.dir() + "/restore-" + db + ".log";
    const std::string into = " " + dst.conn_args() + " -d " + db + " ";
    int rc = 0;
    if (dc.kind == DumpKind::kPlainByOld)
        rc = run(shell_quote(dst.bin("psql")) + " -X -q -v ON_ERROR_STOP=1" + into + "-f " +
                     shell_quote(g_source->plain) + " >" + shell_quote(log) + " 2>&1",
                 log);
    else
        rc = run(shell_quote(dst.bin("pg_restore")) + " --exit-on-error" + into +
                     shell_quote(dc.kind == DumpKind::kCustomByOld ? g_source->custom
                                                                   : g_source->target_custom.at(dc.target)) +
                     " >" + shell_quote(log) + " 2>&1",
                 log);
    ASSERT_EQ(rc, 0) << "restore failed: " << read_file(log);

    const Snapshot after = snapshot(dst.dsn(db));
    expect_same(g_source->before, after, "after the restore");
    // The defaults call id_gen's functions, by their schema: what made a dump taken on 15 fail to
    // restore on 18 (public.uuidv7()) and on 17 (public.uuid_extract_timestamp) before 0.2.0.
    EXPECT_NE(after.defaults.find("public.uuidv7()"), std::string::npos) << after.defaults;
    EXPECT_NE(after.view_functions.find("public.order_times calls public.uuid_extract_timestamp(uuid)"),
              std::string::npos)
        << after.view_functions;
    EXPECT_EQ(after.core_names.find("pg_catalog."), std::string::npos) << after.core_names;
    check_indexes(dst.dsn(db));
    check_core_names(dst.dsn(db), dc.target);

    // A fresh server's generators start at its clock, behind the old server's IDs (its clock ran an
    // hour ahead): raise their marks from the data, then every new ID is above the restored ones.
    dst.exec(kRaiseMarks, db);
    expect_generators_continue(dst.dsn(db), g_source->before, "after the restore");
}

INSTANTIATE_TEST_SUITE_P(CrossVersion, DumpRestore, testing::ValuesIn(dump_cases()), dump_name);

// ---------------------------------------------------------------------------------------------
// pg_upgrade from the old server to a newer one.
class PgUpgrade : public testing::TestWithParam<int> {};

TEST_P(PgUpgrade, KeepsDataIndexesAndEveryIdAboveTheOldServers) {
    REQUIRE_SOURCE();
    const int target = GetParam();
    const Cluster& old = *g_source->cluster;
    ASSERT_FALSE(old.running());
    // 18's initdb turns data checksums on by default; the old cluster has none, so the new one must
    // not have them either. One target without preloading (generator state in the DSM registry on
    // 17 and later), the other with it.
    std::vector<std::string> conf = {"id_gen.node_id = 1", "id_gen.enable_test_clock = on"};
    if (target % 2 == 1) conf.push_back("shared_preload_libraries = 'id_gen'");
    Cluster nw("upgrade-" + std::to_string(target), target, port(kUpgradeTargetPort), conf,
               target >= 18 ? std::vector<std::string>{"--no-data-checksums"} : std::vector<std::string>{});
    const std::string log = nw.dir() + "/pg_upgrade.log";
    ASSERT_EQ(run_as_pg("cd " + shell_quote(nw.dir()) + " && " + shell_quote(nw.bin("pg_upgrade")) + " -b " +
                            shell_quote(bindir(old.major())) + " -B " + shell_quote(bindir(target)) + " -d " +
                            shell_quote(old.pgdata()) + " -D " + shell_quote(nw.pgdata()) + " -p " +
                            std::to_string(port(kUpgradeOldPort)) + " -P " + std::to_string(port(kUpgradeNewPort)) +
                            " -s " + shell_quote(nw.dir()) + " -U postgres >" + shell_quote(log) + " 2>&1",
                        log),
              0)
        << read_file(log);
    // The documented step: the generators' state directory, which pg_upgrade does not copy, is
    // copied into the new data directory before the new server first starts.
    ASSERT_EQ(run_as_pg("cp -a " + shell_quote(old.pgdata() + "/pg_idgen") + " " + shell_quote(nw.pgdata() + "/")), 0);
    nw.start();

    const Snapshot after = snapshot(nw.dsn(kDb));
    expect_same(g_source->before, after, "after pg_upgrade");
    // Shard state files are named by database OID, which pg_upgrade keeps (since PostgreSQL 15).
    EXPECT_EQ(after.datoid, g_source->before.datoid);
    check_indexes(nw.dsn(kDb));
    check_core_names(nw.dsn(kDb), target);
    // The old server's marks crossed with pg_idgen/: new IDs are above the old ones, which are an
    // hour ahead of this server's clock.
    expect_generators_continue(nw.dsn(kDb), g_source->before, "after pg_upgrade with the old pg_idgen/");

    // The database at the newest released version crossed at that version, and updates there.
    {
        SCOPED_TRACE("the database made at " + g_source->prev_version);
        EXPECT_EQ(nw.value("SELECT extversion FROM pg_extension WHERE extname = 'id_gen'", kPrevDb),
                  g_source->prev_version);
        EXPECT_EQ(nw.value(kPrevCounts, kPrevDb), g_source->prev_counts);
        nw.exec("ALTER EXTENSION id_gen UPDATE", kPrevDb);
        EXPECT_EQ(nw.value("SELECT e.extversion = a.default_version FROM pg_extension e JOIN pg_available_extensions a "
                           "ON a.name = e.extname WHERE e.extname = 'id_gen'",
                           kPrevDb),
                  "t");
        EXPECT_NE(nw.value("SELECT extversion FROM pg_extension WHERE extname = 'id_gen'", kPrevDb),
                  g_source->prev_version);
        // Every generator issues above what the old server issued (the old pg_idgen/ crossed too).
        nw.exec(
            "INSERT INTO events (n) SELECT generate_series(501, 600); INSERT INTO tweets (n) SELECT "
            "generate_series(501, 600); INSERT INTO shard_9.photos (n) SELECT generate_series(501, 600)",
            kPrevDb);
        EXPECT_EQ(nw.value(kPrevCounts, kPrevDb), "600 600 600");
        EXPECT_EQ(nw.value("SELECT bool_and(e.id > o.m) FROM events e, (SELECT max(id) m FROM events WHERE n <= 500) o "
                           "WHERE e.n > 500",
                           kPrevDb),
                  "t");
        EXPECT_EQ(nw.value("SELECT bool_and(p.id > o.m) FROM shard_9.photos p, (SELECT max(id) m FROM shard_9.photos "
                           "WHERE n <= 500) o WHERE p.n > 500",
                           kPrevDb),
                  "t");
        EXPECT_EQ(nw.value("SELECT count(*) FROM shard_9.photos WHERE shard_id_shard(id) <> 9", kPrevDb), "0");
    }

    // Without the old pg_idgen/, a new server starts at its own clock: below the old server's IDs.
    // Raising the marks from the data is the way back.
    nw.stop();
    ASSERT_EQ(run_as_pg("rm -rf " + shell_quote(nw.pgdata() + "/pg_idgen")), 0);
    nw.start();
    const Snapshot now = snapshot(nw.dsn(kDb));
    EXPECT_EQ(nw.value("SELECT gen_snowflake() < max(id) FROM tweets", kDb), "t");
    EXPECT_EQ(nw.value("SELECT shard_5.next_id() < max(id) FROM shard_5.photos", kDb), "t");
    nw.exec(kRaiseMarks, kDb);
    expect_generators_continue(nw.dsn(kDb), now, "after pg_upgrade without pg_idgen/, marks raised");
}

INSTANTIATE_TEST_SUITE_P(CrossVersion, PgUpgrade, testing::ValuesIn(target_majors()),
                         [](const testing::TestParamInfo<int>& i) { return "To" + std::to_string(i.param); });

}  // namespace
