-- Instagram-style per-schema shards: creation, next_id(), decoders, errors, cache invalidation,
-- dropping, the registry, labels. Output is deterministic: IDs are checked through properties.
SET client_min_messages = warning;
\set VERBOSITY default
\set SHOW_CONTEXT never

-- The counts of next_id() calls below: under debug_discard_caches (a server with assertions, in
-- the long test run) a call looks its shard up again, some 0.5 s, so they shrink there; what is
-- printed does not depend on them.
SELECT CASE WHEN current_setting('debug_discard_caches')::int > 0 THEN 10 ELSE 1000 END AS n_photos,
       CASE WHEN current_setting('debug_discard_caches')::int > 0 THEN 20 ELSE 200000 END AS n_burst,
       CASE WHEN current_setting('debug_discard_caches')::int > 0 THEN 10 ELSE 2000 END AS n_frac,
       CASE WHEN current_setting('debug_discard_caches')::int > 0 THEN 10 ELSE 3000 END AS n_77 \gset

-- One call makes a schema a shard, with its own next_id().
SELECT create_shard(5);
CREATE TABLE shard_5.photos (id bigint PRIMARY KEY DEFAULT shard_5.next_id(), caption text);
INSERT INTO shard_5.photos (caption) SELECT 'photo ' || n FROM generate_series(1, :n_photos) n;
SELECT count(*) = :n_photos AS photos, count(DISTINCT id) = :n_photos AS distinct_ids,
       bool_and(shard_id_shard(id) = 5) AS shard_5,
       bool_and(shard_id_time(id) BETWEEN now() - interval '1 minute' AND clock_timestamp() + interval '3 seconds') AS time_is_now,
       bool_and(shard_id_time(id) = shard_id_time(id, '2024-01-01 00:00:00+00')) AS default_epoch_2024,
       bool_and(shard_id_sequence(id) BETWEEN 0 AND 1023) AS seq_fits
FROM shard_5.photos;
-- The published layout: 41 bits of ms | 13 bits of shard | 10 bits of sequence.
SELECT bool_and(id >> 23 = (extract(epoch FROM shard_id_time(id)) * 1000)::bigint - 1704067200000) AS time_bits,
       bool_and((id >> 10) & 8191 = 5) AS shard_bits
FROM shard_5.photos;
SELECT schema_name, shard, epoch AT TIME ZONE 'UTC' AS epoch FROM shard_registry ORDER BY shard;
SELECT pg_get_function_result(p.oid) AS returns, l.lanname, p.probin, p.prosrc
FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang WHERE p.oid = 'shard_5.next_id()'::regprocedure;

