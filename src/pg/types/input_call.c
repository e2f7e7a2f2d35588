/*
 * id_gen: a type's input function called so that its error comes back as data (input_call.h).
 *
 * This file is C, not C++: before PostgreSQL 16 the only way to catch an input function's error
 * is PG_TRY around a subtransaction, and the boundary rule keeps PG_TRY out of C++ code (a
 * longjmp must never cross a C++ frame that could hold an object with a destructor). Nothing here
 * touches the C++ core.
 */
#include "postgres.h"

#include "access/xact.h"
#include "fmgr.h"
#include "utils/elog.h"
#include "utils/memutils.h"
#include "utils/resowner.h"

#include "pg/base/compat.h"
#include "pg/types/input_call.h"

#if IDGEN_HAVE_SOFT_INPUT_ERRORS

/* 16 and later: the input function saves its error in an ErrorSaveContext, as pg_input_is_valid
 * does it. An input function that does not support soft errors raises them, as there. */
bool
idgen_input_call(FmgrInfo *proc, char *str, Oid typioparam, int32 typmod, ErrorData **error)
{
	ErrorSaveContext escontext = {T_ErrorSaveContext};
	Datum		converted;

	escontext.details_wanted = (error != NULL);
	if (InputFunctionCallSafe(proc, str, typioparam, typmod, (Node *) &escontext, &converted))
		return true;
	if (error != NULL)
		*error = escontext.error_data;
	return false;
}

#else

/*
 * The errors an input function reports softly on 16: what is wrong with the text itself.
 * Class 22 (data exception: malformed input, out of range, bad encoding), class 23 (a domain's
 * CHECK or NOT NULL constraint) and class 42 (a reg* type naming an object that does not exist),
 * and 54000 (input too large for the type: an array with too many dimensions, a tsvector over
 * its size limit). Everything else (query cancel 57014, out of memory 53200, internal errors
 * XX000, deadlocks, ...) is raised, as 16's pg_input_is_valid raises it.
 */
static bool
is_input_error(int sqlerrcode)
{
	const int	category = ERRCODE_TO_CATEGORY(sqlerrcode);

	return category == ERRCODE_DATA_EXCEPTION ||
		category == ERRCODE_INTEGRITY_CONSTRAINT_VIOLATION ||
		category == ERRCODE_SYNTAX_ERROR_OR_ACCESS_RULE_VIOLATION ||
		sqlerrcode == ERRCODE_PROGRAM_LIMIT_EXCEEDED;
}

/*
 * 15: the input function runs inside an internal subtransaction, as a PL/pgSQL block with an
 * EXCEPTION clause runs its statements. If it raises, the subtransaction is rolled back (which
 * releases whatever the function had acquired: locks, buffer pins, catalog cache references) and
 * the error is copied out. A subtransaction cannot start while the backend is in parallel mode,
 * which is why id_gen_input_is_valid() is PARALLEL UNSAFE.
 */
bool
idgen_input_call(FmgrInfo *proc, char *str, Oid typioparam, int32 typmod, ErrorData **error)
{
	MemoryContext caller_context = CurrentMemoryContext;
	ResourceOwner caller_owner = CurrentResourceOwner;
	volatile bool valid = false;
	ErrorData  *edata = NULL;

	BeginInternalSubTransaction(NULL);
	/* The input function allocates its result where the caller expects it. */
	MemoryContextSwitchTo(caller_context);

	PG_TRY();
	{
		(void) InputFunctionCall(proc, str, typioparam, typmod);
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(caller_context);
		CurrentResourceOwner = caller_owner;
		valid = true;
	}
	PG_CATCH();
	{
		/* Copy the error out of ErrorContext, which FlushErrorState resets. */
		MemoryContextSwitchTo(caller_context);
		edata = CopyErrorData();
		FlushErrorState();

		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(caller_context);
		CurrentResourceOwner = caller_owner;

		if (!is_input_error(edata->sqlerrcode))
			ReThrowError(edata);
	}
	PG_END_TRY();

	if (!valid && error != NULL)
		*error = edata;
	else if (edata != NULL)
		FreeErrorData(edata);
	return valid;
}

#endif
