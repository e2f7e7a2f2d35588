-- snowflake: I/O, range checks, casts, operators, opclasses, layouts, decoders, range helpers,
-- base36, node generators, settings and labels. The test cluster preloads id_gen and is node 1.
-- Output is deterministic: generated values are checked through properties, never printed.
SET client_min_messages = warning;
\set VERBOSITY default
\set SHOW_CONTEXT never

-- Text I/O: decimal, from 1 to 2^63-1; spaces and a plus sign as for bigint.
SELECT '1'::snowflake, '9223372036854775807'::snowflake, ' 42 '::snowflake, '+7'::snowflake, '007'::snowflake;
\set VERBOSITY sqlstate
SELECT '0'::snowflake;
SELECT '-1'::snowflake;
SELECT '-0'::snowflake;
SELECT '9223372036854775808'::snowflake;
SELECT '99999999999999999999999'::snowflake;
SELECT ''::snowflake;
SELECT 'abc'::snowflake;
SELECT '1.5'::snowflake;
SELECT '12a'::snowflake;
SELECT '1 2'::snowflake;
SELECT '+'::snowflake;
\set VERBOSITY default
SELECT '0'::snowflake;
SELECT 'x1'::snowflake;

-- Casts: snowflake -> bigint is an assignment cast without a function; bigint -> snowflake checks.
SELECT 42::bigint::snowflake, 9223372036854775807::bigint::snowflake, '5'::snowflake::bigint;
\set VERBOSITY sqlstate
SELECT 0::bigint::snowflake;
SELECT (-9223372036854775808)::bigint::snowflake;
\set VERBOSITY default
SELECT (-3)::bigint::snowflake;
SELECT castsource::regtype, casttarget::regtype, castcontext, castmethod FROM pg_cast
  WHERE castsource = 'snowflake'::regtype OR casttarget = 'snowflake'::regtype ORDER BY castsource::regtype::text, casttarget::regtype::text;
CREATE TEMP TABLE big (v bigint);
INSERT INTO big VALUES ('77'::snowflake);  -- assignment cast
SELECT v FROM big;
SELECT typlen, typbyval, typalign FROM pg_type WHERE oid = 'snowflake'::regtype;

-- Binary receive checks the range like text input (COPY BINARY of a bigint file).
\getenv port PGPORT
\set bin '/tmp/id_gen_snowflake_regress_' :port '.bin'
COPY (SELECT v FROM (VALUES (1::bigint), (9223372036854775807)) s(v)) TO :'bin' (FORMAT binary);
CREATE TEMP TABLE bin_ok (id snowflake);
COPY bin_ok FROM :'bin' (FORMAT binary);
SELECT id FROM bin_ok ORDER BY id;
SELECT snowflake_send(id) = int8send(id::bigint) AS send_is_int8 FROM bin_ok;
COPY (SELECT 0::bigint) TO :'bin' (FORMAT binary);
\set VERBOSITY sqlstate
COPY bin_ok FROM :'bin' (FORMAT binary);
COPY (SELECT (-7)::bigint) TO :'bin' (FORMAT binary);
COPY bin_ok FROM :'bin' (FORMAT binary);
\set VERBOSITY default

-- Operators agree with bigint's order; hash equals int8's.
SELECT '5'::snowflake < '6'::snowflake AS lt, '5'::snowflake <= '5'::snowflake AS le, '5'::snowflake = '5'::snowflake AS eq,
       '5'::snowflake <> '6'::snowflake AS ne, '7'::snowflake > '6'::snowflake AS gt, '7'::snowflake >= '7'::snowflake AS ge;
CREATE TEMP TABLE pairs AS
  SELECT (1 + floor(random() * 9e18))::bigint AS a, (1 + floor(random() * 9e18))::bigint AS b FROM generate_series(1, 2000);
SELECT bool_and((a::snowflake < b::snowflake) = (a < b)) AS lt_matches,
       bool_and(snowflake_cmp(a::snowflake, b::snowflake) = btint8cmp(a, b)) AS cmp_matches,
       bool_and(snowflake_hash(a::snowflake) = hashint8(a)) AS hash_matches,
       bool_and(snowflake_hash_extended(a::snowflake, 7) = hashint8extended(a, 7)) AS hash_ext_matches
