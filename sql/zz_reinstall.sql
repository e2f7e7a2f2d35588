-- Runs last: the extension drops cleanly and comes back.
DROP EXTENSION id_gen;
SELECT count(*) AS leftover_types FROM pg_type WHERE typname IN ('ulid', 'snowflake');
CREATE EXTENSION id_gen;
SELECT gen_ulid() < gen_ulid() AS works_again;
