// Updating equals a fresh install: a database that ran CREATE EXTENSION id_gen VERSION '<old>' and then
// ALTER EXTENSION id_gen UPDATE must end with exactly the extension a fresh CREATE EXTENSION id_gen
// gives, and the data made under the old version must survive the update.
//
// The comparison describes every extension member (pg_depend deptype 'e') by name and signature,
// never by OID: functions (labels, cost, rows, language, source, settings, ACL), aggregates, types,
// operators, casts, operator classes and families (every operator and support function), tables
// (columns, defaults, constraints, indexes, triggers, ACLs), comments on members, initial privileges,
// and the extension row with its configuration tables. Other member kinds (if any appear) are
// compared by membership and comment only. A negative control proves the comparison sees a change.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <memory>
#include <pqxx/pqxx>
#include <sstream>
#include <string>
#include <vector>

#include "common.h"

namespace {

using idgen::it::ScratchDb;

// The release whose install script the data test starts from.
constexpr const char* kOldVersion = "0.1.0";
constexpr int kRows = 3000;
const std::string kShardRows =
    "SELECT n || ' ' || id FROM shard_7.items WHERE n <= " + std::to_string(kRows) + " ORDER BY n";

// One line per fact about the extension's members. Run with search_path = pg_catalog, so every name
// outside pg_catalog comes out schema-qualified.
const char* const kDescribe = R"sql(
WITH ext AS (
    SELECT e.* FROM pg_catalog.pg_extension e WHERE e.extname = 'id_gen'
), m AS (
    SELECT d.classid, d.objid, d.objsubid, i.type AS kind, i.identity
    FROM pg_catalog.pg_depend d JOIN ext ON d.refobjid = ext.oid,
         LATERAL pg_catalog.pg_identify_object(d.classid, d.objid, d.objsubid) i
    WHERE d.refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass AND d.deptype = 'e'
), fam AS (   -- operator families, named by schema, name and access method
    SELECT f.oid, pg_catalog.format('%I.%I USING %I', n.nspname, f.opfname, a.amname) AS name
    FROM pg_catalog.pg_opfamily f JOIN pg_catalog.pg_namespace n ON n.oid = f.opfnamespace
         JOIN pg_catalog.pg_am a ON a.oid = f.opfmethod
), rel AS (
    SELECT c.* FROM pg_catalog.pg_class c JOIN m ON m.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND m.objid = c.oid
)
-- Membership itself.
SELECT pg_catalog.format('member %s %s', m.kind, m.identity) FROM m
UNION ALL
-- The extension row and its configuration tables (pg_dump dumps their rows).
SELECT pg_catalog.format('extension %I: version=%s schema=%I relocatable=%s', ext.extname, ext.extversion,
                         ext.extnamespace::pg_catalog.regnamespace, ext.extrelocatable) FROM ext
UNION ALL
SELECT pg_catalog.format('extension config: %s condition=%L', c.tab::pg_catalog.regclass, c.cond)
FROM ext, ROWS FROM (pg_catalog.unnest(ext.extconfig), pg_catalog.unnest(ext.extcondition)) AS c(tab, cond)
UNION ALL
-- Functions, procedures, aggregates.
SELECT pg_catalog.format('function %s: kind=%s returns=%s args=(%s) volatile=%s parallel=%s strict=%s secdef=%s '
                         'leakproof=%s cost=%s rows=%s lang=%I support=%s config=%s acl=%s',
                         p.oid::pg_catalog.regprocedure, p.prokind, pg_catalog.pg_get_function_result(p.oid),
                         pg_catalog.pg_get_function_arguments(p.oid), p.provolatile, p.proparallel, p.proisstrict,
                         p.prosecdef, p.proleakproof, p.procost, p.prorows, l.lanname,
                         p.prosupport::pg_catalog.regprocedure, p.proconfig, p.proacl)
FROM m JOIN pg_catalog.pg_proc p ON m.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND p.oid = m.objid
     JOIN pg_catalog.pg_language l ON l.oid = p.prolang
UNION ALL
SELECT pg_catalog.format('function %s: src=%L bin=%L body=%L', p.oid::pg_catalog.regprocedure, p.prosrc, p.probin,
                         pg_catalog.pg_get_function_sqlbody(p.oid))
FROM m JOIN pg_catalog.pg_proc p ON m.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND p.oid = m.objid
UNION ALL
SELECT pg_catalog.format('aggregate %s: kind=%s direct=%s transfn=%s finalfn=%s combinefn=%s serialfn=%s '
                         'deserialfn=%s mtransfn=%s minvtransfn=%s mfinalfn=%s finalextra=%s mfinalextra=%s '
                         'finalmodify=%s mfinalmodify=%s sortop=%s transtype=%s transspace=%s mtranstype=%s '
                         'mtransspace=%s initval=%L minitval=%L',
                         a.aggfnoid::pg_catalog.regprocedure, a.aggkind, a.aggnumdirectargs,
                         a.aggtransfn::pg_catalog.regprocedure, a.aggfinalfn::pg_catalog.regprocedure,
                         a.aggcombinefn::pg_catalog.regprocedure, a.aggserialfn::pg_catalog.regprocedure,
                         a.aggdeserialfn::pg_catalog.regprocedure, a.aggmtransfn::pg_catalog.regprocedure,
                         a.aggminvtransfn::pg_catalog.regprocedure, a.aggmfinalfn::pg_catalog.regprocedure,
                         a.aggfinalextra, a.aggmfinalextra, a.aggfinalmodify, a.aggmfinalmodify,
                         a.aggsortop::pg_catalog.regoperator, a.aggtranstype::pg_catalog.regtype, a.aggtransspace,
                         a.aggmtranstype::pg_catalog.regtype, a.aggmtransspace, a.agginitval, a.aggminitval)
FROM m JOIN pg_catalog.pg_aggregate a ON m.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND a.aggfnoid = m.objid
UNION ALL
-- Types.
SELECT pg_catalog.format('type %s: type=%s len=%s byval=%s align=%s storage=%s category=%s preferred=%s delim=%L '
                         'input=%s output=%s receive=%s send=%s typmodin=%s typmodout=%s analyze=%s subscript=%s '
                         'elem=%s array=%s base=%s typmod=%s notnull=%s collation=%s default=%L acl=%s',
                         t.oid::pg_catalog.regtype, t.typtype, t.typlen, t.typbyval, t.typalign, t.typstorage,
                         t.typcategory, t.typispreferred, t.typdelim,
                         t.typinput::pg_catalog.regprocedure, t.typoutput::pg_catalog.regprocedure,
                         t.typreceive::pg_catalog.regprocedure, t.typsend::pg_catalog.regprocedure,
                         t.typmodin::pg_catalog.regprocedure, t.typmodout::pg_catalog.regprocedure,
                         t.typanalyze::pg_catalog.regprocedure, t.typsubscript::pg_catalog.regprocedure,
                         t.typelem::pg_catalog.regtype, t.typarray::pg_catalog.regtype,
                         t.typbasetype::pg_catalog.regtype, t.typtypmod, t.typnotnull,
                         t.typcollation::pg_catalog.regcollation, t.typdefault, t.typacl)
FROM m JOIN pg_catalog.pg_type t ON m.classid = 'pg_catalog.pg_type'::pg_catalog.regclass AND t.oid = m.objid
UNION ALL
SELECT pg_catalog.format('type %s: enum label %s = %L', t.oid::pg_catalog.regtype, e.enumsortorder, e.enumlabel)
FROM m JOIN pg_catalog.pg_type t ON m.classid = 'pg_catalog.pg_type'::pg_catalog.regclass AND t.oid = m.objid
     JOIN pg_catalog.pg_enum e ON e.enumtypid = t.oid
UNION ALL
SELECT pg_catalog.format('type %s: attribute %s %I %s collation=%s', t.oid::pg_catalog.regtype,
                         pg_catalog.row_number() OVER (PARTITION BY t.oid ORDER BY a.attnum), a.attname,
                         pg_catalog.format_type(a.atttypid, a.atttypmod), a.attcollation::pg_catalog.regcollation)
FROM m JOIN pg_catalog.pg_type t ON m.classid = 'pg_catalog.pg_type'::pg_catalog.regclass AND t.oid = m.objid
     JOIN pg_catalog.pg_attribute a ON a.attrelid = t.typrelid AND a.attnum > 0 AND NOT a.attisdropped
WHERE t.typtype = 'c'
UNION ALL
SELECT pg_catalog.format('type %s: range subtype=%s collation=%s subopc=%s canonical=%s subdiff=%s multirange=%s',
                         t.oid::pg_catalog.regtype, r.rngsubtype::pg_catalog.regtype,
                         r.rngcollation::pg_catalog.regcollation, oc.name,
                         r.rngcanonical::pg_catalog.regprocedure, r.rngsubdiff::pg_catalog.regprocedure,
                         r.rngmultitypid::pg_catalog.regtype)
FROM m JOIN pg_catalog.pg_type t ON m.classid = 'pg_catalog.pg_type'::pg_catalog.regclass AND t.oid = m.objid
     JOIN pg_catalog.pg_range r ON r.rngtypid = t.oid
     LEFT JOIN LATERAL pg_catalog.pg_identify_object('pg_catalog.pg_opclass'::pg_catalog.regclass, r.rngsubopc, 0) oc(type, schema, name, identity) ON true
UNION ALL
SELECT pg_catalog.format('type %s: constraint %I %s', t.oid::pg_catalog.regtype, c.conname, pg_catalog.pg_get_constraintdef(c.oid))
FROM m JOIN pg_catalog.pg_type t ON m.classid = 'pg_catalog.pg_type'::pg_catalog.regclass AND t.oid = m.objid
     JOIN pg_catalog.pg_constraint c ON c.contypid = t.oid
UNION ALL
-- Operators.
SELECT pg_catalog.format('operator %s: kind=%s result=%s function=%s commutator=%s negator=%s restrict=%s join=%s '
                         'hashes=%s merges=%s',
                         o.oid::pg_catalog.regoperator, o.oprkind, o.oprresult::pg_catalog.regtype,
                         o.oprcode::pg_catalog.regprocedure, o.oprcom::pg_catalog.regoperator,
                         o.oprnegate::pg_catalog.regoperator, o.oprrest::pg_catalog.regprocedure,
                         o.oprjoin::pg_catalog.regprocedure, o.oprcanhash, o.oprcanmerge)
FROM m JOIN pg_catalog.pg_operator o ON m.classid = 'pg_catalog.pg_operator'::pg_catalog.regclass AND o.oid = m.objid
UNION ALL
-- Casts.
SELECT pg_catalog.format('cast (%s AS %s): function=%s context=%s method=%s', c.castsource::pg_catalog.regtype,
                         c.casttarget::pg_catalog.regtype, c.castfunc::pg_catalog.regprocedure, c.castcontext,
                         c.castmethod)
FROM m JOIN pg_catalog.pg_cast c ON m.classid = 'pg_catalog.pg_cast'::pg_catalog.regclass AND c.oid = m.objid
UNION ALL
-- Operator classes and families, with every operator and support function of a family.
SELECT pg_catalog.format('operator class %I.%I USING %I: type=%s default=%s family=%s keytype=%s', n.nspname,
                         c.opcname, a.amname, c.opcintype::pg_catalog.regtype, c.opcdefault, fam.name,
                         c.opckeytype::pg_catalog.regtype)
FROM m JOIN pg_catalog.pg_opclass c ON m.classid = 'pg_catalog.pg_opclass'::pg_catalog.regclass AND c.oid = m.objid
     JOIN pg_catalog.pg_namespace n ON n.oid = c.opcnamespace JOIN pg_catalog.pg_am a ON a.oid = c.opcmethod
     JOIN fam ON fam.oid = c.opcfamily
UNION ALL
SELECT pg_catalog.format('operator family %s: operator %s (%s, %s) %s purpose=%s sortfamily=%s', fam.name,
                         o.amopstrategy, o.amoplefttype::pg_catalog.regtype, o.amoprighttype::pg_catalog.regtype,
                         o.amopopr::pg_catalog.regoperator, o.amoppurpose, sf.name)
FROM m JOIN fam ON m.classid = 'pg_catalog.pg_opfamily'::pg_catalog.regclass AND fam.oid = m.objid
     JOIN pg_catalog.pg_amop o ON o.amopfamily = fam.oid LEFT JOIN fam sf ON sf.oid = o.amopsortfamily
UNION ALL
SELECT pg_catalog.format('operator family %s: function %s (%s, %s) %s', fam.name, p.amprocnum,
                         p.amproclefttype::pg_catalog.regtype, p.amprocrighttype::pg_catalog.regtype,
                         p.amproc::pg_catalog.regprocedure)
FROM m JOIN fam ON m.classid = 'pg_catalog.pg_opfamily'::pg_catalog.regclass AND fam.oid = m.objid
     JOIN pg_catalog.pg_amproc p ON p.amprocfamily = fam.oid
UNION ALL
-- Tables, views, sequences: the relation, its columns, constraints, indexes, triggers, policies.
SELECT pg_catalog.format('relation %s: kind=%s persistence=%s options=%s acl=%s rls=%s forcerls=%s replident=%s',
                         rel.oid::pg_catalog.regclass, rel.relkind, rel.relpersistence, rel.reloptions, rel.relacl,
                         rel.relrowsecurity, rel.relforcerowsecurity, rel.relreplident)
FROM rel
UNION ALL
SELECT pg_catalog.format('relation %s: column %s %I %s notnull=%s default=%s identity=%L generated=%L collation=%s '
                         'storage=%s acl=%s',
                         rel.oid::pg_catalog.regclass,
                         pg_catalog.row_number() OVER (PARTITION BY rel.oid ORDER BY a.attnum), a.attname,
                         pg_catalog.format_type(a.atttypid, a.atttypmod), a.attnotnull,
                         pg_catalog.pg_get_expr(d.adbin, d.adrelid), a.attidentity, a.attgenerated,
                         a.attcollation::pg_catalog.regcollation, a.attstorage, a.attacl)
FROM rel JOIN pg_catalog.pg_attribute a ON a.attrelid = rel.oid AND a.attnum > 0 AND NOT a.attisdropped
     LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
UNION ALL
SELECT pg_catalog.format('relation %s: constraint %I %s', rel.oid::pg_catalog.regclass, c.conname,
                         pg_catalog.pg_get_constraintdef(c.oid))
FROM rel JOIN pg_catalog.pg_constraint c ON c.conrelid = rel.oid
UNION ALL
SELECT pg_catalog.format('relation %s: index %s', rel.oid::pg_catalog.regclass, pg_catalog.pg_get_indexdef(i.indexrelid))
FROM rel JOIN pg_catalog.pg_index i ON i.indrelid = rel.oid
UNION ALL
SELECT pg_catalog.format('relation %s: trigger %s enabled=%s', rel.oid::pg_catalog.regclass,
                         pg_catalog.pg_get_triggerdef(t.oid), t.tgenabled)
FROM rel JOIN pg_catalog.pg_trigger t ON t.tgrelid = rel.oid AND NOT t.tgisinternal
UNION ALL
SELECT pg_catalog.format('relation %s: policy %I cmd=%s permissive=%s roles=%s using=%s check=%s',
                         rel.oid::pg_catalog.regclass, p.polname, p.polcmd, p.polpermissive, p.polroles::pg_catalog.regrole[],
                         pg_catalog.pg_get_expr(p.polqual, p.polrelid), pg_catalog.pg_get_expr(p.polwithcheck, p.polrelid))
FROM rel JOIN pg_catalog.pg_policy p ON p.polrelid = rel.oid
UNION ALL
SELECT pg_catalog.format('relation %s: view %s', rel.oid::pg_catalog.regclass, pg_catalog.pg_get_viewdef(rel.oid))
FROM rel WHERE rel.relkind IN ('v', 'm')
UNION ALL
SELECT pg_catalog.format('relation %s: sequence type=%s start=%s increment=%s max=%s min=%s cache=%s cycle=%s',
                         rel.oid::pg_catalog.regclass, s.seqtypid::pg_catalog.regtype, s.seqstart, s.seqincrement,
                         s.seqmax, s.seqmin, s.seqcache, s.seqcycle)
FROM rel JOIN pg_catalog.pg_sequence s ON s.seqrelid = rel.oid
UNION ALL
-- Schemas.
SELECT pg_catalog.format('schema %I: acl=%s', n.nspname, n.nspacl)
FROM m JOIN pg_catalog.pg_namespace n ON m.classid = 'pg_catalog.pg_namespace'::pg_catalog.regclass AND n.oid = m.objid
UNION ALL
-- Event triggers.
SELECT pg_catalog.format('event trigger %I: event=%s function=%s enabled=%s tags=%s', e.evtname, e.evtevent,
                         e.evtfoid::pg_catalog.regprocedure, e.evtenabled, e.evttags)
FROM m JOIN pg_catalog.pg_event_trigger e ON m.classid = 'pg_catalog.pg_event_trigger'::pg_catalog.regclass AND e.oid = m.objid
UNION ALL
-- Comments: on members (and their columns), and on the constraints and triggers of member relations.
SELECT pg_catalog.format('comment on %s %s: %L', i.type, i.identity, d.description)
FROM pg_catalog.pg_description d,
     LATERAL pg_catalog.pg_identify_object(d.classoid, d.objoid, d.objsubid) i
WHERE (d.classoid, d.objoid) IN (SELECT m.classid, m.objid FROM m)
   OR (d.classoid = 'pg_catalog.pg_constraint'::pg_catalog.regclass
       AND d.objoid IN (SELECT c.oid FROM pg_catalog.pg_constraint c JOIN rel ON c.conrelid = rel.oid))
   OR (d.classoid = 'pg_catalog.pg_trigger'::pg_catalog.regclass
       AND d.objoid IN (SELECT t.oid FROM pg_catalog.pg_trigger t JOIN rel ON t.tgrelid = rel.oid))
UNION ALL
-- Initial privileges (what pg_dump treats as the extension's own grants).
SELECT pg_catalog.format('initial privileges on %s %s: %s %s', i.type, i.identity, p.privtype, p.initprivs)
FROM pg_catalog.pg_init_privs p,
     LATERAL pg_catalog.pg_identify_object(p.classoid, p.objoid, p.objsubid) i
WHERE (p.classoid, p.objoid) IN (SELECT m.classid, m.objid FROM m))sql";

std::vector<std::string> describe(pqxx::work& tx) {
    tx.exec("SET LOCAL search_path = pg_catalog");
    std::vector<std::string> lines;
    for (const auto& row : tx.exec(kDescribe)) lines.emplace_back(row[0].c_str());
    std::sort(lines.begin(), lines.end());
    return lines;
}

std::vector<std::string> describe(const std::string& dsn) {
    pqxx::connection c(dsn);
    pqxx::work tx(c);
    return describe(tx);  // read-only; the transaction is rolled back
}

struct Diff {
    std::vector<std::string> only_a, only_b;
    [[nodiscard]] bool empty() const { return only_a.empty() && only_b.empty(); }
};

Diff diff(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    Diff d;
    std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(d.only_a));
    std::set_difference(b.begin(), b.end(), a.begin(), a.end(), std::back_inserter(d.only_b));
    return d;
}

