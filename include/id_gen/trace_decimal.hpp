// id_gen C++ library: TraceId and DecimalId (SQL: bigint from gen_trace_id() / gen_decimal_id()).
// Both are made on the server (their uniqueness rests on server state: the node number, the
// launch and the generator numbers it grants); here they are read, checked and written.
//
//   TraceId    Unix seconds mod 2^25 << 38 | node (16 bits) << 22 | counter (22 bits, from 1)
//   DecimalId  counter * 10^10 + generator * 10^5 + launch, in decimal c...cggggglllll
//
// One header per kind (trace_id.hpp, decimal_id.hpp); this one includes both.
#pragma once

#include "id_gen/decimal_id.hpp"
#include "id_gen/trace_id.hpp"
