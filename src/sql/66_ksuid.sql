-------------------------------------------------------------------------------
-- ksuid: Segment's K-Sortable Unique IDentifier.
--
-- 20 bytes: a 4-byte big-endian count of seconds since the KSUID epoch 1,400,000,000
-- (2014-05-13 16:53:20 UTC), then a 16-byte payload (CSPRNG). Text is 27 base62 characters
-- (0-9A-Za-z), left-padded with '0'; the largest value is aWgEPTl1tmebfsQzFP4bxwgy80V. Byte order
-- = time order = text order under COLLATE "C".
-------------------------------------------------------------------------------
CREATE TYPE ksuid;

CREATE FUNCTION ksuid_in(cstring) RETURNS ksuid
    AS 'MODULE_PATHNAME', 'ksuid_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ksuid_out(ksuid) RETURNS cstring
    AS 'MODULE_PATHNAME', 'ksuid_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ksuid_recv(internal) RETURNS ksuid
    AS 'MODULE_PATHNAME', 'ksuid_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ksuid_send(ksuid) RETURNS bytea
    AS 'MODULE_PATHNAME', 'ksuid_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ksuid_in(cstring) IS 'ksuid input: exactly 27 base62 characters (0-9A-Za-z, case-significant)';
COMMENT ON FUNCTION ksuid_out(ksuid) IS 'ksuid output: 27 base62 characters';
COMMENT ON FUNCTION ksuid_recv(internal) IS 'ksuid binary input: the 20 bytes';
COMMENT ON FUNCTION ksuid_send(ksuid) IS 'ksuid binary output: the 20 bytes';

CREATE TYPE ksuid (
    INPUT = ksuid_in,
    OUTPUT = ksuid_out,
    RECEIVE = ksuid_recv,
    SEND = ksuid_send,
    INTERNALLENGTH = 20,
    ALIGNMENT = char,
    STORAGE = plain,
    CATEGORY = 'U'
);
COMMENT ON TYPE ksuid IS 'KSUID: 4-byte seconds since 2014-05-13 16:53:20 UTC, 16-byte random payload';

