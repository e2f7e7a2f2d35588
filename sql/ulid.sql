-- ulid: I/O, errors, operators, opclasses, casts, aggregates, range helpers, labels.
-- Output is deterministic: random values are checked through properties, never printed.
SET client_min_messages = warning;
\set VERBOSITY default
\set SHOW_CONTEXT never

-- Text I/O: round trip, case-insensitive input, upper-case output.
SELECT '01ARZ3NDEKTSV4RRFFQ69G5FAV'::ulid;
SELECT '01arz3ndektsv4rrffq69g5fav'::ulid;
SELECT '00000000000000000000000000'::ulid, '7ZZZZZZZZZZZZZZZZZZZZZZZZZ'::ulid;
SELECT ulid_time('01ARYZ6S41TSV4RRFFQ69G5FAV') AT TIME ZONE 'UTC' AS spec_time;

-- Errors carry SQLSTATE and the offending value.
\set VERBOSITY sqlstate
SELECT '80000000000000000000000000'::ulid;
SELECT 'ZZZZZZZZZZZZZZZZZZZZZZZZZZ'::ulid;
SELECT '01ARZ3NDEKTSV4RRFFQ69G5FAI'::ulid;
SELECT '01ARZ3NDEKTSV4RRFFQ69G5FAL'::ulid;
SELECT '01ARZ3NDEKTSV4RRFFQ69G5FAO'::ulid;
SELECT '01ARZ3NDEKTSV4RRFFQ69G5FAU'::ulid;
SELECT '01ARZ3NDEKTSV4RRFFQ69G5FA'::ulid;
SELECT '01ARZ3NDEKTSV4RRFFQ69G5FAVV'::ulid;
SELECT ''::ulid;
SELECT '01ARZ3NDEK-SV4RRFFQ69G5FAV'::ulid;
\set VERBOSITY default
SELECT 'not-a-ulid'::ulid;
SELECT '80000000000000000000000000'::ulid;

-- Binary send/recv are the 16 raw bytes; they round-trip.
SELECT ulid_send('01ARZ3NDEKTSV4RRFFQ69G5FAV') = uuid_send('01ARZ3NDEKTSV4RRFFQ69G5FAV'::ulid::uuid) AS send_is_raw;
SELECT length(ulid_send(gen_ulid())) AS send_len;

-- Casts: uuid <-> ulid keep the bytes; nothing is implicit.
SELECT '01ARZ3NDEKTSV4RRFFQ69G5FAV'::ulid::uuid;
SELECT '01563df3-6dd3-d676-4c61-ef7d93215d5b'::uuid::ulid;
SELECT bool_and(u::ulid::uuid = u) AS uuid_roundtrip FROM (SELECT gen_random_uuid() AS u FROM generate_series(1, 1000)) s;
SELECT castcontext, castmethod FROM pg_cast
  WHERE castsource = 'ulid'::regtype AND casttarget = 'uuid'::regtype
     OR castsource = 'uuid'::regtype AND casttarget = 'ulid'::regtype ORDER BY 1, 2;
SELECT count(*) AS implicit_casts FROM pg_cast
  WHERE (castsource = 'ulid'::regtype OR casttarget = 'ulid'::regtype) AND castcontext = 'i';
SELECT '01ARYZ6S41TSV4RRFFQ69G5FAV'::ulid::timestamptz AT TIME ZONE 'UTC' AS cast_time;
SELECT ulid_time(gen_ulid('2024-02-29 12:34:56.789+00')) AT TIME ZONE 'UTC' AS given_time;
-- Text casts run dedicated functions (no cstring detour) and agree with the I/O functions.
SELECT c.castcontext, c.castmethod, c.castfunc::regproc AS func FROM pg_cast c
  WHERE c.castsource = 'ulid'::regtype AND c.casttarget = 'text'::regtype
     OR c.castsource = 'text'::regtype AND c.casttarget = 'ulid'::regtype ORDER BY 1;
SELECT bool_and(id::text = textin(ulid_out(id))) AS to_text_matches_out,
       bool_and(id::text::ulid = id) AS text_roundtrip,
       bool_and(lower(id::text)::ulid = id) AS lower_case_in,
       bool_and(id::varchar::ulid = id) AS varchar_roundtrip
