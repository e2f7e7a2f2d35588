-- Prefixed typed IDs: registry, generation, format / parse / split, errors, index use, labels.
-- Output is deterministic: random values are checked through properties, never printed.
SET client_min_messages = warning;
\set VERBOSITY default
\set SHOW_CONTEXT never

-- The registry is an extension configuration table (pg_dump dumps its rows).
SELECT extconfig::regclass[] AS config_tables, extcondition FROM pg_extension WHERE extname = 'id_gen';
SELECT prefix_register('acct', 'accounts');
SELECT prefix_register('usr', 'public.users');
SELECT prefix_register('inv2', 'invoices');
SELECT prefix, owner FROM prefix_registry ORDER BY prefix;

-- A prefix is unique in the database: registering it again names the existing owner.
\set VERBOSITY sqlstate
SELECT prefix_register('acct', 'accounts');
\set VERBOSITY default
SELECT prefix_register('acct', 'billing_accounts');
-- What is accepted: 1 to 16 lower-case ASCII letters or digits, starting with a letter.
SELECT prefix_register('Acct', 'x');
SELECT prefix_register('a_b', 'x');
\set VERBOSITY sqlstate
SELECT prefix_register('', 'x');
SELECT prefix_register('1abc', 'x');
SELECT prefix_register('abcdefghijklmnopq', 'x');
SELECT prefix_register(NULL, 'x');
SELECT prefix_register('ok', '');
SELECT prefix_register('ok', NULL);
INSERT INTO prefix_registry (prefix, owner) VALUES ('Bad', 'direct insert');
\set VERBOSITY default
SELECT prefix_register('abcdefghijklmnop', 'sixteen') AS longest_ok, prefix_unregister('abcdefghijklmnop') AS released;

-- The C rule (prefixed_format) and the SQL rule (registry CHECK, prefix_register) agree.
CREATE FUNCTION pg_temp.format_ok(p text) RETURNS bool LANGUAGE plpgsql AS $$
BEGIN
    PERFORM prefixed_format(p, '00000000-0000-0000-0000-000000000000');
    RETURN true;
EXCEPTION WHEN invalid_parameter_value THEN
    RETURN false;
END $$;
SELECT p, pg_temp.format_ok(p) AS c_rule, p ~ '^[a-z][a-z0-9]{0,15}$' AS sql_rule
FROM unnest(ARRAY['a', 'z9', 'abcdefghijklmnop', 'abcdefghijklmnopq', 'A', '9a', 'a-b', 'a_b', 'a b', 'é', '']) p;

-- Generation: a UUIDv7 as '<prefix>_' + 25 base36 characters, for registered prefixes only.
-- (Under debug_discard_caches, a server with assertions in the long test run, a gen_prefixed()
-- call reads the registry again, some 0.1 s: fewer calls there; what is printed does not depend
-- on it.)
SELECT CASE WHEN current_setting('debug_discard_caches')::int > 0 THEN 20 ELSE 2000 END AS n_gen, CASE WHEN current_setting('debug_discard_caches')::int > 0 THEN 12 ELSE 300 END AS n_sites \gset
CREATE TEMP TABLE gen AS SELECT n, gen_prefixed('acct') AS t FROM generate_series(1, :n_gen) n;
SELECT bool_and(t ~ '^acct_[0-9a-z]{25}$') AS shape,
       bool_and(uuid_extract_version(prefixed_parse('acct', t)) = 7) AS body_is_uuidv7,
       bool_and(uuidv7_time(prefixed_parse('acct', t)) BETWEEN now() - interval '1 minute' AND clock_timestamp() + interval '1 second') AS time_is_now,
       count(DISTINCT t) = count(*) AS distinct_ids
