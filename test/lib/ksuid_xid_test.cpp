// The library's Ksuid and Xid: published examples, errors with the extension's SQLSTATEs and
// messages, bounds, and the generators: many threads on one generator (unique, strictly increasing
// in the order of issue), clocks that stand still or step back, and fork(). Also built into
// lib_tests_tsan, where a generator state touched outside its lock is reported as a data race.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_set>
#include <vector>

#include "id_gen/ksuid.hpp"
#include "id_gen/xid.hpp"

using id_gen::errc;
using id_gen::Ksuid;
using id_gen::Xid;

namespace {

#if defined(__SANITIZE_THREAD__)
constexpr int kScale = 10;
#else
constexpr int kScale = 1;
#endif
constexpr int kThreads = 8;
constexpr int kPerThread = 20000 / kScale;

template <class F>
errc code_of(F f) {
    try {
        f();
    } catch (const id_gen::error& e) {
        return e.code();
    }
    return static_cast<errc>(0);
}

// Calls next() from kThreads threads; each call records a ticket taken before and after it. An ID
// whose call ended before another call began must be smaller.
template <class Gen, class Id>
void check_threads(Gen& gen) {
    struct Call {
        std::uint64_t start, end;
        Id id;
    };
    std::atomic<std::uint64_t> ticket{0};
    std::vector<std::vector<Call>> calls(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < kPerThread; ++i) {
                const std::uint64_t a = ticket.fetch_add(1);
                const Id id = gen.next();
                const std::uint64_t b = ticket.fetch_add(1);
                calls[t].push_back({a, b, id});
            }
        });
    }
    for (auto& th : threads) th.join();
    std::vector<Call> all;
    for (auto& v : calls) {
        for (std::size_t i = 1; i < v.size(); ++i) ASSERT_LT(v[i - 1].id, v[i].id);
        all.insert(all.end(), v.begin(), v.end());
    }
    std::sort(all.begin(), all.end(), [](const Call& a, const Call& b) { return a.id < b.id; });
    for (std::size_t i = 1; i < all.size(); ++i) {
        ASSERT_NE(all[i - 1].id, all[i].id);
        // A call that began after the other ended got the larger ID.
        ASSERT_FALSE(all[i].end < all[i - 1].start);
    }
    EXPECT_EQ(all.size(), static_cast<std::size_t>(kThreads * kPerThread));
}

}  // namespace

TEST(LibKsuid, SegmentExampleAndErrors) {
    const Ksuid k = Ksuid::parse("0ujtsYcgvSTl8PAuAdqWYSMnLOv");
    EXPECT_EQ(k.unix_seconds(), 1507608047);
    EXPECT_EQ(k.bytes()[0], 0x06);
    EXPECT_EQ(k.bytes()[19], 0x35);
    EXPECT_EQ(k.payload()[0], 0xB5);
    EXPECT_EQ(k.to_string(), "0ujtsYcgvSTl8PAuAdqWYSMnLOv");
    EXPECT_EQ(Ksuid().to_string(), "000000000000000000000000000");
    try {
        (void)Ksuid::parse("aWgEPTl1tmebfsQzFP4bxwgy80W");
        FAIL();
    } catch (const id_gen::error& e) {
        EXPECT_EQ(std::string(e.sqlstate()), "22003");
        EXPECT_STREQ(e.what(), "value \"aWgEPTl1tmebfsQzFP4bxwgy80W\" is out of range for type ksuid");
    }
    EXPECT_EQ(code_of([] { (void)Ksuid::parse("0ujtsYcgvSTl8PAuAdqWYSMnLO"); }), errc::invalid_syntax);
    EXPECT_FALSE(Ksuid::try_parse("0ujtsYcgvSTl8PAuAdqWYSMnLO-").has_value());
    EXPECT_EQ(Ksuid::try_parse("0ujtsYcgvSTl8PAuAdqWYSMnLOv"), k);
}

TEST(LibKsuid, BoundsAndRandomAt) {
    const id_gen::sys_seconds t{std::chrono::seconds(1507608047)};
    EXPECT_LE(Ksuid::lower(t), Ksuid::parse("0ujtsYcgvSTl8PAuAdqWYSMnLOv"));
    EXPECT_GE(Ksuid::upper(t), Ksuid::parse("0ujtsYcgvSTl8PAuAdqWYSMnLOv"));
    EXPECT_EQ(Ksuid::random_at(t).unix_seconds(), 1507608047);
    EXPECT_NE(Ksuid::random_at(t), Ksuid::random_at(t));
    EXPECT_EQ(code_of([] { (void)Ksuid::lower(id_gen::sys_seconds{std::chrono::seconds(1399999999)}); }),
              errc::time_out_of_range);
    EXPECT_EQ(code_of([] { (void)Ksuid::random_at(id_gen::sys_seconds{std::chrono::seconds(5694967296)}); }),
              errc::time_out_of_range);
}