std::string show(const Diff& d, const std::string& a, const std::string& b) {
    std::ostringstream out;
    out << "extension members differ\n  only in " << a << " (" << d.only_a.size() << "):\n";
    for (const auto& l : d.only_a) out << "    - " << l << "\n";
    out << "  only in " << b << " (" << d.only_b.size() << "):\n";
    for (const auto& l : d.only_b) out << "    + " << l << "\n";
    return out.str();
}

std::vector<std::string> column(pqxx::transaction_base& tx, const std::string& query) {
    std::vector<std::string> out;
    for (const auto& row : tx.exec(query)) out.emplace_back(row[0].c_str());
    return out;
}

std::string default_version() {
    pqxx::connection c(idgen::it::dsn());
    pqxx::nontransaction tx(c);
    return tx.exec1("SELECT default_version FROM pg_available_extensions WHERE name = 'id_gen'")[0].c_str();
}

// Every id_gen--<version>.sql install script (not an update script) in the server's sharedir.
std::vector<std::string> installable_versions() {
    pqxx::connection c(idgen::it::dsn());
    pqxx::nontransaction tx(c);
    std::vector<std::string> versions;
    for (const auto& f : column(tx,
                                "SELECT f FROM pg_ls_dir((SELECT setting FROM pg_config WHERE name = 'SHAREDIR') "
                                "|| '/extension') f WHERE f LIKE 'id\\_gen--%.sql' ORDER BY f")) {
        std::string v = f.substr(std::string("id_gen--").size());
        v.resize(v.size() - std::string(".sql").size());
        if (v.find("--") == std::string::npos) versions.push_back(v);
    }
    return versions;
}

