// EntropyPool's promises in the README ("Randomness", ulid): bytes handed out are erased from the
// buffer, and a pool inherited across fork is discarded (a copy of the object is what fork gives).
// process_id() and PerProcess across a real fork(): a child never keeps its parent's state.
#include "core/base/entropy.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>

namespace {

using Bytes = std::array<std::uint8_t, 32>;

Bytes draw(idgen::EntropyPool& p) {
    Bytes b{};
    EXPECT_TRUE(p.fill(b.data(), b.size()));
    return b;
}

// Whether `b` occurs anywhere in the memory of `pool`.
bool holds(const idgen::EntropyPool& pool, const Bytes& b) {
    const auto* mem = reinterpret_cast<const std::uint8_t*>(&pool);
    return std::search(mem, mem + sizeof pool, b.begin(), b.end()) != mem + sizeof pool;
}

std::string hex(const Bytes& b) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    for (auto c : b) {
        out += digits[c >> 4];
        out += digits[c & 0xF];
    }
    return out;
}

// Runs `child` in a forked process and returns what it returned (through a pipe); "" on failure.
std::string in_child(const std::function<std::string()>& child) {
    int fd[2];
    if (pipe(fd) != 0) return "";
    const pid_t pid = fork();
    if (pid < 0) return "";
    if (pid == 0) {
        close(fd[0]);
        const std::string out = child();
        const bool ok = write(fd[1], out.data(), out.size()) == static_cast<ssize_t>(out.size());
        _exit(ok ? 0 : 1);  // no gtest teardown, no atexit handlers in the child
    }
    close(fd[1]);
    std::string got;
    char buf[256];
    for (ssize_t r; (r = read(fd[0], buf, sizeof buf)) > 0;) got.append(buf, static_cast<std::size_t>(r));
    close(fd[0]);
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return "";
    return got;
}

// A state that remembers how far it got.
struct Counter {
    int n = 0;
};

}  // namespace

TEST(EntropyPool, BytesHandedOutAreErased) {
    idgen::EntropyPool pool;
    pool.set_owner(1);
    const Bytes first = draw(pool);
    const Bytes second = draw(pool);
    EXPECT_FALSE(holds(pool, first));
    EXPECT_FALSE(holds(pool, second));
    // The check can see the buffer: the bytes still to come are in it.
    idgen::EntropyPool copy = pool;
    EXPECT_TRUE(holds(pool, draw(copy)));
}

TEST(EntropyPool, APoolInheritedAcrossForkIsDiscarded) {
    idgen::EntropyPool parent;
    parent.set_owner(100);
    (void)draw(parent);                 // filled now
    idgen::EntropyPool child = parent;  // what fork() gives the child
    child.set_owner(101);
    EXPECT_NE(draw(parent), draw(child));
    // Under the same owner, the copy would repeat the parent's bytes: what the discard prevents.
    idgen::EntropyPool same = parent;
    same.set_owner(100);
    EXPECT_EQ(draw(parent), draw(same));
}

TEST(ProcessId, IsGetpidAndChangesInAForkedChild) {
    const int parent = idgen::process_id();
    EXPECT_EQ(parent, static_cast<int>(getpid()));
    const std::string child =
        in_child([] { return std::to_string(idgen::process_id()) + " " + std::to_string(static_cast<int>(getpid())); });
    ASSERT_FALSE(child.empty());
    const auto space = child.find(' ');
    EXPECT_EQ(child.substr(0, space), child.substr(space + 1));  // the child's own pid
    EXPECT_NE(child.substr(0, space), std::to_string(parent));
    EXPECT_EQ(idgen::process_id(), parent);
}

// A backend's pool after a bare fork() (a procedural language that forks): keyed by process_id(),
// the child draws bytes of its own; keyed by a value fixed before the fork (as MyProcPid is), it
// would hand out the parent's keystream.
TEST(EntropyPool, AForkedProcessDrawsOtherBytes) {
    static idgen::EntropyPool pool;  // a global in the backend
    pool.set_owner(idgen::process_id());
    (void)draw(pool);  // in use before the fork
    const std::string child = in_child([] {
        pool.set_owner(idgen::process_id());
        return hex(draw(pool));
    });
    pool.set_owner(idgen::process_id());
    const std::string parent = hex(draw(pool));
    ASSERT_FALSE(child.empty());
    EXPECT_NE(child, parent);

    static idgen::EntropyPool fixed;
    fixed.set_owner(42);
    (void)draw(fixed);
    const std::string fixed_child = in_child([] {
        fixed.set_owner(42);
        return hex(draw(fixed));
    });
    EXPECT_EQ(fixed_child, hex(draw(fixed)));
}

// A generator's state per process: the child of a process that used it starts from a fresh state;
// the parent keeps its own.
TEST(PerProcess, AForkedProcessStartsAfresh) {
    static idgen::PerProcess<Counter> state;
    state.get().n = 5;
    const std::string child = in_child([] {
        const int seen = state.get().n;
        state.get().n = 9;
        return std::to_string(seen);
    });
    EXPECT_EQ(child, "0");
    EXPECT_EQ(state.get().n, 5);
}
