-- ksuid: Segment's KSUID. Segment's published example, the text range and its errors, soft errors,
-- casts (bytea, timestamptz), bounds, operators and opclasses (btree with sortsupport, hash, BRIN),
-- min/max, the generator's properties, labels. Random values are checked through properties.
SET client_min_messages = warning;
SET TimeZone = 'UTC';
\set VERBOSITY default
\set SHOW_CONTEXT never

-- Segment's example (github.com/segmentio/ksuid README): text, bytes, time.
SELECT k AS ksuid, k::bytea AS bytes, ksuid_time(k) AS time, k::timestamptz AS cast_time,
       k = ksuid('\x0669F7EFB5A1CD34B5F99D1154FB6853345C9735'::bytea) AS from_bytes
FROM (VALUES ('0ujtsYcgvSTl8PAuAdqWYSMnLOv'::ksuid)) t(k);
-- The two ends of the range: 27 zeros, and 2^160 - 1.
SELECT '000000000000000000000000000'::ksuid::bytea AS smallest, 'aWgEPTl1tmebfsQzFP4bxwgy80V'::ksuid::bytea AS largest,
       ksuid_time('000000000000000000000000000') AS first_second, ksuid_time('aWgEPTl1tmebfsQzFP4bxwgy80V') AS last_second,
       ksuid('\xffffffffffffffffffffffffffffffffffffffff'::bytea) AS largest_text;
SELECT length('0ujtsYcgvSTl8PAuAdqWYSMnLOv'::ksuid::text) AS text_len, ksuid_send('0ujtsYcgvSTl8PAuAdqWYSMnLOv') AS send;

-- Errors: anything but 27 base62 digits is 22P02; 27 digits above the largest value are 22003.
\set VERBOSITY sqlstate
SELECT '0ujtsYcgvSTl8PAuAdqWYSMnLO'::ksuid;        -- 26
SELECT '0ujtsYcgvSTl8PAuAdqWYSMnLOvv'::ksuid;      -- 28
SELECT '0ujtsYcgvSTl8PAuAdqWYSMnLO_'::ksuid;
SELECT ' ujtsYcgvSTl8PAuAdqWYSMnLOv'::ksuid;
SELECT ''::ksuid;
SELECT 'aWgEPTl1tmebfsQzFP4bxwgy80W'::ksuid;       -- 2^160
SELECT 'zzzzzzzzzzzzzzzzzzzzzzzzzzz'::ksuid;
SELECT 'b00000000000000000000000000'::ksuid;
\set VERBOSITY default
SELECT 'not-a-ksuid'::ksuid;
SELECT 'aWgEPTl1tmebfsQzFP4bxwgy80W'::ksuid;
SELECT ('a' || repeat('é', 300))::ksuid;           -- cut at a character boundary

-- Soft errors.
SELECT v, id_gen_input_is_valid(v, 'ksuid') AS valid, (id_gen_input_error_info(v, 'ksuid')).sql_error_code,
       (id_gen_input_error_info(v, 'ksuid')).message
FROM (VALUES ('0ujtsYcgvSTl8PAuAdqWYSMnLOv'), ('0ujtsYcgvSTl8PAuAdqWYSMnLO'), ('aWgEPTl1tmebfsQzFP4bxwgy80W')) c(v);

-- bytea: exactly 20 bytes; any other length is 22P02.
\set VERBOSITY sqlstate
SELECT '\x0669f7efb5a1cd34b5f99d1154fb6853345c97'::bytea::ksuid;
SELECT '\x0669f7efb5a1cd34b5f99d1154fb6853345c973500'::bytea::ksuid;
\set VERBOSITY default
SELECT '\x0669f7efb5a1cd34b5f99d1154fb6853345c97'::bytea::ksuid;

