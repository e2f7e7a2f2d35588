-- TraceId bounds and the hand-raised mark (0.3.0): trace_id_lower/upper on known seconds and at
-- the period's wrap, what they bracket, their errors; trace_id_raise_mark's properties, errors,
-- labels and privileges. The test cluster preloads id_gen and is node 1.
SET client_min_messages = warning;
SET timezone = 'UTC';
\set VERBOSITY default
\set SHOW_CONTEXT never

-- The bounds of 2023-11-14 22:13:20 UTC (1700000000 s): node 0 counter 1, node 65535 counter
-- 4194303, in the second's 25-bit time field; any instant of the second gives the same bounds.
SELECT ((1700000000::bigint % 33554432) << 38) | 1 AS lo, ((1700000000::bigint % 33554432) << 38) | (65535::bigint << 22) | 4194303 AS hi \gset
SELECT trace_id_lower('2023-11-14 22:13:20+00') = :lo AS lower_known,
       trace_id_upper('2023-11-14 22:13:20+00') = :hi AS upper_known,
       trace_id_lower('2023-11-14 22:13:20.999999+00') = :lo AS lower_whole_second,
       trace_id_upper('2023-11-14 22:13:20.999999+00') = :hi AS upper_whole_second,
       trace_id_upper('2023-11-14 22:13:21+00') = :hi + (1::bigint << 38) AS next_second;
SELECT trace_id_node(trace_id_lower(t)) AS lo_node, trace_id_counter(trace_id_lower(t)) AS lo_counter,
       trace_id_node(trace_id_upper(t)) AS hi_node, trace_id_counter(trace_id_upper(t)) AS hi_counter
FROM (VALUES ('2023-11-14 22:13:20.5+00'::timestamptz)) v(t);
-- Every ID of the second lies between them (the README's ID: node 7, counter 5), none of the
-- seconds around it does; each bound reads back as the second, near any time of its period.
SELECT 6123839962090569733 BETWEEN trace_id_lower('2023-11-14 22:13:20.5+00') AND trace_id_upper('2023-11-14 22:13:20.5+00') AS inside,
       6123839962090569733 > trace_id_upper('2023-11-14 22:13:19.999+00') AS above_previous,
       6123839962090569733 < trace_id_lower('2023-11-14 22:13:21+00') AS below_next;
SELECT bool_and(trace_id_time(trace_id_lower(t), t) = date_trunc('second', t)
                AND trace_id_time(trace_id_upper(t), t) = date_trunc('second', t)
                AND trace_id_time(trace_id_upper(t), t + interval '100 days') = date_trunc('second', t)) AS round_trip,
       count(DISTINCT trace_id_lower(t)) AS distinct_lowers
FROM generate_series('2023-11-14 22:13:20.25+00'::timestamptz, '2024-11-14 22:13:20+00', interval '7 days 1 hour 1.5 s') t;
-- The period wraps every 2^25 s: the first second of a period has the smallest bounds of all (1
-- is the smallest TraceId), the last one the largest; 1970-01-01 starts the first period.
SELECT trace_id_lower(to_timestamp(33554432)) AS wrap_lower, trace_id_lower('1970-01-01 00:00:00+00') AS epoch_lower,
       trace_id_upper(to_timestamp(33554431)) = 9223372036854775807 AS last_second_is_max,
       trace_id_lower(to_timestamp(33554432 * 52 + 5)) = trace_id_lower(to_timestamp(5)) AS same_bits_each_period;
-- Errors: before 1970 no TraceId exists (22003, naming the time); an infinite time is 22008.
SELECT trace_id_lower('1969-12-31 23:59:59.5+00');
SELECT trace_id_upper('-infinity');
\set VERBOSITY sqlstate
SELECT trace_id_lower('1969-12-31 23:59:59+00');
SELECT trace_id_upper('1969-12-31 23:59:59+00');
SELECT trace_id_lower('infinity');
SELECT trace_id_upper('infinity');
\set VERBOSITY default
SELECT trace_id_lower(NULL) IS NULL AS lower_strict, trace_id_upper(NULL) IS NULL AS upper_strict;

-- trace_id_raise_mark(above): an ID 2 s ahead of the clock (as restored from a server whose clock
-- ran ahead); the mark is its second, and every TraceId issued after it is above it.
SELECT trace_id_upper(clock_timestamp() + interval '2 s') AS ahead \gset
SELECT trace_id_raise_mark(:ahead) = trace_id_time(:ahead) AS mark_is_its_second;
SELECT count(*) FILTER (WHERE id <= :ahead) AS at_or_below, count(DISTINCT id) AS distinct_ids
FROM (SELECT gen_trace_id() AS id FROM generate_series(1, 1000)) s;
-- A lower ID leaves the mark where it is (never moves back).
SELECT trace_id_raise_mark(trace_id_lower(now() - interval '1 hour')) >= trace_id_time(:ahead) AS not_back;
-- Errors: not a TraceId (0, negative, counter 0) 22003 naming it; more than a day ahead 22003.
SELECT trace_id_raise_mark(0);
SELECT trace_id_raise_mark(1700000000::bigint << 38);
\set VERBOSITY sqlstate
SELECT trace_id_raise_mark(trace_id_upper(clock_timestamp() + interval '30 hours'));
SELECT trace_id_raise_mark(-6123839962090569733);
SELECT trace_id_raise_mark(trace_id_upper(clock_timestamp() + interval '2 days'));
BEGIN READ ONLY;
SELECT trace_id_raise_mark(trace_id_lower(now()));
ROLLBACK;
\set VERBOSITY default
SELECT trace_id_raise_mark(NULL) IS NULL AS raise_strict;
-- Labels and privileges: a generator-state writer, not for PUBLIC.
SELECT p.oid::regprocedure AS function, p.provolatile, p.proparallel, p.proisstrict, p.prorettype::regtype AS returns,
       has_function_privilege('public', p.oid, 'EXECUTE') AS public_may_execute
FROM pg_proc p WHERE p.proname IN ('trace_id_lower', 'trace_id_upper', 'trace_id_raise_mark') ORDER BY 1;
