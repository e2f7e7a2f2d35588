-- One ID type per entity: create_id_type() / drop_id_type(), text forms (prefixed, TypeID, bare),
-- type checking across entities, operators and index use, casts, decoders and bounds, labels,
-- clashes and permissions. Random values are checked through properties, never printed.
SET client_min_messages = warning;
\set VERBOSITY default
\set SHOW_CONTEXT never

SELECT create_id_type('account_id', kind => 'ulid', prefix => 'acct');
SELECT create_id_type('order_id', kind => 'uuidv7', prefix => 'ord', format => 'typeid');
SELECT create_id_type('event_id', kind => 'snowflake', prefix => 'evt');
SELECT t, d.* FROM unnest(ARRAY['account_id', 'order_id', 'event_id', 'ulid']::regtype[]) t,
       LATERAL id_type_describe(t) d ORDER BY t::text;
-- The registry holds the prefixes, naming the types.
SELECT prefix, owner FROM prefix_registry ORDER BY prefix;
-- Same storage as the kind.
SELECT t.typname, t.typlen, t.typbyval, t.typalign, t.typstorage, t.typcategory, t.typmodin::regproc
FROM pg_type t WHERE t.typname IN ('account_id', 'order_id', 'event_id') ORDER BY 1;

-- Text: prefix, '_', body (base36: 25 characters, 13 for a snowflake; TypeID: 26 lower-case base32).
SELECT gen_account_id()::text ~ '^acct_[0-9a-z]{25}$' AS acct_text,
       gen_order_id()::text ~ '^ord_[0-7][0-9a-hjkmnp-tv-z]{25}$' AS ord_text,
       gen_event_id()::text ~ '^evt_[0-9a-z]{13}$' AS evt_text;
-- Round trips, and the prefixed text of a ulid-kind ID is prefixed_format()'s.
WITH g AS (SELECT gen_account_id() a, gen_order_id() o, gen_event_id() e)
SELECT a::text::account_id = a AS acct_rt, o::text::order_id = o AS ord_rt, e::text::event_id = e AS evt_rt,
       a::text = prefixed_format('acct', a::ulid::uuid) AS same_as_prefixed_format,
       a::ulid::text::account_id = a AS bare_ulid, o::uuid::text::order_id = o AS bare_uuid,
       e::snowflake::text::event_id = e AS bare_decimal
FROM g;
-- Known values.
SELECT '01ARZ3NDEKTSV4RRFFQ69G5FAV'::account_id::ulid AS bare_ulid_in,
       'acct_0000000000000000000000001'::account_id::ulid AS one,
       'ord_01h455vb4pex5vsknk084sn02q'::order_id::uuid AS typeid_in,
       '01890a5d-ac96-774b-bcce-b302099a8057'::order_id AS typeid_out,
       'evt_000000000003f'::event_id::snowflake AS base36_snowflake, '123'::event_id AS snowflake_out;
-- Generators ascend within a backend.
SELECT bool_and(a < b) AS acct_ascending FROM (SELECT gen_account_id() a, gen_account_id() b FROM generate_series(1, 100)) s;
SELECT bool_and(a < b) AS ord_ascending FROM (SELECT gen_order_id() a, gen_order_id() b FROM generate_series(1, 100)) s;
SELECT bool_and(a < b) AS evt_ascending FROM (SELECT gen_event_id() a, gen_event_id() b FROM generate_series(1, 100)) s;

