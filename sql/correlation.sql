-- Correlation IDs: the setting id_gen.correlation_id, correlation_id(), correlation_extend(),
-- replacement and combination, W3C traceparent. Output is deterministic: fresh IDs are checked
-- through properties, children with their parent replaced by P. (The linking log lines and the
-- tag on every server log line are checked against the server log by the integration tests.)
SET client_min_messages = warning;
\set VERBOSITY default
\set SHOW_CONTEXT never

-- Labels: whatever can set the parameter is VOLATILE and PARALLEL UNSAFE.
SELECT p.oid::regprocedure AS function, p.provolatile AS volatility, p.proparallel AS parallel, p.proisstrict AS strict
FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'id_gen'
WHERE p.proname LIKE 'correlation%' OR p.proname LIKE 'traceparent%' ORDER BY p.oid::regprocedure::text;
SELECT name, context, vartype, boot_val FROM pg_settings WHERE name = 'id_gen.correlation_id';

-- None given: correlation_id() makes a UUIDv7 and sets it for the rest of the transaction only.
SHOW id_gen.correlation_id;
BEGIN;
SELECT correlation_id() ~ '^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$' AS uuidv7,
       correlation_id() = current_setting('id_gen.correlation_id') AS is_the_setting;
SELECT correlation_id() = current_setting('id_gen.correlation_id') AS same_later_in_the_transaction;
COMMIT;
SELECT current_setting('id_gen.correlation_id') = '' AS gone_after_commit;
CREATE TEMP TABLE fresh AS SELECT correlation_id() AS id FROM generate_series(1, 3);
INSERT INTO fresh SELECT correlation_id();
SELECT count(*) AS rows, count(DISTINCT id) AS ids FROM fresh;
DROP TABLE fresh;
BEGIN;
SELECT correlation_id() IS NOT NULL AS made;
ROLLBACK;
SELECT current_setting('id_gen.correlation_id') = '' AS gone_after_rollback;

-- Given: per session, per transaction (SET LOCAL), through set_config().
SET id_gen.correlation_id = 'req-7f3a';
SELECT correlation_id();
BEGIN;
SET LOCAL id_gen.correlation_id = 'job-42';
SELECT correlation_id();
COMMIT;
SELECT correlation_id();
BEGIN;
SELECT set_config('id_gen.correlation_id', 'job-43', true), correlation_id();
COMMIT;
SELECT correlation_id();
SELECT set_config('id_gen.correlation_id', 'req-8:a/b+c=d@e_f.g', false), correlation_id();
RESET id_gen.correlation_id;
SHOW id_gen.correlation_id;

-- Checked: 1 to 128 of [A-Za-z0-9-_.:/+=@]; the value is shown escaped.
SET id_gen.correlation_id = 'has space';
SET id_gen.correlation_id = E'line\nbreak';
SET id_gen.correlation_id = 'x] [corr_id=victim';
SET id_gen.correlation_id = 'été';
SET id_gen.correlation_id = 'a"b';
SELECT set_config('id_gen.correlation_id', repeat('a', 129), false);
SELECT length(set_config('id_gen.correlation_id', repeat('a', 128), false)) AS longest;
SET id_gen.correlation_id = '';
SELECT current_setting('id_gen.correlation_id') = '' AS empty_means_none;
-- Other names under id_gen. are reserved.
SET id_gen.correlation = 'x';

-- Errors reach the client with the tag too (the hook sees what goes to the server log: a
-- NOTICE, below log_min_messages, reaches the client as it is).
SET id_gen.correlation_id = 'req-err';
SELECT 1 / 0;
-- A message of several lines: the tag ends its first line. A session's own "corr_id=" (any
-- case) is neutralised, so it cannot pass for a tag.
DO $$BEGIN RAISE EXCEPTION E'first line\nsecond line'; END$$;
DO $$BEGIN RAISE EXCEPTION 'x [corr_id=req-victim]' USING DETAIL = 'y [CORR_ID=req-victim]', HINT = '[old_corr_id=req-victim]'; END$$;
SET client_min_messages = notice;
DO $$BEGIN RAISE NOTICE 'a notice'; END$$;
SET client_min_messages = warning;
RESET id_gen.correlation_id;
SELECT 1 / 0;
DO $$BEGIN RAISE EXCEPTION 'x [corr_id=req-victim]'; END$$;

