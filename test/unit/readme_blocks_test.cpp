// The README layer's reading of README.md (test/readme/readme_blocks.h): what it runs, how it
// splits statements, and which results it checks. A mistake here would let the README layer pass
// blocks it never ran or results it never compared.
#include "../readme/readme_blocks.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

using idgen::readme::Block;
using idgen::readme::Expectation;
using idgen::readme::parse_readme;
using idgen::readme::same_shape;
using idgen::readme::Statement;

namespace {

std::vector<Statement> split(const std::string& text, std::string* error = nullptr) {
    std::vector<Statement> out;
    std::string err = idgen::readme::split_statements(text, 10, out);
    if (error)
        *error = err;
    else
        EXPECT_EQ(err, "") << text;
    return out;
}

}  // namespace

TEST(ReadmeBlocks, OnlySqlFencesWithTheirTagsHeadingAndLine) {
    const std::string md =
        "# Title\n"
        "```\nscripts/test.sh\n```\n"
        "## ulid\n"
        "```sql\nSELECT 1;\n```\n"
        "```sql preload pg17+\nSELECT 2;\n```\n"
        "```sh\nSELECT 3;\n```\n"
        "```sql fragment\nSELECT * FROM t WHERE id = $1\n```\n"
        "```sqlite\nSELECT 4;\n```\n";
    const auto blocks = parse_readme(md);
    ASSERT_EQ(blocks.size(), 3u);
    EXPECT_EQ(blocks[0].line, 6);
    EXPECT_EQ(blocks[0].heading, "ulid");
    EXPECT_TRUE(blocks[0].tags.empty());
    ASSERT_EQ(blocks[0].statements.size(), 1u);
    EXPECT_EQ(blocks[0].statements[0].sql, "SELECT 1;");
    EXPECT_EQ(blocks[0].statements[0].line, 7);
    EXPECT_TRUE(blocks[1].preload);
    EXPECT_EQ(blocks[1].min_major, 17);
    EXPECT_EQ(blocks[1].error, "");
    // A fragment is not split (its placeholders need not be SQL) and has no error.
    EXPECT_TRUE(blocks[2].fragment);
    EXPECT_TRUE(blocks[2].statements.empty());
    EXPECT_EQ(blocks[2].error, "");
}

TEST(ReadmeBlocks, InlineCodeAtTheStartOfALineIsNoFence) {
    const auto blocks = parse_readme("```` ```sql ```` blocks run\n```sql\nSELECT 1;\n```\n");
    ASSERT_EQ(blocks.size(), 1u);
    EXPECT_EQ(blocks[0].line, 2);
    EXPECT_EQ(blocks[0].error, "");
}

// `schema`: run again in the database where id_gen has a schema of its own; combines with the
// version and preload tags, not with citus.
TEST(ReadmeBlocks, TheSchemaTag) {
    const auto b = parse_readme("```sql schema pg17+\nSELECT 1;\n```\n```sql\nSELECT 2;\n```\n");
    ASSERT_EQ(b.size(), 2u);
    EXPECT_EQ(b[0].error, "");
    EXPECT_TRUE(b[0].schema);
    EXPECT_EQ(b[0].min_major, 17);
    EXPECT_FALSE(b[1].schema);
    EXPECT_NE(parse_readme("```sql schema citus\nSELECT 1;\n```\n")[0].error, "");
}

TEST(ReadmeBlocks, BadTagsAndUnclosedFencesAreErrors) {
    EXPECT_NE(parse_readme("```sql prelaod\nSELECT 1;\n```\n")[0].error, "");
    EXPECT_NE(parse_readme("```sql preload nopreload\nSELECT 1;\n```\n")[0].error, "");
    EXPECT_NE(parse_readme("```sql fragment citus\nx\n```\n")[0].error, "");
    EXPECT_NE(parse_readme("```sql pg+\nSELECT 1;\n```\n")[0].error, "");
    EXPECT_NE(parse_readme("```sql\nSELECT 1;\n")[0].error, "");
    EXPECT_NE(parse_readme("```sql\n-- only a comment\n```\n")[0].error, "");
    EXPECT_NE(parse_readme("```sql pg17x\nSELECT 1;\n```\n")[0].error, "");
    EXPECT_NE(parse_readme("```sql pg17+ pg16-\nSELECT 1;\n```\n")[0].error, "");
    EXPECT_TRUE(parse_readme("```sql citus\nSELECT 1;\n```\n")[0].citus);
}

