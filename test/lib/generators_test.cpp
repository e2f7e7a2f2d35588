// The library's generators: many threads on one generator (unique, each thread's IDs increasing,
// and the order of issue respected across threads), one generator per thread, clocks that stand
// still or step back, snowflake capacity and run-ahead, restarts, and fork().
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <set>
#include <thread>
#include <unordered_set>
#include <vector>

#include "id_gen/id_gen.hpp"

using id_gen::errc;

namespace {

// Under ThreadSanitizer (lib_tests_tsan) a tenth of the calls: it reports an unlocked access the
// first time two threads make it, and runs every access many times slower.
#if defined(__SANITIZE_THREAD__)
constexpr int kScale = 10;
#else
constexpr int kScale = 1;
#endif

constexpr int kThreads = 8;
constexpr int kPerThread = 20000 / kScale;

// One call of next(): a ticket taken just before it and one just after, from one counter shared
// by all threads, and the ID it returned.
template <class Id>
struct Call {
    std::uint64_t start, end;
    Id id;
};

// Runs `make` (an ID per call) on kThreads threads, kPerThread times each, all released at once.
template <class Id, class Make>
std::vector<std::vector<Call<Id>>> run_threads(Make make, int threads = kThreads, int per_thread = kPerThread) {
    std::atomic<std::uint64_t> ticket{0};
    std::atomic<bool> go{false};
    std::vector<std::vector<Call<Id>>> calls(threads);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&, t] {
            calls[t].reserve(per_thread);
            while (!go.load()) std::this_thread::yield();
            for (int i = 0; i < per_thread; ++i) {
                const std::uint64_t s = ticket.fetch_add(1);
                Id id = make(t);
                const std::uint64_t e = ticket.fetch_add(1);
                calls[t].push_back({s, e, id});
            }
        });
    }
    go = true;
    for (auto& th : pool) th.join();
    return calls;
}

// No ID twice, and each thread's IDs strictly increasing.
template <class Id>
void expect_unique_and_per_thread_increasing(const std::vector<std::vector<Call<Id>>>& calls) {
    std::vector<Id> all;
    for (std::size_t t = 0; t < calls.size(); ++t) {
        for (std::size_t i = 1; i < calls[t].size(); ++i)
            ASSERT_LT(calls[t][i - 1].id, calls[t][i].id) << "thread " << t << " call " << i;
        for (const auto& c : calls[t]) all.push_back(c.id);
    }
    std::sort(all.begin(), all.end());
    const auto dup = std::adjacent_find(all.begin(), all.end());
    ASSERT_EQ(dup, all.end()) << "duplicate " << *dup;
}

// The order of issue across threads: a call that ended before another began returned the smaller
// ID. (Sorted by end ticket, the largest ID among the calls that ended before a call began must
// be below that call's ID.)
template <class Id>
void expect_issue_order(const std::vector<std::vector<Call<Id>>>& calls) {
    std::vector<Call<Id>> all;
    for (const auto& v : calls) all.insert(all.end(), v.begin(), v.end());
    std::sort(all.begin(), all.end(), [](const Call<Id>& a, const Call<Id>& b) { return a.end < b.end; });
    std::vector<Id> prefix_max(all.size());
    for (std::size_t i = 0; i < all.size(); ++i)
        prefix_max[i] = i == 0 ? all[i].id : std::max(prefix_max[i - 1], all[i].id);
    std::size_t checked = 0;
    for (const auto& b : all) {
        // Calls that ended before b started.
        const auto n =
            static_cast<std::size_t>(std::lower_bound(all.begin(), all.end(), b.start,
                                                      [](const Call<Id>& c, std::uint64_t s) { return c.end < s; }) -
                                     all.begin());
        if (n == 0) continue;
        ASSERT_LT(prefix_max[n - 1], b.id) << "an ID issued earlier is not smaller than " << b.id;
        ++checked;
    }
    EXPECT_GT(checked, all.size() / 4);
}

// A clock the test moves by hand.
struct ManualClock {
    std::shared_ptr<std::atomic<std::int64_t>> ns = std::make_shared<std::atomic<std::int64_t>>(0);
    id_gen::Clock clock() const {
        auto p = ns;
        return [p] { return p->load(); };
    }
    void set_ms(std::int64_t ms) const { ns->store(ms * 1000000); }
};

