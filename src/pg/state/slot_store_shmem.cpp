// id_gen: the shared-memory store (shared_preload_libraries = 'id_gen'): the slot table of
// slot_store.cpp in the main shared memory, requested while preloading, its file I/O serialized
// by a named LWLock. See store.h.
#include "pg/state/slot_store.h"

extern "C" {
#include "postgres.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
}

namespace idgen::pg {
namespace {

void* g_segment = nullptr;  // attached by the postmaster (inherited by every backend)
LWLock* g_lock = nullptr;

shmem_request_hook_type prev_shmem_request_hook = nullptr;
shmem_startup_hook_type prev_shmem_startup_hook = nullptr;

void request_hook() {
    if (prev_shmem_request_hook) prev_shmem_request_hook();
    RequestAddinShmemSpace(shared_segment_size());
    RequestNamedLWLockTranche("id_gen", 1);
}

void startup_hook() {
    if (prev_shmem_startup_hook) prev_shmem_startup_hook();
    bool found = false;
    LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
    void* seg = ShmemInitStruct("id_gen snowflake state", shared_segment_size(), &found);
    if (!found) shared_segment_init(seg, false);
    LWLockRelease(AddinShmemInitLock);
    g_lock = &(GetNamedLWLockTranche("id_gen"))->lock;
    g_segment = seg;
}

}  // namespace

void shmem_store_install_hooks() {
    if (!process_shared_preload_libraries_in_progress) return;
    prev_shmem_request_hook = shmem_request_hook;
    shmem_request_hook = request_hook;
    prev_shmem_startup_hook = shmem_startup_hook;
    shmem_startup_hook = startup_hook;
}

StateStore* shmem_store() noexcept {
    return g_segment != nullptr ? &shared_store(g_segment, g_lock, "shared memory") : nullptr;
}

}  // namespace idgen::pg
