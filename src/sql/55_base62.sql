-------------------------------------------------------------------------------
-- base62: fixed-width base62 text (0-9A-Za-z) for 64- and 128-bit IDs.
--
-- Two types whose text form is base62 and whose storage is the number itself, as base36's:
--   base62_64   an int8 by value, 0 .. 2^63-1 (every bigint >= 0, every snowflake); 11 characters
--   base62_128  16 bytes, big-endian, exactly a uuid's (and a ulid's) bytes; 22 characters
-- The alphabet is in ASCII order, so the text sorts as the number under a bytewise collation
-- ("C"); other collations fold case and do not. The types compare as numbers under every
-- collation: the btree, hash and BRIN opclasses are the built-in int8 and uuid ones.
-- Input is strict: exactly 11 / 22 characters, case-sensitive (case is part of the digit).
-------------------------------------------------------------------------------
CREATE TYPE base62_64;

CREATE FUNCTION base62_64_in(cstring) RETURNS base62_64
    AS 'MODULE_PATHNAME', 'base62_64_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION base62_64_out(base62_64) RETURNS cstring
    AS 'MODULE_PATHNAME', 'base62_64_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION base62_64_recv(internal) RETURNS base62_64
    AS 'MODULE_PATHNAME', 'base62_64_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION base62_64_send(base62_64) RETURNS bytea
    AS 'int8send' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION base62_64_in(cstring) IS 'base62_64 input: exactly 11 base62 digits (0-9A-Za-z, case-sensitive), value at most 2^63-1';
COMMENT ON FUNCTION base62_64_out(base62_64) IS 'base62_64 output: 11 base62 digits, zero-padded';
COMMENT ON FUNCTION base62_64_recv(internal) IS 'base62_64 binary input: a non-negative int8';
COMMENT ON FUNCTION base62_64_send(base62_64) IS 'base62_64 binary output: the int8';

CREATE TYPE base62_64 (
    INPUT = base62_64_in,
    OUTPUT = base62_64_out,
    RECEIVE = base62_64_recv,
    SEND = base62_64_send,
    LIKE = pg_catalog.int8,   -- 8 bytes, by value, double alignment: the number itself
    CATEGORY = 'U'
);
COMMENT ON TYPE base62_64 IS '64-bit ID (0 .. 2^63-1) shown as 11 fixed-width base62 digits (0-9A-Za-z)';

CREATE TYPE base62_128;

CREATE FUNCTION base62_128_in(cstring) RETURNS base62_128
    AS 'MODULE_PATHNAME', 'base62_128_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION base62_128_out(base62_128) RETURNS cstring
    AS 'MODULE_PATHNAME', 'base62_128_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION base62_128_recv(internal) RETURNS base62_128
    AS 'uuid_recv' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION base62_128_send(base62_128) RETURNS bytea
    AS 'uuid_send' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION base62_128_in(cstring) IS 'base62_128 input: exactly 22 base62 digits (0-9A-Za-z, case-sensitive), value below 2^128';
COMMENT ON FUNCTION base62_128_out(base62_128) IS 'base62_128 output: 22 base62 digits, zero-padded';
COMMENT ON FUNCTION base62_128_recv(internal) IS 'base62_128 binary input: 16 bytes, big-endian';
COMMENT ON FUNCTION base62_128_send(base62_128) IS 'base62_128 binary output: 16 bytes, big-endian';

CREATE TYPE base62_128 (
    INPUT = base62_128_in,
    OUTPUT = base62_128_out,
    RECEIVE = base62_128_recv,
    SEND = base62_128_send,
    LIKE = pg_catalog.uuid,   -- 16 bytes, by reference, char alignment: a uuid's bytes
    CATEGORY = 'U'
);
COMMENT ON TYPE base62_128 IS '128-bit ID shown as 22 fixed-width base62 digits (0-9A-Za-z)';

