-------------------------------------------------------------------------------
-- 0.3.0: the history of block grants (see 64_shard_cluster_pull.sql). A file of its own, sorted
-- after every configuration table of 0.2.0 and included last by the 0.2.0 -> 0.3.0 upgrade
-- script, so that a fresh install and an update list the configuration tables in one order.
-------------------------------------------------------------------------------

-- Every block ever granted on this node (the coordinator's grants; kept when drop_shard() drops
-- the shard's blocks), so that a run of a shard's field goes to one node id only, ever, and
-- which Citus node (its group id in pg_dist_node; 0 the coordinator) a node id's blocks went to,
-- so that no other node still in pg_dist_node, active or disabled, is given that node id's blocks.
-- node_group is NULL for the grants of 0.2.0, which did not record it.
CREATE TABLE shard_block_history (
    shard int4 NOT NULL CHECK (shard BETWEEN 0 AND 8191),
    node_id int4 NOT NULL CHECK (node_id BETWEEN 0 AND 65535),
    seq_lo int4 NOT NULL,
    seq_bits int4 NOT NULL CHECK (seq_bits BETWEEN 0 AND 10),
    node_group int4,
    PRIMARY KEY (shard, node_id, seq_lo, seq_bits)
);
COMMENT ON TABLE shard_block_history IS 'every block of a shard''s sequence field granted on this coordinator, kept when the shard is dropped, and the Citus group of the node it went to: a run goes to one node id only, a node id to one node';
SELECT pg_catalog.pg_extension_config_dump('shard_block_history', '');
REVOKE ALL ON shard_block_history FROM PUBLIC;
GRANT SELECT ON shard_block_history TO PUBLIC;
-- A 0.2.0 cluster's grants so far.
INSERT INTO shard_block_history (shard, node_id, seq_lo, seq_bits)
    SELECT b.shard, b.node_id, b.seq_lo, b.seq_bits FROM shard_blocks b ON CONFLICT DO NOTHING;
