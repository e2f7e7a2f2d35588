#include "core/types/objectid.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "fake_sources.h"

using idgen::Error;
using idgen::ObjectId;
using idgen::ObjectIdGenerator;
using idgen::test::FixedBytes;

namespace {

std::string fmt(const ObjectId& id) {
    char b[idgen::kObjectIdTextLen];
    idgen::objectid_format(id, b);
    return std::string(b, sizeof b);
}

Error parse_err(const std::string& s) { return idgen::objectid_parse(s.data(), s.size()).error(); }

ObjectId parse(const std::string& s) {
    auto r = idgen::objectid_parse(s.data(), s.size());
    EXPECT_TRUE(r.ok()) << s;
    return *r;
}

std::uint32_t counter_of(const ObjectId& id) {
    return (std::uint32_t{id.bytes[9]} << 16) | (std::uint32_t{id.bytes[10]} << 8) | id.bytes[11];
}

// The bytes handed out: 5 for the random value, then 3 for the counter's start.
FixedBytes seed(std::uint8_t r0, std::uint32_t counter_start) {
    return FixedBytes({r0, 0x22, 0x33, 0x44, 0x55, static_cast<std::uint8_t>(counter_start >> 16),
                       static_cast<std::uint8_t>(counter_start >> 8), static_cast<std::uint8_t>(counter_start)});
}

}  // namespace

