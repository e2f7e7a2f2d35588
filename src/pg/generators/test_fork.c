/*
 * id_gen: a test hook for the per-process state of the generators, refused unless the server runs
 * with id_gen.enable_test_clock = on (test clusters only), like the test clock. The extension
 * declares no SQL function for it; a test declares one (a C function: superuser only):
 *
 *   CREATE FUNCTION id_gen_test_fork_overlap(fn regprocedure, calls int) RETURNS int
 *       AS '$libdir/id_gen', 'id_gen_test_fork_overlap' LANGUAGE C;
 *
 * The backend calls `fn` (a function of no arguments: a generator) once, so its state and the
 * backend's entropy pool are in use, then forks as a procedural language that calls fork() would:
 * the child keeps MyProcPid and every global. Child and parent each call `fn` `calls` times; the
 * result is how many of the child's values the parent also made (0: the two processes share no
 * state). With `fn` NULL, each draws 16 bytes from the backend's entropy pool per call instead.
 *
 * This file is C, not C++: the child runs the calls under PG_TRY, so that an error there ends the
 * child (_exit) instead of unwinding into the parent's copy of the backend; the boundary rule keeps
 * PG_TRY out of C++ code. The child touches no catalog, lock or shared memory: the function and its
 * result type's output function are looked up before the fork.
 */
#include "postgres.h"

#include <sys/wait.h>
#include <unistd.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"

/* backend_entropy.cpp: n bytes of the backend's entropy pool; false if none could be had. */
extern bool id_gen_backend_entropy_fill(unsigned char *out, size_t n);

PG_FUNCTION_INFO_V1(id_gen_test_fork_overlap);

#define FORK_DRAW_BYTES 16

typedef struct ForkCall
{
	bool		bytes;			/* draw from the pool instead of calling a function */
	FmgrInfo	fn;
	FmgrInfo	out;
} ForkCall;

/* One value as text (palloc'd). Raises on failure. */
static char *
one_value(ForkCall *c)
{
	if (c->bytes)
	{
		unsigned char raw[FORK_DRAW_BYTES];
		char	   *hex = palloc(2 * FORK_DRAW_BYTES + 1);
		static const char digits[] = "0123456789abcdef";

		if (!id_gen_backend_entropy_fill(raw, sizeof raw))
			elog(ERROR, "could not draw from the entropy pool");
		for (int i = 0; i < FORK_DRAW_BYTES; i++)
		{
			hex[2 * i] = digits[raw[i] >> 4];
			hex[2 * i + 1] = digits[raw[i] & 0xF];
		}
		hex[2 * FORK_DRAW_BYTES] = '\0';
		return hex;
	}
	return OutputFunctionCall(&c->out, FunctionCall0Coll(&c->fn, InvalidOid));
}

/* The child: `calls` values, one a line, written to `fd`; then _exit (0, or 2 on any error). */
static void
child_main(ForkCall *c, int calls, int fd)
{
	PG_TRY();
	{
		for (int i = 0; i < calls; i++)
		{
			char	   *v = one_value(c);
			size_t		len = strlen(v);

			v[len] = '\n';	/* replaces the terminator: written as one line */
			for (size_t done = 0; done <= len;)
			{
				ssize_t		w = write(fd, v + done, len + 1 - done);

				if (w < 0 && errno == EINTR)
					continue;
				if (w <= 0)
					_exit(3);
				done += (size_t) w;
			}
		}
	}
	PG_CATCH();
	{
		_exit(2);
	}
	PG_END_TRY();
	_exit(0);
}

Datum
id_gen_test_fork_overlap(PG_FUNCTION_ARGS)
{
	const char *enabled = GetConfigOption("id_gen.enable_test_clock", true, false);
	ForkCall	c;
	int			calls;
	int			pipefd[2];
	pid_t		child;
	char	  **mine;
	StringInfoData theirs;
	int			status;
	int			overlap = 0;
	int			lines = 0;
	char	   *line;

	if (enabled == NULL || strcmp(enabled, "on") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("id_gen_test_fork_overlap() is a test hook"),
				 errhint("It runs only on a server started with id_gen.enable_test_clock = on (test clusters).")));
	if (!superuser())
		ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE), errmsg("id_gen_test_fork_overlap() is for superusers")));
	if (PG_ARGISNULL(1) || PG_GETARG_INT32(1) < 1 || PG_GETARG_INT32(1) > 10000)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("calls must be from 1 to 10000")));
	calls = PG_GETARG_INT32(1);

	memset(&c, 0, sizeof c);
	c.bytes = PG_ARGISNULL(0);
	if (!c.bytes)
	{
		Oid			fn = PG_GETARG_OID(0);
		Oid			out;
		bool		varlena;

		fmgr_info(fn, &c.fn);
		if (c.fn.fn_nargs != 0 || c.fn.fn_retset)
			ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							errmsg("%s is not a function of no arguments returning one value", format_procedure(fn))));
		getTypeOutputInfo(get_func_rettype(fn), &out, &varlena);
		fmgr_info(out, &c.out);
	}

	/* The state in use before the fork. */
	(void) one_value(&c);

	mine = palloc(sizeof(char *) * calls);
	if (pipe(pipefd) != 0)
		elog(ERROR, "could not create a pipe: %m");
	fflush(NULL);
	child = fork();
	if (child < 0)
	{
		close(pipefd[0]);
		close(pipefd[1]);
		elog(ERROR, "could not fork: %m");
	}
	if (child == 0)
	{
		close(pipefd[0]);
		child_main(&c, calls, pipefd[1]);
	}
	close(pipefd[1]);

	/*
	 * The parent's values, then the child's (the pipe holds what the child wrote meanwhile; it
	 * waits when the pipe is full). An error here leaves the child to end on a broken pipe or
	 * after its last write; it is reaped below only on success.
	 */
	for (int i = 0; i < calls; i++)
		mine[i] = one_value(&c);
	initStringInfo(&theirs);
	for (;;)
	{
		char		buf[4096];
		ssize_t		r = read(pipefd[0], buf, sizeof buf);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		appendBinaryStringInfo(&theirs, buf, (int) r);
	}
	close(pipefd[0]);
	while (waitpid(child, &status, 0) < 0)
	{
		if (errno != EINTR)
			elog(ERROR, "could not wait for the forked process: %m");
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		elog(ERROR, "the forked process failed (status %d)", status);

	line = theirs.data;
	while (line < theirs.data + theirs.len)
	{
		char	   *end = strchr(line, '\n');

		if (end == NULL)
			break;
		*end = '\0';
		lines++;
		for (int i = 0; i < calls; i++)
		{
			if (strcmp(line, mine[i]) == 0)
			{
				overlap++;
				break;
			}
		}
		line = end + 1;
	}
	if (lines != calls)
		elog(ERROR, "the forked process made %d values, not %d", lines, calls);
	PG_RETURN_INT32(overlap);
}
