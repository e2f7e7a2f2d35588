// EntropyPool's promises in the README ("Randomness", ulid): bytes handed out are erased from the
// buffer, and a pool inherited across fork is discarded (a copy of the object is what fork gives).
#include "core/entropy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>

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
    (void)draw(parent);  // filled now
    idgen::EntropyPool child = parent;  // what fork() gives the child
    child.set_owner(101);
    EXPECT_NE(draw(parent), draw(child));
    // Under the same owner, the copy would repeat the parent's bytes: what the discard prevents.
    idgen::EntropyPool same = parent;
    same.set_owner(100);
    EXPECT_EQ(draw(parent), draw(same));
}
