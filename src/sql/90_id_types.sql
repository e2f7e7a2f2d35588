-------------------------------------------------------------------------------
-- One ID type per entity: create_id_type('account_id', kind => 'ulid', prefix => 'acct') makes a
-- base type of its own, so that comparing an account's ID with an order's fails when the query is
-- planned (42883) instead of returning nothing. Written with CREATE OR REPLACE, so an upgrade
-- script can include this file.
--
-- A created type and its objects are not members of the extension (they are made at run time, as
-- a shard's next_id() is): pg_dump dumps them as ordinary objects, in pre-data. Their functions
-- are the extension's C entry points (id_type_in/id_type_out for text; the kind's own for binary
-- I/O, comparison, hashing, generation and decoding) or built-in ones: no code per type. The text
-- functions learn the type's kind, format and prefix from the type's TYPMOD_IN function, which
-- holds them as a constant and comes with the type in pre-data (see src/pg/id_type.cpp), so a
-- restore that loads data before the prefix registry's rows reads every value.
--
-- create_id_type() and drop_id_type() are superuser only and run as a superuser. They are
-- BEGIN ATOMIC SQL functions: the functions they call (the check, then the work) are bound by OID
-- when the extension is installed, not looked up by name when they run, so the checks below are
-- written once and cannot be replaced by the owner of a renamed extension schema.
-------------------------------------------------------------------------------

-- The body of every <type>_typmod_in(): refuses a type modifier.
CREATE OR REPLACE FUNCTION id_type_typmod_in(cstring[], spec text) RETURNS int4
    AS 'MODULE_PATHNAME', 'id_type_typmod_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION id_type_typmod_in(cstring[], text) IS 'internal to types made by create_id_type(): they take no type modifier';

-- What a type made by create_id_type() is, as its text functions read it; no row for other types.
CREATE OR REPLACE FUNCTION id_type_describe(id_type regtype, OUT kind text, OUT format text, OUT prefix text)
    RETURNS record
    AS 'MODULE_PATHNAME', 'id_type_describe' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION id_type_describe(regtype) IS 'kind, text format and prefix of a type made by create_id_type(); NULL for other types';

-- The checks of a superuser-only path that writes into schema `target`: the caller is a superuser;
-- the extension's schema still has its name and only superusers can change it; `target` exists and
-- is owned by a superuser (its owner could otherwise replace gen_<type>() with a function of their
-- own, which column defaults would run as whoever inserts a row, superusers included).
CREATE OR REPLACE FUNCTION id_type_admin_check(caller text, target name) RETURNS void
    LANGUAGE plpgsql STABLE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    ext oid := (SELECT e.extnamespace FROM pg_catalog.pg_extension e WHERE e.extname = 'id_gen');
    owner_desc text;
    trusted boolean;
BEGIN
    IF NOT (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN
        RAISE EXCEPTION 'permission denied for %', caller
            USING ERRCODE = '42501', HINT = pg_catalog.format('%s creates or drops a base type and C-language functions: only a superuser can call it.', caller);
    END IF;
    -- The extension's schema: renamed, or changeable by a role that is not a superuser (the
    -- check the shard functions make, 61_shard_admin.sql), reached by the schema's OID.
    EXECUTE pg_catalog.format('SELECT %I.extension_schema_check(false)',
                              (SELECT n.nspname FROM pg_catalog.pg_namespace n WHERE n.oid = ext));
    -- pg_database_owner (the owner of public since PostgreSQL 15) stands for the database's owner.
    SELECT o.rolsuper,
           CASE WHEN pg_catalog.pg_get_userbyid(n.nspowner) = 'pg_database_owner'
                THEN pg_catalog.format('pg_database_owner (the owner of this database, role "%s")', o.rolname)
                ELSE pg_catalog.format('role "%s"', o.rolname) END
      INTO trusted, owner_desc
      FROM pg_catalog.pg_namespace n
      JOIN pg_catalog.pg_database d ON d.datname = pg_catalog.current_database()
      JOIN pg_catalog.pg_roles o
        ON o.oid = CASE WHEN pg_catalog.pg_get_userbyid(n.nspowner) = 'pg_database_owner' THEN d.datdba ELSE n.nspowner END
     WHERE n.nspname = target;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'schema "%" does not exist', target USING ERRCODE = '3F000';
    END IF;
    IF NOT trusted THEN
        RAISE EXCEPTION 'schema "%" is owned by %, which is not a superuser', target, owner_desc
            USING ERRCODE = '42501',
                  DETAIL = 'The owner of an ID type''s schema could replace its generator with a function of their own, which column defaults would run as whoever inserts a row, superusers included.',
                  HINT = pg_catalog.format('Transfer the schema to a superuser (ALTER SCHEMA %I OWNER TO <superuser>) or choose another schema.', target);
    END IF;
END
$$;
COMMENT ON FUNCTION id_type_admin_check(text, name) IS 'internal to create_id_type() and drop_id_type(): the superuser and schema-ownership checks';
REVOKE ALL ON FUNCTION id_type_admin_check(text, name) FROM PUBLIC;

