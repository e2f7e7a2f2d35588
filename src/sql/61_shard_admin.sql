-------------------------------------------------------------------------------
-- Shard functions that read or write the registry: shard_id_time(bigint), and the superuser-only
-- create_shard(), drop_shard(), rename_shard(). Written with CREATE OR REPLACE, so an upgrade
-- script can include this file.
--
-- The superuser-only ones run as a superuser, so they trust nothing a lesser role can change:
-- * the extension's schema, whose objects they name as @extschema@.<name>, must still be the
--   schema of that name, and only superusers may own it or create objects in it (its owner could
--   otherwise rename it and put a schema of their own, with a table and triggers named like ours,
--   under its name; a role with CREATE could add overloads of these functions' names);
-- * a shard's schema must be owned by a superuser: its owner could drop next_id() and put a
--   function of their own in its place, which column defaults then run as whoever inserts a row,
--   superusers included;
-- * an existing <schema>.next_id() is adopted (after DROP EXTENSION / CREATE EXTENSION, or a
--   restore without the registry's rows) only when it is id_gen's own C function, owned by a
--   superuser.
-- The extension-schema check is extension_schema_check() below. Its callers reach it through the
-- extension's schema found by OID (pg_extension.extnamespace), never through the name
-- @extschema@, which after a rename could be another schema's: a name lookup would run whatever
-- function the very schema being checked holds under that name. In the real schema the function
-- is an extension member, which no role but the extension's owner can drop or replace.
-------------------------------------------------------------------------------

-- Reads the shard's epoch from the registry: STABLE. NULL when the shard is not registered here.
-- In C (0.1.0 had SQL naming @extschema@.shard_registry): it finds the registry as next_id() does,
-- from the extension's schema by OID, so a superuser calling it never reads a table, or a view,
-- that the owner of a renamed extension schema put under the old name.
CREATE OR REPLACE FUNCTION shard_id_time(id bigint) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'shard_id_time_registered' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION shard_id_time(bigint) IS 'millisecond time inside a shard ID, with the epoch of its shard in shard_registry';

-- The extension-schema check of the superuser-only functions (see the top of this file): the
-- extension's schema must still be named @extschema@ (42501 otherwise), and no role but
-- superusers may own it or create objects in it (42501 naming up to five such roles). With
-- warn_only the second check raises a WARNING instead and the result says whether it passed.
-- Internal: not executable by PUBLIC; callers reach it by the schema's OID.
CREATE OR REPLACE FUNCTION extension_schema_check(warn_only boolean) RETURNS boolean
    LANGUAGE plpgsql STABLE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    ext oid := (SELECT e.extnamespace FROM pg_catalog.pg_extension e WHERE e.extname = 'id_gen');
    others text;
    hint text := 'Install id_gen in a schema only superusers can change: DROP EXTENSION id_gen; CREATE SCHEMA id_gen AUTHORIZATION <superuser>; CREATE EXTENSION id_gen SCHEMA id_gen; (or make a superuser the schema''s owner and revoke CREATE on it from other roles).';
BEGIN
    IF ext IS DISTINCT FROM pg_catalog.to_regnamespace('@extschema@') THEN
        RAISE EXCEPTION 'the schema of the id_gen extension is no longer named %', '@extschema@'
            USING ERRCODE = '42501', DETAIL = 'It was renamed after the extension was installed; id_gen''s superuser-only functions name their objects in it by that name.',
                  HINT = 'Give the extension''s schema its name back, or reinstall the extension.';
    END IF;
    others := (SELECT pg_catalog.array_to_string((pg_catalog.array_agg(pg_catalog.quote_ident(r.rolname) ORDER BY r.rolname))[1:5], ', ')
                      || CASE WHEN pg_catalog.count(*) > 5 THEN ', ...' ELSE '' END
                 FROM pg_catalog.pg_roles r, pg_catalog.pg_namespace n
                WHERE n.oid = ext AND NOT r.rolsuper AND r.rolname <> 'pg_database_owner'
                  AND (pg_catalog.pg_has_role(r.oid, n.nspowner, 'MEMBER') OR pg_catalog.has_schema_privilege(r.oid, n.oid, 'CREATE')));
    IF others IS NULL THEN
        RETURN true;
    END IF;
    IF extension_schema_check.warn_only THEN
        RAISE WARNING 'schema % of the id_gen extension can be changed by roles that are not superusers: %', '@extschema@', others
            USING DETAIL = 'create_shard(), drop_shard() and rename_shard() refuse to run until only superusers can change it, and a superuser calling any function in it by name trusts those roles.',
                  HINT = hint;
        RETURN false;
    END IF;
    RAISE EXCEPTION 'schema % of the id_gen extension can be changed by roles that are not superusers: %', '@extschema@', others
        USING ERRCODE = '42501',
              DETAIL = 'Its owner, or a role that may create objects in it, could put objects of their own where this superuser-only function looks for the extension''s.',
              HINT = hint;
END
$$;
COMMENT ON FUNCTION extension_schema_check(boolean) IS 'internal to id_gen''s superuser-only functions (shards, ID types): checks that only superusers can change the extension''s schema';
REVOKE ALL ON FUNCTION extension_schema_check(boolean) FROM PUBLIC;

-- Checks that schema `schema_name` can hold a shard: owned by a superuser. Returns its next_id()
-- when it has one, which must be id_gen's own C function owned by a superuser (42501 or 42723
-- otherwise), or NULL (also when the schema does not exist). Internal to the functions below.
CREATE OR REPLACE FUNCTION shard_trusted_next_id(schema_name name) RETURNS regprocedure
    LANGUAGE plpgsql STABLE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    sch name := shard_trusted_next_id.schema_name;
    nsp oid;
    owner_desc text;
    trusted boolean;
    fn regprocedure;
    f record;
BEGIN
    -- pg_database_owner (the owner of public since PostgreSQL 15) stands for the database's owner.
    SELECT n.oid, o.rolsuper,
           CASE WHEN pg_catalog.pg_get_userbyid(n.nspowner) = 'pg_database_owner'
                THEN pg_catalog.format('pg_database_owner (the owner of this database, role "%s")', o.rolname)
                ELSE pg_catalog.format('role "%s"', o.rolname) END
      INTO nsp, trusted, owner_desc
      FROM pg_catalog.pg_namespace n
      JOIN pg_catalog.pg_database d ON d.datname = pg_catalog.current_database()
      JOIN pg_catalog.pg_roles o
        ON o.oid = CASE WHEN pg_catalog.pg_get_userbyid(n.nspowner) = 'pg_database_owner' THEN d.datdba ELSE n.nspowner END
     WHERE n.nspname = sch;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    IF NOT trusted THEN
        RAISE EXCEPTION 'schema "%" is owned by %, which is not a superuser', sch, owner_desc
            USING ERRCODE = '42501',
                  DETAIL = 'The owner of a shard''s schema could replace its next_id() with a function of their own, which column defaults would run as whoever inserts a row, superusers included.',
                  HINT = pg_catalog.format('Transfer the schema to a superuser (ALTER SCHEMA %I OWNER TO <superuser>) or choose another schema.', sch);
    END IF;
    fn := pg_catalog.to_regprocedure(pg_catalog.format('%I.next_id()', sch));
    IF fn IS NULL THEN
        RETURN NULL;
    END IF;
    SELECT l.lanname, p.prosrc, p.probin, p.provolatile, p.prorettype, p.proretset, o.rolname, o.rolsuper
      INTO f
      FROM pg_catalog.pg_proc p
      JOIN pg_catalog.pg_language l ON l.oid = p.prolang
      JOIN pg_catalog.pg_roles o ON o.oid = p.proowner
     WHERE p.oid = fn;
    IF NOT (f.lanname = 'c' AND f.prosrc = 'shard_next_id' AND f.probin = 'MODULE_PATHNAME'
            AND f.prorettype = 'pg_catalog.int8'::pg_catalog.regtype AND NOT f.proretset AND f.provolatile = 'v') THEN
        RAISE EXCEPTION 'function %.next_id() already exists and is not id_gen''s shard function', pg_catalog.quote_ident(sch)
            USING ERRCODE = '42723',
                  DETAIL = pg_catalog.format('It is LANGUAGE %s, owned by role "%s". A shard adopts only id_gen''s own: LANGUAGE c, AS ''MODULE_PATHNAME'', ''shard_next_id'', RETURNS bigint VOLATILE.',
                                             f.lanname, f.rolname),
                  HINT = pg_catalog.format('Drop it (DROP FUNCTION %I.next_id()) or choose another schema.', sch);
    END IF;
    IF NOT f.rolsuper THEN
        RAISE EXCEPTION 'function %.next_id() is owned by role "%", which is not a superuser', pg_catalog.quote_ident(sch), f.rolname
            USING ERRCODE = '42501',
                  DETAIL = 'Its owner could replace it with a function of their own, which column defaults would run as whoever inserts a row, superusers included.',
                  HINT = pg_catalog.format('Transfer it to a superuser (ALTER FUNCTION %I.next_id() OWNER TO <superuser>), or drop it.', sch);
    END IF;
    RETURN fn;
END
$$;
COMMENT ON FUNCTION shard_trusted_next_id(name) IS 'internal to create_shard() and rename_shard(): checks that a schema can hold a shard, returns its next_id() if it has id_gen''s';
REVOKE ALL ON FUNCTION shard_trusted_next_id(name) FROM PUBLIC;

-- Makes a schema logical shard `shard`: creates the schema if needed and <schema>.next_id(), a C
-- function (one entry point for every shard) that finds its shard from its own schema; adopts
-- an existing next_id() that is id_gen's own (the way back after DROP EXTENSION).
-- Superuser only: it creates a C-language function, and a SECURITY DEFINER wrapper would let any
-- caller plant functions in any schema.
CREATE OR REPLACE FUNCTION create_shard(shard int4, schema_name name DEFAULT NULL,
                                        epoch timestamptz DEFAULT '2024-01-01 00:00:00+00')
    RETURNS regnamespace
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    sch name := coalesce(create_shard.schema_name, ('shard_' || create_shard.shard)::name);
    ext oid := (SELECT e.extnamespace FROM pg_catalog.pg_extension e WHERE e.extname = 'id_gen');
    other name;
    fn regprocedure;
    on_coordinator boolean;
BEGIN
    IF NOT (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN
        RAISE EXCEPTION 'permission denied to create a shard'
            USING ERRCODE = '42501', HINT = 'create_shard() creates a C-language function: only a superuser can call it.';
    END IF;
    -- On a Citus cluster shards are made on the coordinator, their one authority (62_shard_cluster.sql).
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus') THEN
        EXECUTE 'SELECT pg_catalog.citus_is_coordinator()' INTO on_coordinator;
        IF NOT on_coordinator THEN
            RAISE EXCEPTION 'create_shard() runs on the coordinator of a Citus cluster' USING ERRCODE = '55000',
                DETAIL = 'The coordinator grants every node its block of the shard and copies the registry to every node.';
        END IF;
    END IF;
    -- The extension's schema (see the top of 61_shard_admin.sql), reached by OID.
    EXECUTE pg_catalog.format('SELECT %I.extension_schema_check(false)',
                              (SELECT n.nspname FROM pg_catalog.pg_namespace n WHERE n.oid = ext));
    IF create_shard.shard IS NULL OR create_shard.shard NOT BETWEEN 0 AND 8191 THEN
        RAISE EXCEPTION 'shard number % is out of range', create_shard.shard
            USING ERRCODE = '22003', HINT = 'Shard numbers are 0 to 8191 (13 bits).';
    END IF;
    IF sch = '' THEN
        RAISE EXCEPTION 'a shard''s schema name must not be empty' USING ERRCODE = '42602';
    END IF;
    IF sch LIKE 'pg\_%' THEN
        RAISE EXCEPTION 'unacceptable schema name "%"', sch
            USING ERRCODE = '42939', DETAIL = 'The prefix "pg_" is reserved for system schemas.';
    END IF;
    IF create_shard.epoch IS NULL OR NOT isfinite(create_shard.epoch) OR create_shard.epoch > now() THEN
        RAISE EXCEPTION 'invalid shard epoch %', create_shard.epoch
            USING ERRCODE = '22023', HINT = 'The epoch must be a finite time, not in the future; IDs run out 2^40 ms (about 34.8 years) after it.';
    END IF;
    -- The time field is 41 bits with the sign bit on top: 2^40 ms after the epoch, no ID is left.
    IF create_shard.epoch <= now() - interval '1099511627.776 seconds' THEN
        RAISE EXCEPTION 'shard epoch % is more than 2^40 ms (about 34.8 years) ago: the shard''s IDs are already used up', create_shard.epoch
            USING ERRCODE = '22023',
                  DETAIL = 'A shard''s IDs hold the ms since its epoch in 41 bits, of which the top one is the sign bit.',
                  HINT = 'Choose a later epoch (the default is 2024-01-01).';
    END IF;
    SELECT r.schema_name INTO other FROM @extschema@.shard_registry r WHERE r.shard = create_shard.shard;
    IF FOUND THEN
        RAISE EXCEPTION 'shard % already exists', create_shard.shard
            USING ERRCODE = '42710', DETAIL = format('Its schema is %I.', other);
    END IF;
    SELECT r.shard INTO other FROM @extschema@.shard_registry r WHERE r.schema_name = sch;
    IF FOUND THEN
        RAISE EXCEPTION 'schema % is already shard %', sch, other USING ERRCODE = '42710';
    END IF;
    INSERT INTO @extschema@.shard_registry (shard, schema_name, epoch)
        VALUES (create_shard.shard, sch, create_shard.epoch);
    -- Checked after CREATE SCHEMA IF NOT EXISTS, so a schema another role creates in between is
    -- checked too; once a superuser owns it, no lesser role can rename, drop or change it.
    EXECUTE format('CREATE SCHEMA IF NOT EXISTS %I', sch);
    fn := @extschema@.shard_trusted_next_id(sch);
    IF fn IS NULL THEN
        EXECUTE format('CREATE FUNCTION %I.next_id() RETURNS bigint LANGUAGE C VOLATILE PARALLEL UNSAFE AS %L, %L',
                       sch, 'MODULE_PATHNAME', 'shard_next_id');
    ELSE
        RAISE NOTICE 'adopting the existing %.next_id() (id_gen''s own) as shard %', pg_catalog.quote_ident(sch), create_shard.shard;
    END IF;
    EXECUTE format('COMMENT ON FUNCTION %I.next_id() IS %L', sch,
                   format('next ID of shard %s (id_gen): ms since %s | shard %s | sequence', create_shard.shard,
                          create_shard.epoch AT TIME ZONE 'UTC', create_shard.shard));
    -- On a Citus cluster: grant the nodes their blocks and copy the registry to every node
    -- (62_shard_cluster.sql). On a worker this raises: shards are made on the coordinator.
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus') THEN
        PERFORM @extschema@.shard_cluster_sync();
    END IF;
    -- By OID, not sch::regnamespace, which would parse the name as an identifier (and fold case).
    RETURN (SELECT n.oid FROM pg_catalog.pg_namespace n WHERE n.nspname = sch)::regnamespace;
END
$$;
COMMENT ON FUNCTION create_shard(int4, name, timestamptz) IS 'make a schema (default shard_<n>) logical shard n with its own next_id(), or adopt id_gen''s next_id() already there; superuser only';
REVOKE ALL ON FUNCTION create_shard(int4, name, timestamptz) FROM PUBLIC;

-- Drops a shard's next_id() and its registry row; the schema and its tables stay. With
-- cascade, column defaults that call next_id() are dropped too.
CREATE OR REPLACE FUNCTION drop_shard(shard int4, cascade boolean DEFAULT false) RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    sch name;
    ext oid := (SELECT e.extnamespace FROM pg_catalog.pg_extension e WHERE e.extname = 'id_gen');
BEGIN
    IF NOT (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN
        RAISE EXCEPTION 'permission denied to drop a shard' USING ERRCODE = '42501';
    END IF;
    -- The extension's schema (see the top of 61_shard_admin.sql), reached by OID.
    EXECUTE pg_catalog.format('SELECT %I.extension_schema_check(false)',
                              (SELECT n.nspname FROM pg_catalog.pg_namespace n WHERE n.oid = ext));
    DELETE FROM @extschema@.shard_registry r WHERE r.shard = drop_shard.shard RETURNING r.schema_name INTO sch;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'shard % does not exist', drop_shard.shard USING ERRCODE = '42704';
    END IF;
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = sch) THEN
        EXECUTE format('DROP FUNCTION IF EXISTS %I.next_id() %s', sch,
                       CASE WHEN drop_shard.cascade THEN 'CASCADE' ELSE 'RESTRICT' END);
    ELSE
        RAISE WARNING 'schema % of shard % does not exist: only its registry entry was dropped', sch, drop_shard.shard
            USING HINT = 'If the schema was renamed with ALTER SCHEMA, drop its next_id() by hand; rename shard schemas with rename_shard().';
    END IF;
    -- On a Citus cluster: grant the nodes their blocks and copy the registry to every node
    -- (62_shard_cluster.sql). On a worker this raises: shards are made on the coordinator.
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus') THEN
        PERFORM @extschema@.shard_cluster_sync();
    END IF;
END
$$;
COMMENT ON FUNCTION drop_shard(int4, boolean) IS 'unregister shard n and drop its next_id() (the schema stays); superuser only';
REVOKE ALL ON FUNCTION drop_shard(int4, boolean) FROM PUBLIC;

-- Renames a shard's schema and updates its registry row in one transaction (the registry is keyed
-- by schema name; a bare ALTER SCHEMA ... RENAME leaves next_id() raising 55000). When the schema
-- was already renamed with ALTER SCHEMA, this registers the new name. Either way the schema must
-- be owned by a superuser and its next_id() must be id_gen's.
CREATE OR REPLACE FUNCTION rename_shard(shard int4, new_schema_name name) RETURNS regnamespace
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    reg record;
    other int4;
    blocks jsonb;
    ext oid := (SELECT e.extnamespace FROM pg_catalog.pg_extension e WHERE e.extname = 'id_gen');
BEGIN
    IF NOT (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN
        RAISE EXCEPTION 'permission denied to rename a shard' USING ERRCODE = '42501';
    END IF;
    -- The extension's schema (see the top of 61_shard_admin.sql), reached by OID.
    EXECUTE pg_catalog.format('SELECT %I.extension_schema_check(false)',
                              (SELECT n.nspname FROM pg_catalog.pg_namespace n WHERE n.oid = ext));
    IF rename_shard.new_schema_name IS NULL THEN
        RAISE EXCEPTION 'new schema name must not be null' USING ERRCODE = '22004';
    END IF;
    IF rename_shard.new_schema_name = '' THEN
        RAISE EXCEPTION 'a shard''s schema name must not be empty' USING ERRCODE = '42602';
    END IF;
    IF rename_shard.new_schema_name LIKE 'pg\_%' THEN
        RAISE EXCEPTION 'unacceptable schema name "%"', rename_shard.new_schema_name
            USING ERRCODE = '42939', DETAIL = 'The prefix "pg_" is reserved for system schemas.';
    END IF;
    SELECT r.* INTO reg FROM @extschema@.shard_registry r WHERE r.shard = rename_shard.shard FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'shard % does not exist', rename_shard.shard USING ERRCODE = '42704';
    END IF;
    IF reg.schema_name = rename_shard.new_schema_name THEN
        RETURN (SELECT n.oid FROM pg_catalog.pg_namespace n WHERE n.nspname = reg.schema_name)::regnamespace;
    END IF;
    SELECT r.shard INTO other FROM @extschema@.shard_registry r WHERE r.schema_name = rename_shard.new_schema_name;
    IF FOUND THEN
        RAISE EXCEPTION 'schema % is already shard %', rename_shard.new_schema_name, other USING ERRCODE = '42710';
    END IF;
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_namespace n WHERE n.nspname = reg.schema_name) THEN
        PERFORM @extschema@.shard_trusted_next_id(reg.schema_name);
        EXECUTE format('ALTER SCHEMA %I RENAME TO %I', reg.schema_name, rename_shard.new_schema_name);
    ELSIF @extschema@.shard_trusted_next_id(rename_shard.new_schema_name) IS NULL THEN
        RAISE EXCEPTION 'schema % of shard % does not exist', reg.schema_name, rename_shard.shard
            USING ERRCODE = '3F000',
                  HINT = format('Neither %I nor %I.next_id() exists: drop the shard with drop_shard(%s).',
                                reg.schema_name, rename_shard.new_schema_name, rename_shard.shard);
    END IF;
    -- Rows cannot be updated (shard_registry_guard): replace it, keeping epoch and created_at,
    -- and the shard's blocks on a cluster (62_shard_cluster.sql), which the DELETE cascades to.
    blocks := (SELECT pg_catalog.jsonb_agg(pg_catalog.to_jsonb(b)) FROM @extschema@.shard_blocks b WHERE b.shard = rename_shard.shard);
    DELETE FROM @extschema@.shard_registry r WHERE r.shard = rename_shard.shard;
    INSERT INTO @extschema@.shard_registry (shard, schema_name, epoch, created_at)
        VALUES (reg.shard, rename_shard.new_schema_name, reg.epoch, reg.created_at);
    INSERT INTO @extschema@.shard_blocks
        SELECT * FROM pg_catalog.jsonb_populate_recordset(NULL::@extschema@.shard_blocks, blocks);
    -- On a Citus cluster: grant the nodes their blocks and copy the registry to every node
    -- (62_shard_cluster.sql). On a worker this raises: shards are made on the coordinator.
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus') THEN
        PERFORM @extschema@.shard_cluster_sync();
    END IF;
    RETURN (SELECT n.oid FROM pg_catalog.pg_namespace n WHERE n.nspname = rename_shard.new_schema_name)::regnamespace;
END
$$;
COMMENT ON FUNCTION rename_shard(int4, name) IS 'rename shard n''s schema and its registry entry together (or register a schema already renamed); superuser only';
REVOKE ALL ON FUNCTION rename_shard(int4, name) FROM PUBLIC;

-- Said once when the extension is installed or updated: a schema lesser roles can change makes
-- the functions above refuse, and a shard that 0.1.0 let live in such a schema is not safe.
DO $$
DECLARE
    ext oid := (SELECT e.extnamespace FROM pg_catalog.pg_extension e WHERE e.extname = 'id_gen');
    s record;
    msg text;
    hint text;
BEGIN
    EXECUTE pg_catalog.format('SELECT %I.extension_schema_check(true)',
                              (SELECT n.nspname FROM pg_catalog.pg_namespace n WHERE n.oid = ext));
    FOR s IN SELECT r.shard, r.schema_name FROM @extschema@.shard_registry r ORDER BY r.shard LOOP
        BEGIN
            PERFORM @extschema@.shard_trusted_next_id(s.schema_name);
        EXCEPTION WHEN insufficient_privilege OR duplicate_function THEN
            GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, hint = PG_EXCEPTION_HINT;
            RAISE WARNING 'shard %: %', s.shard, msg USING HINT = coalesce(hint, '');
        END;
    END LOOP;
END
$$;
