-------------------------------------------------------------------------------
-- 0.3.0: what keeps every backend's cache of shard_registry and shard_blocks current fires in
-- every session_replication_role. Included as is in the 0.2.0 -> 0.3.0 upgrade script.
--
-- next_id() holds ShareLock on both tables for its transaction and trusts its cached rows only
-- after taking it (shard.cpp); a change invalidates the caches when it commits, through
-- shard_registry_changed(). The statement triggers (62_shard_cluster.sql) were ENABLE ORIGIN:
-- silent under session_replication_role = replica, which is how logical replication applies
-- changes, and the apply worker fires row triggers only. Row triggers are added, and all of them
-- fire always. The guard against updating a shard's number, schema or epoch fires always too.
-------------------------------------------------------------------------------

CREATE TRIGGER shard_registry_changed_row AFTER INSERT OR UPDATE OR DELETE ON shard_registry
    FOR EACH ROW EXECUTE FUNCTION shard_registry_changed();
CREATE TRIGGER shard_blocks_changed_row AFTER INSERT OR UPDATE OR DELETE ON shard_blocks
    FOR EACH ROW EXECUTE FUNCTION shard_registry_changed();
ALTER TABLE shard_registry
    ENABLE ALWAYS TRIGGER shard_registry_changed,
    ENABLE ALWAYS TRIGGER shard_registry_changed_row,
    ENABLE ALWAYS TRIGGER shard_registry_guard;
ALTER TABLE shard_blocks
    ENABLE ALWAYS TRIGGER shard_blocks_changed,
    ENABLE ALWAYS TRIGGER shard_blocks_changed_row;