FROM gen;
-- Text order is ID order is generation order.
SELECT bool_and(t > prev) AS text_increasing, bool_and(prefixed_parse('acct', t) > prefixed_parse('acct', prev)) AS id_increasing
FROM (SELECT t, lag(t) OVER (ORDER BY n) AS prev FROM gen) s WHERE prev IS NOT NULL;
-- One call site, the prefix changing from row to row (the same length, then other lengths): each
-- ID carries its own row's prefix (a call site remembers its last prefix).
SELECT bool_and(gen_prefixed(p) ~ ('^' || p || '_[0-9a-z]{25}$')) AS own_prefix_same_length,
       count(*) = :n_sites AS calls
FROM (SELECT CASE WHEN n % 3 = 0 THEN 'acct' WHEN n % 3 = 1 THEN 'inv2' ELSE 'acct' END AS p
      FROM generate_series(1, :n_sites) n) s;
SELECT bool_and(gen_prefixed(p, b) ~ ('^' || p || '_[0-9a-zA-Z]{22,25}$')) AS own_prefix_any_length
FROM (SELECT (ARRAY['acct', 'usr', 'inv2', 'usr'])[1 + n % 4] AS p, (ARRAY['base36', 'base62'])[1 + n % 2] AS b
      FROM generate_series(1, :n_sites) n) s;
\set VERBOSITY sqlstate
SELECT gen_prefixed('nope');
\set VERBOSITY default
SELECT gen_prefixed('nope');

-- Format, parse against the expected prefix, split text of unknown type.
SELECT prefixed_format('acct', '017f22e2-79b0-7cc3-98c4-dc0c0c07398f') AS formatted,
       prefixed_parse('acct', 'acct_036twi214qwj7mgsvq83nm8wf') AS parsed,
       prefixed_parse('acct', 'acct_036TWI214QWJ7MGSVQ83NM8WF') AS body_any_case;
SELECT * FROM prefixed_split('usr_036twi214qwj7mgsvq83nm8wf');
SELECT s.prefix, prefix_owner(s.prefix) AS owner, s.id FROM prefixed_split('inv2_0000000000000000000000001') s;
SELECT prefix_owner('nope') IS NULL AS unknown_owner_is_null;
SELECT prefixed_format('a', '00000000-0000-0000-0000-000000000000') AS smallest,
       prefixed_format('a', 'ffffffff-ffff-ffff-ffff-ffffffffffff') AS largest;
SELECT bool_and(prefixed_parse('x', prefixed_format('x', u)) = u) AS round_trip,
       bool_and((prefixed_split(prefixed_format('x', u))).id = u) AS split_round_trip
FROM (SELECT gen_random_uuid() AS u FROM generate_series(1, 1000)) s;

-- Wrong prefix: 22P02, naming both.
\set VERBOSITY sqlstate
SELECT prefixed_parse('acct', 'usr_036twi214qwj7mgsvq83nm8wf');
\set VERBOSITY default
SELECT prefixed_parse('acct', 'usr_036twi214qwj7mgsvq83nm8wf');
SELECT prefixed_parse('acc', 'acct_036twi214qwj7mgsvq83nm8wf');
-- Malformed text: 22P02; a body above 2^128 - 1: 22003; a bad expected prefix: 22023.
\set VERBOSITY sqlstate
SELECT prefixed_parse('acct', 'acct_036twi214qwj7mgsvq83nm8w');
SELECT prefixed_parse('acct', 'acct_036twi214qwj7mgsvq83nm8wff');
SELECT prefixed_parse('acct', 'acct-036twi214qwj7mgsvq83nm8wf');
SELECT prefixed_parse('acct', 'ACCT_036twi214qwj7mgsvq83nm8wf');
SELECT prefixed_parse('acct', 'acct_036twi214qwj7mgsvq83nm8w!');
SELECT prefixed_parse('acct', '036twi214qwj7mgsvq83nm8wf');
SELECT prefixed_parse('acct', 'acct_zzzzzzzzzzzzzzzzzzzzzzzzz');
SELECT prefixed_parse('ACCT', 'acct_036twi214qwj7mgsvq83nm8wf');
SELECT prefixed_split('a_b_036twi214qwj7mgsvq83nm8wf');
SELECT prefixed_format('a_b', gen_uuidv7());
\set VERBOSITY default
SELECT prefixed_parse('acct', 'acct_036twi214qwj7mgsvq83nm8w');
SELECT prefixed_split('');
SELECT prefixed_format('Acct', '017f22e2-79b0-7cc3-98c4-dc0c0c07398f');
SELECT prefixed_parse('acct', 'acct_zzzzzzzzzzzzzzzzzzzzzzzzz');

