-- The superuser-only shard functions trust nothing a lesser role can change, tried with a real
-- second role: a shard's schema and an adopted next_id() must belong to a superuser; the
-- extension's own schema must be the one of its name, owned by a superuser, with CREATE for no
-- other role. Also: epochs whose 2^40 ms are used up, empty and reserved schema names.
SET client_min_messages = warning;
\set VERBOSITY default
\set SHOW_CONTEXT never
CREATE ROLE shard_trust_owner;

-- A schema owned by a role that is not a superuser is refused (before, it was adopted: its owner
-- could then drop the C next_id() and put a PL/pgSQL one in its place, which a superuser's
-- INSERT ... DEFAULT trust_evil.next_id() would run as superuser). Nothing is left behind.
CREATE SCHEMA trust_evil AUTHORIZATION shard_trust_owner;
SELECT create_shard(20, 'trust_evil');
SELECT count(*) AS registered, to_regprocedure('trust_evil.next_id()') IS NULL AS no_function
FROM shard_registry WHERE shard = 20;
-- Given to a superuser, it is accepted; a role allowed to create objects in it (to add tables)
-- still cannot replace next_id(): only the owner of the function or of the schema may drop it.
ALTER SCHEMA trust_evil OWNER TO CURRENT_USER;
GRANT USAGE, CREATE ON SCHEMA trust_evil TO shard_trust_owner;
SELECT create_shard(20, 'trust_evil');
SET ROLE shard_trust_owner;
CREATE TABLE trust_evil.photos (id bigint PRIMARY KEY DEFAULT trust_evil.next_id());
INSERT INTO trust_evil.photos SELECT FROM generate_series(1, 10);
DROP FUNCTION trust_evil.next_id() CASCADE;
CREATE OR REPLACE FUNCTION trust_evil.next_id() RETURNS bigint LANGUAGE sql AS 'SELECT 1::bigint';
ALTER SCHEMA trust_evil RENAME TO trust_evil2;
RESET ROLE;
SELECT count(DISTINCT id) AS ids, bool_and(shard_id_shard(id) = 20) AS shard_20 FROM trust_evil.photos;
-- The same for pg_database_owner (the owner of public since PostgreSQL 15): it stands for the
-- database's owner, trusted while that is a superuser.
CREATE SCHEMA trust_dbo AUTHORIZATION pg_database_owner;
SELECT create_shard(21, 'trust_dbo');

-- An existing next_id() is adopted only when it is id_gen's own C function owned by a superuser.
CREATE SCHEMA trust_sql;
CREATE FUNCTION trust_sql.next_id() RETURNS bigint LANGUAGE sql AS 'SELECT 1::bigint';
ALTER FUNCTION trust_sql.next_id() OWNER TO shard_trust_owner;
SELECT create_shard(22, 'trust_sql');
CREATE SCHEMA trust_immutable;
CREATE FUNCTION trust_immutable.next_id() RETURNS bigint AS '$libdir/id_gen', 'shard_next_id' LANGUAGE C IMMUTABLE;
ALTER FUNCTION trust_immutable.next_id() OWNER TO shard_trust_owner;
SELECT create_shard(22, 'trust_immutable');
CREATE SCHEMA trust_c;
CREATE FUNCTION trust_c.next_id() RETURNS bigint AS '$libdir/id_gen', 'shard_next_id' LANGUAGE C VOLATILE;
ALTER FUNCTION trust_c.next_id() OWNER TO shard_trust_owner;
SELECT create_shard(22, 'trust_c');
ALTER FUNCTION trust_c.next_id() OWNER TO CURRENT_USER;
SELECT create_shard(22, 'trust_c');
SELECT shard_id_shard(trust_c.next_id()) AS adopted,
       (SELECT count(*) FROM pg_proc WHERE pronamespace = 'trust_c'::regnamespace) AS functions;
SELECT count(*) AS refused_left_nothing FROM shard_registry WHERE schema_name IN ('trust_sql', 'trust_immutable');

-- rename_shard() checks the schema it registers, renamed by it or before it.
SELECT rename_shard(20, 'trust_renamed');
ALTER SCHEMA trust_renamed RENAME TO trust_moved;
ALTER SCHEMA trust_moved OWNER TO shard_trust_owner;
SELECT rename_shard(20, 'trust_moved');
ALTER SCHEMA trust_moved OWNER TO CURRENT_USER;
SELECT rename_shard(20, 'trust_moved');
ALTER SCHEMA trust_moved OWNER TO shard_trust_owner;
SELECT rename_shard(20, 'trust_elsewhere');
ALTER SCHEMA trust_moved OWNER TO CURRENT_USER;
SELECT rename_shard(20, 'trust_evil');

