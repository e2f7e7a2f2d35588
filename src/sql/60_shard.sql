-------------------------------------------------------------------------------
-- Instagram-style per-schema shards: 41 bits of ms since the shard's epoch | 13 bits of shard
-- number | 10 bits of sequence, issued by <schema>.next_id().
-------------------------------------------------------------------------------
-- The registry, keyed by schema *name* (OIDs change across dump/restore); pg_dump dumps its rows.
CREATE TABLE shard_registry (
    shard int4 PRIMARY KEY CHECK (shard BETWEEN 0 AND 8191),
    schema_name name NOT NULL UNIQUE,
    epoch timestamptz NOT NULL CHECK (isfinite(epoch)),
    created_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE shard_registry IS 'logical shards of this database: shard number, schema, epoch (maintained by create_shard / drop_shard)';
SELECT pg_catalog.pg_extension_config_dump('shard_registry', '');
REVOKE ALL ON shard_registry FROM PUBLIC;
GRANT SELECT ON shard_registry TO PUBLIC;

-- A row's shard, schema_name and epoch cannot be updated: UPDATE sends no cache invalidation, so
-- backends would keep issuing with the old values, and a later epoch would restart the time field
-- lower (see rename_shard() for renames; a shard's number and epoch never change).
CREATE FUNCTION shard_registry_guard() RETURNS trigger
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    IF NEW.shard IS DISTINCT FROM OLD.shard OR NEW.schema_name IS DISTINCT FROM OLD.schema_name
       OR NEW.epoch IS DISTINCT FROM OLD.epoch THEN
        RAISE EXCEPTION 'cannot change the shard, schema_name or epoch of shard %', OLD.shard
            USING ERRCODE = '55000',
                  DETAIL = 'Running next_id() functions cache these values, and a shard''s IDs are only unique under one number and epoch.',
                  HINT = 'Rename a shard''s schema with rename_shard(). A shard''s number and epoch are fixed: create a new shard instead.';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER shard_registry_guard BEFORE UPDATE ON shard_registry
    FOR EACH ROW EXECUTE FUNCTION shard_registry_guard();

-- Decoders of any shard ID (a bigint from next_id()); a router finds the shard from the ID alone.
CREATE FUNCTION shard_id_shard(id bigint) RETURNS int4
    AS 'MODULE_PATHNAME', 'shard_id_shard' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION shard_id_sequence(id bigint) RETURNS int4
    AS 'MODULE_PATHNAME', 'shard_id_sequence' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION shard_id_time(id bigint, epoch timestamptz) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'shard_id_time' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION shard_id_shard(bigint) IS 'shard number (13 bits) inside a shard ID';
COMMENT ON FUNCTION shard_id_sequence(bigint) IS 'sequence number (10 bits) inside a shard ID';
COMMENT ON FUNCTION shard_id_time(bigint, timestamptz) IS 'millisecond time inside a shard ID, given the shard''s epoch';
-- Reads the shard's epoch from the registry: STABLE. NULL when the shard is not registered here.
CREATE FUNCTION shard_id_time(id bigint) RETURNS timestamptz
    LANGUAGE sql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT @extschema@.shard_id_time($1, r.epoch) FROM @extschema@.shard_registry r
          WHERE r.shard = @extschema@.shard_id_shard($1) $$;
COMMENT ON FUNCTION shard_id_time(bigint) IS 'millisecond time inside a shard ID, with the epoch of its shard in shard_registry';

-- Makes a schema logical shard `shard`: creates the schema if needed and <schema>.next_id(), a C
-- function (one entry point for every shard) that finds its shard from its own schema.
-- Superuser only: it creates a C-language function, and a SECURITY DEFINER wrapper would let any
-- caller plant functions in any schema.
CREATE FUNCTION create_shard(shard int4, schema_name name DEFAULT NULL,
                             epoch timestamptz DEFAULT '2024-01-01 00:00:00+00')
    RETURNS regnamespace
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    sch name := coalesce(create_shard.schema_name, ('shard_' || create_shard.shard)::name);
    other name;
BEGIN
    IF NOT (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN
        RAISE EXCEPTION 'permission denied to create a shard'
            USING ERRCODE = '42501', HINT = 'create_shard() creates a C-language function: only a superuser can call it.';
    END IF;
    IF create_shard.shard IS NULL OR create_shard.shard NOT BETWEEN 0 AND 8191 THEN
        RAISE EXCEPTION 'shard number % is out of range', create_shard.shard
            USING ERRCODE = '22003', HINT = 'Shard numbers are 0 to 8191 (13 bits).';
    END IF;
    IF create_shard.epoch IS NULL OR NOT isfinite(create_shard.epoch) OR create_shard.epoch > now() THEN
        RAISE EXCEPTION 'invalid shard epoch %', create_shard.epoch
            USING ERRCODE = '22023', HINT = 'The epoch must be a finite time, not in the future; IDs run out 2^40 ms (about 34.8 years) after it.';
    END IF;
    SELECT r.schema_name INTO other FROM @extschema@.shard_registry r WHERE r.shard = create_shard.shard;
    IF FOUND THEN
        RAISE EXCEPTION 'shard % already exists', create_shard.shard
            USING ERRCODE = '42710', DETAIL = format('Its schema is %I.', other);
    END IF;
    SELECT r.shard INTO other FROM @extschema@.shard_registry r WHERE r.schema_name = sch;
    IF FOUND THEN
        RAISE EXCEPTION 'schema % is already shard %', sch, other USING ERRCODE = '42710';
    END IF;
    INSERT INTO @extschema@.shard_registry (shard, schema_name, epoch)
        VALUES (create_shard.shard, sch, create_shard.epoch);
    EXECUTE format('CREATE SCHEMA IF NOT EXISTS %I', sch);
    EXECUTE format('CREATE FUNCTION %I.next_id() RETURNS bigint LANGUAGE C VOLATILE PARALLEL UNSAFE AS %L, %L',
                   sch, 'MODULE_PATHNAME', 'shard_next_id');
    EXECUTE format('COMMENT ON FUNCTION %I.next_id() IS %L', sch,
                   format('next ID of shard %s (id_gen): ms since %s | shard %s | sequence', create_shard.shard,
                          create_shard.epoch AT TIME ZONE 'UTC', create_shard.shard));
    -- By OID, not sch::regnamespace, which would parse the name as an identifier (and fold case).
    RETURN (SELECT n.oid FROM pg_catalog.pg_namespace n WHERE n.nspname = sch)::regnamespace;
END
$$;
COMMENT ON FUNCTION create_shard(int4, name, timestamptz) IS 'make a schema (default shard_<n>) logical shard n with its own next_id(); superuser only';
REVOKE ALL ON FUNCTION create_shard(int4, name, timestamptz) FROM PUBLIC;

-- Drops a shard's next_id() and its registry row; the schema and its tables stay. With
-- cascade, column defaults that call next_id() are dropped too.
CREATE FUNCTION drop_shard(shard int4, cascade boolean DEFAULT false) RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    sch name;
BEGIN
    IF NOT (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN
        RAISE EXCEPTION 'permission denied to drop a shard' USING ERRCODE = '42501';
    END IF;
    DELETE FROM @extschema@.shard_registry r WHERE r.shard = drop_shard.shard RETURNING r.schema_name INTO sch;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'shard % does not exist', drop_shard.shard USING ERRCODE = '42704';
    END IF;
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = sch) THEN
        EXECUTE format('DROP FUNCTION IF EXISTS %I.next_id() %s', sch,
                       CASE WHEN drop_shard.cascade THEN 'CASCADE' ELSE 'RESTRICT' END);
    ELSE
        RAISE WARNING 'schema % of shard % does not exist: only its registry entry was dropped', sch, drop_shard.shard
            USING HINT = 'If the schema was renamed with ALTER SCHEMA, drop its next_id() by hand; rename shard schemas with rename_shard().';
    END IF;
END
$$;
COMMENT ON FUNCTION drop_shard(int4, boolean) IS 'unregister shard n and drop its next_id() (the schema stays); superuser only';
REVOKE ALL ON FUNCTION drop_shard(int4, boolean) FROM PUBLIC;

-- Renames a shard's schema and updates its registry row in one transaction (the registry is keyed
-- by schema name; a bare ALTER SCHEMA ... RENAME leaves next_id() raising 55000). When the schema
-- was already renamed with ALTER SCHEMA, this registers the new name.
CREATE FUNCTION rename_shard(shard int4, new_schema_name name) RETURNS regnamespace
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    reg record;
    other int4;
BEGIN
    IF NOT (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN
        RAISE EXCEPTION 'permission denied to rename a shard' USING ERRCODE = '42501';
    END IF;
    IF rename_shard.new_schema_name IS NULL THEN
        RAISE EXCEPTION 'new schema name must not be null' USING ERRCODE = '22004';
    END IF;
    SELECT r.* INTO reg FROM @extschema@.shard_registry r WHERE r.shard = rename_shard.shard FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'shard % does not exist', rename_shard.shard USING ERRCODE = '42704';
    END IF;
    IF reg.schema_name = rename_shard.new_schema_name THEN
        RETURN (SELECT n.oid FROM pg_catalog.pg_namespace n WHERE n.nspname = reg.schema_name)::regnamespace;
    END IF;
    SELECT r.shard INTO other FROM @extschema@.shard_registry r WHERE r.schema_name = rename_shard.new_schema_name;
    IF FOUND THEN
        RAISE EXCEPTION 'schema % is already shard %', rename_shard.new_schema_name, other USING ERRCODE = '42710';
    END IF;
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_namespace n WHERE n.nspname = reg.schema_name) THEN
        EXECUTE format('ALTER SCHEMA %I RENAME TO %I', reg.schema_name, rename_shard.new_schema_name);
    ELSIF pg_catalog.to_regprocedure(pg_catalog.format('%I.next_id()', rename_shard.new_schema_name)) IS NULL THEN
        RAISE EXCEPTION 'schema % of shard % does not exist', reg.schema_name, rename_shard.shard
            USING ERRCODE = '3F000',
                  HINT = format('Neither %I nor %I.next_id() exists: drop the shard with drop_shard(%s).',
                                reg.schema_name, rename_shard.new_schema_name, rename_shard.shard);
    END IF;
    -- Rows cannot be updated (shard_registry_guard): replace it, keeping epoch and created_at.
    DELETE FROM @extschema@.shard_registry r WHERE r.shard = rename_shard.shard;
    INSERT INTO @extschema@.shard_registry (shard, schema_name, epoch, created_at)
        VALUES (reg.shard, rename_shard.new_schema_name, reg.epoch, reg.created_at);
    RETURN (SELECT n.oid FROM pg_catalog.pg_namespace n WHERE n.nspname = rename_shard.new_schema_name)::regnamespace;
END
$$;
COMMENT ON FUNCTION rename_shard(int4, name) IS 'rename shard n''s schema and its registry entry together (or register a schema already renamed); superuser only';
REVOKE ALL ON FUNCTION rename_shard(int4, name) FROM PUBLIC;