-- The work of create_id_type(), after id_type_admin_check().
-- The AS ... LANGUAGE clause of a per-entity type's comparison or hash function: a built-in
-- (LANGUAGE internal, the 128-bit and snowflake kinds) or one of the extension's C functions (ksuid).
CREATE OR REPLACE FUNCTION id_type_impl(in_library boolean, symbol text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    RETURN CASE WHEN in_library THEN pg_catalog.format('AS %L, %L LANGUAGE C', 'MODULE_PATHNAME', symbol)
                ELSE pg_catalog.format('AS %L LANGUAGE internal', symbol) END;
REVOKE ALL ON FUNCTION id_type_impl(boolean, text) FROM PUBLIC;

CREATE OR REPLACE FUNCTION id_type_create(type_name name, kind text, prefix text, format text, schema_name name)
    RETURNS regtype
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    SET client_min_messages = warning  -- not the notices about the shell type its I/O functions name
    SET citus.enable_ddl_propagation = off  -- with Citus, every node is sent its own call (id_type_cluster_created())
    AS $$
DECLARE
    sch name := id_type_create.schema_name;
    t text;            -- the type, schema-qualified and quoted
    n name := id_type_create.type_name;
    base text;         -- the kind's type
    cmp text; lt text; le text; eq text; ne text; ge text; gt text; sortsup text; hash text; hashx text;
    recv text; send text; smaller text; larger text; gen text; gen_parallel text;
    c_impl boolean := false;  -- comparison and hashing in the extension's C library, not built-ins
    fname text;
    spec text;
    clash text;
BEGIN
    -- Not among the system's objects (where the built-ins its operator classes name live).
    IF sch IN ('pg_catalog', 'information_schema') OR sch ~ '^pg_(toast|temp)' THEN
        RAISE EXCEPTION 'cannot create an ID type in system schema "%"', sch USING ERRCODE = '42939', HINT = 'Choose another schema.';
    END IF;
    IF n IS NULL OR n = '' THEN
        RAISE EXCEPTION 'an ID type''s name must not be empty' USING ERRCODE = '42602';
    END IF;
    IF pg_catalog.length(n) > 49 THEN
        RAISE EXCEPTION 'ID type name "%" is too long', n
            USING ERRCODE = '42622', DETAIL = 'Its functions are named <type>_hash_extended and so on: a name of at most 49 characters leaves room for them.';
    END IF;
    IF id_type_create.kind IS NULL OR id_type_create.kind NOT IN ('ulid', 'uuidv7', 'snowflake', 'ksuid', 'xid') THEN
        RAISE EXCEPTION 'invalid kind "%" for an ID type', id_type_create.kind
            USING ERRCODE = '22023', HINT = 'The kind is ''ulid'', ''uuidv7'', ''snowflake'', ''ksuid'' or ''xid''.';
    END IF;
    IF id_type_create.format IS NULL OR id_type_create.format NOT IN ('prefixed', 'typeid') THEN
        RAISE EXCEPTION 'invalid text format "%" for an ID type', id_type_create.format
            USING ERRCODE = '22023', HINT = 'The format is ''prefixed'' (prefix, ''_'', base36) or ''typeid'' (TypeID 0.3, 128-bit kinds only).';
    END IF;
    IF id_type_create.format = 'typeid' AND id_type_create.kind IN ('snowflake', 'ksuid', 'xid') THEN
        RAISE EXCEPTION 'the typeid format needs a 128-bit kind' USING ERRCODE = '22023',
            HINT = 'TypeID encodes a UUID: use kind ''ulid'' or ''uuidv7'', or format ''prefixed''.';
    END IF;
    IF id_type_create.prefix IS NULL OR id_type_create.prefix !~ '^[a-z][a-z0-9]{0,15}$' THEN
        RAISE EXCEPTION 'invalid prefix "%"', id_type_create.prefix
            USING ERRCODE = '22023', HINT = 'A prefix is 1 to 16 lower-case ASCII letters or digits, starting with a letter.';
    END IF;
    IF id_type_create.format = 'typeid' AND id_type_create.prefix !~ '^[a-z]+$' THEN
        RAISE EXCEPTION 'invalid prefix "%" for the typeid format', id_type_create.prefix
            USING ERRCODE = '22023', HINT = 'TypeID prefixes have no digits, and the registry''s have no underscores: 1 to 16 lower-case ASCII letters.';
    END IF;
    -- Names: the type, its array type's usual name and every function and operator class it gets.
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_type y JOIN pg_catalog.pg_namespace s ON s.oid = y.typnamespace
                WHERE s.nspname = sch AND y.typname = n) THEN
        RAISE EXCEPTION 'type %.% already exists', pg_catalog.quote_ident(sch), pg_catalog.quote_ident(n) USING ERRCODE = '42710';
    END IF;
    clash := (SELECT pg_catalog.string_agg(DISTINCT pg_catalog.format('%I.%I', sch, p.proname), ', ')
                FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace s ON s.oid = p.pronamespace
               WHERE s.nspname = sch
                 AND p.proname IN (n || '_in', n || '_out', n || '_recv', n || '_send', n || '_typmod_in',
                                   n || '_eq', n || '_ne', n || '_lt', n || '_le', n || '_gt', n || '_ge',
                                   n || '_cmp', n || '_sortsupport', n || '_hash', n || '_hash_extended',
                                   n || '_smaller', n || '_larger', 'gen_' || n, n || '_time',
                                   n || '_lower', n || '_upper'));
    IF clash IS NOT NULL THEN
        RAISE EXCEPTION 'cannot create ID type %.%: functions named like its own already exist: %',
                        pg_catalog.quote_ident(sch), pg_catalog.quote_ident(n), clash
            USING ERRCODE = '42723', HINT = 'Choose another type name or schema.';
    END IF;
    -- The registry keeps prefixes unique (42710 naming the owner when taken).
    PERFORM @extschema@.prefix_register(id_type_create.prefix, pg_catalog.format('ID type %I.%I', sch, n));

    t := pg_catalog.format('%I.%I', sch, n);
    IF id_type_create.kind = 'snowflake' THEN
        base := '@extschema@.snowflake';
        cmp := 'btint8cmp'; sortsup := 'btint8sortsupport'; hash := 'hashint8'; hashx := 'hashint8extended';
        eq := 'int8eq'; ne := 'int8ne'; lt := 'int8lt'; le := 'int8le'; gt := 'int8gt'; ge := 'int8ge';
        recv := 'LANGUAGE C AS ''MODULE_PATHNAME'', ''snowflake_recv''';
        send := 'LANGUAGE internal AS ''int8send''';
        smaller := 'LANGUAGE internal AS ''int8smaller'''; larger := 'LANGUAGE internal AS ''int8larger''';
        gen := 'gen_snowflake'; gen_parallel := 'UNSAFE';
    ELSIF id_type_create.kind IN ('ksuid', 'xid') THEN
        -- The SQL type and the C functions' prefix: ksuid, or rsxid for the xid kind.
        base := CASE id_type_create.kind WHEN 'ksuid' THEN 'ksuid' ELSE 'rsxid' END;
        c_impl := true;
        cmp := base || '_cmp'; sortsup := base || '_sortsupport'; hash := base || '_hash'; hashx := base || '_hash_extended';
        eq := base || '_eq'; ne := base || '_ne'; lt := base || '_lt'; le := base || '_le'; gt := base || '_gt'; ge := base || '_ge';
        recv := pg_catalog.format('LANGUAGE C AS %L, %L', 'MODULE_PATHNAME', base || '_recv');
        send := pg_catalog.format('LANGUAGE C AS %L, %L', 'MODULE_PATHNAME', base || '_send');
        smaller := pg_catalog.format('LANGUAGE C AS %L, %L', 'MODULE_PATHNAME', base || '_smaller');
        larger := pg_catalog.format('LANGUAGE C AS %L, %L', 'MODULE_PATHNAME', base || '_larger');
        gen := 'gen_' || id_type_create.kind; gen_parallel := 'RESTRICTED';
        base := '@extschema@.' || base;
    ELSE
        base := CASE id_type_create.kind WHEN 'ulid' THEN '@extschema@.ulid' ELSE 'pg_catalog.uuid' END;
        cmp := 'uuid_cmp'; sortsup := 'uuid_sortsupport'; hash := 'uuid_hash'; hashx := 'uuid_hash_extended';
        eq := 'uuid_eq'; ne := 'uuid_ne'; lt := 'uuid_lt'; le := 'uuid_le'; gt := 'uuid_gt'; ge := 'uuid_ge';
        recv := 'LANGUAGE internal AS ''uuid_recv''';
        send := 'LANGUAGE internal AS ''uuid_send''';
        smaller := 'LANGUAGE C AS ''MODULE_PATHNAME'', ''ulid_smaller'''; larger := 'LANGUAGE C AS ''MODULE_PATHNAME'', ''ulid_larger''';
        gen := CASE id_type_create.kind WHEN 'ulid' THEN 'gen_ulid' ELSE 'gen_uuidv7' END; gen_parallel := 'RESTRICTED';
    END IF;
    spec := pg_catalog.format('kind=%s format=%s prefix=%s', id_type_create.kind, id_type_create.format, id_type_create.prefix);

    EXECUTE pg_catalog.format('CREATE TYPE %s', t);
    EXECUTE pg_catalog.format('CREATE FUNCTION %I.%I(cstring, oid, int4) RETURNS %s AS %L, %L LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE',
                              sch, n || '_in', t, 'MODULE_PATHNAME', 'id_type_in');
    EXECUTE pg_catalog.format('CREATE FUNCTION %I.%I(%s) RETURNS cstring AS %L, %L LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE',
                              sch, n || '_out', t, 'MODULE_PATHNAME', 'id_type_out');
    EXECUTE pg_catalog.format('CREATE FUNCTION %I.%I(internal) RETURNS %s %s IMMUTABLE STRICT PARALLEL SAFE', sch, n || '_recv', t, recv);
    EXECUTE pg_catalog.format('CREATE FUNCTION %I.%I(%s) RETURNS bytea %s IMMUTABLE STRICT PARALLEL SAFE', sch, n || '_send', t, send);
    -- The type's spec, read by id_type_in/id_type_out through pg_type.typmodin (src/pg/id_type.cpp).
    EXECUTE pg_catalog.format('CREATE FUNCTION %I.%I(cstring[]) RETURNS int4 LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS %L',
                              sch, n || '_typmod_in',
                              pg_catalog.format('SELECT @extschema@.id_type_typmod_in($1, %L)', spec));
    EXECUTE pg_catalog.format('CREATE TYPE %s (INPUT = %I.%I, OUTPUT = %I.%I, RECEIVE = %I.%I, SEND = %I.%I, TYPMOD_IN = %I.%I, LIKE = %s, CATEGORY = %L)',
                              t, sch, n || '_in', sch, n || '_out', sch, n || '_recv', sch, n || '_send', sch, n || '_typmod_in', base, 'U');
    EXECUTE pg_catalog.format('COMMENT ON TYPE %s IS %L', t,
                              pg_catalog.format('ID of one entity (id_gen create_id_type): %s, text %s, prefix %s', id_type_create.kind, id_type_create.format, id_type_create.prefix));

    -- Comparison and hashing: the kind's built-in functions on the same bytes.
    FOREACH fname IN ARRAY ARRAY['eq', 'ne', 'lt', 'le', 'gt', 'ge', 'cmp'] LOOP
        EXECUTE pg_catalog.format('CREATE FUNCTION %I.%I(%s, %s) RETURNS %s %s IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF',
                                  sch, n || '_' || fname, t, t, CASE fname WHEN 'cmp' THEN 'int4' ELSE 'bool' END,
                                  @extschema@.id_type_impl(c_impl,
                                      CASE fname WHEN 'eq' THEN eq WHEN 'ne' THEN ne WHEN 'lt' THEN lt WHEN 'le' THEN le
                                                 WHEN 'gt' THEN gt WHEN 'ge' THEN ge ELSE cmp END));
    END LOOP;
    EXECUTE pg_catalog.format('CREATE FUNCTION %I.%I(internal) RETURNS void %s IMMUTABLE STRICT PARALLEL SAFE', sch, n || '_sortsupport', @extschema@.id_type_impl(c_impl, sortsup));
    EXECUTE pg_catalog.format('CREATE FUNCTION %I.%I(%s) RETURNS int4 %s IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF', sch, n || '_hash', t, @extschema@.id_type_impl(c_impl, hash));
    EXECUTE pg_catalog.format('CREATE FUNCTION %I.%I(%s, int8) RETURNS int8 %s IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF', sch, n || '_hash_extended', t, @extschema@.id_type_impl(c_impl, hashx));

    EXECUTE pg_catalog.format('CREATE OPERATOR %I.= (LEFTARG = %s, RIGHTARG = %s, FUNCTION = %I.%I, COMMUTATOR = OPERATOR(%I.=), NEGATOR = OPERATOR(%I.<>), RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES)', sch, t, t, sch, n || '_eq', sch, sch);
    EXECUTE pg_catalog.format('CREATE OPERATOR %I.<> (LEFTARG = %s, RIGHTARG = %s, FUNCTION = %I.%I, COMMUTATOR = OPERATOR(%I.<>), NEGATOR = OPERATOR(%I.=), RESTRICT = neqsel, JOIN = neqjoinsel)', sch, t, t, sch, n || '_ne', sch, sch);
    EXECUTE pg_catalog.format('CREATE OPERATOR %I.< (LEFTARG = %s, RIGHTARG = %s, FUNCTION = %I.%I, COMMUTATOR = OPERATOR(%I.>), NEGATOR = OPERATOR(%I.>=), RESTRICT = scalarltsel, JOIN = scalarltjoinsel)', sch, t, t, sch, n || '_lt', sch, sch);
    EXECUTE pg_catalog.format('CREATE OPERATOR %I.<= (LEFTARG = %s, RIGHTARG = %s, FUNCTION = %I.%I, COMMUTATOR = OPERATOR(%I.>=), NEGATOR = OPERATOR(%I.>), RESTRICT = scalarlesel, JOIN = scalarlejoinsel)', sch, t, t, sch, n || '_le', sch, sch);
    EXECUTE pg_catalog.format('CREATE OPERATOR %I.> (LEFTARG = %s, RIGHTARG = %s, FUNCTION = %I.%I, COMMUTATOR = OPERATOR(%I.<), NEGATOR = OPERATOR(%I.<=), RESTRICT = scalargtsel, JOIN = scalargtjoinsel)', sch, t, t, sch, n || '_gt', sch, sch);
    EXECUTE pg_catalog.format('CREATE OPERATOR %I.>= (LEFTARG = %s, RIGHTARG = %s, FUNCTION = %I.%I, COMMUTATOR = OPERATOR(%I.<=), NEGATOR = OPERATOR(%I.<), RESTRICT = scalargesel, JOIN = scalargejoinsel)', sch, t, t, sch, n || '_ge', sch, sch);

    EXECUTE pg_catalog.format('CREATE OPERATOR CLASS %I.%I DEFAULT FOR TYPE %s USING btree AS OPERATOR 1 %I.<, OPERATOR 2 %I.<=, OPERATOR 3 %I.=, OPERATOR 4 %I.>=, OPERATOR 5 %I.>, FUNCTION 1 %I.%I(%s, %s), FUNCTION 2 %I.%I(internal), FUNCTION 4 pg_catalog.btequalimage(oid)',
                              sch, n || '_ops', t, sch, sch, sch, sch, sch, sch, n || '_cmp', t, t, sch, n || '_sortsupport');
    EXECUTE pg_catalog.format('CREATE OPERATOR CLASS %I.%I DEFAULT FOR TYPE %s USING hash AS OPERATOR 1 %I.=, FUNCTION 1 %I.%I(%s), FUNCTION 2 %I.%I(%s, int8)',
                              sch, n || '_ops', t, sch, sch, n || '_hash', t, sch, n || '_hash_extended', t);
    EXECUTE pg_catalog.format('CREATE OPERATOR CLASS %I.%I DEFAULT FOR TYPE %s USING brin AS OPERATOR 1 %I.<, OPERATOR 2 %I.<=, OPERATOR 3 %I.=, OPERATOR 4 %I.>=, OPERATOR 5 %I.>, '
                              'FUNCTION 1 pg_catalog.brin_minmax_opcinfo(internal), FUNCTION 2 pg_catalog.brin_minmax_add_value(internal, internal, internal, internal), '
                              'FUNCTION 3 pg_catalog.brin_minmax_consistent(internal, internal, internal), FUNCTION 4 pg_catalog.brin_minmax_union(internal, internal, internal)',
                              sch, n || '_minmax_ops', t, sch, sch, sch, sch, sch);

    -- min() and max(), answered from a btree index through their sort operators.
    EXECUTE pg_catalog.format('CREATE FUNCTION %I.%I(%s, %s) RETURNS %s %s IMMUTABLE STRICT PARALLEL SAFE', sch, n || '_smaller', t, t, t, smaller);
    EXECUTE pg_catalog.format('CREATE FUNCTION %I.%I(%s, %s) RETURNS %s %s IMMUTABLE STRICT PARALLEL SAFE', sch, n || '_larger', t, t, t, larger);
    EXECUTE pg_catalog.format('CREATE AGGREGATE %I.min(%s) (SFUNC = %I.%I, STYPE = %s, COMBINEFUNC = %I.%I, SORTOP = OPERATOR(%I.<), PARALLEL = SAFE)', sch, t, sch, n || '_smaller', t, sch, n || '_smaller', sch);
    EXECUTE pg_catalog.format('CREATE AGGREGATE %I.max(%s) (SFUNC = %I.%I, STYPE = %s, COMBINEFUNC = %I.%I, SORTOP = OPERATOR(%I.>), PARALLEL = SAFE)', sch, t, sch, n || '_larger', t, sch, n || '_larger', sch);

    -- Explicit casts to and from the kind's type only: the same bytes, every value valid in both.
    EXECUTE pg_catalog.format('CREATE CAST (%s AS %s) WITHOUT FUNCTION', t, base);
    EXECUTE pg_catalog.format('CREATE CAST (%s AS %s) WITHOUT FUNCTION', base, t);

    -- The generator (the kind's: one ascending sequence per backend, or per node for snowflakes).
    EXECUTE pg_catalog.format('CREATE FUNCTION %I.%I() RETURNS %s AS %L, %L LANGUAGE C VOLATILE PARALLEL %s',
                              sch, 'gen_' || n, t, 'MODULE_PATHNAME', gen, gen_parallel);
    EXECUTE pg_catalog.format('COMMENT ON FUNCTION %I.%I() IS %L', sch, 'gen_' || n,
                              pg_catalog.format('new %s (%s)', n, CASE id_type_create.kind WHEN 'snowflake' THEN 'a twitter-layout snowflake of node id_gen.node_id' ELSE 'a ' || id_type_create.kind || ', ascending within a backend' END));

    -- Time and bounds: every ID made at a time in the millisecond of `at` lies in [lower(at), upper(at)].
    IF id_type_create.kind = 'snowflake' THEN
        EXECUTE pg_catalog.format('CREATE FUNCTION %I.%I(id %s) RETURNS timestamptz LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE RETURN @extschema@.snowflake_time(id::@extschema@.snowflake, %L)', sch, n || '_time', t, 'twitter');
        EXECUTE pg_catalog.format('CREATE FUNCTION %I.%I(at timestamptz) RETURNS %s LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE RETURN @extschema@.snowflake_lower(at, %L)::%s', sch, n || '_lower', t, 'twitter', t);
        EXECUTE pg_catalog.format('CREATE FUNCTION %I.%I(at timestamptz) RETURNS %s LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE RETURN @extschema@.snowflake_upper(at, %L)::%s', sch, n || '_upper', t, 'twitter', t);
    ELSE
        EXECUTE pg_catalog.format('CREATE FUNCTION %I.%I(id %s) RETURNS timestamptz AS %L, %L LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE', sch, n || '_time', t, 'MODULE_PATHNAME',
                                  CASE id_type_create.kind WHEN 'ulid' THEN 'ulid_time' WHEN 'ksuid' THEN 'ksuid_time' WHEN 'xid' THEN 'xid_time' ELSE 'uuidv7_time' END);
        EXECUTE pg_catalog.format('CREATE FUNCTION %I.%I(at timestamptz) RETURNS %s AS %L, %L LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE', sch, n || '_lower', t, 'MODULE_PATHNAME',
                                  id_type_create.kind || '_lower');
        EXECUTE pg_catalog.format('CREATE FUNCTION %I.%I(at timestamptz) RETURNS %s AS %L, %L LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE', sch, n || '_upper', t, 'MODULE_PATHNAME',
                                  id_type_create.kind || '_upper');
    END IF;
    EXECUTE pg_catalog.format('COMMENT ON FUNCTION %I.%I(%s) IS %L', sch, n || '_time', t,
                              pg_catalog.format('the %s time inside the ID', CASE WHEN id_type_create.kind IN ('ksuid', 'xid') THEN 'second' ELSE 'millisecond' END));
    EXECUTE pg_catalog.format('COMMENT ON FUNCTION %I.%I(timestamptz) IS %L', sch, n || '_lower',
                              pg_catalog.format('smallest ID of the %s containing the given time', CASE WHEN id_type_create.kind IN ('ksuid', 'xid') THEN 'second' ELSE 'millisecond' END));
    EXECUTE pg_catalog.format('COMMENT ON FUNCTION %I.%I(timestamptz) IS %L', sch, n || '_upper',
                              pg_catalog.format('largest ID of the %s containing the given time', CASE WHEN id_type_create.kind IN ('ksuid', 'xid') THEN 'second' ELSE 'millisecond' END));
    RETURN t::regtype;
END
$$;
COMMENT ON FUNCTION id_type_create(name, text, text, text, name) IS 'internal to create_id_type()';
REVOKE ALL ON FUNCTION id_type_create(name, text, text, text, name) FROM PUBLIC;

-- The work of drop_id_type(), after id_type_admin_check().
CREATE OR REPLACE FUNCTION id_type_drop(id_type regtype, cascade boolean) RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    SET client_min_messages = warning  -- not a notice per object DROP TYPE ... CASCADE drops
    SET citus.enable_ddl_propagation = off  -- with Citus, every node is sent its own call (id_type_cluster_drop())
    AS $$
DECLARE
    d record;
    modin regprocedure;
    arr oid;
    lib text := 'MODULE_PATHNAME';
    others text;
    families text[];
    sortsupport text[];
    stmt text;
BEGIN
    SELECT * INTO d FROM @extschema@.id_type_describe(id_type_drop.id_type);
    IF d.kind IS NULL THEN
        RAISE EXCEPTION 'type % is not an ID type made by create_id_type()', id_type_drop.id_type USING ERRCODE = '42809';
    END IF;
    SELECT y.typmodin, y.typarray INTO modin, arr FROM pg_catalog.pg_type y WHERE y.oid = id_type_drop.id_type;
    -- A member of id_gen (a database with Citus) is an ordinary object again before it is dropped.
    PERFORM @extschema@.id_type_membership(id_type_drop.id_type, false);
    -- Everything DROP TYPE ... CASCADE would drop; what create_id_type() did not make stops a plain drop.
    IF NOT id_type_drop.cascade THEN
        WITH RECURSIVE dep(classid, objid, objsubid) AS (
            SELECT k.classid, k.objid, k.objsubid FROM pg_catalog.pg_depend k
             WHERE k.refclassid = 'pg_catalog.pg_type'::pg_catalog.regclass AND k.refobjid = id_type_drop.id_type AND k.deptype IN ('n', 'a', 'i')
            UNION
            SELECT k.classid, k.objid, k.objsubid FROM pg_catalog.pg_depend k JOIN dep
                ON k.refclassid = dep.classid AND k.refobjid = dep.objid AND k.deptype IN ('n', 'a', 'i')
        )
        SELECT pg_catalog.string_agg(o.d, ', ' ORDER BY o.d)
          INTO others
          FROM (SELECT pg_catalog.pg_describe_object(dep.classid, dep.objid, dep.objsubid) AS d FROM dep
         WHERE NOT (
               (dep.classid = 'pg_catalog.pg_type'::pg_catalog.regclass AND dep.objid IN (id_type_drop.id_type, arr))
            OR dep.classid IN ('pg_catalog.pg_operator'::pg_catalog.regclass, 'pg_catalog.pg_opclass'::pg_catalog.regclass,
                               'pg_catalog.pg_opfamily'::pg_catalog.regclass, 'pg_catalog.pg_amop'::pg_catalog.regclass,
                               'pg_catalog.pg_amproc'::pg_catalog.regclass, 'pg_catalog.pg_cast'::pg_catalog.regclass)
            OR (dep.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND EXISTS (
                    SELECT 1 FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_language l ON l.oid = p.prolang
                     WHERE p.oid = dep.objid
                       AND (l.lanname = 'internal' OR (l.lanname = 'c' AND p.probin = lib)
                            OR (p.prokind = 'a' AND p.proname IN ('min', 'max'))
                            OR (l.lanname = 'sql' AND p.proname ~ '_(time|lower|upper)$')))))) o;
        IF others IS NOT NULL THEN
            RAISE EXCEPTION 'cannot drop ID type % because other objects depend on it', id_type_drop.id_type
                USING ERRCODE = '2BP01', DETAIL = pg_catalog.format('Objects not made by create_id_type(): %s.', others),
                      HINT = 'Drop them first, or call drop_id_type(..., cascade => true) to drop them too.';
        END IF;
    END IF;
    -- The operator families and the sortsupport function do not depend on the type: by hand.
    SELECT pg_catalog.array_agg(pg_catalog.format('DROP OPERATOR FAMILY %I.%I USING %I CASCADE', s.nspname, f.opfname, a.amname))
      INTO families
      FROM pg_catalog.pg_opclass c
      JOIN pg_catalog.pg_opfamily f ON f.oid = c.opcfamily
      JOIN pg_catalog.pg_namespace s ON s.oid = f.opfnamespace
      JOIN pg_catalog.pg_am a ON a.oid = f.opfmethod
     WHERE c.opcintype = id_type_drop.id_type;
    SELECT pg_catalog.array_agg(pr.amproc::pg_catalog.regprocedure::text)
      INTO sortsupport
      FROM pg_catalog.pg_amproc pr
      JOIN pg_catalog.pg_opfamily f ON f.oid = pr.amprocfamily
      JOIN pg_catalog.pg_am a ON a.oid = f.opfmethod
     WHERE a.amname = 'btree' AND pr.amprocnum = 2 AND pr.amproclefttype = id_type_drop.id_type;
    FOREACH stmt IN ARRAY coalesce(families, '{}') LOOP
        EXECUTE stmt;
    END LOOP;
    EXECUTE pg_catalog.format('DROP TYPE %s CASCADE', id_type_drop.id_type);
    EXECUTE pg_catalog.format('DROP FUNCTION %s', modin);
    FOREACH stmt IN ARRAY coalesce(sortsupport, '{}') LOOP
        EXECUTE pg_catalog.format('DROP FUNCTION %s', stmt);
    END LOOP;
    PERFORM @extschema@.prefix_unregister(d.prefix);
END
$$;
COMMENT ON FUNCTION id_type_drop(regtype, boolean) IS 'internal to drop_id_type()';
REVOKE ALL ON FUNCTION id_type_drop(regtype, boolean) FROM PUBLIC;

-------------------------------------------------------------------------------
-- Created types on a Citus cluster. Citus creates the types of a distributed table's
-- columns on every node only when it knows how: enum, composite and domain types, and the objects
-- of an extension, which it makes by creating the extension. A created type is a base type, so
-- on a database with Citus, create_id_type() makes it and everything it made for it members of
-- id_gen (id_type_membership()), on the coordinator and, in the same transaction under Citus's
-- two-phase commit, on every other node (shard_cluster_send()); drop_id_type() likewise. A node
-- added later gets them when Citus creates id_gen there: the install script asks the coordinator
-- for its created types (id_type_cluster_pull()); a node added back, which has id_gen already,
-- gets them from the same function, run by an event trigger on the CREATE EXTENSION IF NOT
-- EXISTS that Citus sends it (id_type_cluster_event()). The price: pg_dump leaves extension members
-- out, so a plain dump of a Citus database does not carry its created types. On a database
-- without Citus they stay ordinary objects, dumped as in 0.2.0.
-------------------------------------------------------------------------------

-- Every object create_id_type() made for `id_type`, as (catalog, object id): the type, its
-- functions and aggregates, operators, operator classes and families, and casts. Found by what
-- create_id_type() makes (names in the type's schema, its signatures), so a user's function that
-- merely takes the type is not among them.
CREATE OR REPLACE FUNCTION id_type_objects(id_type regtype, OUT classid oid, OUT objid oid)
    RETURNS SETOF record
    LANGUAGE sql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
    WITH y AS (
        SELECT t.oid, t.typname, t.typnamespace, t.typinput, t.typoutput, t.typreceive, t.typsend, t.typmodin
          FROM pg_catalog.pg_type t WHERE t.oid = $1
    ), c AS (
        SELECT o.oid, o.opcfamily FROM pg_catalog.pg_opclass o, y WHERE o.opcintype = y.oid AND o.opcnamespace = y.typnamespace
    )
    SELECT 'pg_catalog.pg_type'::pg_catalog.regclass::oid, y.oid FROM y
    UNION ALL
    SELECT 'pg_catalog.pg_proc'::pg_catalog.regclass::oid, p.oid
      FROM pg_catalog.pg_proc p, y
     WHERE p.pronamespace = y.typnamespace
       AND p.oid >= 16384  -- never a built-in (FirstNormalObjectId)
       AND (p.oid IN (y.typinput, y.typoutput, y.typreceive, y.typsend, y.typmodin)
            OR p.oid IN (SELECT a.amproc FROM pg_catalog.pg_amproc a JOIN c ON a.amprocfamily = c.opcfamily)
            OR (p.prokind = 'a' AND p.proname IN ('min', 'max') AND p.proargtypes[0] = y.oid AND p.pronargs = 1)
            OR (p.prokind = 'f' AND (y.oid = ANY (p.proargtypes::oid[]) OR p.prorettype = y.oid)
                AND p.proname IN (y.typname || '_eq', y.typname || '_ne', y.typname || '_lt', y.typname || '_le',
                                  y.typname || '_gt', y.typname || '_ge', y.typname || '_cmp', y.typname || '_hash',
                                  y.typname || '_hash_extended', y.typname || '_smaller', y.typname || '_larger',
                                  'gen_' || y.typname, y.typname || '_time', y.typname || '_lower', y.typname || '_upper')))
    UNION ALL
    SELECT 'pg_catalog.pg_operator'::pg_catalog.regclass::oid, o.oid
      FROM pg_catalog.pg_operator o, y
     WHERE o.oprnamespace = y.typnamespace AND o.oprleft = y.oid AND o.oprright = y.oid
       AND o.oprname IN ('=', '<>', '<', '<=', '>', '>=')
    UNION ALL
    SELECT 'pg_catalog.pg_opclass'::pg_catalog.regclass::oid, c.oid FROM c
    UNION ALL
    SELECT DISTINCT 'pg_catalog.pg_opfamily'::pg_catalog.regclass::oid, c.opcfamily FROM c
    UNION ALL
    SELECT 'pg_catalog.pg_cast'::pg_catalog.regclass::oid, k.oid
      FROM pg_catalog.pg_cast k, y
     WHERE (k.castsource = y.oid OR k.casttarget = y.oid) AND k.castmethod = 'b'
$$;
COMMENT ON FUNCTION id_type_objects(regtype) IS 'internal: the objects create_id_type() made for a type (catalog, object id)';
REVOKE ALL ON FUNCTION id_type_objects(regtype) FROM PUBLIC;

-- Makes every object of `id_type` (id_type_objects()) a member of id_gen (`member`) or an
-- ordinary object again (not `member`); objects already so are left alone. Returns the type.
CREATE OR REPLACE FUNCTION id_type_membership(id_type regtype, member boolean) RETURNS regtype
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    SET citus.enable_ddl_propagation = off  -- every node is sent its own call (id_type_cluster_created())
    AS $$
DECLARE
    ext oid := (SELECT e.oid FROM pg_catalog.pg_extension e WHERE e.extname = 'id_gen');
    r record;
BEGIN
    FOR r IN
        SELECT o.classid, o.objid, (pg_catalog.pg_identify_object(o.classid, o.objid, 0)).*,
               EXISTS (SELECT 1 FROM pg_catalog.pg_depend d
                        WHERE d.classid = o.classid AND d.objid = o.objid AND d.deptype = 'e' AND d.refobjid = ext) AS is_member
          FROM @extschema@.id_type_objects(id_type_membership.id_type) o
    LOOP
        CONTINUE WHEN r.is_member = id_type_membership.member;
        EXECUTE pg_catalog.format('ALTER EXTENSION id_gen %s %s %s', CASE WHEN id_type_membership.member THEN 'ADD' ELSE 'DROP' END,
                                  pg_catalog.upper(r.type), r.identity);
    END LOOP;
    RETURN id_type_membership.id_type;
END
$$;
COMMENT ON FUNCTION id_type_membership(regtype, boolean) IS 'internal: make the objects of a created type members of id_gen, or ordinary objects again';
REVOKE ALL ON FUNCTION id_type_membership(regtype, boolean) FROM PUBLIC;

-- Whether this database has Citus (then created types are extension members); raises unless
-- this is its coordinator and every node is active, for `caller` (create_id_type() or
-- drop_id_type()): a type made on one worker would be on no other node, and a disabled node
-- would miss it (Citus could not activate it again while a distributed table used the type).
CREATE OR REPLACE FUNCTION id_type_cluster_check(caller text) RETURNS boolean
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    is_coordinator boolean;
    inactive text;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus') THEN
        RETURN false;
    END IF;
    EXECUTE 'SELECT pg_catalog.citus_is_coordinator()' INTO is_coordinator;
    IF NOT is_coordinator THEN
        RAISE EXCEPTION '% runs on the coordinator of a Citus cluster', caller
            USING ERRCODE = '55000', DETAIL = 'It makes or drops the type on every node; one made on a worker would exist on no other node.',
                  HINT = 'Connect to the coordinator and call it there.';
    END IF;
    EXECUTE $q$SELECT pg_catalog.string_agg(pg_catalog.format('%s:%s', n.nodename, n.nodeport), ', ' ORDER BY n.nodeid)
                 FROM pg_catalog.pg_dist_node n WHERE NOT n.isactive AND n.noderole = 'primary'$q$ INTO inactive;
    IF inactive IS NOT NULL THEN
        RAISE EXCEPTION '% needs every node of the Citus cluster active; disabled: %', caller, inactive
            USING ERRCODE = '55000', DETAIL = 'A disabled node would miss the change, and Citus could not activate it again while a distributed table used a type it lacks.',
                  HINT = 'Activate the node first (SELECT citus_activate_node(<host>, <port>)), or remove it (citus_remove_node()).';
    END IF;
    RETURN true;
END
$$;
COMMENT ON FUNCTION id_type_cluster_check(text) IS 'internal to create_id_type() and drop_id_type(): whether the database has Citus; raises unless on its coordinator with every node active';
REVOKE ALL ON FUNCTION id_type_cluster_check(text) FROM PUBLIC;

-- Makes a created type on this node, as an id_gen member, for a coordinator: the one that sent it
-- (create_id_type(), id_type_distribute()) or the one a new node asked (id_type_cluster_pull()).
-- Its schema, when this node lacks it, is made (not a member, even in the install script), owned
-- by `schema_owner` when that role exists here. And two functions of the type that Citus copied
-- to every worker when 0.2.0's create_id_type() ran with its DDL propagation on (the TYPMOD_IN
-- and sortsupport functions: the only ones that do not depend on the type) are dropped first,
-- when the type itself is not here.
CREATE OR REPLACE FUNCTION id_type_cluster_make(type_name name, kind text, prefix text, format text, schema_name name,
                                                schema_owner name) RETURNS regtype
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    SET citus.enable_ddl_propagation = off
    AS $$
DECLARE
    nsp oid;
    f text;
BEGIN
    nsp := (SELECT n.oid FROM pg_catalog.pg_namespace n WHERE n.nspname = id_type_cluster_make.schema_name);
    IF nsp IS NULL THEN
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = id_type_cluster_make.schema_owner) THEN
            EXECUTE pg_catalog.format('CREATE SCHEMA %I AUTHORIZATION %I', id_type_cluster_make.schema_name, id_type_cluster_make.schema_owner);
        ELSE
            EXECUTE pg_catalog.format('CREATE SCHEMA %I', id_type_cluster_make.schema_name);
        END IF;
        nsp := (SELECT n.oid FROM pg_catalog.pg_namespace n WHERE n.nspname = id_type_cluster_make.schema_name);
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_depend d
                    WHERE d.classid = 'pg_catalog.pg_namespace'::pg_catalog.regclass AND d.objid = nsp AND d.deptype = 'e') THEN
            EXECUTE pg_catalog.format('ALTER EXTENSION id_gen DROP SCHEMA %I', id_type_cluster_make.schema_name);
        END IF;
    END IF;
    IF pg_catalog.to_regtype(pg_catalog.format('%I.%I', id_type_cluster_make.schema_name, id_type_cluster_make.type_name)) IS NULL THEN
        FOR f IN
            SELECT p.oid::pg_catalog.regprocedure::text
              FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_language l ON l.oid = p.prolang
             WHERE p.pronamespace = nsp
               AND ((p.proname = id_type_cluster_make.type_name || '_typmod_in' AND p.proargtypes[0] = 'pg_catalog.cstring[]'::pg_catalog.regtype
                     AND p.pronargs = 1 AND p.prosrc LIKE '%.id_type_typmod_in($1, %')
                 OR (p.proname = id_type_cluster_make.type_name || '_sortsupport' AND p.proargtypes[0] = 'pg_catalog.internal'::pg_catalog.regtype
                     AND p.pronargs = 1 AND (l.lanname = 'internal' OR (l.lanname = 'c' AND p.probin = 'MODULE_PATHNAME'))))
        LOOP
            EXECUTE pg_catalog.format('DROP FUNCTION %s', f);
        END LOOP;
    END IF;
    RETURN @extschema@.id_type_membership(
        @extschema@.id_type_create(id_type_cluster_make.type_name, id_type_cluster_make.kind, id_type_cluster_make.prefix,
                                   id_type_cluster_make.format, id_type_cluster_make.schema_name), true);