// The indexed columns of the data table: each column has exactly one index, so a lookup on it
// can only be answered by that index. `text` is the column's text form, `key` turns that text
// (v.t) back into a value of the column's type.
struct Indexed {
    const char* index;
    const char* column;
    const char* text;
    const char* key;
};
const Indexed kIndexed[] = {
    {"ids_u_btree", "u", "u", "v.t::ulid"},
    {"ids_uh_hash", "uh", "uh", "v.t::ulid"},
    {"ids_ub_brin", "ub", "ub", "v.t::ulid"},
    {"ids_s_btree", "s", "s", "v.t::snowflake"},
    {"ids_sh_hash", "sh", "sh", "v.t::snowflake"},
    {"ids_sb_brin", "sb", "sb", "v.t::snowflake"},
    {"ids_b64_btree", "b64", "b64", "v.t::base36_64"},
    {"ids_b64h_hash", "b64h", "b64h", "v.t::base36_64"},
    {"ids_b128_btree", "b128", "b128", "v.t::base36_128"},
    {"ids_b128h_hash", "b128h", "b128h", "v.t::base36_128"},
    {"ids_p_btree", "p", "prefixed_format('acct', p)", "prefixed_parse('acct', v.t)"},
};

// Database A: installed at kOldVersion, filled with data of every id_gen type, then updated.
// Database B: a fresh install of the default version.
class UpdateEqualsFresh : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        try {
            target_ = default_version();
            updated_ = std::make_unique<ScratchDb>("it_update_from_old", kOldVersion);
            {
                pqxx::connection c(updated_->dsn());
                pqxx::nontransaction tx(c);
                version_before_ = tx.exec1("SELECT extversion FROM pg_extension WHERE extname = 'id_gen'")[0].c_str();
                make_data(tx);
                rows_before_ = snapshot(tx);
                shard_rows_before_ = column(tx, kShardRows);
                for (const auto& ix : kIndexed)
                    values_before_[ix.index] = column(tx, std::string("SELECT ") + ix.text + " FROM ids ORDER BY n");
                registries_before_ = registries(tx);
            }
            {
                pqxx::connection c(updated_->dsn());
                pqxx::nontransaction tx(c);
                tx.exec("ALTER EXTENSION id_gen UPDATE");
                version_after_ = tx.exec1("SELECT extversion FROM pg_extension WHERE extname = 'id_gen'")[0].c_str();
            }
            fresh_ = std::make_unique<ScratchDb>("it_update_fresh");
            fresh_description_ = describe(fresh_->dsn());
        } catch (const std::exception& e) {
            setup_error_ = e.what();
        }
    }
    static void TearDownTestSuite() {
        updated_.reset();
        fresh_.reset();
    }
    void SetUp() override {
        ASSERT_EQ(setup_error_, "");
        ASSERT_EQ(version_before_, kOldVersion);
        ASSERT_EQ(version_after_, target_) << "ALTER EXTENSION id_gen UPDATE did not reach the default version";
    }

    static void make_data(pqxx::transaction_base& tx) {
        tx.exec("SELECT prefix_register('acct', 'accounts')");
        tx.exec("SELECT create_shard(7)");
        tx.exec(R"(CREATE TABLE ids (
            n int PRIMARY KEY,
            u ulid NOT NULL DEFAULT gen_ulid(), uh ulid, ub ulid,
            s snowflake NOT NULL DEFAULT gen_snowflake(), sh snowflake, sb snowflake,
            b64 base36_64, b64h base36_64, b128 base36_128, b128h base36_128,
            p uuid NOT NULL DEFAULT gen_uuidv7()))");
        // Indexes first, so the rows go in through each access method's insert path.
        tx.exec(
            "CREATE UNIQUE INDEX ids_u_btree ON ids (u); CREATE INDEX ids_uh_hash ON ids USING hash (uh); "
            "CREATE INDEX ids_ub_brin ON ids USING brin (ub) WITH (pages_per_range = 4); "
            "CREATE UNIQUE INDEX ids_s_btree ON ids (s); CREATE INDEX ids_sh_hash ON ids USING hash (sh); "
            "CREATE INDEX ids_sb_brin ON ids USING brin (sb) WITH (pages_per_range = 4); "
            "CREATE UNIQUE INDEX ids_b64_btree ON ids (b64); CREATE INDEX ids_b64h_hash ON ids USING hash (b64h); "
            "CREATE UNIQUE INDEX ids_b128_btree ON ids (b128); "
            "CREATE INDEX ids_b128h_hash ON ids USING hash (b128h); CREATE UNIQUE INDEX ids_p_btree ON ids (p)");
        // base36_128 gets random values (inserts all over the btree); base36_64 the snowflakes.
        tx.exec(
            "INSERT INTO ids SELECT n, u, u, u, s, s, s, s::base36_64, s::base36_64, r, r, p FROM ("
            "SELECT g AS n, gen_ulid() AS u, gen_snowflake() AS s, gen_random_uuid()::base36_128 AS r, "
            "gen_uuidv7() AS p FROM generate_series(1, " +
            std::to_string(kRows) + ") g) v");
        tx.exec("CREATE TABLE shard_7.items (id bigint PRIMARY KEY DEFAULT shard_7.next_id(), n int NOT NULL)");
        tx.exec("INSERT INTO shard_7.items (n) SELECT generate_series(1, " + std::to_string(kRows) + ")");
    }
    // Every stored value in its text form, row by row.
    static std::vector<std::string> snapshot(pqxx::transaction_base& tx) {
        return column(tx,
                      "SELECT concat_ws(' ', n, u, uh, ub, s, sh, sb, b64, b64h, b128, b128h, "
                      "prefixed_format('acct', p)) FROM ids WHERE n <= " +
                          std::to_string(kRows) + " ORDER BY n");
    }
    static std::vector<std::string> registries(pqxx::transaction_base& tx) {
        auto r = column(
            tx, "SELECT concat_ws(' ', shard, schema_name, epoch, created_at) FROM shard_registry ORDER BY shard");
        for (auto& l :
             column(tx, "SELECT concat_ws(' ', prefix, owner, registered_at) FROM prefix_registry ORDER BY prefix"))
            r.push_back(l);
        return r;
    }

    static inline std::string setup_error_, target_, version_before_, version_after_;
    static inline std::unique_ptr<ScratchDb> updated_, fresh_;
    static inline std::vector<std::string> fresh_description_, rows_before_, shard_rows_before_, registries_before_;
    static inline std::map<std::string, std::vector<std::string>> values_before_;  // by index name
};

