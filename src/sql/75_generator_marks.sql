-------------------------------------------------------------------------------
-- Raising a generator's high-water mark above IDs it did not issue here (CREATE OR REPLACE, so an
-- upgrade script can include this file). After a dump is restored on another server,
-- or after pg_upgrade when the old data directory's pg_idgen/ was not copied, the generators start
-- at this server's clock, which may be behind IDs the old server issued (its clock was ahead):
--   SELECT snowflake_raise_mark(max(id)) FROM orders;
--   SELECT shard_raise_mark(5, max(id)) FROM shard_5.photos;
-- Superuser only by default: the mark is shared by every database of the server (node layouts)
-- and never moves back.
-------------------------------------------------------------------------------
CREATE OR REPLACE FUNCTION snowflake_raise_mark(above snowflake, layout text DEFAULT 'twitter') RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'snowflake_raise_mark' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION snowflake_raise_mark(snowflake, text) IS 'makes gen_snowflake(layout) issue only IDs greater than the given one from now on; returns the high-water mark';
REVOKE ALL ON FUNCTION snowflake_raise_mark(snowflake, text) FROM PUBLIC;

CREATE OR REPLACE FUNCTION shard_raise_mark(shard int4, above bigint) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'shard_raise_mark' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION shard_raise_mark(int4, bigint) IS 'makes the shard''s next_id() issue only IDs greater than the given one from now on; returns the high-water mark';
REVOKE ALL ON FUNCTION shard_raise_mark(int4, bigint) FROM PUBLIC;

-- Where this server keeps the node and shard generators' state: 'shared memory' (preloaded),
-- 'dsm registry' (not preloaded, PostgreSQL 17+), or 'files' (not preloaded, 15 and 16: locked
-- files with leases). CREATE OR REPLACE, so an upgrade script can include this file.
CREATE OR REPLACE FUNCTION snowflake_state_storage() RETURNS text
    AS 'MODULE_PATHNAME', 'snowflake_state_storage' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION snowflake_state_storage() IS 'where the snowflake and shard generators keep their shared state: shared memory, dsm registry or files';
