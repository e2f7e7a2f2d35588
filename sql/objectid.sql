-- objectid: MongoDB ObjectId. I/O against the BSON corpus (oid.json) and the ObjectId spec's
-- timestamp vectors, errors, soft errors, casts (timestamptz, bytea, Extended JSON), operators,
-- opclasses (btree with sortsupport, hash, BRIN), aggregates, bounds, the generator's properties,
-- labels. Output is deterministic: random values are checked through properties, never printed.
SET client_min_messages = warning;
SET TimeZone = 'UTC';
\set VERBOSITY default
\set SHOW_CONTEXT never

-- BSON corpus, oid.json, "valid": the 12 bytes of each case and its Extended JSON.
SELECT d.description, d.hex::objectid AS id, d.hex::objectid::bytea = decode(d.bson_oid, 'hex') AS bytes_match,
       d.hex::objectid::json::text AS extjson, d.hex::objectid::jsonb = d.extjson::jsonb AS extjson_matches,
       d.extjson::jsonb::objectid = d.hex::objectid AS extjson_reads_back
FROM (VALUES ('All zeroes', '000000000000000000000000', '000000000000000000000000', '{"$oid" : "000000000000000000000000"}'),
             ('All ones', 'ffffffffffffffffffffffff', 'FFFFFFFFFFFFFFFFFFFFFFFF', '{"$oid" : "ffffffffffffffffffffffff"}'),
             ('Random', '56e1fc72e0c917e9c4714161', '56E1FC72E0C917E9C4714161', '{"$oid" : "56e1fc72e0c917e9c4714161"}'))
     d(description, hex, bson_oid, extjson);
-- Upper case is accepted on input; output is lower case.
SELECT '56E1FC72E0C917E9C4714161'::objectid AS upper_in, '56e1FC72e0c917E9c4714161'::objectid = '56e1fc72e0c917e9c4714161' AS mixed_equal;
SELECT length('56e1fc72e0c917e9c4714161'::objectid::text) AS text_len, objectid_send('56e1fc72e0c917e9c4714161') AS send;

-- The ObjectId spec's test plan: the timestamp field is unsigned 32-bit seconds.
SELECT ts, objectid_time((ts || '0000000000000000')::objectid) AS time
FROM (VALUES ('00000000'), ('7fffffff'), ('80000000'), ('ffffffff')) v(ts);
SELECT objectid_time('56e1fc72e0c917e9c4714161') AS corpus_random_time, '56e1fc72e0c917e9c4714161'::objectid::timestamptz AS cast_time;

-- Errors: anything but exactly 24 hex digits is 22P02, with the value in the message.
\set VERBOSITY sqlstate
SELECT '56e1fc72e0c917e9c471416'::objectid;      -- 23 digits
SELECT '56e1fc72e0c917e9c47141610'::objectid;    -- 25 digits
SELECT '56e1fc72e0c917e9c471416g'::objectid;
SELECT ' 56e1fc72e0c917e9c4714161'::objectid;
SELECT '56e1fc72e0c917e9c4714161 '::objectid;
SELECT '0x56e1fc72e0c917e9c47141'::objectid;
SELECT '56e1fc72-e0c917e9c47141'::objectid;
SELECT ''::objectid;
\set VERBOSITY default
SELECT 'not-an-objectid'::objectid;
SELECT '56e1fc72e0c917e9c471416g'::objectid;
-- Long input is cut in the message at a character boundary.
SELECT ('a' || repeat('é', 300))::objectid;

-- Soft errors: the input function reports into a soft-error context.
SELECT v, id_gen_input_is_valid(v, 'objectid') AS valid, (id_gen_input_error_info(v, 'objectid')).sql_error_code,
       (id_gen_input_error_info(v, 'objectid')).message
FROM (VALUES ('56e1fc72e0c917e9c4714161'), ('56E1FC72E0C917E9C4714161'), ('56e1fc72e0c917e9c471416'), ('xyz')) c(v);

-- Binary I/O: the 12 bytes.
SELECT bool_and(objectid_send(x) = x::bytea) AS send_is_the_bytes FROM gen_objectid() x;

-- bytea: exactly 12 bytes either way; any other length is 22P02 (the BSON corpus's decode error
-- "OID truncated" has 10 bytes of ObjectId).
SELECT '\x56e1fc72e0c917e9c4714161'::bytea::objectid AS from_bytea, '56e1fc72e0c917e9c4714161'::objectid::bytea AS to_bytea;
\set VERBOSITY sqlstate
SELECT '\x56e1fc72e0c917e9c471'::bytea::objectid;           -- OID truncated (oid.json)
SELECT '\x56e1fc72e0c917e9c471416100'::bytea::objectid;     -- 13 bytes
SELECT ''::bytea::objectid;
\set VERBOSITY default
SELECT '\x56e1fc72e0c917e9c471'::bytea::objectid;
SELECT decode(repeat('ab', 200), 'hex')::objectid;          -- the message keeps 100 bytes