-- Never a duplicate, even far past 1,024 IDs per ms (the published recipe's nextval() % 1024 repeats).
CREATE TEMP TABLE burst AS SELECT n, shard_5.next_id() AS id FROM generate_series(1, :n_burst) n;
SELECT count(*) = :n_burst AS ids, count(DISTINCT id) = :n_burst AS distinct_ids,
       max(shard_id_sequence(id)) <= 1023 AS seq_fits,
       count(DISTINCT id >> 23) >= :n_burst / 1024 AS spans_enough_ms
FROM burst;
SELECT bool_and(id > prev) AS strictly_increasing FROM
  (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM burst) s WHERE prev IS NOT NULL;

-- Any schema name, any past epoch; the STABLE decoder reads the epoch from the registry.
SELECT create_shard(6, 'photos_b', '2020-01-01 00:00:00+00');
-- (Two IDs, issued apart by a call's run time, up to seconds under debug_discard_caches: the days
-- between the two decodings are rounded.)
SELECT shard_id_shard(photos_b.next_id()) AS shard,
       shard_id_time(photos_b.next_id()) BETWEEN now() - interval '1 minute' AND clock_timestamp() + interval '3 seconds' AS time_is_now,
       round(abs(extract(epoch FROM shard_id_time(photos_b.next_id(), '2024-01-01+00') - shard_id_time(photos_b.next_id()))) / 86400) AS days_apart;
SELECT shard_id_time(((1000::bigint << 23) | (77 << 10))) AS unregistered_shard_is_null;
-- Decoders on known bits: 1387263000 ms after the epoch, shard 1341, sequence 905.
SELECT shard_id_shard(11637205501278089), shard_id_sequence(11637205501278089),
       shard_id_time(11637205501278089, 'epoch'::timestamptz + interval '1314220021721 ms') AT TIME ZONE 'UTC' AS t;
\set VERBOSITY sqlstate
SELECT shard_id_shard(0);
SELECT shard_id_time(-1, '2020-01-01');
SELECT shard_id_time(1, 'infinity');
-- (not printed: the output function would catch it; a comparison would not)
SELECT shard_id_time(9223372036854775807, '294276-12-31 00:00:00+00') IS NOT NULL;
\set VERBOSITY default
SELECT shard_id_time(9223372036854775807, '294276-12-31 00:00:00+00') > '2000-01-01';
\set VERBOSITY sqlstate

-- Errors.
SELECT create_shard(5);
SELECT create_shard(7, 'shard_5');
SELECT create_shard(8192);
SELECT create_shard(-1);
SELECT create_shard(9, 'later', now() + interval '1 day');
SELECT create_shard(9, 'never', 'infinity');
\set VERBOSITY default
SELECT create_shard(5);
SELECT create_shard(7, 'shard_5');
SELECT create_shard(8192);
SELECT count(*) AS shards_after_errors FROM shard_registry;

-- Superuser only (it creates a C function); EXECUTE is revoked from PUBLIC as well.
CREATE ROLE shard_regress_user;
GRANT USAGE ON SCHEMA shard_5 TO shard_regress_user;
SET ROLE shard_regress_user;
\set VERBOSITY sqlstate
SELECT create_shard(10);
SELECT drop_shard(5);
SELECT rename_shard(5, 'mine');
\set VERBOSITY default
-- Anyone allowed to call next_id() gets IDs (no catalog rights needed beyond the registry's SELECT).
SELECT shard_id_shard(shard_5.next_id()) AS as_plain_user;
RESET ROLE;

-- next_id() reads the registry without parsing SQL under the caller's search_path: operators
-- planted on the path (numeric * integer has no exact built-in; name = name) are never called.
CREATE FUNCTION public.planted_mul(numeric, integer) RETURNS numeric LANGUAGE plpgsql
    AS $$ BEGIN RAISE EXCEPTION 'planted operator * ran'; END $$;
CREATE OPERATOR public.* (LEFTARG = numeric, RIGHTARG = integer, FUNCTION = public.planted_mul);
CREATE FUNCTION public.planted_eq(name, name) RETURNS boolean LANGUAGE plpgsql
    AS $$ BEGIN RAISE EXCEPTION 'planted operator = ran'; END $$;
CREATE OPERATOR public.= (LEFTARG = name, RIGHTARG = name, FUNCTION = public.planted_eq);
SELECT shard_id_shard(shard_5.next_id()) AS default_path;
SET search_path = public, pg_catalog;
SELECT shard_id_shard(shard_5.next_id()) AS public_first;
RESET search_path;
DROP OPERATOR public.= (name, name);
DROP OPERATOR public.* (numeric, integer);
DROP FUNCTION public.planted_mul(numeric, integer), public.planted_eq(name, name);

-- next_id() and the decoders convert the epoch alike (floor to the ms): with a sub-ms epoch, an ID
-- still decodes to the millisecond it was issued in, not the one before.
SELECT create_shard(11, 'frac_epoch', '2020-01-01 00:00:00.0007+00');
SELECT bool_and(shard_id_time(id) >= date_trunc('milliseconds', t0)) AS decodes_to_issue_ms
FROM (SELECT clock_timestamp() AS t0, frac_epoch.next_id() AS id FROM generate_series(1, :n_frac)) s;
SELECT drop_shard(11);
DROP SCHEMA frac_epoch;

-- Registry rows: number, schema and epoch cannot be updated (no cache invalidation would follow).
\set VERBOSITY sqlstate
UPDATE shard_registry SET epoch = epoch + interval '1 day' WHERE shard = 5;
UPDATE shard_registry SET schema_name = 'elsewhere' WHERE shard = 5;
UPDATE shard_registry SET shard = 4000 WHERE shard = 5;
\set VERBOSITY default
UPDATE shard_registry SET epoch = epoch + interval '1 day' WHERE shard = 5;
UPDATE shard_registry SET created_at = created_at WHERE shard = 5;

-- A next_id() outside a registered schema says so.
CREATE SCHEMA not_a_shard;
CREATE FUNCTION not_a_shard.next_id() RETURNS bigint AS '$libdir/id_gen', 'shard_next_id' LANGUAGE C VOLATILE;
SELECT not_a_shard.next_id();
DROP SCHEMA not_a_shard CASCADE;

-- The per-backend cache follows renames: the registry is keyed by schema name. A bare ALTER
-- SCHEMA ... RENAME stops next_id() with a hint; rename_shard() registers the new name, or renames
-- schema and registry entry together.
SELECT shard_id_shard(photos_b.next_id()) AS before_rename;
ALTER SCHEMA photos_b RENAME TO photos_c;
SELECT photos_c.next_id();
SELECT rename_shard(6, 'photos_c');
SELECT shard_id_shard(photos_c.next_id()) AS after_registering;
SELECT rename_shard(6, 'photos_b');
SELECT shard_id_shard(photos_b.next_id()) AS after_rename_shard,
       to_regnamespace('photos_c') IS NULL AS old_name_gone,
       (SELECT schema_name FROM shard_registry WHERE shard = 6) AS registered,
       (SELECT epoch = '2020-01-01 00:00:00+00' FROM shard_registry WHERE shard = 6) AS epoch_kept;
\set VERBOSITY sqlstate
SELECT rename_shard(6, 'shard_5');
SELECT rename_shard(99, 'nowhere');
\set VERBOSITY default

-- Read-only transactions refuse.
BEGIN READ ONLY;
SELECT shard_5.next_id();
ROLLBACK;

-- Dropping: RESTRICT by default (a column default uses next_id()), CASCADE drops the defaults.
CREATE TEMP TABLE before_drop AS SELECT max(id) AS m FROM shard_5.photos;
\set VERBOSITY sqlstate
SELECT drop_shard(5);
SELECT drop_shard(42);
\set VERBOSITY default
SELECT drop_shard(5);
SELECT drop_shard(5, cascade => true);
SELECT count(*) AS registry_rows, bool_or(shard = 5) AS has_5 FROM shard_registry;
SELECT count(*) = :n_photos AS photos_kept, pg_get_expr(d.adbin, d.adrelid) IS NULL AS default_dropped
FROM shard_5.photos LEFT JOIN pg_attrdef d ON d.adrelid = 'shard_5.photos'::regclass GROUP BY 2;
SELECT to_regprocedure('shard_5.next_id()') IS NULL AS function_dropped;
-- Re-created with the same number and epoch, the shard continues after its last ID.
SELECT create_shard(5);
SELECT shard_5.next_id() > (SELECT m FROM before_drop) AS continues;
-- Re-created with an epoch a day later, its time field would restart a day lower and repeat old
-- IDs: instead it continues after its last ID (running ahead of the clock by the difference).
CREATE TEMP TABLE before_epoch AS SELECT shard_5.next_id() AS m;
SELECT drop_shard(5);
SELECT create_shard(5, 'shard_5', '2024-01-02 00:00:00+00');
SELECT id > (SELECT m FROM before_epoch) AS continues_above_old_ids,
       shard_id_time(id) > now() + interval '23 hours' AS runs_ahead_by_the_epoch_difference
FROM (SELECT shard_5.next_id() AS id) s;

-- The registry is dumped with its rows (extension configuration table).
SELECT c.relname FROM pg_extension e, unnest(e.extconfig) WITH ORDINALITY r(oid, n) JOIN pg_class c ON c.oid = r.oid
WHERE e.extname = 'id_gen' ORDER BY r.n;
-- Shard functions belong to the schema, not the extension, so pg_dump dumps them.
SELECT count(*) AS next_id_extension_members FROM pg_depend
WHERE classid = 'pg_proc'::regclass AND objid IN ('shard_5.next_id()'::regprocedure, 'photos_b.next_id()'::regprocedure)
  AND deptype = 'e';

-- Labels: next_id() VOLATILE PARALLEL UNSAFE, decoders with the epoch in their arguments
-- IMMUTABLE, shard_id_time(bigint) (reads the registry) STABLE.
SELECT p.oid::regprocedure AS function, p.provolatile, p.proparallel, p.prosecdef
FROM pg_proc p
WHERE p.proname IN ('next_id', 'create_shard', 'drop_shard', 'rename_shard', 'shard_id_shard', 'shard_id_sequence', 'shard_id_time')
ORDER BY p.oid::regprocedure::text;

-- Clean up.
SELECT drop_shard(5, true), drop_shard(6);
DROP SCHEMA shard_5 CASCADE;
DROP SCHEMA photos_b CASCADE;
REVOKE ALL ON SCHEMA public FROM shard_regress_user;
DROP ROLE shard_regress_user;

-- A schema name that needs quoting (upper case, space) works end to end.
SELECT create_shard(77, 'Shard Seventy-Seven') AS created;
CREATE TABLE "Shard Seventy-Seven".t (id bigint PRIMARY KEY DEFAULT "Shard Seventy-Seven".next_id());
INSERT INTO "Shard Seventy-Seven".t SELECT FROM generate_series(1, :n_77);
SELECT count(DISTINCT id) = :n_77 AS ids, bool_and(shard_id_shard(id) = 77) AS all_shard_77 FROM "Shard Seventy-Seven".t;
SELECT drop_shard(77, true);
DROP SCHEMA "Shard Seventy-Seven" CASCADE;
