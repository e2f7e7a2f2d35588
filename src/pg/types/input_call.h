// id_gen: calling a type's input function without letting its error escape (input_call.c).
// Plain C, included inside the extern "C" block of PostgreSQL headers of a glue file.
#pragma once

#include "postgres.h"
#include "fmgr.h"

// Runs the input function `proc` on `str` (as InputFunctionCall would, with `typioparam` and
// `typmod`). Returns true if the input is valid. Returns false if the input function reported
// the kind of error PostgreSQL 16 reports softly (see input_call.c); then, if `error` is not NULL,
// *error is that error, allocated in the caller's memory context. Any other error is raised.
bool idgen_input_call(FmgrInfo* proc, char* str, Oid typioparam, int32 typmod, ErrorData** error);
