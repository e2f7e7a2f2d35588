// id_gen: module magic and _PG_init.
#include "pg/base/boundary.h"
#include "pg/generators/generators.h"
#include "pg/registries/permute.h"
#include "pg/requests/correlation.h"

extern "C" {
PG_MODULE_MAGIC;
void _PG_init(void);
}

// Settings under the reserved id_gen. prefix (the generator ones reserve the prefix, so every
// setting is defined before them), the log hook of correlation IDs, and (only while preloading)
// the shared-memory requests of the correlation counters and the generator state store.
extern "C" void _PG_init(void) {
    idgen::pg::correlation_init();
    idgen::pg::permute_define_settings();
    idgen::pg::generator_define_settings();
}
