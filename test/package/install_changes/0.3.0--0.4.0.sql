-- The statements by which id_gen--0.4.0.sql, built from src/sql, differs from the released
-- id_gen--0.3.0.sql (test/package/install_script_test.pl reads this file; comments are not
-- compared, whitespace outside quotes is one space). It must list every difference and nothing
-- else. Three lists, each under its heading line:
--   removed:   statements of 0.3.0's script that 0.4.0's has not: history, a definition a later
--              statement of the same script changed or replaced, or a change to rows a fresh
--              install does not have. 0.2.0 -> 0.3.0's upgrade script (frozen) keeps them.
--   restated:  statements of 0.4.0's script that state in one what 0.3.0's said in several (a
--              table created as the later statements left it). UpdateEqualsFresh
--              (test/integration/update_test.cpp) proves that the result is the same.
--   added:     what 0.4.0 adds to the install script (with its update in src/update).

-- removed:

-- uuid_time(uuid) and uuid_extract_timestamp(uuid) as 0.2.0 defined them (20_uuidv7.sql,
-- 21_uuid_core_names.sql): 22_uuidv6.sql defines both again, reading versions 1, 6 and 7.
CREATE FUNCTION uuid_time(uuid) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'uuid_time' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uuid_time(uuid) IS
    'timestamp of a version 1 (µs) or version 7 (ms) UUID; NULL otherwise (as PostgreSQL 18 uuid_extract_timestamp)';
CREATE OR REPLACE FUNCTION @extschema@.uuid_extract_timestamp(uuid) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'uuid_time' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_extract_timestamp(uuid) IS
    'extract timestamp from UUID version 1 or 7 (id_gen; as PostgreSQL 18: PostgreSQL 17''s core function returns NULL for version 7)';

-- permute_keys with the CHECK constraints that 0.3.0 (92_permute_keys_0_3.sql) dropped for a
-- trigger: restated below.
CREATE TABLE permute_keys (
    name       text COLLATE "C" PRIMARY KEY CHECK (pg_catalog.octet_length(name) BETWEEN 1 AND 63),
    key        bytea NOT NULL CHECK (pg_catalog.length(key) = 16),
    domain     bigint NOT NULL CHECK (domain >= 1000000),
    tweak      text COLLATE "C" NOT NULL CHECK (pg_catalog.octet_length(tweak) <= 256),
    created_at timestamptz NOT NULL DEFAULT pg_catalog.now()
);

ALTER TABLE @extschema@.permute_keys
    DROP CONSTRAINT permute_keys_name_check,
    DROP CONSTRAINT permute_keys_key_check,
    DROP CONSTRAINT permute_keys_domain_check,
    DROP CONSTRAINT permute_keys_tweak_check;

-- shard_blocks without its column node_group, added by 0.3.0 (94_shard_block_history.sql):
-- restated below.
CREATE TABLE shard_blocks (
    shard int4 NOT NULL REFERENCES shard_registry (shard) ON DELETE CASCADE,
    node_id int4 NOT NULL CHECK (node_id BETWEEN 0 AND 65535),
    seq_lo int4 NOT NULL,
    seq_bits int4 NOT NULL CHECK (seq_bits BETWEEN 0 AND 10),
    valid_from timestamptz NOT NULL CHECK (isfinite(valid_from)),
    PRIMARY KEY (shard, node_id),
    CHECK (seq_lo >= 0 AND seq_lo + (1 << seq_bits) <= 1024 AND seq_lo % (1 << seq_bits) = 0)
);

ALTER TABLE shard_blocks ADD COLUMN node_group int4;

-- 0.2.0's grants copied into the history, and the coordinator's claimed for its group: a fresh
-- install has no rows to copy or claim.
INSERT INTO shard_block_history (shard, node_id, seq_lo, seq_bits)
    SELECT b.shard, b.node_id, b.seq_lo, b.seq_bits FROM shard_blocks b ON CONFLICT DO NOTHING;
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus')
       AND pg_catalog.current_setting('id_gen.node_id', true) ~ '^[0-9]+$' THEN
        EXECUTE $q$UPDATE @extschema@.shard_blocks SET node_group = 0
                    WHERE node_group IS NULL AND node_id = pg_catalog.current_setting('id_gen.node_id')::int4
                      AND (SELECT g.groupid FROM pg_catalog.pg_dist_local_group g) = 0$q$;
        EXECUTE $q$UPDATE @extschema@.shard_block_history SET node_group = 0
                    WHERE node_group IS NULL AND node_id = pg_catalog.current_setting('id_gen.node_id')::int4
                      AND (SELECT g.groupid FROM pg_catalog.pg_dist_local_group g) = 0$q$;
    END IF;
END
$$;

-- 0.2.0's shard_cluster_apply(jsonb): a fresh install has none to drop.
DROP FUNCTION IF EXISTS shard_cluster_apply(jsonb);

-- restated:

-- permute_keys: its values checked by the trigger permute_keys_check.
CREATE TABLE permute_keys (
    name       text COLLATE "C" PRIMARY KEY,
    key        bytea NOT NULL,
    domain     bigint NOT NULL,
    tweak      text COLLATE "C" NOT NULL,
    created_at timestamptz NOT NULL DEFAULT pg_catalog.now()
);

-- shard_blocks with node_group.
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

-- added:
