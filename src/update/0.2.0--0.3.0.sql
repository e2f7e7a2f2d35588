-- id_gen upgrade 0.2.0 -> 0.3.0. Built by the Makefile: each `\ir` line is replaced by the file it
-- names (definitions shared with the install script are written once, with CREATE OR REPLACE).
-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION id_gen UPDATE TO '0.3.0'" to load this file. \quit
\ir ../sql/63_shard_cache.sql
\ir ../sql/64_shard_cluster_pull.sql
\ir ../sql/76_trace_id_tools.sql
-- idempotency_purge() returns (deleted, done) since 0.3.0 (0.2.0: bigint): a result type cannot
-- change in place, so 0.2.0's function goes here and the piece creates it again (never in the
-- piece: the install script would drop a function of the user's with that signature).
DROP FUNCTION IF EXISTS idempotency_purge(interval, integer);
\ir ../sql/81_idempotency_purge_0_3.sql
\ir ../sql/92_permute_keys_0_3.sql

\ir ../sql/22_uuidv6.sql
\ir ../sql/68_nanoid.sql
\ir ../sql/93_prefix_registry_0_3.sql
\ir ../sql/66_ksuid.sql
\ir ../sql/67_xid.sql
\ir ../sql/90_id_types.sql
\ir ../sql/94_shard_block_history.sql
\ir ../sql/71_snowflake_int8_ops.sql

-- Generators whose IDs strictly increase within a session are PARALLEL RESTRICTED from 0.3.0 (a
-- parallel worker is a backend with monotonic state of its own): the install script's pieces say
-- so where they define them; here, the ones 0.2.0 made PARALLEL SAFE. uuidv6(), gen_ksuid() and
-- gen_xid() are new, made by their pieces above.
ALTER FUNCTION gen_ulid() PARALLEL RESTRICTED;
ALTER FUNCTION gen_uuidv7() PARALLEL RESTRICTED;
ALTER FUNCTION gen_uuidv7(interval) PARALLEL RESTRICTED;
ALTER FUNCTION @extschema@.uuidv7() PARALLEL RESTRICTED;
ALTER FUNCTION @extschema@.uuidv7(interval) PARALLEL RESTRICTED;
ALTER FUNCTION gen_prefixed(text) PARALLEL RESTRICTED;
ALTER FUNCTION gen_prefixed(text, text) PARALLEL RESTRICTED;
-- And the generators of ID types 0.2.0's create_id_type() made (kinds ulid and uuidv7), as
-- create_id_type() makes them now: gen_<type>(), in the type's schema, over gen_ulid or gen_uuidv7.
DO $$
DECLARE
    f pg_catalog.regprocedure;
BEGIN
    FOR f IN SELECT p.oid FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_type t ON t.oid = p.prorettype
              WHERE p.prolang = (SELECT l.oid FROM pg_catalog.pg_language l WHERE l.lanname = 'c')
                AND p.probin = '$libdir/id_gen' AND p.prosrc IN ('gen_ulid', 'gen_uuidv7') AND p.pronargs = 0
                AND p.proname = 'gen_' || t.typname AND p.pronamespace = t.typnamespace AND p.proparallel = 's'
    LOOP
        EXECUTE pg_catalog.format('ALTER FUNCTION %s PARALLEL RESTRICTED', f);
    END LOOP;
END
$$;
