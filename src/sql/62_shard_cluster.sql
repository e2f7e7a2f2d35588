-------------------------------------------------------------------------------
-- Per-schema shards on a cluster of servers (Citus). Every node keeps the registry, and the
-- blocks below, as plain local tables: next_id() reads them where it runs (a Citus task on a
-- worker cannot run a distributed query, and a reference table would be an empty shell there).
-- The coordinator is the one authority for every shard: shard_cluster_sync() grants each node a
-- block of the shard's sequence field and copies the registry and the blocks to every worker;
-- create_shard(), drop_shard() and rename_shard() call it on a Citus coordinator, and it is run
-- by hand after citus_add_node(). Without Citus nothing here is used: a shard with no blocks is
-- issued from its whole sequence field, as on one server.
-------------------------------------------------------------------------------

-- One row per (shard, node): node `node_id` (its id_gen.node_id) issues the shard's IDs with
-- sequence numbers seq_lo .. seq_lo + 2^seq_bits - 1 only, from valid_from on. Blocks of a shard
-- never overlap (shard_cluster_sync() grants them), so IDs issued on different nodes differ in
-- their bits whatever the time: no round trip per ID, and none per block once granted.
CREATE TABLE shard_blocks (
    shard int4 NOT NULL REFERENCES shard_registry (shard) ON DELETE CASCADE,
    node_id int4 NOT NULL CHECK (node_id BETWEEN 0 AND 65535),
    seq_lo int4 NOT NULL,
    seq_bits int4 NOT NULL CHECK (seq_bits BETWEEN 0 AND 10),
    valid_from timestamptz NOT NULL CHECK (isfinite(valid_from)),
    PRIMARY KEY (shard, node_id),
    CHECK (seq_lo >= 0 AND seq_lo + (1 << seq_bits) <= 1024 AND seq_lo % (1 << seq_bits) = 0)
);
COMMENT ON TABLE shard_blocks IS 'blocks of each shard''s sequence field held by the nodes of a cluster (maintained by shard_cluster_sync)';
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

