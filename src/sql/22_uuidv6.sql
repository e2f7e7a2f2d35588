-------------------------------------------------------------------------------
-- uuidv6: RFC 9562 version 6 on the built-in uuid type, the lossless conversions between
-- versions 1 and 6, and the timestamps of versions 1, 6 and 7: uuid_time() and (the PostgreSQL 18
-- name, see 21_uuid_core_names.sql) uuid_extract_timestamp(). PostgreSQL 17's and 18's core
-- uuid_extract_timestamp (reached by an unqualified call there) reads versions 1 (17) and 1 and 7
-- (18) only; a schema-qualified call reaches ours.
--
-- Written with CREATE OR REPLACE, so an upgrade script can include this file.
-------------------------------------------------------------------------------

-- VOLATILE; PARALLEL RESTRICTED as gen_uuidv7(): each backend keeps its own monotonic timestamp,
-- so every call runs in the session's own backend, never in a parallel worker.
CREATE OR REPLACE FUNCTION @extschema@.uuidv6() RETURNS uuid
    AS 'MODULE_PATHNAME', 'gen_uuidv6' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.uuidv6() IS
    'new UUIDv6: 60-bit Gregorian 100 ns timestamp high bits first, random 14-bit clock sequence and multicast-bit node; strictly increasing within a backend';

CREATE OR REPLACE FUNCTION @extschema@.uuid_v1_to_v6(uuid) RETURNS uuid
    AS 'MODULE_PATHNAME', 'uuid_v1_to_v6' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_v1_to_v6(uuid) IS
    'the version 6 UUID with the timestamp, clock sequence and node of a version 1 UUID (22023 for other versions)';

CREATE OR REPLACE FUNCTION @extschema@.uuid_v6_to_v1(uuid) RETURNS uuid
    AS 'MODULE_PATHNAME', 'uuid_v6_to_v1' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_v6_to_v1(uuid) IS
    'the version 1 UUID with the timestamp, clock sequence and node of a version 6 UUID (22023 for other versions)';

CREATE OR REPLACE FUNCTION @extschema@.uuid_time(uuid) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'uuid_time_v167' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_time(uuid) IS
    'timestamp of a version 1 or 6 (µs) or version 7 (ms) UUID; NULL otherwise';

CREATE OR REPLACE FUNCTION @extschema@.uuid_extract_timestamp(uuid) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'uuid_time_v167' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_extract_timestamp(uuid) IS
    'extract timestamp from UUID version 1, 6 or 7 (id_gen; PostgreSQL 18''s core function reads 1 and 7, 17''s only 1)';
