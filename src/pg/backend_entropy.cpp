// id_gen: the backend's entropy pool. See backend_entropy.h.
#include "backend_entropy.h"

extern "C" {
#include "postgres.h"
#include "miscadmin.h"
}

namespace idgen::pg {

EntropyPool& backend_entropy() noexcept {
    // Never filled in the postmaster: the first draw happens in a backend, and a pool inherited
    // across fork is discarded because its owner pid no longer matches MyProcPid.
    static EntropyPool pool;
    pool.set_owner(MyProcPid);
    return pool;
}

}  // namespace idgen::pg
