-- base36: fixed-width text for 64- and 128-bit IDs; the base36_64 / base36_128 types; casts,
-- operators, opclasses, named functions, order property, labels.
-- Output is deterministic: random values are checked through properties, never printed.
SET client_min_messages = warning;
\set VERBOSITY default
\set SHOW_CONTEXT never

-- Text I/O: fixed width (13 / 25), lower case out; either case, short or zero-padded in.
SELECT '0'::base36_64 AS zero, '1'::base36_64 AS one, '1Y2P0IJ32E8E7'::base36_64 AS max,
       '1y2p0ij32e8e6'::base36_64 AS max_minus_1, '00000000000000000000zz'::base36_64 AS padded;
SELECT '0'::base36_128 AS zero, '1'::base36_128 AS one;
SELECT 'F5LXX1ZZ5PNORYNQGLHZMSP33'::base36_128 AS max, 'f5lxx1zz5pnorynqglhzmsp32'::base36_128 AS max_minus_1;
SELECT length('z'::base36_64::text) AS len64, length('z'::base36_128::text) AS len128;

-- Errors: overflow is 22003, anything that is not a base36 digit 22P02 (checked first).
\set VERBOSITY sqlstate
SELECT '1y2p0ij32e8e8'::base36_64;              -- 2^63: base36_64 holds 0 .. 2^63-1
SELECT '3w5e11264sgsg'::base36_64;              -- 2^64
SELECT 'f5lxx1zz5pnorynqglhzmsp34'::base36_128; -- 2^128
SELECT '10000000000000000000000000'::base36_128;
SELECT ''::base36_64;
SELECT '-1'::base36_64;
SELECT ' 1'::base36_128;
SELECT 'a_b'::base36_128;
SELECT 'zzzzzzzzzzzzzzzzzzzzzzzzzzzzzz!'::base36_128;
SELECT base36_encode(-1::bigint);
SELECT (-1)::bigint::base36_64;
SELECT base36_decode_bigint('1y2p0ij32e8e8');
SELECT base36_decode_uuid('f5lxx1zz5pnorynqglhzmsp34');
SELECT base36_decode_uuid('0123456789abcdefghij-klmn');
\set VERBOSITY default
SELECT '1y2p0ij32e8e8'::base36_64;
SELECT 'äö'::base36_128;
SELECT base36_encode(-42::bigint);
SELECT 'not base36'::base36_128::ulid;
-- Long input is cut in the message at a character boundary, never inside a multibyte character.
SELECT ('a' || repeat('é', 300))::base36_128;
SELECT base36_decode_bigint('a' || repeat('ü', 300));

-- Named functions: encode -> decode is the identity on 0, 1, max and max - 1.
SELECT v, base36_encode(v) AS encoded, base36_decode_bigint(base36_encode(v)) = v AS round_trip
FROM (VALUES (0::bigint), (1), (9223372036854775806), (9223372036854775807)) t(v);
SELECT v, base36_encode(v) AS encoded, base36_decode_uuid(base36_encode(v)) = v AS round_trip
FROM (VALUES ('00000000-0000-0000-0000-000000000000'::uuid), ('00000000-0000-0000-0000-000000000001'),
             ('ffffffff-ffff-ffff-ffff-fffffffffffe'), ('ffffffff-ffff-ffff-ffff-ffffffffffff')) t(v);
SELECT base36_encode('7ZZZZZZZZZZZZZZZZZZZZZZZZZ'::ulid) AS ulid_max,
       base36_decode_uuid('f5lxx1zz5pnorynqglhzmsp33')::ulid AS from_base36,
       base36_decode_bigint('Z') AS short_input, base36_decode_uuid('0000000000000000000000000000000001') AS padded;

-- Casts: explicit only; the number is kept (uuid/ulid bytes, bigint value).
SELECT '017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::uuid::base36_128 AS from_uuid,
       '017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::uuid::base36_128::uuid AS back,
       '01ARZ3NDEKTSV4RRFFQ69G5FAV'::ulid::base36_128::ulid AS ulid_back,
       1234567890123::bigint::base36_64 AS from_bigint, 'kf12oi'::base36_64::bigint AS to_bigint;
SELECT s.typname AS source, t.typname AS target, c.castcontext, c.castmethod, c.castfunc::regproc AS func
FROM pg_cast c JOIN pg_type s ON s.oid = c.castsource JOIN pg_type t ON t.oid = c.casttarget
WHERE s.typname LIKE 'base36%' OR t.typname LIKE 'base36%' ORDER BY 1, 2;
-- No cast between existing types was added or redefined (uuid::text stays core's I/O conversion).
SELECT count(*) AS foreign_casts FROM pg_cast c
WHERE c.oid IN (SELECT objid FROM pg_depend WHERE refobjid = (SELECT oid FROM pg_extension WHERE extname = 'id_gen')
                AND classid = 'pg_cast'::regclass)
  AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_type'::regclass AND d.deptype = 'e'
                  AND d.objid IN (c.castsource, c.casttarget));
SELECT '017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::uuid::text AS uuid_text_unchanged;
SELECT typname, typlen, typbyval, typalign, typcollation FROM pg_type WHERE typname IN ('base36_64', 'base36_128') ORDER BY 1;

