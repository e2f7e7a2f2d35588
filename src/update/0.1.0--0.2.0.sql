-- id_gen upgrade 0.1.0 -> 0.2.0. Built by the Makefile: each `\ir` line is replaced by the file it
-- names (definitions shared with the install script are written once, with CREATE OR REPLACE).
-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION id_gen UPDATE TO '0.2.0'" to load this file. \quit
\ir ../sql/36_prefix_registry.sql

\ir ../sql/61_shard_admin.sql

\ir ../sql/62_shard_cluster.sql

\ir ../sql/52_snowflake_state.sql

\ir ../sql/21_uuid_core_names.sql

\ir ../sql/70_surface_0_2.sql

\ir ../sql/75_generator_marks.sql

\ir ../sql/80_input_check.sql
\ir ../sql/82_correlation.sql

\ir ../sql/55_base62.sql
\ir ../sql/80_idempotency.sql

\ir ../sql/90_id_types.sql
\ir ../sql/57_objectid.sql
\ir ../sql/58_trace_decimal.sql
\ir ../sql/56_permute.sql
