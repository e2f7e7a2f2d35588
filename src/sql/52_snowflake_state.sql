-- Where this server keeps the node and shard generators' state: 'shared memory' (preloaded),
-- 'dsm registry' (not preloaded, PostgreSQL 17+), or 'files' (not preloaded, 15 and 16: locked
-- files with leases). CREATE OR REPLACE, so an upgrade script can include this file.
CREATE OR REPLACE FUNCTION snowflake_state_storage() RETURNS text
    AS 'MODULE_PATHNAME', 'snowflake_state_storage' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION snowflake_state_storage() IS 'where the snowflake and shard generators keep their shared state: shared memory, dsm registry or files';