FROM (SELECT gen_random_uuid()::ulid AS id FROM generate_series(1, 2000)) s;
\set VERBOSITY sqlstate
SELECT 'not-a-ulid'::text::ulid;
SELECT '80000000000000000000000000'::text::ulid;
SELECT '01ARZ3NDEKTSV4RRFFQ69G5FA'::text::ulid;
\set VERBOSITY default
SELECT '01ARZ3NDEKTSV4RRFFQ69G5FAU'::text::ulid;
-- An over-long value is cut in the message at a character boundary.
SELECT repeat('é', 300)::text::ulid;

-- Operators agree with the byte order, and with the text order.
SELECT '01ARZ3NDEKTSV4RRFFQ69G5FAV'::ulid < '01ARZ3NDEKTSV4RRFFQ69G5FAW'::ulid AS lt,
       '01ARZ3NDEKTSV4RRFFQ69G5FAV'::ulid <= '01ARZ3NDEKTSV4RRFFQ69G5FAV'::ulid AS le,
       '01ARZ3NDEKTSV4RRFFQ69G5FAV'::ulid = '01arz3ndektsv4rrffq69g5fav'::ulid AS eq,
       '01ARZ3NDEKTSV4RRFFQ69G5FAV'::ulid <> '01ARZ3NDEKTSV4RRFFQ69G5FAW'::ulid AS ne,
       '7ZZZZZZZZZZZZZZZZZZZZZZZZZ'::ulid > '01ARZ3NDEKTSV4RRFFQ69G5FAV'::ulid AS gt,
       '7ZZZZZZZZZZZZZZZZZZZZZZZZZ'::ulid >= '7ZZZZZZZZZZZZZZZZZZZZZZZZZ'::ulid AS ge;
CREATE TEMP TABLE pairs AS
  SELECT gen_random_uuid()::ulid AS a, gen_random_uuid()::ulid AS b FROM generate_series(1, 2000);
SELECT bool_and((a < b) = (a::text COLLATE "C" < b::text COLLATE "C")) AS text_order,
       bool_and((a < b) = (a::uuid < b::uuid)) AS uuid_order,
       bool_and(ulid_cmp(a, b) = uuid_cmp(a::uuid, b::uuid)) AS cmp_matches
FROM pairs;

-- Generation: strictly increasing within a backend, time close to now.
CREATE TEMP TABLE gen AS SELECT n, gen_ulid() AS id FROM generate_series(1, 50000) n;
SELECT bool_and(id > prev) AS strictly_increasing, count(*) AS compared
FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM gen) s WHERE prev IS NOT NULL;
SELECT count(DISTINCT id) = count(*) AS distinct_ids FROM gen;
SELECT bool_and(ulid_time(id) BETWEEN now() - interval '1 minute' AND clock_timestamp() + interval '1 second') AS time_is_now FROM gen;

-- Range helpers: every ULID of an instant lies between its lower and upper bound.
SELECT ulid_lower('2024-01-01 00:00:00+00'), ulid_upper('2024-01-01 00:00:00+00');
SELECT bool_and(g BETWEEN ulid_lower(t) AND ulid_upper(t)) AS within_bounds,
       bool_and(ulid_time(ulid_lower(t)) = date_trunc('milliseconds', t)) AS lower_time
FROM (SELECT t, gen_ulid(t) AS g FROM (SELECT now() - n * interval '1.234 s' AS t FROM generate_series(1, 500) n) s) x;
\set VERBOSITY sqlstate
SELECT ulid_lower('1969-12-31 23:59:59.999+00');
SELECT ulid_upper('infinity');
SELECT gen_ulid('-infinity'::timestamptz);
\set VERBOSITY default
SELECT ulid_lower('1960-01-01 00:00:00+00');

