// id_gen: the DSM registry store (PostgreSQL 17 and later, without preloading): the slot table of
// slot_store.cpp in a named segment of the dynamic shared memory registry, created by the first
// backend that needs it, carrying its own LWLock. See store.h.
#include "pg/state/slot_store.h"

extern "C" {
#include "postgres.h"
#include "pg/base/compat.h"  // IDGEN_HAVE_DSM_REGISTRY, and its header
}

namespace idgen::pg {

#if IDGEN_HAVE_DSM_REGISTRY
namespace {
void init_segment(void* ptr) { shared_segment_init(ptr, true); }
}  // namespace

// Attaches the segment (created on first use). May raise (out of memory): called before any lock
// is taken.
StateStore* dsm_store() {
    static void* segment = nullptr;
    static LWLock* lock = nullptr;
    if (segment == nullptr) {
        bool found = false;
        void* seg = GetNamedDSMSegment("id_gen snowflake state", shared_segment_size(), init_segment, &found);
        lock = shared_segment_own_lock(seg);
        segment = seg;
    }
    return &shared_store(segment, lock, "dsm registry");
}
#else
StateStore* dsm_store() { return nullptr; }
#endif

}  // namespace idgen::pg
