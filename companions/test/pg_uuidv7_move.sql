-- An application keyed by pg_uuidv7 moves onto id_gen in place (scripts/layers/sql.sh, with
-- pg_uuidv7 built from its source tarball): pg_uuidv7 is moved to a schema aside, the companion
-- installed where it was while it is still there, what uses pg_uuidv7's functions pointed at the
-- companion's by running the application's own DDL again, and pg_uuidv7 dropped without
-- CASCADE. No row is rewritten; the application's SQL runs unchanged before and after.
SET client_min_messages = warning;
SET TimeZone = 'UTC';
SET DateStyle = ISO;

-- ---- The application, as it was: pg_uuidv7 in public.
CREATE EXTENSION pg_uuidv7;
\set app_ddl_default 'ALTER TABLE app_events ALTER COLUMN id SET DEFAULT uuid_generate_v7()'
\set app_ddl_view 'CREATE OR REPLACE VIEW app_timeline AS SELECT id, uuid_v7_to_timestamptz(id) AS at, uuid_v7_to_timestamp(id) AS at_utc, body FROM app_events'
CREATE TABLE app_events (id uuid PRIMARY KEY, body text NOT NULL);
:app_ddl_default;
:app_ddl_view;
-- SQL functions with a body in quotes resolve their names when they run.
CREATE FUNCTION app_since(t timestamptz) RETURNS SETOF text LANGUAGE sql STABLE
    AS $$ SELECT body FROM app_events WHERE id >= uuid_timestamptz_to_v7(t, true) ORDER BY id $$;
CREATE FUNCTION app_key_at(t timestamp) RETURNS uuid LANGUAGE sql STABLE
    AS $$ SELECT uuid_timestamp_to_v7(t, true) $$;
INSERT INTO app_events VALUES
    (uuid_timestamptz_to_v7('2021-03-04 05:06:07.089+00', true), 'old, zero bits'),
    (uuid_timestamptz_to_v7('2022-06-30 23:59:59.999+00'), 'old, random bits'),
    ('018570bb-4a7d-7123-8456-789abcdef012', 'old, written by hand');
SELECT id FROM app_events WHERE body <> 'old, random bits' ORDER BY id;
INSERT INTO app_events (body) SELECT 'filler ' || g FROM generate_series(1, 200) g;

-- The application's questions, asked again after the move.
\set app_questions 'SELECT at, at_utc, body FROM app_timeline WHERE body LIKE \'old%\' ORDER BY id; SELECT app_since(\'2022-01-01 00:00+00\') LIMIT 2; SELECT app_key_at(\'2023-01-02 04:26:40.637\'); SELECT substr(uuid_generate_v7()::text, 15, 1) AS version, uuid_v7_to_timestamptz(uuid_generate_v7()) BETWEEN now() - interval \'1 minute\' AND clock_timestamp() + interval \'1 minute\';'
:app_questions
SELECT pg_relation_filenode('app_events') AS table_node, pg_relation_filenode('app_events_pkey') AS index_node,
       (SELECT string_agg(xmin::text || ctid::text, ',' ORDER BY id) FROM app_events) AS row_versions \gset

-- ---- The move, in one transaction: the application's SQL sees pg_uuidv7's names before it and
-- the companion's after it, never neither. id_gen in a schema of its own; pg_uuidv7 (relocatable)
-- moved aside, so the companion can take its place while it is still installed.
CREATE SCHEMA id_gen;
CREATE EXTENSION id_gen SCHEMA id_gen;
BEGIN;
CREATE SCHEMA uuidv7_old;
ALTER EXTENSION pg_uuidv7 SET SCHEMA uuidv7_old;
CREATE EXTENSION id_gen_pg_uuidv7 SCHEMA public;
SELECT extname, extnamespace::regnamespace FROM pg_extension WHERE extname LIKE '%uuidv7' ORDER BY 1;
-- What uses pg_uuidv7's functions by their identity (a default, a view; not the quoted bodies,
-- which resolve their names when they run): the application's own DDL for each, run again.
SELECT pg_describe_object(d.classid, d.objid, d.objsubid) AS uses, d.refobjid::regprocedure AS function
FROM pg_depend d
JOIN pg_depend m ON m.classid = 'pg_proc'::regclass AND m.objid = d.refobjid AND m.deptype = 'e'
JOIN pg_extension x ON x.oid = m.refobjid AND x.extname = 'pg_uuidv7'
WHERE d.refclassid = 'pg_proc'::regclass AND d.deptype = 'n'
ORDER BY 1, d.refobjid::regprocedure::text;
:app_ddl_default;
:app_ddl_view;
DROP EXTENSION pg_uuidv7;
DROP SCHEMA uuidv7_old;
COMMIT;

-- ---- After: the same answers, the same rows, the names now the companion's.
:app_questions
SELECT pg_get_expr(adbin, adrelid) AS id_default FROM pg_attrdef WHERE adrelid = 'app_events'::regclass;
SELECT pg_relation_filenode('app_events') = :table_node AS table_not_rewritten,
       pg_relation_filenode('app_events_pkey') = :index_node AS index_not_rebuilt,
       (SELECT string_agg(xmin::text || ctid::text, ',' ORDER BY id) FROM app_events) = :'row_versions' AS rows_untouched;
SELECT p.oid::regprocedure AS function, x.extname
FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension x ON x.oid = d.refobjid
WHERE p.pronamespace = 'public'::regnamespace AND p.proname LIKE 'uuid%' ORDER BY p.oid::regprocedure::text;
INSERT INTO app_events (body) VALUES ('new');
SELECT substr(id::text, 15, 1) AS version, uuid_v7_to_timestamptz(id) > '2022-06-30 23:59:59.999+00'
FROM app_events WHERE body = 'new';
SELECT count(*), count(DISTINCT id) FROM app_events;

DROP VIEW app_timeline;
DROP TABLE app_events;
DROP FUNCTION app_since(timestamptz), app_key_at(timestamp);
DROP EXTENSION id_gen_pg_uuidv7;
DROP EXTENSION id_gen;
DROP SCHEMA id_gen;
