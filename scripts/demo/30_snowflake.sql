\echo
\echo '==== snowflake: a 64-bit integer time | node | sequence; this server is node 1 (id_gen.node_id)'
\set ECHO queries
SELECT id, snowflake_time(id) AS time, snowflake_node(id) AS node, snowflake_sequence(id) AS sequence
FROM (SELECT gen_snowflake() AS id) s;
\echo 'Layouts: twitter (the default: 41 bits of ms, 10 of node, 12 of sequence), javascript (IDs up to'
\echo '2^53 - 1, exact as JavaScript numbers), sonyflake (10 ms units, 16 bits of machine):'
SELECT layout, id, snowflake_time(id, layout) AS time, snowflake_node(id, layout) AS node
FROM (VALUES ('twitter'), ('javascript'), ('sonyflake')) v(layout), LATERAL (SELECT gen_snowflake(layout) AS id) s;
\echo 'A published tweet ID, decoded:'
SELECT snowflake_time('1541815603606036480') AS time, snowflake_node('1541815603606036480') AS node,
       snowflake_sequence('1541815603606036480') AS sequence;
\echo 'A table keyed by snowflake; a bigint compares with it and uses its index:'
CREATE TABLE orders (id snowflake PRIMARY KEY DEFAULT gen_snowflake(), total numeric);
INSERT INTO orders (total) SELECT n FROM generate_series(1, 1000) n;
\set ECHO none
SELECT max(id)::bigint AS last_order FROM orders \gset
\set ECHO queries
SELECT id, total FROM orders WHERE id = :last_order;
\set ECHO none

\echo 'Checks:'
\x on
WITH s AS (SELECT n, gen_snowflake() AS id FROM generate_series(1, 10000) n),
     p AS (SELECT id, lead(id) OVER (ORDER BY n) AS next FROM s)
SELECT
  bool_and(id < next) FILTER (WHERE next IS NOT NULL)
    AS "snowflake: 10,000 IDs of one session strictly increase",
  bool_and(snowflake_node(id) = 1)
    AS "snowflake: every ID carries node 1",
  bool_and(snowflake_time(id) BETWEEN clock_timestamp() - interval '1 minute' AND clock_timestamp() + interval '3 seconds')
    AS "snowflake: the time inside is the clock's",
  bool_and(id BETWEEN snowflake_lower(snowflake_time(id)) AND snowflake_upper(snowflake_time(id)))
    AS "snowflake: each ID lies in the range of its millisecond",
  (SELECT bool_and(id::bigint <= 9007199254740991 AND snowflake_node(id, 'javascript') = 1)
     FROM (SELECT gen_snowflake('javascript') AS id FROM generate_series(1, 1000)) j)
    AS "snowflake: javascript IDs are at most 2^53 - 1",
  (SELECT snowflake_time('1541815603606036480') = '2022-06-28 16:07:40.105+00'
          AND snowflake_node('1541815603606036480') = 378)
    AS "snowflake: the tweet is 2022-06-28 16:07:40.105 UTC, node 378",
  (SELECT count(*) = 1 FROM orders WHERE id = :last_order)
    AS "snowflake: a bigint finds its row"
FROM p;
\x off