END
$$;
COMMENT ON FUNCTION id_type_cluster_make(name, text, text, text, name, name) IS 'internal: make a created type on this node, as an id_gen member, for the coordinator (its schema too; 0.2.0''s copies of two of its functions dropped first)';
REVOKE ALL ON FUNCTION id_type_cluster_make(name, text, text, text, name, name) FROM PUBLIC;

-- After create_id_type() made `id_type` here: on a database with Citus, makes its objects members
-- of id_gen and has every other active node make the same type, in this transaction (two-phase
-- commit). Returns the type.
CREATE OR REPLACE FUNCTION id_type_cluster_created(id_type regtype, type_name name, kind text, prefix text, format text,
                                                   schema_name name) RETURNS regtype
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus') THEN
        RETURN id_type_cluster_created.id_type;
    END IF;
    PERFORM @extschema@.id_type_membership(id_type_cluster_created.id_type, true);
    -- The rest of the transaction on the connections that made the type on each node: a
    -- create_distributed_table() after it in the same transaction makes its shards over them
    -- (another connection would not see the uncommitted type).
    PERFORM pg_catalog.set_config('citus.multi_shard_modify_mode', 'sequential', true);
    -- '@extschema@' is the schema's name quoted as an identifier already.
    PERFORM @extschema@.shard_cluster_send(
        pg_catalog.format('SELECT %s.id_type_cluster_make(%L, %L, %L, %L, %L, %L)', '@extschema@',
                          id_type_cluster_created.type_name, id_type_cluster_created.kind, id_type_cluster_created.prefix,
                          id_type_cluster_created.format, id_type_cluster_created.schema_name,
                          (SELECT pg_catalog.pg_get_userbyid(n.nspowner) FROM pg_catalog.pg_namespace n
                            WHERE n.nspname = id_type_cluster_created.schema_name)));
    RETURN id_type_cluster_created.id_type;