std::int64_t twitter_time_field(id_gen::Snowflake s) { return s.value() >> 22; }

}  // namespace

// ---- one generator shared by many threads -----------------------------------------------------

TEST(LibGeneratorThreads, SharedUlidGenerator) {
    id_gen::UlidGenerator g;
    const auto calls = run_threads<id_gen::Ulid>([&](int) { return g.next(); });
    expect_unique_and_per_thread_increasing(calls);
    expect_issue_order(calls);
}

TEST(LibGeneratorThreads, SharedUuidv7Generator) {
    id_gen::Uuidv7Generator g;
    const auto calls = run_threads<id_gen::Uuid>([&](int) { return g.next(); });
    expect_unique_and_per_thread_increasing(calls);
    expect_issue_order(calls);
    for (const auto& v : calls) {
        for (const auto& c : v) ASSERT_EQ(c.id.version(), 7);
    }
}

TEST(LibGeneratorThreads, SharedSnowflakeGenerator) {
    id_gen::SnowflakeGenerator g(17);
    const auto calls = run_threads<id_gen::Snowflake>([&](int) { return g.next(); });
    expect_unique_and_per_thread_increasing(calls);
    expect_issue_order(calls);
    for (const auto& v : calls) {
        for (const auto& c : v) ASSERT_EQ(c.id.node(), 17u);
    }
}

TEST(LibGeneratorThreads, ProcessWideGenerators) {
    const auto ulids = run_threads<id_gen::Ulid>([](int) { return id_gen::new_ulid(); });
    expect_unique_and_per_thread_increasing(ulids);
    expect_issue_order(ulids);
    const auto uuids = run_threads<id_gen::Uuid>([](int) { return id_gen::new_uuidv7(); });
    expect_unique_and_per_thread_increasing(uuids);
    expect_issue_order(uuids);
}

// The same without the tickets: threads calling next() back to back, which is what exposes a
// generator whose state is not under its lock (duplicates, IDs going down).
template <class Id, class Make>
void tight_loops(Make make) {
    constexpr int kLoopThreads = 4, kLoopIds = 250000 / kScale;
    std::atomic<bool> go{false};
    std::vector<std::vector<Id>> ids(kLoopThreads);
    std::vector<std::thread> pool;
    for (int t = 0; t < kLoopThreads; ++t) {
        pool.emplace_back([&, t] {
            ids[t].reserve(kLoopIds);
            while (!go.load()) std::this_thread::yield();
            for (int i = 0; i < kLoopIds; ++i) ids[t].push_back(make());
        });
    }
    go = true;
    for (auto& th : pool) th.join();
    std::vector<std::vector<Call<Id>>> calls(kLoopThreads);
    for (int t = 0; t < kLoopThreads; ++t)
        for (const auto& id : ids[t]) calls[t].push_back({0, 0, id});
    expect_unique_and_per_thread_increasing(calls);
}

TEST(LibGeneratorThreads, SharedGeneratorsBackToBack) {
    id_gen::UlidGenerator u;
    tight_loops<id_gen::Ulid>([&] { return u.next(); });
    id_gen::Uuidv7Generator v;
    tight_loops<id_gen::Uuid>([&] { return v.next(); });
    id_gen::SnowflakeGenerator s(1);
    tight_loops<id_gen::Snowflake>([&] { return s.next(); });
}

// ---- one generator per thread -----------------------------------------------------------------

TEST(LibGeneratorThreads, UlidGeneratorPerThread) {
    std::vector<std::unique_ptr<id_gen::UlidGenerator>> gens;
    for (int t = 0; t < kThreads; ++t) gens.push_back(std::make_unique<id_gen::UlidGenerator>());
    expect_unique_and_per_thread_increasing(run_threads<id_gen::Ulid>([&](int t) { return gens[t]->next(); }));
}

TEST(LibGeneratorThreads, Uuidv7GeneratorPerThread) {
    std::vector<std::unique_ptr<id_gen::Uuidv7Generator>> gens;
    for (int t = 0; t < kThreads; ++t) gens.push_back(std::make_unique<id_gen::Uuidv7Generator>());
    expect_unique_and_per_thread_increasing(run_threads<id_gen::Uuid>([&](int t) { return gens[t]->next(); }));
}