FROM pairs;

-- Published layouts. Twitter: 41 bits of ms since 1288834974657 | 10 node | 12 sequence.
-- Tweet 1541815603606036480 carries 1656432460105 ms (2022-06-28 16:07:40.105 UTC), node 378.
SELECT snowflake_time('1541815603606036480') AT TIME ZONE 'UTC' AS tweet_time,
       (extract(epoch FROM snowflake_time('1541815603606036480')) * 1000)::bigint AS tweet_ms,
       snowflake_node('1541815603606036480'), snowflake_sequence('1541815603606036480');
SELECT snowflake_time('4194304') AT TIME ZONE 'UTC' AS twitter_epoch_plus_1ms;
-- Instagram (its engineering post): 1387263000 ms after the epoch, shard 1341, nextval 5001 % 1024 = 905.
SELECT snowflake_node('11637205501278089', 'instagram') AS shard,
       snowflake_sequence('11637205501278089', 'instagram') AS seq,
       (extract(epoch FROM snowflake_time('11637205501278089', 'instagram')) * 1000)::bigint - 1314220021721 AS ms_since_epoch;
SELECT ((1387263000::bigint << 23) | (1341 << 10) | 7)::snowflake AS instagram_seq_7,
       snowflake_sequence(((1387263000::bigint << 23) | (1341 << 10) | 7)::snowflake, 'instagram') AS seq;
-- Sonyflake: 39 bits of 10 ms since 2014-09-01 | 8 sequence | 16 machine.
SELECT snowflake_time(((100::bigint << 24) | (3 << 16) | 513)::snowflake, 'sonyflake') AT TIME ZONE 'UTC' AS sony_time,
       snowflake_sequence(((100::bigint << 24) | (3 << 16) | 513)::snowflake, 'Sonyflake') AS sony_seq,
       snowflake_node(((100::bigint << 24) | (3 << 16) | 513)::snowflake, 'SONYFLAKE') AS sony_machine;
-- Custom: the twitter layout spelled out decodes the same.
SELECT snowflake_time('1541815603606036480', 'epoch'::timestamptz + interval '1288834974657 ms', 41, 10, 12)
       = snowflake_time('1541815603606036480') AS custom_matches,
       snowflake_node('1541815603606036480', 'epoch'::timestamptz + interval '1288834974657 ms', 41, 10, 12) AS node,
       snowflake_node('1541815603606036480', '2020-01-01', 40, 0, 23) AS no_node_field;
\set VERBOSITY sqlstate
SELECT snowflake_time('1', 'discord');
SELECT snowflake_time('1', '2020-01-01', 41, 12, 11);
SELECT snowflake_time('1', '2020-01-01', 0, 10, 12);
SELECT snowflake_time('1', '2020-01-01', 41, -1, 12);
SELECT snowflake_time('1', 'infinity', 41, 10, 12);
SELECT snowflake_time('9223372036854775807', '2020-01-01', 63, 0, 0);
\set VERBOSITY default
SELECT snowflake_time('1', 'discord');
SELECT snowflake_time('1', '2020-01-01', 41, 12, 11);

-- Range helpers: the smallest / largest snowflake of an instant, any node.
SELECT snowflake_lower('2022-06-28 16:07:40.105+00'), snowflake_upper('2022-06-28 16:07:40.105+00');
SELECT '1541815603606036480'::snowflake BETWEEN snowflake_lower('2022-06-28 16:07:40.105+00')
                                             AND snowflake_upper('2022-06-28 16:07:40.105+00') AS tweet_in_its_ms;
SELECT snowflake_lower('2010-11-04 01:42:54.657+00') AS epoch_lower_is_1,
       snowflake_upper('2010-11-04 01:42:54.657+00') AS epoch_upper;
SELECT snowflake_upper('2093-09-06 15:47:35.551+00', 'javascript')::bigint = 9007199254740991 AS js_last_ms_is_2_53_minus_1,
       snowflake_upper('2093-09-06 15:47:35.551+00', 'javascript')::bigint <= (2::numeric ^ 53 - 1) AS js_safe;
