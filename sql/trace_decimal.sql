-- TraceId and DecimalId: generators (properties only), decoders on known values, the validator,
-- errors and labels. The test cluster preloads id_gen, is node 1 and launch 1.
SET client_min_messages = warning;
\set VERBOSITY default
\set SHOW_CONTEXT never

-- Labels: generators VOLATILE PARALLEL UNSAFE; decoders and the validator IMMUTABLE STRICT PARALLEL SAFE.
SELECT p.oid::regprocedure AS function, p.provolatile, p.proparallel, p.proisstrict, p.prorettype::regtype AS returns
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'id_gen'
WHERE p.proname ~ '^(gen_trace_id|gen_decimal_id|trace_id_|decimal_id_)'
ORDER BY p.oid::regprocedure::text;
SELECT p.oid::regprocedure AS function, pg_get_function_arguments(p.oid) AS arguments
FROM pg_proc p WHERE p.proname IN ('trace_id_time', 'trace_id_is_valid') ORDER BY 1;

-- TraceId layout on a known value: 1700000000 s (2023-11-14 22:13:20 UTC), node 7, counter 5.
SELECT ((1700000000::bigint % 33554432) << 38) | (7 << 22) | 5 AS known \gset
SELECT :known AS id, trace_id_node(:known) AS node, trace_id_counter(:known) AS counter,
       trace_id_time(:known, '2023-11-14 22:13:20+00') = to_timestamp(1700000000) AS same_second;
-- The time is taken in the 2^25 s period nearest the reference: up to half a period either way.
SELECT trace_id_time(:known, to_timestamp(1700000000 + 16777216)) = to_timestamp(1700000000) AS half_after,
       trace_id_time(:known, to_timestamp(1700000000 + 16777217)) = to_timestamp(1700000000 + 33554432) AS next_period,
       trace_id_time(:known, to_timestamp(1700000000 - 16777215)) = to_timestamp(1700000000) AS under_half_before,
       trace_id_time(:known, to_timestamp(1700000000 - 16777216)) = to_timestamp(1700000000 - 33554432) AS tie_is_earlier,
       trace_id_time(:known, to_timestamp(1700000000 - 16777217)) = to_timestamp(1700000000 - 33554432) AS previous_period;
-- The extremes of each field.
SELECT trace_id_node((1::bigint << 38) | (65535::bigint << 22) | 1) AS node_max,
       trace_id_counter((1::bigint << 38) | 4194303) AS counter_max,
       trace_id_counter(1) AS smallest_id_counter,
       trace_id_time(9223372036854775807, to_timestamp(33554431)) = to_timestamp(33554431) AS largest_id;

-- The validator: 0, the top bit (negative), a counter of 0, and time skew.
SELECT trace_id_is_valid(0) AS zero, trace_id_is_valid(-1) AS negative,
       trace_id_is_valid(-9223372036854775808) AS top_bit_only,
       trace_id_is_valid((1::bigint << 38) | (3 << 22)) AS counter_zero,
       trace_id_is_valid(:known, to_timestamp(1700000000 + 86400)) AS one_day_late,
       trace_id_is_valid(:known, to_timestamp(1700000000 + 86401)) AS too_late,
       trace_id_is_valid(:known, to_timestamp(1700000000 - 3600), '1 hour') AS one_hour_early,
       trace_id_is_valid(:known, to_timestamp(1700000000 - 3601), '1 hour') AS too_early,
       trace_id_is_valid(:known, to_timestamp(1700000000 + 20000000), '1 year') AS any_skew_allowed;
\set VERBOSITY sqlstate
SELECT trace_id_is_valid(:known, now(), '-1 second');
SELECT trace_id_time(:known, 'infinity');
SELECT trace_id_time(0);
SELECT trace_id_node(-1);
SELECT trace_id_counter((1::bigint << 38) | (3 << 22));
\set VERBOSITY default
SELECT trace_id_time(0);
SELECT trace_id_is_valid(:known, now(), '-1 second');

-- gen_trace_id(): node id_gen.node_id, counter >= 1, the clock's second, all distinct, and
-- increasing (one generator per node; a wrap of the 25-bit time could only break this once
-- every 388 days).
CREATE TEMP TABLE t AS SELECT n, gen_trace_id() AS id, clock_timestamp() AS at FROM generate_series(1, 5000) n;
SELECT count(*) AS ids, count(DISTINCT id) AS distinct_ids,
       bool_and(trace_id_node(id) = current_setting('id_gen.node_id')::int) AS node_is_setting,
       bool_and(trace_id_counter(id) >= 1) AS counter_from_1,
       bool_and(trace_id_is_valid(id)) AS valid,
       bool_and(trace_id_time(id) BETWEEN date_trunc('second', at) - interval '2 s' AND at + interval '2 s') AS time_is_clock
FROM t;
SELECT bool_and(id > prev) AS increasing
FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM t) s WHERE prev IS NOT NULL;
DROP TABLE t;

-- DecimalId layout on known values: counter * 10^10 + generator * 10^5 + launch.
SELECT decimal_id_counter(123450000700042) AS counter, decimal_id_generator(123450000700042) AS generator,
       decimal_id_launch(123450000700042) AS launch;
SELECT decimal_id_counter(9223372029999999999) AS counter_max, decimal_id_generator(9223372029999999999) AS generator_max,
       decimal_id_launch(9223372029999999999) AS launch_max, decimal_id_counter(10000000000) AS smallest_counter,
       decimal_id_launch(10000000000) AS test_launch;
\set VERBOSITY sqlstate
SELECT decimal_id_counter(9999999999);
SELECT decimal_id_generator(9223372030000000000);
SELECT decimal_id_launch(0);
SELECT decimal_id_counter(-10000000001);
\set VERBOSITY default
SELECT decimal_id_counter(9999999999);

-- gen_decimal_id(): launch id_gen.launch_id, one generator for the server run (so one generator
-- number, counters consecutive within a backend), all distinct.
CREATE TEMP TABLE d AS SELECT n, gen_decimal_id() AS id FROM generate_series(1, 5000) n;
SELECT count(*) AS ids, count(DISTINCT id) AS distinct_ids,
       bool_and(decimal_id_launch(id) = current_setting('id_gen.launch_id')::int) AS launch_is_setting,
       count(DISTINCT decimal_id_generator(id)) AS generators,
       bool_and(decimal_id_generator(id) BETWEEN 0 AND 99999) AS generator_in_range,
       max(decimal_id_counter(id)) - min(decimal_id_counter(id)) = 4999 AS consecutive_counters
FROM d;
SELECT bool_and(id - prev = 10000000000) AS counter_steps
FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM d) s WHERE prev IS NOT NULL;
DROP TABLE d;

-- Generators refuse in a read-only transaction (they write shared state).
\set VERBOSITY sqlstate
BEGIN READ ONLY;
SELECT gen_trace_id();
ROLLBACK;
BEGIN READ ONLY;
SELECT gen_decimal_id();
ROLLBACK;
\set VERBOSITY default
-- The settings are server-level: a session cannot change them.
SET id_gen.launch_id = 5;
