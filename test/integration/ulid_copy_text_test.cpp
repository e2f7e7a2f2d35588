// Text COPY of ulid through libpqxx streams: out as 26 upper-case Crockford characters, back in
// (either case) to the same values; bad text in a COPY fails the COPY with the type's SQLSTATE.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <pqxx/pqxx>
#include <string>
#include <tuple>
#include <vector>

#include "common.h"
#include "core/types/ulid.h"

namespace {

constexpr int kRows = 20000;

class UlidCopyText : public ::testing::Test {
protected:
    void SetUp() override {
        db_ = std::make_unique<idgen::it::ScratchDb>("it_ulid_copy_text");
        conn_ = std::make_unique<pqxx::connection>(db_->dsn());
        pqxx::nontransaction tx(*conn_);
        tx.exec("CREATE TABLE t (id ulid PRIMARY KEY, n int NOT NULL UNIQUE)");
        tx.exec("INSERT INTO t SELECT gen_ulid(), g FROM generate_series(1, " + std::to_string(kRows) + ") g");
        tx.exec(
            "INSERT INTO t VALUES ('00000000000000000000000000', -1), ('7ZZZZZZZZZZZZZZZZZZZZZZZZZ', -2),"
            " ('01ARZ3NDEKTSV4RRFFQ69G5FAV', -3)");
        tx.exec("CREATE TABLE t2 (LIKE t)");
    }
    // Raw COPY text lines ("<id>\t<n>"), split by hand: libpqxx 6.4.5's tuple extraction
    // (stream_from >> tuple) throws "Too few fields" on these lines, and the raw line is the
    // thing under test anyway.
    std::vector<std::tuple<std::string, int>> read_all(const std::string& table) {
        pqxx::work tx(*conn_);
        pqxx::stream_from in(tx, table, std::vector<std::string>{"id", "n"});
        std::vector<std::tuple<std::string, int>> rows;
        std::string line;
        while (in.get_raw_line(line)) {
            if (!line.empty() && line.back() == '\n') line.pop_back();
            const auto tab = line.find('\t');
            EXPECT_NE(tab, std::string::npos) << "'" << line << "'";
            EXPECT_EQ(line.find('\t', tab + 1), std::string::npos) << "'" << line << "'";
            if (tab == std::string::npos) break;
            rows.emplace_back(line.substr(0, tab), std::stoi(line.substr(tab + 1)));
        }
        in.complete();
        tx.commit();
        return rows;
    }
    std::unique_ptr<idgen::it::ScratchDb> db_;
    std::unique_ptr<pqxx::connection> conn_;
};

bool is_canonical_ulid_text(const std::string& s) {
    static const std::string kAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    if (s.size() != idgen::kUlidTextLen || s[0] > '7') return false;
    return std::all_of(s.begin(), s.end(), [](char ch) { return kAlphabet.find(ch) != std::string::npos; });
}

TEST_F(UlidCopyText, CopyOutIsCanonicalTextThatTheCoreParses) {
    auto rows = read_all("t");
    ASSERT_EQ(rows.size(), static_cast<std::size_t>(kRows + 3));
    std::map<int, std::string> by_n;
    for (const auto& [id, n] : rows) {
        ASSERT_TRUE(is_canonical_ulid_text(id)) << "'" << id << "'";
        auto parsed = idgen::ulid_parse(id.data(), id.size());
        ASSERT_TRUE(parsed) << id;
        char again[idgen::kUlidTextLen];
        idgen::ulid_format(*parsed, again);
        ASSERT_EQ(std::string(again, idgen::kUlidTextLen), id);
        by_n[n] = id;
    }
    EXPECT_EQ(by_n[-1], "00000000000000000000000000");
    EXPECT_EQ(by_n[-2], "7ZZZZZZZZZZZZZZZZZZZZZZZZZ");
    EXPECT_EQ(by_n[-3], "01ARZ3NDEKTSV4RRFFQ69G5FAV");
    // gen_ulid() in one statement is strictly increasing in generation order, so by n too.
    for (int n = 2; n <= kRows; ++n) ASSERT_LT(by_n[n - 1], by_n[n]) << n;
}

TEST_F(UlidCopyText, CopyRoundTripInEitherCaseKeepsEveryValue) {
    auto rows = read_all("t");
    {
        pqxx::work tx(*conn_);
        pqxx::stream_to out(tx, "t2", std::vector<std::string>{"id", "n"});
        for (const auto& [id, n] : rows) {
            std::string text = id;
            if (n % 2 == 0)  // half of them lower-case: input is case-insensitive
                std::transform(text.begin(), text.end(), text.begin(),
                               [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
            out << std::make_tuple(text, n);
        }
        out.complete();
        tx.commit();
    }
    pqxx::work tx(*conn_);
    auto diff = tx.exec1(
        "SELECT count(*) FROM t FULL JOIN t2 ON t.id = t2.id AND t.n = t2.n "
        "WHERE t.id IS NULL OR t2.id IS NULL");
    EXPECT_EQ(diff[0].as<long>(), 0);
    EXPECT_EQ(tx.exec1("SELECT count(*) FROM t2")[0].as<long>(), kRows + 3);
    // The bytes are the same too (not just equal under ulid's operator).
    EXPECT_EQ(
        tx.exec1("SELECT count(*) FROM t JOIN t2 USING (n) WHERE uuid_send(t.id::uuid) <> uuid_send(t2.id::uuid)")[0]
            .as<long>(),
        0);
    tx.commit();
    auto back = read_all("t2");
    std::sort(rows.begin(), rows.end());
    std::sort(back.begin(), back.end());
    EXPECT_EQ(back, rows) << "text COPY out of the reloaded table differs";
}

TEST_F(UlidCopyText, BadTextFailsTheCopyWithItsSqlstate) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"01ARZ3NDEKTSV4RRFFQ69G5FAI", "22P02"},   // I is not Crockford
        {"01ARZ3NDEKTSV4RRFFQ69G5FA", "22P02"},    // 25 characters
        {"01ARZ3NDEKTSV4RRFFQ69G5FAVV", "22P02"},  // 27 characters
        {"80000000000000000000000000", "22003"},   // above 2^128 - 1
    };
    for (const auto& [text, state] : cases) {
        std::string got;
        try {
            pqxx::work tx(*conn_);
            pqxx::stream_to out(tx, "t2", std::vector<std::string>{"id", "n"});
            out << std::make_tuple(std::string("01ARZ3NDEKTSV4RRFFQ69G5FAV"), 1);
            out << std::make_tuple(text, 2);
            out.complete();
            tx.commit();
        } catch (const pqxx::sql_error& e) {
            got = e.sqlstate();
        }
        EXPECT_EQ(got, state) << text;
    }
    pqxx::work tx(*conn_);
    EXPECT_EQ(tx.exec1("SELECT count(*) FROM t2")[0].as<long>(), 0) << "a failed COPY left rows behind";
}

}  // namespace
