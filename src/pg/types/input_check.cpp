// id_gen: SQL entry points id_gen_input_is_valid(text, text) and id_gen_input_error_info(text, text):
// PostgreSQL 16's pg_input_is_valid() and pg_input_error_info() on every server version, for any
// type (id_gen's and every other). The input function is called by input_call.c: with an
// ErrorSaveContext on 16 and later, inside a subtransaction on 15.
#include "pg/base/boundary.h"

extern "C" {
#include "access/htup_details.h"
#include "funcapi.h"
#include "parser/parse_type.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "pg/types/input_call.h"
}

namespace {

// The input function of the type named by the second argument, kept in fn_extra across the calls
// of one query (as pg_input_is_valid keeps it). Trivially destructible: it lives in fn_mcxt.
struct InputTarget {
    Oid typoid;
    int32 typmod;
    Oid typioparam;
    bool typname_constant;
    FmgrInfo proc;
};
static_assert(std::is_trivially_destructible_v<InputTarget>);

// Looks the type up the first time, and again on each call when the type name is not a constant.
// An unknown type name raises (42704), a malformed one 42601: the type is not the input tested.
InputTarget* input_target(FunctionCallInfo fcinfo) {
    auto* t = static_cast<InputTarget*>(fcinfo->flinfo->fn_extra);
    if (t == nullptr) {
        t = static_cast<InputTarget*>(MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(InputTarget)));
        t->typoid = InvalidOid;
        t->typname_constant = get_fn_expr_arg_stable(fcinfo->flinfo, 1);
        fcinfo->flinfo->fn_extra = t;
    }
    if (t->typoid == InvalidOid || !t->typname_constant) {
        const char* name = text_to_cstring(PG_GETARG_TEXT_PP(1));
        Oid typoid = InvalidOid;
        int32 typmod = -1;
        (void)IDGEN_PARSE_TYPE_STRING(name, &typoid, &typmod);
        if (typoid != t->typoid) {
            Oid func = InvalidOid;
            t->typoid = InvalidOid;  // until the lookup below has succeeded
            getTypeInputInfo(typoid, &func, &t->typioparam);
            fmgr_info_cxt(func, &t->proc, fcinfo->flinfo->fn_mcxt);
            t->typoid = typoid;
        }
        t->typmod = typmod;
    }
    return t;
}

}  // namespace

IDGEN_FUNCTION(id_gen_input_is_valid) {
    char* value = text_to_cstring(PG_GETARG_TEXT_PP(0));
    InputTarget* t = input_target(fcinfo);
    PG_RETURN_BOOL(idgen_input_call(&t->proc, value, t->typioparam, t->typmod, nullptr));
}

// One row (message, detail, hint, sql_error_code): all NULL when the input is valid.
IDGEN_FUNCTION(id_gen_input_error_info) {
    char* value = text_to_cstring(PG_GETARG_TEXT_PP(0));
    TupleDesc desc = nullptr;
    if (get_call_result_type(fcinfo, nullptr, &desc) != TYPEFUNC_COMPOSITE)
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("return type must be a row type")));
    desc = BlessTupleDesc(desc);
    InputTarget* t = input_target(fcinfo);
    ErrorData* error = nullptr;
    Datum values[4] = {0, 0, 0, 0};
    bool nulls[4] = {true, true, true, true};
    if (!idgen_input_call(&t->proc, value, t->typioparam, t->typmod, &error) && error != nullptr) {
        if (error->message != nullptr) {
            values[0] = CStringGetTextDatum(error->message);
            nulls[0] = false;
        }
        if (error->detail != nullptr) {
            values[1] = CStringGetTextDatum(error->detail);
            nulls[1] = false;
        }
        if (error->hint != nullptr) {
            values[2] = CStringGetTextDatum(error->hint);
            nulls[2] = false;
        }
        values[3] = CStringGetTextDatum(unpack_sql_state(error->sqlerrcode));
        nulls[3] = false;
    }
    return HeapTupleGetDatum(heap_form_tuple(desc, values, nulls));
}
