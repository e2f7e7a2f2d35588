-- id_gen_input_is_valid() and id_gen_input_error_info(): PostgreSQL 16's pg_input_is_valid() and
-- pg_input_error_info() on every version, for id_gen's types and any other. The output is the same
-- on every server version (core's own functions, 16+, are compared in the integration tests).
SET client_min_messages = warning;
\set VERBOSITY default
\set SHOW_CONTEXT never

-- Every id_gen type: valid text, malformed text (22P02), text out of range (22003). The message
-- names the type and carries the offending value.
CREATE TABLE input_cases (n int, value text, type_name text);
INSERT INTO input_cases VALUES
  (1,  '01ARZ3NDEKTSV4RRFFQ69G5FAV', 'ulid'),
  (2,  '01arz3ndektsv4rrffq69g5fav', 'ulid'),
  (3,  '01ARZ3NDEKTSV4RRFFQ69G5FAU', 'ulid'),
  (4,  '01ARZ3NDEKTSV4RRFFQ69G5FA', 'ulid'),
  (5,  '', 'ulid'),
  (6,  '80000000000000000000000000', 'ulid'),
  (7,  '1541815603606036480', 'snowflake'),
  (8,  '9223372036854775807', 'snowflake'),
  (9,  '12x', 'snowflake'),
  (10, '0', 'snowflake'),
  (11, '-5', 'snowflake'),
  (12, '9223372036854775808', 'snowflake'),
  (13, '1y2p0ij32e8e7', 'base36_64'),
  (14, 'ZZ', 'base36_64'),
  (15, '1y2p0ij32e8e8', 'base36_64'),
  (16, 'a-b', 'base36_64'),
  (17, 'f5lxx1zz5pnorynqglhzmsp33', 'base36_128'),
  (18, 'f5lxx1zz5pnorynqglhzmsp34', 'base36_128'),
  (19, ' 1', 'base36_128');
-- The type name comes from a column here: it is looked up again on every row.
SELECT n, type_name, id_gen_input_is_valid(value, type_name) AS valid, e.*
FROM input_cases, LATERAL id_gen_input_error_info(value, type_name) e ORDER BY n;
-- A constant type name: looked up once for the whole query.
SELECT value, id_gen_input_is_valid(value, 'ulid') AS valid,
       (id_gen_input_error_info(value, 'ulid')).sql_error_code
FROM input_cases WHERE type_name = 'ulid' ORDER BY n;

-- The same answer as the cast: every case that is valid casts, every other raises its SQLSTATE.
CREATE FUNCTION cast_sqlstate(value text, type_name text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('SELECT %L::%s', value, type_name);
  RETURN NULL;
EXCEPTION WHEN others THEN
  RETURN SQLSTATE;
END $$;
SELECT count(*) AS cases,
       count(*) FILTER (WHERE cast_sqlstate(value, type_name) IS NOT DISTINCT FROM
                              (id_gen_input_error_info(value, type_name)).sql_error_code) AS agree
FROM input_cases;

-- Any type: core types with a type modifier, arrays (an error with a detail), a domain over ulid
-- (its CHECK is an error of class 23), reg* names.
CREATE DOMAIN early_ulid AS ulid CHECK (ulid_time(VALUE) < '2000-01-01');
SELECT * FROM id_gen_input_error_info('42', 'integer');
SELECT * FROM id_gen_input_error_info('forty-two', 'integer');
SELECT * FROM id_gen_input_error_info('3000000000', 'integer');
SELECT * FROM id_gen_input_error_info('abc', 'varchar(2)');
SELECT * FROM id_gen_input_error_info('{01ARZ3NDEKTSV4RRFFQ69G5FAV,01ARZ3NDEKTSV4RRFFQ69G5FAU}', 'ulid[]');
SELECT * FROM id_gen_input_error_info('{1,2', 'integer[]');
SELECT id_gen_input_is_valid('00000000000000000000000000', 'early_ulid') AS year_1970,
       id_gen_input_is_valid('01ARZ3NDEKTSV4RRFFQ69G5FAV', 'early_ulid') AS year_2016;
SELECT * FROM id_gen_input_error_info('01ARZ3NDEKTSV4RRFFQ69G5FAV', 'early_ulid');
SELECT * FROM id_gen_input_error_info('01ARZ3NDEKTSV4RRFFQ69G5FAU', 'early_ulid');
SELECT * FROM id_gen_input_error_info('no_such_table', 'regclass');

-- What is not about the input still raises: the type name must name a type; an error that is
-- not an input error (here a P0001 raised while checking a domain's constraint) propagates.
SELECT id_gen_input_is_valid('1', 'no_such_type');
CREATE FUNCTION refuse(ulid) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION 'refused %', $1; END $$;
CREATE DOMAIN refused_ulid AS ulid CHECK (refuse(VALUE));
SELECT id_gen_input_is_valid('01ARZ3NDEKTSV4RRFFQ69G5FAV', 'refused_ulid');
-- ... while a malformed value is reported before the CHECK runs.
SELECT id_gen_input_is_valid('01ARZ3NDEKTSV4RRFFQ69G5FAU', 'refused_ulid');

-- NULL in, NULL out (STRICT), as core's.
SELECT id_gen_input_is_valid(NULL, 'ulid') IS NULL AS null_value,
       id_gen_input_is_valid('x', NULL) IS NULL AS null_type,
       id_gen_input_error_info(NULL, 'ulid') IS NULL AS null_info;

-- Inside a transaction: checking many values assigns no transaction ID (nothing is written),
-- keeps what the transaction wrote before, and a checked value can be inserted after.
BEGIN;
SELECT count(*) FILTER (WHERE id_gen_input_is_valid(v, 'ulid')) AS valid,
       count(*) FILTER (WHERE NOT id_gen_input_is_valid(v, 'ulid')) AS invalid
FROM (SELECT CASE WHEN g % 3 = 0 THEN gen_ulid()::text ELSE 'bad' || g END AS v
      FROM generate_series(1, 3000) g) s;
SELECT pg_current_xact_id_if_assigned() IS NULL AS no_xid;
CREATE TEMP TABLE checked (id ulid);
INSERT INTO checked VALUES ('00000000000000000000000000');
SELECT count(*) FILTER (WHERE NOT id_gen_input_is_valid('bad' || g, 'ulid')) AS invalid
FROM generate_series(1, 1000) g;
INSERT INTO checked SELECT '01ARZ3NDEKTSV4RRFFQ69G5FAV' WHERE id_gen_input_is_valid('01ARZ3NDEKTSV4RRFFQ69G5FAV', 'ulid');
SELECT id FROM checked ORDER BY id;
COMMIT;

-- Labels: STABLE and STRICT as core's; PARALLEL UNSAFE (on 15 the input function runs in a
-- subtransaction, which parallel mode forbids).
SELECT p.proname, p.provolatile, p.proparallel, p.proisstrict, pg_get_function_arguments(p.oid) AS args,
       pg_get_function_result(p.oid) AS result
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
JOIN pg_extension x ON x.oid = d.refobjid AND x.extname = 'id_gen'
WHERE p.proname LIKE 'id\_gen\_input\_%' ORDER BY 1;

DROP TABLE input_cases;
DROP FUNCTION cast_sqlstate(text, text);
DROP DOMAIN early_ulid;
DROP DOMAIN refused_ulid;
DROP FUNCTION refuse(ulid);
