-------------------------------------------------------------------------------
-- The history of block grants (see 64_shard_cluster_pull.sql) and this node's confirmed identity.
-- A piece of its own, after 90_id_types.sql: shard_block_history is a configuration table added
-- after those of 90_id_types.sql (README.md: configuration tables).
-------------------------------------------------------------------------------

-- Every block ever granted on this node (the coordinator's grants; kept when drop_shard() drops
-- the shard's blocks), so that a run of a shard's field goes to one node id only, ever, and
-- which Citus node (its group id in pg_dist_node; 0 the coordinator) a node id's blocks went to,
-- so that no other node still in pg_dist_node, active or disabled, is given that node id's blocks.
-- node_group is NULL for the grants of 0.2.0, which did not record it. valid_from: when the run
-- is granted again (its shard dropped and created again), it is valid from then (set by the
-- hand-over of a removed node's blocks to another node, past the IDs the removed node can have
-- issued from it); NULL: from the shard's epoch.
CREATE TABLE shard_block_history (
    shard int4 NOT NULL CHECK (shard BETWEEN 0 AND 8191),
    node_id int4 NOT NULL CHECK (node_id BETWEEN 0 AND 65535),
    seq_lo int4 NOT NULL,
    seq_bits int4 NOT NULL CHECK (seq_bits BETWEEN 0 AND 10),
    node_group int4,
    valid_from timestamptz,
    PRIMARY KEY (shard, node_id, seq_lo, seq_bits)
);
COMMENT ON TABLE shard_block_history IS 'every block of a shard''s sequence field granted on this coordinator, kept when the shard is dropped, and the Citus group of the node it went to: a run goes to one node id only, a node id to one node';
SELECT pg_catalog.pg_extension_config_dump('shard_block_history', '');
REVOKE ALL ON shard_block_history FROM PUBLIC;
GRANT SELECT ON shard_block_history TO PUBLIC;
-- The identity of this node as the coordinator confirmed it: its Citus group and
-- id_gen.node_id. UNLOGGED, so that pg_basebackup does not copy its rows and a crash empties it:
-- a copy of a worker started as a server of its own has the worker's group, blocks and settings,
-- and nothing else tells the two apart. Written only by shard_cluster_identify(), which the
-- coordinator runs over a connection to the address pg_dist_node has for the group
-- (shard_cluster_grant()); next_id() on a worker issues from a block only once a row here names
-- its group and node id and started_at is the start time of its running server
-- (pg_postmaster_start_time()), and asks the coordinator otherwise: a cleanly stopped server keeps
-- the table's rows, so a cold copy of its data directory, or the node itself restarted after
-- another took its place, would otherwise keep the confirmation. Every start asks once. Never
-- dumped.
CREATE UNLOGGED TABLE shard_node_identity (
    node_group int4 NOT NULL,
    node_id int4 NOT NULL,
    started_at timestamptz NOT NULL,
    confirmed_at timestamptz NOT NULL DEFAULT pg_catalog.now()
);
COMMENT ON TABLE shard_node_identity IS 'this node''s Citus group and id_gen.node_id as the coordinator confirmed them over a connection to the node''s address in pg_dist_node (unlogged: not copied by pg_basebackup, emptied by a crash)';
REVOKE ALL ON shard_node_identity FROM PUBLIC;
