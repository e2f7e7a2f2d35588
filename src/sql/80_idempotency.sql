-------------------------------------------------------------------------------
-- Idempotent requests: a store of idempotency keys (request IDs). New in 0.2.0: this file is part
-- of the install script and included as is in the 0.1.0 -> 0.2.0 upgrade script.
--
-- A key belongs to the role that used it (current_user at the call), a scope of the caller's
-- choice and the key text. The public functions are C: they read current_user themselves, so a
-- caller cannot name another role, and reach the table through the internal functions below,
-- which they call by OID. Those are SECURITY DEFINER (the table is the extension owner's, and
-- no other role has a privilege on it) with BEGIN ATOMIC bodies, bound to the table and to
-- pg_catalog's operators when created: renaming schemas or planting look-alikes cannot point
-- them elsewhere. EXECUTE on them is revoked from PUBLIC, so no role can call them with another
-- role's name; C calls do not check EXECUTE.
-------------------------------------------------------------------------------

CREATE TABLE idempotency_keys (
    role_name           name        NOT NULL,
    scope               text        COLLATE "C" NOT NULL,
    key                 text        COLLATE "C" NOT NULL,
    fingerprint         text        COLLATE "C",
    state               text        NOT NULL CHECK (state IN ('in_flight', 'done')),
    response            jsonb,
    attempts            integer     NOT NULL CHECK (attempts > 0),
    original_attempt_id text,
    attempt_id          text,
    recovery_point      text,
    lock_timeout        interval    NOT NULL,
    locked_until        timestamptz,
    retention           interval    NOT NULL,
    created_at          timestamptz NOT NULL,
    updated_at          timestamptz NOT NULL,
    finished_at         timestamptz,
    expires_at          timestamptz NOT NULL,
    CONSTRAINT idempotency_keys_pkey PRIMARY KEY (role_name, scope, key)
);
CREATE INDEX idempotency_keys_expires_at ON idempotency_keys (expires_at);
COMMENT ON TABLE idempotency_keys IS 'idempotency keys: one row per (role, scope, key); read and written through the idempotency_* functions';
-- Keys survive pg_dump (a configuration table's rows are dumped).
SELECT pg_catalog.pg_extension_config_dump('idempotency_keys', '');
REVOKE ALL ON idempotency_keys FROM PUBLIC;

-------------------------------------------------------------------------------
-- Internal: one statement each, called by OID from the C functions with the caller's role name.
-------------------------------------------------------------------------------

-- A first request: records the key in flight, held by p_attempt_id until p_at + p_lock_timeout.
-- False when the key exists.
CREATE FUNCTION idempotency_key_insert(p_role name, p_scope text, p_key text, p_fingerprint text, p_attempt_id text,
                                       p_lock_timeout interval, p_retention interval, p_at timestamptz)
    RETURNS boolean LANGUAGE sql VOLATILE PARALLEL UNSAFE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    WITH ins AS (
        INSERT INTO @extschema@.idempotency_keys AS k
            (role_name, scope, key, fingerprint, state, attempts, original_attempt_id, attempt_id, lock_timeout,
             locked_until, retention, created_at, updated_at, expires_at)
        VALUES (p_role, p_scope, p_key, p_fingerprint, 'in_flight', 1, p_attempt_id, p_attempt_id, p_lock_timeout,
                p_at OPERATOR(pg_catalog.+) p_lock_timeout, p_retention, p_at, p_at,
                p_at OPERATOR(pg_catalog.+) p_retention)
        ON CONFLICT ON CONSTRAINT idempotency_keys_pkey DO NOTHING
        RETURNING 1
    )
    SELECT EXISTS (SELECT FROM ins);
END;

-- The key's row as the caller's decision needs it, or NULL. row_xmin tells a row this
-- transaction wrote.
CREATE FUNCTION idempotency_key_read(p_role name, p_scope text, p_key text,
                                     OUT state text, OUT fingerprint text, OUT attempts integer, OUT attempt_id text,
                                     OUT locked_until timestamptz, OUT expires_at timestamptz, OUT row_xmin xid)
    RETURNS record LANGUAGE sql VOLATILE PARALLEL UNSAFE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    SELECT k.state, k.fingerprint, k.attempts, k.attempt_id, k.locked_until, k.expires_at, k.xmin
    FROM @extschema@.idempotency_keys AS k
    WHERE k.role_name OPERATOR(pg_catalog.=) p_role AND k.scope OPERATOR(pg_catalog.=) p_scope
      AND k.key OPERATOR(pg_catalog.=) p_key;
END;

-- A retry of a finished, unexpired key with the same fingerprint: counts the attempt and returns
-- the stored response. NULL when the row is not (or no longer) in that state.
CREATE FUNCTION idempotency_key_replay(p_role name, p_scope text, p_key text, p_fingerprint text, p_at timestamptz,
                                       OUT response jsonb, OUT attempts integer, OUT original_attempt_id text,
                                       OUT recovery_point text)
    RETURNS record LANGUAGE sql VOLATILE PARALLEL UNSAFE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    UPDATE @extschema@.idempotency_keys AS k SET attempts = k.attempts OPERATOR(pg_catalog.+) 1
    WHERE k.role_name OPERATOR(pg_catalog.=) p_role AND k.scope OPERATOR(pg_catalog.=) p_scope
      AND k.key OPERATOR(pg_catalog.=) p_key
      AND k.state OPERATOR(pg_catalog.=) 'done' AND k.expires_at OPERATOR(pg_catalog.>) p_at
      AND (k.fingerprint OPERATOR(pg_catalog.=) p_fingerprint OR (k.fingerprint IS NULL AND p_fingerprint IS NULL))
    RETURNING k.response, k.attempts, k.original_attempt_id, k.recovery_point;
END;

-- A retry of a key in flight whose lock has run out (its request died, or is too slow): the
-- retry holds the key now. NULL when the row is not (or no longer) in that state.
CREATE FUNCTION idempotency_key_take_over(p_role name, p_scope text, p_key text, p_fingerprint text,
                                          p_attempt_id text, p_lock_timeout interval, p_retention interval,
                                          p_at timestamptz,
                                          OUT attempts integer, OUT original_attempt_id text, OUT recovery_point text)
    RETURNS record LANGUAGE sql VOLATILE PARALLEL UNSAFE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    UPDATE @extschema@.idempotency_keys AS k
    SET attempts = k.attempts OPERATOR(pg_catalog.+) 1, attempt_id = p_attempt_id, lock_timeout = p_lock_timeout,
        locked_until = p_at OPERATOR(pg_catalog.+) p_lock_timeout, retention = p_retention, updated_at = p_at,
        expires_at = p_at OPERATOR(pg_catalog.+) p_retention
    WHERE k.role_name OPERATOR(pg_catalog.=) p_role AND k.scope OPERATOR(pg_catalog.=) p_scope
      AND k.key OPERATOR(pg_catalog.=) p_key
      AND k.state OPERATOR(pg_catalog.=) 'in_flight' AND k.locked_until OPERATOR(pg_catalog.<=) p_at
      AND k.expires_at OPERATOR(pg_catalog.>) p_at
      AND (k.fingerprint OPERATOR(pg_catalog.=) p_fingerprint OR (k.fingerprint IS NULL AND p_fingerprint IS NULL))
    RETURNING k.attempts, k.original_attempt_id, k.recovery_point;
END;

-- An expired key (past its retention, and not held) is forgotten: a request with it starts
-- afresh, as if the row were not there. False when the row is not (or no longer) expired.
CREATE FUNCTION idempotency_key_reuse(p_role name, p_scope text, p_key text, p_fingerprint text, p_attempt_id text,
                                      p_lock_timeout interval, p_retention interval, p_at timestamptz)
    RETURNS boolean LANGUAGE sql VOLATILE PARALLEL UNSAFE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    WITH upd AS (
        UPDATE @extschema@.idempotency_keys AS k
        SET fingerprint = p_fingerprint, state = 'in_flight', response = NULL, attempts = 1,
            original_attempt_id = p_attempt_id, attempt_id = p_attempt_id, recovery_point = NULL,
            lock_timeout = p_lock_timeout, locked_until = p_at OPERATOR(pg_catalog.+) p_lock_timeout,
            retention = p_retention, created_at = p_at, updated_at = p_at, finished_at = NULL,
            expires_at = p_at OPERATOR(pg_catalog.+) p_retention
        WHERE k.role_name OPERATOR(pg_catalog.=) p_role AND k.scope OPERATOR(pg_catalog.=) p_scope
          AND k.key OPERATOR(pg_catalog.=) p_key
          AND k.expires_at OPERATOR(pg_catalog.<=) p_at
          AND (k.state OPERATOR(pg_catalog.=) 'done' OR k.locked_until OPERATOR(pg_catalog.<=) p_at)
        RETURNING 1
    )
    SELECT EXISTS (SELECT FROM upd);
END;

-- Stores the response of a key in flight (held by p_attempt_id, when given). False otherwise.
CREATE FUNCTION idempotency_key_finish(p_role name, p_scope text, p_key text, p_response jsonb, p_attempt_id text,
                                       p_at timestamptz)
    RETURNS boolean LANGUAGE sql VOLATILE PARALLEL UNSAFE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    WITH upd AS (
        UPDATE @extschema@.idempotency_keys AS k
        SET state = 'done', response = p_response, locked_until = NULL, updated_at = p_at, finished_at = p_at,
            expires_at = p_at OPERATOR(pg_catalog.+) k.retention
        WHERE k.role_name OPERATOR(pg_catalog.=) p_role AND k.scope OPERATOR(pg_catalog.=) p_scope
          AND k.key OPERATOR(pg_catalog.=) p_key
          AND k.state OPERATOR(pg_catalog.=) 'in_flight'
          AND (p_attempt_id IS NULL OR k.attempt_id OPERATOR(pg_catalog.=) p_attempt_id)
        RETURNING 1
    )
    SELECT EXISTS (SELECT FROM upd);
END;

-- Records a recovery point of a key in flight (held by p_attempt_id, when given) and renews its
-- lock. False otherwise.
CREATE FUNCTION idempotency_key_recovery_point(p_role name, p_scope text, p_key text, p_point text,
                                               p_attempt_id text, p_at timestamptz)
    RETURNS boolean LANGUAGE sql VOLATILE PARALLEL UNSAFE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    WITH upd AS (
        UPDATE @extschema@.idempotency_keys AS k
        SET recovery_point = p_point, locked_until = p_at OPERATOR(pg_catalog.+) k.lock_timeout, updated_at = p_at,
            expires_at = p_at OPERATOR(pg_catalog.+) k.retention
        WHERE k.role_name OPERATOR(pg_catalog.=) p_role AND k.scope OPERATOR(pg_catalog.=) p_scope
          AND k.key OPERATOR(pg_catalog.=) p_key
          AND k.state OPERATOR(pg_catalog.=) 'in_flight'
          AND (p_attempt_id IS NULL OR k.attempt_id OPERATOR(pg_catalog.=) p_attempt_id)
        RETURNING 1
    )
    SELECT EXISTS (SELECT FROM upd);
END;

-- Deletes up to p_batch expired keys of every role (past their retention and not held), skipping
-- rows another transaction has locked. Returns how many.
CREATE FUNCTION idempotency_key_purge_expired(p_at timestamptz, p_batch integer)
    RETURNS bigint LANGUAGE sql VOLATILE PARALLEL UNSAFE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    WITH gone AS (
        DELETE FROM @extschema@.idempotency_keys AS k
        WHERE k.ctid OPERATOR(pg_catalog.=) ANY (ARRAY(
            SELECT d.ctid FROM @extschema@.idempotency_keys AS d
            WHERE d.expires_at OPERATOR(pg_catalog.<=) p_at
              AND (d.state OPERATOR(pg_catalog.=) 'done' OR d.locked_until OPERATOR(pg_catalog.<=) p_at)
            LIMIT p_batch FOR UPDATE SKIP LOCKED))
        RETURNING 1
    )
    SELECT pg_catalog.count(*) FROM gone;
END;

-- Deletes up to p_batch keys not updated since p_cutoff and not held, of role p_role (of every
-- role when p_role is NULL), skipping rows another transaction has locked. Returns how many.
CREATE FUNCTION idempotency_key_purge_idle(p_role name, p_cutoff timestamptz, p_at timestamptz, p_batch integer)
    RETURNS bigint LANGUAGE sql VOLATILE PARALLEL UNSAFE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    WITH gone AS (
        DELETE FROM @extschema@.idempotency_keys AS k
        WHERE k.ctid OPERATOR(pg_catalog.=) ANY (ARRAY(
            SELECT d.ctid FROM @extschema@.idempotency_keys AS d
            WHERE (p_role IS NULL OR d.role_name OPERATOR(pg_catalog.=) p_role)
              AND d.updated_at OPERATOR(pg_catalog.<=) p_cutoff
              AND (d.state OPERATOR(pg_catalog.=) 'done' OR d.locked_until OPERATOR(pg_catalog.<=) p_at)
            LIMIT p_batch FOR UPDATE SKIP LOCKED))
        RETURNING 1
    )
    SELECT pg_catalog.count(*) FROM gone;
END;

REVOKE ALL ON FUNCTION idempotency_key_insert(name, text, text, text, text, interval, interval, timestamptz) FROM PUBLIC;
REVOKE ALL ON FUNCTION idempotency_key_read(name, text, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION idempotency_key_replay(name, text, text, text, timestamptz) FROM PUBLIC;
REVOKE ALL ON FUNCTION idempotency_key_take_over(name, text, text, text, text, interval, interval, timestamptz) FROM PUBLIC;
REVOKE ALL ON FUNCTION idempotency_key_reuse(name, text, text, text, text, interval, interval, timestamptz) FROM PUBLIC;
REVOKE ALL ON FUNCTION idempotency_key_finish(name, text, text, jsonb, text, timestamptz) FROM PUBLIC;
REVOKE ALL ON FUNCTION idempotency_key_recovery_point(name, text, text, text, text, timestamptz) FROM PUBLIC;
REVOKE ALL ON FUNCTION idempotency_key_purge_expired(timestamptz, integer) FROM PUBLIC;
REVOKE ALL ON FUNCTION idempotency_key_purge_idle(name, timestamptz, timestamptz, integer) FROM PUBLIC;
COMMENT ON FUNCTION idempotency_key_insert(name, text, text, text, text, interval, interval, timestamptz) IS 'internal to idempotency_begin(): records a new key';
COMMENT ON FUNCTION idempotency_key_read(name, text, text) IS 'internal to the idempotency_* functions: reads a key';
COMMENT ON FUNCTION idempotency_key_replay(name, text, text, text, timestamptz) IS 'internal to idempotency_begin(): counts a replay and returns the stored response';
COMMENT ON FUNCTION idempotency_key_take_over(name, text, text, text, text, interval, interval, timestamptz) IS 'internal to idempotency_begin(): takes over a key whose lock ran out';
COMMENT ON FUNCTION idempotency_key_reuse(name, text, text, text, text, interval, interval, timestamptz) IS 'internal to idempotency_begin(): starts an expired key afresh';
COMMENT ON FUNCTION idempotency_key_finish(name, text, text, jsonb, text, timestamptz) IS 'internal to idempotency_finish(): stores the response';
COMMENT ON FUNCTION idempotency_key_recovery_point(name, text, text, text, text, timestamptz) IS 'internal to idempotency_recovery_point(): records a recovery point';
COMMENT ON FUNCTION idempotency_key_purge_expired(timestamptz, integer) IS 'internal to idempotency_purge(): deletes a batch of expired keys';
COMMENT ON FUNCTION idempotency_key_purge_idle(name, timestamptz, timestamptz, integer) IS 'internal to idempotency_purge(): deletes a batch of idle keys';

-------------------------------------------------------------------------------
-- The API. EXECUTE is granted to no one by default: grant it to the roles that serve requests.
-------------------------------------------------------------------------------

CREATE FUNCTION idempotency_begin(scope text, key text, fingerprint text, wait boolean DEFAULT true,
                                  attempt_id text DEFAULT NULL, lock_timeout interval DEFAULT '30 seconds',
                                  retention interval DEFAULT NULL)
    RETURNS TABLE (state text, response jsonb, replayed boolean, attempts integer, original_attempt_id text,
                   recovery_point text)
    AS 'MODULE_PATHNAME', 'idempotency_begin' LANGUAGE C VOLATILE PARALLEL UNSAFE ROWS 1;
COMMENT ON FUNCTION idempotency_begin(text, text, text, boolean, text, interval, interval) IS 'start a request with an idempotency key: new, replay (with the stored response) or resume';

CREATE FUNCTION idempotency_finish(scope text, key text, response jsonb, attempt_id text DEFAULT NULL)
    RETURNS void AS 'MODULE_PATHNAME', 'idempotency_finish' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION idempotency_finish(text, text, jsonb, text) IS 'store the response of a request in flight; retries replay it';

CREATE FUNCTION idempotency_recovery_point(scope text, key text, point text, attempt_id text DEFAULT NULL)
    RETURNS void AS 'MODULE_PATHNAME', 'idempotency_recovery_point' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION idempotency_recovery_point(text, text, text, text) IS 'record the phase a request in flight has completed; a retry that takes over resumes from it';

CREATE FUNCTION idempotency_purge(older_than interval DEFAULT NULL, batch_size integer DEFAULT 1000)
    RETURNS bigint AS 'MODULE_PATHNAME', 'idempotency_purge' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION idempotency_purge(interval, integer) IS 'delete up to batch_size expired idempotency keys; returns how many';

CREATE FUNCTION idempotency_fingerprint(payload jsonb, paths text[] DEFAULT NULL)
    RETURNS text AS 'MODULE_PATHNAME', 'idempotency_fingerprint' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION idempotency_fingerprint(jsonb, text[]) IS 'SHA-256 (hex) of the canonical JSON of a payload, or of the members its JSON Pointers select';

REVOKE ALL ON FUNCTION idempotency_begin(text, text, text, boolean, text, interval, interval) FROM PUBLIC;
REVOKE ALL ON FUNCTION idempotency_finish(text, text, jsonb, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION idempotency_recovery_point(text, text, text, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION idempotency_purge(interval, integer) FROM PUBLIC;
