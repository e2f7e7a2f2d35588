-- base62: fixed-width base62 text (0-9A-Za-z) for 64- and 128-bit IDs; the base62_64 / base62_128
-- types; casts, operators, opclasses (btree, hash, BRIN), aggregates, named functions, order
-- property under the "C" collation, soft input errors, prefixed IDs with a base62 body, labels.
-- Output is deterministic: random values are checked through properties, never printed.
SET client_min_messages = warning;
\set VERBOSITY default
\set SHOW_CONTEXT never

-- Text I/O: exactly 11 / 22 characters, case-sensitive, in and out.
SELECT '00000000000'::base62_64 AS zero, '00000000001'::base62_64 AS one, 'AzL8n0Y58m7'::base62_64 AS max,
       'AzL8n0Y58m7'::base62_64::bigint AS max_value, '0000000000a'::base62_64::bigint AS lower_a,
       '0000000000A'::base62_64::bigint AS upper_a, '0000000000z'::base62_64::bigint AS z;
SELECT '0000000000000000000000'::base62_128::uuid AS zero, '7n42DGM5Tflk9n8mt7Fhc7'::base62_128::uuid AS max,
       '7n42DGM5Tflk9n8mt7Fhc6'::base62_128 AS max_minus_1;
SELECT length('00000000001'::base62_64::text) AS len64, length('0000000000000000000001'::base62_128::text) AS len128;

-- Errors: anything but exactly 11 / 22 characters of 0-9A-Za-z is 22P02 (checked first); a
-- value above the type's range 22003.
\set VERBOSITY sqlstate
SELECT 'AzL8n0Y58m8'::base62_64;                -- 2^63: base62_64 holds 0 .. 2^63-1
SELECT 'LygHa16AHYG'::base62_64;                -- 2^64
SELECT 'zzzzzzzzzzz'::base62_64;
SELECT '7n42DGM5Tflk9n8mt7Fhc8'::base62_128;    -- 2^128
SELECT 'zzzzzzzzzzzzzzzzzzzzzz'::base62_128;
SELECT ''::base62_64;
SELECT '1'::base62_64;                          -- short: no padding is implied
SELECT '000000000001'::base62_64;               -- long: no extra zero is dropped
SELECT '-0000000001'::base62_64;
SELECT ' 0000000001'::base62_128;
SELECT '00000000_01'::base62_64;
SELECT 'zzzzzzzzzzzzzzzzzzzzz!'::base62_128;
SELECT base62_encode(-1::bigint);
SELECT (-1)::bigint::base62_64;
SELECT base62_decode_bigint('AzL8n0Y58m8');
SELECT base62_decode_bigint('LjaL3EZ');
SELECT base62_decode_uuid('7n42DGM5Tflk9n8mt7Fhc8');
SELECT base62_decode_uuid('02p5oQZoHTv0zeY5yG21K-');
SELECT '00000000000'::base62_64::snowflake;     -- 0 is not a snowflake
\set VERBOSITY default
SELECT 'AzL8n0Y58m8'::base62_64;
SELECT '0000000000ä'::base62_64;
SELECT base62_encode(-42::bigint);
SELECT base62_decode_uuid('02p5oQZoHTv0zeY5yG21K');
-- Long input is cut in the message at a character boundary, never inside a multibyte character.
SELECT ('a' || repeat('é', 300))::base62_128;

-- Soft errors: the input functions report into a soft-error context (PostgreSQL 16's
-- pg_input_is_valid(), and id_gen_input_error_info() on every version).
SELECT v, t, id_gen_input_is_valid(v, t) AS valid, (id_gen_input_error_info(v, t)).sql_error_code,
       (id_gen_input_error_info(v, t)).message
FROM (VALUES ('AzL8n0Y58m7', 'base62_64'), ('AzL8n0Y58m8', 'base62_64'), ('azl8n0y58m7', 'base62_64'),
             ('1', 'base62_64'), ('7n42DGM5Tflk9n8mt7Fhc7', 'base62_128'),
             ('7n42DGM5Tflk9n8mt7Fhc8', 'base62_128'), ('7n42DGM5Tflk9n8mt7Fhc', 'base62_128')) c(v, t);

