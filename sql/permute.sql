-- Keyed permutation (FF1 over AES-128): labels and privileges, keys (creation, refusal of small
-- domains, duplicates, missing keys), the domains [1, 2^63-1], [1, 2^53-1] and [1, N] (a whole
-- domain of 10^6 values, each exactly once), round trips, tweaks, a sequence's DEFAULT, and the
-- per-session key cache following changes to the key table (delete, update, rollback, replica
-- mode), and the checks on the key table, which never print the row (it holds the key).
-- What needs several sessions or pg_dump is in test/integration/permute_test.cpp.
-- Output is deterministic: keys are random, so permuted values are checked through properties,
-- never printed.
SET client_min_messages = warning;
\set VERBOSITY default
\set SHOW_CONTEXT never

-- Labels: the permutation reads the key table, so it is STABLE (not IMMUTABLE), and PARALLEL SAFE.
SELECT p.oid::regprocedure AS function, p.provolatile AS volatility, p.proparallel AS parallel,
       p.proisstrict AS strict, p.prosecdef AS security_definer
FROM pg_proc p
WHERE p.proname IN ('id_permute', 'id_unpermute', 'id_permute_key', 'id_permute_new_key', 'id_permute_keys_changed',
                    'id_permute_keys_check')
ORDER BY p.oid::regprocedure::text;

-- No function of the permutation is executable by PUBLIC, and only superusers read the key table.
SELECT p.oid::regprocedure AS function, has_function_privilege('public', p.oid, 'EXECUTE') AS public_execute
FROM pg_proc p WHERE p.proname LIKE 'id\_%permute%' ORDER BY p.oid::regprocedure::text;
SELECT relacl IS NOT NULL AND NOT has_table_privilege('public', 'permute_keys', 'SELECT') AS public_cannot_read
FROM pg_class WHERE oid = 'permute_keys'::regclass;
CREATE ROLE permute_app;
SET ROLE permute_app;
SELECT count(*) FROM permute_keys;
SELECT id_permute(1, 'orders');
RESET ROLE;

-- Keys: made from the CSPRNG (16 bytes, distinct), never replaced, at least 10^6 values.
SELECT id_permute_key('orders');
SELECT id_permute_key('orders_js', domain => 9007199254740991);
SELECT id_permute_key('million', domain => 1000000, tweak => 'million_seq');
SELECT name, length(key) AS key_bytes, domain, tweak FROM permute_keys ORDER BY name;
SELECT count(DISTINCT key) AS distinct_keys FROM permute_keys;
SELECT id_permute_key('orders');
SELECT id_permute_key('tiny', domain => 999999);
SELECT id_permute_key('');
SELECT id_permute_key(repeat('é', 32));   -- 64 bytes
SELECT id_permute_key('long_tweak', tweak => repeat('t', 257));
SELECT id_permute(1, 'no_such_key');

-- 0, negatives and values above the domain are refused (22003); they never come out.
SELECT id_permute(0, 'orders');
SELECT id_permute(-5, 'orders');
SELECT id_unpermute(0, 'orders');
SELECT id_permute(9007199254740992, 'orders_js');
SELECT id_unpermute(1000001, 'million');
SELECT id_permute(9223372036854775807, 'orders') BETWEEN 1 AND 9223372036854775807 AS max_maps_into_domain;

-- The counts of calls below: under debug_discard_caches (a server with assertions, in the long
-- test run) each call re-reads its key from the table, some 100 ms, so they shrink there; what
-- is printed does not depend on them.
SELECT CASE WHEN current_setting('debug_discard_caches')::int > 0 THEN 20 ELSE 10000 END AS n_counter,
       CASE WHEN current_setting('debug_discard_caches')::int > 0 THEN 20 ELSE 1000000 END AS n_million,
       CASE WHEN current_setting('debug_discard_caches')::int > 0 THEN 20 ELSE 2000 END AS n_tweaks,
       CASE WHEN current_setting('debug_discard_caches')::int > 0 THEN 20 ELSE 1000 END AS n_rows \gset

-- Round trips and the range, for a counter.
SELECT count(DISTINCT id_permute(g, 'orders')) = :n_counter AS distinct_values,
       min(id_permute(g, 'orders')) >= 1 AS positive,
       bool_and(id_unpermute(id_permute(g, 'orders'), 'orders') = g) AS round_trip,
       count(*) FILTER (WHERE id_permute(g, 'orders') > 4611686018427387904) BETWEEN :n_counter / 2 - 5 * sqrt(:n_counter) AND :n_counter / 2 + 5 * sqrt(:n_counter) AS top_bit_half
FROM generate_series(1, :n_counter) g;
SELECT count(DISTINCT id_permute(g, 'orders_js')) = :n_counter AS distinct_values,
       max(id_permute(g, 'orders_js')) <= 9007199254740991 AS javascript_safe,
       bool_and(id_unpermute(id_permute(g, 'orders_js'), 'orders_js') = g) AS round_trip
