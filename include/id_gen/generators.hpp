// id_gen C++ library: generators.
//
// Thread safety and order, per generator object:
//   * next() may be called from any number of threads at once. Each object has one lock; every
//     ID is issued under it, so the IDs one object issues are unique and strictly increasing in
//     the order they were issued: an ID returned before another call began is smaller than that
//     call's ID, whichever threads made the calls.
//   * Two objects are independent (no shared state, no shared lock): give each thread its own
//     generator for no contention, at the price of order across threads within a millisecond.
//     new_ulid() and new_uuidv7() use one process-wide generator each.
//   * Randomness comes from the kernel CSPRNG (getrandom(2)), drawn in 4 KiB blocks per object;
//     bytes are erased from the block as they are handed out.
//   * After fork(), a ULID or UUIDv7 generator in the child drops its random block and (ULID) its
//     last ID, so parent and child never issue the same ID. A snowflake generator refuses in the
//     child (errc::forked): parent and child would share the node number. As with any mutex, a
//     generator that another thread was using at the moment of fork() stays locked in the child.
//
// The generators are declared with their kinds (ulid.hpp, uuid.hpp, snowflake.hpp); this header
// includes those.
#pragma once

#include "id_gen/ids.hpp"
#include "id_gen/snowflake.hpp"
#include "id_gen/ulid.hpp"
#include "id_gen/uuid.hpp"
