
-- Where this server keeps the node and shard generators' state (added in 0.2.0; shared with the
-- upgrade script, hence CREATE OR REPLACE): 'shared memory' (preloaded), 'dsm registry' (not
-- preloaded, PostgreSQL 17+), or 'files' (not preloaded, 15 and 16: locked files with leases).
CREATE OR REPLACE FUNCTION snowflake_state_storage() RETURNS text
    AS 'MODULE_PATHNAME', 'snowflake_state_storage' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION snowflake_state_storage() IS 'where the snowflake and shard generators keep their shared state: shared memory, dsm registry or files';
