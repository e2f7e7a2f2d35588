-- uuidv7: PostgreSQL 18 semantics on the built-in uuid, our own names, range helpers, labels.
-- Output is deterministic: random values are checked through properties, never printed.
SET client_min_messages = warning;
\set VERBOSITY default
\set SHOW_CONTEXT never
SET timezone = 'UTC';

-- The PostgreSQL 18 names exist in the extension's schema on every server version, as members of
-- the extension.
-- (Signatures are spelled out: regprocedure would qualify our name where core's shadows it.)
SELECT p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' AS function,
       p.pronamespace::regnamespace AS schema, d.deptype
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
  AND d.refclassid = 'pg_extension'::regclass
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'id_gen'
WHERE p.proname IN ('uuidv4', 'uuidv7', 'uuid_extract_timestamp', 'uuid_extract_version')
ORDER BY 1;
-- An unqualified call resolves to core's function where the server has one (17: the extract
-- functions; 18: all five), to ours elsewhere: pg_catalog is searched first. The rest of this file
-- calls our functions schema-qualified, so its results are the same on every version.
SELECT f AS name,
       to_regprocedure(f) = coalesce(to_regprocedure('pg_catalog.' || f), to_regprocedure('public.' || f)) AS core_first,
       to_regprocedure('public.' || f) IS NOT NULL AS ours_exists
FROM unnest(ARRAY['uuidv4()', 'uuidv7()', 'uuidv7(interval)', 'uuid_extract_timestamp(uuid)',
                  'uuid_extract_version(uuid)']) f;