FROM generate_series(1, :n_counter) g;

-- [1, 10^6]: every value comes out exactly once (cycle walking over 2^20): 10^6 distinct values
-- in [1, 10^6] (under debug_discard_caches, the first few are distinct and in the domain).
SELECT count(*) = :n_million AS values, count(DISTINCT v) = :n_million AS distinct_values, min(v) >= 1 AS min_in_domain,
       max(v) <= 1000000 AS max_in_domain
FROM (SELECT id_permute(g, 'million') AS v FROM generate_series(1, :n_million) g) s;
SELECT bool_and(id_unpermute(id_permute(g, 'million'), 'million') = g) AS round_trip
FROM generate_series(1, :n_million, 7) g;

-- Tweaks: the key's default is its name (or the tweak it was made with); another tweak gives an
-- unrelated permutation under the same key.
SELECT bool_and(id_permute(g, 'orders') = id_permute(g, 'orders', 'orders')) AS default_is_name,
       bool_and(id_permute(g, 'million') = id_permute(g, 'million', 'million_seq')) AS default_is_given,
       count(*) FILTER (WHERE id_permute(g, 'orders', 'invoices_seq') = id_permute(g, 'orders')) AS same_under_two_tweaks,
       bool_and(id_unpermute(id_permute(g, 'orders', 'invoices_seq'), 'orders', 'invoices_seq') = g) AS round_trip
FROM generate_series(1, :n_tweaks) g;
SELECT id_permute(1, 'orders', repeat('t', 257));

-- A sequence's DEFAULT: unique IDs that map back to the sequence's values.
CREATE SEQUENCE orders_seq;
CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT id_permute(nextval('orders_seq'), 'orders'), n int);
INSERT INTO orders (n) SELECT g FROM generate_series(1, :n_rows) g;
SELECT count(*) = :n_rows AS rows, bool_and(id_unpermute(id, 'orders') = n) AS maps_back, bool_and(id <> n) AS not_the_counter
FROM orders;
-- STABLE, so refused where PostgreSQL needs IMMUTABLE (a key row can change).
CREATE INDEX ON orders ((id_permute(n, 'orders')));
ALTER TABLE orders ADD COLUMN p bigint GENERATED ALWAYS AS (id_permute(n, 'orders')) STORED;
DROP TABLE orders;
DROP SEQUENCE orders_seq;

-- The session's cache follows the key table: an updated tweak, a deleted key, a rolled-back key.
CREATE TEMP TABLE before AS SELECT id_permute(42, 'orders_js') AS v;
UPDATE permute_keys SET tweak = 'other' WHERE name = 'orders_js';
SELECT id_permute(42, 'orders_js') <> v AS changed, id_permute(42, 'orders_js') = id_permute(42, 'orders_js', 'other') AS new_tweak
FROM before;
DELETE FROM permute_keys WHERE name = 'orders_js';
SELECT id_permute(42, 'orders_js');
BEGIN;
SELECT id_permute_key('scratch');
SELECT id_permute(1, 'scratch') >= 1 AS usable;
ROLLBACK;
SELECT id_permute(1, 'scratch');

-- In replica mode (how logical replication applies rows) too.
CREATE TEMP TABLE before_replica AS SELECT id_permute(42, 'million') AS v;
SET session_replication_role = replica;
UPDATE permute_keys SET tweak = 'other' WHERE name = 'million';
SELECT id_permute(42, 'million') <> v AS changed FROM before_replica;
DELETE FROM permute_keys WHERE name = 'million';
SELECT id_permute(42, 'million');
RESET session_replication_role;
SELECT tgname, tgenabled FROM pg_trigger WHERE tgrelid = 'permute_keys'::regclass ORDER BY tgname;

-- The checks on the key table name the column, never the row: no "Failing row contains (...)".
UPDATE permute_keys SET domain = 5 WHERE name = 'orders';
UPDATE permute_keys SET tweak = repeat('t', 300) WHERE name = 'orders';
UPDATE permute_keys SET name = '' WHERE name = 'orders';
UPDATE permute_keys SET key = '\x00' WHERE name = 'orders';
UPDATE permute_keys SET key = NULL WHERE name = 'orders';
UPDATE permute_keys SET created_at = NULL WHERE name = 'orders';
INSERT INTO permute_keys (name, key, domain, tweak) VALUES ('k', id_permute_new_key(), 999999, 'k');
SELECT count(*) AS check_constraints FROM pg_constraint WHERE conrelid = 'permute_keys'::regclass AND contype = 'c';

-- A granted role uses a key without reading the table.
GRANT EXECUTE ON FUNCTION id_permute(bigint, text) TO permute_app;
SET ROLE permute_app;
SELECT id_permute(7, 'orders') >= 1 AS granted;
SELECT id_unpermute(7, 'orders');
RESET ROLE;
DELETE FROM permute_keys;
DROP OWNED BY permute_app;
DROP ROLE permute_app;
