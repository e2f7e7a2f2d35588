-------------------------------------------------------------------------------
-- snowflake: a 64-bit time-ordered integer ID, >= 1 and <= 2^63-1, the bytes of an int8.
-------------------------------------------------------------------------------
CREATE TYPE snowflake;

CREATE FUNCTION snowflake_in(cstring) RETURNS snowflake
    AS 'MODULE_PATHNAME', 'snowflake_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_out(snowflake) RETURNS cstring
    AS 'MODULE_PATHNAME', 'snowflake_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_recv(internal) RETURNS snowflake
    AS 'MODULE_PATHNAME', 'snowflake_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_send(snowflake) RETURNS bytea
    AS 'int8send' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_in(cstring) IS 'snowflake input: a decimal integer from 1 to 9223372036854775807';
COMMENT ON FUNCTION snowflake_out(snowflake) IS 'snowflake output: decimal';
COMMENT ON FUNCTION snowflake_recv(internal) IS 'snowflake binary input: int8''s 8 bytes, big-endian, range-checked';
COMMENT ON FUNCTION snowflake_send(snowflake) IS 'snowflake binary output: int8''s 8 bytes, big-endian';

CREATE TYPE snowflake (
    INPUT = snowflake_in,
    OUTPUT = snowflake_out,
    RECEIVE = snowflake_recv,
    SEND = snowflake_send,
    LIKE = pg_catalog.int8,   -- 8 bytes, by value, double alignment: the bytes of a bigint
    CATEGORY = 'U'
);
COMMENT ON TYPE snowflake IS 'time-ordered 64-bit ID (time | node | sequence), from 1 to 2^63-1';

