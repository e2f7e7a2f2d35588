-- id_gen_pgx_ulid 0.1.0: pgx_ulid's conversion functions and the casts id_gen's ulid lacks.
-- Released with id_gen 0.4.0 and frozen since: a change is a new version with an upgrade script.
-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION id_gen_pgx_ulid" to load this file. \quit

-- pgx_ulid's type is named ulid and its generator gen_ulid(), as id_gen's are: those names are
-- id_gen's own. What pgx_ulid has besides, and so what this adds (all IMMUTABLE STRICT PARALLEL
-- SAFE, as pgx_ulid labels them):
--  - ulid_from_uuid(uuid), ulid_to_uuid(ulid): the same 16 bytes, most significant first (id_gen's
--    casts between ulid and uuid do the same).
--  - ulid_to_bytea(ulid): those 16 bytes.
--  - ulid_to_timestamptz(ulid), ulid_to_timestamp(ulid): the ULID's millisecond, the timestamp
--    as UTC's wall-clock time.
--  - timestamptz_to_ulid(timestamptz), timestamp_to_ulid(timestamp) (the latter read as UTC): the
--    smallest ULID of the time's millisecond (80 zero random bits). A time that no ULID holds
--    (before 1970, infinity) is 22003 here, through id_gen's ulid_lower().
--  - casts ulid -> bytea, ulid -> timestamp, timestamp -> ulid, timestamptz -> ulid, with those
--    functions. id_gen has ulid <-> uuid and ulid -> timestamptz already.
-- pgx_ulid declares all of its casts AS IMPLICIT; these are explicit, as id_gen's are (one cast
-- per pair of types, and id_gen's are id_gen's): docs/migrating.md says what an implicit cast
-- would save and what it breaks.
-- The relocatable companion names id_gen's objects by the schema id_gen is in when it is created
-- (@extschema:id_gen@ exists only from PostgreSQL 16): read from pg_extension and written into
-- each function's body and signature.
DO $companion$
DECLARE
    idgen text := (SELECT pg_catalog.quote_ident(n.nspname)
                   FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace
                   WHERE e.extname = 'id_gen');
    fn record;
BEGIN
    IF idgen IS NULL THEN
        RAISE EXCEPTION 'id_gen_pgx_ulid needs the extension id_gen' USING ERRCODE = '55000';
    END IF;
    -- name, argument type, result type, body (%1$s: id_gen's schema), comment.
    FOR fn IN SELECT * FROM (VALUES
        ('ulid_from_uuid', 'pg_catalog.uuid', '%1$s.ulid', 'SELECT $1::%1$s.ulid',
         'pgx_ulid''s: the ulid of the same 16 bytes (id_gen_pgx_ulid)'),
        ('ulid_to_uuid', '%1$s.ulid', 'pg_catalog.uuid', 'SELECT $1::pg_catalog.uuid',
         'pgx_ulid''s: the uuid of the same 16 bytes (id_gen_pgx_ulid)'),
        ('ulid_to_bytea', '%1$s.ulid', 'pg_catalog.bytea', 'SELECT pg_catalog.uuid_send($1::pg_catalog.uuid)',
         'pgx_ulid''s: the 16 bytes of a ulid, most significant first (id_gen_pgx_ulid)'),
        ('ulid_to_timestamptz', '%1$s.ulid', 'pg_catalog.timestamptz', 'SELECT %1$s.ulid_time($1)',
         'pgx_ulid''s: the millisecond inside a ulid (id_gen_pgx_ulid)'),
        ('ulid_to_timestamp', '%1$s.ulid', 'pg_catalog.timestamp', $$SELECT pg_catalog.timezone('UTC', %1$s.ulid_time($1))$$,
         'pgx_ulid''s: the millisecond inside a ulid, as UTC''s wall-clock time (id_gen_pgx_ulid)'),
        ('timestamptz_to_ulid', 'pg_catalog.timestamptz', '%1$s.ulid', 'SELECT %1$s.ulid_lower($1)',
         'pgx_ulid''s: the smallest ulid of the time''s millisecond (id_gen_pgx_ulid)'),
        ('timestamp_to_ulid', 'pg_catalog.timestamp', '%1$s.ulid', $$SELECT %1$s.ulid_lower(pg_catalog.timezone('UTC', $1))$$,
         'pgx_ulid''s: the smallest ulid of the millisecond of a UTC wall-clock time (id_gen_pgx_ulid)')
    ) v(name, arg, res, body, note) LOOP
        EXECUTE pg_catalog.format($f$
            CREATE FUNCTION %s(%s) RETURNS %s
            LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE SET search_path = pg_catalog, pg_temp
            AS %L$f$, fn.name, pg_catalog.format(fn.arg, idgen), pg_catalog.format(fn.res, idgen),
            pg_catalog.format(fn.body, idgen));
        EXECUTE pg_catalog.format('COMMENT ON FUNCTION %s(%s) IS %L', fn.name, pg_catalog.format(fn.arg, idgen), fn.note);
    END LOOP;
    -- Casts name their function by its schema: the one this script creates in.
    EXECUTE pg_catalog.format('CREATE CAST (%1$s.ulid AS pg_catalog.bytea) WITH FUNCTION %2$s.ulid_to_bytea(%1$s.ulid)',
                              idgen, pg_catalog.quote_ident(pg_catalog.current_schema()));
    EXECUTE pg_catalog.format('CREATE CAST (%1$s.ulid AS pg_catalog.timestamp) WITH FUNCTION %2$s.ulid_to_timestamp(%1$s.ulid)',
                              idgen, pg_catalog.quote_ident(pg_catalog.current_schema()));
    EXECUTE pg_catalog.format('CREATE CAST (pg_catalog.timestamp AS %1$s.ulid) WITH FUNCTION %2$s.timestamp_to_ulid(pg_catalog.timestamp)',
                              idgen, pg_catalog.quote_ident(pg_catalog.current_schema()));
    EXECUTE pg_catalog.format('CREATE CAST (pg_catalog.timestamptz AS %1$s.ulid) WITH FUNCTION %2$s.timestamptz_to_ulid(pg_catalog.timestamptz)',
                              idgen, pg_catalog.quote_ident(pg_catalog.current_schema()));
END
$companion$;
