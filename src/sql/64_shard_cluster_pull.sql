-------------------------------------------------------------------------------
-- A node added to a Citus cluster is ready without an id_gen call. Every definition here is
-- CREATE OR REPLACE, so an upgrade script can include this file.
--
-- The coordinator stays the one authority for every shard's blocks (62_shard_cluster.sql). What
-- changes is who asks: a worker whose next_id() finds no registry row for its schema, or no block
-- of the shard for its id_gen.node_id, asks the coordinator for its grant itself
-- (shard_cluster_pull(), called by next_id() in C), over a connection of its own
-- (master_run_on_worker), and applies the coordinator's answer in its own transaction. So a node
-- added by citus_add_node() (or back after citus_activate_node(), or one that missed a copy while
-- it was down) issues on its first next_id() call. The grant is made and committed on the
-- coordinator, under the same lock as shard_cluster_sync(), before the worker sees it: two nodes
-- asking at once are granted one after the other, disjoint blocks; two sessions of one node asking
-- at once each get the same answer.
--
-- A worker's copy can be stale: a node disabled (or removed) while a shard was dropped and made
-- again under the same number comes back with its old block of it, and next_id() there finds
-- no reason to ask. So the coordinator never grants a run of a shard's sequence field that
-- another node id held for that shard number before (shard_block_history, 94_shard_block_history.sql,
-- kept across drop_shard()): a stale block is that node's own, whatever the coordinator granted
-- since.
--
-- A grant is durable before anyone issues from it: the transaction that grants runs with
-- synchronous_commit at least 'on', whatever the database or role says, so a coordinator that
-- crashes (or fails over to a synchronous standby) still has every grant a worker was told of.
-- And a node id's blocks go to one Citus node: shard_block_history records the group id of the
-- node each grant went to, and no other node still in pg_dist_node (active or disabled) is
-- granted that node id's blocks (shard_cluster_check_holder()). A grant a worker asks for checks
-- only that, from the coordinator's own tables: it connects to no other node, so one unreachable
-- worker delays no one else's grant.
-------------------------------------------------------------------------------

-- Raises (55000) unless node id `node_id` may be granted blocks for the Citus node of group
-- `node_group` (0 the coordinator): no other node still in pg_dist_node, active or disabled, holds
-- blocks of that node id (shard_block_history), and it is not the coordinator's own id_gen.node_id.
CREATE OR REPLACE FUNCTION shard_cluster_check_holder(node_id int4, node_group int4) RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    holder int4;
    holder_name text;
    own int4;
BEGIN
    IF NOT (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN
        RAISE EXCEPTION 'permission denied to grant shard blocks' USING ERRCODE = '42501';
    END IF;
    own := NULLIF(pg_catalog.current_setting('id_gen.node_id', true), '')::int4;
    IF shard_cluster_check_holder.node_group <> 0 AND shard_cluster_check_holder.node_id = own THEN
        holder := 0;
    ELSE
        -- Citus's catalog by name at run time (no dependency on Citus).
        EXECUTE $q$SELECT h.node_group FROM @extschema@.shard_block_history h
                    WHERE h.node_id = $1 AND h.node_group IS NOT NULL AND h.node_group <> $2
                      AND (h.node_group = 0 OR EXISTS (SELECT 1 FROM pg_catalog.pg_dist_node n WHERE n.groupid = h.node_group))
                    ORDER BY h.node_group LIMIT 1$q$
            INTO holder USING shard_cluster_check_holder.node_id, shard_cluster_check_holder.node_group;
    END IF;
    IF holder IS NULL THEN
        RETURN;
    END IF;
    EXECUTE $q$SELECT pg_catalog.format('%s:%s (Citus group %s, %s)', n.nodename, n.nodeport, n.groupid,
                                        CASE WHEN n.isactive THEN 'active' ELSE 'disabled' END)
                 FROM pg_catalog.pg_dist_node n WHERE n.groupid = $1 AND n.noderole = 'primary' ORDER BY n.nodeid LIMIT 1$q$
        INTO holder_name USING holder;
    RAISE EXCEPTION 'id_gen.node_id % is held by another node of the cluster: %', shard_cluster_check_holder.node_id,
                    coalesce(holder_name, 'the coordinator')
        USING ERRCODE = '55000',
              DETAIL = pg_catalog.format('Blocks of node id %s were granted to that node, which is still in pg_dist_node; two nodes with one node id would issue the same IDs. The node asking is Citus group %s.',
                                         shard_cluster_check_holder.node_id, shard_cluster_check_holder.node_group),
              HINT = 'Set an id_gen.node_id no other node uses on the node asking (ALTER SYSTEM SET id_gen.node_id = <n>; SELECT pg_reload_conf();), or remove the other node from the cluster first (citus_remove_node()).';
END
$$;
COMMENT ON FUNCTION shard_cluster_check_holder(int4, int4) IS 'internal: raise unless node id node_id may be granted blocks for the Citus node of group node_group (no other node in pg_dist_node holds its blocks)';
REVOKE ALL ON FUNCTION shard_cluster_check_holder(int4, int4) FROM PUBLIC;

-- Makes the caller's transaction commit with synchronous_commit at least 'on' (a grant must not
-- be lost by a crash, nor by a failover to a synchronous standby, once a worker may issue from it).
CREATE OR REPLACE FUNCTION shard_cluster_durable() RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    IF pg_catalog.current_setting('synchronous_commit') IN ('off', 'local', 'remote_write') THEN
        PERFORM pg_catalog.set_config('synchronous_commit', 'on', true);
    END IF;
