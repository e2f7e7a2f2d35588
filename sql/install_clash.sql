-- CREATE EXTENSION id_gen in a schema that already holds some of its names: one error before
-- anything is created, listing every clash, with the SQLSTATE PostgreSQL gives that kind of
-- object and a hint naming a schema of id_gen's own; installing there then works beside them.
-- In a database of its own: id_gen is installed once per database.
SET client_min_messages = warning;
\set SHOW_CONTEXT never
SELECT current_database() AS regress_db \gset
CREATE DATABASE id_gen_install_clash TEMPLATE template0;
\c id_gen_install_clash
SET client_min_messages = warning;
-- CREATE EXTENSION is PostgreSQL's DDL over the script: without debug_discard_caches (the long
-- test run), as in zz_reinstall.
SET debug_discard_caches = 0;
\set SHOW_CONTEXT never

CREATE SCHEMA probe;
-- What a schema holds: functions, types, relations, operators, operator classes and families.
CREATE FUNCTION probe.objects_in(s name) RETURNS bigint LANGUAGE sql AS $$
    SELECT (SELECT count(*) FROM pg_proc WHERE pronamespace = s::regnamespace)
         + (SELECT count(*) FROM pg_type WHERE typnamespace = s::regnamespace)
         + (SELECT count(*) FROM pg_class WHERE relnamespace = s::regnamespace)
         + (SELECT count(*) FROM pg_operator WHERE oprnamespace = s::regnamespace)
         + (SELECT count(*) FROM pg_opclass WHERE opcnamespace = s::regnamespace)
         + (SELECT count(*) FROM pg_opfamily WHERE opfnamespace = s::regnamespace)
$$;
-- CREATE EXTENSION id_gen SCHEMA s, its error caught: SQLSTATE, message, detail, hint.
CREATE FUNCTION probe.try_install(s name, OUT code text, OUT message text, OUT detail text, OUT hint text)
LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('CREATE EXTENSION id_gen SCHEMA %I', s);
    code := 'installed';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS code = RETURNED_SQLSTATE, message = MESSAGE_TEXT,
                            detail = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
END
$$;

-- A function: a uuidv7() polyfill. Without the guard, PostgreSQL's error would be 55000
-- "function uuidv7() is not a member of extension" (the script says CREATE OR REPLACE).
CREATE SCHEMA app_fn;
CREATE FUNCTION app_fn.uuidv7() RETURNS uuid LANGUAGE sql AS 'SELECT gen_random_uuid()';
SELECT probe.objects_in('app_fn') AS before \gset
SELECT * FROM probe.try_install('app_fn') \gx
SELECT probe.objects_in('app_fn') = :before AS nothing_created,
       (SELECT count(*) FROM pg_extension WHERE extname = 'id_gen') AS installed;

-- A type: pgx_ulid's name (a composite type stands in for its base type).
CREATE SCHEMA app_type;
CREATE TYPE app_type.ulid AS (hi bigint, lo bigint);
SELECT probe.objects_in('app_type') AS before \gset
SELECT code, message, detail FROM probe.try_install('app_type') \gx
SELECT probe.objects_in('app_type') = :before AS nothing_created;

-- A table: a hand-written idempotency table.
CREATE SCHEMA app_table;
CREATE TABLE app_table.idempotency_keys (key text PRIMARY KEY, response jsonb);
SELECT probe.objects_in('app_table') AS before \gset
SELECT code, message, detail FROM probe.try_install('app_table') \gx
SELECT probe.objects_in('app_table') = :before AS nothing_created;

-- All of them in one schema, with a function whose argument is the schema's own ulid, an
-- operator, and one object that belongs to another extension: one message lists each, once
-- (a table is also a row type), and the SQLSTATE is the first clash's in the script's order.
CREATE SCHEMA app_all;
CREATE TYPE app_all.ulid AS (hi bigint, lo bigint);
CREATE FUNCTION app_all.ulid_time(app_all.ulid) RETURNS timestamptz LANGUAGE sql AS 'SELECT now()';
CREATE FUNCTION app_all.uuidv7() RETURNS uuid LANGUAGE sql AS 'SELECT gen_random_uuid()';
CREATE FUNCTION app_all.ulid_eq(app_all.ulid, app_all.ulid) RETURNS bool LANGUAGE sql AS 'SELECT $1 = $2';
CREATE OPERATOR app_all.= (LEFTARG = app_all.ulid, RIGHTARG = app_all.ulid, FUNCTION = app_all.ulid_eq);
CREATE TABLE app_all.idempotency_keys (key text PRIMARY KEY);
CREATE TABLE app_all.shard_registry (shard int);
ALTER EXTENSION plpgsql ADD FUNCTION app_all.uuidv7();
-- Not clashes: the same name with other argument types, a type's name for a function.
CREATE FUNCTION app_all.gen_ulid(int) RETURNS text LANGUAGE sql AS 'SELECT ''x''';
CREATE FUNCTION app_all.snowflake() RETURNS int LANGUAGE sql AS 'SELECT 1';
SELECT probe.objects_in('app_all') AS before \gset
SELECT * FROM probe.try_install('app_all') \gx
SELECT probe.objects_in('app_all') = :before AS nothing_created;
ALTER EXTENSION plpgsql DROP FUNCTION app_all.uuidv7();