-- RFC 9562 Appendix A: the v7 and the v1 example both carry 2022-02-22 14:22:22 -05:00. The
-- qualified call reads the v7 time on every version (PostgreSQL 17's core function returns NULL).
SELECT public.uuid_extract_timestamp('017F22E2-79B0-7CC3-98C4-DC0C0C07398F') AS v7_time,
       public.uuid_extract_version('017F22E2-79B0-7CC3-98C4-DC0C0C07398F') AS v7_version,
       public.uuid_extract_timestamp('C232AB00-9414-11EC-B3C8-9F6BDECED846') AS v1_time,
       public.uuid_extract_version('C232AB00-9414-11EC-B3C8-9F6BDECED846') AS v1_version;
SELECT uuidv7_time('017F22E2-79B0-7CC3-98C4-DC0C0C07398F') AS ms,
       uuidv7_time_precise('017F22E2-79B0-7CC3-98C4-DC0C0C07398F') AS precise,
       uuid_time('017F22E2-79B0-7CC3-98C4-DC0C0C07398F') AS uuid_time,
       uuid_version('017F22E2-79B0-7CC3-98C4-DC0C0C07398F') AS uuid_version;
-- v1 keeps microseconds (100 ns ticks truncated); uuidv7_time is v7 only.
SELECT public.uuid_extract_timestamp('C232AB0A-9414-11EC-B3C8-9F6BDECED846') AS v1_plus_1us,
       uuidv7_time('C232AB00-9414-11EC-B3C8-9F6BDECED846') AS v7_time_of_v1;
SELECT pg_typeof(public.uuid_extract_version(gen_uuidv7())) AS version_type,
       pg_typeof(public.uuid_extract_timestamp(gen_uuidv7())) AS time_type;

-- As PostgreSQL 18: a version for every RFC 9562 variant UUID; a time only for versions 1 and 7,
-- and (since 0.3.0, unlike PostgreSQL 18) version 6; NULL for other variants (NCS 0xxx, Microsoft 110x, future 111x), nil and max.
SELECT u AS input, public.uuid_extract_version(u) AS version, public.uuid_extract_timestamp(u) AS time,
       uuidv7_time(u) AS v7_time, uuidv7_time_precise(u) AS v7_precise
FROM (VALUES ('f81d4fae-7dec-41d0-a765-00a0c91e6bf6'::uuid),
             ('1ec9414c-232a-6b00-b3c8-9f6bdeced846'),   -- RFC 9562 A.5, v6: no time in PostgreSQL 18
             ('320c3d4d-cc00-875b-8ec9-32d5f69181c0'),   -- RFC 9562 B.2, v8
             ('5df41881-3aed-3515-88a7-2f4a814cf09e'),   -- RFC 9562 A.2, v3
             ('017f22e2-79b0-7cc3-18c4-dc0c0c07398f'),   -- v7 nibble, NCS variant
             ('017f22e2-79b0-7cc3-c8c4-dc0c0c07398f'),   -- v7 nibble, Microsoft variant
             ('017f22e2-79b0-7cc3-e8c4-dc0c0c07398f'),   -- v7 nibble, future variant
             ('00000000-0000-0000-0000-000000000000'),
             ('ffffffff-ffff-ffff-ffff-ffffffffffff')) v(u);
SELECT public.uuid_extract_version(NULL) IS NULL AS strict_version, public.uuid_extract_timestamp(NULL) IS NULL AS strict_time;

-- Our names give exactly what the PostgreSQL 18 names give, on every kind of input: ours
-- (qualified) always; core's (unqualified) too, except PostgreSQL 17's uuid_extract_timestamp,
-- which returns NULL for version 7, and core's on 17 and 18 for version 6, which ours reads
-- since 0.3.0 (and only there).
CREATE TEMP TABLE mixed AS
  SELECT overlay(overlay(uuid_send(gen_random_uuid()) PLACING set_byte('\x00'::bytea, 0, v * 16 + (n % 16)) FROM 7)
                 PLACING set_byte('\x00'::bytea, 0, (n * 37) % 256) FROM 9) AS b
  FROM generate_series(0, 15) v, generate_series(1, 200) n;
SELECT count(*) AS inputs,
       bool_and(public.uuid_extract_version(u) IS NOT DISTINCT FROM uuid_version(u)) AS versions_agree,
       bool_and(public.uuid_extract_timestamp(u) IS NOT DISTINCT FROM uuid_time(u)) AS times_agree,
       bool_and(uuid_extract_version(u) IS NOT DISTINCT FROM uuid_version(u)) AS unqualified_versions_agree,
       bool_and(uuid_extract_timestamp(u) IS NOT DISTINCT FROM uuid_time(u)
                OR (current_setting('server_version_num')::int / 10000 = 17 AND uuid_version(u) = 7
                    AND uuid_extract_timestamp(u) IS NULL)
                OR (current_setting('server_version_num')::int / 10000 >= 17 AND uuid_version(u) = 6
                    AND uuid_extract_timestamp(u) IS NULL)) AS unqualified_times_agree_but_17_v7,
       bool_and((uuid_version(u) IS NOT DISTINCT FROM 7) = (uuidv7_time(u) IS NOT NULL)) AS v7_only,
       bool_and(uuid_time(u) IS NULL = (uuid_version(u) IS NULL OR uuid_version(u) NOT IN (1, 6, 7))) AS time_iff_v1_v6_or_v7,
       count(*) FILTER (WHERE uuid_version(u) IS NULL) AS non_rfc_variants
FROM (SELECT encode(b, 'hex')::uuid AS u FROM mixed) s;

-- Generation: RFC 9562 layout, strictly increasing within a backend, time close to now; our
-- uuidv7() and gen_uuidv7() share one clock. (Core's uuidv7() on 18 has its own: interleaved with
-- ours, order is the wall clock's only, as between sessions.)
CREATE TEMP TABLE gen AS
  SELECT n, CASE WHEN n % 3 = 0 THEN public.uuidv7() ELSE gen_uuidv7() END AS id FROM generate_series(1, 50000) n;
SELECT bool_and(id > prev) AS strictly_increasing, count(*) AS compared
FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM gen) s WHERE prev IS NOT NULL;
SELECT count(DISTINCT id) = count(*) AS distinct_ids,
       bool_and(public.uuid_extract_version(id) = 7) AS version_7,
       bool_and(substr(id::text, 15, 1) = '7' AND substr(id::text, 20, 1) IN ('8', '9', 'a', 'b')) AS layout,
       bool_and(uuidv7_time(id) BETWEEN now() - interval '1 minute' AND clock_timestamp() + interval '1 second') AS time_is_now,
       bool_and(uuidv7_time_precise(id) >= uuidv7_time(id)
                AND uuidv7_time_precise(id) < uuidv7_time(id) + interval '1 millisecond') AS precise_within_ms,
       bool_and(public.uuid_extract_timestamp(id) = uuidv7_time(id)) AS extract_is_ms
FROM gen;
-- An unqualified uuidv7() (core's on 18) on its own is strictly increasing too.
SELECT bool_and(id > prev) AS unqualified_increasing, count(*) AS compared
FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev
      FROM (SELECT n, uuidv7() AS id FROM generate_series(1, 20000) n) g) s WHERE prev IS NOT NULL;
-- The sub-millisecond fraction orders IDs within a millisecond: precise time never decreases.
SELECT bool_and(uuidv7_time_precise(id) >= uuidv7_time_precise(prev)) AS precise_monotonic
FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM gen) s WHERE prev IS NOT NULL;
-- The random part (62 bits of rand_b) differs between IDs.
SELECT count(DISTINCT substr(id::text, 25)) > 49990 AS rand_b_varies FROM gen;