-- Plans are asserted through their nodes, not EXPLAIN's text (which differs between server
-- versions): one row per distinct plan node, with the index, scan direction, relation, index
-- condition, hash condition (sides in sorted order) and filter it uses. The index condition
-- "col IS NOT NULL" that 15 and 16 add under min()/max() (and 17 no longer shows) is left out.
CREATE FUNCTION pg_temp.plan_nodes(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  p jsonb;
BEGIN
  EXECUTE 'EXPLAIN (COSTS OFF, FORMAT JSON) ' || query INTO p;
  RETURN QUERY
    WITH RECURSIVE n(node) AS (
      SELECT p -> 0 -> 'Plan'
      UNION ALL
      SELECT c FROM n, jsonb_array_elements(n.node -> 'Plans') c)
    SELECT DISTINCT concat_ws(' ', node ->> 'Node Type',
                              CASE WHEN node ->> 'Scan Direction' = 'Backward' THEN 'Backward' END,
                              'using ' || (node ->> 'Index Name'), 'on ' || (node ->> 'Relation Name'),
                              'index cond ' || CASE WHEN node ->> 'Index Cond' !~ '^\(\w+ IS NOT NULL\)$' THEN node ->> 'Index Cond' END,
                              'hash cond ' || (SELECT string_agg(side, ' = ' ORDER BY side)
                                               FROM regexp_split_to_table(btrim(node ->> 'Hash Cond', '()'), ' = ') side),
                              'filter ' || (node ->> 'Filter'))
    FROM n ORDER BY 1;
END
$$;

-- Indexes: btree range scans with seqscan off, min/max from the index, hash, BRIN.
CREATE TABLE t_ulid (id ulid PRIMARY KEY, at timestamptz NOT NULL);
INSERT INTO t_ulid SELECT gen_ulid(t), t FROM
  (SELECT timestamptz '2024-01-01 00:00:00+00' + n * interval '1 minute' AS t FROM generate_series(0, 9999) n) s;
ANALYZE t_ulid;
SET enable_seqscan = off;
SELECT * FROM pg_temp.plan_nodes($q$SELECT count(*) FROM t_ulid
  WHERE id BETWEEN ulid_lower('2024-01-02') AND ulid_upper('2024-01-03')$q$) node;
SELECT count(*) AS in_range, count(*) = (SELECT count(*) FROM t_ulid WHERE at BETWEEN '2024-01-02' AND '2024-01-03') AS matches_time
  FROM t_ulid WHERE id BETWEEN ulid_lower('2024-01-02') AND ulid_upper('2024-01-03');
SELECT * FROM pg_temp.plan_nodes($q$SELECT min(id), max(id) FROM t_ulid$q$) node;
SELECT ulid_time(min(id)) AT TIME ZONE 'UTC' AS min_t, ulid_time(max(id)) AT TIME ZONE 'UTC' AS max_t FROM t_ulid;
SELECT min(id) = (SELECT id FROM t_ulid ORDER BY at LIMIT 1) AS min_ok FROM t_ulid;
RESET enable_seqscan;

-- Sort: ORDER BY id is time order (sortsupport with abbreviated keys on the built-in uuid code).
SELECT bool_and(prev_at < at) AS sorted_by_time FROM
  (SELECT at, lag(at) OVER (ORDER BY id) AS prev_at FROM t_ulid) s WHERE prev_at IS NOT NULL;

CREATE INDEX t_ulid_hash ON t_ulid USING hash (id);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT * FROM pg_temp.plan_nodes($q$SELECT * FROM t_ulid WHERE id = '01HK0000000000000000000000'$q$) node;
RESET enable_bitmapscan;
SELECT count(*) AS hash_lookups FROM t_ulid a WHERE EXISTS (SELECT 1 FROM t_ulid b WHERE b.id = a.id);
RESET enable_seqscan;
DROP INDEX t_ulid_hash;
-- Hash values equal uuid's on the same bytes (hash partitioning and distributed engines rely on it).
SELECT bool_and(ulid_hash(id) = uuid_hash(id::uuid)) AS hash_eq,
       bool_and(ulid_hash_extended(id, 42) = uuid_hash_extended(id::uuid, 42)) AS hash_ext_eq FROM t_ulid;

-- Hash join.
SET enable_mergejoin = off;
SET enable_nestloop = off;
-- Joined to another table (5,000 of its rows): 18 removes a join of a table to itself on its
-- primary key.
CREATE TABLE t_ulid_half AS SELECT id FROM t_ulid ORDER BY id LIMIT 5000;
ANALYZE t_ulid_half;
SELECT * FROM pg_temp.plan_nodes($q$SELECT count(*) FROM t_ulid a JOIN t_ulid_half b USING (id)$q$) node;
SELECT count(*) AS hash_join_rows FROM t_ulid a JOIN t_ulid_half b USING (id);
DROP TABLE t_ulid_half;
RESET enable_mergejoin;
RESET enable_nestloop;

-- BRIN minmax (on a copy without the btree, so only BRIN can serve).
CREATE TABLE t_ulid_brin AS SELECT * FROM t_ulid ORDER BY id;
CREATE INDEX t_ulid_brin_idx ON t_ulid_brin USING brin (id) WITH (pages_per_range = 1);
SET enable_seqscan = off;
SELECT * FROM pg_temp.plan_nodes($q$SELECT count(*) FROM t_ulid_brin WHERE id < ulid_lower('2024-01-01 01:00:00+00')$q$) node;
SELECT count(*) AS brin_rows FROM t_ulid_brin WHERE id < ulid_lower('2024-01-01 01:00:00+00');
RESET enable_seqscan;
DROP TABLE t_ulid_brin;

-- Hash partitioning.
CREATE TABLE t_part (id ulid PRIMARY KEY) PARTITION BY HASH (id);
CREATE TABLE t_part_0 PARTITION OF t_part FOR VALUES WITH (MODULUS 4, REMAINDER 0);
CREATE TABLE t_part_1 PARTITION OF t_part FOR VALUES WITH (MODULUS 4, REMAINDER 1);
CREATE TABLE t_part_2 PARTITION OF t_part FOR VALUES WITH (MODULUS 4, REMAINDER 2);
CREATE TABLE t_part_3 PARTITION OF t_part FOR VALUES WITH (MODULUS 4, REMAINDER 3);
INSERT INTO t_part SELECT id FROM t_ulid;
SELECT count(*) AS partitioned_rows, count(DISTINCT tableoid) AS partitions_used FROM t_part;
-- The same bytes as uuid land in the same partition as they would for a uuid key.
CREATE TABLE t_part_uuid (id uuid PRIMARY KEY) PARTITION BY HASH (id);
CREATE TABLE t_part_uuid_0 PARTITION OF t_part_uuid FOR VALUES WITH (MODULUS 4, REMAINDER 0);
CREATE TABLE t_part_uuid_1 PARTITION OF t_part_uuid FOR VALUES WITH (MODULUS 4, REMAINDER 1);
CREATE TABLE t_part_uuid_2 PARTITION OF t_part_uuid FOR VALUES WITH (MODULUS 4, REMAINDER 2);
CREATE TABLE t_part_uuid_3 PARTITION OF t_part_uuid FOR VALUES WITH (MODULUS 4, REMAINDER 3);
INSERT INTO t_part_uuid SELECT id::uuid FROM t_ulid;
-- (The partition by its OID, not by its name: a name per row is a catalog lookup per row, which
-- under debug_discard_caches, in the long test run, reads the catalog again each time.)
SELECT count(*) AS same_partition FROM
  (SELECT id, array_position('{t_part_0,t_part_1,t_part_2,t_part_3}'::regclass[], tableoid::regclass) AS p FROM t_part) a
  JOIN (SELECT id::ulid AS id, array_position('{t_part_uuid_0,t_part_uuid_1,t_part_uuid_2,t_part_uuid_3}'::regclass[], tableoid::regclass) AS p
        FROM t_part_uuid) b USING (id, p);
DROP TABLE t_part, t_part_uuid;

-- Labels: generators VOLATILE PARALLEL SAFE, everything else IMMUTABLE (STRICT) PARALLEL SAFE.
SELECT p.oid::regprocedure AS function, p.provolatile, p.proparallel, p.proisstrict
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'id_gen'
WHERE p.proname LIKE '%ulid%' ORDER BY p.oid::regprocedure::text;

DROP TABLE t_ulid;