-- Casts: all explicit; the type's shape.
SELECT s.typname AS source, t.typname AS target, c.castcontext, c.castmethod, c.castfunc::regprocedure AS func
FROM pg_cast c JOIN pg_type s ON s.oid = c.castsource JOIN pg_type t ON t.oid = c.casttarget
WHERE s.typname = 'ksuid' OR t.typname = 'ksuid' ORDER BY 1, 2;
SELECT typname, typlen, typbyval, typalign, typstorage, typcategory FROM pg_type WHERE typname = 'ksuid';

-- Bounds: the smallest and largest KSUID of the second containing a time; the range is
-- 2014-05-13 16:53:20 .. 2150-06-19 23:21:35 UTC, 22003 outside it.
SELECT ksuid_lower('2017-10-10 04:00:47.5+00') AS lower, ksuid_upper('2017-10-10 04:00:47.5+00') AS upper,
       ksuid_lower('2014-05-13 16:53:20+00') AS first, ksuid_upper('2150-06-19 23:21:35.999999+00') AS last,
       '0ujtsYcgvSTl8PAuAdqWYSMnLOv'::ksuid BETWEEN ksuid_lower('2017-10-10 04:00:47+00') AND ksuid_upper('2017-10-10 04:00:47+00') AS example_within;
\set VERBOSITY sqlstate
SELECT ksuid_lower('2014-05-13 16:53:19.999999+00');
SELECT ksuid_upper('2150-06-19 23:21:36+00');
SELECT ksuid_lower('infinity');
SELECT gen_ksuid('2014-05-13 16:53:19+00');
\set VERBOSITY default
SELECT ksuid_lower('2014-05-13 16:53:19+00');