-- Errors: wrong prefix names both prefixes (22P02); malformed text 22P02; out of range 22003.
SELECT 'ord_0000000000000000000000001'::account_id;
SELECT 'acct_01h455vb4pex5vsknk084sn02q'::order_id;
SELECT 'acct_000000000000000000000001'::account_id;
SELECT 'ord_01H455VB4PEX5VSKNK084SN02Q'::order_id;
SELECT 'ord_01h455vb4pex5vsknk084sn0iq'::order_id;
SELECT 'ord_8zzzzzzzzzzzzzzzzzzzzzzzzz'::order_id;
SELECT 'evt_0000000000000'::event_id;
SELECT '0'::event_id;
SELECT 'acct_zzzzzzzzzzzzzzzzzzzzzzzzz'::account_id;
SELECT 'x'::account_id(3);
-- An input function called by hand for another type is refused (it would build the wrong layout).
\set VERBOSITY sqlstate
SELECT account_id_in('evt_000000000003f', 'event_id'::regtype, -1);
\set VERBOSITY default
\set VERBOSITY sqlstate
SELECT 'ord_0000000000000000000000001'::account_id;
SELECT 'ord_8zzzzzzzzzzzzzzzzzzzzzzzzz'::order_id;
SELECT 'evt_0000000000000'::event_id;
\set VERBOSITY default

-- One entity's ID never compares with another's: 42883 when the query is planned.
SELECT gen_account_id() = gen_order_id();
\set VERBOSITY sqlstate
SELECT gen_account_id() = gen_order_id();
SELECT gen_account_id() = gen_ulid();
SELECT gen_event_id() = 1::bigint;
\set VERBOSITY default
-- Casts: explicit only, to and from the kind's type.
SELECT c.castsource::regtype, c.casttarget::regtype, c.castcontext, c.castmethod
FROM pg_cast c WHERE c.castsource IN ('account_id'::regtype, 'order_id'::regtype, 'event_id'::regtype)
                  OR c.casttarget IN ('account_id'::regtype, 'order_id'::regtype, 'event_id'::regtype)
ORDER BY c.castsource::regtype::text, c.casttarget::regtype::text;

