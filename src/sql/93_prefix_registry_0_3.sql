-------------------------------------------------------------------------------
-- prefix_registry, 0.3.0: every change reaches every session's cache of registered prefixes.
-- Part of the install script and of the 0.2.0 -> 0.3.0 upgrade script.
--
-- gen_prefixed() keeps, per session, the prefixes it found registered (src/pg/prefixed.cpp), and
-- forgets them all when the registry's relcache invalidation is processed. These triggers send
-- it for every INSERT, UPDATE, DELETE and TRUNCATE, committed or rolled back, and fire ALWAYS:
-- ENABLE ORIGIN triggers are silent under session_replication_role = replica, which is how
-- logical replication applies changes, and its apply worker fires row triggers only.
-------------------------------------------------------------------------------

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
