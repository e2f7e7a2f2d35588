-- Idempotent requests: the key store's labels and privileges, the fingerprint's canonical form,
-- one request's life (new, replay, mismatch, rollback, recovery points), keys of two roles,
-- argument checks, expiry and purge. What needs two sessions at once (waiting, a dead request,
-- a lost reply, many clients) is in test/integration/idempotency_test.cpp.
-- Output is deterministic: times are checked through properties, never printed.
SET client_min_messages = warning;
\set VERBOSITY default
\set SHOW_CONTEXT never
-- SQLSTATE and message of a statement's error (details hold times: not shown).
CREATE FUNCTION idem_error(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE query;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

-- Labels: every function is C. None is SECURITY DEFINER, and none runs SQL: the store's functions
-- read and write the table themselves.
SELECT p.proname, l.lanname, p.provolatile, p.proparallel, p.proisstrict, p.prosecdef, p.proconfig
FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
WHERE p.proname LIKE 'idempotency%' ORDER BY p.proname;
-- Privileges: EXECUTE only for the owner (granted to application roles by hand); the table is
-- the owner's alone; the fingerprint is for everyone.
SELECT p.proname, has_function_privilege('public', p.oid, 'EXECUTE') AS public_may_execute
FROM pg_proc p WHERE p.proname LIKE 'idempotency%' ORDER BY p.proname;
SELECT relacl IS NULL OR NOT EXISTS (SELECT FROM aclexplode(relacl) a WHERE a.grantee <> relowner) AS owner_only
FROM pg_class WHERE relname = 'idempotency_keys';
-- A configuration table: pg_dump dumps its rows.
SELECT 'idempotency_keys'::regclass = ANY (extconfig) AS dumped FROM pg_extension WHERE extname = 'id_gen';

-- The fingerprint: SHA-256 of canonical JSON (members sorted by key, no whitespace, numbers as
-- exact decimals), in lower-case hex.
SELECT idempotency_fingerprint('{"b": 1, "a": [1, 2.50, {"z": null, "y": "x\n"}]}')
     = encode(sha256(convert_to('{"a":[1,2.5,{"y":"x\n","z":null}],"b":1}', 'UTF8')), 'hex') AS canonical;
SELECT idempotency_fingerprint('{"amount": 1000, "currency": "eur"}') AS known_vector;
-- The same payload in other spellings: member order, whitespace, number forms.
SELECT count(DISTINCT idempotency_fingerprint(p)) AS distinct_fingerprints FROM (VALUES
    ('{"amount": 1.50, "tags": ["a", "b"], "to": {"id": 7}}'::jsonb),
    ('{"to":{"id":7},"tags":["a","b"],"amount":1.5}'),
    ('{"tags": ["a", "b"], "amount": 15e-1, "to": {"id": 7.000}}'),
    ('{"amount": 0.15E1, "amount": 1.5, "to": {"id": 7}, "tags": ["a", "b"]}')) v(p);
-- What changes it: a value, an array's order, a type, a key.
SELECT count(DISTINCT idempotency_fingerprint(p)) AS distinct_fingerprints FROM (VALUES
    ('{"a": [1, 2]}'::jsonb), ('{"a": [2, 1]}'), ('{"a": ["1", 2]}'), ('{"a": [1, 2, null]}'), ('{"b": [1, 2]}'),
    ('{"a": [1.01, 2]}'), ('[1, 2]'), ('{"a": {"0": 1, "1": 2}}')) v(p);
-- Keys sort by their bytes (code point order), not as jsonb stores them (shorter first).
SELECT idempotency_fingerprint('{"bb": 1, "a": 2, "é": 3, "B": 4}')
     = encode(sha256(convert_to('{"B":4,"a":2,"bb":1,"é":3}', 'UTF8')), 'hex') AS sorted_by_bytes;
-- Scalars and the empty containers.
SELECT idempotency_fingerprint(p) = encode(sha256(convert_to(c, 'UTF8')), 'hex') AS canonical, c
FROM (VALUES ('"é\"\\\u0001"'::jsonb, '"é\"\\\u0001"'), ('-0.0', '0'), ('1e3', '1000'), ('true', 'true'),
             ('null', 'null'), ('{}', '{}'), ('[]', '[]'), ('[{}, []]', '[{},[]]')) v(p, c);
-- Selected members: JSON Pointers (RFC 6901), as an object from pointer to value; a pointer
-- that selects nothing is left out; order and repeats of the paths do not matter.
SELECT idempotency_fingerprint('{"a": {"b/c": [10, {"d~": 1}]}, "x": 5, "noise": 1}', ARRAY['/a/b~1c/1/d~0', '/x', '/absent'])
     = encode(sha256(convert_to('{"/a/b~1c/1/d~0":1,"/x":5}', 'UTF8')), 'hex') AS selected;
SELECT idempotency_fingerprint('{"x": 5, "y": 6}', ARRAY['/y', '/x', '/y'])
     = idempotency_fingerprint('{"y": 6, "x": 5, "z": 7}', ARRAY['/x', '/y']) AS order_and_repeats_ignored;
SELECT idempotency_fingerprint('{"a": [1, 2]}', ARRAY['']) = encode(sha256(convert_to('{"":{"a":[1,2]}}', 'UTF8')), 'hex') AS whole_document,
       idempotency_fingerprint('{"a": [1, 2]}', ARRAY['/a/01', '/a/2', '/a/-', '/a/x']) = idempotency_fingerprint('{}', ARRAY[]::text[]) AS no_such_elements,
       idempotency_fingerprint('{"a": {"01": 1}}', ARRAY['/a/01']) = encode(sha256(convert_to('{"/a/01":1}', 'UTF8')), 'hex') AS member_named_01,
       idempotency_fingerprint('{"a": null}', ARRAY['/a']) <> idempotency_fingerprint('{}', ARRAY['/a']) AS null_is_not_absent;
SELECT idempotency_fingerprint(NULL) IS NULL AS null_payload;
SELECT idem_error($$SELECT idempotency_fingerprint('{}', ARRAY['a'])$$);
SELECT idem_error($$SELECT idempotency_fingerprint('{}', ARRAY['/a~2'])$$);
SELECT idem_error($$SELECT idempotency_fingerprint('{}', ARRAY['/a~'])$$);
SELECT idem_error($$SELECT idempotency_fingerprint('{}', ARRAY['/a', NULL])$$);

-- One request's life. A first request: new; the work and finish in the same transaction.
CREATE TABLE idem_orders (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, item text);
BEGIN;
SELECT * FROM idempotency_begin('POST /orders', 'req-1', idempotency_fingerprint('{"item": "book"}'), attempt_id => 'try-1');
INSERT INTO idem_orders (item) VALUES ('book');
SELECT idempotency_finish('POST /orders', 'req-1', jsonb_build_object('order', 1, 'status', 201));
COMMIT;
-- A retry with the same key and payload: the stored response, replayed; the attempt ID does not
-- matter, the original one is reported.
SELECT * FROM idempotency_begin('POST /orders', 'req-1', idempotency_fingerprint('{"item": "book"}'), attempt_id => 'try-2');
SELECT * FROM idempotency_begin('POST /orders', 'req-1', idempotency_fingerprint('{"item": "book"}'));
-- The same key with another payload: 23000.
SELECT idem_error($$SELECT * FROM idempotency_begin('POST /orders', 'req-1', idempotency_fingerprint('{"item": "pen"}'))$$);
-- Scopes are separate: the same key in another scope is another request.
SELECT state, attempts FROM idempotency_begin('POST /refunds', 'req-1', NULL);
SELECT idempotency_finish('POST /refunds', 'req-1', NULL);
SELECT state, response IS NULL AS null_response, replayed FROM idempotency_begin('POST /refunds', 'req-1', NULL);
-- A fingerprint NULL matches only NULL.
SELECT idem_error($$SELECT * FROM idempotency_begin('POST /refunds', 'req-1', 'f')$$);
-- Finished once: finishing again, or a key never begun, is 55000.
SELECT idem_error($$SELECT idempotency_finish('POST /orders', 'req-1', '{}')$$);
SELECT idem_error($$SELECT idempotency_finish('POST /orders', 'never', '{}')$$);
SELECT idem_error($$SELECT idempotency_recovery_point('POST /orders', 'never', 'x')$$);
SELECT count(*) AS orders FROM idem_orders;

-- A request whose transaction rolls back leaves the key free.
BEGIN;
SELECT state FROM idempotency_begin('POST /orders', 'req-2', 'f');
INSERT INTO idem_orders (item) VALUES ('lamp');
ROLLBACK;
SELECT count(*) AS keys FROM idempotency_keys WHERE key = 'req-2';
SELECT state, attempts FROM idempotency_begin('POST /orders', 'req-2', 'f', lock_timeout => '1 hour');
-- The same key begun twice in one transaction: 55P03.
BEGIN;
SELECT state FROM idempotency_begin('POST /orders', 'req-3', 'f');
SELECT idem_error($$SELECT state FROM idempotency_begin('POST /orders', 'req-3', 'f')$$);
ROLLBACK;
-- A key in flight (committed, held for lock_timeout) and wait => false: 55P03.
SELECT idem_error($$SELECT state FROM idempotency_begin('POST /orders', 'req-2', 'f', wait => false)$$);
\set VERBOSITY default

-- Recovery points (atomic phases): each commits with its phase's work and renews the lock. A
-- retry after the lock ran out resumes from the last one; the first attempt can no longer
-- finish; the retry finishes.
SELECT state FROM idempotency_begin('POST /payments', 'pay-1', 'f', attempt_id => 'a1', lock_timeout => '50 milliseconds');
SELECT idempotency_recovery_point('POST /payments', 'pay-1', 'payment_created', 'a1');
SELECT idempotency_recovery_point('POST /payments', 'pay-1', 'charge_sent', 'a1');
SELECT recovery_point, locked_until = updated_at + lock_timeout AS lock_renewed, updated_at > created_at AS moved
FROM idempotency_keys WHERE key = 'pay-1';
SELECT pg_sleep(0.1);
SELECT * FROM idempotency_begin('POST /payments', 'pay-1', 'f', attempt_id => 'a2');
SELECT idem_error($$SELECT idempotency_recovery_point('POST /payments', 'pay-1', 'late', 'a1')$$);
SELECT idem_error($$SELECT idempotency_finish('POST /payments', 'pay-1', '{"late": true}', 'a1')$$);
SELECT idempotency_finish('POST /payments', 'pay-1', '{"paid": true}', 'a2');
SELECT * FROM idempotency_begin('POST /payments', 'pay-1', 'f', attempt_id => 'a3');
-- Taken over before any recovery point: new again (attempts counts on).
SELECT state FROM idempotency_begin('POST /payments', 'pay-2', 'f', lock_timeout => '50 milliseconds');
SELECT pg_sleep(0.1);
SELECT state, attempts, recovery_point FROM idempotency_begin('POST /payments', 'pay-2', 'f', lock_timeout => '1 hour');

-- Arguments: labels are 1 to 255 characters without control characters (22023, 22P02), not
-- NULL (22004); intervals positive and finite (22023); a fingerprint at most 1024 characters.
SELECT state FROM idempotency_begin('s', repeat('k', 255), NULL, lock_timeout => '1 hour');
SELECT state FROM idempotency_begin(repeat('é', 255), 'k', NULL, lock_timeout => '1 hour');
SELECT idem_error($$SELECT state FROM idempotency_begin('s', repeat('k', 256), NULL)$$);
SELECT idem_error($$SELECT state FROM idempotency_begin('', 'k', NULL)$$);
SELECT idem_error($$SELECT state FROM idempotency_begin('s', E'line\nbreak', NULL)$$);
SELECT idem_error($$SELECT state FROM idempotency_begin('s', E'c1\u0085', NULL)$$);
SELECT idem_error($$SELECT state FROM idempotency_begin('s', 'k', NULL, attempt_id => E'tab\there')$$);
SELECT idem_error($$SELECT state FROM idempotency_begin('s', 'k', NULL, attempt_id => '')$$);
SELECT idem_error($$SELECT state FROM idempotency_begin(NULL, 'k', NULL)$$);
SELECT idem_error($$SELECT state FROM idempotency_begin('s', NULL, NULL)$$);
SELECT idem_error($$SELECT state FROM idempotency_begin('s', 'k', NULL, wait => NULL)$$);
SELECT idem_error($$SELECT state FROM idempotency_begin('s', 'k', NULL, lock_timeout => NULL)$$);
SELECT idem_error($$SELECT state FROM idempotency_begin('s', 'k', NULL, lock_timeout => '0')$$);
SELECT idem_error($$SELECT state FROM idempotency_begin('s', 'k', NULL, retention => '-1 hour')$$);
SELECT idem_error($$SELECT state FROM idempotency_begin('s', 'k', NULL, retention => '1 month -31 days')$$);
SELECT idem_error($$SELECT state FROM idempotency_begin('s', 'k', repeat('f', 1025))$$);
SELECT idem_error($$SELECT state FROM idempotency_begin('s', 'k', '')$$);
SELECT idem_error($$SELECT idempotency_recovery_point('s', repeat('k', 255), '')$$);
SELECT idem_error($$SELECT idempotency_purge(batch_size => 0)$$);
SELECT idem_error($$SELECT idempotency_purge(batch_size => NULL)$$);
SELECT idem_error($$SELECT idempotency_purge(older_than => '-1 second')$$);

-- Each key a transaction is granted (new, resume) holds a lock (pg_locks: advisory, objsubid
-- 18756) until the transaction ends; a replay lets its lock go at once.
BEGIN;
SELECT count(*) FILTER (WHERE state = 'new') AS granted FROM (
    SELECT (idempotency_begin('locks', 'k' || g, NULL)).state FROM generate_series(1, 3) g) s;
SELECT count(*) FILTER (WHERE state = 'replay') AS replayed FROM (
    SELECT (idempotency_begin('POST /orders', 'req-1', idempotency_fingerprint('{"item": "book"}'))).state
    FROM generate_series(1, 5)) s;
SELECT count(*) AS key_locks FROM pg_locks
WHERE locktype = 'advisory' AND objsubid = 18756 AND pid = pg_backend_pid() AND granted;
ROLLBACK;
SELECT count(*) AS key_locks FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 18756 AND pid = pg_backend_pid();

-- Writes refuse in a read-only transaction (25006), as an INSERT would; the fingerprint does not write.
BEGIN READ ONLY;
SELECT idem_error($$SELECT state FROM idempotency_begin('s', 'read-only', NULL)$$);
SELECT idem_error($$SELECT idempotency_finish('POST /orders', 'req-2', '{}')$$);
SELECT idem_error($$SELECT idempotency_recovery_point('POST /orders', 'req-2', 'p')$$);
SELECT idem_error($$SELECT idempotency_purge()$$);
SELECT length(idempotency_fingerprint('{}')) AS fingerprint_length;
ROLLBACK;

-- Retention: a key is kept 24 hours after the begin that granted it (by default), finished or
-- not, or as given.
SELECT expires_at - created_at AS retention FROM idempotency_keys WHERE scope = 'POST /orders' AND key = 'req-1';
SELECT expires_at - created_at AS retention, finished_at IS NULL AS in_flight
FROM idempotency_keys WHERE scope = 'POST /orders' AND key = 'req-2';
SELECT state FROM idempotency_begin('short', 'k1', 'f', retention => '10 milliseconds');
SELECT idempotency_finish('short', 'k1', '{"n": 1}');
SELECT expires_at - created_at AS retention FROM idempotency_keys WHERE scope = 'short' AND key = 'k1';
SELECT pg_sleep(0.05);
-- Expired: forgotten. The same key starts afresh, even with another payload.
SELECT * FROM idempotency_begin('short', 'k1', 'other payload', attempt_id => 'again');
SELECT idempotency_finish('short', 'k1', '{"n": 2}');

-- Purge: expired keys of every role, a batch per call; a key in flight whose lock has not run out
-- is kept even past its retention.
SELECT count(*) FILTER (WHERE state = 'new') AS begun_and_finished FROM (
    SELECT (idempotency_begin('short', 'p' || g, NULL, retention => '10 milliseconds')).state,
           idempotency_finish('short', 'p' || g, to_jsonb(g))
    FROM generate_series(1, 25) g) s;
SELECT state FROM idempotency_begin('short', 'held', NULL, retention => '10 milliseconds', lock_timeout => '1 hour');
SELECT pg_sleep(0.05);
-- Each call one step of a round: the third reads the last expired key and says done; the fourth
-- begins a new round.
SELECT idempotency_purge(batch_size => 10) AS first, idempotency_purge(batch_size => 10) AS second,
       idempotency_purge(batch_size => 10) AS third, idempotency_purge(batch_size => 10) AS fourth;
SELECT key FROM idempotency_keys WHERE scope = 'short' ORDER BY key;
-- Expired but held: not forgotten either.
SELECT idem_error($$SELECT state FROM idempotency_begin('short', 'held', NULL, wait => false)$$);
-- older_than: also the caller's keys idle for longer (here the superuser, who may delete every
-- role's: all of them, but never one held by a live lock).
SELECT deleted > 0 AS purged, done FROM idempotency_purge(older_than => '0');
SELECT left(scope, 16) AS scope, length(scope) AS scope_chars, left(key, 16) AS key, length(key) AS key_chars, state
FROM idempotency_keys ORDER BY scope, key;

-- Two roles with the same scope and key: two keys. Neither reads, replays or purges the other's,
-- or reads or writes the table.
CREATE ROLE idem_alice;
CREATE ROLE idem_bob;
CREATE ROLE idem_eve;
GRANT EXECUTE ON FUNCTION idempotency_begin(text, text, text, boolean, text, interval, interval),
                          idempotency_finish(text, text, jsonb, text), idempotency_purge(interval, integer)
    TO idem_alice, idem_bob;
SET ROLE idem_alice;
SELECT state FROM idempotency_begin('POST /orders', 'shared-key', 'alice payload');
SELECT idempotency_finish('POST /orders', 'shared-key', '{"for": "alice"}');
SET ROLE idem_bob;
SELECT state, attempts FROM idempotency_begin('POST /orders', 'shared-key', 'bob payload');
SELECT idempotency_finish('POST /orders', 'shared-key', '{"for": "bob"}');
SELECT state, response FROM idempotency_begin('POST /orders', 'shared-key', 'bob payload');
SELECT * FROM idempotency_purge(older_than => '0');
SELECT idem_error($$SELECT * FROM idempotency_keys$$);
SELECT idem_error($$DELETE FROM idempotency_keys$$);
SET ROLE idem_alice;
SELECT state, response FROM idempotency_begin('POST /orders', 'shared-key', 'alice payload');
-- Inside a SECURITY DEFINER function, current_user is the function's owner: bob's function, called
-- by alice, begins a key of bob's.
RESET ROLE;
CREATE FUNCTION idem_bobs_begin(k text) RETURNS text LANGUAGE sql SECURITY DEFINER
    SET search_path = public, pg_temp
    AS $$ SELECT state FROM idempotency_begin('POST /orders', k, NULL) $$;
ALTER FUNCTION idem_bobs_begin(text) OWNER TO idem_bob;
SET ROLE idem_alice;
SELECT idem_bobs_begin('via-bob') AS state;
RESET ROLE;
SELECT role_name FROM idempotency_keys WHERE key = 'via-bob';
DROP FUNCTION idem_bobs_begin(text);
SET ROLE idem_eve;
SELECT idem_error($$SELECT state FROM idempotency_begin('POST /orders', 'shared-key', 'alice payload')$$);
RESET ROLE;
SELECT role_name, response FROM idempotency_keys WHERE key = 'shared-key' ORDER BY role_name;
-- A key belongs to the role's name: renamed, alice no longer finds hers.
ALTER ROLE idem_alice RENAME TO idem_alice2;
SET ROLE idem_alice2;
SELECT state, attempts FROM idempotency_begin('POST /orders', 'shared-key', 'alice payload');
RESET ROLE;
-- Named idem_alice again (as a new role of that name would be): the keys are hers.
ALTER ROLE idem_alice2 RENAME TO idem_alice;
SET ROLE idem_alice;
SELECT state, response FROM idempotency_begin('POST /orders', 'shared-key', 'alice payload');
RESET ROLE;
DELETE FROM idempotency_keys WHERE role_name IN ('idem_alice', 'idem_alice2', 'idem_bob');
REVOKE ALL ON FUNCTION idempotency_begin(text, text, text, boolean, text, interval, interval),
                       idempotency_finish(text, text, jsonb, text), idempotency_purge(interval, integer)
    FROM idem_alice, idem_bob;
DROP ROLE idem_alice;
DROP ROLE idem_bob;
DROP ROLE idem_eve;
DROP TABLE idem_orders;
DELETE FROM idempotency_keys;
DROP FUNCTION idem_error(text);