-- MongoDB Extended JSON: {"$oid": "<24 hex>"} out (json, jsonb, and through the cast: to_json,
-- to_jsonb, json_build_object, row_to_json) and in (json, jsonb).
SELECT x::json AS json, x::jsonb AS jsonb, to_json(x) AS to_json, to_jsonb(x) AS to_jsonb,
       json_build_object('_id', x) AS doc, jsonb_build_object('_id', x) AS docb
FROM (VALUES ('56e1fc72e0c917e9c4714161'::objectid)) t(x);
SELECT row_to_json(r) AS row_json FROM (SELECT '56e1fc72e0c917e9c4714161'::objectid AS _id, 'a' AS name) r;
SELECT '{"$oid": "56e1fc72e0c917e9c4714161"}'::json::objectid AS from_json,
       '{"$oid":"56E1FC72E0C917E9C4714161"}'::jsonb::objectid AS from_jsonb_upper,
       objectid('{"$oid": "56e1fc72e0c917e9c4714161"}'::jsonb) AS by_function;
-- json is read as jsonb: of a duplicate key, the last value counts.
SELECT '{"$oid": "000000000000000000000000", "$oid": "56e1fc72e0c917e9c4714161"}'::json::objectid AS duplicate_key_last_wins;
SELECT bool_and(x::json::objectid = x AND x::jsonb::objectid = x AND to_jsonb(x)::objectid = x) AS json_round_trip
FROM (SELECT gen_objectid() AS x FROM generate_series(1, 1000)) s;
\set VERBOSITY sqlstate
SELECT '"56e1fc72e0c917e9c4714161"'::jsonb::objectid;                          -- a bare string
SELECT '{"$oid": "56e1fc72e0c917e9c4714161", "x": 1}'::jsonb::objectid;       -- another key
SELECT '{"oid": "56e1fc72e0c917e9c4714161"}'::jsonb::objectid;
SELECT '{"$oid": 1}'::jsonb::objectid;
SELECT '{"$oid": "56e1fc72e0c917e9c471416"}'::json::objectid;
SELECT '{"$oid": {"$oid": "56e1fc72e0c917e9c4714161"}}'::jsonb::objectid;
SELECT '[{"$oid": "56e1fc72e0c917e9c4714161"}]'::jsonb::objectid;
\set VERBOSITY default
SELECT '{"$oid":  "56e1fc72e0c917e9c471416"}'::json::objectid;
SELECT '{"$oid": "56e1fc72e0c917e9c4714161", "x": 1}'::jsonb::objectid;

-- Casts: all explicit, none between existing types.
SELECT s.typname AS source, t.typname AS target, c.castcontext, c.castmethod, c.castfunc::regprocedure AS func
FROM pg_cast c JOIN pg_type s ON s.oid = c.castsource JOIN pg_type t ON t.oid = c.casttarget
WHERE s.typname = 'objectid' OR t.typname = 'objectid' ORDER BY 1, 2;
SELECT typname, typlen, typbyval, typalign, typstorage, typcategory FROM pg_type WHERE typname = 'objectid';

-- Bounds: the smallest and largest ObjectId of the second containing a time.
SELECT objectid_lower('2016-03-10 23:00:02.75+00') AS lower, objectid_upper('2016-03-10 23:00:02.75+00') AS upper,
       objectid_lower('1970-01-01 00:00:00+00') AS first, objectid_upper('2106-02-07 06:28:15.999999+00') AS last;
SELECT objectid_lower(objectid_time(x)) <= x AND x <= objectid_upper(objectid_time(x)) AS within_bounds,
       objectid_upper(objectid_time(x) - interval '1 second') < objectid_lower(objectid_time(x)) AS seconds_adjoin
FROM (VALUES ('56e1fc72e0c917e9c4714161'::objectid)) t(x);
\set VERBOSITY sqlstate
SELECT objectid_lower('1969-12-31 23:59:59.999999+00');
SELECT objectid_upper('2106-02-07 06:28:16+00');
SELECT objectid_lower('infinity');
SELECT objectid_upper('-infinity');
SELECT gen_objectid('2106-02-07 06:28:16+00');
\set VERBOSITY default
SELECT objectid_lower('1969-12-31 23:59:59+00');

-- Generator: within one backend the 5-byte random value is the same; the 3-byte counter steps by
-- one per ID (modulo 2^24); the time is now; no two IDs are equal.
CREATE TEMP TABLE gen AS
  SELECT n, x, x::bytea AS b FROM (SELECT n, gen_objectid() AS x FROM generate_series(1, 20000) n OFFSET 0) g;