-- What the hint says: a schema of id_gen's own, beside the application's objects. The
-- application's uuidv7() stays its own; id_gen's are reached qualified or through search_path.
CREATE SCHEMA id_gen;
SELECT code FROM probe.try_install('id_gen');
SELECT probe.objects_in('app_all') = :before AS app_untouched,
       (SELECT extnamespace::regnamespace FROM pg_extension WHERE extname = 'id_gen') AS schema;
SELECT app_all.uuidv7() IS NOT NULL AS polyfill_answers,
       id_gen.uuid_extract_version(id_gen.uuidv7()) AS id_gen_version,
       id_gen.gen_ulid() OPERATOR(id_gen.<) id_gen.gen_ulid() AS ulid_works;
-- Operators are found through search_path too: with id_gen's schema on it, after the
-- application's (whose names then win: ulid is app_all's, gen_ulid() id_gen's).
SET search_path = app_all, id_gen, public;
SELECT pg_typeof(gen_ulid()) AS gen_ulid_type, gen_ulid() < gen_ulid() AS ulid_works,
       (SELECT count(*) FROM idempotency_keys) AS app_table_rows;
RESET search_path;

-- The guard's list (made by the Makefile from the script) names what the install made: per kind,
-- as many entries as the catalog holds (a table's row type counts as a type, read from the
-- table: 17 and 18 record it as a member of the extension, 15 does not; an array type,
-- whose name PostgreSQL chooses free, does not count; the relations are
-- the tables and the indexes of CREATE INDEX, those of constraints having names of their own).
SELECT setting || '/extension/id_gen--' || (SELECT extversion FROM pg_extension WHERE extname = 'id_gen') || '.sql' AS script
FROM pg_config WHERE name = 'SHAREDIR' \gset
WITH listed AS (
    SELECT m[1] AS kind, count(*) AS n
    FROM regexp_matches(pg_read_file(:'script'), E'\n        ''([a-z_]+) [^''\n]+'',?(?=\n)', 'g') m GROUP BY 1
), members AS (
    SELECT d.classid, d.objid FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
    WHERE e.extname = 'id_gen' AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
), catalog(kind, n) AS (VALUES
    ('function', (SELECT count(*) FROM members WHERE classid = 'pg_proc'::regclass)),
    ('type', (SELECT count(*) FROM members m JOIN pg_type t ON t.oid = m.objid
              WHERE m.classid = 'pg_type'::regclass AND t.typrelid = 0
              AND NOT EXISTS (SELECT 1 FROM pg_type a WHERE a.typarray = m.objid))
           + (SELECT count(*) FROM members m JOIN pg_class c ON c.oid = m.objid
              WHERE m.classid = 'pg_class'::regclass AND c.reltype <> 0)),
    ('relation', (SELECT count(*) FROM members WHERE classid = 'pg_class'::regclass)
               + (SELECT count(*) FROM pg_index i JOIN members m ON m.classid = 'pg_class'::regclass AND m.objid = i.indrelid
                  WHERE NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid))),
    ('operator', (SELECT count(*) FROM members WHERE classid = 'pg_operator'::regclass)),
    ('opclass', (SELECT count(*) FROM members WHERE classid = 'pg_opclass'::regclass)),
    ('opfamily', (SELECT count(*) FROM members WHERE classid = 'pg_opfamily'::regclass))
)
SELECT kind, l.n = c.n AS listed_as_installed, l.n > 0 AS some
FROM catalog c LEFT JOIN listed l USING (kind) ORDER BY kind;

\c :regress_db
SET client_min_messages = warning;
DROP DATABASE id_gen_install_clash;
