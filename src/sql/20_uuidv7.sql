-------------------------------------------------------------------------------
-- uuidv7: RFC 9562 version 7 on the built-in uuid type, and the version of any UUID. Our own
-- names; the PostgreSQL 18 names (uuidv7(), uuid_extract_timestamp(), ...) are in
-- 21_uuid_core_names.sql, the timestamps of versions 1, 6 and 7 in 22_uuidv6.sql.
-------------------------------------------------------------------------------

-- Generation. VOLATILE. Each backend keeps its own monotonic clock, and a parallel worker is a
-- backend of its own: PARALLEL RESTRICTED, so every call runs in the session's own backend and a
-- session's IDs strictly increase. Order does not hold across sessions, nor between these and
-- PostgreSQL 18's core uuidv7(), which keeps a clock of its own.
CREATE FUNCTION gen_uuidv7() RETURNS uuid
    AS 'MODULE_PATHNAME', 'gen_uuidv7' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION gen_uuidv7() IS
    'new UUIDv7: Unix ms, 12-bit sub-ms fraction (RFC 9562 method 3), 62 CSPRNG bits; strictly increasing within a backend';
CREATE FUNCTION gen_uuidv7(shift interval) RETURNS uuid
    AS 'MODULE_PATHNAME', 'gen_uuidv7_shift' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION gen_uuidv7(interval) IS
    'new UUIDv7 whose time is the current time plus the interval (as PostgreSQL 18 uuidv7(interval))';

-- Reading UUIDs (any version).
CREATE FUNCTION uuid_version(uuid) RETURNS smallint
    AS 'MODULE_PATHNAME', 'uuid_version' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uuid_version(uuid) IS
    'version field of an RFC 9562 UUID; NULL for other variants (as PostgreSQL 18 uuid_extract_version)';
-- uuid_time(uuid), which reads versions 1, 6 and 7: 22_uuidv6.sql.

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
