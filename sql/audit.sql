-- id_gen_audit(table, column): a column's IDs grouped by whether their time is plausible.
SET client_min_messages = warning;
\set VERBOSITY default
\set SHOW_CONTEXT never
SET TimeZone = 'UTC';

-- 1,000 version 4 uuids (fixed bytes from md5, the version and variant bits set) and 7 of
-- version 7: before a conversion, the v4 ones carry no time.
CREATE TABLE audit_accounts (id uuid PRIMARY KEY, n int);
INSERT INTO audit_accounts
SELECT (overlay(overlay(md5('acct' || i) PLACING '4' FROM 13 FOR 1)
                PLACING substr('89ab', i % 4 + 1, 1) FROM 17 FOR 1))::uuid, i
FROM generate_series(1, 1000) i;
INSERT INTO audit_accounts
SELECT gen_uuid_v7_at, 1000 + i FROM generate_series(1, 7) i,
       LATERAL (SELECT uuidv7_lower(now() - i * interval '1 hour') AS gen_uuid_v7_at) g;
SELECT shape, verdict, ids, earliest IS NOT NULL AS has_time FROM id_gen_audit('audit_accounts', 'id');

-- The conversion the issue describes: every v4 uuid becomes a ULID whose time is its first 48
-- random bits, most of them centuries ahead; the audit says how many and what they were.
ALTER TABLE audit_accounts ALTER COLUMN id TYPE ulid USING id::ulid;
SELECT shape, verdict, ids, extract(year FROM earliest) AS from_year, extract(year FROM latest) AS to_year, example
FROM id_gen_audit('audit_accounts', 'id') WHERE verdict <> 'in window';
SELECT shape, verdict, ids FROM id_gen_audit('audit_accounts', 'id') WHERE verdict = 'in window';
-- Those IDs sort after every new one: "latest first" shows converted rows.
SELECT count(*) AS old_rows_in_latest_10
FROM (SELECT n FROM audit_accounts ORDER BY id DESC LIMIT 10) t WHERE n <= 1000;

-- uuid versions 1 and 6 (time from 1582), nil and max, and NULL.
CREATE TABLE audit_uuids (id uuid);
INSERT INTO audit_uuids VALUES ('c232ab00-9414-11ec-b3c8-9f6bdeced846'),   -- RFC 9562's v1
                               ('1ec9414c-232a-6b00-b3c8-9f6bdeced846'),   -- and v6
                               ('00000000-0000-1000-8000-000000000000'),   -- v1 of 1582
                               ('00000000-0000-0000-0000-000000000000'),
                               ('ffffffff-ffff-ffff-ffff-ffffffffffff'),
                               (uuidv7_lower('2020-01-01 00:00:00+00')), (NULL);
SELECT shape, verdict, ids, earliest, latest FROM id_gen_audit('audit_uuids', 'id');

-- Every other kind: its epoch or 2000, whichever is later, and now() + 1 day.
CREATE TABLE audit_kinds (k ksuid, o objectid, x rsxid, s snowflake);
INSERT INTO audit_kinds VALUES
    (ksuid_lower('2020-01-01 00:00:00+00'), objectid_lower('2020-01-01 00:00:00+00'),
     xid_lower('2020-01-01 00:00:00+00'), snowflake_lower('2020-01-01 00:00:00+00')),
    (ksuid_lower('2014-05-13 16:53:20+00'), objectid_lower('1999-12-31 23:59:59+00'),
     xid_lower('1970-01-01 00:00:00+00'), snowflake_lower('2010-11-04 01:42:54.657+00')),
    (ksuid_upper('2150-01-01 00:00:00+00'), objectid_upper('2100-01-01 00:00:00+00'),
     xid_upper('2100-01-01 00:00:00+00'), snowflake_upper('2050-01-01 00:00:00+00'));
SELECT 'k' AS col, shape, verdict, ids, earliest, latest FROM id_gen_audit('audit_kinds', 'k')
UNION ALL SELECT 'o', shape, verdict, ids, earliest, latest FROM id_gen_audit('audit_kinds', 'o')
UNION ALL SELECT 'x', shape, verdict, ids, earliest, latest FROM id_gen_audit('audit_kinds', 'x')
UNION ALL SELECT 's', shape, verdict, ids, earliest, latest FROM id_gen_audit('audit_kinds', 's')
ORDER BY 1, 3;

-- A type of create_id_type(), and a domain over ulid.
SELECT create_id_type('audit_order_id', kind => 'ulid', prefix => 'aord');
CREATE DOMAIN audit_ulid AS ulid;
CREATE TABLE audit_typed (id audit_order_id, d audit_ulid);
INSERT INTO audit_typed VALUES (gen_audit_order_id(), gen_ulid()),
                               (ulid_upper('9999-01-01')::audit_order_id, '7ZZZZZZZZZZZZZZZZZZZZZZZZZ');
SELECT shape, verdict, ids FROM id_gen_audit('audit_typed', 'id');
SELECT shape, verdict, ids FROM id_gen_audit('audit_typed', 'd');

-- Errors: a column that is not there (42703), a type without a time (42804).
SELECT * FROM id_gen_audit('audit_kinds', 'nope');
SELECT * FROM id_gen_audit('audit_accounts', 'n');
\set VERBOSITY sqlstate
SELECT * FROM id_gen_audit('audit_kinds', 'nope');
SELECT * FROM id_gen_audit('audit_accounts', 'n');
\set VERBOSITY default
SELECT provolatile, proparallel FROM pg_proc WHERE oid = 'id_gen_audit'::regproc;

DROP TABLE audit_accounts, audit_uuids, audit_kinds, audit_typed;
DROP DOMAIN audit_ulid;
SELECT drop_id_type('audit_order_id');
