\echo
\echo '==== base36: fixed-width lower-case 0-9a-z text, 13 characters for 64 bits and 25 for 128, so that'
\echo '     text order is numeric order; either case in'
\set ECHO queries
SELECT base36_encode(1234567890123::bigint) AS bigint_in_base36, base36_decode_bigint('ZZ') AS "ZZ";
SELECT id, base36_encode(id) AS in_base36 FROM (SELECT gen_uuidv7() AS id) s;
\echo 'A column whose text is base36, stored as the 16-byte number:'
CREATE TABLE links (id base36_128 PRIMARY KEY DEFAULT gen_uuidv7()::base36_128, url text);
INSERT INTO links (url) VALUES ('https://example.com/a'), ('https://example.com/b');
SELECT id, id::uuid AS same_bytes_as_uuid, url FROM links ORDER BY id;
\set ECHO none

\echo 'Checks:'
\x on
WITH s AS (SELECT gen_uuidv7() AS id FROM generate_series(1, 10000))
SELECT
  bool_and(base36_encode(id) ~ '^[0-9a-z]{25}$' AND base36_decode_uuid(upper(base36_encode(id))) = id)
    AS "base36: a uuid is 25 characters and reads back, in either case",
  array_agg(id ORDER BY base36_encode(id) COLLATE "C") = array_agg(id ORDER BY id)
    AS "base36: sorting 10,000 texts sorts the IDs",
  (SELECT base36_encode(1234567890123::bigint) = '00000fr5hugnf'
          AND base36_decode_bigint('00000fr5hugnf') = 1234567890123)
    AS "base36: 1234567890123 is 00000fr5hugnf and back",
  (SELECT bool_and(length(base36_encode(id)) = 13 AND snowflake_from_base36(base36_encode(id)) = id)
     FROM (SELECT gen_snowflake() AS id FROM generate_series(1, 1000)) f)
    AS "base36: a snowflake is 13 characters and reads back",
  (SELECT pg_temp.error_of($q$SELECT base36_decode_uuid('not base36!')$q$) LIKE '22P02:%')
    AS "base36: malformed text is 22P02"
FROM s;
\x off
