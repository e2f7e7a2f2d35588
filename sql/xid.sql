-- rsxid: the rs/xid format. rs/xid's published example, the text rules (lower-case base32hex,
-- canonical last character) and their errors, soft errors, decoders, casts (bytea, timestamptz,
-- objectid), bounds, operators and opclasses, min/max, the generator's fields, labels, and why the
-- type is not called xid. Random values are checked through properties.
SET client_min_messages = warning;
SET TimeZone = 'UTC';
\set VERBOSITY default
\set SHOW_CONTEXT never

-- rs/xid's example (its README and tests): 9m4e2mr0ui3e8a215n4g is 4d88e15b60f486e428412dc9.
SELECT x AS xid, x::bytea AS bytes, xid_time(x) AS time, x::timestamptz AS cast_time, xid_machine(x) AS machine,
       to_hex(xid_machine(x)) AS machine_hex, xid_pid(x) AS pid, xid_counter(x) AS counter,
       rsxid('\x4d88e15b60f486e428412dc9'::bytea) = x AS from_bytes
FROM (VALUES ('9m4e2mr0ui3e8a215n4g'::rsxid)) t(x);
-- rs/xid's other test vectors: all zero, and machine aabbcc, pid ddee, counter 1.
SELECT rsxid('\x000000000000000000000000'::bytea) AS zero, x AS other, xid_machine(x) = x'aabbcc'::int AS machine,
       xid_pid(x) = x'ddee'::int AS pid, xid_counter(x) AS counter
FROM (VALUES (rsxid('\x00000000aabbccddee000001'::bytea))) t(x);
SELECT rsxid('\xffffffffffffffffffffffff'::bytea) AS largest, length('9m4e2mr0ui3e8a215n4g'::rsxid::text) AS text_len,
       rsxid_send('9m4e2mr0ui3e8a215n4g') AS send;

-- pg_catalog.xid is the transaction ID type, searched first: the name xid is not ours.
SELECT 'xid'::regtype::oid < 16384 AS xid_is_core, 'rsxid'::regtype AS ours;

-- Errors: 22P02 for another length, a character outside 0-9a-v (upper case included, as rs/xid),
-- or a last character other than 0 or g (the 4 pad bits are not zero).
\set VERBOSITY sqlstate
SELECT '9m4e2mr0ui3e8a215n4'::rsxid;       -- 19
SELECT '9m4e2mr0ui3e8a215n4g0'::rsxid;     -- 21
SELECT '9M4E2MR0UI3E8A215N4G'::rsxid;      -- upper case
SELECT '9m4e2mr0ui3e8a215n4w'::rsxid;      -- w is outside base32hex
SELECT '9m4e2mr0ui3e8a215n4h'::rsxid;      -- pad bits set
SELECT '9m4e2mr0ui3e8a215n41'::rsxid;
SELECT ''::rsxid;
\set VERBOSITY default
SELECT '9M4E2MR0UI3E8A215N4G'::rsxid;
SELECT '9m4e2mr0ui3e8a215n4h'::rsxid;

-- Soft errors.
SELECT v, id_gen_input_is_valid(v, 'rsxid') AS valid, (id_gen_input_error_info(v, 'rsxid')).sql_error_code,
       (id_gen_input_error_info(v, 'rsxid')).message
FROM (VALUES ('9m4e2mr0ui3e8a215n4g'), ('9m4e2mr0ui3e8a215n4h'), ('xyz')) c(v);

-- bytea: exactly 12 bytes; any other length is 22P02.
\set VERBOSITY sqlstate
SELECT '\x4d88e15b60f486e428412d'::bytea::rsxid;
SELECT '\x4d88e15b60f486e428412dc900'::bytea::rsxid;
\set VERBOSITY default
SELECT '\x4d88e15b60f486e428412d'::bytea::rsxid;