-- Comparison is memcmp over the 20 bytes; the hash is hash_any over them.
CREATE FUNCTION ksuid_eq(ksuid, ksuid) RETURNS bool AS 'MODULE_PATHNAME', 'ksuid_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ksuid_ne(ksuid, ksuid) RETURNS bool AS 'MODULE_PATHNAME', 'ksuid_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ksuid_lt(ksuid, ksuid) RETURNS bool AS 'MODULE_PATHNAME', 'ksuid_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ksuid_le(ksuid, ksuid) RETURNS bool AS 'MODULE_PATHNAME', 'ksuid_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ksuid_gt(ksuid, ksuid) RETURNS bool AS 'MODULE_PATHNAME', 'ksuid_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ksuid_ge(ksuid, ksuid) RETURNS bool AS 'MODULE_PATHNAME', 'ksuid_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ksuid_cmp(ksuid, ksuid) RETURNS int4 AS 'MODULE_PATHNAME', 'ksuid_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ksuid_sortsupport(internal) RETURNS void AS 'MODULE_PATHNAME', 'ksuid_sortsupport' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ksuid_hash(ksuid) RETURNS int4 AS 'MODULE_PATHNAME', 'ksuid_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ksuid_hash_extended(ksuid, int8) RETURNS int8 AS 'MODULE_PATHNAME', 'ksuid_hash_extended' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OPERATOR = (
    LEFTARG = ksuid, RIGHTARG = ksuid, PROCEDURE = ksuid_eq,
    COMMUTATOR = '=', NEGATOR = '<>', RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR <> (
    LEFTARG = ksuid, RIGHTARG = ksuid, PROCEDURE = ksuid_ne,
    COMMUTATOR = '<>', NEGATOR = '=', RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR < (
    LEFTARG = ksuid, RIGHTARG = ksuid, PROCEDURE = ksuid_lt,
    COMMUTATOR = '>', NEGATOR = '>=', RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
    LEFTARG = ksuid, RIGHTARG = ksuid, PROCEDURE = ksuid_le,
    COMMUTATOR = '>=', NEGATOR = '>', RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR > (
    LEFTARG = ksuid, RIGHTARG = ksuid, PROCEDURE = ksuid_gt,
    COMMUTATOR = '<', NEGATOR = '<=', RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR >= (
    LEFTARG = ksuid, RIGHTARG = ksuid, PROCEDURE = ksuid_ge,
    COMMUTATOR = '<=', NEGATOR = '<', RESTRICT = scalargesel, JOIN = scalargejoinsel
);

CREATE OPERATOR CLASS ksuid_ops DEFAULT FOR TYPE ksuid USING btree AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 ksuid_cmp(ksuid, ksuid),
    FUNCTION 2 ksuid_sortsupport(internal),
    FUNCTION 4 pg_catalog.btequalimage(oid);

-- hash_any over the bytes; never change it (hash partitions depend on it).
CREATE OPERATOR CLASS ksuid_ops DEFAULT FOR TYPE ksuid USING hash AS
    OPERATOR 1 =,
    FUNCTION 1 ksuid_hash(ksuid),
    FUNCTION 2 ksuid_hash_extended(ksuid, int8);

CREATE OPERATOR CLASS ksuid_minmax_ops DEFAULT FOR TYPE ksuid USING brin AS
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
CREATE FUNCTION ksuid_smaller(ksuid, ksuid) RETURNS ksuid
    AS 'MODULE_PATHNAME', 'ksuid_smaller' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ksuid_larger(ksuid, ksuid) RETURNS ksuid
    AS 'MODULE_PATHNAME', 'ksuid_larger' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE AGGREGATE min(ksuid) (
    SFUNC = ksuid_smaller, STYPE = ksuid, COMBINEFUNC = ksuid_smaller, SORTOP = <, PARALLEL = SAFE
);
CREATE AGGREGATE max(ksuid) (
    SFUNC = ksuid_larger, STYPE = ksuid, COMBINEFUNC = ksuid_larger, SORTOP = >, PARALLEL = SAFE
);

-- Generation. VOLATILE. Each backend keeps its own monotonic state, and a parallel worker is a
-- backend of its own: PARALLEL RESTRICTED, so every call runs in the session's own backend and a
-- session's KSUIDs strictly increase. gen_ksuid(timestamptz) does not touch that state: PARALLEL SAFE.
CREATE FUNCTION gen_ksuid() RETURNS ksuid
    AS 'MODULE_PATHNAME', 'gen_ksuid' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION gen_ksuid() IS 'new KSUID: current second + 128 CSPRNG bits; strictly increasing within a backend';
CREATE FUNCTION gen_ksuid(timestamptz) RETURNS ksuid
    AS 'MODULE_PATHNAME', 'gen_ksuid_at' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gen_ksuid(timestamptz) IS 'new KSUID for the given time (seconds) with a fresh random payload';

-- Time.
CREATE FUNCTION ksuid_time(ksuid) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'ksuid_time' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ksuid_time(ksuid) IS 'the timestamp inside a KSUID (whole seconds)';
CREATE FUNCTION ksuid_lower(timestamptz) RETURNS ksuid
    AS 'MODULE_PATHNAME', 'ksuid_lower' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ksuid_lower(timestamptz) IS 'smallest KSUID of the second containing the given time';
CREATE FUNCTION ksuid_upper(timestamptz) RETURNS ksuid
    AS 'MODULE_PATHNAME', 'ksuid_upper' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ksuid_upper(timestamptz) IS 'largest KSUID of the second containing the given time';

-- Casts, all explicit.
CREATE CAST (ksuid AS timestamptz) WITH FUNCTION ksuid_time(ksuid);
CREATE FUNCTION ksuid_to_bytea(ksuid) RETURNS bytea
    AS 'MODULE_PATHNAME', 'ksuid_to_bytea' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ksuid_to_bytea(ksuid) IS 'the 20 bytes of a KSUID';
CREATE FUNCTION ksuid(bytea) RETURNS ksuid
    AS 'MODULE_PATHNAME', 'ksuid_from_bytea' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ksuid(bytea) IS 'exactly 20 bytes as a KSUID; any other length is 22P02';
CREATE CAST (ksuid AS bytea) WITH FUNCTION ksuid_to_bytea(ksuid);
CREATE CAST (bytea AS ksuid) WITH FUNCTION ksuid(bytea);
