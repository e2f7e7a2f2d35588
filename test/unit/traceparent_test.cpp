#include "core/requests/traceparent.h"

#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>

#include "fake_sources.h"

using idgen::TraceparentProblem;

namespace {

// The example of the W3C Trace Context specification.
const std::string kExample = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

TraceparentProblem problem(const std::string& s) {
    idgen::TraceParent p{};
    return idgen::traceparent_parse(s.data(), s.size(), p);
}

idgen::TraceParent parse(const std::string& s) {
    idgen::TraceParent p{};
    EXPECT_EQ(idgen::traceparent_parse(s.data(), s.size(), p), TraceparentProblem::kNone) << s;
    return p;
}

std::string format(const idgen::TraceParent& p) {
    char out[idgen::kTraceparentLen];
    idgen::traceparent_format(p, out);
    return std::string(out, sizeof out);
}

std::string hex(const std::uint8_t* b, std::size_t n) {
    std::string s(2 * n, '?');
    idgen::hex_lower(b, n, s.data());
    return s;
}

}  // namespace

TEST(Traceparent, ParsesTheSpecificationExample) {
    const auto p = parse(kExample);
    EXPECT_EQ(p.version, 0);
    EXPECT_EQ(hex(p.trace_id, 16), "4bf92f3577b34da6a3ce929d0e0e4736");
    EXPECT_EQ(hex(p.parent_id, 8), "00f067aa0ba902b7");
    EXPECT_EQ(p.flags, 1);
    EXPECT_EQ(format(p), kExample);
    // Version 00 keeps every flag bit as sent (what it does with them is the child's business).
    EXPECT_EQ(parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-ff").flags, 0xff);
}

TEST(Traceparent, RefusesEveryMalformedClass) {
    const std::string t = "4bf92f3577b34da6a3ce929d0e0e4736", s = "00f067aa0ba902b7";
    EXPECT_EQ(problem(""), TraceparentProblem::kLength);
    EXPECT_EQ(problem("0"), TraceparentProblem::kLength);
    EXPECT_EQ(problem(kExample.substr(0, 54)), TraceparentProblem::kLength);
    EXPECT_EQ(problem(kExample + "-"), TraceparentProblem::kLength);  // version 00 is exactly 55
    EXPECT_EQ(problem(kExample + "-extra"), TraceparentProblem::kLength);
    EXPECT_EQ(problem("ff-" + t + "-" + s + "-01"), TraceparentProblem::kVersion);
    EXPECT_EQ(problem("0A-" + t + "-" + s + "-01"), TraceparentProblem::kVersion);  // upper case
    EXPECT_EQ(problem("g0-" + t + "-" + s + "-01"), TraceparentProblem::kVersion);
    EXPECT_EQ(problem("00_" + t + "-" + s + "-01"), TraceparentProblem::kLayout);
    EXPECT_EQ(problem("00-" + t + "_" + s + "-01"), TraceparentProblem::kLayout);
    EXPECT_EQ(problem("00-" + t + "-" + s + "_01"), TraceparentProblem::kLayout);
    EXPECT_EQ(problem("00-4BF92F3577B34DA6A3CE929D0E0E4736-" + s + "-01"), TraceparentProblem::kTraceId);
    EXPECT_EQ(problem("00-4bf92f3577b34da6a3ce929d0e0e473g-" + s + "-01"), TraceparentProblem::kTraceId);
    EXPECT_EQ(problem("00-" + std::string(32, '0') + "-" + s + "-01"), TraceparentProblem::kZeroTraceId);
    EXPECT_EQ(problem("00-" + t + "-00F067AA0BA902B7-01"), TraceparentProblem::kParentId);
    EXPECT_EQ(problem("00-" + t + "-" + std::string(16, '0') + "-01"), TraceparentProblem::kZeroParentId);
    EXPECT_EQ(problem("00-" + t + "-" + s + "-0G"), TraceparentProblem::kFlags);
    EXPECT_EQ(problem("00-" + t + "-" + s + "-0A"), TraceparentProblem::kFlags);
    EXPECT_EQ(problem(" " + kExample.substr(1)), TraceparentProblem::kVersion);
    // Every message has words.
    for (int p = 1; p <= static_cast<int>(TraceparentProblem::kFlags); ++p)
        EXPECT_GT(std::strlen(idgen::traceparent_problem_text(static_cast<TraceparentProblem>(p))), 10u);
}

TEST(Traceparent, LaterVersionsAreReadAsVersion00) {
    const std::string t = "4bf92f3577b34da6a3ce929d0e0e4736", s = "00f067aa0ba902b7";
    // Exactly 55, or more fields after a '-': accepted, only the sampled flag kept.
    auto p = parse("01-" + t + "-" + s + "-03");
    EXPECT_EQ(p.version, 1);
    EXPECT_EQ(p.flags, 1);
    EXPECT_EQ(hex(p.trace_id, 16), t);
    p = parse("cc-" + t + "-" + s + "-02-what-the-future-will-be-like");
    EXPECT_EQ(p.version, 0xcc);
    EXPECT_EQ(p.flags, 0);
    EXPECT_EQ(hex(p.parent_id, 8), s);
    EXPECT_EQ(format(p), "00-" + t + "-" + s + "-00");
    // Shorter than 55, or flags not followed by the end or '-': refused.
    EXPECT_EQ(problem("01-" + t + "-" + s + "-0"), TraceparentProblem::kLength);
    EXPECT_EQ(problem("01-" + t + "-" + s + "-01x"), TraceparentProblem::kLayout);
    EXPECT_EQ(problem("fe-" + t + "-" + s + "-01.extra"), TraceparentProblem::kLayout);
    // The same rules on the ids as version 00.
    EXPECT_EQ(problem("01-" + std::string(32, '0') + "-" + s + "-01"), TraceparentProblem::kZeroTraceId);
    EXPECT_EQ(problem("01-" + t + "-" + std::string(16, '0') + "-01-x"), TraceparentProblem::kZeroParentId);
}

TEST(Traceparent, ChildKeepsTheTraceAndGetsANewParent) {
    idgen::EntropyPool pool;
    pool.set_owner(1);
    const auto parent = parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-ff");
    std::set<std::string> parents;
    for (int i = 0; i < 1000; ++i) {
        auto c = idgen::traceparent_child(parent, pool);
        ASSERT_TRUE(c.ok());
        EXPECT_EQ(c->version, 0);
        EXPECT_EQ(0, std::memcmp(c->trace_id, parent.trace_id, 16));
        EXPECT_EQ(c->flags, idgen::kTraceFlagsKnown);  // unknown flag bits cleared
        const std::string text = format(*c);
        EXPECT_EQ(problem(text), TraceparentProblem::kNone) << text;
        parents.insert(hex(c->parent_id, 8));
    }
    EXPECT_EQ(parents.size(), 1000u);
    EXPECT_EQ(parents.count("00f067aa0ba902b7"), 0u);
    // A later version's child is version 00 with its sampled bit.
    const auto later = parse("7f-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-zz");
    auto c = idgen::traceparent_child(later, pool);
    ASSERT_TRUE(c.ok());
    EXPECT_EQ(format(*c).substr(0, 3), "00-");
    EXPECT_EQ(format(*c).substr(52), "-01");
}

TEST(Traceparent, ChildNeverHasAZeroParentId) {
    // A source that gives zeros first: the child draws again.
    idgen::test::FixedBytes zeros_then({0, 0, 0, 0, 0, 0, 0, 0, 9, 9, 9, 9, 9, 9, 9, 9});
    const auto parent = parse(kExample);
    auto c = idgen::traceparent_child(parent, zeros_then);
    ASSERT_TRUE(c.ok());
    EXPECT_EQ(hex(c->parent_id, 8), "0909090909090909");
    idgen::test::FixedBytes only_zeros({0});
    EXPECT_EQ(idgen::traceparent_child(parent, only_zeros).error(), idgen::Error::kEntropyFailure);
    idgen::test::FixedBytes failing({1});
    failing.set_fail(true);
    EXPECT_EQ(idgen::traceparent_child(parent, failing).error(), idgen::Error::kEntropyFailure);
}
