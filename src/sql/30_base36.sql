-------------------------------------------------------------------------------
-- base36: fixed-width lower-case base36 text for 64- and 128-bit IDs.
--
-- Two types whose text form is base36 and whose storage is the number itself:
--   base36_64   an int8 by value, 0 .. 2^63-1 (every bigint >= 0, every snowflake); 13 characters
--   base36_128  16 bytes, big-endian, exactly a uuid's (and a ulid's) bytes; 25 characters
-- Storing the number (8 or 16 bytes) instead of the text (14 or 26 bytes + header) keeps tables and
-- indexes small, makes the casts to and from the ID types free, and gives numeric order under
-- every collation: the btree and hash opclasses are the built-in int8 and uuid ones.
-------------------------------------------------------------------------------
CREATE TYPE base36_64;

CREATE FUNCTION base36_64_in(cstring) RETURNS base36_64
    AS 'MODULE_PATHNAME', 'base36_64_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION base36_64_out(base36_64) RETURNS cstring
    AS 'MODULE_PATHNAME', 'base36_64_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION base36_64_recv(internal) RETURNS base36_64
    AS 'MODULE_PATHNAME', 'base36_64_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION base36_64_send(base36_64) RETURNS bytea
    AS 'int8send' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION base36_64_in(cstring) IS 'base36_64 input: 1 or more base36 digits, either case, value at most 2^63-1';
COMMENT ON FUNCTION base36_64_out(base36_64) IS 'base36_64 output: 13 lower-case base36 digits, zero-padded';
COMMENT ON FUNCTION base36_64_recv(internal) IS 'base36_64 binary input: a non-negative int8';
COMMENT ON FUNCTION base36_64_send(base36_64) IS 'base36_64 binary output: the int8';

CREATE TYPE base36_64 (
    INPUT = base36_64_in,
    OUTPUT = base36_64_out,
    RECEIVE = base36_64_recv,
    SEND = base36_64_send,
    LIKE = pg_catalog.int8,   -- 8 bytes, by value, double alignment: the number itself
    CATEGORY = 'U'
);
COMMENT ON TYPE base36_64 IS '64-bit ID (0 .. 2^63-1) shown as 13 fixed-width lower-case base36 digits';

CREATE TYPE base36_128;

CREATE FUNCTION base36_128_in(cstring) RETURNS base36_128
    AS 'MODULE_PATHNAME', 'base36_128_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION base36_128_out(base36_128) RETURNS cstring
    AS 'MODULE_PATHNAME', 'base36_128_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION base36_128_recv(internal) RETURNS base36_128
    AS 'uuid_recv' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION base36_128_send(base36_128) RETURNS bytea
    AS 'uuid_send' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION base36_128_in(cstring) IS 'base36_128 input: 1 or more base36 digits, either case, value below 2^128';
COMMENT ON FUNCTION base36_128_out(base36_128) IS 'base36_128 output: 25 lower-case base36 digits, zero-padded';
COMMENT ON FUNCTION base36_128_recv(internal) IS 'base36_128 binary input: 16 bytes, big-endian';
COMMENT ON FUNCTION base36_128_send(base36_128) IS 'base36_128 binary output: 16 bytes, big-endian';

CREATE TYPE base36_128 (
    INPUT = base36_128_in,
    OUTPUT = base36_128_out,
    RECEIVE = base36_128_recv,
    SEND = base36_128_send,
    LIKE = pg_catalog.uuid,   -- 16 bytes, by reference, char alignment: a uuid's bytes
    CATEGORY = 'U'
);
COMMENT ON TYPE base36_128 IS '128-bit ID shown as 25 fixed-width lower-case base36 digits';

