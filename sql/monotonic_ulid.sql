-- gen_monotonic_ulid(): one order for the server (the order across sessions, restarts and clock
-- steps: test/integration/monotonic_ulid_test.cpp, test/fault/monotonic_ulid_fault_test.cpp).
-- Here: what one statement's ULIDs look like, the raised mark, errors, labels and privileges.
SELECT clock_timestamp() AS t0 \gset
CREATE TEMP TABLE m AS
SELECT n, id, ('x' || substr(replace(id::uuid::text, '-', ''), 1, 16))::bit(64)::bigint AS state,
       ('x' || substr(replace(id::uuid::text, '-', ''), 17, 16))::bit(64) AS random
FROM (SELECT n, gen_monotonic_ulid() AS id FROM generate_series(1, 10000) n) s;
SELECT clock_timestamp() AS t1 \gset
-- Strictly increasing in call order, in their first 64 bits alone (ms << 16 | counter), whose ms is
-- the ULID's time: from the statement's start to at most id_gen.max_run_ahead (1 s) past its end
-- (a generator made afresh, on a new server, starts ahead of the clock by up to that allowance;
-- its clock is never behind); canonical text.
SELECT count(*) AS ids, count(DISTINCT id) AS distinct_ids,
       bool_and(id > prev) AS increasing, bool_and(state > prev_state) AS first_64_bits_increase,
       bool_and(ulid_time(id) = to_timestamp((state >> 16) / 1000.0)) AS time_is_first_48_bits,
       bool_and(ulid_time(id) >= date_trunc('milliseconds', :'t0'::timestamptz)
                AND ulid_time(id) <= :'t1'::timestamptz + interval '1 s') AS within_the_statement,
       bool_and(id::text::ulid = id AND length(id::text) = 26) AS canonical
FROM (SELECT *, lag(id) OVER w AS prev, lag(state) OVER w AS prev_state FROM m WINDOW w AS (ORDER BY n)) s
WHERE n > 1;
-- Within a millisecond the counter counts from 0 by 1: the first ID of each ms has counter 0 and
-- the next ones follow it.
SELECT bool_and(state & 65535 = CASE WHEN state >> 16 = prev_state >> 16 THEN (prev_state & 65535) + 1 ELSE 0 END)
       AS counter_counts
FROM (SELECT state, lag(state) OVER (ORDER BY n) AS prev_state FROM m) s WHERE prev_state IS NOT NULL;
-- The last 64 bits are random: distinct, and each bit is set in 40% to 60% of the ULIDs.
SELECT count(DISTINCT random) AS distinct_random,
       (SELECT bool_and(ones BETWEEN 4000 AND 6000)
          FROM (SELECT b, count(*) FILTER (WHERE get_bit(random, b) = 1) AS ones
                  FROM m, generate_series(0, 63) b GROUP BY b) per_bit) AS bits_balanced
FROM m;

-- monotonic_ulid_raise_mark(above): a ULID 2 s ahead of the clock (carried in from a server whose
-- clock ran ahead); the mark is its millisecond, and every ULID issued after it is of a later one.
SELECT gen_ulid(clock_timestamp() + interval '2 s') AS ahead \gset
SELECT monotonic_ulid_raise_mark(:'ahead') = ulid_time(:'ahead') AS mark_is_its_ms;
SELECT count(*) FILTER (WHERE ulid_time(id) <= ulid_time(:'ahead')) AS at_or_before, count(DISTINCT id) AS distinct_ids
FROM (SELECT gen_monotonic_ulid() AS id FROM generate_series(1, 1000)) s;
-- An earlier ULID leaves the mark where it is (it never moves back).
SELECT monotonic_ulid_raise_mark(gen_ulid(now() - interval '1 hour')) >= ulid_time(:'ahead') AS not_back;
\set VERBOSITY sqlstate
-- More than a day ahead: 22003. Read-only: 25006, for both.
SELECT monotonic_ulid_raise_mark(gen_ulid(clock_timestamp() + interval '2 days'));
SELECT monotonic_ulid_raise_mark('7ZZZZZZZZZZZZZZZZZZZZZZZZZ');
BEGIN READ ONLY;
SELECT gen_monotonic_ulid();
ROLLBACK;
BEGIN READ ONLY;
SELECT monotonic_ulid_raise_mark(gen_ulid(now()));
ROLLBACK;
\set VERBOSITY default
-- The message (its seconds depend on the clock), the detail and the hint, of ULIDs.
DO $$
DECLARE
    msg text; det text; hint text;
BEGIN
    PERFORM monotonic_ulid_raise_mark('7ZZZZZZZZZZZZZZZZZZZZZZZZZ');
EXCEPTION WHEN numeric_value_out_of_range THEN
    GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
    RAISE NOTICE 'message: %', regexp_replace(msg, '[0-9]+ s ahead', 'N s ahead');
    RAISE NOTICE 'detail: %', det;
    RAISE NOTICE 'hint: %', hint;
END
$$;
SELECT monotonic_ulid_raise_mark(NULL) IS NULL AS raise_strict;
-- Labels and privileges: writers of the server's generator state; the raise is not for PUBLIC.
SELECT p.oid::regprocedure AS function, p.provolatile, p.proparallel, p.proisstrict, p.prorettype::regtype AS returns,
       has_function_privilege('public', p.oid, 'EXECUTE') AS public_may_execute
FROM pg_proc p WHERE p.proname IN ('gen_monotonic_ulid', 'monotonic_ulid_raise_mark') ORDER BY 1;
DROP TABLE m;
