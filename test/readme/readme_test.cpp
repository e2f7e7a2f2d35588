// The README layer of the test command: runs the fenced SQL blocks of README.md and then of the
// docs/*.md pages, in the order README.md's Contents list links them, as a user pasting them into
// one psql session would, on the clusters scripts/test.sh started, and checks the results they
// show. One test per block; what a page made (tables, registered prefixes, settings) is there for
// the pages after it. The conventions are in readme_blocks.h and in docs/contributing.md. Then
// every relative link and #anchor of README.md and docs/*.md is checked.
//
// Each cluster gets a fresh database (without the extension: the README's own CREATE EXTENSION
// block makes it) and one session for every block, with TimeZone UTC. Plain blocks run on both
// clusters: the main one preloads id_gen, the second does not. A block stops at the first
// statement that fails unexpectedly (as psql with ON_ERROR_STOP). Afterwards the databases are
// dropped, and settings the blocks changed with ALTER SYSTEM and roles they created are undone.
// Blocks tagged `schema` run a second time, in their order, in a third database on the main
// cluster, where id_gen was installed in a schema of its own (CREATE SCHEMA id_gen; CREATE
// EXTENSION id_gen SCHEMA id_gen) and that schema put last on the database's search_path, as
// docs/migrating.md says to do beside an application's own objects.
//   IDGEN_README        the landing page to run (default: the repository's README.md); the docs
//                       pages its Contents list links are read relative to its directory
//   IDGEN_README_KEEP   keep the databases (named idgen_readme) for a look afterwards
#include "readme_blocks.h"
#include "readme_run.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <pqxx/pqxx>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#ifndef IDGEN_SOURCE_DIR
#error "IDGEN_SOURCE_DIR must name the repository"
#endif

namespace idgen::readme {
// How gtest names a block in its messages.
void PrintTo(const Block& b, std::ostream* os) { *os << b.file << ":" << b.line; }
}  // namespace idgen::readme

namespace {

using idgen::readme::Block;

const char* const kDb = "idgen_readme";
const char* const kSchemaDb = "idgen_readme_schema";

std::string env_or(const char* name, const std::string& fallback) {
    const char* v = std::getenv(name);
    return v && *v ? v : fallback;
}

std::string readme_path() { return env_or("IDGEN_README", std::string(IDGEN_SOURCE_DIR) + "/README.md"); }

std::string readme_dir() { return readme_path().substr(0, readme_path().rfind('/') + 1); }

std::string slurp(const std::string& path, bool* ok = nullptr) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    if (ok) *ok = static_cast<bool>(in);
    return ss.str();
}

// README.md's blocks, then each docs page's, in the order of README.md's Contents list.
std::vector<Block> load_blocks() {
    std::vector<Block> blocks;
    auto add = [&](const std::string& name) {
        bool ok = false;
        const std::string md = slurp(name == "README.md" ? readme_path() : readme_dir() + name, &ok);
        auto page = ok ? idgen::readme::parse_readme(md) : std::vector<Block>{};
        // A docs page may have no SQL (the C++ library's, the generated reference); the README has.
        if (!ok || (page.empty() && name == "README.md")) {
            Block b;
            b.error = ok ? "no ```sql block read from " + readme_path() : "cannot read " + readme_dir() + name;
            page.push_back(b);
        }
        for (Block& b : page) {
            b.file = name;
            blocks.push_back(b);
        }
        return md;
    };
    const std::string readme = add("README.md");
    for (const std::string& page : idgen::readme::docs_in_order(readme)) add(page);
    return blocks;
}

// One test cluster: its fresh database and the session every block runs in.
struct Cluster {
    std::string label;  // "id_gen preloaded" / "id_gen not preloaded"
    std::string db = kDb;
    bool own_schema = false;  // the database gets id_gen in schema id_gen before the blocks
    std::string host, port;
    bool want_preloaded = false;
    std::string setup_error;  // the cluster cannot be used: every block on it fails with this
    bool preloaded = false;
    int major = 0;
    std::unique_ptr<pqxx::connection> session;
    std::map<std::string, std::string> auto_conf;  // postgresql.auto.conf before the blocks
    std::set<std::string> roles;                   // roles before the blocks