-- The pattern: 16 bytes in the table, prefixed text at the edges (a view, a generated column),
-- and lookups by prefixed text that use the primary key.
CREATE TABLE accounts (
    id uuid PRIMARY KEY DEFAULT gen_uuidv7(),
    public_id text GENERATED ALWAYS AS (prefixed_format('acct', id)) STORED,
    name text NOT NULL
);
INSERT INTO accounts (name) SELECT 'account ' || n FROM generate_series(1, 1000) n;
ANALYZE accounts;
SELECT bool_and(prefixed_parse('acct', public_id) = id) AS generated_column_round_trip FROM accounts;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT name FROM accounts WHERE id = prefixed_parse('acct', 'acct_036twi214qwj7mgsvq83nm8wf');
RESET enable_seqscan;
SELECT count(*) AS found FROM accounts a WHERE id = prefixed_parse('acct', (SELECT public_id FROM accounts ORDER BY id LIMIT 1));
DROP TABLE accounts;

-- Unregistering releases a prefix; the owner is then free to change.
SELECT prefix_unregister('inv2') AS released, prefix_unregister('inv2') AS again;
SELECT prefix_register('inv2', 'invoices_v2');
SELECT prefix_owner('inv2');

-- Labels: generators VOLATILE PARALLEL SAFE; format/parse IMMUTABLE STRICT PARALLEL SAFE;
-- registry readers STABLE; registry writers VOLATILE PARALLEL UNSAFE.
SELECT p.oid::regprocedure AS function, p.provolatile, p.proparallel, p.proisstrict, p.prorettype::regtype AS returns,
       (SELECT string_agg(c, ', ') FROM unnest(p.proconfig) c) AS config
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'id_gen'
WHERE p.proname ~ '^(prefix|gen_prefixed)' ORDER BY p.oid::regprocedure::text;

-- gen_prefixed() caches, per session, the prefixes it found registered. The session's own
-- changes reach the cache at its next command, and a rollback (of a transaction or to a
-- savepoint) takes them back.
SELECT prefix_register('cachep', 'cache_test');
SELECT gen_prefixed('cachep') LIKE 'cachep\_%' AS made;
SELECT prefix_unregister('cachep') AS released;
SELECT gen_prefixed('cachep');
BEGIN;
SELECT prefix_register('cachep', 'cache_test');
SELECT gen_prefixed('cachep') LIKE 'cachep\_%' AS made_in_transaction;
ROLLBACK;
SELECT gen_prefixed('cachep');
SELECT prefix_register('cachep', 'cache_test');
BEGIN;
SELECT gen_prefixed('cachep') LIKE 'cachep\_%' AS made;
SAVEPOINT s;
SELECT prefix_unregister('cachep') AS released;
SELECT gen_prefixed('cachep');
ROLLBACK TO SAVEPOINT s;
SELECT gen_prefixed('cachep') LIKE 'cachep\_%' AS made_after_rollback_to_savepoint;
TRUNCATE prefix_registry;
SELECT gen_prefixed('cachep');
ROLLBACK;
SELECT gen_prefixed('cachep', 'base62') LIKE 'cachep\_%' AS made_after_truncate_rolled_back;
SELECT prefix_unregister('cachep') AS released;

-- Leave the registry empty for the tests that follow.
SELECT count(*) AS released FROM prefix_registry, LATERAL prefix_unregister(prefix) r WHERE r;
SELECT count(*) AS remaining FROM prefix_registry;