TEST(ReadmeBlocks, VersionTags) {
    const auto b = parse_readme("```sql pg16-\nSELECT 1;\n```\n```sql pg17\nSELECT 1;\n```\n```sql\nSELECT 1;\n```\n");
    ASSERT_EQ(b.size(), 3u);
    EXPECT_EQ(b[0].min_major, 0);
    EXPECT_EQ(b[0].max_major, 16);
    EXPECT_EQ(b[1].min_major, 17);
    EXPECT_EQ(b[1].max_major, 17);
    EXPECT_EQ(b[2].min_major, 0);
    EXPECT_GE(b[2].max_major, 99);
}

TEST(ReadmeBlocks, SplitsLikePsql) {
    const auto s = split(
        "-- prose before\n"
        "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $$ SELECT 1; $$;\n"
        "SELECT 'a;b', E'c\\';d', \"x;y\", $q$ ; $q$, $1::text\n"
        "  -- a comment; inside\n"
        "  /* block; /* nested; */ still; */ FROM (SELECT 1; ) s;\n"
        "SELECT 'it''s;';\n");
    ASSERT_EQ(s.size(), 3u);
    EXPECT_EQ(s[0].sql, "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $$ SELECT 1; $$;");
    EXPECT_EQ(s[0].line, 11);
    EXPECT_EQ(s[1].line, 12);
    EXPECT_NE(s[1].sql.find("FROM (SELECT 1; ) s;"), std::string::npos) << s[1].sql;
    EXPECT_NE(s[1].sql.find("-- a comment; inside"), std::string::npos) << s[1].sql;
    EXPECT_EQ(s[2].sql, "SELECT 'it''s;';");
}

TEST(ReadmeBlocks, UnterminatedStatementsAndMetaCommandsAreErrors) {
    std::string err;
    split("SELECT 1", &err);
    EXPECT_NE(err, "");
    split("SELECT 'open;\n", &err);
    EXPECT_NE(err, "");
    split("SELECT $a$ open; \n", &err);
    EXPECT_NE(err, "");
    split("\\c other\nSELECT 1;\n", &err);
    EXPECT_NE(err, "");
    split("SELECT 1; SELECT 2;\n", &err);
    EXPECT_NE(err, "");
}

TEST(ReadmeBlocks, ExpectedResults) {
    const auto s = split(
        "SELECT 1;   -- → 1\n"
        "SELECT x, y FROM t;\n"
        "-- → a | NULL\n"
        "--   →   b | c\n"
        "-- prose, not a row\n"
        "SELECT 1/0;  -- → ERROR 22012: division by zero\n"
        "SELECT 'x'::int;\n"
        "-- → ERROR 22P02\n"
        "SELECT gen_ulid();  -- e.g. 01J9ZQ4K3M5N6P7Q8R9S0T1V2W\n"
        "SELECT 2;  -- two, prose\n");
    ASSERT_EQ(s.size(), 6u);
    EXPECT_EQ(s[0].expect.kind, Expectation::Kind::Rows);
    EXPECT_EQ(s[0].expect.rows, std::vector<std::string>{"1"});
    EXPECT_EQ(s[1].expect.rows, (std::vector<std::string>{"a | NULL", "b | c"}));
    EXPECT_EQ(s[2].expect.kind, Expectation::Kind::Error);
    EXPECT_EQ(s[2].expect.sqlstate, "22012");
    EXPECT_EQ(s[2].expect.message, "division by zero");
    EXPECT_EQ(s[3].expect.kind, Expectation::Kind::Error);
    EXPECT_EQ(s[3].expect.sqlstate, "22P02");
    EXPECT_EQ(s[3].expect.message, "");
    EXPECT_EQ(s[4].expect.kind, Expectation::Kind::Shape);
    EXPECT_EQ(s[4].expect.example, "01J9ZQ4K3M5N6P7Q8R9S0T1V2W");
    EXPECT_EQ(s[5].expect.kind, Expectation::Kind::None);
}

