// id_gen: the backend's entropy pool. See backend_entropy.h.
#include "pg/generators/backend_entropy.h"

#include <cstddef>

extern "C" {
#include "postgres.h"
#include "miscadmin.h"
}

namespace idgen::pg {

EntropyPool& backend_entropy() noexcept {
    // Never filled in the postmaster: the first draw happens in a backend, and a pool inherited
    // across fork is discarded because its owner is not this process. The owner is process_id()
    // (getpid()), not MyProcPid, which a process forked from a backend (a procedural language that
    // calls fork()) keeps: two such processes would hand out the same keystream.
    static EntropyPool pool;
    pool.set_owner(process_id());
    return pool;
}

}  // namespace idgen::pg

// For the test hook in test_fork.c (C): n bytes of the pool of this process.
extern "C" bool id_gen_backend_entropy_fill(unsigned char* out, std::size_t n) noexcept {
    return idgen::pg::backend_entropy().fill(out, n);
}
