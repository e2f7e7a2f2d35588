-- nanoid: gen_nanoid(size, alphabet). Random output is checked through properties, never printed.
SET client_min_messages = warning;
\set VERBOSITY default
\set SHOW_CONTEXT never

-- Default: 21 characters of the URL-safe 64.
SELECT length(gen_nanoid()) AS len, gen_nanoid() ~ '^[A-Za-z0-9_-]{21}$' AS url_safe;
SELECT count(*) FILTER (WHERE id !~ '^[A-Za-z0-9_-]{21}$') AS bad, count(DISTINCT id) AS distinct_ids
FROM (SELECT gen_nanoid() AS id FROM generate_series(1, 10000)) s;
-- Every character of the default alphabet shows up; nothing else does.
SELECT count(DISTINCT c) AS characters
FROM (SELECT regexp_split_to_table(gen_nanoid(255), '') AS c FROM generate_series(1, 40)) s;

-- Sizes and alphabets at their limits.
SELECT length(gen_nanoid(1)) AS one, length(gen_nanoid(255)) AS max,
       gen_nanoid(64, 'ab') ~ '^[ab]{64}$' AS two_chars,
       gen_nanoid(8, '0123456789') ~ '^[0-9]{8}$' AS digits;
SELECT length(gen_nanoid(255, string_agg(chr(c), '' ORDER BY c))) AS len_127_ascii,
       gen_nanoid(255, string_agg(chr(c), '' ORDER BY c)) !~ '[^\x01-\x7f]' AS ascii_only
FROM generate_series(1, 127) c;
-- A 2-character alphabet: both characters, about half each.
SELECT count(*) FILTER (WHERE c = 'x') BETWEEN 4500 AND 5500 AS balanced
FROM (SELECT regexp_split_to_table(gen_nanoid(200, 'xy'), '') AS c FROM generate_series(1, 50)) s;

-- Errors: size 0, 256, negative (22023), alphabets too short, too long, repeated, multibyte.
SELECT gen_nanoid(0);
SELECT gen_nanoid(256);
SELECT gen_nanoid(-1);
SELECT gen_nanoid(10, '');
SELECT gen_nanoid(10, 'a');
SELECT gen_nanoid(10, 'abca');
SELECT gen_nanoid(10, repeat('a', 256));
SELECT gen_nanoid(10, 'abcé');
\set VERBOSITY sqlstate
SELECT gen_nanoid(0);
SELECT gen_nanoid(256);
SELECT gen_nanoid(10, 'a');
SELECT gen_nanoid(10, 'abca');
SELECT gen_nanoid(10, repeat('a', 256));
SELECT gen_nanoid(10, 'abcé');
\set VERBOSITY default
-- NULLs: STRICT.
SELECT gen_nanoid(NULL) IS NULL AS null_size, gen_nanoid(5, NULL) IS NULL AS null_alphabet;

-- Labels.
SELECT p.oid::regprocedure, p.provolatile, p.proparallel, p.proisstrict,
       pg_get_function_arguments(p.oid) AS args
FROM pg_proc p WHERE p.proname = 'gen_nanoid';
