#include "core/requests/correlation.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "fake_sources.h"

using idgen::CorrelationIdProblem;
using idgen::Error;

namespace {

CorrelationIdProblem problem(const std::string& s) { return idgen::correlation_id_check(s.data(), s.size()).problem; }

std::string escape(const std::string& s, std::size_t cap = 300) {
    std::vector<char> out(cap);
    const std::size_t n = idgen::correlation_escape(s.data(), s.size(), out.data(), cap);
    EXPECT_EQ(std::strlen(out.data()), n);
    return std::string(out.data(), n);
}

std::string counted(const std::string& parent, std::uint64_t n) {
    char out[idgen::kCorrelationIdMaxLen];
    auto r = idgen::correlation_child_counted(parent.data(), parent.size(), n, out);
    EXPECT_TRUE(r.ok()) << parent;
    return r.ok() ? std::string(out, *r) : std::string();
}

bool crockford_lower(char c) { return std::strchr("0123456789abcdefghjkmnpqrstvwxyz", c) != nullptr && c != '\0'; }

}  // namespace

TEST(CorrelationId, AcceptsTheDocumentedAlphabet) {
    for (const char* s : {"a", "req-7f3a", "01J9ZK3V8Q6W2X4Y5Z7A8B9C0D", "0190b8f2-5e21-7a4b-9c1d-3f2e8b7a6c5d",
                          "4bf92f3577b34da6a3ce929d0e0e4736", "a.b_c:d/e+f=g@h", "QUJD+/==", "x.1.2.3", "a+b"})
        EXPECT_EQ(problem(s), CorrelationIdProblem::kNone) << s;
    std::string all;
    for (int c = 0; c < 256; ++c)
        if (idgen::correlation_id_char(static_cast<unsigned char>(c))) all += static_cast<char>(c);
    EXPECT_EQ(all, "+-./0123456789:=@ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz");
}

TEST(CorrelationId, RefusesWhatCouldForgeALogLine) {
    EXPECT_EQ(problem(""), CorrelationIdProblem::kEmpty);
    for (const char* s : {"a b", "a\nb", "a\rb", "a\tb", "a]b", "[corr_id=x]", "a\"b", "a'b", "a\\b", "a,b", "a;b",
                          "a%b", "a\x7f", "\xc3\xa9t\xc3\xa9", "a\x1b[31m"}) {
        const auto c = idgen::correlation_id_check(s, std::strlen(s));
        EXPECT_EQ(c.problem, CorrelationIdProblem::kBadCharacter) << s;
        EXPECT_FALSE(idgen::correlation_id_char(static_cast<unsigned char>(s[c.position]))) << s;
    }
    // The first bad character is reported, even past the length limit.
    const std::string nul("ab\0c", 4);
    EXPECT_EQ(idgen::correlation_id_check(nul.data(), nul.size()).position, 2u);
    EXPECT_EQ(problem(std::string(128, 'a')), CorrelationIdProblem::kNone);
    EXPECT_EQ(problem(std::string(129, 'a')), CorrelationIdProblem::kTooLong);
    EXPECT_EQ(problem(std::string(129, 'a') + " "), CorrelationIdProblem::kTooLong);
    EXPECT_EQ(problem(std::string(100, 'a') + "\n"), CorrelationIdProblem::kBadCharacter);
}

