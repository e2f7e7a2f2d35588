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