-- objectid: the same 12 bytes both ways (time and counter keep their meaning).
SELECT x::objectid AS as_objectid, x::objectid::rsxid = x AS back, objectid_time(x::objectid) = xid_time(x) AS same_time,
       '4d88e15b60f486e428412dc9'::objectid::rsxid AS from_objectid
FROM (VALUES ('9m4e2mr0ui3e8a215n4g'::rsxid)) t(x);

-- Casts: all explicit; the type's shape is objectid's.
SELECT s.typname AS source, t.typname AS target, c.castcontext, c.castmethod, c.castfunc::regprocedure AS func
FROM pg_cast c JOIN pg_type s ON s.oid = c.castsource JOIN pg_type t ON t.oid = c.casttarget
WHERE s.typname = 'rsxid' OR t.typname = 'rsxid' ORDER BY 1, 2;
SELECT typname, typlen, typbyval, typalign, typstorage, typcategory FROM pg_type WHERE typname IN ('rsxid', 'objectid') ORDER BY 1;

-- Bounds.
SELECT xid_lower('2011-03-22 17:50:19.5+00') AS lower, xid_upper('2011-03-22 17:50:19.5+00') AS upper,
       xid_lower('1970-01-01 00:00:00+00') AS first, xid_upper('2106-02-07 06:28:15.999999+00') AS last,
       '9m4e2mr0ui3e8a215n4g'::rsxid BETWEEN xid_lower('2011-03-22 17:50:19+00') AND xid_upper('2011-03-22 17:50:19+00') AS example_within;
\set VERBOSITY sqlstate
SELECT xid_lower('1969-12-31 23:59:59.999999+00');
SELECT xid_upper('2106-02-07 06:28:16+00');
SELECT xid_upper('-infinity');
\set VERBOSITY default
SELECT xid_lower('1969-12-31 23:59:59+00');

-- Generator: the time is now, the machine ID this server's, the process ID this backend's; the
-- counter steps by one; values strictly increase; none repeats.
CREATE TEMP TABLE gen AS SELECT n, x FROM (SELECT n, gen_xid() AS x FROM generate_series(1, 20000) n OFFSET 0) g;
SELECT count(*) AS ids, count(DISTINCT x) AS distinct_ids,
       bool_and(xid_time(x) BETWEEN date_trunc('second', statement_timestamp()) - interval '1 second' AND clock_timestamp() + interval '1 second') AS time_is_now,  -- a counter wrap borrows the next second
       bool_and(xid_machine(x) = xid_server_machine()) AS machine_is_server,
       bool_and(xid_pid(x) = pg_backend_pid() & 65535) AS pid_is_backend,
       xid_server_machine() BETWEEN 0 AND 16777215 AS machine_fits
FROM gen;
SELECT bool_and(x > px) AS strictly_increasing,
       bool_and(xid_counter(x) = (xid_counter(px) + 1) % 16777216 OR xid_time(x) > xid_time(px)) AS counter_steps_by_one
FROM (SELECT x, lag(x) OVER (ORDER BY n) AS px FROM gen) s WHERE px IS NOT NULL;

-- Order: bytewise; operators, cmp, the bytea order and the text order under "C" agree.
CREATE TEMP TABLE pairs AS
  SELECT a, CASE WHEN n % 10 = 0 THEN rsxid(substr(a::bytea, 1, 8) || substr(b::bytea, 9, 4)) ELSE b END AS b
  FROM (SELECT n, rsxid(decode(substr(md5(n::text || random()::text), 1, 24), 'hex')) AS a,
               rsxid(decode(substr(md5(n::text || random()::text), 1, 24), 'hex')) AS b
        FROM generate_series(1, 100000) n) s;
