-------------------------------------------------------------------------------
-- Prefixed typed IDs: '<prefix>_<25 base36 characters>' at the edges, the 16-byte uuid in tables.
-- A prefix is 1 to 16 lower-case ASCII letters or digits, starting with a letter; a registry
-- keeps each prefix unique in the database and names the entity it belongs to.
-------------------------------------------------------------------------------

-- The registry: an extension configuration table, so pg_dump dumps its rows and a restore (which
-- recreates the extension, then loads the rows) brings it back.
CREATE TABLE prefix_registry (
    prefix        text PRIMARY KEY CHECK (prefix OPERATOR(pg_catalog.~) '^[a-z][a-z0-9]{0,15}$'),
    owner         text NOT NULL CHECK (owner OPERATOR(pg_catalog.<>) ''),
    registered_at timestamptz NOT NULL DEFAULT pg_catalog.now()
);
COMMENT ON TABLE prefix_registry IS 'id_gen prefixed IDs: each prefix and the entity (owner) it was registered for';
SELECT pg_catalog.pg_extension_config_dump('@extschema@.prefix_registry', '');
GRANT SELECT ON prefix_registry TO PUBLIC;

-- Every change to the registry reaches every session's cache of registered prefixes:
-- gen_prefixed() keeps, per session, the prefixes it found registered
-- (src/pg/registries/prefixed.cpp), and forgets them all when the registry's relcache
-- invalidation is processed. These triggers send it for every INSERT, UPDATE, DELETE and TRUNCATE,
-- committed or rolled back, and fire ALWAYS: ENABLE ORIGIN triggers are silent under
-- session_replication_role = replica, which is how logical replication applies changes, and its
-- apply worker fires row triggers only.
CREATE FUNCTION prefix_registry_changed() RETURNS trigger
    AS 'MODULE_PATHNAME', 'prefix_registry_changed' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION prefix_registry_changed() IS 'trigger on prefix_registry: every session drops its cached prefixes';
REVOKE ALL ON FUNCTION prefix_registry_changed() FROM PUBLIC;
CREATE TRIGGER prefix_registry_changed AFTER TRUNCATE ON @extschema@.prefix_registry
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@.prefix_registry_changed();
CREATE TRIGGER prefix_registry_row_changed AFTER INSERT OR UPDATE OR DELETE ON @extschema@.prefix_registry
    FOR EACH ROW EXECUTE FUNCTION @extschema@.prefix_registry_changed();
ALTER TABLE @extschema@.prefix_registry
    ENABLE ALWAYS TRIGGER prefix_registry_changed,
    ENABLE ALWAYS TRIGGER prefix_registry_row_changed;

-- Formatting and parsing (C): they check the shape of the prefix, not its registration, so they
-- are IMMUTABLE and serve in generated columns, views and expression indexes.
CREATE FUNCTION prefixed_format(prefix text, id uuid) RETURNS text
    AS 'MODULE_PATHNAME', 'prefixed_format' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION prefixed_format(text, uuid) IS 'a stored ID as prefixed text: prefix, ''_'', 25 base36 characters';
CREATE FUNCTION prefixed_parse(prefix text, value text) RETURNS uuid
    AS 'MODULE_PATHNAME', 'prefixed_parse' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION prefixed_parse(text, text) IS 'the ID in prefixed text whose prefix must be the given one (22P02 otherwise)';
CREATE FUNCTION prefixed_split(value text, OUT prefix text, OUT id uuid) RETURNS record
    AS 'MODULE_PATHNAME', 'prefixed_split' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION prefixed_split(text) IS 'prefixed text of unknown type as (prefix, id)';

-- The registry's functions, prefix_register(), prefix_unregister(), prefix_owner() and
-- gen_prefixed(): see 36_prefix_registry.sql.
