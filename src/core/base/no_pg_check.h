// Included last by every file in src/core: the core must stay free of PostgreSQL headers, so
// that nothing in it can ereport (longjmp) over a C++ object or depend on server internals.
#pragma once

#if defined(POSTGRES_H) || defined(C_H) || defined(PG_CONFIG_H) || defined(FMGR_H)
#error "src/core must not include PostgreSQL headers; put server calls in src/pg"
#endif
static_assert(true, "src/core is PostgreSQL-free");
