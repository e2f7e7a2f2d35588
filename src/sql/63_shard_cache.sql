-------------------------------------------------------------------------------
-- What keeps every backend's cache of shard_registry and shard_blocks current fires in every
-- session_replication_role.
--
-- next_id() trusts its cached rows only after taking its locks (shard.cpp); a change invalidates
-- the caches when it commits, through shard_registry_changed(). ENABLE ORIGIN triggers are silent
-- under session_replication_role = replica, which is how logical replication applies changes, and
-- the apply worker fires row triggers only: so row triggers join the statement triggers of
-- 62_shard_cluster.sql, and all of them fire always. The guard against updating a
-- shard's number, schema or epoch fires always too.
--
-- next_id() locks its shard, not the tables: it holds AccessShareLock on both tables and a
-- ShareLock on a lock object of its shard's number (shard.cpp). shard_rows_lock(), a BEFORE ROW
-- trigger that fires always, takes the conflicting lock for every row changed: a change to a
-- shard's existing rows waits for the transactions issuing from them, the first block of a shard
-- for those issuing from its whole field, and a new block for another node (a grant) for no one.
-------------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION shard_rows_lock() RETURNS trigger
    AS 'MODULE_PATHNAME', 'shard_rows_lock' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION shard_rows_lock() IS 'internal: the lock of the shard of each row changed in shard_registry or shard_blocks (next_id() caches rest on it)';
REVOKE ALL ON FUNCTION shard_rows_lock() FROM PUBLIC;
CREATE TRIGGER shard_registry_rows_lock BEFORE UPDATE OR DELETE ON shard_registry
    FOR EACH ROW EXECUTE FUNCTION shard_rows_lock();
CREATE TRIGGER shard_blocks_rows_lock BEFORE INSERT OR UPDATE OR DELETE ON shard_blocks
    FOR EACH ROW EXECUTE FUNCTION shard_rows_lock();

CREATE TRIGGER shard_registry_changed_row AFTER INSERT OR UPDATE OR DELETE ON shard_registry
    FOR EACH ROW EXECUTE FUNCTION shard_registry_changed();
CREATE TRIGGER shard_blocks_changed_row AFTER INSERT OR UPDATE OR DELETE ON shard_blocks
    FOR EACH ROW EXECUTE FUNCTION shard_registry_changed();
ALTER TABLE shard_registry
    ENABLE ALWAYS TRIGGER shard_registry_changed,
    ENABLE ALWAYS TRIGGER shard_registry_changed_row,
    ENABLE ALWAYS TRIGGER shard_registry_guard,
    ENABLE ALWAYS TRIGGER shard_registry_rows_lock;
ALTER TABLE shard_blocks
    ENABLE ALWAYS TRIGGER shard_blocks_changed,
    ENABLE ALWAYS TRIGGER shard_blocks_changed_row,
    ENABLE ALWAYS TRIGGER shard_blocks_rows_lock;
