// id_gen: module magic and per-backend state shared by every generator.
#include "module.h"

#include "boundary.h"

extern "C" {
#include "miscadmin.h"
PG_MODULE_MAGIC;
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
