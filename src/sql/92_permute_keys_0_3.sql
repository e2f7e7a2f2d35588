-------------------------------------------------------------------------------
-- permute_keys, 0.3.0: no error prints a key, and every change reaches every session's key cache.
-- Part of the install script and of the 0.2.0 -> 0.3.0 upgrade script (after 56_permute.sql).
--
-- A failed CHECK or NOT NULL constraint reports the whole row ("Failing row contains (...)") to
-- the client and into the server log, the key included. The constraints on the values are a
-- BEFORE trigger instead, which raises the same SQLSTATEs (23502 for a NULL, 23514 for a value out
-- of bounds) naming the column, never a value. NOT NULL stays, as a backstop that the trigger's
-- NULL checks come before.
--
-- Cache invalidation (src/pg/permute.cpp): ENABLE ORIGIN triggers do not fire under
-- session_replication_role = replica, and logical replication's apply worker fires row triggers
-- only. A row trigger joins the statement one (still needed for TRUNCATE); both, and the check,
-- fire ALWAYS.
-------------------------------------------------------------------------------

ALTER TABLE @extschema@.permute_keys
    DROP CONSTRAINT permute_keys_name_check,
    DROP CONSTRAINT permute_keys_key_check,
    DROP CONSTRAINT permute_keys_domain_check,
    DROP CONSTRAINT permute_keys_tweak_check;

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

CREATE TRIGGER permute_keys_row_changed AFTER INSERT OR UPDATE OR DELETE ON @extschema@.permute_keys
    FOR EACH ROW EXECUTE FUNCTION @extschema@.id_permute_keys_changed();
ALTER TABLE @extschema@.permute_keys
    ENABLE ALWAYS TRIGGER permute_keys_check,
    ENABLE ALWAYS TRIGGER permute_keys_changed,
    ENABLE ALWAYS TRIGGER permute_keys_row_changed;
