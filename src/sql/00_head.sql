-- id_gen install script. Generated from src/sql/*.sql by the Makefile; edit those files.
-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION id_gen" to load this file. \quit
