\echo
\echo '==== UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, version 7, a 12-bit fraction of the'
\echo '     millisecond, 62 random bits; on the built-in uuid type'
\set ECHO queries
SELECT id, uuidv7_time(id) AS time, uuid_version(id) AS version FROM (SELECT gen_uuidv7() AS id) s;
\echo 'PostgreSQL 18''s names, in the extension''s schema on every server version; a shifted time for backfills:'
SELECT public.uuidv7() AS uuidv7, public.uuid_extract_timestamp(public.uuidv7(interval '-3 days')) AS "uuidv7(interval '-3 days')";
\echo 'The example of RFC 9562 (Appendix A), and the index range of the last hour:'
SELECT uuidv7_time('017f22e2-79b0-7cc3-98c4-dc0c0c07398f') AS rfc_9562_example_time;
SELECT uuidv7_lower(:'t1') AS lower, uuidv7_upper(:'t0') AS upper;
\set ECHO none

\echo 'Checks:'
\x on
WITH s AS (SELECT n, CASE WHEN n % 2 = 0 THEN gen_uuidv7() ELSE public.uuidv7() END AS id
           FROM generate_series(1, 10000) n),
     p AS (SELECT id, lead(id) OVER (ORDER BY n) AS next FROM s)
SELECT
  bool_and(id < next) FILTER (WHERE next IS NOT NULL)
    AS "uuidv7: gen_uuidv7() and uuidv7() in turn strictly increase",
  bool_and(uuid_version(id) = 7 AND substr(id::text, 20, 1) IN ('8', '9', 'a', 'b'))
    AS "uuidv7: every ID has version 7 and the RFC variant",
  bool_and(uuidv7_time(id) BETWEEN clock_timestamp() - interval '1 minute' AND clock_timestamp())
    AS "uuidv7: the time inside is the clock's",
  bool_and(id BETWEEN uuidv7_lower(uuidv7_time(id)) AND uuidv7_upper(uuidv7_time(id)))
    AS "uuidv7: each ID lies in the range of its millisecond",
  bool_and(ulid_time(id::ulid) = uuidv7_time(id))
    AS "uuidv7: cast to ulid, the time reads the same",
  (SELECT uuidv7_time(gen_uuidv7(interval '-3 days'))
          BETWEEN now() - interval '3 days 1 minute' AND clock_timestamp() - interval '3 days')
    AS "uuidv7: gen_uuidv7(interval '-3 days') is dated 3 days ago",
  (SELECT uuidv7_time('017f22e2-79b0-7cc3-98c4-dc0c0c07398f') = '2022-02-22 19:22:22+00')
    AS "uuidv7: the RFC 9562 example reads 2022-02-22 19:22:22 UTC"
FROM p;
\x off