SELECT count(*) AS pairs,
       bool_and((a < b) = (a::bytea < b::bytea) AND (a = b) = (a::bytea = b::bytea) AND (a > b) = (a::bytea > b::bytea)) AS bytewise,
       bool_and((a <= b) = (a::bytea <= b::bytea) AND (a >= b) = (a::bytea >= b::bytea) AND (a <> b) = (a::bytea <> b::bytea)) AS bytewise_2,
       bool_and(sign(rsxid_cmp(a, b)) = CASE WHEN a::bytea < b::bytea THEN -1 WHEN a::bytea > b::bytea THEN 1 ELSE 0 END) AS cmp,
       bool_and((a < b) = (a::text COLLATE "C" < b::text COLLATE "C")) AS text_order,
       bool_and(a::text::rsxid = a AND a::text ~ '^[0-9a-v]{19}[0g]$') AS text_round_trip
FROM pairs;
SELECT array_agg(x ORDER BY x) = array_agg(x ORDER BY x::bytea) AS sort_matches_bytes,
       min(x) = (SELECT x FROM (SELECT a FROM pairs UNION ALL SELECT b FROM pairs) s(x) ORDER BY x::bytea LIMIT 1) AS min_ok,
       max(x) = (SELECT x FROM (SELECT a FROM pairs UNION ALL SELECT b FROM pairs) s(x) ORDER BY x::bytea DESC LIMIT 1) AS max_ok
FROM (SELECT a FROM pairs UNION ALL SELECT b FROM pairs) s(x);
-- The hash is objectid's on the same bytes.
SELECT bool_and(rsxid_hash(a) = objectid_hash(a::objectid)) AS objectid_hash,
       bool_and((rsxid_hash_extended(a, 0) & 4294967295) = (rsxid_hash(a)::bigint & 4294967295)) AS seed0_low_bits,
       bool_and(rsxid_hash_extended(a, 7) = objectid_hash_extended(a::objectid, 7)) AS extended_as_objectid,
       count(DISTINCT rsxid_hash(a)) > 99000 AS spread
FROM pairs;

CREATE FUNCTION pg_temp.plan_nodes(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  p jsonb;
BEGIN
  EXECUTE 'EXPLAIN (COSTS OFF, FORMAT JSON) ' || query INTO p;
  RETURN QUERY
    WITH RECURSIVE n(node) AS (
      SELECT p -> 0 -> 'Plan'
      UNION ALL
      SELECT c FROM n, jsonb_array_elements(n.node -> 'Plans') c)
    SELECT DISTINCT concat_ws(' ', node ->> 'Node Type', 'using ' || (node ->> 'Index Name'), 'on ' || (node ->> 'Relation Name'))
    FROM n ORDER BY 1;
END
$$;
SELECT t.typname, a.amname, c.opcname, c.opcdefault
FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod JOIN pg_type t ON t.oid = c.opcintype
WHERE t.typname = 'rsxid' ORDER BY 1, 2;
SELECT f.opfname, a.amname, p.amprocnum, p.amproc::regproc AS proc
FROM pg_amproc p JOIN pg_opfamily f ON f.oid = p.amprocfamily JOIN pg_am a ON a.oid = f.opfmethod
WHERE f.opfname IN ('rsxid_ops', 'rsxid_minmax_ops') ORDER BY a.amname, 1, 3;
CREATE TABLE t_xid (id rsxid PRIMARY KEY, n int NOT NULL);
INSERT INTO t_xid SELECT a, row_number() OVER () FROM pairs LIMIT 30000;
CREATE INDEX t_xid_hash ON t_xid USING hash (id);
ANALYZE t_xid;
-- The BRIN check's expected count, computed while sequential scans are allowed (with them off, a
-- server may probe the BRIN index once per row of pairs).
SELECT count(*) AS brin_expected FROM pairs p WHERE p.a >= xid_lower('2100-01-01') AND p.a IN (SELECT id FROM t_xid) \gset
SET enable_seqscan = off;
SELECT * FROM pg_temp.plan_nodes($q$SELECT count(*) FROM t_xid WHERE id BETWEEN xid_lower('2000-01-01') AND xid_upper('2030-01-01')$q$) node;
SELECT count(*) = (SELECT count(*) FROM t_xid WHERE id::bytea BETWEEN xid_lower('2000-01-01')::bytea AND xid_upper('2030-01-01')::bytea) AS range_matches
FROM t_xid WHERE id BETWEEN xid_lower('2000-01-01') AND xid_upper('2030-01-01');
SELECT * FROM pg_temp.plan_nodes($q$SELECT min(id), max(id) FROM t_xid$q$) node;
SELECT min(id) = (SELECT id FROM t_xid ORDER BY id::bytea LIMIT 1) AS min_ok, max(id) = (SELECT id FROM t_xid ORDER BY id::bytea DESC LIMIT 1) AS max_ok FROM t_xid;
ALTER TABLE t_xid DROP CONSTRAINT t_xid_pkey;
SET enable_bitmapscan = off;
SELECT * FROM pg_temp.plan_nodes($q$SELECT n FROM t_xid WHERE id = '9m4e2mr0ui3e8a215n4g'$q$) node;
SELECT count(*) AS hash_lookups FROM t_xid t WHERE (SELECT count(*) FROM t_xid u WHERE u.id = t.id) = 1;
RESET enable_bitmapscan;
DROP INDEX t_xid_hash;
CREATE INDEX t_xid_brin ON t_xid USING brin (id);
SELECT * FROM pg_temp.plan_nodes($q$SELECT count(*) FROM t_xid WHERE id >= xid_lower('2100-01-01')$q$) node;
SELECT count(*) = :brin_expected AS brin_matches
FROM t_xid WHERE id >= xid_lower('2100-01-01');
RESET enable_seqscan;
DROP TABLE t_xid;