-- Run on a worker by shard_cluster_sync(): makes this node's registry and blocks equal to the
-- coordinator's `snapshot` (rows are replaced, never updated: see shard_registry_guard).
CREATE FUNCTION shard_cluster_apply(snapshot jsonb) RETURNS int4
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    n int4;
BEGIN
    IF NOT (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN
        RAISE EXCEPTION 'permission denied to change the shard registry' USING ERRCODE = '42501';
    END IF;
    -- The extension's schema, as create_shard() checks it (61_shard_admin.sql), reached by OID.
    EXECUTE pg_catalog.format('SELECT %I.extension_schema_check(false)',
                              (SELECT n.nspname FROM pg_catalog.pg_namespace n JOIN pg_catalog.pg_extension e
                                   ON e.extnamespace = n.oid WHERE e.extname = 'id_gen'));
    CREATE TEMP TABLE idgen_reg ON COMMIT DROP AS
        SELECT * FROM pg_catalog.jsonb_populate_recordset(NULL::@extschema@.shard_registry, snapshot -> 'registry');
    CREATE TEMP TABLE idgen_blk ON COMMIT DROP AS
        SELECT * FROM pg_catalog.jsonb_populate_recordset(NULL::@extschema@.shard_blocks, snapshot -> 'blocks');
    DELETE FROM @extschema@.shard_blocks b
     WHERE NOT EXISTS (SELECT 1 FROM idgen_blk x WHERE x.shard = b.shard AND x.node_id = b.node_id
                          AND x.seq_lo = b.seq_lo AND x.seq_bits = b.seq_bits AND x.valid_from = b.valid_from);
    DELETE FROM @extschema@.shard_registry r
     WHERE NOT EXISTS (SELECT 1 FROM idgen_reg x WHERE x.shard = r.shard AND x.schema_name = r.schema_name
                          AND x.epoch = r.epoch);
    INSERT INTO @extschema@.shard_registry (shard, schema_name, epoch, created_at)
        SELECT x.shard, x.schema_name, x.epoch, x.created_at FROM idgen_reg x
         WHERE NOT EXISTS (SELECT 1 FROM @extschema@.shard_registry r WHERE r.shard = x.shard);
    INSERT INTO @extschema@.shard_blocks (shard, node_id, seq_lo, seq_bits, valid_from)
        SELECT x.shard, x.node_id, x.seq_lo, x.seq_bits, x.valid_from FROM idgen_blk x
         WHERE NOT EXISTS (SELECT 1 FROM @extschema@.shard_blocks b WHERE b.shard = x.shard AND b.node_id = x.node_id);
    SELECT pg_catalog.count(*) INTO n FROM @extschema@.shard_registry;
    DROP TABLE idgen_reg, idgen_blk;
    RETURN n;
END
$$;
COMMENT ON FUNCTION shard_cluster_apply(jsonb) IS 'internal to shard_cluster_sync(): make this node''s shard registry and blocks equal to the coordinator''s';
REVOKE ALL ON FUNCTION shard_cluster_apply(jsonb) FROM PUBLIC;

-- On a Citus coordinator: checks id_gen.node_id on every node, grants every node that has none a
-- block of 2^k sequence numbers of every shard (ids_per_ms = 2^k per ms per node; by default the
-- largest that leaves room for twice as many nodes as there are now, at most 256), and copies the
-- registry and the blocks to every worker. Returns the number of nodes. Run it after
-- citus_add_node(); create_shard(), drop_shard() and rename_shard() run it themselves.
-- A node that does not receive the copy keeps what it had: its own block (no duplicate), or no
-- registry row (next_id() refuses there).
CREATE FUNCTION shard_cluster_sync(ids_per_ms int4 DEFAULT NULL) RETURNS int4
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    nodes int4;
    width int4;
    bits int4;
    s record;
    nid int4;
    nids int4[];
    lo int4;
    snapshot jsonb;
    names text[];
    ports int4[];
    cmds text[];
    f record;
    failures text;
    is_coordinator boolean;
BEGIN
    IF NOT (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN
        RAISE EXCEPTION 'permission denied to synchronise shards' USING ERRCODE = '42501';
    END IF;
    -- The extension's schema, as create_shard() checks it (61_shard_admin.sql), reached by OID.
    EXECUTE pg_catalog.format('SELECT %I.extension_schema_check(false)',
                              (SELECT n.nspname FROM pg_catalog.pg_namespace n JOIN pg_catalog.pg_extension e
                                   ON e.extnamespace = n.oid WHERE e.extname = 'id_gen'));
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus') THEN
        RAISE EXCEPTION 'shard_cluster_sync() needs Citus' USING ERRCODE = '55000',
            DETAIL = 'On a single server a shard is issued from its whole sequence field.';
    END IF;
    EXECUTE 'SELECT pg_catalog.citus_is_coordinator()' INTO is_coordinator;
    IF NOT is_coordinator THEN
        RAISE EXCEPTION 'shard_cluster_sync() runs on the coordinator' USING ERRCODE = '55000',
            DETAIL = 'The coordinator grants the blocks of every shard; workers hold copies.';
    END IF;
    nodes := @extschema@.check_cluster_node_ids();
    nids := ARRAY(SELECT c.node_id FROM @extschema@.cluster_node_ids() c ORDER BY c.node_id);
    IF ids_per_ms IS NULL THEN
        width := 256;
        WHILE width > 1 AND width * 2 * nodes > 1024 LOOP
            width := width / 2;
        END LOOP;
    ELSIF ids_per_ms NOT IN (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024) THEN
        RAISE EXCEPTION 'ids_per_ms must be a power of two from 1 to 1024, not %', ids_per_ms USING ERRCODE = '22023';
    ELSE
        width := ids_per_ms;
    END IF;
    bits := 0;
    WHILE (1 << bits) < width LOOP
        bits := bits + 1;
    END LOOP;
    -- One grant at a time.
    LOCK TABLE @extschema@.shard_registry IN SHARE ROW EXCLUSIVE MODE;
    LOCK TABLE @extschema@.shard_blocks IN SHARE ROW EXCLUSIVE MODE;
    FOR s IN SELECT r.shard, r.epoch, r.created_at,
                    NOT EXISTS (SELECT 1 FROM @extschema@.shard_blocks b WHERE b.shard = r.shard) AS first_grant
               FROM @extschema@.shard_registry r ORDER BY r.shard LOOP
        FOR nid IN SELECT u.node_id FROM pg_catalog.unnest(nids) AS u(node_id)
                    WHERE NOT EXISTS (SELECT 1 FROM @extschema@.shard_blocks b WHERE b.shard = s.shard AND b.node_id = u.node_id)
                    ORDER BY u.node_id LOOP
            -- The lowest free aligned run of `width` sequence numbers.
            SELECT g.lo INTO lo
              FROM pg_catalog.generate_series(0, 1024 - width, width) AS g(lo)
             WHERE NOT EXISTS (SELECT 1 FROM @extschema@.shard_blocks b
                                WHERE b.shard = s.shard AND b.seq_lo < g.lo + width AND g.lo < b.seq_lo + (1 << b.seq_bits))
             ORDER BY g.lo LIMIT 1;
            IF lo IS NULL THEN
                RAISE EXCEPTION 'shard % has no free block of % IDs per ms for node %', s.shard, width, nid
                    USING ERRCODE = '54000',
                          DETAIL = 'A shard''s 1024 sequence numbers per ms are shared among the nodes that issue its IDs.',
                          HINT = 'Grant smaller blocks (shard_cluster_sync(ids_per_ms => ...)) to new shards, or give new nodes new shards.';
            END IF;
            -- A shard created in this transaction has issued nothing; one that existed before its
            -- first grant may have issued IDs from its whole field, up to the run-ahead allowance
            -- past the clock: its blocks start after that.
            INSERT INTO @extschema@.shard_blocks (shard, node_id, seq_lo, seq_bits, valid_from)
                VALUES (s.shard, nid, lo, bits,
                        CASE WHEN NOT s.first_grant OR s.created_at = pg_catalog.now() THEN s.epoch
                             ELSE pg_catalog.clock_timestamp() + interval '1 second'
                                  + coalesce(pg_catalog.current_setting('id_gen.max_run_ahead', true), '1s')::interval END);
        END LOOP;
    END LOOP;
    snapshot := pg_catalog.jsonb_build_object(
        'registry', coalesce((SELECT pg_catalog.jsonb_agg(pg_catalog.to_jsonb(r)) FROM @extschema@.shard_registry r), '[]'),
        'blocks', coalesce((SELECT pg_catalog.jsonb_agg(pg_catalog.to_jsonb(b)) FROM @extschema@.shard_blocks b), '[]'));
    -- Every active primary but this one, each over its own connection (Citus's master_run_on_worker).
    EXECUTE $q$SELECT pg_catalog.array_agg(n.nodename::text ORDER BY n.nodeid), pg_catalog.array_agg(n.nodeport::int4 ORDER BY n.nodeid)
                 FROM pg_catalog.pg_dist_node n
                WHERE n.isactive AND n.noderole = 'primary' AND n.groupid <> 0$q$ INTO names, ports;
    IF names IS NULL THEN
        RETURN nodes;
    END IF;
    cmds := pg_catalog.array_fill(pg_catalog.format('SELECT %I.shard_cluster_apply(%L::jsonb)', '@extschema@', snapshot::text),
                                  ARRAY[pg_catalog.array_length(names, 1)]);
    FOR f IN EXECUTE 'SELECT m.node_name::text AS node_name, m.node_port::int4 AS node_port, m.success, m.result
                        FROM pg_catalog.master_run_on_worker($1, $2, $3, true) m' USING names, ports, cmds LOOP
        IF NOT f.success THEN
            failures := coalesce(failures || '; ', '') || pg_catalog.format('%s:%s: %s', f.node_name, f.node_port, f.result);
        END IF;
    END LOOP;
    IF failures IS NOT NULL THEN
        RAISE EXCEPTION 'the shard registry could not be copied to every node' USING ERRCODE = '08006',
            DETAIL = failures,
            HINT = 'Nodes that did not receive it refuse next_id() for shards they do not know. Run SELECT shard_cluster_sync() again once they are reachable.';
    END IF;
    RETURN nodes;
END
$$;
COMMENT ON FUNCTION shard_cluster_sync(int4) IS 'on a Citus coordinator: check node ids, grant every node a block of every shard, copy the registry and blocks to every worker';
REVOKE ALL ON FUNCTION shard_cluster_sync(int4) FROM PUBLIC;