    [[nodiscard]] std::string dsn(const std::string& db) const {
        return "host=" + host + " port=" + port + " user=" + env_or("PGUSER", "postgres") + " dbname=" + db;
    }
    [[nodiscard]] std::string where() const { return "PostgreSQL " + std::to_string(major) + ", " + label; }
};

std::map<std::string, std::string> auto_conf_of(pqxx::nontransaction& tx) {
    std::map<std::string, std::string> m;
    for (const auto& r : tx.exec("SELECT name, setting FROM pg_catalog.pg_file_settings "
                                 "WHERE sourcefile LIKE '%/postgresql.auto.conf' ORDER BY seqno"))
        m[r[0].c_str()] = r[1].is_null() ? "" : r[1].c_str();
    return m;
}

std::set<std::string> roles_of(pqxx::nontransaction& tx) {
    std::set<std::string> s;
    for (const auto& r : tx.exec("SELECT rolname FROM pg_catalog.pg_roles")) s.insert(r[0].c_str());
    return s;
}

void start(Cluster& c) {
    if (c.host.empty()) {
        c.setup_error = "no server for the blocks that run " + c.label + " (scripts/test.sh sets its host and port)";
        return;
    }
    try {
        pqxx::connection admin(c.dsn("postgres"));
        pqxx::nontransaction tx(admin);
        c.major = std::stoi(tx.exec("SHOW server_version_num")[0][0].c_str()) / 10000;
        // Tags promise where a block ran: the clusters must be what they are said to be.
        c.preloaded = tx.exec(
                            "SELECT 'id_gen' = ANY (pg_catalog.string_to_array(pg_catalog.replace("
                            "pg_catalog.current_setting('shared_preload_libraries'), ' ', ''), ','))")[0][0]
                          .as<bool>();
        if (c.preloaded != c.want_preloaded) {
            c.setup_error = "the server for the blocks that run " + c.label + " has shared_preload_libraries = '" +
                            tx.exec("SHOW shared_preload_libraries")[0][0].c_str() + "'";
            return;
        }
        c.auto_conf = auto_conf_of(tx);
        c.roles = roles_of(tx);
        tx.exec("DROP DATABASE IF EXISTS " + c.db + " WITH (FORCE)");
        tx.exec("CREATE DATABASE " + c.db);
        if (c.own_schema) {
            pqxx::connection setup(c.dsn(c.db));
            pqxx::nontransaction stx(setup);
            stx.exec("CREATE SCHEMA id_gen");
            stx.exec("CREATE EXTENSION id_gen SCHEMA id_gen");
            stx.exec("ALTER DATABASE " + c.db + " SET search_path = \"$user\", public, id_gen");
        }
        c.session = std::make_unique<pqxx::connection>(c.dsn(c.db) + " options='-c TimeZone=UTC -c DateStyle=ISO,MDY'");
    } catch (const std::exception& e) {
        c.setup_error = std::string("cannot prepare the database: ") + e.what();
    }
}

// Undoes what the blocks did to the cluster beyond their database.
std::string finish(Cluster& c) {
    if (!c.setup_error.empty() || c.major == 0) return "";
    std::string problems;
    c.session.reset();
    try {
        pqxx::connection admin(c.dsn("postgres"));
        pqxx::nontransaction tx(admin);
        // The schema database shares the main cluster: its settings and roles are the main's.
        if (c.own_schema) {
            if (env_or("IDGEN_README_KEEP", "").empty()) tx.exec("DROP DATABASE IF EXISTS " + c.db + " WITH (FORCE)");
            return "";
        }
        // Without preloading, PostgreSQL 15 and 16 know id_gen's settings only once it is loaded.
        tx.exec("LOAD 'id_gen'");
        const auto now = auto_conf_of(tx);
        bool changed = false;
        for (const auto& [name, value] : now) {
            auto it = c.auto_conf.find(name);
            if (it == c.auto_conf.end()) {
                tx.exec("ALTER SYSTEM RESET " + tx.quote_name(name));
                changed = true;
            } else if (it->second != value) {
                tx.exec("ALTER SYSTEM SET " + tx.quote_name(name) + " = " + tx.quote(it->second));
                changed = true;
            }
        }
        for (const auto& [name, value] : c.auto_conf)
            if (now.find(name) == now.end()) {
                tx.exec("ALTER SYSTEM SET " + tx.quote_name(name) + " = " + tx.quote(value));
                changed = true;
            }
        if (changed) tx.exec("SELECT pg_catalog.pg_reload_conf()");
        if (env_or("IDGEN_README_KEEP", "").empty()) {
            tx.exec("DROP DATABASE IF EXISTS " + c.db + " WITH (FORCE)");
            for (const std::string& r : roles_of(tx))
                if (c.roles.count(r) == 0) tx.exec("DROP ROLE " + tx.quote_name(r));
        }
    } catch (const std::exception& e) {
        problems = c.where() + ": cleaning up after the README failed: " + e.what();
    }
    return problems;
}

