-- The companion id_gen_pg_uuidv7: pg_uuidv7's five functions over id_gen, in a schema of the
-- user's choice. (pg_uuidv7's own suite runs against it too: scripts/layers/sql.sh.)
SET client_min_messages = warning;
\set VERBOSITY default
\set SHOW_CONTEXT never
SET TimeZone = 'UTC';
CREATE SCHEMA uuidv7_names;
CREATE EXTENSION id_gen_pg_uuidv7 SCHEMA uuidv7_names;

-- What a fresh install holds: the five functions with pg_uuidv7's labels, each naming id_gen's
-- objects by id_gen's schema (public here), never unqualified.
SELECT pg_describe_object(d.classid, d.objid, 0) AS member, p.provolatile, p.proparallel, p.proisstrict,
       p.proconfig, p.prosrc ~ 'public\.(gen_ulid|ulid_time)' AS calls_id_gen_qualified,
       p.prosrc !~ '[^.a-z_](gen_ulid|ulid_time)\(' AS nothing_unqualified
FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'id_gen_pg_uuidv7'
JOIN pg_proc p ON p.oid = d.objid
WHERE d.deptype = 'e' ORDER BY 1;
SELECT extversion, extrelocatable, extnamespace::regnamespace,
       (SELECT array_agg(r.extname) FROM pg_depend dd JOIN pg_extension r ON r.oid = dd.refobjid
        WHERE dd.objid = e.oid AND dd.classid = 'pg_extension'::regclass AND dd.deptype = 'n') AS requires
FROM pg_extension e WHERE extname = 'id_gen_pg_uuidv7';

SET search_path = uuidv7_names, public;
-- pg_uuidv7's answers: its test values, zero => true (version and variant set, the rest 0), any
-- uuid's first 48 bits read as a time (no version checked), times before 1970 and infinity wrapped
-- as its unsigned arithmetic wraps them.
SELECT uuid_timestamptz_to_v7('2023-01-02 04:26:40.637+00', true) AS zero,
       uuid_v7_to_timestamptz('018570bb-4a7d-7000-8000-000000000000') AS tz,
       uuid_v7_to_timestamp('018570bb-4a7d-7000-8000-000000000000') AS ts,
       uuid_v7_to_timestamptz('018570bb-4a7d-4000-8000-000000000000') AS of_a_v4;
SELECT uuid_timestamptz_to_v7('1969-12-31 23:59:59.999+00', true) AS before_1970,
       uuid_timestamptz_to_v7('1900-05-05 12:34:56.789+00', true) AS of_1900,
       uuid_timestamptz_to_v7('infinity', true) AS infinity,
       uuid_timestamptz_to_v7('-infinity', true) AS minus_infinity,
       uuid_timestamp_to_v7('0001-01-01 00:00:00', true) AS of_year_1;
SELECT uuid_timestamptz_to_v7('2023-01-02 04:26:40.637+00', NULL) IS NULL AS strict;
-- Random bits: 74 of them, fresh each call; the millisecond is the given one or now's.
SELECT count(DISTINCT u) AS distinct_ids, bool_and(uuid_extract_version(u) = 7) AS version_7,
       bool_and(substr(u::text, 20, 1) IN ('8', '9', 'a', 'b')) AS variant_10,
       bool_and(uuid_v7_to_timestamptz(u) = '2023-01-02 04:26:40.637+00') AS its_ms
FROM (SELECT uuid_timestamptz_to_v7('2023-01-02 04:26:40.637+00') AS u FROM generate_series(1, 1000)) g;
SELECT count(DISTINCT u) AS distinct_ids, bool_and(uuid_extract_version(u) = 7) AS version_7,
       bool_and(uuid_v7_to_timestamptz(u) BETWEEN date_trunc('milliseconds', t0) AND clock_timestamp()) AS now_ms
FROM (SELECT clock_timestamp() AS t0) c, LATERAL (SELECT uuid_generate_v7() AS u FROM generate_series(1, 1000)) g
GROUP BY t0;
RESET search_path;

-- Relocatable: moved to another schema, it answers the same (it names no schema of its own).
CREATE SCHEMA uuidv7_moved;
ALTER EXTENSION id_gen_pg_uuidv7 SET SCHEMA uuidv7_moved;
SELECT uuidv7_moved.uuid_timestamp_to_v7('2023-01-02 04:26:40.637', true) AS moved;
-- It requires id_gen: id_gen does not drop from under it (2BP01).
DROP EXTENSION id_gen;
DROP EXTENSION id_gen_pg_uuidv7;
DROP SCHEMA uuidv7_names, uuidv7_moved;