-- Operators, index use, min/max, time and bounds.
CREATE TABLE typed_accounts (id account_id PRIMARY KEY DEFAULT gen_account_id(), n int);
CREATE TABLE typed_events (id event_id PRIMARY KEY DEFAULT gen_event_id(), account account_id);
INSERT INTO typed_accounts (n) SELECT g FROM generate_series(1, 2000) g;
INSERT INTO typed_events (account) SELECT id FROM typed_accounts;
CREATE INDEX typed_accounts_hash ON typed_accounts USING hash (id);
CREATE INDEX typed_accounts_brin ON typed_accounts USING brin (id);
ANALYZE typed_accounts, typed_events;
CREATE FUNCTION pg_temp.plan_uses(q text, node text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE l text;
BEGIN
    FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        IF l ~ node THEN RETURN true; END IF;
    END LOOP;
    RETURN false;
END $$;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT pg_temp.plan_uses('SELECT * FROM typed_accounts WHERE id = ''acct_0000000000000000000000001''', 'Index Scan using typed_accounts_(pkey|hash)') AS eq_uses_index;
SELECT pg_temp.plan_uses('SELECT * FROM typed_accounts a JOIN typed_events e ON e.account = a.id WHERE a.id = (SELECT min(id) FROM typed_accounts)', 'Index') AS join_uses_index;
SELECT pg_temp.plan_uses('SELECT min(id), max(id) FROM typed_accounts', 'Index Only Scan') AS minmax_uses_index;
SELECT pg_temp.plan_uses('SELECT * FROM typed_accounts WHERE id BETWEEN account_id_lower(now() - interval ''1 hour'') AND account_id_upper(now())', 'Index') AS time_range_uses_index;
SET enable_indexscan = off;
SET enable_bitmapscan = on;
SELECT pg_temp.plan_uses('SELECT * FROM typed_accounts WHERE id > ''acct_0000000000000000000000001''', 'Bitmap Index Scan on typed_accounts_(pkey|brin)') AS range_uses_index;
RESET enable_indexscan;
RESET enable_bitmapscan;
RESET enable_seqscan;
SELECT count(*) AS matched FROM typed_accounts a JOIN typed_events e ON e.account = a.id;
SELECT min(id) < max(id) AS min_below_max, (SELECT id FROM typed_accounts ORDER BY id LIMIT 1) = min(id) AS min_is_first,
       count(DISTINCT id) AS distinct_ids, count(*) FILTER (WHERE id = id) AS self_equal
FROM typed_accounts;
SELECT bool_and(id BETWEEN account_id_lower(account_id_time(id)) AND account_id_upper(account_id_time(id))) AS acct_in_bounds,
       bool_and(account_id_time(id) BETWEEN now() - interval '1 hour' AND now() + interval '1 minute') AS acct_time_now
FROM typed_accounts;
SELECT bool_and(id BETWEEN event_id_lower(event_id_time(id)) AND event_id_upper(event_id_time(id))) AS evt_in_bounds,
       bool_and(event_id_time(id) BETWEEN now() - interval '1 hour' AND now() + interval '1 minute') AS evt_time_now
FROM typed_events;
SELECT o BETWEEN order_id_lower(order_id_time(o)) AND order_id_upper(order_id_time(o)) AS ord_in_bounds,
       order_id_time(o) BETWEEN now() - interval '1 hour' AND now() + interval '1 minute' AS ord_time_now
FROM (SELECT gen_order_id() o) s;
-- A uuidv7-kind type holds any uuid; the time of one that is not version 7 is NULL.
SELECT order_id_time('00000000-0000-4000-8000-000000000000'::order_id) IS NULL AS v4_time_null;
-- Hashes equal the kind's (hash partitioning moves nothing between them).
SELECT account_id_hash(id) = uuid_hash(id::ulid::uuid) AND account_id_hash_extended(id, 7) = uuid_hash_extended(id::ulid::uuid, 7) AS acct_hash,
       event_id_hash(e) = hashint8(e::snowflake::bigint) AS evt_hash
FROM typed_accounts, (SELECT gen_event_id() e) s LIMIT 1;

-- Labels of what create_id_type() made.
SELECT p.oid::regprocedure AS function, l.lanname, p.provolatile, p.proparallel, p.proisstrict, p.proleakproof, p.prokind
FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
WHERE p.pronamespace = 'public'::regnamespace AND (p.proname ~ '^(gen_)?event_id' OR (p.proname IN ('min', 'max') AND p.proargtypes[0] = 'event_id'::regtype))
ORDER BY p.oid::regprocedure::text;
SELECT p.oid::regprocedure AS function, p.provolatile, p.proparallel
FROM pg_proc p WHERE p.proname IN ('gen_account_id', 'gen_order_id', 'gen_event_id') ORDER BY p.oid::regprocedure::text;
-- Labels of the extension's functions.
SELECT p.oid::regprocedure AS function, l.lanname, p.provolatile, p.proparallel, p.proisstrict,
       (SELECT string_agg(c, ', ') FROM unnest(p.proconfig) c) AS config, has_function_privilege('public', p.oid, 'EXECUTE') AS public_execute
FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'id_gen'
WHERE p.proname ~ 'id_type' ORDER BY p.oid::regprocedure::text;
-- Created objects are not extension members (pg_dump dumps them as ordinary objects).
SELECT count(*) AS members FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'id_gen'
WHERE d.classid = 'pg_type'::regclass AND d.objid IN ('account_id'::regtype, 'order_id'::regtype, 'event_id'::regtype);

-- Clashes and bad arguments.
SELECT create_id_type('account_id', kind => 'ulid', prefix => 'acc');
SELECT create_id_type('customer_id', kind => 'ulid', prefix => 'acct');
SELECT create_id_type('typed_accounts', kind => 'ulid', prefix => 'tac');
SELECT create_id_type('x_id', kind => 'uuidv4', prefix => 'x');
SELECT create_id_type('x_id', kind => 'ulid', prefix => 'X');
SELECT create_id_type('x_id', kind => 'ulid', prefix => 'x_y');
SELECT create_id_type('x_id', kind => 'ulid', prefix => 'x1', format => 'typeid');
SELECT create_id_type('x_id', kind => 'snowflake', prefix => 'x', format => 'typeid');
SELECT create_id_type('x_id', kind => 'ulid', prefix => 'x', format => 'json');
SELECT create_id_type(repeat('x', 50), kind => 'ulid', prefix => 'x');
SELECT create_id_type('x_id', kind => 'ulid', prefix => 'x', schema_name => 'pg_catalog');
CREATE FUNCTION gen_y_id() RETURNS int LANGUAGE sql RETURN 1;
SELECT create_id_type('y_id', kind => 'ulid', prefix => 'y');
DROP FUNCTION gen_y_id();
\set VERBOSITY sqlstate
SELECT create_id_type('account_id', kind => 'ulid', prefix => 'acc');
SELECT create_id_type('customer_id', kind => 'ulid', prefix => 'acct');
\set VERBOSITY default
-- id_type_distribute() is for a Citus coordinator only.
SELECT id_type_distribute('account_id');
-- Nothing of a refused call is left behind.
SELECT count(*) AS leftover FROM pg_type WHERE typname IN ('customer_id', 'x_id', 'y_id');
SELECT prefix FROM prefix_registry ORDER BY prefix;

-- Superuser only, and only into a schema a superuser owns.
CREATE ROLE typed_user;
CREATE SCHEMA typed_lesser AUTHORIZATION typed_user;
SELECT create_id_type('z_id', kind => 'ulid', prefix => 'z', schema_name => 'typed_lesser');
SET ROLE typed_user;
SELECT create_id_type('z_id', kind => 'ulid', prefix => 'z', schema_name => 'typed_lesser');
SELECT drop_id_type('account_id');
RESET ROLE;
CREATE SCHEMA typed_trusted;
SELECT create_id_type('z_id', kind => 'ulid', prefix => 'z', schema_name => 'typed_trusted');
SELECT gen_typed_trusted_ok FROM (SELECT typed_trusted.gen_z_id()::text ~ '^z_' AS gen_typed_trusted_ok) s;
-- A role that may create objects in the extension's schema: refused too (the shard functions'
-- check, extension_schema_check()), for both functions.
GRANT CREATE ON SCHEMA public TO typed_user;
\set VERBOSITY sqlstate
SELECT create_id_type('w_id', kind => 'ulid', prefix => 'w', schema_name => 'typed_trusted');
SELECT drop_id_type('typed_trusted.z_id');
\set VERBOSITY default
REVOKE CREATE ON SCHEMA public FROM typed_user;
SELECT drop_id_type('typed_trusted.z_id');
DROP SCHEMA typed_trusted, typed_lesser;
DROP ROLE typed_user;