END
$$;
COMMENT ON FUNCTION id_type_cluster_created(regtype, name, text, text, text, name) IS 'internal to create_id_type(): on a Citus coordinator, make the type an extension member and make it on every node';
REVOKE ALL ON FUNCTION id_type_cluster_created(regtype, name, text, text, text, name) FROM PUBLIC;

-- drop_id_type()'s work: drops `id_type` here and, on a database with Citus, on every other
-- active node in this transaction (two-phase commit).
CREATE OR REPLACE FUNCTION id_type_cluster_drop(id_type regtype, cascade boolean) RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    qualified text := id_type_cluster_drop.id_type::text;  -- qualified: only pg_catalog is on the path
    -- On every node only when create_id_type() made it a member (on a database with Citus); one
    -- made before (0.2.0, or before Citus was installed) is on this node alone.
    everywhere boolean := EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus')
                          AND EXISTS (SELECT 1 FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_extension e ON e.oid = d.refobjid
                                       WHERE d.classid = 'pg_catalog.pg_type'::pg_catalog.regclass AND d.objid = id_type_cluster_drop.id_type
                                         AND d.deptype = 'e' AND e.extname = 'id_gen');
    used text;
BEGIN
    -- DROP TYPE ... CASCADE would change Citus tables behind Citus's back (a distribution column
    -- dropped leaves Citus's metadata naming a column whose type is gone): refused when anything
    -- it would drop (a column, through domains and composite types too, a default, a constraint,
    -- an index) belongs to a Citus table.
    IF id_type_cluster_drop.cascade AND EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus') THEN
        EXECUTE $q$
            WITH RECURSIVE dep(classid, objid) AS (
                SELECT 'pg_catalog.pg_type'::pg_catalog.regclass::oid, $1::oid
                UNION
                -- What depends on a reached object, and what a reached object is part of (an
                -- internal dependency, followed upwards: a composite type's relation, reached
                -- through an attribute, is part of the composite type, whose columns depend on it).
                SELECT CASE WHEN k.classid = dep.classid AND k.objid = dep.objid THEN k.refclassid ELSE k.classid END,
                       CASE WHEN k.classid = dep.classid AND k.objid = dep.objid THEN k.refobjid ELSE k.objid END
                  FROM pg_catalog.pg_depend k JOIN dep
                    ON (k.refclassid = dep.classid AND k.refobjid = dep.objid AND k.deptype IN ('n', 'a', 'i'))
                    OR (k.classid = dep.classid AND k.objid = dep.objid AND k.deptype = 'i')
            ), rel(relid) AS (
                SELECT coalesce(i.indrelid, dep.objid) FROM dep LEFT JOIN pg_catalog.pg_index i ON i.indexrelid = dep.objid
                 WHERE dep.classid = 'pg_catalog.pg_class'::pg_catalog.regclass
                UNION SELECT a.adrelid FROM dep JOIN pg_catalog.pg_attrdef a ON a.oid = dep.objid
                 WHERE dep.classid = 'pg_catalog.pg_attrdef'::pg_catalog.regclass
                UNION SELECT c.conrelid FROM dep JOIN pg_catalog.pg_constraint c ON c.oid = dep.objid
                 WHERE dep.classid = 'pg_catalog.pg_constraint'::pg_catalog.regclass
            )
            SELECT pg_catalog.string_agg(DISTINCT p.logicalrelid::pg_catalog.regclass::text, ', ')
              FROM rel JOIN pg_catalog.pg_dist_partition p ON p.logicalrelid = rel.relid$q$
            INTO used USING id_type_cluster_drop.id_type;
        IF used IS NOT NULL THEN
            RAISE EXCEPTION 'cannot drop ID type % with cascade while Citus tables use it: %', id_type_cluster_drop.id_type, used
                USING ERRCODE = '2BP01',
                      HINT = 'Drop those tables, or what of them uses the type (ALTER TABLE ... DROP COLUMN), first: Citus changes its tables only through its own commands.';
        END IF;
    END IF;
    PERFORM @extschema@.id_type_drop(id_type_cluster_drop.id_type, id_type_cluster_drop.cascade);
    IF everywhere THEN
        PERFORM @extschema@.shard_cluster_send(
            pg_catalog.format('SELECT %s.id_type_drop(%L::pg_catalog.regtype, %L)', '@extschema@', qualified, id_type_cluster_drop.cascade));
    END IF;