SELECT snowflake_upper('2046-06-27 17:00:49.496+00', 'instagram')::bigint = 9223372036854775807 AS instagram_last_ms_is_max,
       snowflake_upper('2080-07-10 17:30:30.208+00')::bigint = 9223372036854775807 AS twitter_last_ms_is_max;
SELECT snowflake_lower('2024-05-01 12:00:00+00', 'sonyflake'), snowflake_upper('2024-05-01 12:00:00.009+00', 'sonyflake');
SELECT snowflake_lower('2024-05-01+00', '2024-01-01+00', 41, 10, 12)::bigint = ((extract(epoch FROM interval '121 days') * 1000)::bigint << 22) AS custom_lower;
\set VERBOSITY sqlstate
SELECT snowflake_lower('2010-11-04 01:42:54.656+00');
SELECT snowflake_upper('2080-07-10 17:30:30.209+00');
SELECT snowflake_lower('2094-01-01', 'javascript');
SELECT snowflake_lower('2046-06-27 17:00:49.497+00', 'instagram');
SELECT snowflake_lower('infinity');
SELECT snowflake_upper('infinity', '1935-01-01', 41, 10, 12);
SELECT snowflake_lower('infinity', '1935-01-01', 41, 10, 12);
SELECT snowflake_upper('2020-01-01', 'javascript');
\set VERBOSITY default
SELECT snowflake_upper('2080-07-10 17:30:30.209+00');

-- base36: 13 characters, fixed width, so text order = numeric order; either case back in.
SELECT snowflake_to_base36('1'), snowflake_to_base36('9223372036854775807'), snowflake_to_base36('1541815603606036480');
SELECT snowflake_from_base36('0000000000001'), snowflake_from_base36('1Y2P0IJ32E8E7'), snowflake_from_base36('0BPPC0M3JU134');
SELECT bool_and(snowflake_from_base36(snowflake_to_base36(a::snowflake)) = a::snowflake) AS roundtrip,
       bool_and((snowflake_to_base36(a::snowflake) COLLATE "C" < snowflake_to_base36(b::snowflake) COLLATE "C") = (a < b)) AS text_order
FROM pairs;
\set VERBOSITY sqlstate
SELECT snowflake_from_base36('0000000000000');
SELECT snowflake_from_base36('1y2p0ij32e8e8');
SELECT snowflake_from_base36('3w5e11264sgsg');
SELECT snowflake_from_base36('1y2p0ij32e8e-');
\set VERBOSITY default
-- Shorter, unpadded input is accepted, as for every base36 decoder.
SELECT snowflake_from_base36('1y2p0ij32e8e') = snowflake_from_base36('01y2p0ij32e8e') AS unpadded, snowflake_from_base36('zz') AS small;
SELECT snowflake_from_base36('1y2p0ij32e8e8');

-- Node generator: this cluster is node 1 (id_gen.node_id in postgresql.conf).
SHOW id_gen.node_id;
CREATE TEMP TABLE gen AS SELECT n, gen_snowflake() AS id FROM generate_series(1, 100000) n;
SELECT count(DISTINCT id) = count(*) AS distinct_ids,
       bool_and(snowflake_node(id) = 1) AS node_1,
       bool_and(snowflake_time(id) BETWEEN now() - interval '1 minute' AND clock_timestamp() + interval '3 seconds') AS time_is_now
FROM gen;
SELECT bool_and(id > prev) AS strictly_increasing FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM gen) s WHERE prev IS NOT NULL;
-- Sequence numbers stay within the 12-bit field.
SELECT max(snowflake_sequence(id)) <= 4095 AS seq_fits FROM gen;
SELECT bool_and(snowflake_node(gen_snowflake('sonyflake'), 'sonyflake') = 1) AS sony_node,
       bool_and(snowflake_node(gen_snowflake('javascript'), 'javascript') = 1) AS js_node,
       bool_and(gen_snowflake('javascript')::bigint < 9007199254740992) AS js_safe
FROM generate_series(1, 1000);
\set VERBOSITY sqlstate
SELECT gen_snowflake('instagram');
SELECT gen_snowflake('nope');
\set VERBOSITY default
SELECT gen_snowflake('instagram');

