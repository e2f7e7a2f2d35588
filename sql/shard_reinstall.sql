-- The way back after DROP EXTENSION / CREATE EXTENSION: the registry's rows went with the
-- extension, a shard's next_id() (not an extension member) stayed; create_shard() with the same
-- number and epoch adopts it (before, it failed with 42723), and the shard continues above every
-- ID it issued. Then 0.1.0 -> 0.2.0: the update brings the checked shard functions and warns
-- about a shard that 0.1.0 let live in a schema of a role that is not a superuser.
SET client_min_messages = warning;
\set VERBOSITY default
\set SHOW_CONTEXT never

-- Under debug_discard_caches (a server with assertions, in the long test run) a next_id() call
-- looks its shard up again, some 0.5 s: fewer rows there; what is printed does not depend on it.
SELECT CASE WHEN current_setting('debug_discard_caches')::int > 0 THEN 10 ELSE 5000 END AS n_items \gset
-- DROP / CREATE / ALTER EXTENSION are PostgreSQL's own DDL over the install and upgrade scripts:
-- under that setting they take minutes each and check no code of id_gen's, so they run without it
-- (SET ... = 0), and what follows them with it again (RESET: the session's value).
SELECT create_shard(40, 'reinstalled', '2023-06-01 00:00:00+00');
CREATE TABLE reinstalled.items (id bigint PRIMARY KEY DEFAULT reinstalled.next_id(), round int);
INSERT INTO reinstalled.items (round) SELECT 1 FROM generate_series(1, :n_items);
SET debug_discard_caches = 0;
DROP EXTENSION id_gen;
CREATE EXTENSION id_gen;
RESET debug_discard_caches;
SELECT count(*) AS registry_rows FROM shard_registry;
-- Unregistered, next_id() says how to come back.
INSERT INTO reinstalled.items (round) VALUES (0);
SELECT create_shard(40, 'reinstalled', '2023-06-01 00:00:00+00');
INSERT INTO reinstalled.items (round) SELECT 2 FROM generate_series(1, :n_items);
SELECT count(*) = 2 * :n_items AS ids, count(DISTINCT id) = 2 * :n_items AS distinct_ids, bool_and(shard_id_shard(id) = 40) AS shard_40,
       (SELECT min(id) FROM reinstalled.items WHERE round = 2) > (SELECT max(id) FROM reinstalled.items WHERE round = 1) AS continues_above
FROM reinstalled.items;
SELECT p.oid = 'reinstalled.next_id()'::regprocedure AS same_function, obj_description(p.oid, 'pg_proc') AS comment
FROM pg_proc p WHERE p.proname = 'next_id' AND p.pronamespace = 'reinstalled'::regnamespace;
SELECT drop_shard(40, true);
DROP SCHEMA reinstalled CASCADE;

-- 0.1.0 adopted a schema owned by any role; updating to 0.2.0 says which shards are at risk,
-- and the updated create_shard() refuses such a schema.
CREATE ROLE shard_reinstall_owner;
CREATE SCHEMA legacy_owned AUTHORIZATION shard_reinstall_owner;
CREATE SCHEMA legacy_owned_too AUTHORIZATION shard_reinstall_owner;
SET debug_discard_caches = 0;
DROP EXTENSION id_gen;
CREATE EXTENSION id_gen VERSION '0.1.0';
RESET debug_discard_caches;
SELECT create_shard(41, 'legacy_owned');
SET debug_discard_caches = 0;
ALTER EXTENSION id_gen UPDATE TO '0.2.0';
RESET debug_discard_caches;
SELECT extversion FROM pg_extension WHERE extname = 'id_gen';
\set VERBOSITY sqlstate
SELECT create_shard(42, 'legacy_owned_too');
\set VERBOSITY default
SELECT drop_shard(41);
DROP SCHEMA legacy_owned, legacy_owned_too;
DROP ROLE shard_reinstall_owner;

-- Leave the extension as a fresh install for the tests after this one.
SET debug_discard_caches = 0;
DROP EXTENSION id_gen;
CREATE EXTENSION id_gen;
RESET debug_discard_caches;
SELECT e.extversion = a.default_version AS default_version FROM pg_extension e JOIN pg_available_extensions a ON a.name = e.extname WHERE e.extname = 'id_gen';
