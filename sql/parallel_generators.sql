-- Generators and parallel query. A parallel worker is a backend of its own, with monotonic state
-- of its own: a generator whose IDs strictly increase within a session is PARALLEL RESTRICTED, so
-- every call runs in the session's backend (a parallel plan still scans in its workers). The
-- others are PARALLEL SAFE (no order to keep: random, or a given time) or PARALLEL UNSAFE (shared
-- state, settings). Output is deterministic: IDs are checked through properties.
SET client_min_messages = warning;
\set VERBOSITY default
\set SHOW_CONTEXT never

-- The labels of every generator (and every VOLATILE function that may run in a worker at all).
-- (Named without their schema: on 18, core has uuidv4() and uuidv7() too.)
SELECT p.proname || '(' || oidvectortypes(p.proargtypes) || ')' AS function, p.proparallel AS parallel
FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'id_gen'
WHERE p.provolatile = 'v'
  AND (p.proparallel <> 'u' OR p.proname ~ '^(gen_|uuidv|correlation_)' OR p.prosrc ~ '^gen_')
ORDER BY p.proname || '(' || oidvectortypes(p.proargtypes) || ')' COLLATE "C";

-- Created ID types get their kind's label (their generators are the kinds' C functions).
SELECT create_id_type('par_ulid', kind => 'ulid', prefix => 'pau') IS NOT NULL AS made,
       create_id_type('par_uuidv7', kind => 'uuidv7', prefix => 'pav') IS NOT NULL AS made,
       create_id_type('par_ksuid', kind => 'ksuid', prefix => 'pak') IS NOT NULL AS made,
       create_id_type('par_xid', kind => 'xid', prefix => 'pax') IS NOT NULL AS made,
       create_id_type('par_snowflake', kind => 'snowflake', prefix => 'pas') IS NOT NULL AS made;
SELECT p.oid::regprocedure AS function, p.proparallel AS parallel
FROM pg_proc p WHERE p.proname LIKE 'gen\_par\_%' ORDER BY p.proname COLLATE "C";

-- Parallel query forced on (force_parallel_mode on 15, debug_parallel_query from 16), with a
-- plain table that a parallel plan scans in its workers.
SELECT set_config(CASE WHEN current_setting('server_version_num')::int >= 160000 THEN 'debug_parallel_query'
                       ELSE 'force_parallel_mode' END, 'on', false) AS parallel_forced;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;  -- the workers scan every row
-- (Under debug_discard_caches, a server with assertions in the long test run, every statement
-- and worker rebuilds its caches: fewer rows and statements there, below and in
-- check_generators(); what is printed does not depend on them.)
SELECT CASE WHEN current_setting('debug_discard_caches')::int > 0 THEN 2000 ELSE 20000 END AS n_src \gset
CREATE TABLE parallel_src AS SELECT g AS n FROM generate_series(1, :n_src) g;
ANALYZE parallel_src;
SELECT prefix_register('pst', 'parallel test') IS NULL AS registered;

CREATE FUNCTION pg_temp.plan_of(q text, with_analyze boolean) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
    p jsonb;
BEGIN
    EXECUTE pg_catalog.format('EXPLAIN (ANALYZE %s, VERBOSE, COSTS OFF, FORMAT JSON) %s', CASE WHEN with_analyze THEN 'on' ELSE 'off' END, q) INTO p;
    RETURN p;
END
$$;
-- For generator calls `exprs`: whether the plan of a scan with the call in its target list has
-- workers (with `with_analyze`: whether they were launched) and whether a worker evaluates the call
-- (a plan node below a Gather outputs it), each call planned on its own (a PARALLEL RESTRICTED
-- call in a target list keeps all of it above the Gather); how often an ID of the scan's rows, in
-- the order the session made them, is not above the one before (all calls in one scan, so one set
-- of workers); how often one of 20 statements in a row (each planned with a Gather when it may) is
-- not above the one before. Compared as text under "C": every kind's text order is its ID order.
CREATE FUNCTION pg_temp.check_generators(exprs text[], with_analyze boolean DEFAULT false)
RETURNS TABLE (generator text, parallel_scan boolean, called_in_worker boolean, scan_not_increasing bigint,
               statements_not_increasing int)
LANGUAGE plpgsql AS $$
DECLARE
    p jsonb;
    counts bigint[];
    a text;
    b text;