-- The method-3 fraction, read back: 0x800/4096 ms = 500 µs; 0xfff -> 999 µs; 0 -> 0; 0x004 -> 1 µs.
SELECT uuidv7_time_precise('017f22e2-79b0-7800-8000-000000000000') AS half,
       uuidv7_time_precise('017f22e2-79b0-7fff-8000-000000000000') AS last,
       uuidv7_time_precise('017f22e2-79b0-7000-8000-000000000000') AS first,
       uuidv7_time_precise('017f22e2-79b0-7004-8000-000000000000') AS one_us;

-- uuidv7(interval): the current time shifted, with timestamptz arithmetic.
SELECT bool_and(uuidv7_time(public.uuidv7(interval '-1 day')) BETWEEN now() - interval '1 day 1 minute'
                                                       AND clock_timestamp() - interval '1 day' + interval '1 second') AS minus_day,
       bool_and(uuidv7_time(gen_uuidv7(interval '100 years')) BETWEEN now() + interval '100 years' - interval '1 minute'
                                                       AND clock_timestamp() + interval '100 years' + interval '1 second') AS plus_century,
       bool_and(public.uuid_extract_version(public.uuidv7(interval '1 month')) = 7) AS shifted_v7
FROM generate_series(1, 100);
SELECT public.uuidv7(NULL) IS NULL AS strict_shift;
-- As PostgreSQL 18.6: shifted before 1970 or past 2^48 ms (year 10889), 22008 with core's words;
-- past the end of timestamptz, timestamptz's own 22008.
\set VERBOSITY sqlstate
SELECT public.uuidv7(interval '-100 years');
SELECT gen_uuidv7(interval '9000 years');
SELECT public.uuidv7(interval '300000 years');
\set VERBOSITY default
SELECT public.uuidv7(interval '-100 years');
-- An infinite interval (PostgreSQL 17 and later have them): 22008, as 18.6.
DO $$
BEGIN
  IF current_setting('server_version_num')::int >= 170000 THEN
    BEGIN
      PERFORM public.uuidv7('infinity'::interval);
      RAISE EXCEPTION 'an infinite shift was accepted';
    EXCEPTION WHEN datetime_field_overflow THEN
      IF SQLERRM <> 'interval out of range for UUID version 7' THEN RAISE; END IF;
    END;
  END IF;
END
$$;