TEST_F(UpdateEqualsFresh, MembersEqualAFreshInstall) {
    const auto updated = describe(updated_->dsn());
    // Sanity: the description sees the surface (ulid's type, an operator class, a cast, a table).
    for (const char* expected : {"type public.ulid: ", "operator class public.ulid_ops USING btree: ",
                                 "cast (uuid AS public.ulid): ", "relation public.shard_registry: kind=r",
                                 "extension config: public.shard_registry ", "aggregate public.min(public.ulid): "})
        EXPECT_TRUE(std::any_of(fresh_description_.begin(), fresh_description_.end(),
                                [&](const std::string& l) { return l.rfind(expected, 0) == 0; }))
            << "the description has no line starting with: " << expected;
    const Diff d = diff(updated, fresh_description_);
    EXPECT_TRUE(d.empty()) << show(d, "the database updated from " + std::string(kOldVersion),
                                   "the fresh install of " + target_);
}

// Negative control: a deliberate change to one member of the updated database (inside a
// transaction that is rolled back) is reported as exactly that difference from its description
// before the change.
TEST_F(UpdateEqualsFresh, ComparisonReportsAChangedMember) {
    struct Control {
        const char* sql;
        std::size_t only_changed, only_before;  // lines only in the description after / before the change
        const char* prefix;                     // every differing line starts with this
        const char* changed_has;
        const char* before_has;
    };
    const Control controls[] = {
        {"ALTER FUNCTION ulid_time(ulid) COST 2", 1, 1, "function public.ulid_time(public.ulid): kind=", " cost=2 ",
         " cost=1 "},
        {"ALTER FUNCTION snowflake_node(snowflake, text) STABLE", 1, 1,
         "function public.snowflake_node(public.snowflake,text): kind=", " volatile=s ", " volatile=i "},
        {"ALTER TYPE ulid SET (RECEIVE = NONE)", 1, 1, "type public.ulid: ", " receive=- ",
         " receive=public.ulid_recv(internal) "},
        {"ALTER OPERATOR <= (ulid, ulid) SET (RESTRICT = scalarltsel)", 1, 1,
         "operator public.<=(public.ulid,public.ulid): ", " restrict=scalarltsel(", " restrict=scalarlesel("},
        {"UPDATE pg_catalog.pg_cast SET castcontext = 'a' WHERE castsource = 'uuid'::regtype "
         "AND casttarget = 'ulid'::regtype",
         1, 1, "cast (uuid AS public.ulid): ", " context=a ", " context=e "},
        {"COMMENT ON TYPE ulid IS NULL", 0, 1, "comment on type public.ulid: ", "", "'Universally"},
        {"ALTER OPERATOR FAMILY ulid_ops USING btree DROP FUNCTION 2 (ulid, ulid)", 0, 1,
         "operator family public.ulid_ops USING btree: function 2 ", "", "ulid_sortsupport"},
        {"ALTER TABLE shard_registry ALTER COLUMN created_at DROP DEFAULT", 1, 1,
         "relation public.shard_registry: column 4 created_at ", " default= ", " default=now() "},
        // Drops the last configuration table, however many there are.
        {"UPDATE pg_catalog.pg_extension SET extconfig = extconfig[1:cardinality(extconfig) - 1], "
         "extcondition = extcondition[1:cardinality(extcondition) - 1] WHERE extname = 'id_gen'",
         0, 1, "extension config: ", "", " condition="},
    };
    const auto before = describe(updated_->dsn());
    pqxx::connection c(updated_->dsn());
    for (const auto& ctl : controls) {
        SCOPED_TRACE(ctl.sql);
        pqxx::work tx(c);
        tx.exec(ctl.sql);
        const Diff d = diff(describe(tx), before);
        tx.abort();  // put it back
        const std::string shown = show(d, "the changed database", "the database before the change");
        ASSERT_EQ(d.only_a.size(), ctl.only_changed) << shown;
        ASSERT_EQ(d.only_b.size(), ctl.only_before) << shown;
        for (const auto& l : d.only_a) {
            EXPECT_EQ(l.rfind(ctl.prefix, 0), 0u) << shown;
            EXPECT_NE(l.find(ctl.changed_has), std::string::npos) << shown;
        }
        for (const auto& l : d.only_b) {
            EXPECT_EQ(l.rfind(ctl.prefix, 0), 0u) << shown;
            EXPECT_NE(l.find(ctl.before_has), std::string::npos) << shown;
        }
    }
    const Diff after = diff(describe(updated_->dsn()), before);
    EXPECT_TRUE(after.empty()) << "after the rollbacks: " << show(after, "now", "before the changes");
}

