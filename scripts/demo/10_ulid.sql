\pset footer off
CREATE EXTENSION id_gen;
-- A new ULID, its time, and the same 16 bytes as a uuid.
SELECT id, ulid_time(id) AS time, id::uuid AS as_uuid FROM (SELECT gen_ulid() AS id) s;
-- IDs generated in one session are strictly increasing.
SELECT bool_and(a < b) AS increasing FROM (SELECT id AS a, lead(id) OVER (ORDER BY n) AS b
  FROM (SELECT n, gen_ulid() AS id FROM generate_series(1, 10000) n) s) t WHERE b IS NOT NULL;
-- A table keyed by ULID; a time range is an ID range, answered by an index range scan.
CREATE TABLE events (id ulid PRIMARY KEY DEFAULT gen_ulid(), body text);
INSERT INTO events (id, body)
  SELECT gen_ulid(now() - make_interval(mins => n)), 'event ' || n FROM generate_series(1, 5000) n;
ANALYZE events;
EXPLAIN (COSTS OFF) SELECT count(*) FROM events
  WHERE id BETWEEN ulid_lower(now() - interval '1 hour') AND ulid_upper(now());
SELECT count(*) AS last_hour FROM events
  WHERE id BETWEEN ulid_lower(now() - interval '1 hour') AND ulid_upper(now());
