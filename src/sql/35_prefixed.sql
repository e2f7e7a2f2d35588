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

-- Registry writers: VOLATILE PARALLEL UNSAFE.
CREATE FUNCTION prefix_register(prefix text, owner text) RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    existing text;
BEGIN
    IF $1 IS NULL OR $1 OPERATOR(pg_catalog.!~) '^[a-z][a-z0-9]{0,15}$' THEN
        RAISE EXCEPTION 'invalid prefix "%"', $1
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'A prefix is 1 to 16 lower-case ASCII letters or digits, starting with a letter.';
    END IF;
    IF $2 IS NULL OR $2 OPERATOR(pg_catalog.=) '' THEN
        RAISE EXCEPTION 'the owner of prefix "%" must be a non-empty name', $1
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Name the entity the prefix is for, e.g. the table.';
    END IF;
    LOOP
        INSERT INTO @extschema@.prefix_registry AS r (prefix, owner) VALUES ($1, $2)
            ON CONFLICT ON CONSTRAINT prefix_registry_pkey DO NOTHING;
        EXIT WHEN FOUND;
        SELECT r.owner INTO existing FROM @extschema@.prefix_registry AS r WHERE r.prefix OPERATOR(pg_catalog.=) $1;
        IF FOUND THEN
            RAISE EXCEPTION 'prefix "%" is already registered for "%"', $1, existing
                USING ERRCODE = 'duplicate_object';
        END IF;
        -- The conflicting row was unregistered between the two statements: try again.
    END LOOP;
END
$fn$;
COMMENT ON FUNCTION prefix_register(text, text) IS 'reserve a prefix for an entity; an error naming the owner if it is taken';

CREATE FUNCTION prefix_unregister(prefix text) RETURNS boolean
    LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
AS $fn$
    WITH gone AS (DELETE FROM @extschema@.prefix_registry AS r WHERE r.prefix OPERATOR(pg_catalog.=) $1 RETURNING 1)
    SELECT pg_catalog.count(*) OPERATOR(pg_catalog.>) 0 FROM gone;
$fn$;
COMMENT ON FUNCTION prefix_unregister(text) IS 'release a prefix; false if it was not registered';

-- Registry reader: STABLE.
CREATE FUNCTION prefix_owner(prefix text) RETURNS text
    LANGUAGE sql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT r.owner FROM @extschema@.prefix_registry AS r WHERE r.prefix OPERATOR(pg_catalog.=) $1;
$fn$;
COMMENT ON FUNCTION prefix_owner(text) IS 'the entity a prefix is registered for; NULL if it is not registered';

-- Generator: a new UUIDv7 as prefixed text, for a registered prefix only.
CREATE FUNCTION gen_prefixed(prefix text) RETURNS text
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
    PERFORM FROM @extschema@.prefix_registry AS r WHERE r.prefix OPERATOR(pg_catalog.=) $1;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'prefix "%" is not registered', $1
            USING ERRCODE = 'undefined_object',
                  HINT = 'Register it first with prefix_register(prefix, owner).';
    END IF;
    RETURN @extschema@.prefixed_format($1, @extschema@.gen_uuidv7());
END
$fn$;
COMMENT ON FUNCTION gen_prefixed(text) IS 'new prefixed ID (a UUIDv7 in base36) for a registered prefix';