Cluster g_main, g_second, g_schema;

// Runs one block's statements in the cluster's session (opened again if a statement lost it).
std::string run_block(Cluster& c, const Block& b) {
    try {
        if (!c.session || !c.session->is_open()) {
            c.session =
                std::make_unique<pqxx::connection>(c.dsn(c.db) + " options='-c TimeZone=UTC -c DateStyle=ISO,MDY'");
        }
    } catch (const std::exception& x) {
        return b.file + ":" + std::to_string(b.line) + " (" + c.where() + ")\n    lost the session: " + x.what() + "\n";
    }
    return idgen::readme::run_statements(*c.session, b, c.where());
}

class ReadmeBlock : public ::testing::TestWithParam<Block> {
public:
    static void SetUpTestSuite() {
        g_main.label = "id_gen preloaded";
        g_main.want_preloaded = true;
        g_main.host = env_or("PGHOST", "");
        g_main.port = env_or("PGPORT", "5432");
        g_second.label = "id_gen not preloaded";
        g_second.want_preloaded = false;
        g_second.host = env_or("IDGEN_NOPRELOAD_PGHOST", "");
        g_second.port = env_or("IDGEN_NOPRELOAD_PGPORT", "5432");
        g_schema.label = "id_gen preloaded, in schema id_gen";
        g_schema.want_preloaded = true;
        g_schema.host = g_main.host;
        g_schema.port = g_main.port;
        g_schema.db = kSchemaDb;
        g_schema.own_schema = true;
        start(g_main);
        start(g_second);
        start(g_schema);
    }
    static void TearDownTestSuite() {
        // g_schema first (its database only): g_main's finish() then restores the settings and
        // roles of the cluster they share.
        for (Cluster* c : {&g_schema, &g_main, &g_second}) {
            const std::string problems = finish(*c);
            // A failure (the run's exit status), not a note: a cluster left changed would mislead the
            // layers after this one.
            if (!problems.empty()) ADD_FAILURE() << problems;
        }
    }
};

TEST_P(ReadmeBlock, Runs) {
    const Block& b = GetParam();
    const std::string at = b.file + ":" + std::to_string(b.line);
    if (!b.error.empty()) FAIL() << at << ": " << b.error;
    if (b.fragment) GTEST_SKIP() << at << " [sql fragment]: shown, not run";
    // Run by the Citus layer (test/citus, ReadmeBlocks), in order, on its coordinator.
    if (b.citus) GTEST_SKIP() << at << " [sql citus]: run by the Citus layer on its coordinator";
    int ran = 0;
    std::string other_version;
    for (Cluster* c : {&g_main, &g_second, &g_schema}) {
        if (c->own_schema && !b.schema) continue;
        if ((b.preload && !c->want_preloaded) || (b.nopreload && c->want_preloaded)) continue;
        if (!c->setup_error.empty()) {
            ADD_FAILURE() << at << " (" << c->label << "): " << c->setup_error;
            continue;
        }
        if (c->major < b.min_major || c->major > b.max_major) {
            other_version = "PostgreSQL " + std::to_string(c->major);
            continue;
        }
        ++ran;
        const std::string failures = run_block(*c, b);
        if (!failures.empty()) {
            ADD_FAILURE() << failures;
            // The next block is judged on its own: not inside this one's failed transaction or role.
            try {
                pqxx::nontransaction tx(*c->session);
                tx.exec("ROLLBACK");
                tx.exec("RESET ROLE");
            } catch (const std::exception&) {}
        }
    }
    if (ran == 0 && !other_version.empty()) {
        std::string tags;
        for (const auto& t : b.tags) tags += " " + t;
        GTEST_SKIP() << at << " [sql" << tags << "]: not run on " << other_version;
    }
}

