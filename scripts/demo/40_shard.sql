\echo
\echo '==== Per-schema shard IDs (Instagram): 41 bits of ms since the shard''s epoch | 13 of shard | 10 of'
\echo '     sequence, from <schema>.next_id()'
\set ECHO queries
SELECT create_shard(5);
CREATE TABLE shard_5.photos (id bigint PRIMARY KEY DEFAULT shard_5.next_id(), n int, url text);
INSERT INTO shard_5.photos (n, url) SELECT n, 'photo' || n || '.jpg' FROM generate_series(1, 5000) n;
SELECT id, shard_id_shard(id) AS shard, shard_id_time(id) AS time, shard_id_sequence(id) AS sequence, url
FROM shard_5.photos ORDER BY n LIMIT 3;
\echo 'Instagram''s published example, decoded with its epoch:'
SELECT shard_id_shard(11637205501278089) AS shard, shard_id_sequence(11637205501278089) AS sequence,
       shard_id_time(11637205501278089, '2011-08-24 21:07:01.721+00') AS time;
\set ECHO none

\echo 'Checks:'
\x on
WITH p AS (SELECT id, n, lead(id) OVER (ORDER BY n) AS next FROM shard_5.photos)
SELECT
  count(DISTINCT id) = 5000
    AS "shard: 5,000 IDs from one INSERT are distinct",
  bool_and(id < next) FILTER (WHERE next IS NOT NULL)
    AS "shard: they increase in the order the rows were inserted",
  bool_and(shard_id_shard(id) = 5)
    AS "shard: every ID says shard 5",
  bool_and(shard_id_time(id) BETWEEN now() - interval '1 minute' AND clock_timestamp() + interval '3 seconds')
    AS "shard: the time inside is the clock's",
  bool_and(id BETWEEN shard_id_lower(shard_id_time(id), '2024-01-01+00')
                  AND shard_id_upper(shard_id_time(id), '2024-01-01+00'))
    AS "shard: each ID lies in the range of its millisecond",
  (SELECT shard_id_shard(11637205501278089) = 1341 AND shard_id_sequence(11637205501278089) = 905)
    AS "shard: Instagram's example is shard 1341, sequence 905"
FROM p;
\x off
