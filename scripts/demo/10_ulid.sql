\echo
\echo '==== ULID: 48 bits of Unix milliseconds, then 80 random bits; 26 characters of Crockford base32;'
\echo '     the same 16 bytes as a uuid'
\set ECHO queries
SELECT id, ulid_time(id) AS time, id::uuid AS as_uuid FROM (SELECT gen_ulid() AS id) s;
\echo 'A table keyed by ULID, 5,000 events one minute apart back from now: a time range is an ID range,'
\echo 'read by an index range scan on the primary key.'
CREATE TABLE events (id ulid PRIMARY KEY DEFAULT gen_ulid(), body text);
INSERT INTO events (id, body)
  SELECT gen_ulid(:'t0'::timestamptz - make_interval(mins => n)), 'event ' || n FROM generate_series(1, 5000) n;
ANALYZE events;
EXPLAIN (COSTS OFF) SELECT count(*) FROM events WHERE id BETWEEN ulid_lower(:'t1') AND ulid_upper(:'t0');
SELECT count(*) AS last_hour FROM events WHERE id BETWEEN ulid_lower(:'t1') AND ulid_upper(:'t0');
\set ECHO none

\echo 'Checks:'
\x on
WITH s AS (SELECT n, gen_ulid() AS id FROM generate_series(1, 10000) n),
     p AS (SELECT id, lead(id) OVER (ORDER BY n) AS next FROM s)
SELECT
  bool_and(id < next) FILTER (WHERE next IS NOT NULL)
    AS "ulid: 10,000 IDs of one session strictly increase",
  bool_and(id::text ~ '^[0-7][0-9A-HJKMNP-TV-Z]{25}$' AND lower(id::text)::ulid = id)
    AS "ulid: 26 Crockford base32 characters, read in either case",
  bool_and(id::uuid::ulid = id)
    AS "ulid: the uuid cast keeps the bytes",
  bool_and(ulid_time(id) BETWEEN clock_timestamp() - interval '1 minute' AND clock_timestamp())
    AS "ulid: the time inside is the clock's",
  (SELECT count(*) = 60 FROM events WHERE id BETWEEN ulid_lower(:'t1') AND ulid_upper(:'t0'))
    AS "ulid: the last hour's ID range holds its 60 events"
FROM p;
\x off
