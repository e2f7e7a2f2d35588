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
-- Range helpers of shard IDs, for any shard epoch (a custom layout for snowflake_lower/upper()
-- is capped at 63 bits of widths; the shard layout's are 41 + 13 + 10, the time's top bit never
-- set): every shard ID, of any shard, issued in the millisecond containing `at` lies in
-- [shard_id_lower(at, epoch), shard_id_upper(at, epoch)].
CREATE FUNCTION shard_id_lower(at timestamptz, epoch timestamptz) RETURNS bigint
    AS 'MODULE_PATHNAME', 'shard_id_lower' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION shard_id_upper(at timestamptz, epoch timestamptz) RETURNS bigint
    AS 'MODULE_PATHNAME', 'shard_id_upper' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION shard_id_lower(timestamptz, timestamptz) IS 'smallest shard ID (any shard) of the millisecond containing the given time, given the shard epoch';
COMMENT ON FUNCTION shard_id_upper(timestamptz, timestamptz) IS 'largest shard ID (any shard) of the millisecond containing the given time, given the shard epoch';
-- shard_id_time(bigint), which reads the registry, and create_shard(), drop_shard(),
-- rename_shard(): see 61_shard_admin.sql.