TEST(CorrelationId, EscapeShowsEveryByteSafely) {
    EXPECT_EQ(escape("req-1"), "req-1");
    EXPECT_EQ(escape("a\nb"), "a\\x0ab");
    EXPECT_EQ(escape("x [corr_id=y]"), "x \\x5bcorr_id=y\\x5d");
    EXPECT_EQ(escape("a\\b"), "a\\x5cb");
    EXPECT_EQ(escape("\xc3\xa9"), "\\xc3\\xa9");
    // Nothing in the output is a control character, a bracket or a byte above 0x7e, and a
    // backslash only starts an escape.
    std::mt19937 rng(7);
    for (int round = 0; round < 2000; ++round) {
        std::string s(rng() % 200, '\0');
        for (auto& c : s) c = static_cast<char>(rng());
        const std::size_t cap = 8 + rng() % 300;
        const std::string e = escape(s, cap);
        ASSERT_LE(e.size(), cap - 1);
        for (std::size_t i = 0; i < e.size(); ++i) {
            const auto c = static_cast<unsigned char>(e[i]);
            ASSERT_TRUE(c >= 0x20 && c < 0x7f && c != '[' && c != ']') << round;
            if (c == '\\') {
                ASSERT_LT(i + 3, e.size() + 1);
                ASSERT_EQ(e[i + 1], 'x');
                i += 3;
            }
        }
    }
    // Cut with "..." only when it does not fit.
    EXPECT_EQ(escape(std::string(20, 'a'), 21), std::string(20, 'a'));
    EXPECT_EQ(escape(std::string(21, 'a'), 21), std::string(17, 'a') + "...");
    EXPECT_EQ(escape("abc\n", 8), "abc\\x0a");
    EXPECT_EQ(escape("abcd\n", 8), "abcd...");
}

TEST(CorrelationId, ChildrenKeepTheParentAsPrefix) {
    EXPECT_EQ(counted("abcd-efgh", 1), "abcd-efgh.1");
    EXPECT_EQ(counted("abcd-efgh", 2), "abcd-efgh.2");
    EXPECT_EQ(counted("abcd-efgh.2", 10), "abcd-efgh.2.10");
    EXPECT_EQ(counted("p", UINT64_MAX), "p.18446744073709551615");

    char out[idgen::kCorrelationIdMaxLen];
    auto t = idgen::correlation_child_tagged("p", 1, 42, "k3f9x1ab", out);
    ASSERT_TRUE(t.ok());
    EXPECT_EQ(std::string(out, *t), "p.42-k3f9x1ab");
    EXPECT_EQ(idgen::correlation_child_tagged("p", 1, 1, "bad tag!", out).error(), Error::kInvalidSyntax);

    idgen::test::FixedBytes bytes({0x00, 0x21, 0x43, 0x65, 0x87, 0xa9, 0xcb, 0xed});
    auto r = idgen::correlation_child_random("req", 3, bytes, out);
    ASSERT_TRUE(r.ok());
    const std::string child(out, *r);
    ASSERT_EQ(child.size(), 3 + 1 + idgen::kCorrelationRandomLen);
    EXPECT_EQ(child.substr(0, 4), "req.");
    for (char c : child.substr(4)) EXPECT_TRUE(crockford_lower(c)) << child;
    EXPECT_TRUE(idgen::correlation_id_valid(child.data(), child.size()));

    auto c = idgen::correlation_combine("a-1", 3, "b.2", 3, out);
    ASSERT_TRUE(c.ok());
    EXPECT_EQ(std::string(out, *c), "a-1+b.2");
}

TEST(CorrelationId, DerivedIdsStayWithinTheLimit) {
    char out[idgen::kCorrelationIdMaxLen];
    const std::string p126(126, 'x');
    EXPECT_TRUE(idgen::correlation_child_counted(p126.data(), 126, 9, out).ok());  // 128
    EXPECT_EQ(idgen::correlation_child_counted(p126.data(), 126, 10, out).error(), Error::kOutOfRange);
    const std::string p117(117, 'x');
    idgen::test::FixedBytes bytes({1, 2, 3});
    EXPECT_TRUE(idgen::correlation_child_random(p117.data(), 117, bytes, out).ok());  // 128
    const std::string p118(118, 'x');
    EXPECT_EQ(idgen::correlation_child_random(p118.data(), 118, bytes, out).error(), Error::kOutOfRange);
    EXPECT_EQ(idgen::correlation_child_tagged(p118.data(), 118, 1, "abcdefgh", out).error(), Error::kOutOfRange);
    EXPECT_TRUE(idgen::correlation_child_tagged(p117.data(), 117, 1, "abcdefgh", out).ok());  // 128
    EXPECT_EQ(idgen::correlation_combine(p117.data(), 117, "0123456789a", 11, out).error(), Error::kOutOfRange);
    EXPECT_TRUE(idgen::correlation_combine(p117.data(), 117, "0123456789", 10, out).ok());  // 128
    // Invalid parents are refused, not extended.
    EXPECT_EQ(idgen::correlation_child_counted("a b", 3, 1, out).error(), Error::kInvalidSyntax);
    EXPECT_EQ(idgen::correlation_child_counted("", 0, 1, out).error(), Error::kInvalidSyntax);
    EXPECT_EQ(idgen::correlation_child_random("a\n", 2, bytes, out).error(), Error::kInvalidSyntax);
    EXPECT_EQ(idgen::correlation_combine("a", 1, "]", 1, out).error(), Error::kInvalidSyntax);
    bytes.set_fail(true);
    EXPECT_EQ(idgen::correlation_child_random("a", 1, bytes, out).error(), Error::kEntropyFailure);
}