// BSON corpus, oid.json ("valid"): the Extended JSON hex and the 12 BSON bytes of each case.
TEST(ObjectIdCodec, BsonCorpusValidCases) {
    struct Case {
        const char* hex;
        std::uint8_t bytes[12];
    };
    const Case cases[] = {
        {"000000000000000000000000", {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
        {"ffffffffffffffffffffffff", {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}},
        {"56e1fc72e0c917e9c4714161", {0x56, 0xE1, 0xFC, 0x72, 0xE0, 0xC9, 0x17, 0xE9, 0xC4, 0x71, 0x41, 0x61}},
    };
    for (const auto& c : cases) {
        ObjectId id = parse(c.hex);
        EXPECT_EQ(std::memcmp(id.bytes, c.bytes, 12), 0) << c.hex;
        ObjectId from_bytes;
        std::memcpy(from_bytes.bytes, c.bytes, 12);
        EXPECT_EQ(fmt(from_bytes), c.hex);
    }
}

TEST(ObjectIdCodec, UpperCaseInLowerCaseOut) {
    EXPECT_EQ(fmt(parse("56E1FC72E0C917E9C4714161")), "56e1fc72e0c917e9c4714161");
    EXPECT_EQ(fmt(parse("56e1FC72e0C917e9c4714161")), "56e1fc72e0c917e9c4714161");
    EXPECT_EQ(fmt(parse("ABCDEFabcdef0123456789AA")), "abcdefabcdef0123456789aa");
}

TEST(ObjectIdCodec, EveryMalformedClassIsASyntaxError) {
    for (const std::string s :
         {"", "56e1fc72e0c917e9c471416", "56e1fc72e0c917e9c47141610", "56e1fc72e0c917e9c471416g",
          " 56e1fc72e0c917e9c471416", "56e1fc72e0c917e9c471416 ", "0x56e1fc72e0c917e9c47141",
          "56e1fc72-e0c917e9c471416", "+6e1fc72e0c917e9c4714161", "56e1fc72e0c917e9c471416\xff"}) {
        EXPECT_EQ(parse_err(s), Error::kInvalidSyntax) << s;
    }
    // A NUL inside the 24 characters is not a digit.
    EXPECT_EQ(parse_err(std::string("56e1fc72e0c917e9c47141\0"
                                    "1",
                                    24)),
              Error::kInvalidSyntax);
    // Each position refuses each non-hex ASCII character.
    for (std::size_t pos = 0; pos < 24; ++pos) {
        for (int c = 0; c < 128; ++c) {
            const bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
            std::string s(24, '0');
            s[pos] = static_cast<char>(c);
            EXPECT_EQ(idgen::objectid_parse(s.data(), s.size()).ok(), hex) << pos << " " << c;
        }
    }
}

TEST(ObjectIdCodec, TextRoundTripsAndOrdersAsBytes) {
    std::vector<ObjectId> ids;
    std::uint64_t x = 0x9E3779B97F4A7C15ULL;
    for (int i = 0; i < 2000; ++i) {
        ObjectId id;
        for (auto& b : id.bytes) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            b = static_cast<std::uint8_t>(x);
        }
        if (i % 7 == 0 && !ids.empty()) std::memcpy(id.bytes, ids.back().bytes, 8);  // equal prefixes
        ids.push_back(id);
    }
    for (std::size_t i = 1; i < ids.size(); ++i) {
        const std::string a = fmt(ids[i - 1]), b = fmt(ids[i]);
        EXPECT_EQ(std::memcmp(parse(a).bytes, ids[i - 1].bytes, 12), 0);
        const int bytes = std::memcmp(ids[i - 1].bytes, ids[i].bytes, 12);
        const int text = a.compare(b);
        EXPECT_EQ(bytes < 0, text < 0);
        EXPECT_EQ(bytes == 0, text == 0);
    }
}

// The ObjectId spec's test plan: the timestamp is an unsigned 32-bit number of seconds.
TEST(ObjectIdTime, SpecTimestampVectorsAreUnsigned) {
    EXPECT_EQ(idgen::objectid_seconds(parse("000000000000000000000000")), 0u);
    EXPECT_EQ(idgen::objectid_seconds(parse("7fffffff0000000000000000")), 2147483647u);  // 2038-01-19 03:14:07
    EXPECT_EQ(idgen::objectid_seconds(parse("800000000000000000000000")), 2147483648u);  // 2038-01-19 03:14:08
    EXPECT_EQ(idgen::objectid_seconds(parse("ffffffff0000000000000000")), 4294967295u);  // 2106-02-07 06:28:15
    EXPECT_EQ(idgen::objectid_seconds(parse("56e1fc72e0c917e9c4714161")), 1457650802u);  // 2016-03-10 23:00:02
}

TEST(ObjectIdTime, BoundsSpanTheSecond) {
    auto lo = idgen::objectid_lower(1457650802);
    auto hi = idgen::objectid_upper(1457650802);
    ASSERT_TRUE(lo.ok() && hi.ok());
    EXPECT_EQ(fmt(*lo), "56e1fc720000000000000000");
    EXPECT_EQ(fmt(*hi), "56e1fc72ffffffffffffffff");
    EXPECT_EQ(fmt(*idgen::objectid_lower(0)), "000000000000000000000000");
    EXPECT_EQ(fmt(*idgen::objectid_upper(4294967295LL)), "ffffffffffffffffffffffff");
    EXPECT_EQ(idgen::objectid_lower(-1).error(), Error::kTimeOutOfRange);
    EXPECT_EQ(idgen::objectid_upper(4294967296LL).error(), Error::kTimeOutOfRange);
    EXPECT_EQ(idgen::objectid_lower(INT64_MIN).error(), Error::kTimeOutOfRange);
    EXPECT_EQ(idgen::objectid_upper(INT64_MAX).error(), Error::kTimeOutOfRange);
}

TEST(ObjectIdTime, FloorSecondsRoundsDown) {
    EXPECT_EQ(idgen::objectid_floor_seconds(0), 0);
    EXPECT_EQ(idgen::objectid_floor_seconds(999), 0);
    EXPECT_EQ(idgen::objectid_floor_seconds(1000), 1);
    EXPECT_EQ(idgen::objectid_floor_seconds(-1), -1);
    EXPECT_EQ(idgen::objectid_floor_seconds(-1000), -1);
    EXPECT_EQ(idgen::objectid_floor_seconds(-1001), -2);
    EXPECT_EQ(idgen::objectid_floor_seconds(INT64_MIN), INT64_MIN / 1000 - 1);
}

TEST(ObjectIdGenerator, LayoutOfAGeneratedId) {
    ObjectIdGenerator g;
    auto src = seed(0x11, 0xABCDEF);
    auto id = g.next(1457650802, 100, src);
    ASSERT_TRUE(id.ok());
    EXPECT_EQ(fmt(*id),
              "56e1fc72112233445"
              "5abcdef");
    auto id2 = g.next(1457650802, 100, src);
    EXPECT_EQ(fmt(*id2),
              "56e1fc72112233445"
              "5abcdf0");
    EXPECT_EQ(src.calls(), 1);  // drawn once per process
}

// The ObjectId spec's test plan: the counter overflows from 0xFFFFFF to 0x000000.
TEST(ObjectIdGenerator, CounterWrapsFromFFFFFFToZero) {
    ObjectIdGenerator g;
    auto src = seed(0x11, 0xFFFFFE);
    EXPECT_EQ(counter_of(*g.next(1000, 1, src)), 0xFFFFFEu);
    EXPECT_EQ(counter_of(*g.next(1000, 1, src)), 0xFFFFFFu);
    EXPECT_EQ(counter_of(*g.next(1000, 1, src)), 0x000000u);
    EXPECT_EQ(counter_of(*g.next(1000, 1, src)), 0x000001u);
}

// The ObjectId spec's test plan: after fork() the random value is no longer the parent's. A
// generator that sees another process id draws a new random value and counter start.
TEST(ObjectIdGenerator, AnotherProcessDrawsAgain) {
    ObjectIdGenerator g;
    FixedBytes parent({1, 2, 3, 4, 5, 0, 0, 9});
    auto a = g.next(1000, 100, parent);
    FixedBytes child({9, 8, 7, 6, 5, 0, 1, 0});
    auto b = g.next(1000, 101, child);  // the same generator object, as a child inherits it
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_NE(std::memcmp(a->bytes + 4, b->bytes + 4, 5), 0);
    EXPECT_EQ(fmt(*b),
              "000003e8090807060500010"
              "0");
    EXPECT_EQ(child.calls(), 1);
    EXPECT_EQ(g.owner_pid(), 101);
    // Back in the same process: no new draw.
    auto c = g.next(1000, 101, child);
    EXPECT_EQ(child.calls(), 1);
    EXPECT_EQ(std::memcmp(b->bytes + 4, c->bytes + 4, 5), 0);
}

TEST(ObjectIdGenerator, EntropyFailureIsAnError) {
    ObjectIdGenerator g;
    FixedBytes src({1});
    src.set_fail(true);
    EXPECT_EQ(g.next(1000, 1, src).error(), Error::kEntropyFailure);
    EXPECT_EQ(g.at(1000, 1, src).error(), Error::kEntropyFailure);
    src.set_fail(false);
    EXPECT_TRUE(g.next(1000, 1, src).ok());
}

TEST(ObjectIdGenerator, ClockSteppingBackKeepsTheLastSecond) {
    ObjectIdGenerator g;
    auto src = seed(0x11, 5);
    auto a = g.next(2000, 1, src);
    auto b = g.next(1990, 1, src);  // the clock stepped back ten seconds
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(idgen::objectid_seconds(*b), 2000u);
    EXPECT_LT(std::memcmp(a->bytes, b->bytes, 12), 0);
    EXPECT_EQ(idgen::objectid_seconds(*g.next(2001, 1, src)), 2001u);
}

// 2^24 IDs in one second use every counter value; the next one moves to the next second instead
// of repeating the second's first ID.
TEST(ObjectIdGenerator, AFullSecondMovesOnInsteadOfRepeating) {
    ObjectIdGenerator g;
    auto src = seed(0x11, 0x123456);
    auto first = g.next(5000, 1, src);
    ASSERT_TRUE(first.ok());
    for (std::uint32_t i = 1; i < idgen::kObjectIdCounterSpan; ++i) {
        auto id = g.next(5000, 1, src);
        ASSERT_TRUE(id.ok());
        ASSERT_EQ(idgen::objectid_seconds(*id), 5000u);
    }
    auto next = g.next(5000, 1, src);
    ASSERT_TRUE(next.ok());
    EXPECT_EQ(idgen::objectid_seconds(*next), 5001u);
    EXPECT_EQ(counter_of(*next), counter_of(*first));  // the same counter, a later second: a new ID
    EXPECT_NE(std::memcmp(next->bytes, first->bytes, 12), 0);
}

TEST(ObjectIdGenerator, AtUsesTheGivenSecondTheRandomValueAndTheNextCounter) {
    ObjectIdGenerator g;
    auto src = seed(0x11, 7);
    auto a = g.next(3000, 1, src);
    auto b = g.at(1457650802, 1, src);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(idgen::objectid_seconds(*b), 1457650802u);
    EXPECT_EQ(std::memcmp(a->bytes + 4, b->bytes + 4, 5), 0);
    EXPECT_EQ(counter_of(*b), 8u);
    EXPECT_EQ(g.at(-1, 1, src).error(), Error::kTimeOutOfRange);
    EXPECT_EQ(g.at(4294967296LL, 1, src).error(), Error::kTimeOutOfRange);
    EXPECT_TRUE(g.at(4294967295LL, 1, src).ok());
}

TEST(ObjectIdGenerator, PastTheLastSecondIsOutOfRange) {
    ObjectIdGenerator g;
    auto src = seed(0x11, 0);
    EXPECT_EQ(g.next(4294967296LL, 1, src).error(), Error::kTimeOutOfRange);
    EXPECT_TRUE(g.next(4294967295LL, 1, src).ok());
    EXPECT_EQ(g.next(-5, 1, src).ok(), true);  // the last second is kept; the clock went back
}

TEST(ObjectIdGenerator, ManyIdsInOneProcessAreDistinct) {
    ObjectIdGenerator g;
    idgen::EntropyPool pool;
    pool.set_owner(1);
    std::set<std::string> seen;
    for (int i = 0; i < 100000; ++i) {
        auto id = g.next(1700000000 + i / 30000, 1, pool);
        ASSERT_TRUE(id.ok());
        ASSERT_TRUE(seen.insert(fmt(*id)).second);
    }
}

// objectid_process_id() caches getpid() and re-reads it in a child after fork(): a child sees its
// own id (so a generator it inherited draws a new random value), the parent keeps its own.
TEST(ObjectIdProcess, ForkedChildSeesItsOwnProcessId) {
    const int parent = idgen::objectid_process_id();
    ASSERT_EQ(parent, static_cast<int>(getpid()));
    ObjectIdGenerator g;
    auto src = seed(0x11, 0);
    auto before = g.next(1000, idgen::objectid_process_id(), src);
    ASSERT_TRUE(before.ok());
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        // In the child: report whether the cached id is the child's and whether the inherited
        // generator drew again (a different random value from the second source).
        close(fds[0]);
        FixedBytes other({0x99, 0x88, 0x77, 0x66, 0x55, 0, 0, 1});
        auto in_child = g.next(1000, idgen::objectid_process_id(), other);
        const char ok = (idgen::objectid_process_id() == static_cast<int>(getpid()) && in_child.ok() &&
                         std::memcmp(in_child->bytes + 4, before->bytes + 4, 5) != 0 && other.calls() == 1)
                            ? 'y'
                            : 'n';
        (void)!write(fds[1], &ok, 1);
        _exit(0);
    }
    close(fds[1]);
    char got = 0;
    EXPECT_EQ(read(fds[0], &got, 1), 1);
    close(fds[0]);
    int status = 0;
    waitpid(child, &status, 0);
    EXPECT_EQ(got, 'y');
    EXPECT_EQ(idgen::objectid_process_id(), parent);
    // The parent's generator has not drawn again.
    auto after = g.next(1000, idgen::objectid_process_id(), src);
    EXPECT_EQ(src.calls(), 1);
    EXPECT_EQ(std::memcmp(after->bytes + 4, before->bytes + 4, 5), 0);
}