-- Generator: the time is now; within one backend successive values strictly increase (one
-- second's values continue the payload); none repeats.
CREATE TEMP TABLE gen AS SELECT n, x FROM (SELECT n, gen_ksuid() AS x FROM generate_series(1, 20000) n OFFSET 0) g;
SELECT count(*) AS ids, count(DISTINCT x) AS distinct_ids,
       bool_and(ksuid_time(x) BETWEEN date_trunc('second', statement_timestamp()) - interval '1 second' AND clock_timestamp()) AS time_is_now
FROM gen;
SELECT bool_and(x > px) AS strictly_increasing, bool_and(ksuid_time(x) >= ksuid_time(px)) AS time_never_goes_back
FROM (SELECT x, lag(x) OVER (ORDER BY n) AS px FROM gen) s WHERE px IS NOT NULL;
-- gen_ksuid(timestamptz): that second, a fresh payload each time.
SELECT ksuid_time(gen_ksuid('2020-02-02 02:02:02.9+00')) AS time,
       count(DISTINCT gen_ksuid('2020-02-02 02:02:02+00')) AS distinct_at_one_time FROM generate_series(1, 1000);

-- Order: bytewise. For 100,000 random pairs (a tenth sharing their first 8 bytes) the operators,
-- cmp, the bytea order and the text order under "C" agree; text round-trips.
CREATE TEMP TABLE pairs AS
  SELECT a, CASE WHEN n % 10 = 0 THEN ksuid(substr(a::bytea, 1, 8) || substr(b::bytea, 9, 12)) ELSE b END AS b
  FROM (SELECT n, ksuid(decode(md5(n::text || random()::text) || substr(md5(random()::text), 1, 8), 'hex')) AS a,
               ksuid(decode(md5(n::text || random()::text) || substr(md5(random()::text), 1, 8), 'hex')) AS b
        FROM generate_series(1, 100000) n) s;
SELECT count(*) AS pairs,
       bool_and((a < b) = (a::bytea < b::bytea) AND (a = b) = (a::bytea = b::bytea) AND (a > b) = (a::bytea > b::bytea)) AS bytewise,
       bool_and((a <= b) = (a::bytea <= b::bytea) AND (a >= b) = (a::bytea >= b::bytea) AND (a <> b) = (a::bytea <> b::bytea)) AS bytewise_2,
       bool_and(sign(ksuid_cmp(a, b)) = CASE WHEN a::bytea < b::bytea THEN -1 WHEN a::bytea > b::bytea THEN 1 ELSE 0 END) AS cmp,
       bool_and((a < b) = (a::text COLLATE "C" < b::text COLLATE "C")) AS text_order,
       bool_and(a::text::ksuid = a AND a::text ~ '^[0-9A-Za-z]{27}$') AS text_round_trip,
       bool_and(ksuid_cmp(a, a) = 0 AND a = a) AS reflexive
FROM pairs;
SELECT array_agg(x ORDER BY x) = array_agg(x ORDER BY x::bytea) AS sort_matches_bytes,
       min(x) = (SELECT x FROM (SELECT a FROM pairs UNION ALL SELECT b FROM pairs) s(x) ORDER BY x::bytea LIMIT 1) AS min_ok,
       max(x) = (SELECT x FROM (SELECT a FROM pairs UNION ALL SELECT b FROM pairs) s(x) ORDER BY x::bytea DESC LIMIT 1) AS max_ok
FROM (SELECT a FROM pairs UNION ALL SELECT b FROM pairs) s(x);
SELECT bool_and(ksuid_hash(a) = ksuid_hash(a::text::ksuid)) AS equal_hash,
       bool_and((ksuid_hash_extended(a, 0) & 4294967295) = (ksuid_hash(a)::bigint & 4294967295)) AS seed0_low_bits,
       count(DISTINCT ksuid_hash(a)) > 99000 AS spread,
       count(*) FILTER (WHERE ksuid_hash_extended(a, 0) = ksuid_hash_extended(a, 1)) < 5 AS seed_matters
FROM pairs;

-- Opclasses and index scans (plan nodes, not EXPLAIN's text).
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
    SELECT DISTINCT concat_ws(' ', node ->> 'Node Type', 'using ' || (node ->> 'Index Name'), 'on ' || (node ->> 'Relation Name'))
    FROM n ORDER BY 1;
END
$$;
SELECT t.typname, a.amname, c.opcname, c.opcdefault
FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod JOIN pg_type t ON t.oid = c.opcintype
WHERE t.typname = 'ksuid' ORDER BY 1, 2;
SELECT f.opfname, a.amname, p.amprocnum, p.amproc::regproc AS proc
FROM pg_amproc p JOIN pg_opfamily f ON f.oid = p.amprocfamily JOIN pg_am a ON a.oid = f.opfmethod
WHERE f.opfname IN ('ksuid_ops', 'ksuid_minmax_ops') ORDER BY a.amname, 1, 3;
CREATE TABLE t_ksuid (id ksuid PRIMARY KEY, n int NOT NULL);
INSERT INTO t_ksuid SELECT a, row_number() OVER () FROM pairs LIMIT 30000;
CREATE INDEX t_ksuid_hash ON t_ksuid USING hash (id);
ANALYZE t_ksuid;
-- The BRIN check's expected count, computed while sequential scans are allowed (with them off, a
-- server may probe the BRIN index once per row of pairs).
SELECT count(*) AS brin_expected FROM pairs p WHERE p.a >= ksuid_lower('2100-01-01') AND p.a IN (SELECT id FROM t_ksuid) \gset
SET enable_seqscan = off;
SELECT * FROM pg_temp.plan_nodes($q$SELECT count(*) FROM t_ksuid WHERE id BETWEEN ksuid_lower('2020-01-01') AND ksuid_upper('2100-01-01')$q$) node;
SELECT count(*) = (SELECT count(*) FROM t_ksuid WHERE id::bytea BETWEEN ksuid_lower('2020-01-01')::bytea AND ksuid_upper('2100-01-01')::bytea) AS range_matches
FROM t_ksuid WHERE id BETWEEN ksuid_lower('2020-01-01') AND ksuid_upper('2100-01-01');
SELECT * FROM pg_temp.plan_nodes($q$SELECT min(id), max(id) FROM t_ksuid$q$) node;
SELECT min(id) = (SELECT id FROM t_ksuid ORDER BY id::bytea LIMIT 1) AS min_ok, max(id) = (SELECT id FROM t_ksuid ORDER BY id::bytea DESC LIMIT 1) AS max_ok FROM t_ksuid;
ALTER TABLE t_ksuid DROP CONSTRAINT t_ksuid_pkey;
SET enable_bitmapscan = off;
SELECT * FROM pg_temp.plan_nodes($q$SELECT n FROM t_ksuid WHERE id = '0ujtsYcgvSTl8PAuAdqWYSMnLOv'$q$) node;
SELECT count(*) AS hash_lookups FROM t_ksuid t WHERE (SELECT count(*) FROM t_ksuid u WHERE u.id = t.id) = 1;
RESET enable_bitmapscan;
DROP INDEX t_ksuid_hash;
CREATE INDEX t_ksuid_brin ON t_ksuid USING brin (id);
SELECT * FROM pg_temp.plan_nodes($q$SELECT count(*) FROM t_ksuid WHERE id >= ksuid_lower('2100-01-01')$q$) node;
SELECT count(*) = :brin_expected AS brin_matches
FROM t_ksuid WHERE id >= ksuid_lower('2100-01-01');
RESET enable_seqscan;
DROP TABLE t_ksuid;

-- Labels: volatility and parallel safety.
SELECT p.oid::regprocedure AS func, p.provolatile, p.proparallel, p.proisstrict
FROM pg_proc p WHERE p.proname IN ('gen_ksuid', 'ksuid_time', 'ksuid_lower', 'ksuid_upper', 'ksuid', 'ksuid_to_bytea', 'ksuid_in', 'ksuid_out')
ORDER BY p.oid::regprocedure::text;

-- A per-entity type of kind ksuid: prefixed text (prefix, '_', the KSUID's 27 characters), the
-- bare KSUID read too, the kind's generator, time and bounds, casts to and from ksuid, and no
-- TypeID format (TypeID holds 128 bits).
SELECT create_id_type('ksuid_event_id', kind => 'ksuid', prefix => 'kev');
SELECT 'kev_0ujtsYcgvSTl8PAuAdqWYSMnLOv'::ksuid_event_id AS prefixed, '0ujtsYcgvSTl8PAuAdqWYSMnLOv'::ksuid_event_id AS from_bare,
       'kev_0ujtsYcgvSTl8PAuAdqWYSMnLOv'::ksuid_event_id::ksuid::bytea AS bytes,
       ksuid_event_id_time('kev_0ujtsYcgvSTl8PAuAdqWYSMnLOv') AS time, id_type_describe('ksuid_event_id') AS describe;
SELECT typlen, typalign FROM pg_type WHERE typname = 'ksuid_event_id';
CREATE TABLE t_kev (id ksuid_event_id PRIMARY KEY DEFAULT gen_ksuid_event_id(), n int);
INSERT INTO t_kev (n) SELECT g FROM generate_series(1, 2000) g;
SELECT count(*) AS ids, count(DISTINCT id) AS distinct_ids, bool_and(id::text ~ '^kev_[0-9A-Za-z]{27}$') AS shape,
       array_agg(id ORDER BY id) = array_agg(id ORDER BY n) AS ascending_in_order_made,
       count(*) FILTER (WHERE id BETWEEN ksuid_event_id_lower(now() - interval '1 minute') AND ksuid_event_id_upper(now())) AS within_bounds
FROM t_kev;
\set VERBOSITY sqlstate
SELECT 'kev_0ujtsYcgvSTl8PAuAdqWYSMnLO'::ksuid_event_id;
SELECT 'kev_aWgEPTl1tmebfsQzFP4bxwgy80W'::ksuid_event_id;
\set VERBOSITY default
SELECT 'acct_0ujtsYcgvSTl8PAuAdqWYSMnLOv'::ksuid_event_id;
SELECT create_id_type('ksuid_typeid_id', kind => 'ksuid', prefix => 'kti', format => 'typeid');
DROP TABLE t_kev;
SELECT drop_id_type('ksuid_event_id');
