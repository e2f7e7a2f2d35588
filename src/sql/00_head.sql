-- id_gen install script. Generated from src/sql/*.sql by the Makefile; edit those files.
-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION id_gen" to load this file. \quit

-- The install guard: before anything is created, one error naming every object of the schema that
-- the script would clash with, instead of PostgreSQL's error on the first one (a `uuidv7()`
-- polyfill fails as "function uuidv7() is not a member of extension", 55000, a type `ulid` or a
-- table `idempotency_keys` as "already exists"). The list of what the script creates is made by
-- the Makefile from the script it builds (scripts/install_objects.pl), and replaces the line
-- marked `install_objects` below; unreplaced, the list is empty and the guard passes.
-- The SQLSTATE is the one PostgreSQL gives the first clash in the script's order: 42723 for a
-- function, aggregate or operator, 42710 for a type, operator class or family, 42P07 for a table
-- or index.
DO $install_guard$
DECLARE
    objects text[] := '{}'::text[]; -- install_objects
    nsp oid := pg_catalog.to_regnamespace('@extschema@');
    nsp_name text := (SELECT n.nspname FROM pg_catalog.pg_namespace n WHERE n.oid = nsp);
    item text;
    kind text;
    ident text;
    found_class regclass;
    found_oid oid;
    args oid[];
    arg text;
    seen text[] := '{}';
    taken text[] := '{}';
    owner text;
    code text;
BEGIN
    FOREACH item IN ARRAY objects LOOP
        kind := pg_catalog.split_part(item, ' ', 1);
        ident := pg_catalog.substr(item, pg_catalog.length(kind) + 2);
        found_oid := NULL;
        IF kind IN ('function', 'operator') THEN
            -- The input types as the script names them, resolved as its statements resolve them
            -- (CREATE EXTENSION's search_path): one that does not exist yet cannot clash.
            args := '{}';
            FOREACH arg IN ARRAY pg_catalog.string_to_array(
                    pg_catalog.rtrim(pg_catalog.substr(ident, pg_catalog.strpos(ident, '(') + 1), ')'), ',') LOOP
                args := args || CASE WHEN arg = 'NONE' THEN 0::oid ELSE pg_catalog.to_regtype(arg)::oid END;
            END LOOP;
            CONTINUE WHEN pg_catalog.array_position(args, NULL) IS NOT NULL;
            IF kind = 'function' THEN
                found_class := 'pg_catalog.pg_proc';
                SELECT p.oid INTO found_oid FROM pg_catalog.pg_proc p
                WHERE p.pronamespace = nsp
                  AND p.proname = pg_catalog.split_part(ident, '(', 1)
                  AND p.proargtypes = pg_catalog.array_to_string(args, ' ')::pg_catalog.oidvector;
            ELSE
                found_class := 'pg_catalog.pg_operator';
                SELECT o.oid INTO found_oid FROM pg_catalog.pg_operator o
                WHERE o.oprnamespace = nsp
                  AND o.oprname = pg_catalog.split_part(ident, '(', 1)
                  AND o.oprleft = args[1] AND o.oprright = args[2];
            END IF;
        ELSIF kind = 'type' THEN
            -- A table's or a composite type's row type is named as the relation.
            SELECT CASE WHEN t.typrelid <> 0 THEN t.typrelid ELSE t.oid END,
                   CASE WHEN t.typrelid <> 0 THEN 'pg_catalog.pg_class' ELSE 'pg_catalog.pg_type' END
              INTO found_oid, found_class
            FROM pg_catalog.pg_type t WHERE t.typnamespace = nsp AND t.typname = ident;
        ELSIF kind = 'relation' THEN
            found_class := 'pg_catalog.pg_class';
            SELECT c.oid INTO found_oid FROM pg_catalog.pg_class c
            WHERE c.relnamespace = nsp AND c.relname = ident;
        ELSIF kind = 'opclass' THEN
            found_class := 'pg_catalog.pg_opclass';
            SELECT c.oid INTO found_oid FROM pg_catalog.pg_opclass c JOIN pg_catalog.pg_am a ON a.oid = c.opcmethod
            WHERE c.opcnamespace = nsp AND c.opcname = pg_catalog.split_part(ident, ' ', 1)
              AND a.amname = pg_catalog.split_part(ident, ' ', 2);
        ELSIF kind = 'opfamily' THEN
            found_class := 'pg_catalog.pg_opfamily';
            SELECT f.oid INTO found_oid FROM pg_catalog.pg_opfamily f JOIN pg_catalog.pg_am a ON a.oid = f.opfmethod
            WHERE f.opfnamespace = nsp AND f.opfname = pg_catalog.split_part(ident, ' ', 1)
              AND a.amname = pg_catalog.split_part(ident, ' ', 2);
        ELSE
            RAISE EXCEPTION 'id_gen''s install guard: unknown kind of object in "%"', item
                USING ERRCODE = '39000';
        END IF;
        -- A table is listed as a relation and as a row type: one object, named once.
        CONTINUE WHEN found_oid IS NULL OR (found_class::oid || '/' || found_oid) = ANY (seen);
        seen := seen || (found_class::oid || '/' || found_oid);
        SELECT e.extname INTO owner FROM pg_catalog.pg_depend d
            JOIN pg_catalog.pg_extension e ON e.oid = d.refobjid
        WHERE d.classid = found_class AND d.objid = found_oid AND d.deptype = 'e'
          AND d.refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass;
        -- Named as in the schema (PostgreSQL 18 qualifies a uuidv7() that its own shadows).
        taken := taken || (pg_catalog.replace(pg_catalog.pg_describe_object(found_class, found_oid, 0),
                                              pg_catalog.quote_ident(nsp_name) || '.', '')
                           || CASE WHEN owner IS NULL THEN '' ELSE pg_catalog.format(' (extension %s)', owner) END);
        owner := NULL;
        code := COALESCE(code, CASE kind WHEN 'function' THEN '42723' WHEN 'operator' THEN '42723'
                                         WHEN 'relation' THEN '42P07' ELSE '42710' END);
    END LOOP;
    IF pg_catalog.cardinality(taken) > 0 THEN
        RAISE EXCEPTION 'id_gen cannot be installed in schema "%": % of its objects'' names are taken there',
                nsp_name, pg_catalog.cardinality(taken)
            USING ERRCODE = code,
                  DETAIL = pg_catalog.format('Taken in schema "%s": %s.',
                                             nsp_name,
                                             pg_catalog.array_to_string(taken, ', ')),
                  HINT = 'Install id_gen in a schema of its own, and add that schema to search_path where its functions and operators are used unqualified: CREATE SCHEMA id_gen; CREATE EXTENSION id_gen SCHEMA id_gen;';
    END IF;
END
$install_guard$;
