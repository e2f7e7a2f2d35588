// Prefixed-ID trust with a real second role that logs in by itself: the owner of a database (so
// of its public schema, PostgreSQL 15+) renames public and plants look-alikes of the registry and
// of the extension's functions; a superuser then registers, reads, generates and unregisters. And
// prefix_register() under contention: one registration wins, every other one names its owner. And
// gen_prefixed()'s per-session cache of registered prefixes following other sessions' changes.
#include <gtest/gtest.h>

#include <atomic>
#include <pqxx/pqxx>
#include <string>
#include <thread>
#include <vector>

#include "common.h"

namespace {

using idgen::it::env_or;

std::string dsn_of(const std::string& db, const std::string& user = "postgres") {
    return "host=" + env_or("PGHOST", "/tmp") + " port=" + env_or("PGPORT", "5432") + " user=" + user + " dbname=" + db;
}

void exec(const std::string& dsn, const std::string& sql) {
    pqxx::connection conn(dsn);
    pqxx::nontransaction tx(conn);
    tx.exec(sql);
}

std::string one_text(const std::string& dsn, const std::string& sql) {
    pqxx::connection conn(dsn);
    pqxx::nontransaction tx(conn);
    const auto r = tx.exec(sql);
    return r[0][0].is_null() ? "<null>" : r[0][0].c_str();
}

std::string sqlstate_of(const std::string& dsn, const std::string& sql) {
    try {
        exec(dsn, sql);
    } catch (const pqxx::insufficient_privilege& e) {
        return e.sqlstate().empty() ? "42501" : e.sqlstate();
    } catch (const pqxx::sql_error& e) {
        return e.sqlstate();
    }
    return "";
}

// A login role and a database it owns, with the extension installed by the superuser.
class OwnedDb {
public:
    OwnedDb(std::string role, std::string db) : role_(std::move(role)), db_(std::move(db)) {
        exec(dsn_of("postgres"), "DROP DATABASE IF EXISTS " + db_ + " WITH (FORCE)");
        exec(dsn_of("postgres"), "DROP ROLE IF EXISTS " + role_);
        exec(dsn_of("postgres"), "CREATE ROLE " + role_ + " LOGIN");
        exec(dsn_of("postgres"), "CREATE DATABASE " + db_ + " OWNER " + role_);
        exec(dsn(), "CREATE EXTENSION id_gen");
    }
    ~OwnedDb() {
        try {
            exec(dsn_of("postgres"), "DROP DATABASE IF EXISTS " + db_ + " WITH (FORCE)");
            exec(dsn_of("postgres"), "DROP ROLE IF EXISTS " + role_);
        } catch (...) {}
    }
    OwnedDb(const OwnedDb&) = delete;
    OwnedDb& operator=(const OwnedDb&) = delete;
    [[nodiscard]] std::string dsn(const std::string& user = "postgres") const { return dsn_of(db_, user); }
    [[nodiscard]] bool role_is_superuser() const {
        return one_text(dsn_of("postgres"), "SELECT rolsuper::text FROM pg_roles WHERE rolname = '" + role_ + "'") ==
               "true";
    }

private:
    std::string role_, db_;
};

TEST(PrefixTrust, OwnerOfPublicCannotBecomeSuperuser) {
    OwnedDb db("it_ptrust_mallory", "it_ptrust_db");
    exec(db.dsn(),
         "SELECT prefix_register('usr', 'users');"
         "CREATE TABLE users (id text PRIMARY KEY DEFAULT gen_prefixed('usr'), name text)");
    // The database owner, logged in as itself: public is its schema (pg_database_owner).
    exec(db.dsn("it_ptrust_mallory"),
         "ALTER SCHEMA public RENAME TO hidden; CREATE SCHEMA public;"
         "CREATE FUNCTION public.grab() RETURNS boolean LANGUAGE plpgsql "
         "  AS $$ BEGIN ALTER ROLE it_ptrust_mallory SUPERUSER; RETURN true; END $$;"
         "CREATE FUNCTION public.grab_row() RETURNS trigger LANGUAGE plpgsql "
         "  AS $$ BEGIN PERFORM public.grab(); RETURN NULL; END $$;"
         "CREATE FUNCTION public.gen_uuidv7() RETURNS uuid LANGUAGE sql "
         "  AS $$ SELECT gen_random_uuid() WHERE public.grab() $$;"
         "CREATE FUNCTION public.prefixed_format(text, uuid) RETURNS text LANGUAGE sql "
         "  AS $$ SELECT 'usr_planted' WHERE public.grab() $$;"
         "CREATE TABLE public.prefix_registry (prefix text CONSTRAINT prefix_registry_pkey PRIMARY KEY, "
         "  owner text, registered_at timestamptz DEFAULT now());"
         "CREATE TRIGGER grab BEFORE INSERT OR DELETE ON public.prefix_registry "
         "  FOR EACH STATEMENT EXECUTE FUNCTION public.grab_row()");
    ASSERT_FALSE(db.role_is_superuser());

    // A superuser uses the extension in its (renamed) schema, as before the rename.
    exec(db.dsn(), "SELECT hidden.prefix_register('acct', 'accounts')");
    EXPECT_FALSE(db.role_is_superuser());
    EXPECT_EQ(sqlstate_of(db.dsn(), "SELECT hidden.prefix_register('acct', 'other')"), "42710");
    EXPECT_FALSE(db.role_is_superuser());
    EXPECT_EQ(one_text(db.dsn(), "SELECT hidden.prefix_owner('acct')"), "accounts");
    EXPECT_EQ(one_text(db.dsn(),
                       "SELECT string_agg(prefix || '=' || owner, ',' ORDER BY prefix) FROM hidden.prefix_registry"),
              "acct=accounts,usr=users");
    exec(db.dsn(), "INSERT INTO hidden.users (name) SELECT 'u' || n FROM generate_series(1, 500) n");
    EXPECT_FALSE(db.role_is_superuser());
    EXPECT_EQ(one_text(db.dsn(), "SELECT count(DISTINCT hidden.prefixed_parse('usr', id))::text FROM hidden.users"),
              "500");
    EXPECT_EQ(one_text(db.dsn(), "SELECT hidden.prefix_unregister('acct')::text"), "true");
    EXPECT_FALSE(db.role_is_superuser());
    EXPECT_EQ(one_text(db.dsn(), "SELECT count(*)::text FROM public.prefix_registry"), "0");

    // A view registry for the readers: reading it would make its owner a superuser.
    exec(db.dsn("it_ptrust_mallory"),
         "DROP TABLE public.prefix_registry;"
         "CREATE VIEW public.prefix_registry AS SELECT 'usr'::text AS prefix, 'x'::text AS owner, "
         "  now() AS registered_at WHERE public.grab()");
    EXPECT_EQ(one_text(db.dsn(), "SELECT hidden.prefix_owner('usr')"), "users");
    EXPECT_EQ(one_text(db.dsn(), "SELECT hidden.gen_prefixed('usr') ~ '^usr_[0-9a-z]{25}$'"), "t");
    EXPECT_EQ(sqlstate_of(db.dsn(), "SELECT hidden.gen_prefixed('acct')"), "42704");
    EXPECT_FALSE(db.role_is_superuser());
}

// Many sessions register the same prefix at once: exactly one succeeds, every other one gets
// 42710, and the registry holds the winner's owner.
TEST(PrefixTrust, ConcurrentRegistrationOneWinner) {
    idgen::it::ScratchDb db("it_ptrust_race");
    const std::string dsn = idgen::it::dsn("it_ptrust_race");
    constexpr int kRounds = 20, kSessions = 6;
    for (int round = 0; round < kRounds; ++round) {
        const std::string prefix = "race" + std::to_string(round);
        std::atomic<int> ok{0}, taken{0}, other{0};
        std::vector<std::thread> threads;
        for (int s = 0; s < kSessions; ++s)
            threads.emplace_back([&, s] {
                const std::string state =
                    sqlstate_of(dsn, "SELECT prefix_register('" + prefix + "', 'owner" + std::to_string(s) + "')");
                (state.empty() ? ok : state == "42710" ? taken : other)++;
            });
        for (auto& t : threads) t.join();
        EXPECT_EQ(ok.load(), 1) << prefix;
        EXPECT_EQ(taken.load(), kSessions - 1) << prefix;
        EXPECT_EQ(other.load(), 0) << prefix;
        EXPECT_EQ(one_text(dsn, "SELECT (prefix_owner('" + prefix + "') ~ '^owner[0-9]$')::text"), "true");
    }
}

// The SQLSTATE `sql` fails with on `tx`, "" when it succeeds (42501 when libpqxx drops it).
template <class Tx>
std::string state_on(Tx& tx, const std::string& sql) {
    try {
        tx.exec(sql);
    } catch (const pqxx::insufficient_privilege& e) {
        return e.sqlstate().empty() ? "42501" : e.sqlstate();
    } catch (const pqxx::sql_error& e) {
        return e.sqlstate();
    }
    return "";
}

// A warm session (its cache holds the prefix) and another session that unregisters it: refused
// from the warm session's next call once the change commits (not before), inside an open
// transaction too, in REPEATABLE READ although the snapshot still sees the row, and when the
// change is a TRUNCATE or a DELETE in replica mode (how logical replication applies it). A
// revoked SELECT on the registry is refused on a cache hit too.
TEST(PrefixTrust, CachedPrefixesFollowOtherSessions) {
    idgen::it::ScratchDb db("it_ptrust_cache");
    const std::string dsn = idgen::it::dsn("it_ptrust_cache");
    pqxx::connection a(dsn), b(dsn);
    auto other = [&](const std::string& sql) {
        pqxx::nontransaction tx(b);
        tx.exec(sql);
    };
    const std::string gen = "SELECT gen_prefixed('cachep')";
    auto warm = [&] {
        other("SELECT prefix_register('cachep', 'cache_test')");
        pqxx::nontransaction tx(a);
        ASSERT_EQ(state_on(tx, gen), "");
        ASSERT_EQ(state_on(tx, gen), "");  // from the cache
    };

    // Committed in the other session: refused by the next transaction here; not before.
    warm();
    {
        pqxx::work change(b);
        change.exec("SELECT prefix_unregister('cachep')");
        pqxx::nontransaction tx(a);
        EXPECT_EQ(state_on(tx, gen), "") << "an uncommitted unregistration was seen";
        change.commit();
    }
    {
        pqxx::nontransaction tx(a);
        EXPECT_EQ(state_on(tx, gen), "42704");
    }

    // Inside a transaction that already used the prefix (READ COMMITTED and REPEATABLE READ).
    for (const char* level : {"READ COMMITTED", "REPEATABLE READ"}) {
        SCOPED_TRACE(level);
        warm();
        pqxx::work tx(a);
        tx.exec(std::string("SET TRANSACTION ISOLATION LEVEL ") + level);
        EXPECT_EQ(tx.exec1(gen)[0].as<std::string>().rfind("cachep_", 0), 0u);
        other("SELECT prefix_unregister('cachep')");
        if (std::string(level) == "REPEATABLE READ") {  // the snapshot still sees the row
            EXPECT_EQ(tx.exec1("SELECT count(*) FROM prefix_registry WHERE prefix = 'cachep'")[0].as<int>(), 1);
        }
        EXPECT_EQ(state_on(tx, gen), "42704");
    }

    // TRUNCATE, and a DELETE in replica mode.
    warm();
    other("TRUNCATE prefix_registry");
    {
        pqxx::nontransaction tx(a);
        EXPECT_EQ(state_on(tx, gen), "42704");
    }
    warm();
    other(
        "SET session_replication_role = replica; DELETE FROM prefix_registry WHERE prefix = 'cachep'; "
        "RESET session_replication_role");
    {
        pqxx::nontransaction tx(a);
        EXPECT_EQ(state_on(tx, gen), "42704");
    }

    // A role whose SELECT on the registry is revoked while its session's cache holds the prefix.
    other("DROP ROLE IF EXISTS it_ptrust_cache_app; CREATE ROLE it_ptrust_cache_app");
    warm();
    {
        pqxx::nontransaction tx(a);
        tx.exec("SET ROLE it_ptrust_cache_app");
        EXPECT_EQ(state_on(tx, gen), "");
        other("REVOKE SELECT ON prefix_registry FROM PUBLIC");
        EXPECT_EQ(state_on(tx, gen), "42501");
        other("GRANT SELECT ON prefix_registry TO PUBLIC");
        EXPECT_EQ(state_on(tx, gen), "");
        tx.exec("RESET ROLE");
    }
    other("DROP ROLE it_ptrust_cache_app");
}

// A DO block that keeps calling gen_prefixed() while another session unregisters the prefix:
// refused at the block's first command after the unregistration has committed (a READ COMMITTED
// command takes a new snapshot, and sees the change as it sees the deleted row), not only at the
// next top-level statement. The block polls the registry until its row is gone, then calls again.
TEST(PrefixTrust, ARunningDoBlockSeesAnotherSessionsUnregistration) {
    idgen::it::ScratchDb db("it_ptrust_do");
    const std::string dsn = idgen::it::dsn("it_ptrust_do");
    pqxx::connection a(dsn), b(dsn);
    {
        pqxx::nontransaction tx(b);
        tx.exec("SELECT prefix_register('dop', 'do_test')");
    }
    std::string state = "not run";
    std::thread block([&] {
        pqxx::nontransaction tx(a);
        state = state_on(tx,
                         "DO $$ DECLARE n int; t0 timestamptz := clock_timestamp(); BEGIN "
                         "PERFORM gen_prefixed('dop'); "
                         "LOOP SELECT count(*) INTO n FROM prefix_registry WHERE prefix = 'dop'; EXIT WHEN n = 0; "
                         "IF clock_timestamp() > t0 + interval '20 s' THEN RAISE 'the row never went'; END IF; "
                         "PERFORM gen_prefixed('dop'); END LOOP; "
                         "PERFORM gen_prefixed('dop'); END $$");
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    {
        pqxx::nontransaction tx(b);
        tx.exec("SELECT prefix_unregister('dop')");
    }
    block.join();
    EXPECT_EQ(state, "42704") << "the block issued an ID for a prefix unregistered and committed before its command";
}

// A cursor's call site outlives the registry it read: the extension dropped and created again in
// the same transaction. Its next FETCH reads the new registry (before, it opened the dropped
// table's OID: XX000 "could not open relation"): the prefix is unregistered there (42704) until
// it is registered again.
TEST(PrefixTrust, ACursorFollowsTheExtensionReinstalledInItsTransaction) {
    idgen::it::ScratchDb db("it_ptrust_cursor");
    pqxx::connection c(idgen::it::dsn("it_ptrust_cursor"));
    pqxx::nontransaction tx(c);
    tx.exec("SELECT prefix_register('curs', 'cursor test')");
    const std::string open =
        "BEGIN; DECLARE c CURSOR FOR SELECT gen_prefixed('curs') AS id FROM generate_series(1, 10)";
    tx.exec(open);
    EXPECT_EQ(tx.exec("FETCH 1 FROM c")[0][0].as<std::string>().substr(0, 5), "curs_");
    tx.exec("DROP EXTENSION id_gen CASCADE; CREATE EXTENSION id_gen");
    EXPECT_EQ(state_on(tx, "FETCH 1 FROM c"), "42704");
    tx.exec("ROLLBACK");
    tx.exec(open);
    EXPECT_EQ(tx.exec("FETCH 1 FROM c")[0][0].as<std::string>().substr(0, 5), "curs_");
    tx.exec(
        "DROP EXTENSION id_gen CASCADE; CREATE EXTENSION id_gen; SELECT prefix_register('curs', 'cursor test, again')");
    EXPECT_EQ(tx.exec("FETCH 1 FROM c")[0][0].as<std::string>().substr(0, 5), "curs_");
    tx.exec("COMMIT");
    EXPECT_EQ(tx.exec("SELECT prefix_owner('curs')")[0][0].as<std::string>(), "cursor test, again");
}

// gen_prefixed()'s cached answer to "may this role SELECT from the registry" (its hits do not ask
// pg_class_aclcheck() again) follows every change that decides it, made by another session: a
// REVOKE inside an open transaction that already used it, a GRANT in the next one, SET ROLE and a
// SECURITY DEFINER function (another role, another answer, in one transaction), a role losing the
// membership that gave it SELECT, and a superuser losing superuser.
TEST(PrefixTrust, PrivilegeCacheFollowsRolesAndGrants) {
    idgen::it::ScratchDb db("it_ptrust_acl");
    const std::string dsn = idgen::it::dsn("it_ptrust_acl");
    const std::string gen = "SELECT gen_prefixed('aclp')";
    pqxx::connection a(dsn), b(dsn);
    auto other = [&](const std::string& sql) {
        pqxx::nontransaction tx(b);
        tx.exec(sql);
    };
    auto as_a = [&](const std::string& sql) {
        pqxx::nontransaction tx(a);
        return state_on(tx, sql);
    };
    other(
        "DROP ROLE IF EXISTS it_ptrust_acl_app; DROP ROLE IF EXISTS it_ptrust_acl_readers; "
        "DROP ROLE IF EXISTS it_ptrust_acl_definer; "
        "CREATE ROLE it_ptrust_acl_app; CREATE ROLE it_ptrust_acl_readers; CREATE ROLE it_ptrust_acl_definer; "
        "SELECT prefix_register('aclp', 'acl_test')");

    // As the role, through PUBLIC's grant: a REVOKE is refused inside the open transaction that
    // used the cached answer, and a GRANT is seen by the next transaction.
    ASSERT_EQ(as_a("SET ROLE it_ptrust_acl_app"), "");
    {
        pqxx::work tx(a);
        EXPECT_EQ(state_on(tx, gen), "");
        EXPECT_EQ(state_on(tx, gen), "");  // the cached answer
        other("REVOKE SELECT ON prefix_registry FROM PUBLIC");
        EXPECT_EQ(state_on(tx, gen), "42501");
    }
    EXPECT_EQ(as_a(gen), "42501");
    other("GRANT SELECT ON prefix_registry TO PUBLIC");
    EXPECT_EQ(as_a(gen), "");
    other("REVOKE SELECT ON prefix_registry FROM PUBLIC");
    EXPECT_EQ(as_a(gen), "42501");

    // SET ROLE inside one transaction: the superuser's answer is not the role's.
    ASSERT_EQ(as_a("RESET ROLE"), "");
    {
        pqxx::work tx(a);
        EXPECT_EQ(state_on(tx, gen), "");
        EXPECT_EQ(state_on(tx, gen), "");
        tx.exec("SET LOCAL ROLE it_ptrust_acl_app");
        EXPECT_EQ(state_on(tx, gen), "42501");
    }
    EXPECT_EQ(as_a(gen), "");  // the superuser again

    // A SECURITY DEFINER function of a role that may read the registry, called by one that may not,
    // in one transaction, in both orders.
    other(
        "GRANT SELECT ON prefix_registry TO it_ptrust_acl_definer; "
        "CREATE FUNCTION acl_gen() RETURNS text LANGUAGE sql SECURITY DEFINER SET search_path = public "
        "AS $$ SELECT gen_prefixed('aclp') $$; ALTER FUNCTION acl_gen() OWNER TO it_ptrust_acl_definer");
    ASSERT_EQ(as_a("SET ROLE it_ptrust_acl_app"), "");
    {
        pqxx::work tx(a);
        EXPECT_EQ(tx.exec1("SELECT acl_gen()")[0].as<std::string>().rfind("aclp_", 0), 0u);
        EXPECT_EQ(tx.exec1("SELECT acl_gen()")[0].as<std::string>().rfind("aclp_", 0), 0u);
        EXPECT_EQ(state_on(tx, gen), "42501");
    }
    {
        pqxx::work tx(a);
        {
            pqxx::subtransaction sub(tx, "direct");
            EXPECT_EQ(state_on(sub, gen), "42501");
        }
        EXPECT_EQ(tx.exec1("SELECT acl_gen()")[0].as<std::string>().rfind("aclp_", 0), 0u);
    }

    // SELECT through membership of a role: refused once the membership is revoked, in the same
    // transaction.
    other("GRANT SELECT ON prefix_registry TO it_ptrust_acl_readers; GRANT it_ptrust_acl_readers TO it_ptrust_acl_app");
    {
        pqxx::work tx(a);
        EXPECT_EQ(state_on(tx, gen), "");
        EXPECT_EQ(state_on(tx, gen), "");
        other("REVOKE it_ptrust_acl_readers FROM it_ptrust_acl_app");
        EXPECT_EQ(state_on(tx, gen), "42501");
    }

    // A superuser role with no grant: refused once it is no longer superuser, in the same transaction.
    other("ALTER ROLE it_ptrust_acl_app SUPERUSER");
    {
        pqxx::work tx(a);
        EXPECT_EQ(state_on(tx, gen), "");
        EXPECT_EQ(state_on(tx, gen), "");
        other("ALTER ROLE it_ptrust_acl_app NOSUPERUSER");
        EXPECT_EQ(state_on(tx, gen), "42501");
    }
    ASSERT_EQ(as_a("RESET ROLE"), "");
    other(
        "GRANT SELECT ON prefix_registry TO PUBLIC; DROP FUNCTION acl_gen(); "
        "REVOKE ALL ON prefix_registry FROM it_ptrust_acl_readers, it_ptrust_acl_definer; "
        "DROP ROLE it_ptrust_acl_app; DROP ROLE it_ptrust_acl_readers; DROP ROLE it_ptrust_acl_definer");
}

// Index scans of the registry's primary key by `n` calls of gen_prefixed(`prefix`) in one
// transaction on `c`: 0 or 1 when the session's cache answers, n when every call reads the registry.
int registry_reads(pqxx::connection& c, const std::string& prefix, int n) {
    pqxx::work tx(c);
    const std::string scans = "SELECT pg_stat_get_xact_numscans('prefix_registry_pkey'::regclass)";
    const int before = tx.exec1(scans)[0].as<int>();
    EXPECT_EQ(tx.exec1("SELECT count(DISTINCT gen_prefixed('" + prefix + "')) FROM generate_series(1, " +
                       std::to_string(n) + ")")[0]
                  .as<int>(),
              n);
    const int after = tx.exec1(scans)[0].as<int>();
    tx.commit();
    return after - before;
}

// A warm session (a) and a writer (b) on `dsn`, for the cases below: `b` registers 'cachep', `a`
// uses it, `b` makes `change`, and `a` must refuse the prefix on its next call.
struct CacheSessions {
    explicit CacheSessions(const std::string& dsn) : a(dsn), b(dsn) {}
    void other(const std::string& sql) {
        pqxx::nontransaction tx(b);
        tx.exec(sql);
    }
    std::string gen() {
        pqxx::nontransaction tx(a);
        return state_on(tx, "SELECT gen_prefixed('cachep')");
    }
    // Registers and uses the prefix; returns how many of 10 further calls read the registry.
    int warm() {
        other("SELECT prefix_register('cachep', 'cache_test')");
        EXPECT_EQ(gen(), "");
        EXPECT_EQ(gen(), "");
        return registry_reads(a, "cachep", 10);
    }
    pqxx::connection a, b;
};

// A database still at 0.2.0 under the 0.3.0 library has no invalidation triggers on the registry:
// gen_prefixed() reads it on every call (a prefix unregistered by another session is refused at
// once); after ALTER EXTENSION ... UPDATE the cache is used again, and still follows changes.
TEST(PrefixTrust, CacheUnusedWithoutTriggersAt020) {
    idgen::it::ScratchDb db("it_ptrust_020", "0.2.0");
    CacheSessions s(db.dsn());
    EXPECT_EQ(s.warm(), 10) << "the cache was used without invalidation triggers";
    s.other("SELECT prefix_unregister('cachep')");
    EXPECT_EQ(one_text(db.dsn(), "SELECT count(*)::text FROM prefix_registry"), "0");
    EXPECT_EQ(s.gen(), "42704") << "an unregistered prefix was served from the cache";

    s.other("ALTER EXTENSION id_gen UPDATE TO '0.3.0'");
    EXPECT_LE(s.warm(), 1) << "the cache is not used after the update";
    s.other("SELECT prefix_unregister('cachep')");
    EXPECT_EQ(s.gen(), "42704");
}

// The triggers disabled (all user triggers, or either one by name), or enabled only ORIGIN or
// REPLICA: the cache is not used, and a change the triggers would have announced (a DELETE in a
// session whose mode skips them, a TRUNCATE) is seen by the warm session's next call. Enabling
// them ALWAYS again brings the cache back, and it follows changes again.
TEST(PrefixTrust, CacheUnusedUnlessTriggersFireAlways) {
    idgen::it::ScratchDb db("it_ptrust_trig");
    CacheSessions s(db.dsn());
    const std::string del = "DELETE FROM prefix_registry WHERE prefix = 'cachep'";
    const std::string as_replica =
        "SET session_replication_role = replica; " + del + "; RESET session_replication_role";
    const struct {
        const char* alter;
        std::string change;
    } cases[] = {
        {"DISABLE TRIGGER USER", del},
        {"DISABLE TRIGGER prefix_registry_row_changed", del},
        {"DISABLE TRIGGER prefix_registry_changed", "TRUNCATE prefix_registry"},
        {"ENABLE TRIGGER prefix_registry_row_changed", as_replica},
        {"ENABLE TRIGGER prefix_registry_changed", "TRUNCATE prefix_registry"},
        {"ENABLE REPLICA TRIGGER prefix_registry_row_changed", del},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.alter);
        s.other(std::string("ALTER TABLE prefix_registry ") + c.alter);
        EXPECT_EQ(s.warm(), 10) << "the cache was used";
        s.other(c.change);
        EXPECT_EQ(s.gen(), "42704") << "an unregistered prefix was served from the cache";

        s.other(
            "ALTER TABLE prefix_registry ENABLE ALWAYS TRIGGER prefix_registry_changed, "
            "ENABLE ALWAYS TRIGGER prefix_registry_row_changed");
        EXPECT_LE(s.warm(), 1) << "the cache is not used with both triggers ALWAYS";
        s.other(c.change);
        EXPECT_EQ(s.gen(), "42704");
        s.other("SET session_replication_role = replica; SELECT prefix_register('cachep', 'x'); " + del +
                "; RESET session_replication_role");
        EXPECT_EQ(s.gen(), "42704");
    }
    // Dropped and created again as the extension creates it: used again.
    s.other("DROP TRIGGER prefix_registry_row_changed ON prefix_registry");
    EXPECT_EQ(s.warm(), 10);
    s.other(del);
    EXPECT_EQ(s.gen(), "42704");
    s.other(
        "CREATE TRIGGER prefix_registry_row_changed AFTER INSERT OR UPDATE OR DELETE ON prefix_registry "
        "FOR EACH ROW EXECUTE FUNCTION prefix_registry_changed();"
        "ALTER TABLE prefix_registry ENABLE ALWAYS TRIGGER prefix_registry_row_changed");
    EXPECT_LE(s.warm(), 1);
    s.other(del);
    EXPECT_EQ(s.gen(), "42704");
}

// A call site kept across subtransactions (a PL/pgSQL expression in a loop with an exception
// block): the lock its first call took is released when that subtransaction aborts; the next
// call, which trusts the cache, takes it again and holds it to the end of the transaction.
TEST(PrefixTrust, EveryTransactionUsingTheCacheHoldsTheLock) {
    idgen::it::ScratchDb db("it_ptrust_lock");
    exec(db.dsn(),
         "SELECT prefix_register('acct', 'accounts');"
         "CREATE FUNCTION lock_probe() RETURNS int LANGUAGE plpgsql AS $$ "
         "DECLARE v text; n int; BEGIN "
         "  FOR i IN 1..3 LOOP "
         "    BEGIN v := gen_prefixed('acct'); "
         "      IF i < 3 THEN RAISE EXCEPTION 'undo'; END IF; "
         "    EXCEPTION WHEN raise_exception THEN NULL; END; "
         "  END LOOP; "
         "  SELECT count(*) INTO n FROM pg_locks WHERE locktype = 'relation' AND granted "
         "    AND relation = 'prefix_registry'::regclass AND pid = pg_backend_pid(); "
         "  RETURN n; END $$");
    pqxx::connection a(db.dsn()), b(db.dsn());
    pqxx::work tx(a);
    EXPECT_EQ(tx.exec1("SELECT lock_probe()")[0].as<int>(), 1) << "the registry is not locked";
    pqxx::nontransaction other(b);
    EXPECT_EQ(state_on(other, "SET lock_timeout = '200ms'; LOCK TABLE prefix_registry IN ACCESS EXCLUSIVE MODE"),
              "55P03");
}

}  // namespace