-- The extension's schema. A role that may create objects in it could add an overload the
-- superuser's call resolves to (create_shard(int4, text) wins over ours for create_shard(5, 'x')):
-- the superuser-only functions refuse, naming the role.
GRANT CREATE ON SCHEMA public TO shard_trust_owner;
SELECT create_shard(23);
REVOKE CREATE ON SCHEMA public FROM shard_trust_owner;
-- public belongs to pg_database_owner: with a database owner that is not a superuser, refused too.
SELECT format('ALTER DATABASE %I OWNER TO shard_trust_owner', current_database()) \gexec
SELECT create_shard(23);
SELECT drop_shard(20);
SELECT rename_shard(20, 'trust_other');
-- That owner can rename public and put a schema of its own under its name, with a shard_registry
-- view whose column and INSTEAD OF trigger make it a superuser when a superuser reads or writes
-- it: before, a superuser's create_shard(), rename_shard() or shard_id_time(bigint) did. Now the
-- superuser-only functions see their schema is no longer named public and refuse, and
-- shard_id_time(bigint) reads the real registry (found by OID, like next_id()).
SET ROLE shard_trust_owner;
ALTER SCHEMA public RENAME TO trust_hidden;
CREATE SCHEMA public;
CREATE FUNCTION public.trust_grab() RETURNS timestamptz LANGUAGE plpgsql
    AS $$ BEGIN ALTER ROLE shard_trust_owner SUPERUSER; RETURN now(); END $$;
CREATE FUNCTION public.shard_id_shard(bigint) RETURNS int4 LANGUAGE sql AS 'SELECT 20';
CREATE FUNCTION public.shard_id_time(bigint, timestamptz) RETURNS timestamptz LANGUAGE sql AS 'SELECT $2';
CREATE VIEW public.shard_registry AS
    SELECT 20 AS shard, 'trust_evil'::name AS schema_name, public.trust_grab() AS epoch, now() AS created_at;
CREATE FUNCTION public.trust_grab_row() RETURNS trigger LANGUAGE plpgsql
    AS $$ BEGIN PERFORM public.trust_grab(); RETURN NEW; END $$;
CREATE TRIGGER trust_grab INSTEAD OF INSERT OR UPDATE OR DELETE ON public.shard_registry
    FOR EACH ROW EXECUTE FUNCTION public.trust_grab_row();
RESET ROLE;
SELECT format('ALTER DATABASE %I OWNER TO CURRENT_USER', current_database()) \gexec
SELECT trust_hidden.create_shard(23);
SELECT trust_hidden.drop_shard(20);
SELECT trust_hidden.rename_shard(20, 'trust_other');
SELECT trust_hidden.shard_id_time(20 << 10) = '2024-01-01 00:00:00+00' AS reads_the_real_registry;
SELECT rolsuper AS became_superuser FROM pg_roles WHERE rolname = 'shard_trust_owner';
DROP SCHEMA public CASCADE;
ALTER SCHEMA trust_hidden RENAME TO public;
SELECT count(*) AS shards FROM shard_registry WHERE shard BETWEEN 20 AND 23;

-- Epochs: 2^40 ms (about 34.8 years) after its epoch, a shard has no ID left; such an epoch is
-- refused (before, accepted, and every next_id() failed). Just inside the limit, IDs are issued.
SELECT create_shard(24, 'trust_old', '1980-01-01 00:00:00+00');
\set VERBOSITY sqlstate
SELECT create_shard(24, 'trust_old', now() - interval '1099511627.776 seconds');
\set VERBOSITY default
SELECT create_shard(24, 'trust_edge', now() - interval '1099511600 seconds');
SELECT shard_id_shard(id) AS shard, id > 0 AS positive, id >> 23 > (1::bigint << 40) - 60000 AS near_the_end
FROM (SELECT trust_edge.next_id() AS id) s;

-- Schema names: empty (before, a raw syntax error) and reserved ones.
SELECT create_shard(25, '');
SELECT create_shard(25, 'pg_mine');
SELECT create_shard(25, 'pg_catalog');
SELECT rename_shard(20, '');
SELECT rename_shard(20, 'pg_mine');
SELECT count(*) AS shard_25 FROM shard_registry WHERE shard = 25;

-- Clean up.
SELECT drop_shard(20, true), drop_shard(21), drop_shard(22), drop_shard(24);
DROP SCHEMA trust_evil, trust_dbo, trust_sql, trust_immutable, trust_c, trust_edge CASCADE;
DROP ROLE shard_trust_owner;