TEST_F(UpdateEqualsFresh, DataReadsBackTheSame) {
    pqxx::connection c(updated_->dsn());
    pqxx::work tx(c);
    const auto rows = snapshot(tx);
    ASSERT_EQ(rows.size(), static_cast<std::size_t>(kRows));
    ASSERT_EQ(rows_before_.size(), static_cast<std::size_t>(kRows));
    for (std::size_t i = 0; i < rows.size(); ++i) ASSERT_EQ(rows[i], rows_before_[i]) << "row " << i + 1;
    EXPECT_EQ(column(tx, kShardRows), shard_rows_before_);
    EXPECT_EQ(registries(tx), registries_before_);
    EXPECT_EQ(tx.exec1("SELECT prefix_owner('acct')")[0].c_str(), std::string("accounts"));
    // The shard IDs decode to shard 7 with the registry's epoch, dated no later than the run-ahead
    // allowance (1 s) after they were made.
    EXPECT_EQ(tx.exec1("SELECT count(*) FROM shard_7.items WHERE shard_id_shard(id) <> 7 OR shard_id_time(id) IS NULL "
                       "OR shard_id_time(id) > now() + interval '1 second'")[0]
                  .as<long>(),
              0);
}

// Every value made before the update is found through its index, looked up by its text form
// (taken before the update), one parameterized index lookup per value.
TEST_F(UpdateEqualsFresh, IndexScansFindTheOldRows) {
    pqxx::connection c(updated_->dsn());
    for (const auto& ix : kIndexed) {
        SCOPED_TRACE(ix.index);
        const auto& texts = values_before_[ix.index];
        ASSERT_EQ(texts.size(), static_cast<std::size_t>(kRows));
        std::string values = "{";  // IDs' text forms are letters, digits and '_': no quoting needed
        for (const auto& t : texts) values += (values.size() > 1 ? "," : "") + t;
        values += "}";
        const std::string query = "SELECT count(*) FROM unnest('" + values +
                                  "'::text[]) v(t) WHERE EXISTS "
                                  "(SELECT 1 FROM ids WHERE ids." +
                                  std::string(ix.column) + " = " + ix.key + ")";
        pqxx::work tx(c);
        tx.exec("SET LOCAL enable_seqscan = off; SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off");
        std::string plan;
        for (const auto& row : tx.exec("EXPLAIN " + query)) plan += std::string(row[0].c_str()) + "\n";
        EXPECT_NE(plan.find(ix.index), std::string::npos) << plan;
        EXPECT_NE(plan.find("Index Cond"), std::string::npos) << plan;
        EXPECT_EQ(plan.find("Seq Scan"), std::string::npos) << plan;
        EXPECT_EQ(tx.exec1(query)[0].as<long>(), kRows);
    }
}

