#include "core/text/prefixed.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

using idgen::Error;

namespace {

std::string format(const std::string& prefix, const std::uint8_t (&id)[16]) {
    char out[idgen::kPrefixedMaxLen];
    auto n = idgen::prefixed_format(prefix.data(), prefix.size(), id, out);
    EXPECT_TRUE(n.ok()) << prefix;
    return n.ok() ? std::string(out, *n) : std::string();
}

Error parse_err(const std::string& s) { return idgen::prefixed_parse(s.data(), s.size()).error(); }

}  // namespace

TEST(Prefixed, PrefixRule) {
    for (const char* p : {"a", "acct", "pi", "x1", "abcdefghijklmnop", "v2user"})
        EXPECT_TRUE(idgen::prefix_valid(p, std::strlen(p))) << p;
    for (const char* p : {"", "A", "Acct", "1a", "a_b", "a-b", "abcdefghijklmnopq", "a b", "\xc3\xa9t\xc3\xa9", "_a"})
        EXPECT_FALSE(idgen::prefix_valid(p, std::strlen(p))) << p;
}

TEST(Prefixed, FormatAndParse) {
    std::uint8_t id[16];
    for (int i = 0; i < 16; ++i) id[i] = static_cast<std::uint8_t>(i * 17);
    const std::string s = format("acct", id);
    ASSERT_EQ(s.size(), 4 + 1 + 25u);
    EXPECT_EQ(s.substr(0, 5), "acct_");
    auto p = idgen::prefixed_parse(s.data(), s.size());
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(std::string(p->prefix, p->prefix_len), "acct");
    EXPECT_EQ(0, std::memcmp(p->id, id, 16));
    // The body is read case-insensitively.
    std::string upper = s;
    for (std::size_t i = 5; i < upper.size(); ++i) upper[i] = static_cast<char>(std::toupper(upper[i]));
    auto q = idgen::prefixed_parse(upper.data(), upper.size());
    ASSERT_TRUE(q.ok());
    EXPECT_EQ(0, std::memcmp(q->id, id, 16));

    const std::uint8_t zero[16] = {};
    EXPECT_EQ(format("a", zero), "a_" + std::string(25, '0'));
    std::uint8_t max[16];
    std::memset(max, 0xFF, 16);
    EXPECT_EQ(format("abcdefghijklmnop", max), "abcdefghijklmnop_f5lxx1zz5pnorynqglhzmsp33");

    char out[idgen::kPrefixedMaxLen];
    EXPECT_EQ(idgen::prefixed_format("Acct", 4, id, out).error(), Error::kInvalidPrefix);
    EXPECT_EQ(idgen::prefixed_format("", 0, id, out).error(), Error::kInvalidPrefix);
}

TEST(Prefixed, ParseErrors) {
    const std::string body(25, '1');
    EXPECT_EQ(parse_err(""), Error::kInvalidSyntax);
    EXPECT_EQ(parse_err("acct"), Error::kInvalidSyntax);
    EXPECT_EQ(parse_err("_" + body), Error::kInvalidSyntax);                   // empty prefix
    EXPECT_EQ(parse_err("acct" + body), Error::kInvalidSyntax);                // no separator
    EXPECT_EQ(parse_err("acct-" + body), Error::kInvalidSyntax);               // wrong separator
    EXPECT_EQ(parse_err("acct_" + body + "1"), Error::kInvalidSyntax);         // body too long
    EXPECT_EQ(parse_err("acct_" + body.substr(1)), Error::kInvalidSyntax);     // body too short
    EXPECT_EQ(parse_err("ACCT_" + body), Error::kInvalidSyntax);               // prefixes are lower case
    EXPECT_EQ(parse_err("a_b_" + body), Error::kInvalidSyntax);                // no '_' in a prefix
    EXPECT_EQ(parse_err("abcdefghijklmnopq_" + body), Error::kInvalidSyntax);  // 17-character prefix
    EXPECT_EQ(parse_err("acct_" + body.substr(1) + "!"), Error::kInvalidSyntax);
    EXPECT_EQ(parse_err("acct_zzzzzzzzzzzzzzzzzzzzzzzzz"), Error::kOutOfRange);
    EXPECT_EQ(parse_err("acct_f5lxx1zz5pnorynqglhzmsp34"), Error::kOutOfRange);
    EXPECT_TRUE(idgen::prefixed_parse(("acct_" + body).data(), 30).ok());
}

// Within one prefix, text order is ID order (fixed-width body).
TEST(Prefixed, TextOrderIsIdOrder) {
    std::mt19937_64 rng(7);
    for (int i = 0; i < 20000; ++i) {
        std::uint8_t a[16], b[16];
        for (auto& x : a) x = static_cast<std::uint8_t>(rng());
        for (auto& x : b) x = static_cast<std::uint8_t>(rng() >> (i % 8));
        const int c = std::memcmp(a, b, 16);
        const int t = format("ord", a).compare(format("ord", b));
        ASSERT_EQ(c < 0, t < 0);
        ASSERT_EQ(c == 0, t == 0);
    }
}
