// id_gen: the slot table of generator state in a shared segment (slot_store.cpp), as the
// shared-memory store (slot_store_shmem.cpp) and the DSM registry store (slot_store_dsm.cpp) map
// it, and the per-ID path over it: find the key's slot and run one pure step under the spinlock.
// That path is here, inline and a template over the generator's class, so generator_issue()
// (generator_loop.h) compiles it with the generator's step called directly; everything rarer (a
// slot to load, a mark to persist, a wait, an error) is out of line in slot_store.cpp.
#pragma once

#include <cstddef>
#include <cstdint>

#include "pg/state/store.h"

extern "C" {
#include "postgres.h"
#include "storage/lwlock.h"
#include "storage/spin.h"
}

namespace idgen::pg {

inline constexpr int kSharedSlots = 4096;  // node layouts + (database, shard) pairs + launches in use since startup

struct SharedSlot {
    StateKey key;
    bool used;
    bool loaded;
    LiveState live;
};
struct SharedSegment {
    slock_t mutex;    // guards the slots; held only around pure steps and copies
    int tranche;      // the LWLock tranche of `own_lock` (DSM registry segments)
    LWLock own_lock;  // used in a DSM segment, which each backend may map at another address
    SharedSlot slots[kSharedSlots];
};

[[nodiscard]] inline std::uint32_t shared_key_hash(const StateKey& k) noexcept {
    std::uint64_t h = 1469598103934665603ULL;
    auto mix = [&h](std::uint64_t v) {
        h ^= v;
        h *= 1099511628211ULL;
    };
    mix(k.kind);
    mix(k.db);
    mix(static_cast<std::uint32_t>(k.number));
    return static_cast<std::uint32_t>(h ^ (h >> 32));
}

// Finds or claims the slot of `k` (same kind/db/number; the epoch is checked by shared_slot_live).
// Under the spinlock. Null when every slot is taken.
[[nodiscard]] inline SharedSlot* shared_find_slot(SharedSegment* sh, const StateKey& k) noexcept {
    std::uint32_t i = shared_key_hash(k) % kSharedSlots;
    for (int probes = 0; probes < kSharedSlots; ++probes, i = (i + 1) % kSharedSlots) {
        SharedSlot& s = sh->slots[i];
        if (!s.used) {
            s.used = true;
            s.loaded = false;
            s.key = k;
            return &s;
        }
        if (s.key.kind == k.kind && s.key.db == k.db && s.key.number == k.number) return &s;
    }
    return nullptr;
}

// Whether slot `s` holds this server run's live state of `k` (under the spinlock).
[[nodiscard]] inline bool shared_slot_live(const SharedSlot* s, const StateKey& k) noexcept {
    return s != nullptr && s->loaded && same_key(s->key, k);
}

// What the per-ID attempt found: every slot taken, the key's slot not loaded (first use since
// startup, another epoch, a raised mark), or a step run.
enum class SharedFast : std::uint8_t { kFull, kLoad, kStepped };

// The rest of an attempt that did not issue an ID on the fast path (out of line): the error, the
// wait (`out` set), or the file I/O (load the slot, persist a mark: then kRetry). A kIssued `r`
// comes back as kIssued with `out` set.
[[nodiscard]] Outcome shared_after_attempt(Generator& g, SharedFast f, const Result<Step>& r, std::int64_t now_ms,
                                           Step& out, StateError& err);

// One attempt (StateStore::run of the shared stores): under the spinlock, the key's slot and one
// pure step of `g` on it; an ID issued comes back as kIssued with `id` (and, with kWantStep, the
// step in `out`), anything else through shared_after_attempt(). G is the generator's final class
// (generator_issue(): a direct, inlined step) or Generator itself (the store's virtual run()).
// The step's result is read where the callee wrote it (no copy of it on the per-ID path).
template <bool kWantStep, class G>
[[nodiscard]] inline Outcome shared_run(SharedSegment* sh, G& g, std::int64_t now_ms, std::int64_t& id, Step& out,
                                        StateError& err) {
    SpinLockAcquire(&sh->mutex);
    SharedSlot* s = shared_find_slot(sh, g.key);
    if (shared_slot_live(s, g.key)) {
        const Result<Step> r = g.step(s->live, now_ms, 1);
        SpinLockRelease(&sh->mutex);
        if (r && r->kind == StepKind::kIssued) {
            id = g.id_of(*r);
            if constexpr (kWantStep) out = *r;
            return Outcome::kIssued;
        }
        return shared_after_attempt(g, SharedFast::kStepped, r, now_ms, out, err);
    }
    SpinLockRelease(&sh->mutex);
    return shared_after_attempt(g, s == nullptr ? SharedFast::kFull : SharedFast::kLoad,
                                Result<Step>(Error::kNoOutcome), now_ms, out, err);
}

// The segment of this backend's store when it is a shared one (shared memory or the DSM
// registry), else null. Set when the store is chosen (state_store()).
extern SharedSegment* g_shared_segment;

// The segment's size, and its initialization (zeroed, spinlock ready); with `own_lock` (a DSM
// segment, which each backend may map at another address) it carries its own LWLock and tranche.
[[nodiscard]] std::size_t shared_segment_size() noexcept;
void shared_segment_init(void* segment, bool own_lock);
// The LWLock a DSM segment carries, its tranche registered in this backend.
LWLock* shared_segment_own_lock(void* segment);

// A store over the slot table in `segment`, whose file I/O is serialized by `io_lock`. A backend
// makes one (the first call wins: a backend uses one store for its life).
StateStore& shared_store(void* segment, LWLock* io_lock, const char* name);

}  // namespace idgen::pg
