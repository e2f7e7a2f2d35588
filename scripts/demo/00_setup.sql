-- scripts/demo.sh runs these files in order, in one psql session, on a throwaway cluster that
-- preloads id_gen and is node 1 (id_gen.node_id = 1). Each part shows its statements and their
-- results, then checks what it showed: one line per property, "t" when it holds (the labels fit
-- in 63 bytes, PostgreSQL's limit for a column name).
\set ON_ERROR_STOP on
\set ECHO none
\pset footer off
SET client_min_messages = warning;
SET timezone = 'UTC';
\set ECHO queries
CREATE EXTENSION id_gen;
SELECT extversion AS "id_gen", current_setting('server_version') AS "PostgreSQL",
       current_setting('id_gen.node_id') AS "id_gen.node_id",
       snowflake_state_storage() AS "generator state in"
FROM pg_extension WHERE extname = 'id_gen';
\set ECHO none
-- The SQLSTATE and message of the error a statement raises, so errors can be shown without
-- stopping the demo.
CREATE FUNCTION pg_temp.error_of(statement text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE statement;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
-- The times the parts use: now, to the second, and an hour before.
SELECT date_trunc('second', now()) AS t0, date_trunc('second', now()) - interval '1 hour' AS t1 \gset
