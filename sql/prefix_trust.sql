-- The prefixed-ID functions trust nothing a lesser role can change, tried with a real second
-- role. public belongs to pg_database_owner (PostgreSQL 15): when the database's owner is not a
-- superuser, that owner can rename public and put a schema of its own under the name, with a
-- prefix_registry and functions named like the extension's. Before, prefix_register(),
-- prefix_unregister(), prefix_owner() and gen_prefixed() named their registry and helpers as
-- public.<name>, so a superuser calling them (or inserting a row whose column default calls
-- gen_prefixed()) ran that owner's code, which made the owner a superuser. Now they reach the
-- registry and their helpers by OID and never see the look-alikes.
SET client_min_messages = warning;
\set VERBOSITY default
\set SHOW_CONTEXT never
CREATE ROLE prefix_trust_owner;
SELECT prefix_register('ptrust', 'trust_rows');
-- A table whose column default calls gen_prefixed() (bound to the real function by OID).
CREATE TABLE ptrust_rows (id text PRIMARY KEY DEFAULT gen_prefixed('ptrust'), n int);
SELECT format('ALTER DATABASE %I OWNER TO prefix_trust_owner', current_database()) \gexec

SET ROLE prefix_trust_owner;
ALTER SCHEMA public RENAME TO ptrust_hidden;
CREATE SCHEMA public;
CREATE FUNCTION public.ptrust_grab() RETURNS boolean LANGUAGE plpgsql
    AS $$ BEGIN ALTER ROLE prefix_trust_owner SUPERUSER; RETURN true; END $$;
CREATE FUNCTION public.ptrust_grab_row() RETURNS trigger LANGUAGE plpgsql
    AS $$ BEGIN PERFORM public.ptrust_grab(); RETURN NULL; END $$;
-- Helpers of gen_prefixed() under their names.
CREATE FUNCTION public.gen_uuidv7() RETURNS uuid LANGUAGE sql
    AS $$ SELECT '00000000-0000-7000-8000-000000000000'::uuid WHERE public.ptrust_grab() $$;
CREATE FUNCTION public.prefixed_format(text, uuid) RETURNS text LANGUAGE sql
    AS $$ SELECT 'ptrust_planted' WHERE public.ptrust_grab() $$;
-- A registry the writers would write to: a table (with the primary key's name, for ON CONFLICT)
-- whose statement triggers run as whoever writes.
CREATE TABLE public.prefix_registry (prefix text CONSTRAINT prefix_registry_pkey PRIMARY KEY, owner text,
                                     registered_at timestamptz DEFAULT now());
CREATE TRIGGER ptrust_grab BEFORE INSERT OR DELETE ON public.prefix_registry
    FOR EACH STATEMENT EXECUTE FUNCTION public.ptrust_grab_row();
RESET ROLE;
SELECT format('ALTER DATABASE %I OWNER TO CURRENT_USER', current_database()) \gexec

-- The writers, called by a superuser: they write to the real registry.
SELECT ptrust_hidden.prefix_register('ptrustb', 'trust_b');
SELECT rolsuper AS became_superuser FROM pg_roles WHERE rolname = 'prefix_trust_owner';
ALTER ROLE prefix_trust_owner NOSUPERUSER;
SELECT prefix, owner FROM ptrust_hidden.prefix_registry ORDER BY prefix;
-- Taken: the error names the owner in the real registry.
SELECT ptrust_hidden.prefix_register('ptrustb', 'other');
SELECT rolsuper AS became_superuser FROM pg_roles WHERE rolname = 'prefix_trust_owner';
ALTER ROLE prefix_trust_owner NOSUPERUSER;
SELECT ptrust_hidden.prefix_unregister('ptrustb') AS released;
SELECT rolsuper AS became_superuser FROM pg_roles WHERE rolname = 'prefix_trust_owner';
ALTER ROLE prefix_trust_owner NOSUPERUSER;
SELECT prefix, owner FROM ptrust_hidden.prefix_registry ORDER BY prefix;
SELECT count(*) AS planted_rows FROM public.prefix_registry;

-- The readers: a registry whose rows make the reader's role a superuser.
SET ROLE prefix_trust_owner;
DROP TABLE public.prefix_registry;
CREATE VIEW public.prefix_registry AS
    SELECT p AS prefix, 'planted'::text AS owner, now() AS registered_at
    FROM unnest(ARRAY['ptrust', 'ptrustb']) p WHERE public.ptrust_grab();
RESET ROLE;
SELECT ptrust_hidden.prefix_owner('ptrust') AS owner, ptrust_hidden.prefix_owner('ptrustb') IS NULL AS unregistered;
SELECT rolsuper AS became_superuser FROM pg_roles WHERE rolname = 'prefix_trust_owner';
ALTER ROLE prefix_trust_owner NOSUPERUSER;
INSERT INTO ptrust_hidden.ptrust_rows (n) VALUES (0);
SELECT rolsuper AS became_superuser FROM pg_roles WHERE rolname = 'prefix_trust_owner';
ALTER ROLE prefix_trust_owner NOSUPERUSER;
INSERT INTO ptrust_hidden.ptrust_rows (n) SELECT generate_series(1, 99);
SELECT count(DISTINCT id) AS ids, bool_and(id ~ '^ptrust_[0-9a-z]{25}$') AS shape,
       bool_and(ptrust_hidden.uuid_version(ptrust_hidden.prefixed_parse('ptrust', id)) = 7) AS uuidv7
FROM ptrust_hidden.ptrust_rows;
SELECT rolsuper AS became_superuser FROM pg_roles WHERE rolname = 'prefix_trust_owner';
ALTER ROLE prefix_trust_owner NOSUPERUSER;
-- An unregistered prefix is still refused (the view lists ptrustb: not read).
SELECT ptrust_hidden.gen_prefixed('ptrustb');
SELECT rolsuper AS became_superuser FROM pg_roles WHERE rolname = 'prefix_trust_owner';

-- Clean up.
ALTER ROLE prefix_trust_owner NOSUPERUSER;
DROP SCHEMA public CASCADE;
ALTER SCHEMA ptrust_hidden RENAME TO public;
DROP TABLE ptrust_rows;
SELECT prefix_unregister('ptrust') AS released;
SELECT count(*) AS remaining FROM prefix_registry;
DROP ROLE prefix_trust_owner;
