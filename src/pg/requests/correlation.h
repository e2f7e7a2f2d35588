// id_gen: correlation IDs in the server (see correlation.cpp and src/core/requests/correlation.h).
#pragma once

namespace idgen::pg {

// From _PG_init, before the id_gen. prefix is reserved: defines id_gen.correlation_id, installs
// the log hook (every load) and, while preloading, requests the shared counter table.
void correlation_init();

}  // namespace idgen::pg
