// The ObjectId, UUIDv6, NanoID and shard ID generators shared by many threads (also built into
// lib_tests_tsan, where ThreadSanitizer reports any state that escaped the generator's lock), and
// after fork().
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <set>
#include <thread>
#include <vector>

#include "id_gen/id_gen.hpp"

namespace {

#if defined(__SANITIZE_THREAD__)
constexpr int kPerThread = 2000;
#else
constexpr int kPerThread = 20000;
#endif
constexpr int kThreads = 8;

// Each thread's IDs, in the order it got them.
template <class Id, class Make>
std::vector<std::vector<Id>> per_thread(Make make) {
    std::atomic<bool> go{false};
    std::vector<std::vector<Id>> out(kThreads);
    std::vector<std::thread> pool;
    for (int t = 0; t < kThreads; ++t)
        pool.emplace_back([&, t] {
            out[t].reserve(kPerThread);
            while (!go.load()) std::this_thread::yield();
            for (int i = 0; i < kPerThread; ++i) out[t].push_back(make());
        });
    go = true;
    for (auto& th : pool) th.join();
    return out;
}

template <class Id>
void expect_unique_and_increasing(const std::vector<std::vector<Id>>& ids, bool increasing = true) {
    std::vector<Id> all;
    for (const auto& v : ids) {
        if (increasing) {
            for (std::size_t i = 1; i < v.size(); ++i) ASSERT_LT(v[i - 1], v[i]) << i;
        }
        all.insert(all.end(), v.begin(), v.end());
    }
    std::sort(all.begin(), all.end());
    EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << "duplicate";
    EXPECT_EQ(all.size(), static_cast<std::size_t>(kThreads * kPerThread));
}

}  // namespace

TEST(LibKindThreads, SharedObjectIdGenerator) {
    id_gen::ObjectIdGenerator g;
    expect_unique_and_increasing(per_thread<id_gen::ObjectId>([&] { return g.next(); }));
}

TEST(LibKindThreads, SharedUuidv6Generator) {
    id_gen::Uuidv6Generator g;
    const auto ids = per_thread<id_gen::Uuid>([&] { return g.next(); });
    expect_unique_and_increasing(ids);
    for (const auto& v : ids)
        for (const auto& id : v) ASSERT_EQ(id.version(), 6);
}

TEST(LibKindThreads, SharedShardIdGenerator) {
    id_gen::SnowflakeOptions o;
    o.max_run_ahead = std::chrono::milliseconds(60000);
    id_gen::ShardIdGenerator g(42, id_gen::ShardId::default_epoch_ms, o);
    const auto ids = per_thread<id_gen::ShardId>([&] { return g.next(); });
    expect_unique_and_increasing(ids);
    for (const auto& v : ids)
        for (const auto& id : v) ASSERT_EQ(id.shard(), 42u);
}

TEST(LibKindThreads, SharedNanoidGeneratorAndProcessWide) {
    id_gen::NanoidGenerator g;
    expect_unique_and_increasing(per_thread<std::string>([&] { return g.next(); }), false);
    expect_unique_and_increasing(per_thread<std::string>([] { return id_gen::new_nanoid(); }), false);
    expect_unique_and_increasing(per_thread<id_gen::Uuid>([] { return id_gen::new_uuidv6(); }), false);
    expect_unique_and_increasing(per_thread<id_gen::ObjectId>([] { return id_gen::new_objectid(); }), false);
}

// After fork(), parent and child draw different random bytes: the child's ObjectId process value
// and its UUIDv6/NanoID random bits are not the parent's.
TEST(LibKindFork, ChildDrawsFreshRandomness) {
    id_gen::ObjectIdGenerator o;
    id_gen::Uuidv6Generator u;
    id_gen::NanoidGenerator n;
    (void)o.next();
    (void)u.next();
    (void)n.next();
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        close(fds[0]);
        const std::string line = o.next().to_string() + u.next().to_string() + n.next();
        (void)!write(fds[1], line.data(), line.size());
        _exit(0);
    }
    close(fds[1]);
    const std::string parent = o.next().to_string() + u.next().to_string() + n.next();
    char buf[256];
    std::string child;
    for (ssize_t r; (r = read(fds[0], buf, sizeof buf)) > 0;) child.append(buf, static_cast<std::size_t>(r));
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_EQ(child.size(), parent.size());
    EXPECT_NE(child.substr(8, 10), parent.substr(8, 10)) << "ObjectId process value inherited";
    EXPECT_NE(child.substr(24 + 19, 17), parent.substr(24 + 19, 17)) << "UUIDv6 random bits repeated";
    EXPECT_NE(child.substr(60), parent.substr(60)) << "NanoID repeated";
}