SELECT count(*) AS ids, count(DISTINCT x) AS distinct_ids, count(DISTINCT substr(b, 5, 5)) AS random_values,
       bool_and(objectid_time(x) BETWEEN date_trunc('second', statement_timestamp()) - interval '1 second'
                                     AND clock_timestamp()) AS time_is_now,
       bool_and(length(b) = 12) AS twelve_bytes
FROM gen;
SELECT bool_and(((get_byte(b, 9) * 65536 + get_byte(b, 10) * 256 + get_byte(b, 11))
                 - (get_byte(pb, 9) * 65536 + get_byte(pb, 10) * 256 + get_byte(pb, 11)) + 16777216) % 16777216 = 1) AS counter_steps_by_one,
       bool_and(objectid_time(x) >= objectid_time(px)) AS time_never_goes_back
FROM (SELECT b, x, lag(b) OVER (ORDER BY n) AS pb, lag(x) OVER (ORDER BY n) AS px FROM gen) s WHERE pb IS NOT NULL;
-- gen_objectid(timestamptz): that second, the same random value, the next counter value.
SELECT objectid_time(y) AS time, substr(y::bytea, 5, 5) = (SELECT substr(b, 5, 5) FROM gen LIMIT 1) AS same_random,
       ((get_byte(y::bytea, 9) * 65536 + get_byte(y::bytea, 10) * 256 + get_byte(y::bytea, 11))
        - (SELECT get_byte(b, 9) * 65536 + get_byte(b, 10) * 256 + get_byte(b, 11) FROM gen ORDER BY n DESC LIMIT 1) + 16777216) % 16777216 = 1 AS next_counter
FROM (SELECT gen_objectid('2016-03-10 23:00:02.9+00') AS y) s;

-- Order: bytewise, as MongoDB's. For 100,000 random pairs (a tenth sharing their first 8 bytes) the
-- operators, cmp, the bytea order and the text order under "C" agree; text round-trips.
CREATE TEMP TABLE pairs AS
  SELECT a, CASE WHEN n % 10 = 0 THEN objectid(substr(a::bytea, 1, 8) || substr(b::bytea, 9, 4)) ELSE b END AS b
  FROM (SELECT n, substr(replace(gen_random_uuid()::text, '-', ''), 1, 24)::objectid AS a,
               substr(replace(gen_random_uuid()::text, '-', ''), 1, 24)::objectid AS b
        FROM generate_series(1, 100000) n) s;
SELECT count(*) AS pairs,
       bool_and((a < b) = (a::bytea < b::bytea) AND (a = b) = (a::bytea = b::bytea) AND (a > b) = (a::bytea > b::bytea)) AS bytewise,
       bool_and((a <= b) = (a::bytea <= b::bytea) AND (a >= b) = (a::bytea >= b::bytea) AND (a <> b) = (a::bytea <> b::bytea)) AS bytewise_2,
       bool_and(sign(objectid_cmp(a, b)) = CASE WHEN a::bytea < b::bytea THEN -1 WHEN a::bytea > b::bytea THEN 1 ELSE 0 END) AS cmp,
       bool_and((a < b) = (a::text COLLATE "C" < b::text COLLATE "C")) AS text_order,
       bool_and(a::text::objectid = a AND a::text ~ '^[0-9a-f]{24}$') AS text_round_trip,
       bool_and(objectid_cmp(a, a) = 0 AND a = a) AS reflexive
FROM pairs;
-- Sorting (sortsupport, abbreviated keys on the first 8 bytes, ties broken by all 12) gives the
-- bytea order; so do min() and max().
SELECT array_agg(x ORDER BY x) = array_agg(x ORDER BY x::bytea) AS sort_matches_bytes,
       min(x) = (SELECT x FROM (SELECT a FROM pairs UNION ALL SELECT b FROM pairs UNION ALL SELECT x FROM gen) s(x) ORDER BY x::bytea LIMIT 1) AS min_ok,
       max(x) = (SELECT x FROM (SELECT a FROM pairs UNION ALL SELECT b FROM pairs UNION ALL SELECT x FROM gen) s(x) ORDER BY x::bytea DESC LIMIT 1) AS max_ok
FROM (SELECT a FROM pairs UNION ALL SELECT b FROM pairs UNION ALL SELECT x FROM gen) s(x);
-- Hashing: equal values hash equally; the extended hash with seed 0 agrees with the 32-bit one in
-- its low 32 bits (as PostgreSQL's hash functions must); other seeds differ.
SELECT bool_and(objectid_hash(a) = objectid_hash(a::text::objectid)) AS equal_hash,
       bool_and((objectid_hash_extended(a, 0) & 4294967295) = (objectid_hash(a)::bigint & 4294967295)) AS seed0_low_bits,
       count(DISTINCT objectid_hash(a)) > 99000 AS spread,
       count(*) FILTER (WHERE objectid_hash_extended(a, 0) = objectid_hash_extended(a, 1)) < 5 AS seed_matters
FROM pairs;

-- Plans are asserted through their nodes, not EXPLAIN's text (which differs between versions).
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
                              'filter ' || (node ->> 'Filter'))
    FROM n ORDER BY 1;
