-------------------------------------------------------------------------------
-- uuidv7: RFC 9562 version 7 on the built-in uuid type, and the time fields of versions 1 and 7.
-- Our own names are always installed; the PostgreSQL-18-compatible names only where core lacks
-- them (see the DO block at the end).
-------------------------------------------------------------------------------

-- Generation. VOLATILE; PARALLEL SAFE because each backend keeps its own monotonic clock:
-- order holds within one backend (one session), not across parallel workers or sessions.
CREATE FUNCTION gen_uuidv7() RETURNS uuid
    AS 'MODULE_PATHNAME', 'gen_uuidv7' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION gen_uuidv7() IS
    'new UUIDv7: Unix ms, 12-bit sub-ms fraction (RFC 9562 method 3), 62 CSPRNG bits; strictly increasing within a backend';
CREATE FUNCTION gen_uuidv7(shift interval) RETURNS uuid
    AS 'MODULE_PATHNAME', 'gen_uuidv7_shift' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gen_uuidv7(interval) IS
    'new UUIDv7 whose time is the current time plus the interval (as PostgreSQL 18 uuidv7(interval))';

-- Reading UUIDs (any version).
CREATE FUNCTION uuid_version(uuid) RETURNS smallint
    AS 'MODULE_PATHNAME', 'uuid_version' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uuid_version(uuid) IS
    'version field of an RFC 9562 UUID; NULL for other variants (as PostgreSQL 18 uuid_extract_version)';
CREATE FUNCTION uuid_time(uuid) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'uuid_time' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uuid_time(uuid) IS
    'timestamp of a version 1 (µs) or version 7 (ms) UUID; NULL otherwise (as PostgreSQL 18 uuid_extract_timestamp)';

-- UUIDv7 time.
CREATE FUNCTION uuidv7_time(uuid) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'uuidv7_time' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uuidv7_time(uuid) IS 'the millisecond timestamp of a UUIDv7; NULL for any other UUID';
CREATE FUNCTION uuidv7_time_precise(uuid) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'uuidv7_time_precise' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uuidv7_time_precise(uuid) IS
    'UUIDv7 time with rand_a read as a 1/4096 ms fraction (RFC 9562 method 3: PostgreSQL 18 and id_gen); NULL if not v7';
CREATE FUNCTION uuidv7_lower(timestamptz) RETURNS uuid
    AS 'MODULE_PATHNAME', 'uuidv7_lower' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uuidv7_lower(timestamptz) IS 'smallest UUIDv7 of the millisecond containing the given time';
CREATE FUNCTION uuidv7_upper(timestamptz) RETURNS uuid
    AS 'MODULE_PATHNAME', 'uuidv7_upper' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uuidv7_upper(timestamptz) IS 'largest UUIDv7 of the millisecond containing the given time';

-- PostgreSQL-compatible names. pg_catalog is searched first, so a same-named function of ours
-- would be dead weight where core has it: create each only where the server lacks it.
--   15, 16: uuidv7(), uuidv7(interval), uuid_extract_timestamp(uuid), uuid_extract_version(uuid)
--   17:     uuidv7(), uuidv7(interval)   (core's extract functions exist; its timestamp is v1-only)
--   18+:    none
-- They are extension members like everything else in this script and go with DROP EXTENSION.
DO $compat$
DECLARE
    server_version int := pg_catalog.current_setting('server_version_num')::int;
BEGIN
    IF server_version < 180000 THEN
        CREATE FUNCTION @extschema@.uuidv7() RETURNS uuid
            AS 'MODULE_PATHNAME', 'gen_uuidv7' LANGUAGE C VOLATILE PARALLEL SAFE;
        CREATE FUNCTION @extschema@.uuidv7(shift interval) RETURNS uuid
            AS 'MODULE_PATHNAME', 'gen_uuidv7_shift' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
        COMMENT ON FUNCTION @extschema@.uuidv7() IS 'generate UUID version 7 (id_gen, for servers before PostgreSQL 18)';
        COMMENT ON FUNCTION @extschema@.uuidv7(interval) IS
            'generate UUID version 7 with a timestamp shifted by specified interval (id_gen, for servers before PostgreSQL 18)';
    END IF;
    IF server_version < 170000 THEN
        CREATE FUNCTION @extschema@.uuid_extract_timestamp(uuid) RETURNS timestamptz
            AS 'MODULE_PATHNAME', 'uuid_time' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
        CREATE FUNCTION @extschema@.uuid_extract_version(uuid) RETURNS smallint
            AS 'MODULE_PATHNAME', 'uuid_version' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
        COMMENT ON FUNCTION @extschema@.uuid_extract_timestamp(uuid) IS
            'extract timestamp from UUID version 1 or 7 (id_gen, for servers before PostgreSQL 17)';
        COMMENT ON FUNCTION @extschema@.uuid_extract_version(uuid) IS
            'extract version from RFC 9562 UUID (id_gen, for servers before PostgreSQL 17)';
    END IF;
END
$compat$;
