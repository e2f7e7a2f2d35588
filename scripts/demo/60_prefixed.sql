\echo
\echo '==== Prefixed typed IDs: <prefix>_<25 base36 characters>; the table stores the uuid (a UUIDv7)'
\set ECHO queries
SELECT prefix_register('acct', 'accounts'), prefix_owner('acct') AS owner;
CREATE TABLE accounts (
    id        uuid PRIMARY KEY DEFAULT gen_uuidv7(),
    public_id text GENERATED ALWAYS AS (prefixed_format('acct', id)) STORED,
    name      text NOT NULL
);
INSERT INTO accounts (name) VALUES ('Ada'), ('Grace'), ('Edsger');
SELECT public_id, name FROM accounts ORDER BY id;
\set ECHO none
SELECT public_id AS some_account FROM accounts ORDER BY id LIMIT 1 \gset
\echo 'In: parse, checking the type (the primary key finds the row); text of unknown type; a new ID as text:'
\set ECHO queries
SELECT id, name FROM accounts WHERE id = prefixed_parse('acct', :'some_account');
SELECT * FROM prefixed_split(:'some_account');
SELECT gen_prefixed('acct');
\echo 'A user ID where an account ID belongs:'
SELECT pg_temp.error_of($q$SELECT prefixed_parse('acct', 'usr_0b6ol7g0qk5tbhc8y8hbzs2sf')$q$) AS error;
\set ECHO none

\echo 'Checks:'
\x on
WITH s AS (SELECT n, gen_prefixed('acct') AS t FROM generate_series(1, 1000) n),
     p AS (SELECT t, lead(t) OVER (ORDER BY n) AS next FROM s)
SELECT
  bool_and(t ~ '^acct_[0-9a-z]{25}$')
    AS "prefixed: gen_prefixed() gives acct_ and 25 base36 characters",
  bool_and(t < next COLLATE "C") FILTER (WHERE next IS NOT NULL)
    AS "prefixed: their text order is their creation order",
  (SELECT bool_and(prefixed_parse('acct', public_id) = id) FROM accounts)
    AS "prefixed: every stored ID's text parses back to it",
  (SELECT pg_temp.error_of($q$SELECT prefixed_parse('acct', 'usr_0b6ol7g0qk5tbhc8y8hbzs2sf')$q$)
          LIKE '22P02:%expected prefix "acct", found "usr"%')
    AS "prefixed: another type's ID is 22P02 naming both prefixes",
  (SELECT prefix_owner('acct') = 'accounts'
          AND pg_temp.error_of($q$SELECT prefix_register('acct', 'elsewhere')$q$) LIKE '42710:%')
    AS "prefixed: the registry keeps acct for accounts"
FROM p;
\x off
