-- uuidv6: RFC 9562 version 6 on the built-in uuid, v1 <-> v6 conversions, timestamps of v1/v6/v7.
-- Output is deterministic: random values are checked through properties, never printed.
SET client_min_messages = warning;
\set VERBOSITY default
\set SHOW_CONTEXT never
SET timezone = 'UTC';

-- RFC 9562 Appendix A.5 (v6) and A.6's v1 twin: the same instant, 2022-02-22 14:22:22 -05:00,
-- the same clock sequence and node. The qualified call is ours on every server version.
SELECT public.uuid_extract_timestamp('1EC9414C-232A-6B00-B3C8-9F6BDECED846') AS v6_time,
       public.uuid_extract_version('1EC9414C-232A-6B00-B3C8-9F6BDECED846') AS v6_version,
       uuid_time('1EC9414C-232A-6B00-B3C8-9F6BDECED846') AS uuid_time_v6,
       public.uuid_extract_timestamp('C232AB00-9414-11EC-B3C8-9F6BDECED846') AS v1_time,
       public.uuid_extract_timestamp('017F22E2-79B0-7CC3-98C4-DC0C0C07398F') AS v7_time;
SELECT uuid_v6_to_v1('1EC9414C-232A-6B00-B3C8-9F6BDECED846') AS v1,
       uuid_v1_to_v6('C232AB00-9414-11EC-B3C8-9F6BDECED846') AS v6;

-- Other versions and variants: NULL time; conversions refuse with 22023.
SELECT public.uuid_extract_timestamp('00000000-0000-0000-0000-000000000000') IS NULL AS nil,
       public.uuid_extract_timestamp('1ec9414c-232a-6b00-73c8-9f6bdeced846') IS NULL AS v6_ncs_variant,
       public.uuid_extract_timestamp(gen_random_uuid()) IS NULL AS v4;
SELECT uuid_v1_to_v6('1EC9414C-232A-6B00-B3C8-9F6BDECED846');
SELECT uuid_v6_to_v1('C232AB00-9414-11EC-B3C8-9F6BDECED846');
SELECT uuid_v6_to_v1('919108f7-52d1-4320-9bac-f847db4148a8');
SELECT uuid_v1_to_v6('c232ab00-9414-11ec-73c8-9f6bdeced846');
\set VERBOSITY sqlstate
SELECT uuid_v1_to_v6('1EC9414C-232A-6B00-B3C8-9F6BDECED846');
SELECT uuid_v6_to_v1('017F22E2-79B0-7CC3-98C4-DC0C0C07398F');
SELECT uuid_v1_to_v6('c232ab00-9414-11ec-73c8-9f6bdeced846');
SELECT uuid_v1_to_v6('00000000-0000-0000-0000-000000000000');
\set VERBOSITY default
SELECT uuid_v1_to_v6(NULL) IS NULL AS strict_v1, uuid_v6_to_v1(NULL) IS NULL AS strict_v6;

-- The ends of the 60-bit timestamp: 1582-10-15 and 5236-03-31; round trips both ways.
SELECT public.uuid_extract_timestamp('00000000-0000-6000-8000-000000000000') AS first,
       public.uuid_extract_timestamp('ffffffff-ffff-6fff-bfff-ffffffffffff') AS last,
       uuid_v6_to_v1('ffffffff-ffff-6fff-bfff-ffffffffffff') AS last_v1,
       uuid_v1_to_v6(uuid_v6_to_v1('ffffffff-ffff-6fff-bfff-ffffffffffff')) AS back;

-- Generated IDs: version 6, RFC variant, multicast bit of the node set, time within the
-- statement, strictly increasing within the backend, distinct, round trip through version 1.
CREATE TEMP TABLE v6 AS SELECT n, uuidv6() AS id FROM generate_series(1, 20000) n;
SELECT count(*) FILTER (WHERE public.uuid_extract_version(id) <> 6) AS not_v6,
       count(*) FILTER (WHERE (get_byte(uuid_send(id), 8) & 192) <> 128) AS not_rfc_variant,
       count(*) FILTER (WHERE (get_byte(uuid_send(id), 10) & 1) <> 1) AS multicast_unset,
       count(*) FILTER (WHERE public.uuid_extract_timestamp(id) NOT BETWEEN now() - interval '1 min'
                                                                     AND clock_timestamp() + interval '1 s') AS time_off,
       count(DISTINCT id) AS distinct_ids,
       count(*) FILTER (WHERE uuid_v1_to_v6(uuid_v6_to_v1(id)) <> id) AS round_trip_changed,
       count(*) FILTER (WHERE public.uuid_extract_timestamp(uuid_v6_to_v1(id)) <> public.uuid_extract_timestamp(id)) AS v1_time_differs
FROM v6;
SELECT count(*) AS out_of_order FROM (SELECT id <= lag(id) OVER (ORDER BY n) AS down FROM v6) s WHERE down;
-- The random node and clock sequence differ between IDs (62 random bits each).
SELECT count(DISTINCT substr(id::text, 20)) > 19990 AS random_tails FROM v6;
-- Order by value = order by time.
SELECT count(*) AS time_out_of_order FROM (
  SELECT public.uuid_extract_timestamp(id) < lag(public.uuid_extract_timestamp(id)) OVER (ORDER BY id) AS down FROM v6) s
WHERE down;

-- Labels. (Signatures spelled out: regprocedure would qualify our uuid_extract_timestamp where
-- core's shadows it, on 17 and later.)
SELECT p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' AS function,
       p.provolatile, p.proparallel, p.proisstrict
FROM pg_proc p
WHERE p.oid IN ('public.uuidv6()'::regprocedure, 'public.uuid_v1_to_v6(uuid)'::regprocedure,
                'public.uuid_v6_to_v1(uuid)'::regprocedure, 'public.uuid_extract_timestamp(uuid)'::regprocedure,
                'public.uuid_time(uuid)'::regprocedure)
ORDER BY 1;
