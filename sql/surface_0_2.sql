-- Additions of 0.2.0 to the SQL surface: BRIN on the base36 types, snowflake compared with bigint
-- (and an index scan for it), integer -> snowflake, shard_id_lower/upper(), clearer errors.
-- Output is deterministic: generated IDs are checked through properties.
SET client_min_messages = warning;
\set VERBOSITY default
\set SHOW_CONTEXT never

-- BRIN minmax on base36_64 and base36_128: the default opclass, used by a scan, right rows.
SELECT t.typname, c.opcname, c.opcdefault
FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod JOIN pg_type t ON t.oid = c.opcintype
WHERE a.amname = 'brin' AND t.typname IN ('base36_64', 'base36_128') ORDER BY 1;
CREATE TABLE b36 (n int, k64 base36_64, k128 base36_128);
INSERT INTO b36 SELECT n, (n * 1000)::bigint::base36_64,
       lpad(to_hex(n), 32, '0')::uuid::base36_128
FROM generate_series(1, 20000) n;
CREATE INDEX b36_k64_brin ON b36 USING brin (k64) WITH (pages_per_range = 4);
CREATE INDEX b36_k128_brin ON b36 USING brin (k128) WITH (pages_per_range = 4);
ANALYZE b36;
SET enable_seqscan = off;
SET enable_bitmapscan = on;
EXPLAIN (COSTS OFF) SELECT n FROM b36 WHERE k64 BETWEEN '000000000ABCD' AND '000000000b000';
SELECT count(*) AS rows, min(n) AS first_n, max(n) AS last_n,
       bool_and(k64 BETWEEN '000000000ABCD' AND '000000000b000') AS all_in_range
FROM b36 WHERE k64 BETWEEN '000000000ABCD' AND '000000000b000';
SELECT count(*) AS expected FROM generate_series(1, 20000) n
WHERE (n * 1000)::bigint BETWEEN base36_decode_bigint('abcd') AND base36_decode_bigint('b000');
EXPLAIN (COSTS OFF) SELECT n FROM b36 WHERE k128 = lpad(to_hex(12345), 32, '0')::uuid::base36_128;
SELECT n FROM b36 WHERE k128 = lpad(to_hex(12345), 32, '0')::uuid::base36_128;
SELECT count(*) AS rows, min(n) AS first_n, max(n) AS last_n FROM b36
WHERE k128 > lpad(to_hex(19990), 32, '0')::uuid::base36_128;
RESET enable_seqscan;
DROP TABLE b36;

-- snowflake compared with bigint, both ways: the README's query, integer literals, parameters.
CREATE TABLE sf (id snowflake PRIMARY KEY, note text);
INSERT INTO sf SELECT (n::bigint * 1000003)::snowflake, 'row ' || n FROM generate_series(1, 5000) n;
INSERT INTO sf VALUES ('2124948553146044416', 'the README''s ID');
ANALYZE sf;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT note FROM sf WHERE id = 2124948553146044416;
SELECT note FROM sf WHERE id = 2124948553146044416;
SELECT note FROM sf WHERE 2124948553146044416 = id;
EXPLAIN (COSTS OFF) SELECT count(*) FROM sf WHERE id > 4990 * 1000003::bigint AND id <= 5000 * 1000003::bigint;
SELECT count(*) AS last_ten, min(id) = 4991 * 1000003::bigint AS first_ok, max(id) = 5000 * 1000003::bigint AS last_ok
FROM sf WHERE id > 4990 * 1000003::bigint AND id <= 5000 * 1000003::bigint;
SELECT count(*) AS reversed FROM sf WHERE 4990 * 1000003::bigint < id AND 5000 * 1000003::bigint >= id;
-- An integer literal resolves to snowflake = bigint (int4 -> int8 is implicit).
EXPLAIN (COSTS OFF) SELECT note FROM sf WHERE id = 1000003;
SELECT note FROM sf WHERE id = 1000003;
-- Every operator, both directions, agrees with bigint's on the same values.
SELECT bool_and((a::snowflake = b) = (a = b) AND (a::snowflake <> b) = (a <> b) AND (a::snowflake < b) = (a < b)
            AND (a::snowflake <= b) = (a <= b) AND (a::snowflake > b) = (a > b) AND (a::snowflake >= b) = (a >= b)
            AND (b = a::snowflake) = (b = a) AND (b <> a::snowflake) = (b <> a) AND (b < a::snowflake) = (b < a)
            AND (b <= a::snowflake) = (b <= a) AND (b > a::snowflake) = (b > a) AND (b >= a::snowflake) = (b >= a)) AS all_agree
