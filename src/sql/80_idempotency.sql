-------------------------------------------------------------------------------
-- Idempotent requests: a store of idempotency keys (request IDs).
--
-- A key belongs to the role that used it (current_user at the call), a scope of the caller's
-- choice and the key text. The role is stored by name and by OID (as regrole, which pg_dump writes
-- as the role's name and a restore reads back as the new cluster's OID): a row is the caller's
-- only when both match, so a new role given a dropped or renamed role's name does not inherit its
-- keys. The table is the extension owner's and no other role has a privilege on it. The
-- functions are C: they read current_user themselves, so a caller cannot name another role, and
-- read and write the table found by OID from pg_extension (through the executor's single-row
-- path, as the logical replication apply worker writes), so no SQL text is resolved by
-- name, or planned, while a request runs.
-------------------------------------------------------------------------------

CREATE TABLE idempotency_keys (
    role_name           name        NOT NULL,
    role_id             regrole     NOT NULL,
    scope               text        COLLATE "C" NOT NULL,
    key                 text        COLLATE "C" NOT NULL,
    fingerprint         text        COLLATE "C",
    state               text        NOT NULL,   -- 'in_flight' or 'done'
    response            jsonb,
    attempts            integer     NOT NULL,
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
) WITH (fillfactor = 80);
-- Only the functions below write rows (and check what they write). Their path applies constraints,
-- row triggers and every index, but not statement triggers, rules or row-level security, so they
-- refuse to write while the table has those (or a column of its own with a default). Every key is updated
-- at least once (its finish; each replay counts an attempt), never in an indexed column: the free
-- space lets those updates stay on the page, heap-only (HOT), with no new index entries. The index
-- on expires_at (set when a request is granted the key) serves purges.
CREATE INDEX idempotency_keys_expires_at ON idempotency_keys (expires_at);
COMMENT ON TABLE idempotency_keys IS 'idempotency keys: one row per (role, scope, key); read and written through the idempotency_* functions';
-- Keys survive pg_dump (a configuration table's rows are dumped).
SELECT pg_catalog.pg_extension_config_dump('idempotency_keys', '');
REVOKE ALL ON idempotency_keys FROM PUBLIC;

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

CREATE FUNCTION idempotency_fingerprint(payload jsonb, paths text[] DEFAULT NULL)
    RETURNS text AS 'MODULE_PATHNAME', 'idempotency_fingerprint' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION idempotency_fingerprint(jsonb, text[]) IS 'SHA-256 (hex) of the canonical JSON of a payload, or of the members its JSON Pointers select';

REVOKE ALL ON FUNCTION idempotency_begin(text, text, text, boolean, text, interval, interval) FROM PUBLIC;
REVOKE ALL ON FUNCTION idempotency_finish(text, text, jsonb, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION idempotency_recovery_point(text, text, text, text) FROM PUBLIC;

-- Purges: a call is one bounded step of a purge round (at most batch_size keys deleted, at most
-- ten rows examined per key of batch_size) and says whether the round is done.
CREATE FUNCTION idempotency_purge(older_than interval DEFAULT NULL, batch_size integer DEFAULT 1000,
                                  OUT deleted bigint, OUT done boolean)
    AS 'MODULE_PATHNAME', 'idempotency_purge' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION idempotency_purge(interval, integer) IS 'delete expired (and with older_than idle) idempotency keys, one bounded step of a round per call: how many, and whether the round is done';
REVOKE ALL ON FUNCTION idempotency_purge(interval, integer) FROM PUBLIC;