END
$$;
COMMENT ON FUNCTION id_type_cluster_drop(regtype, boolean) IS 'internal to drop_id_type(): drop the type here and, with Citus, on every node';
REVOKE ALL ON FUNCTION id_type_cluster_drop(regtype, boolean) FROM PUBLIC;

-- On a Citus worker that knows its coordinator: makes this node's created ID types the
-- coordinator's. Run by the install script (a node citus_add_node() is adding creates id_gen after
-- Citus copied pg_dist_node to it, and before it makes the distributed tables' shells) and, on a
-- node that has id_gen already (removed and added back, say), by the event trigger below when
-- Citus sends CREATE EXTENSION IF NOT EXISTS id_gen there while it adds or activates the node; by
-- hand (superuser, on the node) where event triggers are off. A type is matched by its schema and
-- name and compared by its spec, what create_id_type() wrote into its TYPMOD_IN function (kind,
-- text format, prefix):
--   * one the coordinator has and this node lacks is made, as an extension member;
--   * one with the coordinator's spec is kept (made a member if it was not);
--   * one with another spec, and a member of id_gen here that the coordinator does not have, is
--     dropped (then the coordinator's made) when nothing but what create_id_type() made for it
--     depends on it here; else 55000 naming what does, and nothing changes (the caller's
--     transaction, Citus's activation of the node included, fails);
--   * an ID type of this node's own (not a member) that the coordinator does not have is left.
-- Every drop comes before the first make (a dropped type frees its prefix). Returns the number of
-- types made (new or in place of another) and dropped.
-- The coordinator is asked over a connection of its own (master_run_on_worker), with a query on
-- its catalogs only: when the coordinator is itself creating id_gen (and Citus passes that on to
-- each worker), id_gen is not yet visible there and the answer is empty; so it is while a session
-- there is dropping id_gen (DROP EXTENSION and CREATE EXTENSION in one transaction: its old types
-- are going). A type's schema that does not exist here yet is made (not a member), owned as on the
-- coordinator when that role exists here. Asked through shard_cluster_ask_coordinator(); a
-- coordinator that cannot answer fails the call (55000), and with it the install or the node's
-- addition.
CREATE OR REPLACE FUNCTION id_type_cluster_pull() RETURNS int4
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    SET citus.enable_ddl_propagation = off
    AS $$
DECLARE
    is_coordinator boolean;
    host text;
    port int4;
    ok boolean;
    answer text;
    expired boolean;
    r record;
    spec text[];
    theirs jsonb := '[]';  -- the coordinator's types: schema, name, owner, spec, kind, format, prefix
    here record;
    uses text;
    changed int4 := 0;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus') THEN
        RETURN 0;
    END IF;
    EXECUTE 'SELECT pg_catalog.citus_is_coordinator()' INTO is_coordinator;
    IF is_coordinator THEN
        RETURN 0;
    END IF;
    SELECT a.host, a.port, a.ok, a.answer, a.expired INTO host, port, ok, answer, expired
      FROM @extschema@.shard_cluster_ask_coordinator($q$
SELECT coalesce(pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object('schema', n.nspname, 'name', y.typname,
                                                                   'owner', pg_catalog.pg_get_userbyid(n.nspowner), 'spec', m.prosrc)
                                     ORDER BY y.oid), '[]')::text
  FROM pg_catalog.pg_type y
  JOIN pg_catalog.pg_namespace n ON n.oid = y.typnamespace
  JOIN pg_catalog.pg_proc i ON i.oid = y.typinput
  JOIN pg_catalog.pg_proc m ON m.oid = y.typmodin
  JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_type'::pg_catalog.regclass AND d.objid = y.oid AND d.deptype = 'e'
  JOIN pg_catalog.pg_extension e ON e.oid = d.refobjid AND e.extname = 'id_gen'
 WHERE i.prosrc = 'id_type_in'
   AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_locks l
                    WHERE l.locktype = 'object' AND l.classid = 'pg_catalog.pg_extension'::pg_catalog.regclass
                      AND l.objid = e.oid AND l.mode = 'AccessExclusiveLock' AND l.granted
                      AND l.database = (SELECT b.oid FROM pg_catalog.pg_database b WHERE b.datname = pg_catalog.current_database()))$q$) a;
    IF host IS NULL THEN
        RETURN 0;  -- not in a cluster yet, or the coordinator is not in pg_dist_node
    END IF;
    IF expired OR NOT coalesce(ok, false) THEN
        RAISE EXCEPTION 'id_gen could not get the coordinator''s ID types (create_id_type()) from %:%', host, port
            USING ERRCODE = '55000',
                  DETAIL = CASE WHEN expired THEN 'The coordinator did not answer within 10 s.' ELSE coalesce(answer, 'no answer') END,
                  HINT = 'This node needs them before Citus makes the tables that use them here: make the coordinator reachable from this node, then add or activate the node again.';
    END IF;
    FOR r IN SELECT * FROM pg_catalog.jsonb_to_recordset(answer::jsonb) AS x(schema name, name name, owner name, spec text) LOOP
        spec := pg_catalog.regexp_match(r.spec, 'kind=([a-z0-9]+) format=([a-z]+) prefix=([a-z0-9]+)');
        IF spec IS NULL THEN
            RAISE EXCEPTION 'the coordinator''s ID type %.% has a TYPMOD_IN function create_id_type() did not write: %', r.schema, r.name, r.spec
                USING ERRCODE = '55000', HINT = 'On the coordinator, drop the type and create it again (drop_id_type(), create_id_type()).';
        END IF;
        theirs := theirs || pg_catalog.jsonb_build_array(pg_catalog.jsonb_build_object(
                      'schema', r.schema, 'name', r.name, 'owner', r.owner, 'kind', spec[1], 'format', spec[2], 'prefix', spec[3],
                      'spec', pg_catalog.format('kind=%s format=%s prefix=%s', spec[1], spec[2], spec[3])));
    END LOOP;
    -- This node's ID types beside the coordinator's: the ones to drop first.
    FOR here IN
        SELECT y.oid::pg_catalog.regtype AS id_type, n.nspname AS schema_name, y.typname AS type_name,
               (pg_catalog.regexp_match(m.prosrc, 'kind=[a-z0-9]+ format=[a-z]+ prefix=[a-z0-9]+'))[1] AS spec,
               EXISTS (SELECT 1 FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_extension e ON e.oid = d.refobjid AND e.extname = 'id_gen'
                        WHERE d.classid = 'pg_catalog.pg_type'::pg_catalog.regclass AND d.objid = y.oid AND d.deptype = 'e') AS member,
               c.value AS theirs
          FROM pg_catalog.pg_type y
          JOIN pg_catalog.pg_namespace n ON n.oid = y.typnamespace
          JOIN pg_catalog.pg_proc i ON i.oid = y.typinput
          JOIN pg_catalog.pg_language l ON l.oid = i.prolang AND l.lanname = 'c'
          LEFT JOIN pg_catalog.pg_proc m ON m.oid = y.typmodin
          LEFT JOIN pg_catalog.jsonb_array_elements(theirs) c ON c.value ->> 'schema' = n.nspname AND c.value ->> 'name' = y.typname
         WHERE i.prosrc = 'id_type_in' AND i.probin = 'MODULE_PATHNAME'
         ORDER BY y.oid
    LOOP
        CONTINUE WHEN here.theirs IS NULL AND NOT here.member;  -- this server's own type, not the cluster's
        IF here.theirs IS NOT NULL AND here.spec IS NOT DISTINCT FROM here.theirs ->> 'spec' THEN
            PERFORM @extschema@.id_type_membership(here.id_type, true);
            CONTINUE;
        END IF;
        BEGIN
            PERFORM @extschema@.id_type_drop(here.id_type, false);
        EXCEPTION WHEN dependent_objects_still_exist THEN
            GET STACKED DIAGNOSTICS uses = PG_EXCEPTION_DETAIL;
            IF here.theirs IS NULL THEN
                RAISE EXCEPTION 'ID type %.% on this node is one the coordinator no longer has, and objects on this node use it',
                                pg_catalog.quote_ident(here.schema_name), pg_catalog.quote_ident(here.type_name)
                    USING ERRCODE = '55000', DETAIL = pg_catalog.format('Here it is %s. %s', coalesce(here.spec, 'unreadable'), uses),
                          HINT = 'Drop or change those objects on this node, or make the type on the coordinator again with the same kind, format and prefix (create_id_type()), then add the node again (citus_add_node() or citus_activate_node() on the coordinator).';
            END IF;
            RAISE EXCEPTION 'ID type %.% on this node is not the coordinator''s, and objects on this node use it',
                            pg_catalog.quote_ident(here.schema_name), pg_catalog.quote_ident(here.type_name)
                USING ERRCODE = '55000',
                      DETAIL = pg_catalog.format('Here it is %s, on the coordinator %s. %s', coalesce(here.spec, 'unreadable'), here.theirs ->> 'spec', uses),
                      HINT = 'Drop or change those objects on this node (they use a type the cluster no longer has), then add the node again (citus_add_node() or citus_activate_node() on the coordinator).';
        END;
        IF here.theirs IS NULL THEN
            changed := changed + 1;
        END IF;
    END LOOP;
    -- Then what this node lacks, the types just dropped included.
    FOR r IN SELECT * FROM pg_catalog.jsonb_to_recordset(theirs)
                    AS x(schema name, name name, owner name, kind text, format text, prefix text) LOOP
        IF pg_catalog.to_regtype(pg_catalog.format('%I.%I', r.schema, r.name)) IS NOT NULL THEN
            CONTINUE WHEN EXISTS (SELECT 1 FROM pg_catalog.pg_type y JOIN pg_catalog.pg_proc i ON i.oid = y.typinput
                                   WHERE y.oid = pg_catalog.to_regtype(pg_catalog.format('%I.%I', r.schema, r.name))
                                     AND i.prosrc = 'id_type_in');
            RAISE EXCEPTION 'type %.% on this node is not an ID type, and the coordinator''s is', pg_catalog.quote_ident(r.schema), pg_catalog.quote_ident(r.name)
                USING ERRCODE = '55000', DETAIL = pg_catalog.format('On the coordinator it is kind=%s format=%s prefix=%s.', r.kind, r.format, r.prefix),
                      HINT = 'Drop or rename that type on this node, then add the node again (citus_add_node() or citus_activate_node() on the coordinator).';
        END IF;
        PERFORM @extschema@.id_type_cluster_make(r.name, r.kind, r.prefix, r.format, r.schema, r.owner);
        changed := changed + 1;
    END LOOP;
    RETURN changed;