FROM (VALUES (1::bigint), (2), (9223372036854775807)) x(a),
     (VALUES ('-9223372036854775808'::bigint), (-1), (0), (1), (2), (9223372036854775806), (9223372036854775807)) y(b);
-- An unknown literal still means snowflake (no ambiguity with the new operators).
SELECT note FROM sf WHERE id = '1000003';
PREPARE by_id(bigint) AS SELECT note FROM sf WHERE id = $1;
EXECUTE by_id(2000006);
-- A bigint column joined to a snowflake column.
CREATE TEMP TABLE refs (sf_id bigint);
INSERT INTO refs VALUES (1000003), (3000009), (7);
SELECT r.sf_id, s.note FROM refs r JOIN sf s ON s.id = r.sf_id ORDER BY 1;
SELECT r.sf_id, s.note FROM refs r JOIN sf s ON r.sf_id = s.id ORDER BY 1;
RESET enable_seqscan;
DROP TABLE sf;
-- The operators are in the btree family snowflake_ops (which is what lets the index serve them).
SELECT format_type(amoplefttype, NULL) AS lefttype, format_type(amoprighttype, NULL) AS righttype,
       string_agg(amopstrategy::text, ',' ORDER BY amopstrategy) AS strategies
FROM pg_amop WHERE amopfamily = (SELECT oid FROM pg_opfamily WHERE opfname = 'snowflake_ops'
                                  AND opfmethod = (SELECT oid FROM pg_am WHERE amname = 'btree'))
GROUP BY 1, 2 ORDER BY 1, 2;

-- integer -> snowflake: explicit and checked.
SELECT 1::snowflake AS one, 2147483647::snowflake AS int4_max, pg_typeof(7::snowflake) AS type;
SELECT 0::snowflake;
\echo :LAST_ERROR_SQLSTATE
SELECT (-5)::snowflake;
SELECT castcontext FROM pg_cast WHERE castsource = 'integer'::regtype AND casttarget = 'snowflake'::regtype;
-- snowflake_time() has no bigint overload: it would make this call with an unknown literal
-- ambiguous (snowflake and bigint are in different type categories).
SELECT snowflake_time('1541815603606036480') = snowflake_time(1541815603606036480::snowflake) AS unknown_literal_resolves;
SELECT count(*) AS bigint_overloads FROM pg_proc
WHERE proname = 'snowflake_time' AND proargtypes[0] = 'bigint'::regtype;

-- shard_id_lower/upper(at, epoch): every ID issued in a millisecond lies in that ms's range, for a
-- shard with any epoch.
-- (Under debug_discard_caches, a server with assertions in the long test run, a next_id() call
-- looks its shard up again, some 0.5 s: fewer IDs there; what is printed does not depend on it.)
SELECT CASE WHEN current_setting('debug_discard_caches')::int > 0 THEN 10 ELSE 20000 END AS n_sids \gset
SELECT create_shard(21, 'surface_shard', '2019-06-01 00:00:00+00');
CREATE TEMP TABLE sids AS SELECT surface_shard.next_id() AS id FROM generate_series(1, :n_sids);
SELECT count(*) = :n_sids AS ids,
       bool_and(id BETWEEN shard_id_lower(shard_id_time(id), '2019-06-01 00:00:00+00')
                       AND shard_id_upper(shard_id_time(id), '2019-06-01 00:00:00+00')) AS in_own_ms,
       bool_and(id BETWEEN shard_id_lower(shard_id_time(id) + interval '0.999 ms', '2019-06-01 00:00:00+00')
                       AND shard_id_upper(shard_id_time(id) + interval '0.999 ms', '2019-06-01 00:00:00+00')) AS in_ms_to_its_end,
       bool_and(id > shard_id_upper(shard_id_time(id) - interval '1 ms', '2019-06-01 00:00:00+00')) AS above_prev_ms,
       bool_and(id < shard_id_lower(shard_id_time(id) + interval '1 ms', '2019-06-01 00:00:00+00')) AS below_next_ms