END
$$;

SELECT t.typname, a.amname, c.opcname, c.opcdefault
FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod JOIN pg_type t ON t.oid = c.opcintype
WHERE t.typname = 'objectid' ORDER BY 1, 2;
SELECT f.opfname, p.amprocnum, p.amproc::regproc AS proc
FROM pg_amproc p JOIN pg_opfamily f ON f.oid = p.amprocfamily JOIN pg_am a ON a.oid = f.opfmethod
WHERE f.opfname IN ('objectid_ops', 'objectid_minmax_ops') ORDER BY a.amname, 1, 2;
CREATE TABLE t_oid (id objectid PRIMARY KEY, n int NOT NULL);
INSERT INTO t_oid SELECT a, row_number() OVER () FROM pairs LIMIT 30000;
CREATE INDEX t_oid_hash ON t_oid USING hash (id);
ANALYZE t_oid;
SET enable_seqscan = off;
SELECT * FROM pg_temp.plan_nodes($q$SELECT count(*) FROM t_oid WHERE id BETWEEN objectid_lower('2000-01-01') AND objectid_upper('2030-01-01')$q$) node;
SELECT count(*) = (SELECT count(*) FROM t_oid WHERE id::bytea BETWEEN objectid_lower('2000-01-01')::bytea AND objectid_upper('2030-01-01')::bytea) AS range_matches
FROM t_oid WHERE id BETWEEN objectid_lower('2000-01-01') AND objectid_upper('2030-01-01');
SELECT * FROM pg_temp.plan_nodes($q$SELECT min(id), max(id) FROM t_oid$q$) node;
SELECT min(id) = (SELECT id FROM t_oid ORDER BY id::bytea LIMIT 1) AS min_ok, max(id) = (SELECT id FROM t_oid ORDER BY id::bytea DESC LIMIT 1) AS max_ok FROM t_oid;
SET enable_bitmapscan = off;
ALTER TABLE t_oid DROP CONSTRAINT t_oid_pkey;
SELECT * FROM pg_temp.plan_nodes($q$SELECT n FROM t_oid WHERE id = '56e1fc72e0c917e9c4714161'$q$) node;
SELECT count(*) AS hash_lookups FROM t_oid t WHERE (SELECT count(*) FROM t_oid u WHERE u.id = t.id) = 1;
RESET enable_bitmapscan;
RESET enable_seqscan;
SELECT count(*) AS rows_agree FROM t_oid t JOIN pairs p ON p.a = t.id;
DROP TABLE t_oid;

-- BRIN minmax: the default for USING brin; a scan uses it and finds the right rows.
CREATE TABLE b_oid (n int, id objectid);
INSERT INTO b_oid SELECT n, objectid_lower(timestamptz '2020-01-01 00:00:00+00' + n * interval '1 second') FROM generate_series(1, 20000) n;
CREATE INDEX b_oid_brin ON b_oid USING brin (id) WITH (pages_per_range = 4);
ANALYZE b_oid;
SET enable_seqscan = off;
SELECT * FROM pg_temp.plan_nodes($q$SELECT n FROM b_oid WHERE id BETWEEN objectid_lower('2020-01-01 01:00:00+00') AND objectid_upper('2020-01-01 01:00:09+00')$q$) node;
SELECT count(*) AS rows, min(n) AS first_n, max(n) AS last_n
FROM b_oid WHERE id BETWEEN objectid_lower('2020-01-01 01:00:00+00') AND objectid_upper('2020-01-01 01:00:09+00');
RESET enable_seqscan;
DROP TABLE b_oid;

-- Labels: the generators VOLATILE, everything else IMMUTABLE; all PARALLEL SAFE.
SELECT p.oid::regprocedure AS function, p.provolatile, p.proparallel, p.proisstrict, p.proleakproof
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'id_gen'
WHERE p.proname LIKE '%objectid%' ORDER BY p.oid::regprocedure::text;
SELECT a.aggfnoid::regprocedure AS aggregate, p.proparallel, o.oprname AS sortop
FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid JOIN pg_operator o ON o.oid = a.aggsortop
WHERE p.proargtypes[0] = 'objectid'::regtype ORDER BY 1;
SELECT o.oprname, o.oprcanhash, o.oprcanmerge, o.oprrest, o.oprjoin
FROM pg_operator o WHERE o.oprleft = 'objectid'::regtype ORDER BY 1;