-- drop_id_type(): refused while a column, default or index uses the type; frees the prefix.
-- (The detail lists them; PostgreSQL 18 has more of them: NOT NULL constraints.)
\set VERBOSITY terse
SELECT drop_id_type('account_id');
\set VERBOSITY default
DO $$
DECLARE d text;
BEGIN
    PERFORM drop_id_type('account_id');
EXCEPTION WHEN dependent_objects_still_exist THEN
    GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;
    RAISE WARNING 'detail names the columns, the default and the indexes: %',
        d ~ 'column id of table public\.typed_accounts' AND d ~ 'column account of table public\.typed_events'
        AND d ~ 'default value for column id of table public\.typed_accounts' AND d ~ 'index public\.typed_accounts_brin'
        AND d !~ 'function|operator';
END $$;
SELECT drop_id_type('ulid');
DROP TABLE typed_events;
SELECT drop_id_type('event_id');
SELECT drop_id_type('account_id', cascade => true);
SELECT attname FROM pg_attribute WHERE attrelid = 'typed_accounts'::regclass AND attnum > 0 AND NOT attisdropped;
DROP TABLE typed_accounts;
SELECT drop_id_type('order_id');
SELECT count(*) AS leftover_types FROM pg_type WHERE typname IN ('account_id', 'order_id', 'event_id');
SELECT count(*) AS leftover_functions FROM pg_proc WHERE proname ~ '^(gen_)?(account|order|event)_id';
SELECT count(*) AS leftover_operators FROM pg_operator WHERE oprleft::regtype::text IN ('account_id', 'order_id', 'event_id');
SELECT count(*) AS remaining_prefixes FROM prefix_registry;
-- The prefix is free again.
SELECT create_id_type('account_id', kind => 'uuidv7', prefix => 'acct');
SELECT drop_id_type('account_id');
SELECT count(*) AS remaining_prefixes FROM prefix_registry;