BEGIN
    EXECUTE pg_catalog.format(
        'SELECT ARRAY[%s] FROM (SELECT %s FROM (SELECT row_number() OVER () AS rn, * FROM (SELECT %s FROM parallel_src) s) r) l',
        (SELECT pg_catalog.string_agg(pg_catalog.format('count(*) FILTER (WHERE g%s <= p%s COLLATE "C")', i, i), ', ' ORDER BY i)
           FROM generate_subscripts(exprs, 1) i),
        (SELECT pg_catalog.string_agg(pg_catalog.format('g%s, lag(g%s) OVER (ORDER BY rn) AS p%s', i, i, i), ', ' ORDER BY i)
           FROM generate_subscripts(exprs, 1) i),
        (SELECT pg_catalog.string_agg(pg_catalog.format('(%s)::text AS g%s', e, i), ', ' ORDER BY i)
           FROM unnest(exprs) WITH ORDINALITY u(e, i))) INTO counts;
    FOR i IN 1..pg_catalog.array_length(exprs, 1) LOOP
        generator := exprs[i];
        p := pg_temp.plan_of(pg_catalog.format('SELECT (%s)::text FROM parallel_src', exprs[i]), with_analyze);
        parallel_scan := (SELECT pg_catalog.max(w::int) > 0
                            FROM jsonb_path_query(p, CASE WHEN with_analyze THEN '$.**."Workers Launched"' ELSE '$.**."Workers Planned"' END::jsonpath) w);
        called_in_worker := EXISTS (
            SELECT 1 FROM jsonb_path_query(p, '$.** ? (@."Node Type" == "Gather" || @."Node Type" == "Gather Merge").Plans.**.Output[*]') o
             WHERE o #>> '{}' ~ ('(^|[^a-z_0-9])' || substring(exprs[i] FROM '([a-z_0-9]+)\(') || '\('));
        scan_not_increasing := counts[i];
        statements_not_increasing := 0;
        a := NULL;
        FOR j IN 1..CASE WHEN pg_catalog.current_setting('debug_discard_caches')::int > 0 THEN 3 ELSE 20 END LOOP
            EXECUTE pg_catalog.format('SELECT (%s)::text', exprs[i]) INTO STRICT b;
            IF b <= a COLLATE "C" THEN
                statements_not_increasing := statements_not_increasing + 1;
            END IF;
            a := b;
        END LOOP;
        RETURN NEXT;
    END LOOP;
END
$$;

-- The session's own backend makes every ID: they increase in the order made.
SELECT * FROM pg_temp.check_generators(ARRAY['gen_ulid()', 'gen_uuidv7()', 'gen_uuidv7(''-1 hour'')', 'public.uuidv7()',
                                             'public.uuidv7(''-1 hour'')', 'public.uuidv6()', 'gen_ksuid()', 'gen_xid()',
                                             'gen_prefixed(''pst'')', 'gen_prefixed(''pst'', ''base62'')']);
-- A parallel CREATE TABLE AS: the workers scan, the session makes the IDs, in the table's order.
SELECT jsonb_path_exists(p, '$.** ? (@."Node Type" == "Gather")') AS parallel_scan,
       EXISTS (SELECT 1 FROM jsonb_path_query(p, '$.** ? (@."Node Type" == "Gather").Plans.**.Output[*]') o
                WHERE o #>> '{}' ~ 'gen_(ulid|uuidv7)\(') AS called_in_worker
FROM pg_temp.plan_of('CREATE TABLE parallel_ctas AS SELECT n, gen_ulid() AS u, gen_uuidv7() AS v FROM parallel_src', false) p;
CREATE TABLE parallel_ctas AS SELECT n, gen_ulid() AS u, gen_uuidv7() AS v FROM parallel_src;
SELECT count(*) = :n_src AS rows, count(*) FILTER (WHERE u <= pu) AS ulid_not_increasing, count(*) FILTER (WHERE v <= pv) AS uuidv7_not_increasing
FROM (SELECT u, v, lag(u) OVER (ORDER BY ctid) AS pu, lag(v) OVER (ORDER BY ctid) AS pv FROM parallel_ctas) s;
DROP TABLE parallel_ctas;
-- All of one session's xids carry its backend's process ID.
SELECT count(*) = :n_src AS ids, count(DISTINCT xid_pid(id)) AS process_ids, bool_and(xid_pid(id) = pg_backend_pid() % 65536) AS this_backend
FROM (SELECT row_number() OVER () AS rn, id FROM (SELECT gen_xid() AS id FROM parallel_src) s) r;

-- A PARALLEL SAFE generator does run in the workers, which this setting launches (the check above
-- sees it).
SELECT parallel_scan AS workers_launched, called_in_worker
FROM pg_temp.check_generators(ARRAY['gen_ulid(now())'], with_analyze => true);

RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;
SELECT set_config(CASE WHEN current_setting('server_version_num')::int >= 160000 THEN 'debug_parallel_query'
                       ELSE 'force_parallel_mode' END, 'off', false) AS parallel_forced;
DROP TABLE parallel_src;
SELECT prefix_unregister('pst') AS unregistered;
SELECT count(*) AS dropped FROM (SELECT drop_id_type(t)
FROM unnest(ARRAY['par_ulid', 'par_uuidv7', 'par_ksuid', 'par_xid', 'par_snowflake']::regtype[]) t) s;