END
$$;
COMMENT ON FUNCTION id_type_cluster_pull() IS 'on a Citus worker: make this node''s created ID types the coordinator''s (compared by kind, format and prefix; one in use here that differs is refused); run by the install script and when Citus adds a node that has id_gen already; superuser only';
REVOKE ALL ON FUNCTION id_type_cluster_pull() FROM PUBLIC;

-- The hook for a node that has id_gen already: Citus adding or activating it sends CREATE
-- EXTENSION IF NOT EXISTS id_gen, which does nothing there; this trigger runs
-- id_type_cluster_pull() first (src/pg/id_type_cluster.cpp says when it does). It fires for every
-- CREATE EXTENSION in this database and returns at once for any other.
CREATE OR REPLACE FUNCTION id_type_cluster_event() RETURNS event_trigger
    AS 'MODULE_PATHNAME', 'id_type_cluster_event' LANGUAGE C;
COMMENT ON FUNCTION id_type_cluster_event() IS 'internal: the event trigger id_gen_cluster_types, which runs id_type_cluster_pull() on a Citus node that already has id_gen when Citus adds it';
REVOKE ALL ON FUNCTION id_type_cluster_event() FROM PUBLIC;
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_event_trigger WHERE evtname = 'id_gen_cluster_types') THEN
        CREATE EVENT TRIGGER id_gen_cluster_types ON ddl_command_start WHEN TAG IN ('CREATE EXTENSION')
            EXECUTE FUNCTION @extschema@.id_type_cluster_event();
    END IF;