TEST(CorrelationId, RandomTextUsesAll32Characters) {
    idgen::EntropyPool pool;
    pool.set_owner(1);
    std::map<char, int> seen;
    char buf[1000];
    ASSERT_TRUE(idgen::correlation_random_text(pool, buf, sizeof buf));
    for (char c : buf) {
        ASSERT_TRUE(crockford_lower(c));
        ++seen[c];
    }
    EXPECT_EQ(seen.size(), 32u);
    // Each character about 1000/32 = 31 times: a stuck bit would halve or empty some.
    for (const auto& [c, n] : seen) EXPECT_GT(n, 8) << c;
    // 50 bits: 20000 suffixes never repeat (birthday odds ~ 2e8 / 2^51 < 1e-6).
    std::set<std::string> suffixes;
    for (int i = 0; i < 20000; ++i) {
        char s[idgen::kCorrelationRandomLen];
        ASSERT_TRUE(idgen::correlation_random_text(pool, s, sizeof s));
        suffixes.emplace(s, sizeof s);
    }
    EXPECT_EQ(suffixes.size(), 20000u);
}

TEST(CorrelationId, LogTag) {
    char out[idgen::kCorrelationLogTagMax + 1];
    EXPECT_EQ(idgen::correlation_log_tag("req-1", 5, out, sizeof out), 16u);
    EXPECT_STREQ(out, " [corr_id=req-1]");
    const std::string max(128, 'z');
    EXPECT_EQ(idgen::correlation_log_tag(max.data(), max.size(), out, sizeof out), idgen::kCorrelationLogTagMax);
    // Never for an invalid ID, never past the buffer.
    EXPECT_EQ(idgen::correlation_log_tag("a]b", 3, out, sizeof out), 0u);
    EXPECT_STREQ(out, "");
    EXPECT_EQ(idgen::correlation_log_tag("req-1", 5, out, 16), 0u);
    EXPECT_EQ(idgen::correlation_log_tag("req-1", 5, out, 17), 16u);
}

// A session's own text never holds the marker afterwards; the rewrite keeps the length.
TEST(CorrelationId, NeutraliseMarker) {
    auto n = [](std::string s) {
        idgen::correlation_neutralise(s.data(), s.size());
        return s;
    };
    EXPECT_EQ(n("x [corr_id=req-victim]"), "x [corr_id~req-victim]");
    EXPECT_EQ(n("[old_corr_id=a] [new_corr_id=b] [CORR_ID=c] [Corr_Id=d]"),
              "[old_corr_id~a] [new_corr_id~b] [CORR_ID~c] [Corr_Id~d]");
    EXPECT_EQ(n("corr_id=corr_id==corr_id="), "corr_id~corr_id~=corr_id~");
    EXPECT_EQ(n("corr_id"), "corr_id");
    EXPECT_EQ(n("corr-id= corr_id ="), "corr-id= corr_id =");
    EXPECT_EQ(n(""), "");
    const std::string s = "ab corr_id=x";
    EXPECT_EQ(idgen::correlation_marker_find(s.data(), s.size()), 3u);
    EXPECT_EQ(idgen::correlation_marker_find(s.data(), 10), 10u);  // cut before the '='
}

