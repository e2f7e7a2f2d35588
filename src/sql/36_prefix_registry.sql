-------------------------------------------------------------------------------
-- The functions of the prefix registry: prefix_register(), prefix_unregister(), prefix_owner(),
-- gen_prefixed(). Written with CREATE OR REPLACE, so an upgrade script can include this file.
--
-- None of them names the registry or another function of the extension in text resolved when it
-- runs (0.1.0 did, as @extschema@.<name>): the owner of the extension's schema (public belongs to
-- pg_database_owner on PostgreSQL 15+, which is often not a superuser) could rename the schema
-- and put one of their own under its name, with a prefix_registry and functions named like ours,
-- whose triggers, view columns and bodies a superuser calling these functions (or inserting a row
-- whose column default is gen_prefixed()) would then run. Instead the SQL bodies are BEGIN ATOMIC
-- (parsed when created: they refer to the registry by OID), and the C functions find the registry
-- and their helper from pg_extension by OID. Unlike the superuser-only shard functions, they
-- need no check of who may change the schema: nothing they use can be replaced by name.
-------------------------------------------------------------------------------

-- Internal to prefix_register(), which calls it by OID: inserts a registration unless the
-- prefix is taken; true when it inserted.
CREATE OR REPLACE FUNCTION prefix_registry_insert(prefix text, owner text) RETURNS boolean
    LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    WITH ins AS (
        INSERT INTO @extschema@.prefix_registry AS r (prefix, owner)
            VALUES (prefix_registry_insert.prefix, prefix_registry_insert.owner)
            ON CONFLICT ON CONSTRAINT prefix_registry_pkey DO NOTHING
            RETURNING 1
    )
    SELECT EXISTS (SELECT FROM ins);
END;
COMMENT ON FUNCTION prefix_registry_insert(text, text) IS 'internal to prefix_register(): inserts a registration unless the prefix is taken';
REVOKE ALL ON FUNCTION prefix_registry_insert(text, text) FROM PUBLIC;

-- Registry writers: VOLATILE PARALLEL UNSAFE. prefix_register() checks its arguments (22023),
-- inserts through prefix_registry_insert() and, when the prefix is taken, names its owner (42710).
CREATE OR REPLACE FUNCTION prefix_register(prefix text, owner text) RETURNS void
    AS 'MODULE_PATHNAME', 'prefix_register' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION prefix_register(text, text) IS 'reserve a prefix for an entity; an error naming the owner if it is taken';

CREATE OR REPLACE FUNCTION prefix_unregister(prefix text) RETURNS boolean
    LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    WITH gone AS (
        DELETE FROM @extschema@.prefix_registry AS r
            WHERE r.prefix OPERATOR(pg_catalog.=) prefix_unregister.prefix
            RETURNING 1
    )
    SELECT pg_catalog.count(*) OPERATOR(pg_catalog.>) 0 FROM gone;
END;
COMMENT ON FUNCTION prefix_unregister(text) IS 'release a prefix; false if it was not registered';

-- Registry reader: STABLE; an index scan of the registry's primary key (C).
CREATE OR REPLACE FUNCTION prefix_owner(prefix text) RETURNS text
    AS 'MODULE_PATHNAME', 'prefix_owner' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION prefix_owner(text) IS 'the entity a prefix is registered for; NULL if it is not registered';

-- Generator: a new UUIDv7 (the backend's gen_uuidv7() sequence) as prefixed text, for a
-- registered prefix only (42704 otherwise). PARALLEL RESTRICTED as gen_uuidv7(): the session's
-- own backend makes every ID, so they increase with its other UUIDv7s.
CREATE OR REPLACE FUNCTION gen_prefixed(prefix text) RETURNS text
    AS 'MODULE_PATHNAME', 'gen_prefixed' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION gen_prefixed(text) IS 'new prefixed ID (a UUIDv7 in base36) for a registered prefix';
