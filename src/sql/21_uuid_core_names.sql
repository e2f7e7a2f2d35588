-------------------------------------------------------------------------------
-- The PostgreSQL 18 names of UUID generation and reading, in the extension's schema on every
-- server version, with PostgreSQL 18.6's semantics: uuidv4(), uuidv7(), uuidv7(interval),
-- uuid_extract_timestamp(uuid) (in 22_uuidv6.sql, with the other readers of version 6),
-- uuid_extract_version(uuid).
--
-- pg_catalog is searched first, so where core has a name (17: the two extract functions; 18: all
-- five) an unqualified call is core's, and a schema-qualified call is ours. Creating them
-- everywhere keeps a dump restorable on any later server: pg_dump writes calls to extension
-- functions schema-qualified (DEFAULT public.uuidv7()). Our uuidv7() and uuidv7(interval) share
-- gen_uuidv7()'s per-backend clock, and are PARALLEL RESTRICTED as it is; core's uuidv7() on 18
-- has a clock of its own (and is PARALLEL SAFE).
--
-- Written with CREATE OR REPLACE, so an upgrade script can include this file.
-------------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION @extschema@.uuidv7() RETURNS uuid
    AS 'MODULE_PATHNAME', 'gen_uuidv7' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.uuidv7() IS
    'generate UUID version 7 (id_gen; as PostgreSQL 18, on the clock of gen_uuidv7())';

CREATE OR REPLACE FUNCTION @extschema@.uuidv7(shift interval) RETURNS uuid
    AS 'MODULE_PATHNAME', 'gen_uuidv7_shift' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.uuidv7(interval) IS
    'generate UUID version 7 with a timestamp shifted by specified interval (id_gen; as PostgreSQL 18)';

-- Core's own implementation of gen_random_uuid() (present since PostgreSQL 13), as 18 defines it.
CREATE OR REPLACE FUNCTION @extschema@.uuidv4() RETURNS uuid
    AS 'gen_random_uuid' LANGUAGE internal VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuidv4() IS 'generate UUID version 4 (id_gen; as PostgreSQL 18)';

-- uuid_extract_timestamp(uuid), which reads versions 1, 6 and 7: 22_uuidv6.sql.

CREATE OR REPLACE FUNCTION @extschema@.uuid_extract_version(uuid) RETURNS smallint
    AS 'MODULE_PATHNAME', 'uuid_version' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_extract_version(uuid) IS
    'extract version from RFC 9562 UUID (id_gen; as PostgreSQL 18)';
