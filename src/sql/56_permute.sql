-------------------------------------------------------------------------------
-- IDs that look random: a keyed permutation of [1, N], NIST FF1 (SP 800-38G) over AES-128.
--
-- Keys are rows of permute_keys: 16 bytes from the server's CSPRNG (never passed in SQL), the
-- domain N (at least 10^6) and the default tweak (the key's name unless given). The table is an
-- extension configuration table, so pg_dump carries the keys (a restore that could not unpermute,
-- or that issued new IDs under another key, would lose data); only superusers read it. The
-- permutation functions read it in C, found through the extension; EXECUTE on them is granted to no
-- one by default.
--
-- No error prints a key. A failed CHECK or NOT NULL constraint reports the whole row ("Failing
-- row contains (...)") to the client and into the server log, the key included: the constraints
-- on the values are a BEFORE trigger instead (permute_keys_check), which raises the same SQLSTATEs
-- (23502 for a NULL, 23514 for a value out of bounds) naming the column, never a value. NOT NULL
-- stays, as a backstop that the trigger's NULL checks come before.
--
-- Every change to a key reaches every session's key cache (src/pg/registries/permute.cpp):
-- ENABLE ORIGIN triggers do not fire under session_replication_role = replica, and logical
-- replication's apply worker fires row triggers only. So a row trigger and a statement one (for
-- TRUNCATE) send the invalidation, and they and the check fire ALWAYS.
-------------------------------------------------------------------------------

CREATE TABLE permute_keys (
    name       text COLLATE "C" PRIMARY KEY,
    key        bytea NOT NULL,
    domain     bigint NOT NULL,
    tweak      text COLLATE "C" NOT NULL,
    created_at timestamptz NOT NULL DEFAULT pg_catalog.now()
);
COMMENT ON TABLE permute_keys IS 'keys of id_permute(): AES-128 key, domain [1, domain], default tweak; superusers only';
-- Keys survive pg_dump (a configuration table's rows are dumped).
SELECT pg_catalog.pg_extension_config_dump('permute_keys', '');
REVOKE ALL ON permute_keys FROM PUBLIC;

CREATE FUNCTION id_permute_keys_changed() RETURNS trigger
    AS 'MODULE_PATHNAME', 'id_permute_keys_changed' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION id_permute_keys_changed() IS 'trigger on permute_keys: every session drops its cached keys';
REVOKE ALL ON FUNCTION id_permute_keys_changed() FROM PUBLIC;
-- Every change to a key, in any session, reaches every session's cache.
CREATE TRIGGER permute_keys_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON permute_keys
    FOR EACH STATEMENT EXECUTE FUNCTION id_permute_keys_changed();

-- The checks of a key's values, reported without the row.
CREATE FUNCTION id_permute_keys_check() RETURNS trigger
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    bad text;
    rule text;
BEGIN
    bad := CASE WHEN NEW.name IS NULL THEN 'name' WHEN NEW.key IS NULL THEN 'key'
                WHEN NEW.domain IS NULL THEN 'domain' WHEN NEW.tweak IS NULL THEN 'tweak'
                WHEN NEW.created_at IS NULL THEN 'created_at' END;
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'null value in column "%" of relation "permute_keys" violates not-null constraint', bad
            USING ERRCODE = '23502', SCHEMA = TG_TABLE_SCHEMA, TABLE = TG_TABLE_NAME, COLUMN = bad;
    END IF;
    IF pg_catalog.octet_length(NEW.name) NOT BETWEEN 1 AND 63 THEN
        bad := 'name';
        rule := 'A key name is 1 to 63 bytes.';
    ELSIF pg_catalog.length(NEW.key) OPERATOR(pg_catalog.<>) 16 THEN
        bad := 'key';
        rule := 'A key is 16 bytes.';
    ELSIF NEW.domain OPERATOR(pg_catalog.<) 1000000 THEN
        bad := 'domain';
        rule := 'A domain is at least 1000000.';
    ELSIF pg_catalog.octet_length(NEW.tweak) OPERATOR(pg_catalog.>) 256 THEN
        bad := 'tweak';
        rule := 'A tweak is at most 256 bytes.';
    END IF;
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'new row for relation "permute_keys" violates the check on column "%"', bad
            USING ERRCODE = '23514', DETAIL = rule, SCHEMA = TG_TABLE_SCHEMA, TABLE = TG_TABLE_NAME, COLUMN = bad;
    END IF;
    RETURN NEW;
END
$$;
COMMENT ON FUNCTION id_permute_keys_check() IS 'trigger on permute_keys: its checks, reported without the row (which holds the key)';
REVOKE ALL ON FUNCTION id_permute_keys_check() FROM PUBLIC;
CREATE TRIGGER permute_keys_check BEFORE INSERT OR UPDATE ON @extschema@.permute_keys
    FOR EACH ROW EXECUTE FUNCTION @extschema@.id_permute_keys_check();

-- Both triggers send the invalidation; they and the check fire ALWAYS.
CREATE TRIGGER permute_keys_row_changed AFTER INSERT OR UPDATE OR DELETE ON @extschema@.permute_keys
    FOR EACH ROW EXECUTE FUNCTION @extschema@.id_permute_keys_changed();
ALTER TABLE @extschema@.permute_keys
    ENABLE ALWAYS TRIGGER permute_keys_check,
    ENABLE ALWAYS TRIGGER permute_keys_changed,
    ENABLE ALWAYS TRIGGER permute_keys_row_changed;

CREATE FUNCTION id_permute_new_key() RETURNS bytea
    AS 'MODULE_PATHNAME', 'id_permute_new_key' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION id_permute_new_key() IS '16 bytes from the server''s CSPRNG, for id_permute_key()';
REVOKE ALL ON FUNCTION id_permute_new_key() FROM PUBLIC;

CREATE FUNCTION id_permute_key(name text, domain bigint DEFAULT 9223372036854775807, tweak text DEFAULT NULL)
    RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF id_permute_key.name IS NULL OR pg_catalog.octet_length(id_permute_key.name) NOT BETWEEN 1 AND 63 THEN
        RAISE EXCEPTION 'invalid permutation key name: %', pg_catalog.quote_nullable(id_permute_key.name)
            USING ERRCODE = '22023', HINT = 'A key name is 1 to 63 bytes.';
    END IF;
    IF id_permute_key.domain IS NULL OR id_permute_key.domain < 1000000 THEN
        RAISE EXCEPTION 'permutation domain % is too small', COALESCE(id_permute_key.domain::text, 'NULL')
            USING ERRCODE = '22023',
                  DETAIL = 'FF1 needs at least 1000000 values (NIST SP 800-38G Rev. 1): a smaller domain can be tabulated.',
                  HINT = 'Use a domain of at least 1000000 (and a sequence with that MAXVALUE).';
    END IF;
    IF pg_catalog.octet_length(COALESCE(id_permute_key.tweak, id_permute_key.name)) > 256 THEN
        RAISE EXCEPTION 'a permutation tweak is at most 256 bytes' USING ERRCODE = '22023';
    END IF;
    INSERT INTO @extschema@.permute_keys (name, key, domain, tweak)
    VALUES (id_permute_key.name, @extschema@.id_permute_new_key(), id_permute_key.domain,
            COALESCE(id_permute_key.tweak, id_permute_key.name));
EXCEPTION WHEN unique_violation THEN
    RAISE EXCEPTION 'permutation key "%" already exists', id_permute_key.name
        USING ERRCODE = '42710',
              HINT = 'A key is never replaced (IDs made with it could not be mapped back): to rotate, create a key under a new name.';
END
$$;
COMMENT ON FUNCTION id_permute_key(text, bigint, text) IS 'create a permutation key from the CSPRNG: domain [1, domain], default tweak (the name unless given)';
REVOKE ALL ON FUNCTION id_permute_key(text, bigint, text) FROM PUBLIC;

CREATE FUNCTION id_permute(value bigint, name text) RETURNS bigint
    AS 'MODULE_PATHNAME', 'id_permute' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION id_permute(value bigint, name text, tweak text) RETURNS bigint
    AS 'MODULE_PATHNAME', 'id_permute' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION id_unpermute(value bigint, name text) RETURNS bigint
    AS 'MODULE_PATHNAME', 'id_unpermute' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION id_unpermute(value bigint, name text, tweak text) RETURNS bigint
    AS 'MODULE_PATHNAME', 'id_unpermute' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION id_permute(bigint, text) IS 'the image of value in [1, N] under permutation key name, with its default tweak (FF1)';
COMMENT ON FUNCTION id_permute(bigint, text, text) IS 'the image of value in [1, N] under permutation key name and tweak (FF1)';
COMMENT ON FUNCTION id_unpermute(bigint, text) IS 'the inverse of id_permute(bigint, text)';
COMMENT ON FUNCTION id_unpermute(bigint, text, text) IS 'the inverse of id_permute(bigint, text, text)';
REVOKE ALL ON FUNCTION id_permute(bigint, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION id_permute(bigint, text, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION id_unpermute(bigint, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION id_unpermute(bigint, text, text) FROM PUBLIC;
