
-- id_gen_audit(table, column): what the IDs of a column say about their time, before and after a
-- conversion (ALTER COLUMN ... TYPE ulid USING id::ulid). The values whose time lies outside a
-- plausible window (before the kind's epoch or 2000-01-01, after now() + 1 day) sort where no
-- real ID would: a random (version 4) UUID read as a ULID decodes to a time up to the year 10889.
-- One row per shape and verdict, with the count, the earliest and latest time and the smallest
-- value as an example. Written with CREATE OR REPLACE: the upgrade script includes this piece.
CREATE OR REPLACE FUNCTION @extschema@.id_gen_audit(
    tab pg_catalog.regclass, col name,
    OUT shape text, OUT verdict text, OUT ids bigint,
    OUT earliest timestamptz, OUT latest timestamptz, OUT example text)
RETURNS SETOF record
LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    typ oid;
    kind text;
    -- What the query reads from each value v: its time t and, for values outside the window,
    -- its shape (the verdict is known there as w).
    time_expr text;
    shape_expr text;
    low timestamptz := '2000-01-01 00:00:00+00';
    epoch timestamptz;
    created text;
BEGIN
    SELECT a.atttypid INTO typ FROM pg_catalog.pg_attribute a
    WHERE a.attrelid = tab AND a.attname = col AND a.attnum > 0 AND NOT a.attisdropped;
    IF typ IS NULL THEN
        RAISE EXCEPTION 'column "%" of relation % does not exist', col, tab USING ERRCODE = '42703';
    END IF;
    -- A domain is audited as its base type.
    SELECT CASE WHEN y.typtype = 'd' THEN y.typbasetype ELSE y.oid END INTO typ
    FROM pg_catalog.pg_type y WHERE y.oid = typ;
    SELECT d.kind INTO created FROM @extschema@.id_type_describe(typ::pg_catalog.regtype) d;

    IF typ = '@extschema@.ulid'::pg_catalog.regtype THEN
        kind := 'ulid';
        time_expr := '@extschema@.ulid_time(v)';
        -- A ULID outside the window is often a UUID that was cast: its version and variant bits.
        shape_expr := $q$CASE WHEN w = 'in window' THEN 'ulid' ELSE pg_catalog.format('ulid: uuid version bits %s, %s variant',
                          pg_catalog.substr(v::pg_catalog.uuid::text, 15, 1),
                          CASE WHEN pg_catalog.substr(v::pg_catalog.uuid::text, 20, 1) IN ('8', '9', 'a', 'b') THEN 'RFC 9562' ELSE 'other' END) END$q$;
    ELSIF typ = 'pg_catalog.uuid'::pg_catalog.regtype THEN
        kind := 'uuid';
        -- Versions 1, 6 and 7 carry a time (version 1 and 6 from 1582, below the window's 2000).
        time_expr := '@extschema@.uuid_extract_timestamp(v)';
        shape_expr := $q$CASE WHEN v IS NULL THEN 'uuid' ELSE COALESCE('uuid v' || @extschema@.uuid_extract_version(v), 'uuid, not of the RFC 9562 variant') END$q$;
    ELSIF typ = '@extschema@.ksuid'::pg_catalog.regtype THEN
        kind := 'ksuid';
        epoch := '2014-05-13 16:53:20+00';
        time_expr := '@extschema@.ksuid_time(v)';
    ELSIF typ = '@extschema@.objectid'::pg_catalog.regtype THEN
        kind := 'objectid';
        time_expr := '@extschema@.objectid_time(v)';
    ELSIF typ = '@extschema@.rsxid'::pg_catalog.regtype THEN
        kind := 'rsxid';
        time_expr := '@extschema@.xid_time(v)';
    ELSIF typ = '@extschema@.snowflake'::pg_catalog.regtype THEN
        kind := 'snowflake';
        epoch := '2010-11-04 01:42:54.657+00';
        time_expr := '@extschema@.snowflake_time(v)';
    ELSIF created IS NOT NULL THEN
        -- A type of create_id_type(): its own <name>_time() reads the time of its kind.
        kind := pg_catalog.format('%s (%s)', typ::pg_catalog.regtype, created);
        epoch := CASE created WHEN 'snowflake' THEN '2010-11-04 01:42:54.657+00'::timestamptz
                              WHEN 'ksuid' THEN '2014-05-13 16:53:20+00'::timestamptz END;
        time_expr := (SELECT pg_catalog.format('%I.%I(v)', n.nspname, y.typname || '_time')
                      FROM pg_catalog.pg_type y JOIN pg_catalog.pg_namespace n ON n.oid = y.typnamespace
                      WHERE y.oid = typ);
    ELSE
        RAISE EXCEPTION 'id_gen_audit() cannot read the time of type %', typ::pg_catalog.regtype
            USING ERRCODE = '42804',
                  HINT = 'It reads columns of type ulid, uuid (versions 1, 6 and 7), ksuid, objectid, rsxid, snowflake (the twitter layout) and the types of create_id_type().';
    END IF;
    low := GREATEST(low, epoch);
    RETURN QUERY EXECUTE pg_catalog.format(
        $q$SELECT %s, w, pg_catalog.count(*), pg_catalog.min(t), pg_catalog.max(t), pg_catalog.min(v::text)
             FROM (SELECT v, t, CASE WHEN v IS NULL THEN 'null' WHEN t IS NULL THEN 'no time'
                                     WHEN t < $1 THEN 'before window' WHEN t > $2 THEN 'after window'
                                     ELSE 'in window' END AS w
                   FROM (SELECT %I AS v FROM %s) r, LATERAL (SELECT %s AS t) d) c
            GROUP BY 1, 2
            ORDER BY pg_catalog.array_position(ARRAY['in window', 'before window', 'after window', 'no time', 'null'], w), 1$q$,
        COALESCE(shape_expr, pg_catalog.quote_literal(kind)), col, tab, time_expr)
        USING low, pg_catalog.now() + interval '1 day';
END
$$;
COMMENT ON FUNCTION @extschema@.id_gen_audit(pg_catalog.regclass, name) IS
    'the IDs of a column grouped by what their time says: in a plausible window (after the kind''s epoch and 2000, before now() + 1 day) or outside it, with counts, times and an example';