-- A full millisecond moves to the next one (run-ahead); the run-ahead bound is a setting.
SHOW id_gen.max_run_ahead;
SELECT count(*) AS ids, count(DISTINCT id) AS distinct_ids,
       count(DISTINCT snowflake_time(id)) >= 20000 / 4096 AS spans_several_ms
FROM (SELECT gen_snowflake() AS id FROM generate_series(1, 20000)) s;

-- A clock that steps back keeps the last time: IDs still increase (testing knob: superuser, and
-- only on a server with id_gen.enable_test_clock = on, as the test clusters are).
CREATE TEMP TABLE before_step AS SELECT max(id) AS m FROM gen;
SET id_gen.test_clock_offset = '-10s';
CREATE TEMP TABLE after_step AS SELECT n, gen_snowflake() AS id FROM generate_series(1, 5000) n;
SELECT bool_and(id > (SELECT m FROM before_step)) AS after_step_larger,
       bool_and(snowflake_time(id) >= (SELECT snowflake_time(m) FROM before_step)) AS time_kept
FROM after_step;
RESET id_gen.test_clock_offset;
SELECT gen_snowflake() > (SELECT max(id) FROM after_step) AS still_increasing;

-- Settings: reserved prefix, node_id checked against the layout, server-level only.
\set VERBOSITY sqlstate
SET id_gen.no_such_setting = 1;
SET id_gen.node_id = 3;
\set VERBOSITY default
SET id_gen.node_id = 3;
SELECT name, setting, context, min_val, max_val FROM pg_settings WHERE name LIKE 'id\_gen.%' ORDER BY name;

-- Generators refuse in a read-only transaction (another server could issue the same IDs).
BEGIN READ ONLY;
SELECT gen_snowflake();
ROLLBACK;
BEGIN READ ONLY;
\set VERBOSITY sqlstate
SELECT gen_snowflake('sonyflake');
ROLLBACK;
\set VERBOSITY default

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

-- Indexes: btree range scans by time with seqscan off, min/max from the index, hash, BRIN.
CREATE TABLE t_sf (id snowflake PRIMARY KEY, at timestamptz NOT NULL);
INSERT INTO t_sf SELECT (snowflake_lower(t)::bigint + (n % 1024) * 4096 + (n % 4096))::snowflake, t FROM
  (SELECT n, timestamptz '2024-01-01 00:00:00+00' + n * interval '1 minute' AS t FROM generate_series(0, 9999) n) s;
ANALYZE t_sf;
SET enable_seqscan = off;
SELECT * FROM pg_temp.plan_nodes($q$SELECT count(*) FROM t_sf WHERE id BETWEEN snowflake_lower('2024-01-02') AND snowflake_upper('2024-01-03')$q$) node;
SELECT count(*) AS in_range,
       count(*) = (SELECT count(*) FROM t_sf WHERE at BETWEEN '2024-01-02' AND '2024-01-03') AS matches_time
FROM t_sf WHERE id BETWEEN snowflake_lower('2024-01-02') AND snowflake_upper('2024-01-03');
SELECT * FROM pg_temp.plan_nodes($q$SELECT min(id), max(id) FROM t_sf$q$) node;
SELECT snowflake_time(min(id)) AT TIME ZONE 'UTC' AS min_t, snowflake_time(max(id)) AT TIME ZONE 'UTC' AS max_t FROM t_sf;
RESET enable_seqscan;
SELECT bool_and(prev_at < at) AS sorted_by_time FROM
  (SELECT at, lag(at) OVER (ORDER BY id) AS prev_at FROM t_sf) s WHERE prev_at IS NOT NULL;