SELECT p.oid::regprocedure AS func, p.provolatile, p.proparallel, p.proisstrict
FROM pg_proc p WHERE p.proname IN ('gen_xid', 'xid_time', 'xid_machine', 'xid_pid', 'xid_counter', 'xid_server_machine', 'xid_lower', 'xid_upper', 'rsxid')
ORDER BY p.oid::regprocedure::text;

-- A per-entity type of kind xid: prefixed text (prefix, '_', the xid's 20 characters), the bare xid
-- read too, gen_xid() as its generator, time and bounds, casts to and from rsxid, no TypeID format.
SELECT create_id_type('xid_session_id', kind => 'xid', prefix => 'ses');
SELECT 'ses_9m4e2mr0ui3e8a215n4g'::xid_session_id AS prefixed, '9m4e2mr0ui3e8a215n4g'::xid_session_id AS from_bare,
       'ses_9m4e2mr0ui3e8a215n4g'::xid_session_id::rsxid::bytea AS bytes,
       xid_session_id_time('ses_9m4e2mr0ui3e8a215n4g') AS time, id_type_describe('xid_session_id') AS describe;
SELECT typlen, typalign FROM pg_type WHERE typname = 'xid_session_id';
CREATE TABLE t_ses (id xid_session_id PRIMARY KEY DEFAULT gen_xid_session_id(), n int);
INSERT INTO t_ses (n) SELECT g FROM generate_series(1, 2000) g;
SELECT count(*) AS ids, count(DISTINCT id) AS distinct_ids, bool_and(id::text ~ '^ses_[0-9a-v]{19}[0g]$') AS shape,
       array_agg(id ORDER BY id) = array_agg(id ORDER BY n) AS ascending_in_order_made,
       bool_and(xid_pid(id::rsxid) = pg_backend_pid() & 65535) AS pid_is_backend,
       count(*) FILTER (WHERE id BETWEEN xid_session_id_lower(now() - interval '1 minute') AND xid_session_id_upper(now() + interval '1 second')) AS within_bounds
FROM t_ses;
\set VERBOSITY sqlstate
SELECT 'ses_9M4E2MR0UI3E8A215N4G'::xid_session_id;
\set VERBOSITY default
SELECT 'usr_9m4e2mr0ui3e8a215n4g'::xid_session_id;
SELECT create_id_type('xid_typeid_id', kind => 'xid', prefix => 'xti', format => 'typeid');
DROP TABLE t_ses;
SELECT drop_id_type('xid_session_id');