TEST(ReadmeBlocks, AnArrowNotAfterAStatementIsAnError) {
    std::string err;
    // An arrow that would otherwise go unchecked: after prose, inside a statement, or alone.
    split("SELECT 1;\n-- prose\n-- → 1\n", &err);
    EXPECT_NE(err, "");
    split("SELECT 1  -- → 1\n;\n", &err);
    EXPECT_NE(err, "");
    split("-- → 1\n", &err);
    EXPECT_NE(err, "");
    split("SELECT 1;\n-- e.g. 1\n", &err);
    EXPECT_NE(err, "");
    split("SELECT 1; -- → ERROR 2201\n", &err);
    EXPECT_NE(err, "");
    split("SELECT 1; -- → 1\n-- → ERROR 22012\n", &err);
    EXPECT_NE(err, "");
}

TEST(ReadmeBlocks, ShapeOfAnIllustration) {
    EXPECT_TRUE(same_shape("019a8f3c-5e21-7a4b-9c1d-3f2e8b7a6c5d", "01936b2e-0000-7fff-8123-456789abcdef"));
    EXPECT_FALSE(same_shape("019a8f3c-5e21-7a4b-9c1d-3f2e8b7a6c5d", "01936B2E-0000-7FFF-8123-456789ABCDEF"));
    EXPECT_FALSE(same_shape("019a8f3c-5e21-7a4b-9c1d-3f2e8b7a6c5d", "019a8f3c5e217a4b9c1d3f2e8b7a6c5d"));
    EXPECT_TRUE(same_shape("01J9ZQ4K3M5N6P7Q8R9S0T1V2W", "01JH0000000000000000000000"));
    EXPECT_FALSE(same_shape("01J9ZQ4K3M5N6P7Q8R9S0T1V2W", "01jh0000000000000000000000"));
    EXPECT_FALSE(same_shape("acct_0b6ol7g0qk5tbhc8y8hbzs2sf", "acct-0b6ol7g0qk5tbhc8y8hbzs2sf"));
    EXPECT_FALSE(same_shape("1869411528471887872", "869411528471887872"));
}

// GitHub's heading slugs: a link checked against a wrong slug passes a link GitHub breaks.
TEST(ReadmeLinks, AnchorIsGitHubsSlug) {
    using idgen::readme::anchor_of;
    EXPECT_EQ(anchor_of("Quick start"), "quick-start");
    EXPECT_EQ(anchor_of("xid (rs/xid)"), "xid-rsxid");
    EXPECT_EQ(anchor_of("snowflake: 64-bit time-ordered IDs"), "snowflake-64-bit-time-ordered-ids");
    EXPECT_EQ(anchor_of("`uuidv7_time_precise`: an assumption the bits cannot check"),
              "uuidv7_time_precise-an-assumption-the-bits-cannot-check");
    EXPECT_EQ(anchor_of("Keys in dumps: pg_dump and restore"), "keys-in-dumps-pg_dump-and-restore");
    EXPECT_EQ(anchor_of("The C++ library"), "the-c-library");  // spaces kept apart: "--" stays
    EXPECT_EQ(anchor_of("Children: `correlation_extend()`"), "children-correlation_extend");
    // Non-ASCII punctuation goes (em dash, ellipsis, arrow, non-breaking space); letters stay.
    EXPECT_EQ(anchor_of("Install \xE2\x80\x94 from source\xE2\x80\xA6"), "install--from-source");
    EXPECT_EQ(anchor_of("a \xE2\x86\x92 b"), "a--b");
    EXPECT_EQ(anchor_of("Caf\xC3\xA9 ID"), "caf\xC3\xA9-id");
    EXPECT_EQ(anchor_of("x\xC2\xA0y"), "xy");
}