TEST_F(UpdateEqualsFresh, BtreeIndexesPassAmcheck) {
    pqxx::connection c(updated_->dsn());
    pqxx::work tx(c);
    if (tx.exec1("SELECT count(*) FROM pg_available_extensions WHERE name = 'amcheck'")[0].as<long>() == 0)
        GTEST_SKIP() << "amcheck is not available on this server";
    tx.exec("CREATE EXTENSION IF NOT EXISTS amcheck");
    const auto indexes = column(tx,
                                "SELECT i.indexrelid::regclass FROM pg_index i JOIN pg_class x ON x.oid = i.indexrelid "
                                "JOIN pg_am a ON a.oid = x.relam WHERE a.amname = 'btree' AND i.indrelid IN "
                                "('ids'::regclass, 'shard_7.items'::regclass, 'shard_registry'::regclass, "
                                "'prefix_registry'::regclass) ORDER BY 1");
    EXPECT_EQ(indexes.size(), 10u);  // ids: pkey + 5; items: pkey; registries: 3
    for (const auto& ix : indexes) {
        SCOPED_TRACE(ix);
        tx.exec("SELECT bt_index_check(" + tx.quote(ix) + "::regclass, true)");
        tx.exec("SELECT bt_index_parent_check(" + tx.quote(ix) + "::regclass, true)");
    }
}

