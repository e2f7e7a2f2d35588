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

-- The install guard (00_head.sql), as the piece writes it: the Makefile puts the list
-- of the script's objects in place of the marked line (install_script_test.pl puts it back).
DO $install_guard$
DECLARE
    objects text[] := '{}'::text[]; -- install_objects
    nsp oid := pg_catalog.to_regnamespace('@extschema@');
    nsp_name text := (SELECT n.nspname FROM pg_catalog.pg_namespace n WHERE n.oid = nsp);
    item text;
    kind text;
    ident text;
    found_class regclass;
    found_oid oid;
    args oid[];
    arg text;
    seen text[] := '{}';
    taken text[] := '{}';
    owner text;
    code text;
BEGIN
    FOREACH item IN ARRAY objects LOOP
        kind := pg_catalog.split_part(item, ' ', 1);
        ident := pg_catalog.substr(item, pg_catalog.length(kind) + 2);
        found_oid := NULL;
        IF kind IN ('function', 'operator') THEN
            -- The input types as the script names them, resolved as its statements resolve them
            -- (CREATE EXTENSION's search_path): one that does not exist yet cannot clash.
            args := '{}';
            FOREACH arg IN ARRAY pg_catalog.string_to_array(
                    pg_catalog.rtrim(pg_catalog.substr(ident, pg_catalog.strpos(ident, '(') + 1), ')'), ',') LOOP
                args := args || CASE WHEN arg = 'NONE' THEN 0::oid ELSE pg_catalog.to_regtype(arg)::oid END;
            END LOOP;
            CONTINUE WHEN pg_catalog.array_position(args, NULL) IS NOT NULL;
            IF kind = 'function' THEN
                found_class := 'pg_catalog.pg_proc';
                SELECT p.oid INTO found_oid FROM pg_catalog.pg_proc p
                WHERE p.pronamespace = nsp
                  AND p.proname = pg_catalog.split_part(ident, '(', 1)
                  AND p.proargtypes = pg_catalog.array_to_string(args, ' ')::pg_catalog.oidvector;
            ELSE
                found_class := 'pg_catalog.pg_operator';
                SELECT o.oid INTO found_oid FROM pg_catalog.pg_operator o
                WHERE o.oprnamespace = nsp
                  AND o.oprname = pg_catalog.split_part(ident, '(', 1)
                  AND o.oprleft = args[1] AND o.oprright = args[2];
            END IF;
        ELSIF kind = 'type' THEN
            -- A table's or a composite type's row type is named as the relation.
            SELECT CASE WHEN t.typrelid <> 0 THEN t.typrelid ELSE t.oid END,
                   CASE WHEN t.typrelid <> 0 THEN 'pg_catalog.pg_class' ELSE 'pg_catalog.pg_type' END
              INTO found_oid, found_class
            FROM pg_catalog.pg_type t WHERE t.typnamespace = nsp AND t.typname = ident;
        ELSIF kind = 'relation' THEN
            found_class := 'pg_catalog.pg_class';
            SELECT c.oid INTO found_oid FROM pg_catalog.pg_class c
            WHERE c.relnamespace = nsp AND c.relname = ident;
        ELSIF kind = 'opclass' THEN
            found_class := 'pg_catalog.pg_opclass';
            SELECT c.oid INTO found_oid FROM pg_catalog.pg_opclass c JOIN pg_catalog.pg_am a ON a.oid = c.opcmethod
            WHERE c.opcnamespace = nsp AND c.opcname = pg_catalog.split_part(ident, ' ', 1)
              AND a.amname = pg_catalog.split_part(ident, ' ', 2);
        ELSIF kind = 'opfamily' THEN
            found_class := 'pg_catalog.pg_opfamily';
            SELECT f.oid INTO found_oid FROM pg_catalog.pg_opfamily f JOIN pg_catalog.pg_am a ON a.oid = f.opfmethod
            WHERE f.opfnamespace = nsp AND f.opfname = pg_catalog.split_part(ident, ' ', 1)
              AND a.amname = pg_catalog.split_part(ident, ' ', 2);
        ELSE
            RAISE EXCEPTION 'id_gen''s install guard: unknown kind of object in "%"', item
                USING ERRCODE = '39000';
        END IF;
        -- A table is listed as a relation and as a row type: one object, named once.
        CONTINUE WHEN found_oid IS NULL OR (found_class::oid || '/' || found_oid) = ANY (seen);
        seen := seen || (found_class::oid || '/' || found_oid);
        SELECT e.extname INTO owner FROM pg_catalog.pg_depend d
            JOIN pg_catalog.pg_extension e ON e.oid = d.refobjid
        WHERE d.classid = found_class AND d.objid = found_oid AND d.deptype = 'e'
          AND d.refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass;
        -- Named as in the schema (PostgreSQL 18 qualifies a uuidv7() that its own shadows).
        taken := taken || (pg_catalog.replace(pg_catalog.pg_describe_object(found_class, found_oid, 0),
                                              pg_catalog.quote_ident(nsp_name) || '.', '')
                           || CASE WHEN owner IS NULL THEN '' ELSE pg_catalog.format(' (extension %s)', owner) END);
        owner := NULL;
        code := COALESCE(code, CASE kind WHEN 'function' THEN '42723' WHEN 'operator' THEN '42723'
                                         WHEN 'relation' THEN '42P07' ELSE '42710' END);
    END LOOP;
    IF pg_catalog.cardinality(taken) > 0 THEN
        RAISE EXCEPTION 'id_gen cannot be installed in schema "%": % of its objects'' names are taken there',
                nsp_name, pg_catalog.cardinality(taken)
            USING ERRCODE = code,
                  DETAIL = pg_catalog.format('Taken in schema "%s": %s.',
                                             nsp_name,
                                             pg_catalog.array_to_string(taken, ', ')),
                  HINT = 'Install id_gen in a schema of its own, and add that schema to search_path where its functions and operators are used unqualified: CREATE SCHEMA id_gen; CREATE EXTENSION id_gen SCHEMA id_gen;';
    END IF;
END
$install_guard$;

-- id_gen_audit() (87_audit.sql).
CREATE OR REPLACE FUNCTION @extschema@.id_gen_audit(
    tab pg_catalog.regclass, col name,
    OUT shape text, OUT verdict text, OUT ids bigint,
    OUT earliest timestamptz, OUT latest timestamptz, OUT example text)
RETURNS SETOF record
LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    typ oid;
    kind text;
    -- What the query reads from each value v: its time t and, for values outside the window,
    -- its shape (the verdict is known there as w).
    time_expr text;
    shape_expr text;
    low timestamptz := '2000-01-01 00:00:00+00';
    epoch timestamptz;
    created text;
BEGIN
    SELECT a.atttypid INTO typ FROM pg_catalog.pg_attribute a
    WHERE a.attrelid = tab AND a.attname = col AND a.attnum > 0 AND NOT a.attisdropped;
    IF typ IS NULL THEN
        RAISE EXCEPTION 'column "%" of relation % does not exist', col, tab USING ERRCODE = '42703';
    END IF;
    -- A domain is audited as its base type.
    SELECT CASE WHEN y.typtype = 'd' THEN y.typbasetype ELSE y.oid END INTO typ
    FROM pg_catalog.pg_type y WHERE y.oid = typ;
    SELECT d.kind INTO created FROM @extschema@.id_type_describe(typ::pg_catalog.regtype) d;

    IF typ = '@extschema@.ulid'::pg_catalog.regtype THEN
        kind := 'ulid';
        time_expr := '@extschema@.ulid_time(v)';
        -- A ULID outside the window is often a UUID that was cast: its version and variant bits.
        shape_expr := $q$CASE WHEN w = 'in window' THEN 'ulid' ELSE pg_catalog.format('ulid: uuid version bits %s, %s variant',
                          pg_catalog.substr(v::pg_catalog.uuid::text, 15, 1),
                          CASE WHEN pg_catalog.substr(v::pg_catalog.uuid::text, 20, 1) IN ('8', '9', 'a', 'b') THEN 'RFC 9562' ELSE 'other' END) END$q$;
    ELSIF typ = 'pg_catalog.uuid'::pg_catalog.regtype THEN
        kind := 'uuid';
        -- Versions 1, 6 and 7 carry a time (version 1 and 6 from 1582, below the window's 2000).
        time_expr := '@extschema@.uuid_extract_timestamp(v)';
        shape_expr := $q$CASE WHEN v IS NULL THEN 'uuid' ELSE COALESCE('uuid v' || @extschema@.uuid_extract_version(v), 'uuid, not of the RFC 9562 variant') END$q$;
    ELSIF typ = '@extschema@.ksuid'::pg_catalog.regtype THEN
        kind := 'ksuid';
        epoch := '2014-05-13 16:53:20+00';
        time_expr := '@extschema@.ksuid_time(v)';
    ELSIF typ = '@extschema@.objectid'::pg_catalog.regtype THEN
        kind := 'objectid';
        time_expr := '@extschema@.objectid_time(v)';
    ELSIF typ = '@extschema@.rsxid'::pg_catalog.regtype THEN
        kind := 'rsxid';
        time_expr := '@extschema@.xid_time(v)';
    ELSIF typ = '@extschema@.snowflake'::pg_catalog.regtype THEN
        kind := 'snowflake';
        epoch := '2010-11-04 01:42:54.657+00';
        time_expr := '@extschema@.snowflake_time(v)';
    ELSIF created IS NOT NULL THEN
        -- A type of create_id_type(): its own <name>_time() reads the time of its kind.
        kind := pg_catalog.format('%s (%s)', typ::pg_catalog.regtype, created);
        epoch := CASE created WHEN 'snowflake' THEN '2010-11-04 01:42:54.657+00'::timestamptz
                              WHEN 'ksuid' THEN '2014-05-13 16:53:20+00'::timestamptz END;
        time_expr := (SELECT pg_catalog.format('%I.%I(v)', n.nspname, y.typname || '_time')
                      FROM pg_catalog.pg_type y JOIN pg_catalog.pg_namespace n ON n.oid = y.typnamespace
                      WHERE y.oid = typ);
    ELSE
        RAISE EXCEPTION 'id_gen_audit() cannot read the time of type %', typ::pg_catalog.regtype
            USING ERRCODE = '42804',
                  HINT = 'It reads columns of type ulid, uuid (versions 1, 6 and 7), ksuid, objectid, rsxid, snowflake (the twitter layout) and the types of create_id_type().';
    END IF;
    low := GREATEST(low, epoch);
    RETURN QUERY EXECUTE pg_catalog.format(
        $q$SELECT %s, w, pg_catalog.count(*), pg_catalog.min(t), pg_catalog.max(t), pg_catalog.min(v::text)
             FROM (SELECT v, t, CASE WHEN v IS NULL THEN 'null' WHEN t IS NULL THEN 'no time'
                                     WHEN t < $1 THEN 'before window' WHEN t > $2 THEN 'after window'
                                     ELSE 'in window' END AS w
                   FROM (SELECT %I AS v FROM %s) r, LATERAL (SELECT %s AS t) d) c
            GROUP BY 1, 2
            ORDER BY pg_catalog.array_position(ARRAY['in window', 'before window', 'after window', 'no time', 'null'], w), 1$q$,
        COALESCE(shape_expr, pg_catalog.quote_literal(kind)), col, tab, time_expr)
        USING low, pg_catalog.now() + interval '1 day';
END
$$;
COMMENT ON FUNCTION @extschema@.id_gen_audit(pg_catalog.regclass, name) IS
    'the IDs of a column grouped by what their time says: in a plausible window (after the kind''s epoch and 2000, before now() + 1 day) or outside it, with counts, times and an example';

-- gen_monotonic_ulid() and monotonic_ulid_raise_mark() (12_monotonic_ulid.sql).
CREATE OR REPLACE FUNCTION gen_monotonic_ulid() RETURNS ulid
    AS 'MODULE_PATHNAME', 'gen_monotonic_ulid' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION gen_monotonic_ulid() IS 'new ULID greater than every ULID it has returned on this server (ms, 16-bit counter, 64 CSPRNG bits)';
CREATE OR REPLACE FUNCTION monotonic_ulid_raise_mark(above ulid) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'monotonic_ulid_raise_mark' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION monotonic_ulid_raise_mark(ulid) IS 'makes gen_monotonic_ulid() issue only ULIDs of later milliseconds than the given one from now on; returns the high-water mark';
REVOKE ALL ON FUNCTION monotonic_ulid_raise_mark(ulid) FROM PUBLIC;