CREATE INDEX t_sf_hash ON t_sf USING hash (id);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT * FROM pg_temp.plan_nodes($q$SELECT * FROM t_sf WHERE id = '1541815603606036480'$q$) node;
RESET enable_bitmapscan;
SELECT count(*) AS hash_lookups FROM t_sf a WHERE EXISTS (SELECT 1 FROM t_sf b WHERE b.id = a.id);
RESET enable_seqscan;
DROP INDEX t_sf_hash;
SET enable_mergejoin = off;
SET enable_nestloop = off;
-- Joined to another table (5,000 of its rows): 18 removes a join of a table to itself on its
-- primary key.
CREATE TABLE t_sf_half AS SELECT id FROM t_sf ORDER BY id LIMIT 5000;
ANALYZE t_sf_half;
SELECT * FROM pg_temp.plan_nodes($q$SELECT count(*) FROM t_sf a JOIN t_sf_half b USING (id)$q$) node;
SELECT count(*) AS hash_join_rows FROM t_sf a JOIN t_sf_half b USING (id);
DROP TABLE t_sf_half;
RESET enable_mergejoin;
RESET enable_nestloop;
CREATE TABLE t_sf_brin AS SELECT * FROM t_sf ORDER BY id;
CREATE INDEX t_sf_brin_idx ON t_sf_brin USING brin (id) WITH (pages_per_range = 1);
SET enable_seqscan = off;
SELECT * FROM pg_temp.plan_nodes($q$SELECT count(*) FROM t_sf_brin WHERE id < snowflake_lower('2024-01-01 01:00:00+00')$q$) node;
SELECT count(*) AS brin_rows FROM t_sf_brin WHERE id < snowflake_lower('2024-01-01 01:00:00+00');
RESET enable_seqscan;
DROP TABLE t_sf_brin;
-- Hash partitioning: a snowflake lands in the partition a bigint of the same value would.
CREATE TABLE t_part (id snowflake PRIMARY KEY) PARTITION BY HASH (id);
CREATE TABLE t_part_0 PARTITION OF t_part FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE t_part_1 PARTITION OF t_part FOR VALUES WITH (MODULUS 2, REMAINDER 1);
CREATE TABLE t_part_big (id bigint PRIMARY KEY) PARTITION BY HASH (id);
CREATE TABLE t_part_big_0 PARTITION OF t_part_big FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE t_part_big_1 PARTITION OF t_part_big FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO t_part SELECT id FROM t_sf;
INSERT INTO t_part_big SELECT id FROM t_sf;
-- (The partition by its OID, not by its name: a name per row is a catalog lookup per row, which
-- under debug_discard_caches, in the long test run, reads the catalog again each time.)
SELECT count(*) AS same_partition FROM
  (SELECT id::bigint AS id, tableoid = 't_part_0'::regclass AS p FROM t_part) a
  JOIN (SELECT id, tableoid = 't_part_big_0'::regclass AS p FROM t_part_big) b USING (id, p);
DROP TABLE t_part, t_part_big, t_sf;

-- Labels: generators VOLATILE PARALLEL UNSAFE; decoders with the layout in their arguments
-- IMMUTABLE; anything else IMMUTABLE PARALLEL SAFE.
SELECT p.oid::regprocedure AS function, p.provolatile, p.proparallel, p.proisstrict
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'id_gen'
WHERE p.proname LIKE '%snowflake%' ORDER BY p.oid::regprocedure::text;

-- base36: the shared base36_encode name and casts to and from base36_64 keep the value and order.
SELECT base36_encode('1541815603606036480'::snowflake) AS b36,
       base36_encode('1541815603606036480'::snowflake) = snowflake_to_base36('1541815603606036480') AS same_as_named,
       '1541815603606036480'::snowflake::base36_64::text = base36_encode('1541815603606036480'::snowflake) AS cast_text,
       '1541815603606036480'::snowflake::base36_64::snowflake = '1541815603606036480'::snowflake AS round_trip,
       '9223372036854775807'::snowflake::base36_64 AS max_b36;
SELECT bool_and((a < b) = (a::base36_64 < b::base36_64)) AS order_kept,
       bool_and((a < b) = (base36_encode(a) COLLATE "C" < base36_encode(b) COLLATE "C")) AS text_order
FROM (SELECT (1 + floor(random() * 9.2e18))::bigint::snowflake AS a,
             (1 + floor(random() * 9.2e18))::bigint::snowflake AS b FROM generate_series(1, 10000)) s;
SELECT castcontext, castmethod FROM pg_cast
  WHERE castsource = 'snowflake'::regtype AND casttarget = 'base36_64'::regtype
     OR castsource = 'base36_64'::regtype AND casttarget = 'snowflake'::regtype ORDER BY castmethod;
\set VERBOSITY sqlstate
SELECT '0'::base36_64::snowflake;
\set VERBOSITY default