-- The spec function is trusted only while a superuser owns it and only as create_id_type() wrote
-- it, with a kind that matches the type's storage (issue 17): its owner could otherwise change
-- the prefix a superuser's reads print, or the kind (a ulid read as a snowflake: a pointer printed,
-- a crash on input). Types made by a superuser who is later demoted, in a schema where that role
-- may still create functions:
CREATE ROLE typed_admin SUPERUSER;
CREATE ROLE typed_plain;
CREATE SCHEMA typed_owned;
GRANT USAGE, CREATE ON SCHEMA typed_owned TO typed_admin, typed_plain;
SET ROLE typed_admin;
SELECT create_id_type('ledger_id', kind => 'ulid', prefix => 'ldg', schema_name => 'typed_owned');
SELECT create_id_type('item_id', kind => 'snowflake', prefix => 'itm', schema_name => 'typed_owned');
RESET ROLE;
SELECT create_id_type('note_id', kind => 'uuidv7', prefix => 'note', format => 'typeid', schema_name => 'typed_owned');
CREATE TABLE typed_ledger (id typed_owned.ledger_id, item typed_owned.item_id, note typed_owned.note_id);
INSERT INTO typed_ledger VALUES ('ldg_0000000000000000000000001', 'itm_000000000003f', '01890a5d-ac96-774b-bcce-b302099a8057');
SELECT * FROM typed_ledger;
SELECT pg_backend_pid() AS pid, pg_postmaster_start_time() AS started \gset
-- Demoted: its functions are refused from the next statement on, in this warm session too.
ALTER ROLE typed_admin NOSUPERUSER;
SELECT id FROM typed_ledger;
\set VERBOSITY sqlstate
SELECT item FROM typed_ledger;
SELECT 'itm_000000000003f'::typed_owned.item_id;
SELECT * FROM id_type_describe('typed_owned.ledger_id');
\set VERBOSITY default
-- A type whose function a superuser owns still works; the bytes stay readable through the kind.
SELECT note, id::ulid, item::snowflake FROM typed_ledger;
-- The demoted owner changes the prefix: refused.
SET ROLE typed_admin;
CREATE OR REPLACE FUNCTION typed_owned.ledger_id_typmod_in(cstring[]) RETURNS int4 LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$SELECT public.id_type_typmod_in($1, 'kind=ulid format=prefixed prefix=evil')$$;
RESET ROLE;
\set VERBOSITY sqlstate
SELECT id FROM typed_ledger;
SELECT 'evil_0000000000000000000000001'::typed_owned.ledger_id;
\set VERBOSITY default
-- ... or the kind, ulid to snowflake: refused, no crash.
SET ROLE typed_admin;
CREATE OR REPLACE FUNCTION typed_owned.ledger_id_typmod_in(cstring[]) RETURNS int4 LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$SELECT public.id_type_typmod_in($1, 'kind=snowflake format=prefixed prefix=ldg')$$;
RESET ROLE;
\set VERBOSITY sqlstate
SELECT id FROM typed_ledger;
INSERT INTO typed_ledger (id) VALUES ('ldg_000000000003f');
\set VERBOSITY default
-- A superuser again: the owner passes, but a kind that contradicts the storage never reaches the
-- codec (XX000), either way round.
ALTER ROLE typed_admin SUPERUSER;
SELECT id FROM typed_ledger;
SET ROLE typed_admin;
CREATE OR REPLACE FUNCTION typed_owned.item_id_typmod_in(cstring[]) RETURNS int4 LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$SELECT public.id_type_typmod_in($1, 'kind=ulid format=prefixed prefix=itm')$$;
RESET ROLE;
\set VERBOSITY sqlstate
INSERT INTO typed_ledger (id) VALUES ('ldg_000000000003f');
SELECT '01ARZ3NDEKTSV4RRFFQ69G5FAV'::ulid::typed_owned.ledger_id::text;
SELECT item FROM typed_ledger;
INSERT INTO typed_ledger (item) VALUES ('itm_0000000000000000000000001');
\set VERBOSITY default
SELECT pg_backend_pid() = :pid AS same_backend, pg_postmaster_start_time() = :'started' AS same_postmaster;
-- Not the function create_id_type() writes, though a superuser's and with the type's own spec:
-- another language, or more text around the call.
CREATE OR REPLACE FUNCTION typed_owned.ledger_id_typmod_in(cstring[]) RETURNS int4 LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    AS $$BEGIN RETURN public.id_type_typmod_in($1, 'kind=ulid format=prefixed prefix=ldg'); END$$;
SELECT id FROM typed_ledger;
CREATE OR REPLACE FUNCTION typed_owned.ledger_id_typmod_in(cstring[]) RETURNS int4 LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$SELECT public.id_type_typmod_in($1, 'kind=ulid format=prefixed prefix=ldg') + 0$$;
\set VERBOSITY sqlstate
SELECT id FROM typed_ledger;
\set VERBOSITY default
-- The bodies create_id_type() wrote, back from a superuser: both types read again.
CREATE OR REPLACE FUNCTION typed_owned.ledger_id_typmod_in(cstring[]) RETURNS int4 LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$SELECT public.id_type_typmod_in($1, 'kind=ulid format=prefixed prefix=ldg')$$;
CREATE OR REPLACE FUNCTION typed_owned.item_id_typmod_in(cstring[]) RETURNS int4 LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$SELECT public.id_type_typmod_in($1, 'kind=snowflake format=prefixed prefix=itm')$$;
SELECT id, item FROM typed_ledger WHERE id IS NOT NULL;
-- Ownership given to a role that is not a superuser: refused, and drop_id_type() frees no prefix
-- that role wrote into the body (here another type's).
ALTER FUNCTION typed_owned.item_id_typmod_in(cstring[]) OWNER TO typed_plain;
SET ROLE typed_plain;
CREATE OR REPLACE FUNCTION typed_owned.item_id_typmod_in(cstring[]) RETURNS int4 LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$SELECT public.id_type_typmod_in($1, 'kind=snowflake format=prefixed prefix=note')$$;
RESET ROLE;
\set VERBOSITY sqlstate
SELECT item FROM typed_ledger;
SELECT drop_id_type('typed_owned.item_id', cascade => true);
\set VERBOSITY default
SELECT prefix, owner FROM prefix_registry WHERE prefix IN ('itm', 'note') ORDER BY prefix;
-- A superuser takes the function over and restores the body: readable again.
ALTER FUNCTION typed_owned.item_id_typmod_in(cstring[]) OWNER TO typed_admin;
CREATE OR REPLACE FUNCTION typed_owned.item_id_typmod_in(cstring[]) RETURNS int4 LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$SELECT public.id_type_typmod_in($1, 'kind=snowflake format=prefixed prefix=itm')$$;
SELECT id, item, note FROM typed_ledger WHERE id IS NOT NULL;
-- Types that are not ID types still describe as nothing, whatever their TYPMOD_IN function.
SELECT count(*) AS not_id_types FROM unnest(ARRAY['varchar', 'numeric', 'ulid', 'snowflake']::regtype[]) t, LATERAL id_type_describe(t) d WHERE d.kind IS NOT NULL;
DROP TABLE typed_ledger;
SELECT drop_id_type('typed_owned.ledger_id'), drop_id_type('typed_owned.item_id'), drop_id_type('typed_owned.note_id');
SELECT count(*) AS remaining_prefixes FROM prefix_registry;
DROP SCHEMA typed_owned;
DROP ROLE typed_admin, typed_plain;