-- Children by counter: parent.1, parent.2, ... per parent (here shared by the server's backends).
SELECT correlation_counter_storage();
CREATE TEMP TABLE parent AS SELECT 'p-' || gen_random_uuid() AS p, 'q-' || gen_random_uuid() AS q;
SELECT replace(correlation_extend(p), p, 'P') AS a, replace(correlation_extend(p), p, 'P') AS b,
       replace(correlation_extend(q), q, 'Q') AS c, replace(correlation_extend(p), p, 'P') AS d FROM parent;
SELECT replace(correlation_extend(correlation_extend(p)), p, 'P') AS grandchild FROM parent;
-- By random suffix: 10 lower-case Crockford base32 characters.
SELECT correlation_extend(p, 'random') ~ ('^' || p || '\.[0-9a-hjkmnp-tv-z]{10}$') AS random_child,
       correlation_extend(p, 'random') <> correlation_extend(p, 'random') AS differ FROM parent;
-- Without a parent: the current ID (made for the transaction if none).
SET id_gen.correlation_id = 'req-7f3a';
SELECT correlation_extend() ~ '^req-7f3a\.[0-9]+$' AS of_current;
RESET id_gen.correlation_id;
BEGIN;
SELECT correlation_extend() = correlation_id() || '.1' AS of_fresh;
COMMIT;
-- Errors.
SELECT correlation_extend('bad id');
SELECT correlation_extend('');
SELECT correlation_extend(repeat('x', 129));
SELECT replace(correlation_extend(rpad(p, 126, 'x')), rpad(p, 126, 'x'), 'P') AS longest_counted FROM parent;
SELECT correlation_extend(repeat('x', 127));
SELECT correlation_extend(repeat('x', 118), 'random');
SELECT length(correlation_extend(repeat('x', 117), 'random')) AS longest_random;
SELECT correlation_extend('a', 'sequence');
SELECT correlation_extend('a', NULL);

-- Replacement and combination (each writes two LOG lines linking the IDs).
SELECT correlation_replace('req-1');
SELECT correlation_id();
SELECT correlation_combine('batch-9');
SELECT correlation_id();
BEGIN;
SELECT correlation_replace('tx-only', true);
COMMIT;
SELECT correlation_id();
SELECT correlation_replace('bad]id');
SELECT correlation_combine(repeat('y', 120));
SELECT correlation_replace(NULL);
RESET id_gen.correlation_id;
SELECT correlation_combine('alone');
RESET id_gen.correlation_id;

-- W3C traceparent.
SELECT * FROM traceparent_parse('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
SELECT * FROM traceparent_parse('cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-09-a-later-field');
SELECT t, traceparent_valid(t) FROM (VALUES
    ('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'),
    ('00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01'),
    ('00-00000000000000000000000000000000-00f067aa0ba902b7-01'),
    ('00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01'),
    ('ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'),
    ('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x'),
    ('01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x'),
    ('01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x'),
    ('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7')) v(t);
SELECT traceparent_parse('00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01');
SELECT traceparent_parse('ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
SELECT traceparent_parse('00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01');
SELECT traceparent_parse(E'00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\n');
-- A child: same trace-id, a new parent-id, version 00, known flags only.
SELECT c.version, c.trace_id, c.parent_id <> '00f067aa0ba902b7' AS new_parent, c.flags, c.sampled
FROM traceparent_parse(traceparent_child('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-ff')) c;
SELECT traceparent_child('7f-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x') ~
       '^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$' AS from_later_version;
-- Taken as the incoming ID: its trace-id.
SELECT correlation_from_traceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
SELECT correlation_id();
SELECT correlation_from_traceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0');
RESET id_gen.correlation_id;