// Generators still issue after the update: node snowflakes and shard IDs above every ID issued
// before it (their state is kept per server and per shard), ULIDs and UUIDv7s not from an earlier
// millisecond (their order across sessions is by wall-clock time only).
TEST_F(UpdateEqualsFresh, GeneratorsIssueAfterTheUpdate) {
    pqxx::connection c(updated_->dsn());
    pqxx::work tx(c);
    auto max_of = [&](const std::string& col) {
        return "(SELECT max(" + col + ") FROM ids WHERE n <= " + std::to_string(kRows) + ")";
    };
    tx.exec("INSERT INTO ids (n) SELECT generate_series(" + std::to_string(kRows + 1) + ", " +
            std::to_string(kRows + 100) + ")");
    // Node state is shared by the server: every new snowflake is above every old one.
    EXPECT_EQ(tx.exec1("SELECT count(*) FROM ids WHERE n > " + std::to_string(kRows) + " AND s <= " + max_of("s"))[0]
                  .as<long>(),
              0);
    // ulid and uuidv7: unique (ids_u_btree, ids_p_btree) and not from an earlier millisecond.
    EXPECT_EQ(tx.exec1("SELECT count(*) FROM ids WHERE n > " + std::to_string(kRows) +
                       " AND ulid_time(u) < ulid_time(" + max_of("u") + ")")[0]
                  .as<long>(),
              0);
    EXPECT_EQ(tx.exec1("SELECT count(*) FROM ids WHERE n > " + std::to_string(kRows) +
                       " AND uuid_version(p) = 7 AND "
                       "uuidv7_time(p) >= (SELECT max(uuidv7_time(p)) FROM ids WHERE n <= " +
                       std::to_string(kRows) + ")")[0]
                  .as<long>(),
              100);
    // The shard's next_id(), through the column default: above every ID issued before the update.
    const long long before = tx.exec1("SELECT max(id) FROM shard_7.items")[0].as<long long>();
    const auto fresh = tx.exec("INSERT INTO shard_7.items (n) SELECT generate_series(" + std::to_string(kRows + 1) +
                               ", " + std::to_string(kRows + 100) + ") RETURNING id");
    ASSERT_EQ(fresh.size(), 100u);
    for (const auto& row : fresh) EXPECT_GT(row[0].as<long long>(), before);
    EXPECT_EQ(tx.exec1("SELECT gen_prefixed('acct') ~ '^acct_[0-9a-z]{25}$'")[0].as<bool>(), true);
    // A shard created after the update issues too.
    tx.exec("SELECT create_shard(8)");
    EXPECT_EQ(tx.exec1("SELECT shard_id_shard(shard_8.next_id())")[0].as<int>(), 8);
    // Rolled back: the other tests see only the rows made before the update.
}

