-- id_gen upgrade 0.3.0 -> 0.4.0. Built by the Makefile: each `\ir` line is replaced by the file it
-- names (definitions shared with the install script are written once, with CREATE OR REPLACE).
-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION id_gen UPDATE TO '0.4.0'" to load this file. \quit

-- id_gen_audit() (issue 36).
\ir ../sql/87_audit.sql

-- gen_monotonic_ulid() and monotonic_ulid_raise_mark() (issue 36).
\ir ../sql/12_monotonic_ulid.sql