std::string block_name(const ::testing::TestParamInfo<Block>& info) {
    std::string slug;
    std::string page = info.param.file.substr(info.param.file.rfind('/') + 1);
    page = page.substr(0, page.find('.'));
    for (char& ch : page)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    for (char ch : info.param.heading) {
        if (std::isalnum(static_cast<unsigned char>(ch)))
            slug += ch;
        else if (!slug.empty() && slug.back() != '_')
            slug += '_';
        if (slug.size() >= 32) break;
    }
    while (!slug.empty() && slug.back() == '_') slug.pop_back();
    return page + "_L" + std::to_string(info.param.line) + (slug.empty() ? "" : "_" + slug) + "_" +
           std::to_string(info.index);
}

INSTANTIATE_TEST_SUITE_P(Readme, ReadmeBlock, ::testing::ValuesIn(load_blocks()), block_name);

// Every relative link of README.md and docs/*.md reaches a file of the repository and, where it
// names an anchor of a Markdown page, a heading of that page.
TEST(ReadmeLinks, EveryRelativeLinkAndAnchorResolves) {
    namespace fs = std::filesystem;
    const std::string root = readme_dir();
    std::map<std::string, std::string> pages;
    bool ok = false;
    pages["README.md"] = slurp(readme_path(), &ok);
    ASSERT_TRUE(ok) << readme_path();
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(root + "docs", ec))
        if (entry.path().extension() == ".md")
            pages["docs/" + entry.path().filename().string()] = slurp(entry.path().string());
    ASSERT_FALSE(ec) << root << "docs: " << ec.message();
    ASSERT_GT(pages.size(), 1u) << "no docs/*.md page";
    const auto problems = idgen::readme::link_problems(
        pages, [&](const std::string& f) { return fs::exists(root + f); },
        [&](const std::string& f) { return slurp(root + f); });
    for (const auto& p : problems) ADD_FAILURE() << p;
}

// README.md is a landing page: at most 450 lines, the manual's detail lives in docs/.
TEST(ReadmeLinks, TheReadmeIsALandingPage) {
    const std::string readme = slurp(readme_path());
    const auto lines = std::count(readme.begin(), readme.end(), '\n');
    EXPECT_GT(lines, 0);
    EXPECT_LE(lines, 450) << "README.md has " << lines << " lines: move detail to a page of docs/";
}

// README.md's Contents list every section of README.md and every docs page (a page it does not
// list would not be run), and each docs page is one reachable from the README.
TEST(ReadmeLinks, ContentsListEverySectionAndEveryPage) {
    namespace fs = std::filesystem;
    const std::string readme = slurp(readme_path());
    const auto o = idgen::readme::outline_of(readme);
    std::set<std::string> listed(o.contents_links.begin(), o.contents_links.end());
    EXPECT_FALSE(listed.empty()) << "README.md has no \"## Contents\" list";
    for (const auto& [level, text] : o.headings) {
        if (level == 2 && text != "Contents") {
            EXPECT_EQ(listed.count("#" + idgen::readme::anchor_of(text)), 1u)
                << "the README's Contents do not list the section \"" << text << "\"";
        }
    }
    const auto order = idgen::readme::docs_in_order(readme);
    std::error_code ec;
    int pages = 0;
    for (const auto& entry : fs::directory_iterator(readme_dir() + "docs", ec)) {
        if (entry.path().extension() != ".md") continue;
        ++pages;
        const std::string page = "docs/" + entry.path().filename().string();
        EXPECT_NE(std::find(order.begin(), order.end(), page), order.end())
            << page << " is not linked from README.md's Contents, so the README layer would not run its blocks";
    }
    EXPECT_GT(pages, 0);
}

}  // namespace
