// id_permute(): what needs a real server beyond pg_regress — keys carried by pg_dump and restore
// (then unpermuted, and new IDs that do not collide with restored ones), many sessions inserting
// through a sequence's DEFAULT at once, one session's key cache following another session's
// committed change (inside an open transaction too, at every isolation level, and when the change
// is made in replica mode), the key material leaving the backend's memory once a deletion is
// processed, no constraint failure on the key table printing a key, parallel workers
// computing what the leader computes, and the AES-NI path (with its runs of consecutive values)
// computing what the OpenSSL fallback computes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fcntl.h>
#include <fstream>
#include <pqxx/pqxx>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include "common.h"

namespace {

std::string conn_args() {
    return "-h '" + idgen::it::env_or("PGHOST", "/tmp") + "' -p " + idgen::it::env_or("PGPORT", "5432") + " -U " +
           idgen::it::env_or("PGUSER", "postgres");
}

std::string one(const std::string& dsn, const std::string& sql) {
    pqxx::connection c(dsn);
    pqxx::nontransaction tx(c);
    const auto r = tx.exec1(sql);
    return r.at(0).is_null() ? "NULL" : r.at(0).c_str();
}

// The keys as a superuser sees them (their bytes included), in one line.
const char* kKeys =
    "SELECT string_agg(name || ':' || encode(key, 'hex') || ':' || domain || ':' || tweak, ';' ORDER BY name) "
    "FROM permute_keys";

TEST(Permute, DumpAndRestoreCarryTheKeys) {
    idgen::it::ScratchDb src("it_permute_dump_src");
    {
        pqxx::connection c(src.dsn());
        pqxx::nontransaction tx(c);
        tx.exec("SELECT id_permute_key('orders'), id_permute_key('js', domain => 9007199254740991, tweak => 'js_seq')");
        tx.exec("CREATE SEQUENCE orders_seq");
        tx.exec(
            "CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT id_permute(nextval('orders_seq'), 'orders'), "
            "js bigint, n bigint)");
        tx.exec("INSERT INTO orders (n) SELECT g FROM generate_series(1, 300) g");
        tx.exec("UPDATE orders SET js = id_permute(n, 'js')");
    }
    const std::string keys = one(src.dsn(), kKeys);
    ASSERT_NE(keys, "NULL");

    const std::string file =
        idgen::it::env_or("IDGEN_WORK", "/tmp") + "/permute_dump_" + std::to_string(getpid()) + ".dump";
    ASSERT_EQ(idgen::it::run_pg_tool("pg_dump", conn_args() + " -Fc -f '" + file + "' " + src.name()), 0);
    const std::string dst_name = "it_permute_dump_dst";
    {
        pqxx::connection admin(idgen::it::dsn());
        pqxx::nontransaction tx(admin);
        tx.exec("DROP DATABASE IF EXISTS " + dst_name + " WITH (FORCE)");
        tx.exec("CREATE DATABASE " + dst_name);
    }
    const int rc =
        idgen::it::run_pg_tool("pg_restore", conn_args() + " --exit-on-error -d " + dst_name + " '" + file + "'");
    std::remove(file.c_str());
    ASSERT_EQ(rc, 0);
    const std::string dst = idgen::it::dsn(dst_name);
    // The same keys, byte for byte; every stored ID maps back to its counter value.
    EXPECT_EQ(one(dst, kKeys), keys);
    EXPECT_EQ(one(dst,
                  "SELECT count(*) FILTER (WHERE id_unpermute(id, 'orders') = n AND id_unpermute(js, 'js') = n) "
                  "FROM orders"),
              "300");
    // New IDs from the restored sequence under the restored key: unique among the old ones.
    {
        pqxx::connection c(dst);
        pqxx::nontransaction tx(c);
        tx.exec("INSERT INTO orders (n) SELECT g FROM generate_series(301, 600) g");
    }
    EXPECT_EQ(one(dst, "SELECT count(DISTINCT id) || ' ' || bool_and(id_unpermute(id, 'orders') = n) FROM orders"),
              "600 true");
    pqxx::connection admin(idgen::it::dsn());
    pqxx::nontransaction tx(admin);
    tx.exec("DROP DATABASE IF EXISTS " + dst_name + " WITH (FORCE)");
}

// A role that cannot read the keys gets an error from pg_dump, not a dump without them.
TEST(Permute, DumpByARoleThatCannotReadTheKeysFails) {
    idgen::it::ScratchDb db("it_permute_dump_role");
    {
        pqxx::connection c(db.dsn());
        pqxx::nontransaction tx(c);
        tx.exec("SELECT id_permute_key('orders')");
        tx.exec("DROP ROLE IF EXISTS it_permute_dumper");
        tx.exec("CREATE ROLE it_permute_dumper LOGIN");
    }
    const std::string file = idgen::it::env_or("IDGEN_WORK", "/tmp") + "/permute_role_" + std::to_string(getpid());
    const std::string args = "-h '" + idgen::it::env_or("PGHOST", "/tmp") + "' -p " +
                             idgen::it::env_or("PGPORT", "5432") + " -U it_permute_dumper -f '" + file + ".sql' " +
                             db.name() + " 2>'" + file + ".err'";
    const int rc = idgen::it::run_pg_tool("pg_dump", args);
    std::string err;
    if (FILE* f = std::fopen((file + ".err").c_str(), "r")) {
        char buf[4096];
        const std::size_t n = std::fread(buf, 1, sizeof buf, f);
        err.assign(buf, n);
        std::fclose(f);
    }
    std::remove((file + ".sql").c_str());
    std::remove((file + ".err").c_str());
    EXPECT_NE(rc, 0);
    EXPECT_NE(err.find("permission denied for table"), std::string::npos) << err;
    pqxx::connection admin(idgen::it::dsn());
    pqxx::nontransaction tx(admin);
    tx.exec("DROP DATABASE IF EXISTS " + db.name() + " WITH (FORCE)");
    tx.exec("DROP ROLE IF EXISTS it_permute_dumper");
}

TEST(Permute, ConcurrentDefaultsNeverCollide) {
    idgen::it::ScratchDb db("it_permute_concurrent");
    {
        pqxx::connection c(db.dsn());
        pqxx::nontransaction tx(c);
        tx.exec("SELECT id_permute_key('orders', domain => 1000000)");
        tx.exec("CREATE SEQUENCE orders_seq MAXVALUE 1000000");
        tx.exec(
            "CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT id_permute(nextval('orders_seq'), 'orders'), "
            "conn int)");
    }
    constexpr int kConns = 8, kRows = 2000, kBatches = 10;
    std::vector<std::string> errors(kConns);
    std::vector<std::thread> threads;
    for (int i = 0; i < kConns; ++i) {
        threads.emplace_back([&, i] {
            try {
                pqxx::connection c(db.dsn());
                pqxx::nontransaction tx(c);
                for (int b = 0; b < kBatches; ++b)
                    tx.exec("INSERT INTO orders (conn) SELECT " + std::to_string(i) + " FROM generate_series(1, " +
                            std::to_string(kRows / kBatches) + ")");
            } catch (const std::exception& e) {
                errors[i] = e.what();
            }
        });
    }
    for (auto& t : threads) t.join();
    for (int i = 0; i < kConns; ++i) EXPECT_EQ(errors[i], "") << "connection " << i;
    // The primary key already refuses a duplicate; the IDs map back to exactly the sequence's values.
    EXPECT_EQ(one(db.dsn(),
                  "SELECT count(*) || ' ' || count(DISTINCT id) || ' ' || min(id_unpermute(id, 'orders')) || ' ' || "
                  "max(id_unpermute(id, 'orders')) || ' ' || count(DISTINCT id_unpermute(id, 'orders')) FROM orders"),
              "16000 16000 1 16000 16000");
    EXPECT_EQ(one(db.dsn(), "SELECT min(id) >= 1 AND max(id) <= 1000000 FROM orders"), "t");
}

TEST(Permute, SessionsFollowCommittedKeyChanges) {
    idgen::it::ScratchDb db("it_permute_cache");
    pqxx::connection a(db.dsn()), b(db.dsn());
    {
        pqxx::nontransaction tx(b);
        tx.exec("SELECT id_permute_key('k')");
    }
    auto value = [&](const std::string& tweak) {
        pqxx::nontransaction tx(a);
        return tx.exec1("SELECT id_permute(5, 'k'" + (tweak.empty() ? std::string() : ", " + tx.quote(tweak)) + ")")
            .at(0)
            .as<long long>();
    };
    const long long first = value("");
    EXPECT_EQ(value(""), first);  // cached
    {
        // An uncommitted change is not seen; the committed one is, at A's next call.
        pqxx::work tx(b);
        tx.exec("UPDATE permute_keys SET tweak = 'k2' WHERE name = 'k'");
        EXPECT_EQ(value(""), first);
        tx.commit();
    }
    EXPECT_EQ(value(""), value("k2"));
    EXPECT_NE(value(""), first);
    {
        pqxx::nontransaction tx(b);
        tx.exec("DELETE FROM permute_keys WHERE name = 'k'");
    }
    try {
        value("");
        ADD_FAILURE() << "a deleted key was still used";
    } catch (const pqxx::sql_error& e) {
        EXPECT_EQ(e.sqlstate(), "42704") << e.what();
    }
    {
        // The same name again: a new random key, not the cached one.
        pqxx::nontransaction tx(b);
        tx.exec("SELECT id_permute_key('k')");
    }
    EXPECT_NE(value(""), first);
}

// The SQLSTATE `sql` fails with on `tx`, "" when it succeeds.
template <class Tx>
std::string sqlstate_of(Tx& tx, const std::string& sql) {
    try {
        tx.exec(sql);
    } catch (const pqxx::sql_error& e) {
        return e.sqlstate();
    }
    return "";
}

// A key deleted by another session is refused by the next statement of a session that used it,
// inside an open READ COMMITTED transaction too: holding the table's lock already, the session
// would not process the invalidation on its own.
TEST(Permute, OpenReadCommittedTransactionRefusesADeletedKey) {
    idgen::it::ScratchDb db("it_permute_rc");
    pqxx::connection a(db.dsn()), b(db.dsn());
    pqxx::nontransaction(b).exec("SELECT id_permute_key('k')");
    pqxx::work tx(a);
    tx.exec1("SELECT id_permute(5, 'k')");
    pqxx::nontransaction(b).exec("DELETE FROM permute_keys WHERE name = 'k'");
    EXPECT_EQ(sqlstate_of(tx, "SELECT id_permute(5, 'k')"), "42704");
}

// REPEATABLE READ and SERIALIZABLE: the transaction's snapshot still sees a key deleted since it
// began, but the key is read as the catalogs are, current: the next statement refuses it. A key
// read while the deletion's invalidation is being processed is not kept past it either.
TEST(Permute, RepeatableReadAndSerializableRefuseADeletedKey) {
    idgen::it::ScratchDb db("it_permute_rr");
    pqxx::connection a(db.dsn()), b(db.dsn());
    for (const char* level : {"REPEATABLE READ", "SERIALIZABLE"}) {
        SCOPED_TRACE(level);
        // Cached in the transaction, deleted, refused.
        pqxx::nontransaction(b).exec("SELECT id_permute_key('k')");
        {
            pqxx::nontransaction tx(a);
            tx.exec(std::string("BEGIN ISOLATION LEVEL ") + level);
            tx.exec1("SELECT id_permute(5, 'k')");
            pqxx::nontransaction(b).exec("DELETE FROM permute_keys WHERE name = 'k'");
            EXPECT_EQ(sqlstate_of(tx, "SELECT id_permute(5, 'k')"), "42704");
            tx.exec("ROLLBACK");
        }
        // Cached before the transaction, deleted after its snapshot: refused in it, and after it.
        pqxx::nontransaction(b).exec("SELECT id_permute_key('k')");
        {
            pqxx::nontransaction tx(a);
            tx.exec1("SELECT id_permute(5, 'k')");
            tx.exec(std::string("BEGIN ISOLATION LEVEL ") + level);
            tx.exec1("SELECT count(*) FROM pg_class");  // takes the snapshot
            pqxx::nontransaction(b).exec("DELETE FROM permute_keys WHERE name = 'k'");
            EXPECT_EQ(one(db.dsn(), "SELECT count(*) FROM permute_keys"), "0");
            EXPECT_EQ(sqlstate_of(tx, "SELECT id_permute(5, 'k')"), "42704");
            tx.exec("ROLLBACK");
            EXPECT_EQ(sqlstate_of(tx, "SELECT id_permute(5, 'k')"), "42704");
        }
    }
}

// A change made with session_replication_role = replica (how logical replication applies rows)
// reaches a warm session all the same: its next statement uses the new key, or refuses a deleted one.
TEST(Permute, ChangesInReplicaModeReachWarmSessions) {
    idgen::it::ScratchDb db("it_permute_replica");
    pqxx::connection a(db.dsn()), b(db.dsn());
    pqxx::nontransaction tb(b);
    tb.exec("SELECT id_permute_key('k'), id_permute_key('other')");
    pqxx::nontransaction ta(a);
    const long long first = ta.exec1("SELECT id_permute(5, 'k')").at(0).as<long long>();
    tb.exec("SET session_replication_role = replica");
    // Another key's bytes under the same name: what an UPDATE replicated from elsewhere does.
    tb.exec("UPDATE permute_keys SET key = (SELECT key FROM permute_keys WHERE name = 'other') WHERE name = 'k'");
    const long long now = ta.exec1("SELECT id_permute(5, 'k')").at(0).as<long long>();
    EXPECT_NE(now, first) << "the replaced key was still used from the cache";
    EXPECT_EQ(now, ta.exec1("SELECT id_permute(5, 'other', 'k')").at(0).as<long long>());
    tb.exec("DELETE FROM permute_keys WHERE name = 'k'");
    EXPECT_EQ(sqlstate_of(ta, "SELECT id_permute(5, 'k')"), "42704");
    tb.exec("RESET session_replication_role");
}

// Bytes of /proc/<pid>/mem in the process's private readable mappings (not shared memory: the
// key's row sits in shared buffers whatever the backend does). Counts the occurrences of `needle`;
// -1 if the memory cannot be read.
long count_in_private_memory(int pid, const std::string& needle) {
    std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
    const int fd = ::open(("/proc/" + std::to_string(pid) + "/mem").c_str(), O_RDONLY);
    if (!maps || fd < 0) {
        if (fd >= 0) ::close(fd);
        return -1;
    }
    long found = 0;
    bool read_any = false;
    std::string line;
    std::vector<char> buf;
    while (std::getline(maps, line)) {
        std::istringstream in(line);
        std::string range, perms;
        in >> range >> perms;
        if (perms.size() < 4 || perms[0] != 'r' || perms[3] != 'p') continue;
        const auto dash = range.find('-');
        const unsigned long lo = std::stoul(range.substr(0, dash), nullptr, 16);
        const unsigned long hi = std::stoul(range.substr(dash + 1), nullptr, 16);
        buf.resize(hi - lo);
        const ssize_t n = ::pread(fd, buf.data(), buf.size(), static_cast<off_t>(lo));
        if (n <= 0) continue;
        read_any = true;
        auto it = buf.begin(), end = buf.begin() + n;
        while ((it = std::search(it, end, needle.begin(), needle.end())) != end) {
            ++found;
            ++it;
        }
    }
    ::close(fd);
    return read_any ? found : -1;
}

std::string unhex(const std::string& hex) {
    std::string out;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
        out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
    return out;
}

// Once a session has processed the invalidation of a deleted key (at its next transaction), the
// key's bytes are gone from its memory, before any further call of the permutation.
TEST(Permute, DeletedKeyIsWipedFromMemoryWhenTheInvalidationIsProcessed) {
    idgen::it::ScratchDb db("it_permute_wipe");
    pqxx::connection a(db.dsn()), b(db.dsn());
    pqxx::nontransaction tb(b);
    tb.exec("SELECT id_permute_key('k')");
    const std::string key =
        unhex(tb.exec1("SELECT encode(key, 'hex') FROM permute_keys WHERE name = 'k'").at(0).c_str());
    ASSERT_EQ(key.size(), 16u);
    pqxx::nontransaction ta(a);
    const int pid = ta.exec1("SELECT pg_backend_pid()").at(0).as<int>();
    ta.exec1("SELECT id_permute(5, 'k')");
    // The expanded AES key begins with the key: as is (AES-NI, ARMv8), or as four big-endian
    // words in host order (OpenSSL's portable code).
    std::string swapped = key;
    for (std::size_t i = 0; i < swapped.size(); i += 4) std::reverse(swapped.begin() + i, swapped.begin() + i + 4);
    auto count = [&] {
        const long raw = count_in_private_memory(pid, key), words = count_in_private_memory(pid, swapped);
        return raw < 0 || words < 0 ? -1 : raw + words;
    };
    const long before = count();
    if (before < 0) GTEST_SKIP() << "cannot read the memory of backend " << pid << " (needs ptrace rights over it)";
    ASSERT_GT(before, 0) << "the cached key (the expanded AES key starts with it) should be in the backend's memory";
    tb.exec("DELETE FROM permute_keys WHERE name = 'k'");
    ta.exec1("SELECT 1");  // a new transaction processes the invalidation; no permutation call
    EXPECT_EQ(count(), 0) << "the deleted key is still in the backend's memory";
}

std::string read_file(const std::string& path) {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

// No failed check on permute_keys prints the row (PostgreSQL's "Failing row contains (...)"),
// which holds the key: neither to the client nor into the server log.
TEST(Permute, ConstraintFailuresNeverPrintTheKey) {
    idgen::it::ScratchDb db("it_permute_checks");
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    tx.exec("SELECT id_permute_key('k')");
    const std::string hex = tx.exec1("SELECT encode(key, 'hex') FROM permute_keys WHERE name = 'k'").at(0).c_str();
    const std::string log_path = idgen::it::main_cluster().log;
    const std::size_t log_start = read_file(log_path).size();
    const std::vector<std::pair<std::string, std::string>> bad = {
        {"UPDATE permute_keys SET domain = 5", "23514"},
        {"UPDATE permute_keys SET tweak = repeat('t', 300)", "23514"},
        {"UPDATE permute_keys SET name = ''", "23514"},
        {"UPDATE permute_keys SET name = repeat('n', 64)", "23514"},
        {"UPDATE permute_keys SET key = key || '\\x00'::bytea", "23514"},
        {"UPDATE permute_keys SET name = NULL", "23502"},
        {"UPDATE permute_keys SET key = NULL", "23502"},
        {"UPDATE permute_keys SET domain = NULL", "23502"},
        {"UPDATE permute_keys SET tweak = NULL", "23502"},
        {"UPDATE permute_keys SET created_at = NULL", "23502"},
        {"INSERT INTO permute_keys (name, key, domain, tweak) SELECT 'k2', key, 10, 'k2' FROM permute_keys", "23514"},
        {"INSERT INTO permute_keys (name, key, domain, tweak) SELECT 'k2', key, domain, NULL FROM permute_keys",
         "23502"},
    };
    for (const auto& [sql, state] : bad) {
        try {
            tx.exec(sql);
            ADD_FAILURE() << sql << ": accepted";
        } catch (const pqxx::sql_error& e) {
            const std::string text = e.what();
            EXPECT_EQ(e.sqlstate(), state) << sql << ": " << text;
            EXPECT_EQ(text.find(hex), std::string::npos) << sql << " printed the key: " << text;
            EXPECT_EQ(text.find("Failing row"), std::string::npos) << sql << ": " << text;
        }
    }
    // The key is unchanged, and the server log (errors with their DETAIL) holds none of its bytes.
    EXPECT_EQ(one(db.dsn(), "SELECT encode(key, 'hex') || ' ' || domain FROM permute_keys"),
              hex + " 9223372036854775807");
    tx.exec("SELECT pg_catalog.pg_sleep(0.2)");  // the logging collector is not involved: stderr to the file
    const std::string log = read_file(log_path).substr(log_start);
    EXPECT_NE(log.find("permute_keys"), std::string::npos) << "the errors should be in the server log";
    EXPECT_EQ(log.find(hex), std::string::npos) << "the server log holds the key";
}

TEST(Permute, ParallelWorkersComputeWhatTheLeaderDoes) {
    idgen::it::ScratchDb db("it_permute_parallel");
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    tx.exec("SELECT id_permute_key('p')");
    tx.exec("CREATE TABLE t AS SELECT g::bigint AS n FROM generate_series(1, 200000) g");
    tx.exec("ANALYZE t");
    const std::string q =
        "SELECT sum(id_permute(n, 'p') % 1000003) || ' ' || count(DISTINCT id_permute(n, 'p') % 1000003) FROM t "
        "WHERE id_permute(n, 'p') % 2 = 0";
    tx.exec("SET max_parallel_workers_per_gather = 0");
    const std::string serial = tx.exec1(q).at(0).c_str();
    tx.exec("SET max_parallel_workers_per_gather = 2");
    tx.exec("SET parallel_setup_cost = 0");
    tx.exec("SET parallel_tuple_cost = 0");
    tx.exec("SET min_parallel_table_scan_size = 0");
    std::string plan;
    for (const auto& row : tx.exec("EXPLAIN (COSTS OFF) " + q)) plan += std::string(row[0].c_str()) + "\n";
    EXPECT_NE(plan.find("Gather"), std::string::npos) << plan;
    EXPECT_EQ(tx.exec1(q).at(0).c_str(), serial);
}

// The AES-NI path and the OpenSSL fallback (forced with id_gen.permute_aes_ni = off) give the
// same values, in order (runs of consecutive values made ahead) and out of order, both ways, with
// and without a tweak, on a domain where values walk. A run made ahead is forgotten with its key:
// after another session replaces the key, the next value in order is the new key's.
TEST(Permute, AesNiAndOpenSslAgreeAndRunsFollowTheKey) {
    idgen::it::ScratchDb db("it_permute_paths");
    pqxx::connection a(db.dsn()), b(db.dsn());
    auto in_b = [&](const std::string& sql) {
        pqxx::nontransaction tx(b);
        const auto r = tx.exec(sql);
        return r.empty() || r[0][0].is_null() ? std::string("NULL") : std::string(r[0][0].c_str());
    };
    in_b("SELECT id_permute_key('k')");
    in_b("SELECT id_permute_key('small', domain => 1000000)");
    pqxx::nontransaction tx(a);
    const std::string in_order = "FROM generate_series(1, 300) g", out_of_order =
                                                                       "FROM (SELECT (g * 7919) % 1000 + 1 AS g "
                                                                       "FROM generate_series(1, 300) g) s";
    auto values = [&](const std::string& call, const std::string& from) {
        return std::string(tx.exec1("SELECT string_agg(g || ':' || " + call + ", ',') " + from).at(0).c_str());
    };
    const std::vector<std::string> calls = {"id_permute(g, 'k')", "id_unpermute(g, 'k')", "id_permute(g, 'k', 't2')",
                                            "id_permute(g, 'small')", "id_unpermute(g, 'small')"};
    std::vector<std::string> fast;
    for (const auto& c : calls)
        for (const auto& f : {in_order, out_of_order}) fast.push_back(values(c, f));
    EXPECT_EQ(
        tx.exec1("SELECT bool_and(id_unpermute(id_permute(g, 'small'), 'small') = g) " + in_order).at(0).as<bool>(),
        true);
    tx.exec("SET id_gen.permute_aes_ni = off");
    std::size_t k = 0;
    for (const auto& c : calls)
        for (const auto& f : {in_order, out_of_order}) EXPECT_EQ(values(c, f), fast[k++]) << c << " " << f;
    tx.exec("RESET id_gen.permute_aes_ni");

    // A run made ahead (values 2 to 9) is not used after the key is replaced.
    tx.exec("SELECT id_permute(1, 'k'), id_permute(2, 'k')");
    in_b("DELETE FROM permute_keys WHERE name = 'k'");
    in_b("SELECT id_permute_key('k')");
    const std::string fresh = in_b("SELECT id_permute(3, 'k')");
    EXPECT_EQ(std::string(tx.exec1("SELECT id_permute(3, 'k')").at(0).c_str()), fresh);

    // Only superusers switch the path.
    in_b("DROP ROLE IF EXISTS it_permute_paths_app; CREATE ROLE it_permute_paths_app");
    tx.exec("SET ROLE it_permute_paths_app");
    try {
        tx.exec("SET id_gen.permute_aes_ni = off");
        ADD_FAILURE() << "a non-superuser switched the AES path";
    } catch (const pqxx::sql_error& e) {
        EXPECT_NE(std::string(e.what()).find("permission denied to set parameter"), std::string::npos) << e.what();
    }
    tx.exec("RESET ROLE");
    in_b("DROP ROLE it_permute_paths_app");
}

}  // namespace
