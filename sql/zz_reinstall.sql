-- Runs last: the extension drops cleanly and comes back.
-- The drop and the install are PostgreSQL's own DDL over the install script; under
-- debug_discard_caches (the long test run) they take minutes and check no code of id_gen's, so
-- they run without it; the statements after them run with it again (RESET: the session's value).
SET debug_discard_caches = 0;
DROP EXTENSION id_gen;
SELECT count(*) AS leftover_types FROM pg_type WHERE typname IN ('ulid', 'snowflake');
CREATE EXTENSION id_gen;
RESET debug_discard_caches;
SELECT gen_ulid() < gen_ulid() AS works_again;
