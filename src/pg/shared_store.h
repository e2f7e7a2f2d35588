// id_gen: the slot table of generator state in a shared segment (shared_store.cpp), as the
// shared-memory store (shmem_store.cpp) and the DSM registry store (dsm_store.cpp) map it.
#pragma once

#include <cstddef>

#include "state_store.h"

struct LWLock;

namespace idgen::pg {

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