END
$$;
COMMENT ON FUNCTION shard_cluster_durable() IS 'internal: raise synchronous_commit to on for the rest of this transaction (a grant commits durably)';
REVOKE ALL ON FUNCTION shard_cluster_durable() FROM PUBLIC;

-- The grant itself, shared by shard_cluster_sync() and shard_cluster_grant(): every node of `nids`
-- (of Citus groups `groups`, one per node id) that holds no block of a shard (of shard
-- `only_shard` when it is not NULL) gets one of `width` sequence numbers. The caller holds SHARE
-- ROW EXCLUSIVE on both tables (one grant at a time); each node id is checked against the nodes
-- that hold its blocks (shard_cluster_check_holder()); the transaction commits durably.
CREATE OR REPLACE FUNCTION shard_cluster_grant_blocks(nids int4[], groups int4[], width int4, only_shard int4 DEFAULT NULL) RETURNS int4
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    bits int4 := 0;
    s record;
    nid int4;
    grp int4;
    lo int4;
    nbits int4;
    from_ts timestamptz;
    granted int4 := 0;
BEGIN
    IF NOT (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN
        RAISE EXCEPTION 'permission denied to grant shard blocks' USING ERRCODE = '42501';
    END IF;
    IF pg_catalog.cardinality(groups) IS DISTINCT FROM pg_catalog.cardinality(nids) THEN
        RAISE EXCEPTION 'a group id for every node id' USING ERRCODE = '22023';
    END IF;
    FOR i IN 1 .. coalesce(pg_catalog.cardinality(nids), 0) LOOP
        PERFORM @extschema@.shard_cluster_check_holder(nids[i], groups[i]);
        -- The hand-over, explicit and in this transaction: the node id's blocks (every shard's)
        -- and their history become this node's. check_holder() let it through, so they were
        -- granted to no node still in pg_dist_node (a removed node's), or by 0.2.0 (no group).
        -- A removed node's block, and its run of a shard dropped since (the history's
        -- valid_from, used when that run is granted again), is used by its new holder only from
        -- 61 s after now: one second plus the largest id_gen.max_run_ahead (60 s), past every ID
        -- the old holder can have issued before it was removed, whatever its own setting was (it
        -- is per node, and the coordinator cannot read a removed node's). A second claimant is
        -- refused by check_holder(), since the record names this node now.
        UPDATE @extschema@.shard_blocks b
           SET node_group = groups[i],
               valid_from = CASE WHEN b.node_group IS NULL THEN b.valid_from
                                 ELSE GREATEST(b.valid_from, pg_catalog.clock_timestamp() + interval '61 seconds') END
         WHERE b.node_id = nids[i] AND b.node_group IS DISTINCT FROM groups[i];
        UPDATE @extschema@.shard_block_history h
           SET node_group = groups[i],
               valid_from = CASE WHEN h.node_group IS NULL THEN h.valid_from
                                 ELSE GREATEST(h.valid_from, pg_catalog.clock_timestamp() + interval '61 seconds') END
         WHERE h.node_id = nids[i] AND h.node_group IS DISTINCT FROM groups[i];
    END LOOP;
    PERFORM @extschema@.shard_cluster_durable();
    WHILE (1 << bits) < width LOOP
        bits := bits + 1;
    END LOOP;
    FOR s IN SELECT r.shard, r.epoch, r.created_at,
                    NOT EXISTS (SELECT 1 FROM @extschema@.shard_blocks b WHERE b.shard = r.shard) AS first_grant
               FROM @extschema@.shard_registry r
              WHERE only_shard IS NULL OR r.shard = only_shard ORDER BY r.shard LOOP
        FOR nid, grp IN SELECT u.node_id, u.node_group FROM ROWS FROM (pg_catalog.unnest(nids), pg_catalog.unnest(groups)) AS u(node_id, node_group)
                    WHERE NOT EXISTS (SELECT 1 FROM @extschema@.shard_blocks b WHERE b.shard = s.shard AND b.node_id = u.node_id)
                    ORDER BY u.node_id LOOP
            -- The block this node id held of this shard before (dropped with the shard), at the
            -- size it had then, if it is free: the node continues under the same generator key,
            -- above every ID it issued from it, whatever its clock does (a narrower block inside
            -- it would be a new key that knows nothing of them). Else the lowest free aligned run
            -- of `width` sequence numbers that no other node id ever held of this shard.
            SELECT h.seq_lo, h.seq_bits,
                   -- Last held by another node (the hand-over above, or of an earlier call, set its
                   -- valid_from; any other group: the same 61 s from now): valid after the IDs
                   -- that node can have issued from it. The node's own run: from the epoch.
                   CASE WHEN h.node_group IS NOT NULL AND h.node_group <> grp
                        THEN pg_catalog.clock_timestamp() + interval '61 seconds'
                        ELSE GREATEST(s.epoch, coalesce(h.valid_from, s.epoch)) END
              INTO lo, nbits, from_ts
              FROM @extschema@.shard_block_history h
             WHERE h.shard = s.shard AND h.node_id = nid
               AND NOT EXISTS (SELECT 1 FROM @extschema@.shard_blocks b
                                WHERE b.shard = s.shard AND b.seq_lo < h.seq_lo + (1 << h.seq_bits)
                                  AND h.seq_lo < b.seq_lo + (1 << b.seq_bits))
             ORDER BY h.seq_bits DESC, h.seq_lo LIMIT 1;
            IF lo IS NULL THEN
                nbits := bits;
                from_ts := s.epoch;
                SELECT g.lo INTO lo
                  FROM pg_catalog.generate_series(0, 1024 - width, width) AS g(lo)
                 WHERE NOT EXISTS (SELECT 1 FROM @extschema@.shard_blocks b
                                    WHERE b.shard = s.shard AND b.seq_lo < g.lo + width AND g.lo < b.seq_lo + (1 << b.seq_bits))
                   AND NOT EXISTS (SELECT 1 FROM @extschema@.shard_block_history h
                                    WHERE h.shard = s.shard AND h.node_id <> nid
                                      AND h.seq_lo < g.lo + width AND g.lo < h.seq_lo + (1 << h.seq_bits))
                 ORDER BY g.lo LIMIT 1;
            END IF;
            IF lo IS NULL THEN
                RAISE EXCEPTION 'shard % has no free block of % IDs per ms for node %', s.shard, width, nid
                    USING ERRCODE = '54000',
                          DETAIL = 'A shard''s 1024 sequence numbers per ms are shared among the nodes that issue its IDs; a run another node id held of this shard number (shard_block_history) is not granted again.',
                          HINT = 'Grant smaller blocks (shard_cluster_sync(ids_per_ms => ...)) to new shards, or give new nodes new shards.';
            END IF;
            -- A shard created in this transaction has issued nothing; one that existed before its
            -- first grant may have issued IDs from its whole field, up to the run-ahead allowance
            -- past the clock: its blocks start after that. A later grant is a block no other node
            -- ever held (blocks are never freed), valid at once, or a run of a dropped shard given
            -- back: valid at once to the node that held it, after from_ts (above) to another.
            INSERT INTO @extschema@.shard_blocks (shard, node_id, seq_lo, seq_bits, valid_from, node_group)
                VALUES (s.shard, nid, lo, nbits, from_ts, grp);
            -- The insert waited (shard_rows_lock()) for every transaction issuing from the
            -- shard's whole field, and holds off new ones: the time is read after that.
            IF s.first_grant AND s.created_at <> pg_catalog.now() THEN
                UPDATE @extschema@.shard_blocks b
                   SET valid_from = GREATEST(b.valid_from, pg_catalog.clock_timestamp() + interval '1 second'
                                    + coalesce(pg_catalog.current_setting('id_gen.max_run_ahead', true), '1s')::interval)
                 WHERE b.shard = s.shard AND b.node_id = nid;
            END IF;
            INSERT INTO @extschema@.shard_block_history AS h (shard, node_id, seq_lo, seq_bits, node_group)
                VALUES (s.shard, nid, lo, nbits, grp)
                ON CONFLICT (shard, node_id, seq_lo, seq_bits) DO UPDATE SET node_group = excluded.node_group;
            granted := granted + 1;
        END LOOP;
    END LOOP;
    RETURN granted;
END
$$;
COMMENT ON FUNCTION shard_cluster_grant_blocks(int4[], int4[], int4, int4) IS 'internal to shard_cluster_sync() and shard_cluster_grant(): grant every listed node without a block of a shard one';
REVOKE ALL ON FUNCTION shard_cluster_grant_blocks(int4[], int4[], int4, int4) FROM PUBLIC;

-- The block size a grant uses: ids_per_ms, or by default the largest power of two, at most 256,
-- that leaves room for twice as many nodes as there are now.
CREATE OR REPLACE FUNCTION shard_cluster_block_width(ids_per_ms int4, nodes int4) RETURNS int4
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    width int4 := 256;
BEGIN
    IF ids_per_ms IS NULL THEN
        WHILE width > 1 AND width * 2 * nodes > 1024 LOOP
            width := width / 2;
        END LOOP;
        RETURN width;
    ELSIF ids_per_ms NOT IN (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024) THEN
        RAISE EXCEPTION 'ids_per_ms must be a power of two from 1 to 1024, not %', ids_per_ms USING ERRCODE = '22023';
    END IF;
    RETURN ids_per_ms;
END
$$;
COMMENT ON FUNCTION shard_cluster_block_width(int4, int4) IS 'internal: the block size of a grant (ids_per_ms, or the default for a cluster of `nodes` nodes)';
REVOKE ALL ON FUNCTION shard_cluster_block_width(int4, int4) FROM PUBLIC;

-- The coordinator's registry and blocks, as shard_cluster_apply() takes them.
CREATE OR REPLACE FUNCTION shard_cluster_snapshot() RETURNS jsonb
    LANGUAGE sql STABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
    SELECT pg_catalog.jsonb_build_object(
        'registry', coalesce((SELECT pg_catalog.jsonb_agg(pg_catalog.to_jsonb(r)) FROM @extschema@.shard_registry r), '[]'),
        'blocks', coalesce((SELECT pg_catalog.jsonb_agg(pg_catalog.to_jsonb(b)) FROM @extschema@.shard_blocks b), '[]'))
$$;
COMMENT ON FUNCTION shard_cluster_snapshot() IS 'internal: this node''s shard registry and blocks as one jsonb value (what shard_cluster_apply() takes)';
REVOKE ALL ON FUNCTION shard_cluster_snapshot() FROM PUBLIC;

-- Raises (42501, "permission denied to <action>") unless the caller is a superuser, then checks
-- the extension's schema as create_shard() does (61_shard_admin.sql), reaching it by OID.
CREATE OR REPLACE FUNCTION shard_cluster_check_caller(action text) RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    IF NOT (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN
        RAISE EXCEPTION 'permission denied to %', action USING ERRCODE = '42501';
    END IF;
    EXECUTE pg_catalog.format('SELECT %I.extension_schema_check(false)',
                              (SELECT n.nspname FROM pg_catalog.pg_namespace n JOIN pg_catalog.pg_extension e
                                   ON e.extnamespace = n.oid WHERE e.extname = 'id_gen'));
END
$$;
COMMENT ON FUNCTION shard_cluster_check_caller(text) IS 'internal: raise unless the caller is a superuser and the extension''s schema is safe';
REVOKE ALL ON FUNCTION shard_cluster_check_caller(text) FROM PUBLIC;

-- Raises unless this is a Citus coordinator and the caller a superuser.
CREATE OR REPLACE FUNCTION shard_cluster_check_coordinator(what text) RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    is_coordinator boolean;
BEGIN
    PERFORM @extschema@.shard_cluster_check_caller('synchronise shards');
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus') THEN
        RAISE EXCEPTION '% needs Citus', what USING ERRCODE = '55000',
            DETAIL = 'On a single server a shard is issued from its whole sequence field.';
    END IF;
    EXECUTE 'SELECT pg_catalog.citus_is_coordinator()' INTO is_coordinator;
    IF NOT is_coordinator THEN
        RAISE EXCEPTION '% runs on the coordinator', what USING ERRCODE = '55000',
            DETAIL = 'The coordinator grants the blocks of every shard; workers hold copies.';
    END IF;
END
$$;
COMMENT ON FUNCTION shard_cluster_check_coordinator(text) IS 'internal: raise unless this is a Citus coordinator and the caller a superuser';
REVOKE ALL ON FUNCTION shard_cluster_check_coordinator(text) FROM PUBLIC;

-- Checks a Citus coordinator and the node ids of every active node (each node is asked); the ids
-- of every node and the Citus group of each (0 the coordinator).
CREATE OR REPLACE FUNCTION shard_cluster_check(what text, OUT nids int4[], OUT groups int4[]) RETURNS record
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    PERFORM @extschema@.shard_cluster_check_coordinator(what);
    PERFORM @extschema@.check_cluster_node_ids();
    EXECUTE $q$SELECT pg_catalog.array_agg(c.node_id ORDER BY c.node_id), pg_catalog.array_agg(coalesce(n.groupid, 0) ORDER BY c.node_id)
                 FROM @extschema@.cluster_node_ids() c
                 LEFT JOIN pg_catalog.pg_dist_node n ON n.nodename = c.nodename AND n.nodeport = c.nodeport AND n.noderole = 'primary'$q$
        INTO nids, groups;
END
$$;
COMMENT ON FUNCTION shard_cluster_check(text) IS 'internal: raise unless this is a Citus coordinator whose nodes have unique id_gen.node_id values; those values and the nodes'' Citus groups';
REVOKE ALL ON FUNCTION shard_cluster_check(text) FROM PUBLIC;

-- Runs `command` on every other active primary node, inside the caller's transaction, through
-- Citus's own execute_command_on_remote_nodes_as_user() (in C: Citus's SQL scripts do not create
-- it): Citus commits it there with two-phase commit when the caller's transaction commits, so it
-- takes effect on every active worker or on none. A worker that cannot be reached fails the call
-- (and so the caller's transaction); a disabled one is not sent it. Superuser only; raises
-- without Citus.
CREATE OR REPLACE FUNCTION shard_cluster_send(command text) RETURNS void
    AS 'MODULE_PATHNAME', 'shard_cluster_send' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION shard_cluster_send(text) IS 'internal to shard_cluster_sync(): run a command on every worker in this transaction, under Citus''s two-phase commit';
REVOKE ALL ON FUNCTION shard_cluster_send(text) FROM PUBLIC;

-- A deadline for this backend's request to the coordinator (shard_cluster_pull()): `ms` > 0 arms
-- it (the statement is cancelled, 57014, when it passes) and returns false; 0 disarms it and
-- returns whether it passed.
CREATE OR REPLACE FUNCTION shard_cluster_request_timer(ms int4) RETURNS boolean
    AS 'MODULE_PATHNAME', 'shard_cluster_request_timer' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION shard_cluster_request_timer(int4) IS 'internal to shard_cluster_pull(): arm (ms > 0) or disarm (0) the deadline of a request to the coordinator; whether it passed';
REVOKE ALL ON FUNCTION shard_cluster_request_timer(int4) FROM PUBLIC;

-- 0.2.0's function, now built from the parts above: it grants every node its blocks and copies
-- the registry and the blocks to every worker. The copy is part of the caller's transaction
-- (shard_cluster_send(), Citus's two-phase commit): create_shard(), drop_shard() and
-- rename_shard(), which run it, take effect on the coordinator and every active worker, or on
-- none of them. It is no longer needed after citus_add_node() (a new node asks for its grant, see
-- shard_cluster_pull()); it stays for use by hand.
CREATE OR REPLACE FUNCTION shard_cluster_sync(ids_per_ms int4 DEFAULT NULL) RETURNS int4
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    nids int4[];
    groups int4[];
BEGIN
    SELECT c.nids, c.groups INTO nids, groups FROM @extschema@.shard_cluster_check('shard_cluster_sync()') c;
    -- One grant at a time.
    LOCK TABLE @extschema@.shard_registry IN SHARE ROW EXCLUSIVE MODE;
    LOCK TABLE @extschema@.shard_blocks IN SHARE ROW EXCLUSIVE MODE;
    PERFORM @extschema@.shard_cluster_grant_blocks(nids, groups,
                @extschema@.shard_cluster_block_width(ids_per_ms, pg_catalog.cardinality(nids)));
    -- The rest of the transaction on the connections that hold the copy (one per worker): a
    -- parallel query's extra connections would ask the coordinator for blocks this copy holds
    -- locked, and wait on this very transaction (a distributed deadlock).
    PERFORM pg_catalog.set_config('citus.multi_shard_modify_mode', 'sequential', true);
    PERFORM @extschema@.shard_cluster_send(pg_catalog.format('SELECT %s.shard_cluster_apply(%L::jsonb)', '@extschema@',
                                                             @extschema@.shard_cluster_snapshot()::text));
    RETURN pg_catalog.cardinality(nids);
END
$$;
COMMENT ON FUNCTION shard_cluster_sync(int4) IS 'on a Citus coordinator: check node ids, grant every node a block of every shard, copy the registry and blocks to every worker in this transaction';
REVOKE ALL ON FUNCTION shard_cluster_sync(int4) FROM PUBLIC;

-- Makes this node's registry and blocks equal to the coordinator's `snapshot` (rows are replaced,
-- never updated: see shard_registry_guard). Without temporary tables (a worker applies a copy
-- inside a transaction Citus prepares for two-phase commit, and PREPARE refuses a transaction
-- that touched temporary tables), and tolerant of a concurrent copy of the same rows. With
-- `lock_timeout`, it gives up (55P03) unless it gets its locks within that time.
CREATE OR REPLACE FUNCTION shard_cluster_apply(snapshot jsonb, lock_timeout text DEFAULT NULL) RETURNS int4
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    n int4;
BEGIN
    PERFORM @extschema@.shard_cluster_check_caller('change the shard registry');
    IF shard_cluster_apply.lock_timeout IS NOT NULL THEN
        PERFORM pg_catalog.set_config('lock_timeout', shard_cluster_apply.lock_timeout, true);
    END IF;
    DELETE FROM @extschema@.shard_blocks b
     WHERE NOT EXISTS (SELECT 1 FROM pg_catalog.jsonb_populate_recordset(NULL::@extschema@.shard_blocks, snapshot -> 'blocks') x
                        WHERE x.shard = b.shard AND x.node_id = b.node_id
                          AND x.seq_lo = b.seq_lo AND x.seq_bits = b.seq_bits AND x.valid_from = b.valid_from
                          AND x.node_group IS NOT DISTINCT FROM b.node_group);
    DELETE FROM @extschema@.shard_registry r
     WHERE NOT EXISTS (SELECT 1 FROM pg_catalog.jsonb_populate_recordset(NULL::@extschema@.shard_registry, snapshot -> 'registry') x
                        WHERE x.shard = r.shard AND x.schema_name = r.schema_name AND x.epoch = r.epoch);
    INSERT INTO @extschema@.shard_registry (shard, schema_name, epoch, created_at)
        SELECT x.shard, x.schema_name, x.epoch, x.created_at
          FROM pg_catalog.jsonb_populate_recordset(NULL::@extschema@.shard_registry, snapshot -> 'registry') x
        ON CONFLICT DO NOTHING;
    INSERT INTO @extschema@.shard_blocks (shard, node_id, seq_lo, seq_bits, valid_from, node_group)
        SELECT x.shard, x.node_id, x.seq_lo, x.seq_bits, x.valid_from, x.node_group
          FROM pg_catalog.jsonb_populate_recordset(NULL::@extschema@.shard_blocks, snapshot -> 'blocks') x
        ON CONFLICT DO NOTHING;
    SELECT pg_catalog.count(*) INTO n FROM @extschema@.shard_registry;
    RETURN n;
END
$$;
COMMENT ON FUNCTION shard_cluster_apply(jsonb, text) IS 'internal to shard_cluster_sync() and shard_cluster_pull(): make this node''s shard registry and blocks equal to the coordinator''s (giving up after lock_timeout, if given)';
REVOKE ALL ON FUNCTION shard_cluster_apply(jsonb, text) FROM PUBLIC;

-- Run by the coordinator on a worker, over a connection to the address pg_dist_node has for Citus
-- group `node_group` (shard_cluster_grant()): records that this node is that group with
-- id_gen.node_id `node_id` (shard_node_identity, 94_shard_block_history.sql), after checking that
-- this node's own group and setting say the same (55000 otherwise: the node at the registered
-- address is not the node that asked, say a copy of it with another node id), with this server's
-- start time (pg_postmaster_start_time()): the row confirms this run of the server only. A write
-- to an unlogged table with no key. True when the row was added, false when it was
-- there. Superuser only.
CREATE OR REPLACE FUNCTION shard_cluster_identify(node_group int4, node_id int4) RETURNS boolean
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    my_group int4;
    me int4;
BEGIN
    PERFORM @extschema@.shard_cluster_check_caller('confirm a node''s identity');
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus') THEN
        RAISE EXCEPTION 'shard_cluster_identify() needs Citus' USING ERRCODE = '55000';
    END IF;
    EXECUTE 'SELECT g.groupid::int4 FROM pg_catalog.pg_dist_local_group g' INTO my_group;
    me := NULLIF(pg_catalog.current_setting('id_gen.node_id', true), '')::int4;
    IF my_group IS DISTINCT FROM shard_cluster_identify.node_group OR me IS DISTINCT FROM shard_cluster_identify.node_id THEN
        RAISE EXCEPTION 'the node at the address of Citus group % is Citus group % with id_gen.node_id %, not the node that asked (id_gen.node_id %)',
                        shard_cluster_identify.node_group, my_group, coalesce(me::text, 'unset'), shard_cluster_identify.node_id
            USING ERRCODE = '55000',
                  DETAIL = 'The coordinator confirms a node''s identity only at the address pg_dist_node has for its group; the node that asked is another server with that group (a copy of that node?).',
                  HINT = 'Give a copy of a node its own place in the cluster (citus_add_node()) or point pg_dist_node at it (citus_update_node()) if it replaces the node.';
    END IF;
    -- The confirmation holds for this run of the server only (next_id() accepts a row whose
    -- started_at is its own postmaster's start time): a copy of the data directory, or this node
    -- restarted after another took its place, asks again.
    IF EXISTS (SELECT 1 FROM @extschema@.shard_node_identity i
                WHERE i.node_group = shard_cluster_identify.node_group AND i.node_id = shard_cluster_identify.node_id
                  AND i.started_at = pg_catalog.pg_postmaster_start_time()) THEN
        RETURN false;
    END IF;
    DELETE FROM @extschema@.shard_node_identity i WHERE i.started_at <> pg_catalog.pg_postmaster_start_time();
    INSERT INTO @extschema@.shard_node_identity (node_group, node_id, started_at)
        VALUES (shard_cluster_identify.node_group, shard_cluster_identify.node_id, pg_catalog.pg_postmaster_start_time());
    RETURN true;
END
$$;
COMMENT ON FUNCTION shard_cluster_identify(int4, int4) IS 'internal to shard_cluster_grant(), run on a worker by the coordinator: record that this node is Citus group node_group with id_gen.node_id node_id';
REVOKE ALL ON FUNCTION shard_cluster_identify(int4, int4) FROM PUBLIC;

-- Run on the coordinator for a worker that asks (shard_cluster_pull()): the node of Citus group
-- `node_group` with id_gen.node_id `node_id` gets its block of the shard of schema `schema_name`
-- (if it has none), and the answer is the registry and the blocks. It checks that node id against
-- the nodes that hold blocks (shard_cluster_check_holder()) and the group against pg_dist_node,
-- both in the coordinator's own tables: it connects to no other node. Only that shard: one whose
-- field is full (54000) stops no other. Committed on the coordinator, durably, before the worker
-- applies it. A lock wait longer than 5 s (a create_shard() copying to the asking node while it
-- waits for this answer) fails the request instead of waiting for ever. A refusal is the answer
-- {"error": {sqlstate, message, detail, hint}} (Citus passes on only the first line of an error),
-- which shard_cluster_pull() raises on the worker.
CREATE OR REPLACE FUNCTION shard_cluster_grant(node_id int4, schema_name name, node_group int4) RETURNS jsonb
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    s int4;
    nodes int4;
    registered boolean;
    w_host text;
    w_port int4;
    w_ok boolean;
    w_answer text;
    e_state text;
    e_message text;
    e_detail text;
    e_hint text;
BEGIN
    PERFORM @extschema@.shard_cluster_check_coordinator('shard_cluster_grant()');
    BEGIN
        IF shard_cluster_grant.node_id IS NULL OR shard_cluster_grant.node_id NOT BETWEEN 0 AND 65535 THEN
            RAISE EXCEPTION 'id_gen.node_id % is not a node id', shard_cluster_grant.node_id
                USING ERRCODE = '55000', HINT = 'Set id_gen.node_id (0 to 65535) on the node asking.';
        END IF;
        EXECUTE $q$SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_node n WHERE n.groupid = $1 AND n.noderole = 'primary')$q$
            INTO registered USING shard_cluster_grant.node_group;
        IF NOT coalesce(registered, false) THEN
            RAISE EXCEPTION 'the node asking (Citus group %) is not a node of the cluster', shard_cluster_grant.node_group
                USING ERRCODE = '55000', HINT = 'Add the node with citus_add_node() on the coordinator first.';
        END IF;
        -- The node id is checked first (again under the locks, by shard_cluster_grant_blocks()):
        -- a request refused for it records no identity on the node asking.
        PERFORM @extschema@.shard_cluster_check_holder(shard_cluster_grant.node_id, shard_cluster_grant.node_group);
        -- The node's identity, confirmed at the address pg_dist_node has for its group (a copy of
        -- the node elsewhere never gets it): before any lock here, on a connection of its own.
        IF shard_cluster_grant.node_group <> 0 THEN
            EXECUTE $q$SELECT n.nodename::text, n.nodeport::int4 FROM pg_catalog.pg_dist_node n
                        WHERE n.groupid = $1 AND n.noderole = 'primary' ORDER BY n.nodeid LIMIT 1$q$
                INTO w_host, w_port USING shard_cluster_grant.node_group;
            PERFORM pg_catalog.set_config('citus.node_connection_timeout', '5s', true);
            EXECUTE 'SELECT m.success, m.result FROM pg_catalog.master_run_on_worker($1, $2, $3, false) m'
                INTO w_ok, w_answer
                USING ARRAY[w_host], ARRAY[w_port],
                      ARRAY[pg_catalog.format('SELECT %s.shard_cluster_identify(%s, %s)', '@extschema@',
                                              shard_cluster_grant.node_group, shard_cluster_grant.node_id)];
            IF NOT coalesce(w_ok, false) THEN
                RAISE EXCEPTION 'could not confirm the identity of the node asking at %:%, the address of Citus group %',
                                w_host, w_port, shard_cluster_grant.node_group
                    USING ERRCODE = '55000', DETAIL = coalesce(w_answer, 'no answer');
            END IF;
        END IF;
        PERFORM pg_catalog.set_config('lock_timeout', '5s', true);
        LOCK TABLE @extschema@.shard_registry IN SHARE ROW EXCLUSIVE MODE;
        LOCK TABLE @extschema@.shard_blocks IN SHARE ROW EXCLUSIVE MODE;
        SELECT r.shard INTO s FROM @extschema@.shard_registry r WHERE r.schema_name = shard_cluster_grant.schema_name;
        IF s IS NOT NULL THEN
            -- The block size for the active nodes, the coordinator counted (as shard_cluster_sync() counts them).
            EXECUTE $q$SELECT pg_catalog.count(DISTINCT n.groupid)::int4 + 1 FROM pg_catalog.pg_dist_node n
                        WHERE n.isactive AND n.noderole = 'primary' AND n.groupid <> 0$q$ INTO nodes;
            PERFORM @extschema@.shard_cluster_grant_blocks(ARRAY[shard_cluster_grant.node_id], ARRAY[shard_cluster_grant.node_group],
                        @extschema@.shard_cluster_block_width(NULL, nodes), s);
        END IF;
        RETURN @extschema@.shard_cluster_snapshot();
    EXCEPTION WHEN OTHERS THEN
        GET STACKED DIAGNOSTICS e_state = RETURNED_SQLSTATE, e_message = MESSAGE_TEXT, e_detail = PG_EXCEPTION_DETAIL,
                                e_hint = PG_EXCEPTION_HINT;
        RETURN pg_catalog.jsonb_build_object('error', pg_catalog.jsonb_build_object(
                   'sqlstate', e_state, 'message', e_message, 'detail', NULLIF(e_detail, ''), 'hint', NULLIF(e_hint, '')));
    END;
END
$$;
COMMENT ON FUNCTION shard_cluster_grant(int4, name, int4) IS 'internal to shard_cluster_pull(): on the coordinator, grant the node asking its block of one shard and return the registry and the blocks';
REVOKE ALL ON FUNCTION shard_cluster_grant(int4, name, int4) FROM PUBLIC;

-- Runs `command` on the coordinator over a connection of its own (master_run_on_worker), for a
-- worker's request (shard_cluster_pull(), id_type_cluster_pull()): the coordinator as this node's
-- pg_dist_node has it (host NULL, nothing asked, when it is not there), Citus's success flag and
-- answer, and whether the 10 s bound passed. Citus bounds the connection (5 s, below), not the
-- wait for the answer: a coordinator that accepts and then hangs is given 10 s from the start of
-- the request in all (shard_cluster_request_timer()). The caller's own cancel or statement_timeout
-- is raised as it was.
CREATE OR REPLACE FUNCTION shard_cluster_ask_coordinator(command text, OUT host text, OUT port int4, OUT ok boolean,
                                                         OUT answer text, OUT expired boolean)
    RETURNS record
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    SET citus.node_connection_timeout = '5s'
    AS $$
BEGIN
    EXECUTE $q$SELECT n.nodename::text, n.nodeport::int4 FROM pg_catalog.pg_dist_node n
                WHERE n.groupid = 0 AND n.noderole = 'primary' ORDER BY n.nodeid LIMIT 1$q$ INTO host, port;
    IF host IS NULL THEN
        RETURN;
    END IF;
    PERFORM @extschema@.shard_cluster_request_timer(10000);
    BEGIN
        EXECUTE 'SELECT m.success, m.result FROM pg_catalog.master_run_on_worker($1, $2, $3, false) m'
            INTO ok, answer USING ARRAY[host], ARRAY[port], ARRAY[shard_cluster_ask_coordinator.command];
        expired := @extschema@.shard_cluster_request_timer(0);
    EXCEPTION
        WHEN query_canceled THEN
            -- The deadline, or the caller's own cancel or statement_timeout (raised as it was).
            IF NOT @extschema@.shard_cluster_request_timer(0) THEN
                RAISE;
            END IF;
            expired := true;
        WHEN OTHERS THEN
            PERFORM @extschema@.shard_cluster_request_timer(0);
            RAISE;
    END;
END
$$;
COMMENT ON FUNCTION shard_cluster_ask_coordinator(text) IS 'internal to a worker''s requests: run a command on the coordinator, bounded to 10 s; the coordinator, Citus''s success flag and answer, and whether the bound passed';
REVOKE ALL ON FUNCTION shard_cluster_ask_coordinator(text) FROM PUBLIC;

-- Called by next_id() (in C) on a node where schema `schema_name` is not a registered shard, or
-- where its shard has blocks and none is this node's. On a Citus worker with id_gen.node_id set
-- it asks the coordinator for the grant (shard_cluster_grant(), committed there) and returns the
-- shard and this node's block as the coordinator has them; all NULL where there is nothing to ask
-- (no Citus, the coordinator itself, id_gen.node_id unset) or the schema is no shard there; 55000
-- when the coordinator cannot be asked or refuses. It writes nothing in the caller's transaction:
-- a Citus task's transaction may have sibling backends on this node that hold next_id()'s
-- ShareLock until the distributed transaction ends, so a write there would wait for them for
-- ever. The copy is kept on this node by a separate connection to the node itself that gives up
-- unless it gets its lock within 50 ms (then the next session asks again; the coordinator answers
-- with the same block). SECURITY DEFINER: the caller of next_id() need not be a superuser, and
-- the answer only ever comes from the coordinator. The connections give up after 5 s
-- (citus.node_connection_timeout), and the request as a whole after 10 s
-- (shard_cluster_request_timer()), so an unreachable or hung coordinator fails the call within
-- that bound; the coordinator's refusal is raised with its message, detail and hint.
CREATE OR REPLACE FUNCTION shard_cluster_pull(schema_name name, OUT shard int4, OUT epoch timestamptz,
                                              OUT seq_lo int4, OUT seq_bits int4, OUT valid_from timestamptz)
    RETURNS record
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
    SET citus.node_connection_timeout = '5s'
    AS $$
DECLARE
    is_coordinator boolean;
    me int4;
    my_group int4;
    host text;
    port int4;
    ok boolean;
    answer text;
    copy jsonb;
    expired boolean;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus') THEN
        RETURN;
    END IF;
    EXECUTE 'SELECT pg_catalog.citus_is_coordinator()' INTO is_coordinator;
    me := NULLIF(pg_catalog.current_setting('id_gen.node_id', true), '')::int4;
    IF is_coordinator OR me IS NULL OR me < 0 THEN
        RETURN;
    END IF;
    EXECUTE 'SELECT g.groupid::int4 FROM pg_catalog.pg_dist_local_group g' INTO my_group;
    SELECT a.host, a.port, a.ok, a.answer, a.expired INTO host, port, ok, answer, expired
      FROM @extschema@.shard_cluster_ask_coordinator(pg_catalog.format('SELECT %s.shard_cluster_grant(%s, %L, %s)', '@extschema@', me,
                                                                       shard_cluster_pull.schema_name, my_group)) a;
    IF host IS NULL THEN
        RAISE EXCEPTION 'this node cannot ask the coordinator for its block of the shard of schema "%": the coordinator is not in pg_dist_node',
                        shard_cluster_pull.schema_name
            USING ERRCODE = '55000',
                  HINT = 'On the coordinator, run SELECT citus_set_coordinator_host(''<its host>'', <its port>); or run SELECT shard_cluster_sync() there.';
    END IF;
    IF expired THEN
        RAISE EXCEPTION 'this node (id_gen.node_id %) could not get its block of the shard of schema "%" from the coordinator %:%',
                        me, shard_cluster_pull.schema_name, host, port
            USING ERRCODE = '55000', DETAIL = 'The coordinator did not answer within 10 s.',
                  HINT = 'next_id() refuses on this node until the coordinator grants it a block (it asks again at the next call); nothing was issued.';
    END IF;
    IF coalesce(ok, false) AND answer::jsonb ? 'error' THEN
        copy := answer::jsonb -> 'error';
        RAISE EXCEPTION 'this node (id_gen.node_id %) could not get its block of the shard of schema "%" from the coordinator %:%',
                        me, shard_cluster_pull.schema_name, host, port
            USING ERRCODE = '55000',
                  DETAIL = pg_catalog.format('The coordinator refused (%s): %s%s', copy ->> 'sqlstate', copy ->> 'message',
                                             coalesce('. ' || (copy ->> 'detail'), '')),
                  HINT = coalesce(copy ->> 'hint', 'next_id() refuses on this node until the coordinator grants it a block (it asks again at the next call); nothing was issued.');
    END IF;
    IF NOT coalesce(ok, false) THEN
        RAISE EXCEPTION 'this node (id_gen.node_id %) could not get its block of the shard of schema "%" from the coordinator %:%',
                        me, shard_cluster_pull.schema_name, host, port
            USING ERRCODE = '55000', DETAIL = coalesce(answer, 'no answer'),
                  HINT = 'next_id() refuses on this node until the coordinator grants it a block (it asks again at the next call); nothing was issued.';
    END IF;
    copy := answer::jsonb;
    SELECT r.shard, r.epoch, b.seq_lo, b.seq_bits, b.valid_from
      INTO shard_cluster_pull.shard, shard_cluster_pull.epoch, shard_cluster_pull.seq_lo,
           shard_cluster_pull.seq_bits, shard_cluster_pull.valid_from
      FROM pg_catalog.jsonb_populate_recordset(NULL::@extschema@.shard_registry, copy -> 'registry') r
      JOIN pg_catalog.jsonb_populate_recordset(NULL::@extschema@.shard_blocks, copy -> 'blocks') b
        ON b.shard = r.shard AND b.node_id = me AND b.node_group = my_group
     WHERE r.schema_name = shard_cluster_pull.schema_name;
    -- Keep the copy on this node when that is quick (see above); a failure changes nothing.
    EXECUTE $q$SELECT n.nodename::text, n.nodeport::int4 FROM pg_catalog.pg_dist_node n
                WHERE n.groupid = (SELECT g.groupid FROM pg_catalog.pg_dist_local_group g) AND n.noderole = 'primary'
                ORDER BY n.nodeid LIMIT 1$q$ INTO host, port;
    IF host IS NOT NULL THEN
        EXECUTE 'SELECT m.success, m.result FROM pg_catalog.master_run_on_worker($1, $2, $3, false) m'
            INTO ok, answer
            USING ARRAY[host], ARRAY[port],
                  ARRAY[pg_catalog.format('SELECT %s.shard_cluster_apply(%L::jsonb, %L)', '@extschema@', copy::text, '50ms')];
    END IF;
END
$$;
COMMENT ON FUNCTION shard_cluster_pull(name) IS 'internal to next_id() on a Citus worker: ask the coordinator for this node''s block of a shard; the shard and the block';
REVOKE ALL ON FUNCTION shard_cluster_pull(name) FROM PUBLIC;
