-------------------------------------------------------------------------------
-- Per-schema shards on a cluster of servers (Citus). Every node keeps the registry, and the
-- blocks below, as plain local tables: next_id() reads them where it runs (a Citus task on a
-- worker cannot run a distributed query, and a reference table would be an empty shell there).
-- The coordinator is the one authority for every shard: shard_cluster_sync() (64_shard_cluster_pull.sql)
-- grants each node a block of the shard's sequence field and copies the registry and the blocks
-- to every worker; create_shard(), drop_shard() and rename_shard() call it on a Citus coordinator.
-- Without Citus nothing here is used: a shard with no blocks is issued from its whole sequence
-- field, as on one server.
-------------------------------------------------------------------------------

-- One row per (shard, node): node `node_id` (its id_gen.node_id) issues the shard's IDs with
-- sequence numbers seq_lo .. seq_lo + 2^seq_bits - 1 only, from valid_from on. Blocks of a shard
-- never overlap (shard_cluster_sync() grants them), so IDs issued on different nodes differ in
-- their bits whatever the time: no round trip per ID, and none per block once granted.
-- A block belongs to a Citus node, not to a setting: node_group is the Citus group (its group id
-- in pg_dist_node; 0 the coordinator) the block was granted to; next_id() on a Citus node issues
-- only from a block of its id_gen.node_id granted to its own group (pg_dist_local_group), and
-- refuses (55000, naming both groups) a block of its node id granted to another. NULL for a grant
-- of 0.2.0: the coordinator records the group of the first node that asks for it
-- (shard_cluster_grant_blocks()).
CREATE TABLE shard_blocks (
    shard int4 NOT NULL REFERENCES shard_registry (shard) ON DELETE CASCADE,
    node_id int4 NOT NULL CHECK (node_id BETWEEN 0 AND 65535),
    seq_lo int4 NOT NULL,
    seq_bits int4 NOT NULL CHECK (seq_bits BETWEEN 0 AND 10),
    valid_from timestamptz NOT NULL CHECK (isfinite(valid_from)),
    node_group int4,
    PRIMARY KEY (shard, node_id),
    CHECK (seq_lo >= 0 AND seq_lo + (1 << seq_bits) <= 1024 AND seq_lo % (1 << seq_bits) = 0)
);
COMMENT ON TABLE shard_blocks IS 'blocks of each shard''s sequence field held by the nodes of a cluster (maintained by shard_cluster_sync)';
COMMENT ON COLUMN shard_blocks.node_group IS 'the Citus group the block was granted to (NULL: granted by 0.2.0, claimed by the first node of that node id that asks)';
SELECT pg_catalog.pg_extension_config_dump('shard_blocks', '');
REVOKE ALL ON shard_blocks FROM PUBLIC;
GRANT SELECT ON shard_blocks TO PUBLIC;

-- Backends cache a shard's registry row and block: a change to either table, when it commits,
-- makes every backend read them again.
CREATE FUNCTION shard_registry_changed() RETURNS trigger
    AS 'MODULE_PATHNAME', 'shard_registry_changed' LANGUAGE C VOLATILE PARALLEL UNSAFE;
CREATE TRIGGER shard_registry_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON shard_registry
    FOR EACH STATEMENT EXECUTE FUNCTION shard_registry_changed();
CREATE TRIGGER shard_blocks_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON shard_blocks
    FOR EACH STATEMENT EXECUTE FUNCTION shard_registry_changed();

-- Every node of the cluster with its id_gen.node_id and what is wrong with it, if anything:
-- unset, set on another node too, or not readable (the node could not be reached, or id_gen's
-- library is not loaded there). Without Citus: this server alone.
CREATE FUNCTION cluster_node_ids()
    RETURNS TABLE (nodename text, nodeport int4, node_id int4, problem text)
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus') THEN
        RETURN QUERY
        SELECT 'localhost'::text, pg_catalog.current_setting('port')::int4, s.v,
               CASE WHEN s.v < 0 THEN 'id_gen.node_id is not set' END
          FROM (SELECT coalesce(pg_catalog.current_setting('id_gen.node_id', true), '-1')::int4 AS v) s;
        RETURN;
    END IF;
    -- Citus's own catalog and functions, by name at run time (no dependency on Citus).
    RETURN QUERY EXECUTE $q$
        WITH r AS (
            -- A coordinator not in pg_dist_node is reported as node 0: this server.
            SELECT coalesce(n.nodename::text, pg_catalog.current_setting('citus.local_hostname')) AS nodename,
                   coalesce(n.nodeport::int4, pg_catalog.current_setting('port')::int4) AS nodeport, x.success, x.result
              FROM pg_catalog.run_command_on_all_nodes('SHOW id_gen.node_id') x
              LEFT JOIN pg_catalog.pg_dist_node n ON n.nodeid = x.nodeid
        ), v AS (
            SELECT r.nodename, r.nodeport,
                   CASE WHEN r.success AND r.result ~ '^-?[0-9]+$' THEN r.result::int4 END AS node_id,
                   CASE WHEN NOT r.success THEN r.result END AS failure
              FROM r
        )
        SELECT v.nodename, v.nodeport, v.node_id,
               CASE WHEN v.failure IS NOT NULL THEN 'id_gen.node_id could not be read: ' || v.failure
                    WHEN v.node_id IS NULL OR v.node_id < 0 THEN 'id_gen.node_id is not set'
                    WHEN pg_catalog.count(*) OVER (PARTITION BY v.node_id) > 1
                    THEN pg_catalog.format('id_gen.node_id %s is set on %s nodes', v.node_id,
                                           pg_catalog.count(*) OVER (PARTITION BY v.node_id))
               END
          FROM v ORDER BY v.nodename, v.nodeport
    $q$;
END
$$;
COMMENT ON FUNCTION cluster_node_ids() IS 'id_gen.node_id of every node of the cluster (Citus) and any problem with it: unset, not unique, unreadable';
REVOKE ALL ON FUNCTION cluster_node_ids() FROM PUBLIC;

-- Raises unless id_gen.node_id is set, and different, on every node; returns the number of nodes.
CREATE FUNCTION check_cluster_node_ids() RETURNS int4
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    bad text;
    n int4;
BEGIN
    SELECT pg_catalog.string_agg(pg_catalog.format('%s:%s: %s', c.nodename, c.nodeport, c.problem), '; ')
               FILTER (WHERE c.problem IS NOT NULL),
           pg_catalog.count(*)
      INTO bad, n
      FROM @extschema@.cluster_node_ids() c;
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'id_gen.node_id must be set, and different, on every node of the cluster'
            USING ERRCODE = '55000', DETAIL = bad,
                  HINT = 'Set id_gen.node_id in each node''s postgresql.conf (ALTER SYSTEM SET id_gen.node_id = <n>; SELECT pg_reload_conf();). Two nodes with one number issue the same snowflake IDs.';
    END IF;
    RETURN n;
END
$$;
COMMENT ON FUNCTION check_cluster_node_ids() IS 'raise unless id_gen.node_id is set and unique on every node of the cluster; the number of nodes';
REVOKE ALL ON FUNCTION check_cluster_node_ids() FROM PUBLIC;

-- shard_cluster_apply() and shard_cluster_sync(), which copy the registry and the blocks to every
-- worker, are defined in 64_shard_cluster_pull.sql.