TEST(LibGeneratorThreads, SnowflakeGeneratorPerThreadWithItsOwnNode) {
    std::vector<std::unique_ptr<id_gen::SnowflakeGenerator>> gens;
    for (int t = 0; t < kThreads; ++t) gens.push_back(std::make_unique<id_gen::SnowflakeGenerator>(100 + t));
    const auto calls = run_threads<id_gen::Snowflake>([&](int t) { return gens[t]->next(); });
    expect_unique_and_per_thread_increasing(calls);
    for (int t = 0; t < kThreads; ++t) {
        for (const auto& c : calls[t]) ASSERT_EQ(c.id.node(), 100u + t);
    }
}

// ---- clocks -----------------------------------------------------------------------------------

// A clock that stands still, then steps back an hour: ULIDs keep increasing by exactly one in
// their random part, within the millisecond of the highest reading.
TEST(LibUlidGenerator, ClockStandingStillOrSteppingBack) {
    ManualClock clock;
    clock.set_ms(1700000000000);
    id_gen::UlidGenerator g(clock.clock());
    std::vector<id_gen::Ulid> ids;
    for (int i = 0; i < 1000; ++i) ids.push_back(g.next());
    clock.set_ms(1700000000000 - 3600000);
    for (int i = 0; i < 1000; ++i) ids.push_back(g.next());
    for (std::size_t i = 1; i < ids.size(); ++i) {
        ASSERT_LT(ids[i - 1], ids[i]);
        ASSERT_EQ(ids[i].unix_ms(), 1700000000000);
        // +1 in the low 64 bits (a carry into the top 16 random bits is possible but rare).
        std::uint64_t a = 0, b = 0;
        for (int k = 8; k < 16; ++k) {
            a = (a << 8) | ids[i - 1].bytes()[k];
            b = (b << 8) | ids[i].bytes()[k];
        }
        if (a != UINT64_MAX) {
            ASSERT_EQ(b, a + 1);
        }
    }
    clock.set_ms(1700000000001);
    EXPECT_EQ(g.next().unix_ms(), 1700000000001);
}

// UUIDv7 as PostgreSQL 18: never less than 245 ns after the last time used, so a stopped clock
// gives increasing IDs whose time runs ahead (4,096 of them fill one millisecond).
TEST(LibUuidv7Generator, ClockStandingStillRunsAhead) {
    ManualClock clock;
    clock.set_ms(1700000000000);
    id_gen::Uuidv7Generator g(clock.clock());
    id_gen::Uuid last = g.next();
    for (int i = 1; i < 8192; ++i) {
        const auto id = g.next();
        ASSERT_LT(last, id);
        last = id;
    }
    // 8,192 steps of 245 ns: 2.007 ms after the clock.
    EXPECT_EQ(last.time()->time_since_epoch().count() / 1000, 1700000000002);
    clock.set_ms(1700000000000 - 1000);
    EXPECT_LT(last, g.next());
}

TEST(LibSnowflakeGenerator, Validation) {
    auto e = [](auto f) {
        try {
            f();
        } catch (const id_gen::error& x) {
            return x.code();
        }
        return errc{};
    };
    EXPECT_EQ(e([] { id_gen::SnowflakeGenerator g(1024); }), errc::invalid_argument);
    EXPECT_EQ(e([] { id_gen::SnowflakeGenerator g(16, id_gen::SnowflakeLayout::javascript()); }),
              errc::invalid_argument);
    id_gen::SnowflakeGenerator ok(15, id_gen::SnowflakeLayout::javascript());
    EXPECT_EQ(ok.node(), 15u);
    EXPECT_EQ(ok.layout(), id_gen::SnowflakeLayout::javascript());
    EXPECT_LE(ok.next().value(), (std::int64_t{1} << 53) - 1);
    id_gen::SnowflakeOptions o;
    o.max_run_ahead = std::chrono::milliseconds(60001);
    EXPECT_EQ(e([&] { id_gen::SnowflakeGenerator g(1, id_gen::SnowflakeLayout::twitter(), o); }),
              errc::invalid_argument);
    // A clock before the layout's epoch.
    ManualClock clock;
    clock.set_ms(1600000000000);
    o = {};
    o.clock = clock.clock();
    id_gen::SnowflakeGenerator early(1, id_gen::SnowflakeLayout::javascript(), o);
    EXPECT_EQ(e([&] { (void)early.next(); }), errc::time_out_of_range);
}