-- Named functions: known vectors (RFC 9562's UUIDv7 example), and encode -> decode is the
-- identity on 0, 1, max - 1 and max.
SELECT base62_encode('017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::uuid) AS rfc9562_example,
       base62_decode_uuid('02p5oQZoHTv0zeY5yG21K3') AS back,
       base62_encode(1234567890123::bigint) AS bigint_vector, base62_decode_bigint('0000LjaL3EZ') AS bigint_back;
SELECT v, base62_encode(v) AS encoded, base62_decode_bigint(base62_encode(v)) = v AS round_trip
FROM (VALUES (0::bigint), (1), (9223372036854775806), (9223372036854775807)) t(v);
SELECT v, base62_encode(v) AS encoded, base62_decode_uuid(base62_encode(v)) = v AS round_trip
FROM (VALUES ('00000000-0000-0000-0000-000000000000'::uuid), ('00000000-0000-0000-0000-000000000001'),
             ('ffffffff-ffff-ffff-ffff-fffffffffffe'), ('ffffffff-ffff-ffff-ffff-ffffffffffff')) t(v);
SELECT base62_encode('7ZZZZZZZZZZZZZZZZZZZZZZZZZ'::ulid) AS ulid_max,
       base62_decode_uuid('7n42DGM5Tflk9n8mt7Fhc7')::ulid AS from_base62,
       base62_encode('1541815603606036480'::snowflake) AS snowflake_text,
       base62_encode('1541815603606036480'::snowflake) = base62_encode(1541815603606036480::bigint) AS same_as_bigint;

-- Casts: explicit only; the number is kept (uuid/ulid bytes, bigint/snowflake value).
SELECT '017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::uuid::base62_128 AS from_uuid,
       '017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::uuid::base62_128::uuid AS back,
       '01ARZ3NDEKTSV4RRFFQ69G5FAV'::ulid::base62_128::ulid AS ulid_back,
       1234567890123::bigint::base62_64 AS from_bigint, '0000LjaL3EZ'::base62_64::bigint AS to_bigint,
       '1541815603606036480'::snowflake::base62_64::snowflake AS snowflake_back;
SELECT s.typname AS source, t.typname AS target, c.castcontext, c.castmethod, c.castfunc::regproc AS func
FROM pg_cast c JOIN pg_type s ON s.oid = c.castsource JOIN pg_type t ON t.oid = c.casttarget
WHERE s.typname LIKE 'base62%' OR t.typname LIKE 'base62%' ORDER BY 1, 2;
-- Stored as the number, without a collation: they compare as numbers under every collation.
SELECT typname, typlen, typbyval, typalign, typcollation FROM pg_type WHERE typname IN ('base62_64', 'base62_128') ORDER BY 1;
SELECT '0000000000a'::base62_64 > '0000000000B'::base62_64 AS a_is_36_above_b_11;

-- Property: for 100,000 random pairs, comparing the IDs and comparing their base62 text under the
-- "C" collation (bytewise) give the same answer; so do the base62 types' operators; encode ->
-- decode is the identity; the text uses only 0-9A-Za-z.
CREATE TEMP TABLE pairs62 AS
  SELECT gen_random_uuid() AS a, CASE WHEN n % 10 = 0 THEN ('00000000-0000-0000-' || substr(gen_random_uuid()::text, 20))::uuid
                                      ELSE gen_random_uuid() END AS b,
         (random() * 9223372036854775807)::bigint >> (n % 60) AS x, (random() * 9223372036854775807)::bigint >> (n % 7) AS y
  FROM generate_series(1, 100000) n;
SELECT count(*) AS pairs,
       bool_and((a < b) = (base62_encode(a) COLLATE "C" < base62_encode(b) COLLATE "C")) AS uuid_text_order,
       bool_and((a = b) = (base62_encode(a) = base62_encode(b))) AS uuid_text_equality,
       bool_and((a < b) = (a::base62_128 < b::base62_128) AND (a > b) = (a::base62_128 > b::base62_128)) AS uuid_type_order,
       bool_and(base62_128_cmp(a::base62_128, b::base62_128) = uuid_cmp(a, b)) AS uuid_cmp_matches,
       bool_and((x < y) = (base62_encode(x) COLLATE "C" < base62_encode(y) COLLATE "C")) AS bigint_text_order,
       bool_and((x < y) = (x::base62_64 < y::base62_64) AND (x <= y) = (x::base62_64 <= y::base62_64)) AS bigint_type_order,
       bool_and(base62_decode_uuid(base62_encode(a)) = a AND base62_decode_bigint(base62_encode(x)) = x) AS round_trip,
       bool_and(a::base62_128::text::base62_128 = a::base62_128 AND x::base62_64::text::base62_64 = x::base62_64) AS type_round_trip,
       bool_and(base62_encode(a) ~ '^[0-9A-Za-z]{22}$' AND base62_encode(x) ~ '^[0-9A-Za-z]{11}$') AS alphabet
FROM pairs62;

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
SELECT bool_and(base62_128_hash(a::base62_128) = uuid_hash(a)) AS hash128_is_uuid_hash,
       bool_and(base62_128_hash_extended(a::base62_128, 7) = uuid_hash_extended(a, 7)) AS hash128_ext,
       bool_and(base62_64_hash(x::base62_64) = hashint8(x)) AS hash64_is_int8_hash,
       bool_and(base62_64_hash_extended(x::base62_64, 7) = hashint8extended(x, 7)) AS hash64_ext
FROM pairs62;
SELECT t.typname, a.amname, c.opcname, c.opcdefault
FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod JOIN pg_type t ON t.oid = c.opcintype
WHERE t.typname IN ('base62_64', 'base62_128') ORDER BY 1, 2;
CREATE TABLE t_b62 (id base62_128 PRIMARY KEY, n base62_64 NOT NULL);
INSERT INTO t_b62 SELECT a::base62_128, x::base62_64 FROM pairs62 LIMIT 20000;
CREATE INDEX t_b62_n ON t_b62 (n);
CREATE INDEX t_b62_hash ON t_b62 USING hash (id);
CREATE INDEX t_b62_text ON t_b62 (base62_encode(id::uuid));
ANALYZE t_b62;
SET enable_seqscan = off;
SELECT * FROM pg_temp.plan_nodes($q$SELECT count(*) FROM t_b62 WHERE id < '1000000000000000000000'::base62_128$q$) node;
SELECT count(*) = (SELECT count(*) FROM t_b62 WHERE id::uuid < '1000000000000000000000'::base62_128::uuid) AS range_matches
FROM t_b62 WHERE id < '1000000000000000000000'::base62_128;
SELECT * FROM pg_temp.plan_nodes($q$SELECT min(n), max(id) FROM t_b62$q$) node;
SELECT min(n)::bigint = min(n::bigint) AS min64, max(n)::bigint = max(n::bigint) AS max64,
       min(id)::uuid = (SELECT id::uuid FROM t_b62 ORDER BY id::uuid LIMIT 1) AS min128,
       max(id)::uuid = (SELECT id::uuid FROM t_b62 ORDER BY id::uuid DESC LIMIT 1) AS max128 FROM t_b62;
SET enable_bitmapscan = off;
SELECT * FROM pg_temp.plan_nodes($q$SELECT * FROM t_b62 WHERE id = '0000000000000000000001'::base62_128$q$) node;
SELECT * FROM pg_temp.plan_nodes($q$SELECT * FROM t_b62 WHERE base62_encode(id::uuid) = '0000000000000000000001'$q$) node;
RESET enable_bitmapscan;
SELECT count(*) AS expression_index_lookups FROM t_b62 t WHERE base62_encode(t.id::uuid) = t.id::text;
RESET enable_seqscan;
SELECT bool_and(prev < id) AS sorted_numerically, bool_and(prev::uuid < id::uuid) AS as_uuid FROM
  (SELECT id, lag(id) OVER (ORDER BY id) AS prev FROM t_b62) s WHERE prev IS NOT NULL;
DROP TABLE t_b62;

-- BRIN minmax: the default opclass for USING brin, used by a scan, the right rows.
CREATE TABLE b62 (n int, k64 base62_64, k128 base62_128);
INSERT INTO b62 SELECT n, (n * 1000)::bigint::base62_64, lpad(to_hex(n), 32, '0')::uuid::base62_128
FROM generate_series(1, 20000) n;
CREATE INDEX b62_k64_brin ON b62 USING brin (k64) WITH (pages_per_range = 4);
CREATE INDEX b62_k128_brin ON b62 USING brin (k128) WITH (pages_per_range = 4);
ANALYZE b62;
SET enable_seqscan = off;
SELECT * FROM pg_temp.plan_nodes($q$SELECT n FROM b62 WHERE k64 BETWEEN '0000000ABCD' AND '0000000B000'$q$) node;
SELECT count(*) AS rows, min(n) AS first_n, max(n) AS last_n,
       count(*) = (SELECT count(*) FROM generate_series(1, 20000) g
                   WHERE g * 1000 BETWEEN base62_decode_bigint('0000000ABCD') AND base62_decode_bigint('0000000B000')) AS all_rows
FROM b62 WHERE k64 BETWEEN '0000000ABCD' AND '0000000B000';
SELECT * FROM pg_temp.plan_nodes($q$SELECT n FROM b62 WHERE k128 = lpad(to_hex(12345), 32, '0')::uuid::base62_128$q$) node;
SELECT n FROM b62 WHERE k128 = lpad(to_hex(12345), 32, '0')::uuid::base62_128;
RESET enable_seqscan;
DROP TABLE b62;

-- Prefixed IDs with a base62 body, chosen by an argument; the forms without it stay base36.
SELECT prefixed_format('acct', '017f22e2-79b0-7cc3-98c4-dc0c0c07398f', 'base62') AS base62_body,
       prefixed_format('acct', '017f22e2-79b0-7cc3-98c4-dc0c0c07398f', 'base36') =
       prefixed_format('acct', '017f22e2-79b0-7cc3-98c4-dc0c0c07398f') AS base36_default,
       prefixed_parse('acct', 'acct_02p5oQZoHTv0zeY5yG21K3', 'base62') AS parsed;
SELECT * FROM prefixed_split('acct_02p5oQZoHTv0zeY5yG21K3', 'base62');
SELECT bool_and(prefixed_parse('usr', prefixed_format('usr', a, 'base62'), 'base62') = a) AS round_trip,
       bool_and((a < b) = (prefixed_format('usr', a, 'base62') COLLATE "C" < prefixed_format('usr', b, 'base62') COLLATE "C")) AS text_order
FROM pairs62;
\set VERBOSITY sqlstate
SELECT prefixed_parse('acct', 'acct_02p5oQZoHTv0zeY5yG21K3');            -- a base62 body read as base36
SELECT prefixed_parse('acct', 'acct_0b6ol7g0qk5tbhc8y8hbzs2sf', 'base62');  -- and the reverse
SELECT prefixed_parse('acct', 'acct_7n42DGM5Tflk9n8mt7Fhc8', 'base62');     -- 2^128
SELECT prefixed_parse('acct', 'usr_02p5oQZoHTv0zeY5yG21K3', 'base62');
SELECT prefixed_format('acct', gen_random_uuid(), 'base64');
\set VERBOSITY default
SELECT prefixed_parse('acct', 'usr_02p5oQZoHTv0zeY5yG21K3', 'base62');
SELECT prefixed_format('acct', gen_random_uuid(), 'Base62');
SELECT prefix_register('b62test', 'base62 regression test');
SELECT length(gen_prefixed('b62test', 'base62')) AS len62, gen_prefixed('b62test', 'base62') ~ '^b62test_[0-9A-Za-z]{22}$' AS shape62,
       length(gen_prefixed('b62test', 'base36')) AS len36, length(gen_prefixed('b62test')) AS len_default;
SELECT prefixed_parse('b62test', gen_prefixed('b62test', 'base62'), 'base62') < prefixed_parse('b62test', gen_prefixed('b62test', 'base62'), 'base62') AS increasing;
SELECT prefix_unregister('b62test');

-- Labels: pure encode/decode IMMUTABLE STRICT PARALLEL SAFE; gen_prefixed VOLATILE.
SELECT p.oid::regprocedure AS function, p.provolatile, p.proparallel, p.proisstrict
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'id_gen'
WHERE p.proname LIKE 'base62%' OR (p.proname IN ('prefixed_format', 'prefixed_parse', 'prefixed_split', 'gen_prefixed', 'snowflake')
                                  AND p.pronargs >= 1 AND ('text'::regtype = ANY (p.proargtypes) OR 'base62_64'::regtype = ANY (p.proargtypes)))
ORDER BY p.oid::regprocedure::text;
SELECT a.aggfnoid::regprocedure AS aggregate, p.proparallel, o.oprname AS sortop
FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid JOIN pg_operator o ON o.oid = a.aggsortop
WHERE p.proargtypes[0] IN ('base62_64'::regtype, 'base62_128'::regtype) ORDER BY 1;

-- Support functions of the btree opclasses: cmp, sortsupport (abbreviated keys), equalimage.
SELECT f.opfname, p.amprocnum, p.amproc::regproc AS proc
FROM pg_amproc p JOIN pg_opfamily f ON f.oid = p.amprocfamily JOIN pg_am a ON a.oid = f.opfmethod
WHERE a.amname = 'btree' AND f.opfname IN ('base62_64_ops', 'base62_128_ops') ORDER BY 1, 2;

-- The README's examples, with the results it shows.
SELECT base62_encode('017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::uuid);
SELECT base62_encode(1234567890123::bigint);
SELECT base62_decode_uuid('02p5oQZoHTv0zeY5yG21K3');
SELECT base62_decode_bigint('0000LjaL3EZ');
SELECT '0000000000a'::base62_64::bigint, '0000000000A'::base62_64::bigint;
SELECT '0000000000B' COLLATE "C" < '0000000000a' COLLATE "C";
CREATE TABLE short_links (id base62_128 PRIMARY KEY DEFAULT gen_uuidv7()::base62_128, url text);
INSERT INTO short_links VALUES ('02p5oQZoHTv0zeY5yG21K3', 'https://example.com/b');
SELECT url FROM short_links WHERE id = '02p5oQZoHTv0zeY5yG21K3';
SELECT id::uuid FROM short_links WHERE url = 'https://example.com/b';
INSERT INTO short_links (url) VALUES ('https://example.com/c');
SELECT count(*) AS rows, bool_and(id::text ~ '^[0-9A-Za-z]{22}$') AS base62_text FROM short_links;
DROP TABLE short_links;
SELECT prefixed_format('acct', '017f22e2-79b0-7cc3-98c4-dc0c0c07398f', 'base62');
SELECT prefixed_parse('acct', 'acct_02p5oQZoHTv0zeY5yG21K3', 'base62');