-- base62_64: comparison and hashing are int8's (values are never negative, so signed order is
-- numeric order); the hash equals hashint8 on the same number.
CREATE FUNCTION base62_64_eq(base62_64, base62_64) RETURNS bool AS 'int8eq' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION base62_64_ne(base62_64, base62_64) RETURNS bool AS 'int8ne' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION base62_64_lt(base62_64, base62_64) RETURNS bool AS 'int8lt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION base62_64_le(base62_64, base62_64) RETURNS bool AS 'int8le' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION base62_64_gt(base62_64, base62_64) RETURNS bool AS 'int8gt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION base62_64_ge(base62_64, base62_64) RETURNS bool AS 'int8ge' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION base62_64_cmp(base62_64, base62_64) RETURNS int4 AS 'btint8cmp' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION base62_64_sortsupport(internal) RETURNS void AS 'btint8sortsupport' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION base62_64_hash(base62_64) RETURNS int4 AS 'hashint8' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION base62_64_hash_extended(base62_64, int8) RETURNS int8 AS 'hashint8extended' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OPERATOR = (
    LEFTARG = base62_64, RIGHTARG = base62_64, PROCEDURE = base62_64_eq,
    COMMUTATOR = '=', NEGATOR = '<>', RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR <> (
    LEFTARG = base62_64, RIGHTARG = base62_64, PROCEDURE = base62_64_ne,
    COMMUTATOR = '<>', NEGATOR = '=', RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR < (
    LEFTARG = base62_64, RIGHTARG = base62_64, PROCEDURE = base62_64_lt,
    COMMUTATOR = '>', NEGATOR = '>=', RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
    LEFTARG = base62_64, RIGHTARG = base62_64, PROCEDURE = base62_64_le,
    COMMUTATOR = '>=', NEGATOR = '>', RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR > (
    LEFTARG = base62_64, RIGHTARG = base62_64, PROCEDURE = base62_64_gt,
    COMMUTATOR = '<', NEGATOR = '<=', RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR >= (
    LEFTARG = base62_64, RIGHTARG = base62_64, PROCEDURE = base62_64_ge,
    COMMUTATOR = '<=', NEGATOR = '<', RESTRICT = scalargesel, JOIN = scalargejoinsel
);

CREATE OPERATOR CLASS base62_64_ops DEFAULT FOR TYPE base62_64 USING btree AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 base62_64_cmp(base62_64, base62_64),
    FUNCTION 2 base62_64_sortsupport(internal),
    FUNCTION 4 pg_catalog.btequalimage(oid);

CREATE OPERATOR CLASS base62_64_ops DEFAULT FOR TYPE base62_64 USING hash AS
    OPERATOR 1 =,
    FUNCTION 1 base62_64_hash(base62_64),
    FUNCTION 2 base62_64_hash_extended(base62_64, int8);

-- base62_128: the bytes are a uuid's, so uuid's comparison (unsigned big-endian = numeric order)
-- and hash serve.
CREATE FUNCTION base62_128_eq(base62_128, base62_128) RETURNS bool AS 'uuid_eq' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION base62_128_ne(base62_128, base62_128) RETURNS bool AS 'uuid_ne' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION base62_128_lt(base62_128, base62_128) RETURNS bool AS 'uuid_lt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION base62_128_le(base62_128, base62_128) RETURNS bool AS 'uuid_le' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION base62_128_gt(base62_128, base62_128) RETURNS bool AS 'uuid_gt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION base62_128_ge(base62_128, base62_128) RETURNS bool AS 'uuid_ge' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION base62_128_cmp(base62_128, base62_128) RETURNS int4 AS 'uuid_cmp' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION base62_128_sortsupport(internal) RETURNS void AS 'uuid_sortsupport' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION base62_128_hash(base62_128) RETURNS int4 AS 'uuid_hash' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION base62_128_hash_extended(base62_128, int8) RETURNS int8 AS 'uuid_hash_extended' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OPERATOR = (
    LEFTARG = base62_128, RIGHTARG = base62_128, PROCEDURE = base62_128_eq,
    COMMUTATOR = '=', NEGATOR = '<>', RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR <> (
    LEFTARG = base62_128, RIGHTARG = base62_128, PROCEDURE = base62_128_ne,
    COMMUTATOR = '<>', NEGATOR = '=', RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR < (
    LEFTARG = base62_128, RIGHTARG = base62_128, PROCEDURE = base62_128_lt,
    COMMUTATOR = '>', NEGATOR = '>=', RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
    LEFTARG = base62_128, RIGHTARG = base62_128, PROCEDURE = base62_128_le,
    COMMUTATOR = '>=', NEGATOR = '>', RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR > (
    LEFTARG = base62_128, RIGHTARG = base62_128, PROCEDURE = base62_128_gt,
    COMMUTATOR = '<', NEGATOR = '<=', RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR >= (
    LEFTARG = base62_128, RIGHTARG = base62_128, PROCEDURE = base62_128_ge,
    COMMUTATOR = '<=', NEGATOR = '<', RESTRICT = scalargesel, JOIN = scalargejoinsel
);

CREATE OPERATOR CLASS base62_128_ops DEFAULT FOR TYPE base62_128 USING btree AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 base62_128_cmp(base62_128, base62_128),
    FUNCTION 2 base62_128_sortsupport(internal),
    FUNCTION 4 pg_catalog.btequalimage(oid);

CREATE OPERATOR CLASS base62_128_ops DEFAULT FOR TYPE base62_128 USING hash AS
    OPERATOR 1 =,
    FUNCTION 1 base62_128_hash(base62_128),
    FUNCTION 2 base62_128_hash_extended(base62_128, int8);

-- min() / max(), with sort operators so the planner can answer them from a btree index.
CREATE FUNCTION base62_64_smaller(base62_64, base62_64) RETURNS base62_64
    AS 'int8smaller' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION base62_64_larger(base62_64, base62_64) RETURNS base62_64
    AS 'int8larger' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
CREATE AGGREGATE min(base62_64) (
    SFUNC = base62_64_smaller, STYPE = base62_64, COMBINEFUNC = base62_64_smaller, SORTOP = <, PARALLEL = SAFE
);
CREATE AGGREGATE max(base62_64) (
    SFUNC = base62_64_larger, STYPE = base62_64, COMBINEFUNC = base62_64_larger, SORTOP = >, PARALLEL = SAFE
);
-- The ulid versions compare 16 bytes and return one of the inputs: the same code serves.
CREATE FUNCTION base62_128_smaller(base62_128, base62_128) RETURNS base62_128
    AS 'MODULE_PATHNAME', 'ulid_smaller' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION base62_128_larger(base62_128, base62_128) RETURNS base62_128
    AS 'MODULE_PATHNAME', 'ulid_larger' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE AGGREGATE min(base62_128) (
    SFUNC = base62_128_smaller, STYPE = base62_128, COMBINEFUNC = base62_128_smaller, SORTOP = <, PARALLEL = SAFE
);
CREATE AGGREGATE max(base62_128) (
    SFUNC = base62_128_larger, STYPE = base62_128, COMBINEFUNC = base62_128_larger, SORTOP = >, PARALLEL = SAFE
);

CREATE OPERATOR CLASS base62_64_minmax_ops DEFAULT FOR TYPE base62_64 USING brin AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 pg_catalog.brin_minmax_opcinfo(internal),
    FUNCTION 2 pg_catalog.brin_minmax_add_value(internal, internal, internal, internal),
    FUNCTION 3 pg_catalog.brin_minmax_consistent(internal, internal, internal),
    FUNCTION 4 pg_catalog.brin_minmax_union(internal, internal, internal);

CREATE OPERATOR CLASS base62_128_minmax_ops DEFAULT FOR TYPE base62_128 USING brin AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 pg_catalog.brin_minmax_opcinfo(internal),
    FUNCTION 2 pg_catalog.brin_minmax_add_value(internal, internal, internal, internal),
    FUNCTION 3 pg_catalog.brin_minmax_consistent(internal, internal, internal),
    FUNCTION 4 pg_catalog.brin_minmax_union(internal, internal, internal);

-- Casts, all explicit. Same bytes and every source value valid in the target: no function.
-- bigint -> base62_64 checks the sign; base62_64 -> snowflake rejects 0 (not a snowflake).
CREATE FUNCTION base62_64(bigint) RETURNS base62_64
    AS 'MODULE_PATHNAME', 'base62_64_from_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION base62_64(bigint) IS 'a non-negative bigint as base62_64; negative values are out of range';
CREATE CAST (bigint AS base62_64) WITH FUNCTION base62_64(bigint);
CREATE CAST (base62_64 AS bigint) WITHOUT FUNCTION;
CREATE CAST (uuid AS base62_128) WITHOUT FUNCTION;
CREATE CAST (base62_128 AS uuid) WITHOUT FUNCTION;
CREATE CAST (ulid AS base62_128) WITHOUT FUNCTION;
CREATE CAST (base62_128 AS ulid) WITHOUT FUNCTION;
CREATE FUNCTION snowflake(base62_64) RETURNS snowflake
    AS 'MODULE_PATHNAME', 'snowflake_from_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake(base62_64) IS 'base62_64 to snowflake; 22003 for 0';
CREATE CAST (snowflake AS base62_64) WITHOUT FUNCTION;
CREATE CAST (base62_64 AS snowflake) WITH FUNCTION snowflake(base62_64);

-- Named functions, for expressions and expression indexes: ID -> fixed-width text, text -> ID.
CREATE FUNCTION base62_encode(uuid) RETURNS text
    AS 'MODULE_PATHNAME', 'base62_encode_128' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION base62_encode(ulid) RETURNS text
    AS 'MODULE_PATHNAME', 'base62_encode_128' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION base62_encode(bigint) RETURNS text
    AS 'MODULE_PATHNAME', 'base62_encode_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION base62_encode(snowflake) RETURNS text
    AS 'MODULE_PATHNAME', 'base62_encode_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION base62_encode(uuid) IS 'the uuid as a 128-bit number in 22 base62 digits (0-9A-Za-z)';
COMMENT ON FUNCTION base62_encode(ulid) IS 'the ulid as a 128-bit number in 22 base62 digits (0-9A-Za-z)';
COMMENT ON FUNCTION base62_encode(bigint) IS 'a non-negative bigint in 11 base62 digits (0-9A-Za-z)';
COMMENT ON FUNCTION base62_encode(snowflake) IS 'snowflake in 11 base62 digits (0-9A-Za-z)';
CREATE FUNCTION base62_decode_uuid(text) RETURNS uuid
    AS 'MODULE_PATHNAME', 'base62_decode_128' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION base62_decode_bigint(text) RETURNS bigint
    AS 'MODULE_PATHNAME', 'base62_decode_int8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION base62_decode_uuid(text) IS 'exactly 22 base62 digits (0-9A-Za-z, case-sensitive) as a uuid';
COMMENT ON FUNCTION base62_decode_bigint(text) IS 'exactly 11 base62 digits (0-9A-Za-z, case-sensitive) as a bigint';

-- Prefixed IDs with the body encoding chosen: body => 'base36' (25 characters, what the functions
-- without the argument write and read) or 'base62' (22 characters). The encoding is never guessed
-- from the length. The same C entry points as the two-argument forms.
CREATE FUNCTION prefixed_format(prefix text, id uuid, body text) RETURNS text
    AS 'MODULE_PATHNAME', 'prefixed_format' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION prefixed_format(text, uuid, text) IS 'a stored ID as prefixed text: prefix, ''_'', the body in base36 or base62';
CREATE FUNCTION prefixed_parse(prefix text, value text, body text) RETURNS uuid
    AS 'MODULE_PATHNAME', 'prefixed_parse' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION prefixed_parse(text, text, text) IS 'the ID in prefixed text with a body in the given encoding, whose prefix must be the given one (22P02 otherwise)';
CREATE FUNCTION prefixed_split(value text, body text, OUT prefix text, OUT id uuid) RETURNS record
    AS 'MODULE_PATHNAME', 'prefixed_split' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION prefixed_split(text, text) IS 'prefixed text of unknown type, body in the given encoding, as (prefix, id)';
CREATE FUNCTION gen_prefixed(prefix text, body text) RETURNS text
    AS 'MODULE_PATHNAME', 'gen_prefixed' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION gen_prefixed(text, text) IS 'new prefixed ID (a UUIDv7, body in base36 or base62) for a registered prefix';