-- Comparison and hashing: the bytes are an int8's, so the built-in int8 functions serve.
CREATE FUNCTION snowflake_eq(snowflake, snowflake) RETURNS bool AS 'int8eq' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_ne(snowflake, snowflake) RETURNS bool AS 'int8ne' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_lt(snowflake, snowflake) RETURNS bool AS 'int8lt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_le(snowflake, snowflake) RETURNS bool AS 'int8le' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_gt(snowflake, snowflake) RETURNS bool AS 'int8gt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_ge(snowflake, snowflake) RETURNS bool AS 'int8ge' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_cmp(snowflake, snowflake) RETURNS int4 AS 'btint8cmp' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_sortsupport(internal) RETURNS void AS 'btint8sortsupport' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_hash(snowflake) RETURNS int4 AS 'hashint8' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_hash_extended(snowflake, int8) RETURNS int8 AS 'hashint8extended' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OPERATOR = (
    LEFTARG = snowflake, RIGHTARG = snowflake, PROCEDURE = snowflake_eq,
    COMMUTATOR = '=', NEGATOR = '<>', RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR <> (
    LEFTARG = snowflake, RIGHTARG = snowflake, PROCEDURE = snowflake_ne,
    COMMUTATOR = '<>', NEGATOR = '=', RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR < (
    LEFTARG = snowflake, RIGHTARG = snowflake, PROCEDURE = snowflake_lt,
    COMMUTATOR = '>', NEGATOR = '>=', RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
    LEFTARG = snowflake, RIGHTARG = snowflake, PROCEDURE = snowflake_le,
    COMMUTATOR = '>=', NEGATOR = '>', RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR > (
    LEFTARG = snowflake, RIGHTARG = snowflake, PROCEDURE = snowflake_gt,
    COMMUTATOR = '<', NEGATOR = '<=', RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR >= (
    LEFTARG = snowflake, RIGHTARG = snowflake, PROCEDURE = snowflake_ge,
    COMMUTATOR = '<=', NEGATOR = '<', RESTRICT = scalargesel, JOIN = scalargejoinsel
);

CREATE OPERATOR CLASS snowflake_ops DEFAULT FOR TYPE snowflake USING btree AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 snowflake_cmp(snowflake, snowflake),
    FUNCTION 2 snowflake_sortsupport(internal),
    FUNCTION 4 pg_catalog.btequalimage(oid);

-- Same hash as int8 on the same value; never change it (hash partitions depend on it).
CREATE OPERATOR CLASS snowflake_ops DEFAULT FOR TYPE snowflake USING hash AS
    OPERATOR 1 =,
    FUNCTION 1 snowflake_hash(snowflake),
    FUNCTION 2 snowflake_hash_extended(snowflake, int8);

CREATE OPERATOR CLASS snowflake_minmax_ops DEFAULT FOR TYPE snowflake USING brin AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 pg_catalog.brin_minmax_opcinfo(internal),
    FUNCTION 2 pg_catalog.brin_minmax_add_value(internal, internal, internal, internal),
    FUNCTION 3 pg_catalog.brin_minmax_consistent(internal, internal, internal),
    FUNCTION 4 pg_catalog.brin_minmax_union(internal, internal, internal);

-- min() / max(), with sort operators so the planner can answer them from a btree index.
CREATE FUNCTION snowflake_smaller(snowflake, snowflake) RETURNS snowflake
    AS 'int8smaller' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_larger(snowflake, snowflake) RETURNS snowflake
    AS 'int8larger' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
CREATE AGGREGATE min(snowflake) (
    SFUNC = snowflake_smaller, STYPE = snowflake, COMBINEFUNC = snowflake_smaller, SORTOP = <, PARALLEL = SAFE
);
CREATE AGGREGATE max(snowflake) (
    SFUNC = snowflake_larger, STYPE = snowflake, COMBINEFUNC = snowflake_larger, SORTOP = >, PARALLEL = SAFE
);

-- Casts. snowflake -> bigint keeps the value (every snowflake is a valid bigint): no function.
-- bigint -> snowflake checks the value is >= 1.
CREATE FUNCTION snowflake(bigint) RETURNS snowflake
    AS 'MODULE_PATHNAME', 'snowflake_from_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake(bigint) IS 'bigint to snowflake; 22003 unless the value is at least 1';
CREATE CAST (snowflake AS bigint) WITHOUT FUNCTION AS ASSIGNMENT;
CREATE CAST (bigint AS snowflake) WITH FUNCTION snowflake(bigint);

-- Decoders. A layout is a built-in name ('twitter', 'instagram' with Instagram's epoch,
-- 'sonyflake', 'javascript') or (epoch, time_bits, node_bits, sequence_bits) for time|node|sequence
-- in ms. The layout is in the arguments, so these are IMMUTABLE.
CREATE FUNCTION snowflake_time(id snowflake, layout text DEFAULT 'twitter') RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'snowflake_time' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_time(id snowflake, epoch timestamptz, time_bits int, node_bits int, sequence_bits int)
    RETURNS timestamptz AS 'MODULE_PATHNAME', 'snowflake_time' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_node(id snowflake, layout text DEFAULT 'twitter') RETURNS int4
    AS 'MODULE_PATHNAME', 'snowflake_node' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_node(id snowflake, epoch timestamptz, time_bits int, node_bits int, sequence_bits int)
    RETURNS int4 AS 'MODULE_PATHNAME', 'snowflake_node' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_sequence(id snowflake, layout text DEFAULT 'twitter') RETURNS int4
    AS 'MODULE_PATHNAME', 'snowflake_sequence' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_sequence(id snowflake, epoch timestamptz, time_bits int, node_bits int, sequence_bits int)
    RETURNS int4 AS 'MODULE_PATHNAME', 'snowflake_sequence' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_time(snowflake, text) IS 'start of the time unit inside a snowflake of a built-in layout';
COMMENT ON FUNCTION snowflake_time(snowflake, timestamptz, int, int, int) IS 'time inside a snowflake of a custom layout';
COMMENT ON FUNCTION snowflake_node(snowflake, text) IS 'node (machine, shard) field of a snowflake of a built-in layout';
COMMENT ON FUNCTION snowflake_node(snowflake, timestamptz, int, int, int) IS 'node field of a snowflake of a custom layout';
COMMENT ON FUNCTION snowflake_sequence(snowflake, text) IS 'sequence field of a snowflake of a built-in layout';
COMMENT ON FUNCTION snowflake_sequence(snowflake, timestamptz, int, int, int) IS 'sequence field of a snowflake of a custom layout';

-- Range helpers: every snowflake of the time unit containing `at` lies in [lower, upper].
CREATE FUNCTION snowflake_lower(at timestamptz, layout text DEFAULT 'twitter') RETURNS snowflake
    AS 'MODULE_PATHNAME', 'snowflake_lower' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_lower(at timestamptz, epoch timestamptz, time_bits int, node_bits int, sequence_bits int)
    RETURNS snowflake AS 'MODULE_PATHNAME', 'snowflake_lower' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_upper(at timestamptz, layout text DEFAULT 'twitter') RETURNS snowflake
    AS 'MODULE_PATHNAME', 'snowflake_upper' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_upper(at timestamptz, epoch timestamptz, time_bits int, node_bits int, sequence_bits int)
    RETURNS snowflake AS 'MODULE_PATHNAME', 'snowflake_upper' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_lower(timestamptz, text) IS 'smallest snowflake (any node) of the time unit containing the given time';
COMMENT ON FUNCTION snowflake_lower(timestamptz, timestamptz, int, int, int) IS 'smallest snowflake of a custom layout at the given time';
COMMENT ON FUNCTION snowflake_upper(timestamptz, text) IS 'largest snowflake (any node) of the time unit containing the given time';
COMMENT ON FUNCTION snowflake_upper(timestamptz, timestamptz, int, int, int) IS 'largest snowflake of a custom layout at the given time';

-- base36: 13 lower-case characters of 0-9a-z, fixed width so text order = numeric order.
CREATE FUNCTION snowflake_to_base36(snowflake) RETURNS text
    AS 'MODULE_PATHNAME', 'snowflake_to_base36' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_from_base36(text) RETURNS snowflake
    AS 'MODULE_PATHNAME', 'snowflake_from_base36' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_to_base36(snowflake) IS 'snowflake as 13 base36 characters (0-9a-z)';
COMMENT ON FUNCTION snowflake_from_base36(text) IS 'snowflake from 13 base36 characters, either case';
-- The same service under the names base36 gives the other ID kinds, and casts to its 64-bit type.
-- base36_64 holds 0..2^63-1 in int8 bits, so every snowflake is valid there (no function); the way
-- back rejects 0, the one base36_64 value that is not a snowflake.
CREATE FUNCTION base36_encode(snowflake) RETURNS text
    AS 'MODULE_PATHNAME', 'snowflake_to_base36' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION base36_encode(snowflake) IS 'snowflake as 13 base36 characters (0-9a-z)';
CREATE FUNCTION snowflake(base36_64) RETURNS snowflake
    AS 'MODULE_PATHNAME', 'snowflake_from_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake(base36_64) IS 'base36_64 to snowflake; 22003 for 0';
CREATE CAST (snowflake AS base36_64) WITHOUT FUNCTION;
CREATE CAST (base36_64 AS snowflake) WITH FUNCTION snowflake(base36_64);

-- Node generators. The node number comes from id_gen.node_id; state is shared by every backend
-- of the server (shared memory when preloaded, a locked file otherwise): VOLATILE, PARALLEL UNSAFE.
CREATE FUNCTION gen_snowflake() RETURNS snowflake
    AS 'MODULE_PATHNAME', 'gen_snowflake' LANGUAGE C VOLATILE PARALLEL UNSAFE;
CREATE FUNCTION gen_snowflake(layout text) RETURNS snowflake
    AS 'MODULE_PATHNAME', 'gen_snowflake' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION gen_snowflake() IS 'new twitter-layout snowflake for node id_gen.node_id; never repeats on this server';
COMMENT ON FUNCTION gen_snowflake(text) IS 'new snowflake of a built-in layout (twitter, sonyflake, javascript) for node id_gen.node_id';