TEST(CorrelationId, TagPlacement) {
    EXPECT_EQ(idgen::correlation_tag_offset("one line", 8), 8u);
    EXPECT_EQ(idgen::correlation_tag_offset("first\nsecond\n", 13), 5u);
    EXPECT_EQ(idgen::correlation_tag_offset("\nx", 2), 0u);
    const std::string tag = " [corr_id=req-1]";
    auto done = [&](const std::string& m) {
        return idgen::correlation_already_tagged(m.data(), m.size(), tag.data(), tag.size());
    };
    EXPECT_TRUE(done("division by zero [corr_id=req-1]"));
    EXPECT_TRUE(done("first [corr_id=req-1]\nsecond"));
    EXPECT_FALSE(done("division by zero"));
    EXPECT_FALSE(done("first\nsecond [corr_id=req-1]"));                // not where the hook puts it
    EXPECT_FALSE(done("x [corr_id=req-victim] [corr_id=req-1]"));       // a forged marker before it
    EXPECT_FALSE(done("x [corr_id=req-1]\n[old_corr_id=req-victim]"));  // or after it
    EXPECT_FALSE(done("x [corr_id=req-2]"));
    // An ID may hold the marker's characters (= is allowed): that is the tag's own text.
    const std::string odd = " [corr_id=corr_id=z]";
    const std::string m = "y" + odd;
    EXPECT_TRUE(idgen::correlation_already_tagged(m.data(), m.size(), odd.data(), odd.size()));
}

// The counter table: per parent 1, 2, 3, ... until evictions; always strictly increasing per hash.
TEST(CorrelationCounters, CountsPerParent) {
    idgen::CorrelationCounterHead head{};
    std::vector<idgen::CorrelationCounterSlot> slots(64);
    const auto a = idgen::correlation_hash("abcd-efgh", 9);
    const auto b = idgen::correlation_hash("other", 5);
    ASSERT_NE(a, b);
    EXPECT_EQ(idgen::correlation_counter_next(head, slots.data(), slots.size(), a), 1u);
    EXPECT_EQ(idgen::correlation_counter_next(head, slots.data(), slots.size(), a), 2u);
    EXPECT_EQ(idgen::correlation_counter_next(head, slots.data(), slots.size(), b), 1u);
    EXPECT_EQ(idgen::correlation_counter_next(head, slots.data(), slots.size(), a), 3u);
    EXPECT_EQ(head.evictions, 0u);
    EXPECT_NE(idgen::correlation_hash("", 0), 0u);
}

TEST(CorrelationCounters, NeverRepeatsAfterEviction) {
    // A tiny table (one probe window) under many parents: evictions happen all the time.
    for (std::size_t nslots : {16, 17, 40}) {
        idgen::CorrelationCounterHead head{};
        std::vector<idgen::CorrelationCounterSlot> slots(nslots);
        std::map<std::uint64_t, std::uint64_t> last;
        std::mt19937_64 rng(nslots);
        for (int i = 0; i < 200000; ++i) {
            const std::uint64_t h = 1 + rng() % 100;  // 100 parents
            const std::uint64_t n = idgen::correlation_counter_next(head, slots.data(), slots.size(), h);
            ASSERT_GT(n, last[h]) << "parent " << h << " call " << i;
            last[h] = n;
        }
        EXPECT_GT(head.evictions, 1000u);
    }
}

TEST(CorrelationCounters, EvictsTheLeastRecentlyUsed) {
    idgen::CorrelationCounterHead head{};
    std::vector<idgen::CorrelationCounterSlot> slots(16);
    // Hashes 16..31 all start at slot 0 of a 16-slot table: one window.
    for (std::uint64_t h = 16; h < 32; ++h) EXPECT_EQ(idgen::correlation_counter_next(head, slots.data(), 16, h), 1u);
    for (std::uint64_t h = 17; h < 32; ++h)
        (void)idgen::correlation_counter_next(head, slots.data(), 16, h);  // 16 idle
    // A 17th parent evicts hash 16 (last 1): it starts above the floor, 1.
    EXPECT_EQ(idgen::correlation_counter_next(head, slots.data(), 16, 32), 2u);
    EXPECT_EQ(head.evictions, 1u);
    // Hash 17 still has its slot.
    EXPECT_EQ(idgen::correlation_counter_next(head, slots.data(), 16, 17), 3u);
    // Hash 16 comes back: it evicts the oldest (18, last 2) and continues above everything.
    EXPECT_EQ(idgen::correlation_counter_next(head, slots.data(), 16, 16), 3u);
}