// At capacity the time field runs ahead of the clock by at most max_run_ahead, then the generator
// waits for the clock: a clock that does not move makes it give up after max_wait.
TEST(LibSnowflakeGenerator, CapacityRunAheadAndWait) {
    const auto twitter = id_gen::SnowflakeLayout::twitter();
    ManualClock clock;
    const std::int64_t t0 = 1700000000000;
    clock.set_ms(t0);
    id_gen::SnowflakeOptions o;
    o.max_run_ahead = std::chrono::milliseconds(5);
    o.max_wait = std::chrono::milliseconds(30);
    o.clock = clock.clock();
    id_gen::SnowflakeGenerator g(3, twitter, o);
    // The first ID is after the horizon taken at construction (the clock + 5 ms) and at most 5 ms
    // ahead of the clock: it needs the clock to move on by 1 ms.
    clock.set_ms(t0 + 1);
    const std::int64_t clock_unit = t0 + 1 - twitter.epoch_ms();
    std::vector<id_gen::Snowflake> ids;
    errc refused{};
    for (int i = 0; i < 10 * 4096; ++i) {
        try {
            ids.push_back(g.next());
        } catch (const id_gen::error& e) {
            refused = e.code();
            break;
        }
    }
    EXPECT_EQ(refused, errc::capacity_exceeded);
    // The unit 5 ms ahead of the clock alone: 4,096 IDs.
    ASSERT_EQ(ids.size(), 4096u);
    for (std::size_t i = 0; i < ids.size(); ++i) {
        ASSERT_EQ(twitter_time_field(ids[i]), clock_unit + 5) << i;
        ASSERT_EQ(ids[i].sequence(), i);
        ASSERT_EQ(ids[i].node(), 3u);
    }
    // The clock moves 1 ms: one more unit of 4,096 IDs.
    clock.set_ms(t0 + 2);
    for (int i = 0; i < 4096; ++i) {
        const auto id = g.next();
        ASSERT_LT(ids.back(), id);
        ASSERT_EQ(twitter_time_field(id), clock_unit + 6);
        ids.push_back(id);
    }
    EXPECT_THROW((void)g.next(), id_gen::error);
    // A clock that steps back keeps the highest reading: still refused, never a smaller ID.
    clock.set_ms(t0 - 60000);
    EXPECT_THROW((void)g.next(), id_gen::error);
    // With the clock far ahead, issuing resumes at the clock.
    clock.set_ms(t0 + 1000);
    const auto later = g.next();
    EXPECT_EQ(twitter_time_field(later), t0 + 1000 - twitter.epoch_ms());
    EXPECT_EQ(later.sequence(), 0u);
}

// A new generator of the same node, made after an old one was destroyed, starts above every ID
// the old one issued, even when the old one ran max_run_ahead ahead of its clock.
TEST(LibSnowflakeGenerator, RestartStartsAboveTheRunAhead) {
    ManualClock clock;
    const std::int64_t t0 = 1700000000000;
    clock.set_ms(t0 - 1);
    id_gen::SnowflakeOptions o;
    o.max_run_ahead = std::chrono::milliseconds(20);
    o.max_wait = std::chrono::milliseconds(0);
    o.clock = clock.clock();
    id_gen::Snowflake highest;
    {
        id_gen::SnowflakeGenerator old_gen(9, id_gen::SnowflakeLayout::twitter(), o);
        clock.set_ms(t0);
        // Run it out to its limit: 20 ms ahead of the clock.
        for (;;) {
            try {
                highest = old_gen.next();
            } catch (const id_gen::error& e) {
                ASSERT_EQ(e.code(), errc::capacity_exceeded);
                break;
            }
        }
        EXPECT_EQ(twitter_time_field(highest), t0 + 20 - id_gen::SnowflakeLayout::twitter_epoch_ms);
        EXPECT_EQ(highest.sequence(), 4095u);
    }
    clock.set_ms(t0 + 1);  // the new process starts a millisecond later
    o.max_wait = std::chrono::milliseconds(2000);
    id_gen::SnowflakeGenerator new_gen(9, id_gen::SnowflakeLayout::twitter(), o);
    // Its first ID waits for the clock to move past the construction reading.
    std::thread tick([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        clock.set_ms(t0 + 2);
    });
    const auto first = new_gen.next();
    tick.join();
    EXPECT_GT(first, highest);
}

// ---- fork -------------------------------------------------------------------------------------