TEST(ReadmeLinks, AnchorsNumberRepeatedHeadings) {
    const auto a = idgen::readme::anchors_of(
        "# Page\n## Performance\n```\n## not a heading\n```\n### Performance\n## Reference\n");
    EXPECT_EQ(a, (std::set<std::string>{"page", "performance", "performance-1", "reference"}));
}

TEST(ReadmeLinks, ResolvesRelativeToThePage) {
    using idgen::readme::resolve_link;
    EXPECT_EQ(resolve_link("README.md", "docs/ulid.md#ulid"), "docs/ulid.md");
    EXPECT_EQ(resolve_link("README.md", "#setup"), "README.md");
    EXPECT_EQ(resolve_link("docs/ulid.md", "#performance"), "docs/ulid.md");
    EXPECT_EQ(resolve_link("docs/ulid.md", "uuid.md#uuidv7"), "docs/uuid.md");
    EXPECT_EQ(resolve_link("docs/ulid.md", "../bench/README.md"), "bench/README.md");
    EXPECT_EQ(resolve_link("docs/ulid.md", "./../src/pg/base/boundary.h"), "src/pg/base/boundary.h");
    EXPECT_EQ(resolve_link("docs/ulid.md", "../bench/"), "bench/");
    EXPECT_EQ(resolve_link("docs/ulid.md", "../../etc/passwd"), "");
    EXPECT_EQ(resolve_link("README.md", "../x.md"), "");
}

TEST(ReadmeLinks, ReportsEveryBrokenLinkAndNoGoodOne) {
    std::map<std::string, std::string> pages = {
        {"README.md",
         "# id_gen\n## Contents\n* [ulid](docs/ulid.md#ulid) [perf](docs/ulid.md#performance-1)\n"
         "* [gone](docs/gone.md) [bad anchor](docs/ulid.md#nope) [self](#contents) [self bad](#quick-start)\n"
         "* [web](https://example.com/#x) [code `](#not-a-link)`](bench/README.md#method) [src](src/x.h#L3)\n"},
        {"docs/ulid.md",
         "# ulid\n## Performance\n## Performance\nBack to [the top](../README.md#id_gen), "
         "[out](../../x.md), [bench](../bench/README.md#nothing-here)\n"},
    };
    const std::set<std::string> files = {"bench/README.md", "src/x.h"};
    int reads = 0;
    const auto problems = idgen::readme::link_problems(
        pages, [&](const std::string& f) { return files.count(f) > 0; },
        [&](const std::string& f) {
            ++reads;
            return f == "bench/README.md" ? std::string("# Benchmarks\n## Method\n") : std::string();
        });
    const std::vector<std::string> expected = {
        "README.md:4: no file docs/gone.md (link docs/gone.md)",
        "README.md:4: no heading of docs/ulid.md has the anchor #nope",
        "README.md:4: no heading of README.md has the anchor #quick-start",
        "docs/ulid.md:4: ../../x.md leads out of the repository",
        "docs/ulid.md:4: no heading of bench/README.md has the anchor #nothing-here",
    };
    EXPECT_EQ(problems, expected);
    EXPECT_EQ(reads, 1);  // bench/README.md read once, for its anchors
}

TEST(ReadmeLinks, DocsRunInTheOrderOfTheContents) {
    const std::string md =
        "# id_gen\nSee [xid](docs/xid.md) first in the text.\n## Contents\n"
        "* [Tour](#tour) [ulid](docs/ulid.md#ulid)\n* [UUIDv7](docs/uuid.md#uuidv7) [UUIDv6](docs/uuid.md#uuidv6)\n"
        "* [xid](docs/xid.md) [bench](bench/README.md) [not a page](docs/)\n## Tour\n[late](docs/late.md)\n";
    EXPECT_EQ(idgen::readme::docs_in_order(md),
              (std::vector<std::string>{"docs/ulid.md", "docs/uuid.md", "docs/xid.md"}));
}
