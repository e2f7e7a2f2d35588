-- Per-process state after a bare fork(). A procedural language that calls fork() makes a process
-- with the backend's memory and its MyProcPid: the entropy pool and every generator's state are
-- kept per process (getpid()), so the two processes never draw the same bytes or make the same
-- IDs. The test hook (test clusters only: id_gen.enable_test_clock = on) calls a generator once,
-- forks, and has both processes call it again; it counts the child's values that the parent
-- also made.
\set VERBOSITY default
\set SHOW_CONTEXT never
CREATE FUNCTION id_gen_test_fork_overlap(fn regprocedure, calls int) RETURNS int
    AS '$libdir/id_gen', 'id_gen_test_fork_overlap' LANGUAGE C;
SELECT id_gen_test_fork_overlap(NULL, 300) AS pool_bytes;
-- Within a second a KSUID adds 1 to the last payload (a ULID within a millisecond adds 1 to its
-- random part): with the parent's state, the child would make the parent's next IDs.
SELECT g AS generator, id_gen_test_fork_overlap(g::regprocedure, 300) AS shared_values
FROM unnest(ARRAY['gen_ulid()', 'gen_uuidv7()', 'public.uuidv6()', 'gen_ksuid()', 'gen_xid()', 'gen_objectid()']) g;
-- Its errors: not a generator of no arguments.
SELECT id_gen_test_fork_overlap('gen_ulid(timestamptz)', 1);
SELECT id_gen_test_fork_overlap('gen_ulid()', 0);
DROP FUNCTION id_gen_test_fork_overlap(regprocedure, int);