// Every released version (an install script other than the default version's) updates to the
// default version, and the result equals the fresh install.
TEST_F(UpdateEqualsFresh, EveryReleasedVersionUpdatesToAFreshInstall) {
    std::vector<std::string> released;
    for (const auto& v : installable_versions())
        if (v != target_) released.push_back(v);
    ASSERT_NE(std::find(released.begin(), released.end(), kOldVersion), released.end())
        << "no install script for " << kOldVersion << " in the server's sharedir";
    pqxx::connection c(idgen::it::dsn());
    pqxx::nontransaction tx(c);
    for (const auto& v : released) {
        SCOPED_TRACE("from " + v);
        const auto path = tx.exec_params(
            "SELECT path FROM pg_extension_update_paths('id_gen') WHERE source = $1 AND target = $2", v, target_);
        ASSERT_EQ(path.size(), 1u);
        ASSERT_FALSE(path[0][0].is_null()) << "no chain of update scripts from " << v << " to " << target_;
        ScratchDb db("it_update_path", v);
        {
            pqxx::connection dc(db.dsn());
            pqxx::nontransaction dt(dc);
            dt.exec("ALTER EXTENSION id_gen UPDATE");
        }
        const Diff d = diff(describe(db.dsn()), fresh_description_);
        EXPECT_TRUE(d.empty()) << show(d, "the database updated from " + v + " (" + path[0][0].c_str() + ")",
                                       "the fresh install of " + target_);
    }
}

// The generators of ID types that 0.2.0's create_id_type() made (kinds ulid and uuidv7: PARALLEL
// SAFE then) are PARALLEL RESTRICTED after the update, as create_id_type() makes them now; a
// snowflake type's stays PARALLEL UNSAFE. (Created types are not members: the comparison above
// does not see them.)
TEST(UpdateCreatedTypes, GeneratorsGetTheLabelsCreateIdTypeGivesNow) {
    ScratchDb db("it_update_types", "0.2.0");
    pqxx::connection c(db.dsn());
    pqxx::nontransaction tx(c);
    tx.exec(
        "SELECT create_id_type('upd_ulid', kind => 'ulid', prefix => 'updu'),"
        "       create_id_type('upd_v7', kind => 'uuidv7', prefix => 'updv', format => 'typeid'),"
        "       create_id_type('upd_sf', kind => 'snowflake', prefix => 'upds')");
    const char* labels =
        "SELECT string_agg(p.proname || '=' || p.proparallel::text, ' ' ORDER BY p.proname) FROM pg_proc p "
        "WHERE p.pronargs = 0 AND p.proname IN ('gen_upd_ulid', 'gen_upd_v7', 'gen_upd_sf', 'gen_ulid', 'gen_uuidv7')";
    EXPECT_EQ(tx.exec1(labels)[0].as<std::string>(),
              "gen_ulid=s gen_upd_sf=u gen_upd_ulid=s gen_upd_v7=s gen_uuidv7=s");
    tx.exec("ALTER EXTENSION id_gen UPDATE");
    EXPECT_EQ(tx.exec1(labels)[0].as<std::string>(),
              "gen_ulid=r gen_upd_sf=u gen_upd_ulid=r gen_upd_v7=r gen_uuidv7=r");
    // And the same for a type created after the update.
    tx.exec("SELECT create_id_type('upd_ksuid', kind => 'ksuid', prefix => 'updk')");
    EXPECT_EQ(tx.exec1("SELECT proparallel::text FROM pg_proc WHERE proname = 'gen_upd_ksuid'")[0].as<std::string>(),
              "r");
}

}  // namespace