FROM sids;
-- A time range query on a shard's IDs, through the index.
CREATE TEMP TABLE sid_tab AS SELECT id FROM sids;
CREATE INDEX ON sid_tab (id);
ANALYZE sid_tab;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM sid_tab
WHERE id BETWEEN shard_id_lower(now(), '2019-06-01+00') AND shard_id_upper(now(), '2019-06-01+00');
RESET enable_seqscan;
SELECT (SELECT count(*) FROM sid_tab WHERE id BETWEEN shard_id_lower(m.lo, '2019-06-01+00') AND shard_id_upper(m.hi, '2019-06-01+00'))
       = (SELECT count(*) FROM sids) AS range_finds_all
FROM (SELECT min(shard_id_time(id)) AS lo, max(shard_id_time(id)) AS hi FROM sids) m;
-- Exact bits: the epoch itself is time 0; the last ms is 2^40 - 1 after it.
SELECT shard_id_lower('2019-06-01 00:00:00+00', '2019-06-01 00:00:00+00') AS lower_at_epoch,
       shard_id_upper('2019-06-01 00:00:00+00', '2019-06-01 00:00:00+00') AS upper_at_epoch,
       shard_id_lower('2019-06-01 00:00:00.001+00', '2019-06-01 00:00:00+00') = (1::bigint << 23) AS one_ms_later,
       shard_id_upper('2019-06-01 00:00:00+00'::timestamptz + (2^40 - 1) * interval '1 ms', '2019-06-01 00:00:00+00')
           = 9223372036854775807 AS last_ms_is_int8_max;
-- Agrees with the instagram layout at Instagram's epoch.
SELECT shard_id_lower(t, '2011-08-24 21:07:01.721+00') = snowflake_lower(t, 'instagram')::bigint
   AND shard_id_upper(t, '2011-08-24 21:07:01.721+00') = snowflake_upper(t, 'instagram')::bigint AS matches_instagram
FROM (VALUES ('2024-05-06 07:08:09.123456+00'::timestamptz)) v(t);
-- Bounds: before the epoch, past the 2^40 ms, infinite times, an infinite epoch.
SELECT shard_id_lower('2019-05-31 23:59:59.999+00', '2019-06-01 00:00:00+00');
SELECT shard_id_upper('2019-06-01 00:00:00+00'::timestamptz + 2^40 * interval '1 ms', '2019-06-01 00:00:00+00');
SELECT shard_id_lower('infinity', '2019-06-01 00:00:00+00');
\echo :LAST_ERROR_SQLSTATE
SELECT shard_id_upper('-infinity', '2019-06-01 00:00:00+00');
SELECT shard_id_lower(now(), 'infinity');
\echo :LAST_ERROR_SQLSTATE
SELECT shard_id_upper(now(), '-infinity');
SELECT drop_shard(21);
DROP SCHEMA surface_shard CASCADE;

-- A custom snowflake layout with an infinite epoch: an error about the epoch, not the widths.
SELECT snowflake_time('1', 'infinity', 41, 10, 12);
\echo :LAST_ERROR_SQLSTATE
SELECT snowflake_lower(now(), '-infinity', 41, 10, 12);
SELECT snowflake_node('1', 'infinity', 41, 10, 12);
-- (Widths are still checked for a finite epoch.)
SELECT snowflake_time('1', '2020-01-01+00', 41, 12, 11);

-- create_shard() with an empty schema name: 42602, not a raw syntax error.
SELECT create_shard(14, '');
\echo :LAST_ERROR_SQLSTATE

-- prefix_unregister() deletes from the registry: a role without DELETE on it gets 42501.
CREATE ROLE id_gen_surface_user;
GRANT INSERT ON prefix_registry TO id_gen_surface_user;
SET ROLE id_gen_surface_user;
SELECT prefix_register('srfc', 'surface test');
SELECT prefix_unregister('srfc');
\echo :LAST_ERROR_SQLSTATE
RESET ROLE;
SELECT prefix_owner('srfc') AS still_registered;
GRANT DELETE ON prefix_registry TO id_gen_surface_user;
SET ROLE id_gen_surface_user;
SELECT prefix_unregister('srfc') AS released;
RESET ROLE;
SELECT prefix_owner('srfc') IS NULL AS gone;
REVOKE ALL ON prefix_registry FROM id_gen_surface_user;
DROP ROLE id_gen_surface_user;
