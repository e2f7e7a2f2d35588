// id_gen: module magic and per-backend state shared by every generator.
#include "module.h"

#include "boundary.h"
#include "correlation.h"
#include "permute.h"
#include "snowflake_state.h"

extern "C" {
#include "miscadmin.h"
PG_MODULE_MAGIC;
void _PG_init(void);
}

// Settings under the reserved id_gen. prefix (the snowflake ones reserve the prefix, so every
// setting is defined before them), the log hook of correlation IDs, and (only while preloading)
// the shared-memory requests of the correlation counters and the snowflake generators.
extern "C" void _PG_init(void) {
    idgen::pg::correlation_init();
    idgen::pg::permute_define_settings();
    idgen::pg::snowflake_define_settings();
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