-- base36_64: comparison and hashing are int8's (values are never negative, so signed order is
-- numeric order); the hash equals hashint8 on the same number.
CREATE FUNCTION base36_64_eq(base36_64, base36_64) RETURNS bool AS 'int8eq' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION base36_64_ne(base36_64, base36_64) RETURNS bool AS 'int8ne' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION base36_64_lt(base36_64, base36_64) RETURNS bool AS 'int8lt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION base36_64_le(base36_64, base36_64) RETURNS bool AS 'int8le' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION base36_64_gt(base36_64, base36_64) RETURNS bool AS 'int8gt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION base36_64_ge(base36_64, base36_64) RETURNS bool AS 'int8ge' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION base36_64_cmp(base36_64, base36_64) RETURNS int4 AS 'btint8cmp' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION base36_64_sortsupport(internal) RETURNS void AS 'btint8sortsupport' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION base36_64_hash(base36_64) RETURNS int4 AS 'hashint8' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION base36_64_hash_extended(base36_64, int8) RETURNS int8 AS 'hashint8extended' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OPERATOR = (
    LEFTARG = base36_64, RIGHTARG = base36_64, PROCEDURE = base36_64_eq,
    COMMUTATOR = '=', NEGATOR = '<>', RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR <> (
    LEFTARG = base36_64, RIGHTARG = base36_64, PROCEDURE = base36_64_ne,
    COMMUTATOR = '<>', NEGATOR = '=', RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR < (
    LEFTARG = base36_64, RIGHTARG = base36_64, PROCEDURE = base36_64_lt,
    COMMUTATOR = '>', NEGATOR = '>=', RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
    LEFTARG = base36_64, RIGHTARG = base36_64, PROCEDURE = base36_64_le,
    COMMUTATOR = '>=', NEGATOR = '>', RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR > (
    LEFTARG = base36_64, RIGHTARG = base36_64, PROCEDURE = base36_64_gt,
    COMMUTATOR = '<', NEGATOR = '<=', RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR >= (
    LEFTARG = base36_64, RIGHTARG = base36_64, PROCEDURE = base36_64_ge,
    COMMUTATOR = '<=', NEGATOR = '<', RESTRICT = scalargesel, JOIN = scalargejoinsel
);

CREATE OPERATOR CLASS base36_64_ops DEFAULT FOR TYPE base36_64 USING btree AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 base36_64_cmp(base36_64, base36_64),
    FUNCTION 2 base36_64_sortsupport(internal),
    FUNCTION 4 pg_catalog.btequalimage(oid);

CREATE OPERATOR CLASS base36_64_ops DEFAULT FOR TYPE base36_64 USING hash AS
    OPERATOR 1 =,
    FUNCTION 1 base36_64_hash(base36_64),
    FUNCTION 2 base36_64_hash_extended(base36_64, int8);

-- base36_128: the bytes are a uuid's, so uuid's comparison (unsigned big-endian = numeric order)
-- and hash serve.
CREATE FUNCTION base36_128_eq(base36_128, base36_128) RETURNS bool AS 'uuid_eq' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION base36_128_ne(base36_128, base36_128) RETURNS bool AS 'uuid_ne' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION base36_128_lt(base36_128, base36_128) RETURNS bool AS 'uuid_lt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION base36_128_le(base36_128, base36_128) RETURNS bool AS 'uuid_le' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION base36_128_gt(base36_128, base36_128) RETURNS bool AS 'uuid_gt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION base36_128_ge(base36_128, base36_128) RETURNS bool AS 'uuid_ge' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION base36_128_cmp(base36_128, base36_128) RETURNS int4 AS 'uuid_cmp' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION base36_128_sortsupport(internal) RETURNS void AS 'uuid_sortsupport' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION base36_128_hash(base36_128) RETURNS int4 AS 'uuid_hash' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION base36_128_hash_extended(base36_128, int8) RETURNS int8 AS 'uuid_hash_extended' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OPERATOR = (
    LEFTARG = base36_128, RIGHTARG = base36_128, PROCEDURE = base36_128_eq,
    COMMUTATOR = '=', NEGATOR = '<>', RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR <> (
    LEFTARG = base36_128, RIGHTARG = base36_128, PROCEDURE = base36_128_ne,
    COMMUTATOR = '<>', NEGATOR = '=', RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR < (
    LEFTARG = base36_128, RIGHTARG = base36_128, PROCEDURE = base36_128_lt,
    COMMUTATOR = '>', NEGATOR = '>=', RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
    LEFTARG = base36_128, RIGHTARG = base36_128, PROCEDURE = base36_128_le,
    COMMUTATOR = '>=', NEGATOR = '>', RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR > (
    LEFTARG = base36_128, RIGHTARG = base36_128, PROCEDURE = base36_128_gt,
    COMMUTATOR = '<', NEGATOR = '<=', RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR >= (
    LEFTARG = base36_128, RIGHTARG = base36_128, PROCEDURE = base36_128_ge,
    COMMUTATOR = '<=', NEGATOR = '<', RESTRICT = scalargesel, JOIN = scalargejoinsel
);

CREATE OPERATOR CLASS base36_128_ops DEFAULT FOR TYPE base36_128 USING btree AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 base36_128_cmp(base36_128, base36_128),
    FUNCTION 2 base36_128_sortsupport(internal),
    FUNCTION 4 pg_catalog.btequalimage(oid);

CREATE OPERATOR CLASS base36_128_ops DEFAULT FOR TYPE base36_128 USING hash AS
    OPERATOR 1 =,
    FUNCTION 1 base36_128_hash(base36_128),
    FUNCTION 2 base36_128_hash_extended(base36_128, int8);

-- BRIN minmax operator classes of both types: the btree operators of each type, with the built-in
-- minmax support functions.
CREATE OPERATOR CLASS base36_64_minmax_ops DEFAULT FOR TYPE base36_64 USING brin AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 pg_catalog.brin_minmax_opcinfo(internal),
    FUNCTION 2 pg_catalog.brin_minmax_add_value(internal, internal, internal, internal),
    FUNCTION 3 pg_catalog.brin_minmax_consistent(internal, internal, internal),
    FUNCTION 4 pg_catalog.brin_minmax_union(internal, internal, internal);

CREATE OPERATOR CLASS base36_128_minmax_ops DEFAULT FOR TYPE base36_128 USING brin AS
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
CREATE FUNCTION base36_64_smaller(base36_64, base36_64) RETURNS base36_64
    AS 'int8smaller' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION base36_64_larger(base36_64, base36_64) RETURNS base36_64
    AS 'int8larger' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
CREATE AGGREGATE min(base36_64) (
    SFUNC = base36_64_smaller, STYPE = base36_64, COMBINEFUNC = base36_64_smaller, SORTOP = <, PARALLEL = SAFE
);
CREATE AGGREGATE max(base36_64) (
    SFUNC = base36_64_larger, STYPE = base36_64, COMBINEFUNC = base36_64_larger, SORTOP = >, PARALLEL = SAFE
);
-- The ulid versions compare 16 bytes and return one of the inputs: the same code serves.
CREATE FUNCTION base36_128_smaller(base36_128, base36_128) RETURNS base36_128
    AS 'MODULE_PATHNAME', 'ulid_smaller' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION base36_128_larger(base36_128, base36_128) RETURNS base36_128
    AS 'MODULE_PATHNAME', 'ulid_larger' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE AGGREGATE min(base36_128) (
    SFUNC = base36_128_smaller, STYPE = base36_128, COMBINEFUNC = base36_128_smaller, SORTOP = <, PARALLEL = SAFE
);
CREATE AGGREGATE max(base36_128) (
    SFUNC = base36_128_larger, STYPE = base36_128, COMBINEFUNC = base36_128_larger, SORTOP = >, PARALLEL = SAFE
);

-- Casts, all explicit. Same bytes and every source value valid in the target: no function.
-- bigint -> base36_64 checks the sign. (snowflake <-> base36_64 is declared with snowflake.)
CREATE FUNCTION base36_64(bigint) RETURNS base36_64
    AS 'MODULE_PATHNAME', 'base36_64_from_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION base36_64(bigint) IS 'a non-negative bigint as base36_64; negative values are out of range';
CREATE CAST (bigint AS base36_64) WITH FUNCTION base36_64(bigint);
CREATE CAST (base36_64 AS bigint) WITHOUT FUNCTION;
CREATE CAST (uuid AS base36_128) WITHOUT FUNCTION;
CREATE CAST (base36_128 AS uuid) WITHOUT FUNCTION;
CREATE CAST (ulid AS base36_128) WITHOUT FUNCTION;
CREATE CAST (base36_128 AS ulid) WITHOUT FUNCTION;

-- Named functions, for expressions and expression indexes: ID -> fixed-width text, text -> ID.
-- (Text to ulid: base36_decode_uuid(t)::ulid or t::base36_128::ulid, both free casts.)
CREATE FUNCTION base36_encode(uuid) RETURNS text
    AS 'MODULE_PATHNAME', 'base36_encode_128' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION base36_encode(ulid) RETURNS text
    AS 'MODULE_PATHNAME', 'base36_encode_128' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION base36_encode(bigint) RETURNS text
    AS 'MODULE_PATHNAME', 'base36_encode_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION base36_encode(uuid) IS 'the uuid as a 128-bit number in 25 lower-case base36 digits';
COMMENT ON FUNCTION base36_encode(ulid) IS 'the ulid as a 128-bit number in 25 lower-case base36 digits';
COMMENT ON FUNCTION base36_encode(bigint) IS 'a non-negative bigint in 13 lower-case base36 digits';
CREATE FUNCTION base36_decode_uuid(text) RETURNS uuid
    AS 'MODULE_PATHNAME', 'base36_decode_128' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION base36_decode_bigint(text) RETURNS bigint
    AS 'MODULE_PATHNAME', 'base36_decode_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION base36_decode_uuid(text) IS 'base36 digits (either case, padding optional) as a uuid';
COMMENT ON FUNCTION base36_decode_bigint(text) IS 'base36 digits (either case, padding optional) as a bigint';