-- uuidv4(): PostgreSQL 18's name for gen_random_uuid(), on every version.
SELECT count(DISTINCT id) AS distinct_ids, bool_and(uuid_version(id) = 4) AS version_4,
       bool_and(substr(id::text, 20, 1) IN ('8', '9', 'a', 'b')) AS rfc_variant
FROM (SELECT public.uuidv4() AS id FROM generate_series(1, 1000)) g;

-- Range helpers: smallest and largest UUIDv7 of an instant's millisecond.
SELECT uuidv7_lower('2022-02-22 19:22:22.0005+00') AS lower, uuidv7_upper('2022-02-22 19:22:22.0005+00') AS upper;
SELECT uuidv7_lower('1970-01-01 00:00:00+00') AS epoch, uuidv7_upper('10889-08-02 05:31:50.655+00') AS last_ms;
SELECT uuidv7_time(uuidv7_lower(t)) = date_trunc('milliseconds', t) AS lower_time,
       uuidv7_time(uuidv7_upper(t)) = date_trunc('milliseconds', t) AS upper_time,
       uuid_version(uuidv7_upper(t)) AS upper_version
FROM (VALUES (timestamptz '2024-05-06 07:08:09.123456+00')) v(t);
\set VERBOSITY sqlstate
SELECT uuidv7_lower('1969-12-31 23:59:59.999+00');
SELECT uuidv7_upper('10889-08-02 05:31:50.656+00');
SELECT uuidv7_lower('infinity');
\set VERBOSITY default
SELECT uuidv7_lower('-infinity');

-- An ID range is a time range and uses the index.
CREATE TABLE t_v7 (id uuid PRIMARY KEY, at timestamptz NOT NULL);
INSERT INTO t_v7
  SELECT (substr(uuidv7_lower(t)::text, 1, 19) || substr(gen_random_uuid()::text, 20))::uuid, t
  FROM (SELECT timestamptz '2024-01-01 00:00:00+00' + n * interval '1 minute' AS t FROM generate_series(0, 9999) n) s;
INSERT INTO t_v7 VALUES (uuidv7_lower('2024-01-02'), '2024-01-02'), (uuidv7_upper('2024-01-03'), '2024-01-03');
ANALYZE t_v7;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM t_v7 WHERE id BETWEEN uuidv7_lower('2024-01-02') AND uuidv7_upper('2024-01-03');
SELECT count(*) AS in_range,
       count(*) = (SELECT count(*) FROM t_v7 WHERE at BETWEEN '2024-01-02' AND '2024-01-03') AS matches_time
FROM t_v7 WHERE id BETWEEN uuidv7_lower('2024-01-02') AND uuidv7_upper('2024-01-03');
RESET enable_seqscan;
SELECT bool_and(prev_at <= at) AS id_order_is_time_order FROM
  (SELECT at, lag(at) OVER (ORDER BY id) AS prev_at FROM t_v7) s WHERE prev_at IS NOT NULL;
DROP TABLE t_v7;

-- A UUIDv7 cast to ulid keeps its time (the same 48-bit millisecond prefix).
SELECT ulid_time('017F22E2-79B0-7CC3-98C4-DC0C0C07398F'::uuid::ulid) AS ulid_time_of_rfc_example;
SELECT bool_and(ulid_time(id::ulid) = uuidv7_time(id)) AS cast_keeps_time,
       bool_and(id::ulid::uuid = id) AS cast_round_trip,
       bool_and((id::ulid > prev::ulid) = (id > prev)) AS cast_keeps_order
FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM gen) s WHERE prev IS NOT NULL;

-- Labels: generators VOLATILE PARALLEL SAFE; readers and range helpers IMMUTABLE STRICT PARALLEL SAFE.
SELECT p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' AS function,
       p.provolatile, p.proparallel, p.proisstrict, p.prorettype::regtype AS returns
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'id_gen'
WHERE p.proname ~ '^(gen_uuidv7|uuidv[47]|uuid_)' ORDER BY 1;