TEST(LibKsuidGenerator, ThreadsShareOneGenerator) {
    id_gen::KsuidGenerator gen;
    check_threads<id_gen::KsuidGenerator, Ksuid>(gen);
}

TEST(LibKsuidGenerator, ClockStandingStillOrSteppingBack) {
    std::atomic<std::int64_t> now{1600000000LL * 1000000000};
    id_gen::KsuidGenerator gen([&] { return now.load(); });
    const Ksuid a = gen.next();
    now -= 5000000000LL;
    const Ksuid b = gen.next();
    EXPECT_LT(a, b);
    EXPECT_EQ(b.unix_seconds(), 1600000000);
    now = 1300000000LL * 1000000000;
    id_gen::KsuidGenerator early([&] { return now.load(); });
    EXPECT_EQ(code_of([&] { (void)early.next(); }), errc::time_out_of_range);
}

TEST(LibKsuidGenerator, ForkedChildDoesNotRepeatTheParent) {
    id_gen::KsuidGenerator gen([] { return 1600000000LL * 1000000000; });  // one second throughout
    const Ksuid first = gen.next();
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    const pid_t child = fork();
    if (child == 0) {
        const Ksuid c = gen.next();
        const auto s = c.to_string();
        (void)!write(fds[1], s.data(), s.size());
        _exit(0);
    }
    close(fds[1]);
    char buf[27];
    ASSERT_EQ(read(fds[0], buf, sizeof buf), 27);
    close(fds[0]);
    int status = 0;
    waitpid(child, &status, 0);
    const Ksuid from_child = Ksuid::parse(std::string_view(buf, 27));
    const Ksuid next_parent = gen.next();
    EXPECT_NE(from_child, next_parent);  // the parent continues first + 1; the child drew afresh
    EXPECT_EQ(next_parent.payload()[15], static_cast<std::uint8_t>(first.payload()[15] + 1));
}

TEST(LibXid, RsXidExampleAndErrors) {
    const Xid x = Xid::parse("9m4e2mr0ui3e8a215n4g");
    EXPECT_EQ(x.unix_seconds(), 1300816219);
    EXPECT_EQ(x.machine(), 0x60f486u);
    EXPECT_EQ(x.pid(), 0xe428);
    EXPECT_EQ(x.counter(), 4271561u);
    EXPECT_EQ(x.to_string(), "9m4e2mr0ui3e8a215n4g");
    try {
        (void)Xid::parse("9M4E2MR0UI3E8A215N4G");
        FAIL();
    } catch (const id_gen::error& e) {
        EXPECT_EQ(std::string(e.sqlstate()), "22P02");
        EXPECT_STREQ(e.what(), "invalid input syntax for type rsxid: \"9M4E2MR0UI3E8A215N4G\"");
    }
    EXPECT_FALSE(Xid::try_parse("9m4e2mr0ui3e8a215n4h").has_value());
    EXPECT_EQ(Xid::lower(id_gen::xid_seconds{std::chrono::seconds(1300816219)}).to_string(), "9m4e2mo0000000000000");
    EXPECT_EQ(code_of([] { (void)Xid::upper(id_gen::xid_seconds{std::chrono::seconds(-1)}); }),
              errc::time_out_of_range);
    EXPECT_EQ(code_of([] { id_gen::XidGenerator g(0x1000000); }), errc::invalid_argument);
}

TEST(LibXidGenerator, ThreadsShareOneGeneratorFieldsAreSet) {
    id_gen::XidGenerator gen(0xABCDEF);
    check_threads<id_gen::XidGenerator, Xid>(gen);
    const Xid x = gen.next();
    EXPECT_EQ(x.machine(), 0xABCDEFu);
    EXPECT_EQ(x.pid(), static_cast<std::uint16_t>(getpid()));
    EXPECT_EQ(gen.machine(), 0xABCDEFu);
    EXPECT_EQ(id_gen::XidGenerator::machine_from_system_identifier(42),
              id_gen::XidGenerator::machine_from_system_identifier(42));
}

TEST(LibXidGenerator, ForkedChildHasItsPidAndACounterOfItsOwn) {
    id_gen::XidGenerator gen(7, [] { return 1600000000LL * 1000000000; });
    const Xid first = gen.next();
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    const pid_t child = fork();
    if (child == 0) {
        const auto s = gen.next().to_string();
        (void)!write(fds[1], s.data(), s.size());
        _exit(0);
    }
    close(fds[1]);
    char buf[20];
    ASSERT_EQ(read(fds[0], buf, sizeof buf), 20);
    close(fds[0]);
    int status = 0;
    waitpid(child, &status, 0);
    const Xid c = Xid::parse(std::string_view(buf, 20));
    EXPECT_EQ(c.pid(), static_cast<std::uint16_t>(child));
    EXPECT_NE(c.pid(), first.pid());
    const Xid p = gen.next();
    EXPECT_EQ(p.counter(), (first.counter() + 1) & 0xFFFFFFu);
    EXPECT_NE(c, p);
}
