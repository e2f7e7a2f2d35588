-- pg_uuidv7's suite against id_gen_pg_uuidv7: this file stands in for the suite's 001_setup.sql
-- (scripts/layers/sql.sh). id_gen in a schema of its own, the companion where pg_uuidv7 was.
CREATE SCHEMA id_gen_home;
CREATE EXTENSION id_gen SCHEMA id_gen_home;
CREATE EXTENSION id_gen_pg_uuidv7;
SELECT extname, extnamespace::regnamespace FROM pg_extension WHERE extname LIKE 'id_gen%' ORDER BY 1;