END
$$;
COMMENT ON EVENT TRIGGER id_gen_cluster_types IS 'on a Citus node that has id_gen already, CREATE EXTENSION IF NOT EXISTS id_gen (which Citus sends when it adds or activates the node) first makes the node''s created ID types the coordinator''s (id_type_cluster_pull())';


-- create_id_type('account_id', kind => 'ulid', prefix => 'acct'): a new base type with its own
-- operators, btree/hash/BRIN operator classes, min/max, gen_account_id(), account_id_time(),
-- account_id_lower()/account_id_upper(), binary I/O, and explicit casts to and from its kind's
-- type; its prefix is registered (prefix_register). The schema defaults to the extension's.
CREATE OR REPLACE FUNCTION create_id_type(type_name name, kind text, prefix text, format text DEFAULT 'prefixed',
                                          schema_name name DEFAULT NULL)
    RETURNS regtype
    LANGUAGE sql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    SELECT @extschema@.id_type_admin_check('create_id_type()', coalesce(create_id_type.schema_name, (pg_catalog.parse_ident('@extschema@'))[1]));
    SELECT @extschema@.id_type_cluster_check('create_id_type()');
    SELECT @extschema@.id_type_cluster_created(
               @extschema@.id_type_create(create_id_type.type_name, create_id_type.kind, create_id_type.prefix,
                                          create_id_type.format, coalesce(create_id_type.schema_name, (pg_catalog.parse_ident('@extschema@'))[1])),
               create_id_type.type_name, create_id_type.kind, create_id_type.prefix, create_id_type.format,
               coalesce(create_id_type.schema_name, (pg_catalog.parse_ident('@extschema@'))[1]));
