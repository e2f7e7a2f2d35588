-- The companion id_gen_pgx_ulid: pgx_ulid's conversion functions and the casts id_gen's ulid
-- lacks, in a schema of the user's choice. The values are pgx_ulid's own test values.
SET client_min_messages = warning;
\set VERBOSITY default
\set SHOW_CONTEXT never
SET TimeZone = 'UTC';
CREATE SCHEMA ulid_names;
CREATE EXTENSION id_gen_pgx_ulid SCHEMA ulid_names;

-- What a fresh install holds: seven functions with pgx_ulid's labels, each naming id_gen's
-- objects by id_gen's schema (public here), never unqualified; four casts, none implicit.
SELECT pg_describe_object(d.classid, d.objid, 0) AS member, p.provolatile, p.proparallel, p.proisstrict,
       p.proconfig, p.prosrc !~ '[^.a-z_](ulid_time|ulid_lower)\(' AND p.prosrc !~ '::ulid' AS nothing_unqualified
FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'id_gen_pgx_ulid'
JOIN pg_proc p ON p.oid = d.objid
WHERE d.deptype = 'e' AND d.classid = 'pg_proc'::regclass ORDER BY 1;
SELECT c.castsource::regtype AS source, c.casttarget::regtype AS target, c.castcontext, c.castfunc::regprocedure AS function,
       (SELECT e.extname FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
        WHERE d.classid = 'pg_cast'::regclass AND d.objid = c.oid AND d.deptype = 'e') AS extension
FROM pg_cast c WHERE 'public.ulid'::regtype IN (c.castsource, c.casttarget)
ORDER BY 5, c.castsource::regtype::text COLLATE "C", c.casttarget::regtype::text COLLATE "C";
SELECT extversion, extrelocatable, extnamespace::regnamespace,
       (SELECT array_agg(r.extname) FROM pg_depend dd JOIN pg_extension r ON r.oid = dd.refobjid
        WHERE dd.objid = e.oid AND dd.classid = 'pg_extension'::regclass AND dd.deptype = 'n') AS requires
FROM pg_extension e WHERE extname = 'id_gen_pgx_ulid';

-- pgx_ulid's answers, through its casts and its functions. A timestamp is UTC's wall-clock time
-- whatever TimeZone says.
SET search_path = ulid_names, public;
SET TimeZone = 'America/New_York';
SELECT '01GV5PA9EQG7D82Q3Y4PKBZSYV'::ulid::uuid AS to_uuid,
       '0186cb65-25d7-81da-815c-7e25a6bfe7db'::uuid::ulid AS from_uuid,
       lower('01GV5PA9EQG7D82Q3Y4PKBZSYV')::ulid AS from_lower_case,
       '01GV5PA9EQG7D82Q3Y4PKBZSYV'::ulid::bytea AS to_bytea;
SELECT '01GV5PA9EQG7D82Q3Y4PKBZSYV'::ulid::timestamp AS to_timestamp,
       '01GV5PA9EQG7D82Q3Y4PKBZSYV'::ulid::timestamptz AT TIME ZONE 'UTC' AS to_timestamptz_utc,
       '2023-03-10 12:00:49.111'::timestamp::ulid AS from_timestamp,
       '2023-03-10 12:00:49.111+00'::timestamptz::ulid AS from_timestamptz,
       '2023-03-10 12:00:49.1119+00'::timestamptz::ulid AS within_the_ms;
SELECT ulid_to_uuid('01GV5PA9EQG7D82Q3Y4PKBZSYV') = '0186cb65-25d7-81da-815c-7e25a6bfe7db' AS to_uuid,
       ulid_from_uuid('0186cb65-25d7-81da-815c-7e25a6bfe7db') = '01GV5PA9EQG7D82Q3Y4PKBZSYV' AS from_uuid,
       ulid_to_bytea('01GV5PA9EQG7D82Q3Y4PKBZSYV') = '\x0186cb6525d781da815c7e25a6bfe7db' AS to_bytea,
       ulid_to_timestamp('01GV5PA9EQG7D82Q3Y4PKBZSYV') = '2023-03-10 12:00:49.111' AS to_timestamp,
       ulid_to_timestamptz('01GV5PA9EQG7D82Q3Y4PKBZSYV') = '2023-03-10 12:00:49.111+00' AS to_timestamptz,
       timestamp_to_ulid('2023-03-10 12:00:49.111') = '01GV5PA9EQ0000000000000000' AS from_timestamp,
       timestamptz_to_ulid('2023-03-10 12:00:49.111+00') = '01GV5PA9EQ0000000000000000' AS from_timestamptz;
-- A time no ULID holds is refused (pgx_ulid gives the ULID of 1970's first millisecond).
SELECT '1969-12-31 23:59:59.999+00'::timestamptz::ulid;
SELECT timestamp_to_ulid('infinity');
-- Explicit, as id_gen's casts are: a timestamp or a uuid is not taken for a ulid unasked.
CREATE TEMP TABLE pgx_keys (id ulid PRIMARY KEY);
INSERT INTO pgx_keys VALUES ('2023-03-10 12:00:49.111'::timestamp);
INSERT INTO pgx_keys VALUES ('0186cb65-25d7-81da-815c-7e25a6bfe7db'::uuid);
INSERT INTO pgx_keys VALUES ('2023-03-10 12:00:49.111'::timestamp::ulid), ('0186cb65-25d7-81da-815c-7e25a6bfe7db'::uuid::ulid);
SELECT id, id::timestamp AS at FROM pgx_keys ORDER BY id;
DROP TABLE pgx_keys;
RESET search_path;
SET TimeZone = 'UTC';

-- Relocatable: moved to another schema, its casts and functions answer the same.
CREATE SCHEMA ulid_moved;
ALTER EXTENSION id_gen_pgx_ulid SET SCHEMA ulid_moved;
SELECT '01GV5PA9EQG7D82Q3Y4PKBZSYV'::ulid::timestamp AS moved_cast,
       ulid_moved.timestamp_to_ulid('2023-03-10 12:00:49.111') AS moved_function;
-- It requires id_gen: id_gen does not drop from under it (2BP01). Its casts go with it.
DROP EXTENSION id_gen;
DROP EXTENSION id_gen_pgx_ulid;
SELECT count(*) AS casts_left FROM pg_cast WHERE 'public.ulid'::regtype IN (castsource, casttarget);
DROP SCHEMA ulid_names, ulid_moved;