namespace {

// Runs `child` in a forked process; returns what it wrote to the pipe and its exit status.
template <class F>
std::pair<std::vector<std::uint8_t>, int> in_child(F child) {
    int fds[2];
    if (pipe(fds) != 0) return {{}, -1};
    const pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        int code = 0;
        try {
            const std::vector<std::uint8_t> out = child();
            std::size_t off = 0;
            while (off < out.size()) {
                const ssize_t w = write(fds[1], out.data() + off, out.size() - off);
                if (w <= 0) break;
                off += static_cast<std::size_t>(w);
            }
        } catch (const id_gen::error& e) {
            code = static_cast<int>(e.code());
        } catch (...) {
            code = 99;
        }
        close(fds[1]);
        _exit(code);
    }
    close(fds[1]);
    std::vector<std::uint8_t> got;
    std::uint8_t buf[4096];
    for (;;) {
        const ssize_t r = read(fds[0], buf, sizeof buf);
        if (r <= 0) break;
        got.insert(got.end(), buf, buf + r);
    }
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return {got, WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

}  // namespace

// The parent and the child continue one ULID generator in the same millisecond: without a reset
// in the child, both would issue the last ID + 1, + 2, ...
TEST(LibGeneratorFork, UlidParentAndChildNeverCollide) {
    ManualClock clock;
    clock.set_ms(1700000000000);
    id_gen::UlidGenerator g(clock.clock());
    (void)g.next();
    auto [bytes, code] = in_child([&] {
        std::vector<std::uint8_t> out;
        for (int i = 0; i < 1000; ++i) {
            const auto id = g.next();
            out.insert(out.end(), id.bytes().begin(), id.bytes().end());
        }
        return out;
    });
    ASSERT_EQ(code, 0);
    ASSERT_EQ(bytes.size(), 16000u);
    std::set<id_gen::Ulid> ids;
    for (int i = 0; i < 1000; ++i) ids.insert(g.next());
    for (int i = 0; i < 1000; ++i) {
        id_gen::Bytes16 b;
        std::memcpy(b.data(), bytes.data() + 16 * i, 16);
        ASSERT_EQ(ids.count(id_gen::Ulid(b)), 0u) << "the child issued the parent's ID " << id_gen::Ulid(b);
    }
}

// UUIDv7 random bits: the child must not reuse the parent's block of kernel randomness.
TEST(LibGeneratorFork, Uuidv7ChildDrawsItsOwnRandomBits) {
    id_gen::Uuidv7Generator g;
    (void)g.next();  // fills the block
    auto random_part = [](const id_gen::Uuid& u) {
        std::uint64_t v = 0;
        for (int k = 8; k < 16; ++k) v = (v << 8) | u.bytes()[k];
        return v & 0x3FFFFFFFFFFFFFFFULL;
    };
    auto [bytes, code] = in_child([&] {
        std::vector<std::uint8_t> out;
        for (int i = 0; i < 200; ++i) {
            const auto id = g.next();
            out.insert(out.end(), id.bytes().begin(), id.bytes().end());
        }
        return out;
    });
    ASSERT_EQ(code, 0);
    ASSERT_EQ(bytes.size(), 3200u);
    std::unordered_set<std::uint64_t> parent;
    for (int i = 0; i < 200; ++i) parent.insert(random_part(g.next()));
    for (int i = 0; i < 200; ++i) {
        id_gen::Bytes16 b;
        std::memcpy(b.data(), bytes.data() + 16 * i, 16);
        ASSERT_EQ(parent.count(random_part(id_gen::Uuid(b))), 0u) << "shared random bits at " << i;
    }
}

TEST(LibGeneratorFork, SnowflakeRefusesInTheChild) {
    id_gen::SnowflakeGenerator g(5);
    (void)g.next();
    auto [bytes, code] = in_child([&] {
        (void)g.next();
        return std::vector<std::uint8_t>{};
    });
    EXPECT_EQ(code, static_cast<int>(errc::forked));
    (void)g.next();  // the parent carries on
    // A generator made in the child works there.
    auto [bytes2, code2] = in_child([&] {
        id_gen::SnowflakeGenerator mine(6);
        const auto id = mine.next();
        return std::vector<std::uint8_t>{static_cast<std::uint8_t>(id.node())};
    });
    EXPECT_EQ(code2, 0);
    ASSERT_EQ(bytes2.size(), 1u);
    EXPECT_EQ(bytes2[0], 6);
}