END;
COMMENT ON FUNCTION create_id_type(name, text, text, text, name) IS 'make a base type of its own for one entity''s IDs (kind ulid, uuidv7, snowflake, ksuid or xid; text prefix_… or TypeID); superuser only';
REVOKE ALL ON FUNCTION create_id_type(name, text, text, text, name) FROM PUBLIC;

-- id_type_distribute('account_id'): on a Citus coordinator, a type made before Citus was installed
-- in the database (or by 0.2.0, whose types stayed on the coordinator) becomes what
-- create_id_type() makes there now: members of id_gen, made on every other active node in this
-- transaction (two-phase commit). A type that is a member already is left as it is. Superuser only.
CREATE OR REPLACE FUNCTION id_type_distribute(id_type regtype) RETURNS regtype
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    d record;
    sch name;
    n name;
BEGIN
    SELECT y.typname, s.nspname INTO n, sch FROM pg_catalog.pg_type y JOIN pg_catalog.pg_namespace s ON s.oid = y.typnamespace
     WHERE y.oid = id_type_distribute.id_type;
    PERFORM @extschema@.id_type_admin_check('id_type_distribute()', sch);
    IF NOT @extschema@.id_type_cluster_check('id_type_distribute()') THEN
        RAISE EXCEPTION 'id_type_distribute() needs Citus' USING ERRCODE = '55000',
            DETAIL = 'On a single server a created type is an ordinary object of this database.';
    END IF;
    SELECT * INTO d FROM @extschema@.id_type_describe(id_type_distribute.id_type);
    IF d.kind IS NULL THEN
        RAISE EXCEPTION 'type % is not an ID type made by create_id_type()', id_type_distribute.id_type USING ERRCODE = '42809';
    END IF;
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_depend k JOIN pg_catalog.pg_extension e ON e.oid = k.refobjid
                WHERE k.classid = 'pg_catalog.pg_type'::pg_catalog.regclass AND k.objid = id_type_distribute.id_type
                  AND k.deptype = 'e' AND e.extname = 'id_gen') THEN
        RETURN id_type_distribute.id_type;
    END IF;
    RETURN @extschema@.id_type_cluster_created(id_type_distribute.id_type, n, d.kind, d.prefix, d.format, sch);
END
$$;
COMMENT ON FUNCTION id_type_distribute(regtype) IS 'on a Citus coordinator: make a type created before Citus (or by 0.2.0) an id_gen member on every node, as create_id_type() makes one now; superuser only';
REVOKE ALL ON FUNCTION id_type_distribute(regtype) FROM PUBLIC;

-- drop_id_type('account_id'): drops the type and everything create_id_type() made for it, and
-- frees its prefix. Refuses (2BP01) while other objects (columns, defaults, views, indexes)
-- depend on it, unless cascade, which drops them too.
CREATE OR REPLACE FUNCTION drop_id_type(id_type regtype, cascade boolean DEFAULT false) RETURNS void
    LANGUAGE sql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    SELECT @extschema@.id_type_admin_check('drop_id_type()',
                                           (SELECT s.nspname FROM pg_catalog.pg_type y JOIN pg_catalog.pg_namespace s ON s.oid = y.typnamespace
                                             WHERE y.oid = drop_id_type.id_type));
    SELECT @extschema@.id_type_cluster_check('drop_id_type()');
    SELECT @extschema@.id_type_cluster_drop(drop_id_type.id_type, drop_id_type.cascade);
END;
COMMENT ON FUNCTION drop_id_type(regtype, boolean) IS 'drop a type made by create_id_type() with all it made, and free its prefix; superuser only';
REVOKE ALL ON FUNCTION drop_id_type(regtype, boolean) FROM PUBLIC;