-- Property: for 100,000 random pairs, comparing the IDs and comparing their base36 text (bytewise)
-- give the same answer; so do the base36 types' operators; encode -> decode is the identity.
CREATE TEMP TABLE pairs AS
  SELECT gen_random_uuid() AS a, CASE WHEN n % 10 = 0 THEN ('00000000-0000-0000-' || substr(gen_random_uuid()::text, 20))::uuid
                                      ELSE gen_random_uuid() END AS b,
         (random() * 9223372036854775807)::bigint >> (n % 60) AS x, (random() * 9223372036854775807)::bigint >> (n % 7) AS y
  FROM generate_series(1, 100000) n;
SELECT count(*) AS pairs,
       bool_and((a < b) = (base36_encode(a) COLLATE "C" < base36_encode(b) COLLATE "C")) AS uuid_text_order,
       bool_and((a = b) = (base36_encode(a) = base36_encode(b))) AS uuid_text_equality,
       bool_and((a < b) = (a::base36_128 < b::base36_128) AND (a > b) = (a::base36_128 > b::base36_128)) AS uuid_type_order,
       bool_and(base36_128_cmp(a::base36_128, b::base36_128) = uuid_cmp(a, b)) AS uuid_cmp_matches,
       bool_and((x < y) = (base36_encode(x) COLLATE "C" < base36_encode(y) COLLATE "C")) AS bigint_text_order,
       bool_and((x < y) = (x::base36_64 < y::base36_64) AND (x <= y) = (x::base36_64 <= y::base36_64)) AS bigint_type_order,
       bool_and(base36_decode_uuid(base36_encode(a)) = a AND base36_decode_bigint(base36_encode(x)) = x) AS round_trip,
       bool_and(a::base36_128::text::base36_128 = a::base36_128 AND x::base36_64::text::base36_64 = x::base36_64) AS type_round_trip
FROM pairs;

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

-- Opclasses: numeric order and hashing whatever the collation; indexes serve ranges and lookups.
SELECT bool_and(base36_128_hash(a::base36_128) = uuid_hash(a)) AS hash128_is_uuid_hash,
       bool_and(base36_128_hash_extended(a::base36_128, 7) = uuid_hash_extended(a, 7)) AS hash128_ext,
       bool_and(base36_64_hash(x::base36_64) = hashint8(x)) AS hash64_is_int8_hash,
       bool_and(base36_64_hash_extended(x::base36_64, 7) = hashint8extended(x, 7)) AS hash64_ext
FROM pairs;
CREATE TABLE t_b36 (id base36_128 PRIMARY KEY, n base36_64 NOT NULL);
INSERT INTO t_b36 SELECT a::base36_128, x::base36_64 FROM pairs LIMIT 20000;
CREATE INDEX t_b36_n ON t_b36 (n);
CREATE INDEX t_b36_hash ON t_b36 USING hash (id);
CREATE INDEX t_b36_text ON t_b36 (base36_encode(id::uuid));
ANALYZE t_b36;
SET enable_seqscan = off;
SELECT * FROM pg_temp.plan_nodes($q$SELECT count(*) FROM t_b36 WHERE id < '2'::base36_128$q$) node;
SELECT count(*) = (SELECT count(*) FROM t_b36 WHERE id::uuid < '2'::base36_128::uuid) AS range_matches FROM t_b36 WHERE id < '2'::base36_128;
SELECT * FROM pg_temp.plan_nodes($q$SELECT min(n), max(id) FROM t_b36$q$) node;
SELECT min(n)::bigint = min(n::bigint) AS min64, max(n)::bigint = max(n::bigint) AS max64,
       min(id)::uuid = (SELECT id::uuid FROM t_b36 ORDER BY id::uuid LIMIT 1) AS min128,
       max(id)::uuid = (SELECT id::uuid FROM t_b36 ORDER BY id::uuid DESC LIMIT 1) AS max128 FROM t_b36;
SET enable_bitmapscan = off;
SELECT * FROM pg_temp.plan_nodes($q$SELECT * FROM t_b36 WHERE id = '1'::base36_128$q$) node;
SELECT * FROM pg_temp.plan_nodes($q$SELECT * FROM t_b36 WHERE base36_encode(id::uuid) = '0000000000000000000000001'$q$) node;
RESET enable_bitmapscan;
SELECT count(*) AS expression_index_lookups FROM t_b36 t WHERE base36_encode(t.id::uuid) = t.id::text;
RESET enable_seqscan;
SET enable_mergejoin = off;
SET enable_nestloop = off;
-- Joined to another table (5,000 of its rows): 18 removes a join of a table to itself on its
-- primary key.
CREATE TABLE t_b36_half AS SELECT id FROM t_b36 ORDER BY id LIMIT 5000;
ANALYZE t_b36_half;
SELECT * FROM pg_temp.plan_nodes($q$SELECT count(*) FROM t_b36 a JOIN t_b36_half b USING (id)$q$) node;
SELECT count(*) AS hash_join_rows FROM t_b36 a JOIN t_b36_half b USING (id);
DROP TABLE t_b36_half;
RESET enable_mergejoin;
RESET enable_nestloop;
SELECT bool_and(prev < id) AS sorted_numerically, bool_and(prev::uuid < id::uuid) AS as_uuid FROM
  (SELECT id, lag(id) OVER (ORDER BY id) AS prev FROM t_b36) s WHERE prev IS NOT NULL;
DROP TABLE t_b36;

-- Labels: pure encode/decode IMMUTABLE STRICT PARALLEL SAFE.
SELECT p.oid::regprocedure AS function, p.provolatile, p.proparallel, p.proisstrict
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'id_gen'
WHERE p.proname LIKE 'base36%' ORDER BY p.oid::regprocedure::text;
