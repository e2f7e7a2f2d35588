-- id_gen 0.1.0 install script: released, frozen. Never edit; changes go into an upgrade script.
-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION id_gen" to load this file. \quit
-------------------------------------------------------------------------------
-- ulid: 16 bytes, big-endian (48-bit Unix ms | 80 random bits), the bytes of a uuid.
-------------------------------------------------------------------------------
CREATE TYPE ulid;

CREATE FUNCTION ulid_in(cstring) RETURNS ulid
    AS 'MODULE_PATHNAME', 'ulid_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ulid_out(ulid) RETURNS cstring
    AS 'MODULE_PATHNAME', 'ulid_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ulid_recv(internal) RETURNS ulid
    AS 'MODULE_PATHNAME', 'ulid_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ulid_send(ulid) RETURNS bytea
    AS 'MODULE_PATHNAME', 'ulid_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ulid_in(cstring) IS 'ulid input: 26 Crockford base32 characters, either case';
COMMENT ON FUNCTION ulid_out(ulid) IS 'ulid output: 26 upper-case Crockford base32 characters';
COMMENT ON FUNCTION ulid_recv(internal) IS 'ulid binary input: 16 bytes, big-endian';
COMMENT ON FUNCTION ulid_send(ulid) IS 'ulid binary output: 16 bytes, big-endian';

CREATE TYPE ulid (
    INPUT = ulid_in,
    OUTPUT = ulid_out,
    RECEIVE = ulid_recv,
    SEND = ulid_send,
    LIKE = pg_catalog.uuid,   -- 16 bytes, by reference, char alignment: same bytes as a uuid
    CATEGORY = 'U'
);
COMMENT ON TYPE ulid IS 'Universally Unique Lexicographically Sortable Identifier (48-bit ms time, 80 random bits)';

-- Comparison and hashing: the bytes are a uuid's, so the built-in uuid functions serve.
CREATE FUNCTION ulid_eq(ulid, ulid) RETURNS bool AS 'uuid_eq' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ulid_ne(ulid, ulid) RETURNS bool AS 'uuid_ne' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ulid_lt(ulid, ulid) RETURNS bool AS 'uuid_lt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ulid_le(ulid, ulid) RETURNS bool AS 'uuid_le' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ulid_gt(ulid, ulid) RETURNS bool AS 'uuid_gt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ulid_ge(ulid, ulid) RETURNS bool AS 'uuid_ge' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ulid_cmp(ulid, ulid) RETURNS int4 AS 'uuid_cmp' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ulid_sortsupport(internal) RETURNS void AS 'uuid_sortsupport' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ulid_hash(ulid) RETURNS int4 AS 'uuid_hash' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ulid_hash_extended(ulid, int8) RETURNS int8 AS 'uuid_hash_extended' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OPERATOR = (
    LEFTARG = ulid, RIGHTARG = ulid, PROCEDURE = ulid_eq,
    COMMUTATOR = '=', NEGATOR = '<>', RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR <> (
    LEFTARG = ulid, RIGHTARG = ulid, PROCEDURE = ulid_ne,
    COMMUTATOR = '<>', NEGATOR = '=', RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR < (
    LEFTARG = ulid, RIGHTARG = ulid, PROCEDURE = ulid_lt,
    COMMUTATOR = '>', NEGATOR = '>=', RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
    LEFTARG = ulid, RIGHTARG = ulid, PROCEDURE = ulid_le,
    COMMUTATOR = '>=', NEGATOR = '>', RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR > (
    LEFTARG = ulid, RIGHTARG = ulid, PROCEDURE = ulid_gt,
    COMMUTATOR = '<', NEGATOR = '<=', RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR >= (
    LEFTARG = ulid, RIGHTARG = ulid, PROCEDURE = ulid_ge,
    COMMUTATOR = '<=', NEGATOR = '<', RESTRICT = scalargesel, JOIN = scalargejoinsel
);

CREATE OPERATOR CLASS ulid_ops DEFAULT FOR TYPE ulid USING btree AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 ulid_cmp(ulid, ulid),
    FUNCTION 2 ulid_sortsupport(internal),
    FUNCTION 4 pg_catalog.btequalimage(oid);

-- Same hash as uuid on the same bytes; never change it (hash partitions depend on it).
CREATE OPERATOR CLASS ulid_ops DEFAULT FOR TYPE ulid USING hash AS
    OPERATOR 1 =,
    FUNCTION 1 ulid_hash(ulid),
    FUNCTION 2 ulid_hash_extended(ulid, int8);

CREATE OPERATOR CLASS ulid_minmax_ops DEFAULT FOR TYPE ulid USING brin AS
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
CREATE FUNCTION ulid_smaller(ulid, ulid) RETURNS ulid
    AS 'MODULE_PATHNAME', 'ulid_smaller' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ulid_larger(ulid, ulid) RETURNS ulid
    AS 'MODULE_PATHNAME', 'ulid_larger' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE AGGREGATE min(ulid) (
    SFUNC = ulid_smaller, STYPE = ulid, COMBINEFUNC = ulid_smaller, SORTOP = <, PARALLEL = SAFE
);
CREATE AGGREGATE max(ulid) (
    SFUNC = ulid_larger, STYPE = ulid, COMBINEFUNC = ulid_larger, SORTOP = >, PARALLEL = SAFE
);

-- Generation. VOLATILE; PARALLEL SAFE because each backend keeps its own monotonic state:
-- order holds within one backend (one session), not across parallel workers or sessions.
CREATE FUNCTION gen_ulid() RETURNS ulid
    AS 'MODULE_PATHNAME', 'gen_ulid' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION gen_ulid() IS 'new ULID: current ms + 80 CSPRNG bits; strictly increasing within a backend';
CREATE FUNCTION gen_ulid(timestamptz) RETURNS ulid
    AS 'MODULE_PATHNAME', 'gen_ulid_at' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gen_ulid(timestamptz) IS 'new ULID for the given time (ms precision) with fresh random bits';

-- Time.
CREATE FUNCTION ulid_time(ulid) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'ulid_time' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ulid_time(ulid) IS 'the millisecond timestamp inside a ULID';
CREATE FUNCTION ulid_lower(timestamptz) RETURNS ulid
    AS 'MODULE_PATHNAME', 'ulid_lower' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ulid_lower(timestamptz) IS 'smallest ULID of the millisecond containing the given time';
CREATE FUNCTION ulid_upper(timestamptz) RETURNS ulid
    AS 'MODULE_PATHNAME', 'ulid_upper' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ulid_upper(timestamptz) IS 'largest ULID of the millisecond containing the given time';

-- Casts. ulid and uuid share their bytes and every 16-byte value is valid in both: no function.
CREATE CAST (ulid AS uuid) WITHOUT FUNCTION;
CREATE CAST (uuid AS ulid) WITHOUT FUNCTION;
CREATE CAST (ulid AS timestamptz) WITH FUNCTION ulid_time(ulid);
-- Text: the same contexts as the I/O conversion casts they replace (to text on assignment, from
-- text explicitly), through functions that build and read the text in place.
CREATE FUNCTION ulid_to_text(ulid) RETURNS text
    AS 'MODULE_PATHNAME', 'ulid_to_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ulid_to_text(ulid) IS 'ulid as 26 upper-case Crockford base32 characters';
CREATE FUNCTION ulid_from_text(text) RETURNS ulid
    AS 'MODULE_PATHNAME', 'ulid_from_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ulid_from_text(text) IS 'ulid from 26 Crockford base32 characters, either case';
CREATE CAST (ulid AS text) WITH FUNCTION ulid_to_text(ulid) AS ASSIGNMENT;
CREATE CAST (text AS ulid) WITH FUNCTION ulid_from_text(text);
-------------------------------------------------------------------------------
-- uuidv7: RFC 9562 version 7 on the built-in uuid type, and the time fields of versions 1 and 7.
-- Our own names are always installed; the PostgreSQL-18-compatible names only where core lacks
-- them (see the DO block at the end).
-------------------------------------------------------------------------------

-- Generation. VOLATILE; PARALLEL SAFE because each backend keeps its own monotonic clock:
-- order holds within one backend (one session), not across parallel workers or sessions.
CREATE FUNCTION gen_uuidv7() RETURNS uuid
    AS 'MODULE_PATHNAME', 'gen_uuidv7' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION gen_uuidv7() IS
    'new UUIDv7: Unix ms, 12-bit sub-ms fraction (RFC 9562 method 3), 62 CSPRNG bits; strictly increasing within a backend';
CREATE FUNCTION gen_uuidv7(shift interval) RETURNS uuid
    AS 'MODULE_PATHNAME', 'gen_uuidv7_shift' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gen_uuidv7(interval) IS
    'new UUIDv7 whose time is the current time plus the interval (as PostgreSQL 18 uuidv7(interval))';

-- Reading UUIDs (any version).
CREATE FUNCTION uuid_version(uuid) RETURNS smallint
    AS 'MODULE_PATHNAME', 'uuid_version' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uuid_version(uuid) IS
    'version field of an RFC 9562 UUID; NULL for other variants (as PostgreSQL 18 uuid_extract_version)';
CREATE FUNCTION uuid_time(uuid) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'uuid_time' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uuid_time(uuid) IS
    'timestamp of a version 1 (µs) or version 7 (ms) UUID; NULL otherwise (as PostgreSQL 18 uuid_extract_timestamp)';

-- UUIDv7 time.
CREATE FUNCTION uuidv7_time(uuid) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'uuidv7_time' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uuidv7_time(uuid) IS 'the millisecond timestamp of a UUIDv7; NULL for any other UUID';
CREATE FUNCTION uuidv7_time_precise(uuid) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'uuidv7_time_precise' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uuidv7_time_precise(uuid) IS
    'UUIDv7 time with rand_a read as a 1/4096 ms fraction (RFC 9562 method 3: PostgreSQL 18 and id_gen); NULL if not v7';
CREATE FUNCTION uuidv7_lower(timestamptz) RETURNS uuid
    AS 'MODULE_PATHNAME', 'uuidv7_lower' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uuidv7_lower(timestamptz) IS 'smallest UUIDv7 of the millisecond containing the given time';
CREATE FUNCTION uuidv7_upper(timestamptz) RETURNS uuid
    AS 'MODULE_PATHNAME', 'uuidv7_upper' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uuidv7_upper(timestamptz) IS 'largest UUIDv7 of the millisecond containing the given time';

-- PostgreSQL-compatible names. pg_catalog is searched first, so a same-named function of ours
-- would be dead weight where core has it: create each only where the server lacks it.
--   15, 16: uuidv7(), uuidv7(interval), uuid_extract_timestamp(uuid), uuid_extract_version(uuid)
--   17:     uuidv7(), uuidv7(interval)   (core's extract functions exist; its timestamp is v1-only)
--   18+:    none
-- They are extension members like everything else in this script and go with DROP EXTENSION.
DO $compat$
DECLARE
    server_version int := pg_catalog.current_setting('server_version_num')::int;
BEGIN
    IF server_version < 180000 THEN
        CREATE FUNCTION @extschema@.uuidv7() RETURNS uuid
            AS 'MODULE_PATHNAME', 'gen_uuidv7' LANGUAGE C VOLATILE PARALLEL SAFE;
        CREATE FUNCTION @extschema@.uuidv7(shift interval) RETURNS uuid
            AS 'MODULE_PATHNAME', 'gen_uuidv7_shift' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
        COMMENT ON FUNCTION @extschema@.uuidv7() IS 'generate UUID version 7 (id_gen, for servers before PostgreSQL 18)';
        COMMENT ON FUNCTION @extschema@.uuidv7(interval) IS
            'generate UUID version 7 with a timestamp shifted by specified interval (id_gen, for servers before PostgreSQL 18)';
    END IF;
    IF server_version < 170000 THEN
        CREATE FUNCTION @extschema@.uuid_extract_timestamp(uuid) RETURNS timestamptz
            AS 'MODULE_PATHNAME', 'uuid_time' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
        CREATE FUNCTION @extschema@.uuid_extract_version(uuid) RETURNS smallint
            AS 'MODULE_PATHNAME', 'uuid_version' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
        COMMENT ON FUNCTION @extschema@.uuid_extract_timestamp(uuid) IS
            'extract timestamp from UUID version 1 or 7 (id_gen, for servers before PostgreSQL 17)';
        COMMENT ON FUNCTION @extschema@.uuid_extract_version(uuid) IS
            'extract version from RFC 9562 UUID (id_gen, for servers before PostgreSQL 17)';
    END IF;
END
$compat$;
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
-------------------------------------------------------------------------------
-- Prefixed typed IDs: '<prefix>_<25 base36 characters>' at the edges, the 16-byte uuid in tables.
-- A prefix is 1 to 16 lower-case ASCII letters or digits, starting with a letter; a registry
-- keeps each prefix unique in the database and names the entity it belongs to.
-------------------------------------------------------------------------------

-- The registry: an extension configuration table, so pg_dump dumps its rows and a restore (which
-- recreates the extension, then loads the rows) brings it back.
CREATE TABLE prefix_registry (
    prefix        text PRIMARY KEY CHECK (prefix OPERATOR(pg_catalog.~) '^[a-z][a-z0-9]{0,15}$'),
    owner         text NOT NULL CHECK (owner OPERATOR(pg_catalog.<>) ''),
    registered_at timestamptz NOT NULL DEFAULT pg_catalog.now()
);
COMMENT ON TABLE prefix_registry IS 'id_gen prefixed IDs: each prefix and the entity (owner) it was registered for';
SELECT pg_catalog.pg_extension_config_dump('@extschema@.prefix_registry', '');
GRANT SELECT ON prefix_registry TO PUBLIC;

-- Formatting and parsing (C): they check the shape of the prefix, not its registration, so they
-- are IMMUTABLE and serve in generated columns, views and expression indexes.
CREATE FUNCTION prefixed_format(prefix text, id uuid) RETURNS text
    AS 'MODULE_PATHNAME', 'prefixed_format' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION prefixed_format(text, uuid) IS 'a stored ID as prefixed text: prefix, ''_'', 25 base36 characters';
CREATE FUNCTION prefixed_parse(prefix text, value text) RETURNS uuid
    AS 'MODULE_PATHNAME', 'prefixed_parse' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION prefixed_parse(text, text) IS 'the ID in prefixed text whose prefix must be the given one (22P02 otherwise)';
CREATE FUNCTION prefixed_split(value text, OUT prefix text, OUT id uuid) RETURNS record
    AS 'MODULE_PATHNAME', 'prefixed_split' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION prefixed_split(text) IS 'prefixed text of unknown type as (prefix, id)';

-- Registry writers: VOLATILE PARALLEL UNSAFE.
CREATE FUNCTION prefix_register(prefix text, owner text) RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    existing text;
BEGIN
    IF $1 IS NULL OR $1 OPERATOR(pg_catalog.!~) '^[a-z][a-z0-9]{0,15}$' THEN
        RAISE EXCEPTION 'invalid prefix "%"', $1
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'A prefix is 1 to 16 lower-case ASCII letters or digits, starting with a letter.';
    END IF;
    IF $2 IS NULL OR $2 OPERATOR(pg_catalog.=) '' THEN
        RAISE EXCEPTION 'the owner of prefix "%" must be a non-empty name', $1
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Name the entity the prefix is for, e.g. the table.';
    END IF;
    LOOP
        INSERT INTO @extschema@.prefix_registry AS r (prefix, owner) VALUES ($1, $2)
            ON CONFLICT ON CONSTRAINT prefix_registry_pkey DO NOTHING;
        EXIT WHEN FOUND;
        SELECT r.owner INTO existing FROM @extschema@.prefix_registry AS r WHERE r.prefix OPERATOR(pg_catalog.=) $1;
        IF FOUND THEN
            RAISE EXCEPTION 'prefix "%" is already registered for "%"', $1, existing
                USING ERRCODE = 'duplicate_object';
        END IF;
        -- The conflicting row was unregistered between the two statements: try again.
    END LOOP;
END
$fn$;
COMMENT ON FUNCTION prefix_register(text, text) IS 'reserve a prefix for an entity; an error naming the owner if it is taken';

CREATE FUNCTION prefix_unregister(prefix text) RETURNS boolean
    LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
AS $fn$
    WITH gone AS (DELETE FROM @extschema@.prefix_registry AS r WHERE r.prefix OPERATOR(pg_catalog.=) $1 RETURNING 1)
    SELECT pg_catalog.count(*) OPERATOR(pg_catalog.>) 0 FROM gone;
$fn$;
COMMENT ON FUNCTION prefix_unregister(text) IS 'release a prefix; false if it was not registered';

-- Registry reader: STABLE.
CREATE FUNCTION prefix_owner(prefix text) RETURNS text
    LANGUAGE sql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT r.owner FROM @extschema@.prefix_registry AS r WHERE r.prefix OPERATOR(pg_catalog.=) $1;
$fn$;
COMMENT ON FUNCTION prefix_owner(text) IS 'the entity a prefix is registered for; NULL if it is not registered';

-- Generator: a new UUIDv7 as prefixed text, for a registered prefix only.
CREATE FUNCTION gen_prefixed(prefix text) RETURNS text
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
    PERFORM FROM @extschema@.prefix_registry AS r WHERE r.prefix OPERATOR(pg_catalog.=) $1;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'prefix "%" is not registered', $1
            USING ERRCODE = 'undefined_object',
                  HINT = 'Register it first with prefix_register(prefix, owner).';
    END IF;
    RETURN @extschema@.prefixed_format($1, @extschema@.gen_uuidv7());
END
$fn$;
COMMENT ON FUNCTION gen_prefixed(text) IS 'new prefixed ID (a UUIDv7 in base36) for a registered prefix';
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
-------------------------------------------------------------------------------
-- Instagram-style per-schema shards: 41 bits of ms since the shard's epoch | 13 bits of shard
-- number | 10 bits of sequence, issued by <schema>.next_id().
-------------------------------------------------------------------------------
-- The registry, keyed by schema *name* (OIDs change across dump/restore); pg_dump dumps its rows.
CREATE TABLE shard_registry (
    shard int4 PRIMARY KEY CHECK (shard BETWEEN 0 AND 8191),
    schema_name name NOT NULL UNIQUE,
    epoch timestamptz NOT NULL CHECK (isfinite(epoch)),
    created_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE shard_registry IS 'logical shards of this database: shard number, schema, epoch (maintained by create_shard / drop_shard)';
SELECT pg_catalog.pg_extension_config_dump('shard_registry', '');
REVOKE ALL ON shard_registry FROM PUBLIC;
GRANT SELECT ON shard_registry TO PUBLIC;

-- A row's shard, schema_name and epoch cannot be updated: UPDATE sends no cache invalidation, so
-- backends would keep issuing with the old values, and a later epoch would restart the time field
-- lower (see rename_shard() for renames; a shard's number and epoch never change).
CREATE FUNCTION shard_registry_guard() RETURNS trigger
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    IF NEW.shard IS DISTINCT FROM OLD.shard OR NEW.schema_name IS DISTINCT FROM OLD.schema_name
       OR NEW.epoch IS DISTINCT FROM OLD.epoch THEN
        RAISE EXCEPTION 'cannot change the shard, schema_name or epoch of shard %', OLD.shard
            USING ERRCODE = '55000',
                  DETAIL = 'Running next_id() functions cache these values, and a shard''s IDs are only unique under one number and epoch.',
                  HINT = 'Rename a shard''s schema with rename_shard(). A shard''s number and epoch are fixed: create a new shard instead.';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER shard_registry_guard BEFORE UPDATE ON shard_registry
    FOR EACH ROW EXECUTE FUNCTION shard_registry_guard();

-- Decoders of any shard ID (a bigint from next_id()); a router finds the shard from the ID alone.
CREATE FUNCTION shard_id_shard(id bigint) RETURNS int4
    AS 'MODULE_PATHNAME', 'shard_id_shard' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION shard_id_sequence(id bigint) RETURNS int4
    AS 'MODULE_PATHNAME', 'shard_id_sequence' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION shard_id_time(id bigint, epoch timestamptz) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'shard_id_time' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION shard_id_shard(bigint) IS 'shard number (13 bits) inside a shard ID';
COMMENT ON FUNCTION shard_id_sequence(bigint) IS 'sequence number (10 bits) inside a shard ID';
COMMENT ON FUNCTION shard_id_time(bigint, timestamptz) IS 'millisecond time inside a shard ID, given the shard''s epoch';
-- Reads the shard's epoch from the registry: STABLE. NULL when the shard is not registered here.
CREATE FUNCTION shard_id_time(id bigint) RETURNS timestamptz
    LANGUAGE sql STABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$ SELECT @extschema@.shard_id_time($1, r.epoch) FROM @extschema@.shard_registry r
          WHERE r.shard = @extschema@.shard_id_shard($1) $$;
COMMENT ON FUNCTION shard_id_time(bigint) IS 'millisecond time inside a shard ID, with the epoch of its shard in shard_registry';

-- Makes a schema logical shard `shard`: creates the schema if needed and <schema>.next_id(), a C
-- function (one entry point for every shard) that finds its shard from its own schema.
-- Superuser only: it creates a C-language function, and a SECURITY DEFINER wrapper would let any
-- caller plant functions in any schema.
CREATE FUNCTION create_shard(shard int4, schema_name name DEFAULT NULL,
                             epoch timestamptz DEFAULT '2024-01-01 00:00:00+00')
    RETURNS regnamespace
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    sch name := coalesce(create_shard.schema_name, ('shard_' || create_shard.shard)::name);
    other name;
BEGIN
    IF NOT (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN
        RAISE EXCEPTION 'permission denied to create a shard'
            USING ERRCODE = '42501', HINT = 'create_shard() creates a C-language function: only a superuser can call it.';
    END IF;
    IF create_shard.shard IS NULL OR create_shard.shard NOT BETWEEN 0 AND 8191 THEN
        RAISE EXCEPTION 'shard number % is out of range', create_shard.shard
            USING ERRCODE = '22003', HINT = 'Shard numbers are 0 to 8191 (13 bits).';
    END IF;
    IF create_shard.epoch IS NULL OR NOT isfinite(create_shard.epoch) OR create_shard.epoch > now() THEN
        RAISE EXCEPTION 'invalid shard epoch %', create_shard.epoch
            USING ERRCODE = '22023', HINT = 'The epoch must be a finite time, not in the future; IDs run out 2^40 ms (about 34.8 years) after it.';
    END IF;
    SELECT r.schema_name INTO other FROM @extschema@.shard_registry r WHERE r.shard = create_shard.shard;
    IF FOUND THEN
        RAISE EXCEPTION 'shard % already exists', create_shard.shard
            USING ERRCODE = '42710', DETAIL = format('Its schema is %I.', other);
    END IF;
    SELECT r.shard INTO other FROM @extschema@.shard_registry r WHERE r.schema_name = sch;
    IF FOUND THEN
        RAISE EXCEPTION 'schema % is already shard %', sch, other USING ERRCODE = '42710';
    END IF;
    INSERT INTO @extschema@.shard_registry (shard, schema_name, epoch)
        VALUES (create_shard.shard, sch, create_shard.epoch);
    EXECUTE format('CREATE SCHEMA IF NOT EXISTS %I', sch);
    EXECUTE format('CREATE FUNCTION %I.next_id() RETURNS bigint LANGUAGE C VOLATILE PARALLEL UNSAFE AS %L, %L',
                   sch, 'MODULE_PATHNAME', 'shard_next_id');
    EXECUTE format('COMMENT ON FUNCTION %I.next_id() IS %L', sch,
                   format('next ID of shard %s (id_gen): ms since %s | shard %s | sequence', create_shard.shard,
                          create_shard.epoch AT TIME ZONE 'UTC', create_shard.shard));
    -- By OID, not sch::regnamespace, which would parse the name as an identifier (and fold case).
    RETURN (SELECT n.oid FROM pg_catalog.pg_namespace n WHERE n.nspname = sch)::regnamespace;
END
$$;
COMMENT ON FUNCTION create_shard(int4, name, timestamptz) IS 'make a schema (default shard_<n>) logical shard n with its own next_id(); superuser only';
REVOKE ALL ON FUNCTION create_shard(int4, name, timestamptz) FROM PUBLIC;

-- Drops a shard's next_id() and its registry row; the schema and its tables stay. With
-- cascade, column defaults that call next_id() are dropped too.
CREATE FUNCTION drop_shard(shard int4, cascade boolean DEFAULT false) RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    sch name;
BEGIN
    IF NOT (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN
        RAISE EXCEPTION 'permission denied to drop a shard' USING ERRCODE = '42501';
    END IF;
    DELETE FROM @extschema@.shard_registry r WHERE r.shard = drop_shard.shard RETURNING r.schema_name INTO sch;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'shard % does not exist', drop_shard.shard USING ERRCODE = '42704';
    END IF;
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = sch) THEN
        EXECUTE format('DROP FUNCTION IF EXISTS %I.next_id() %s', sch,
                       CASE WHEN drop_shard.cascade THEN 'CASCADE' ELSE 'RESTRICT' END);
    ELSE
        RAISE WARNING 'schema % of shard % does not exist: only its registry entry was dropped', sch, drop_shard.shard
            USING HINT = 'If the schema was renamed with ALTER SCHEMA, drop its next_id() by hand; rename shard schemas with rename_shard().';
    END IF;
END
$$;
COMMENT ON FUNCTION drop_shard(int4, boolean) IS 'unregister shard n and drop its next_id() (the schema stays); superuser only';
REVOKE ALL ON FUNCTION drop_shard(int4, boolean) FROM PUBLIC;

-- Renames a shard's schema and updates its registry row in one transaction (the registry is keyed
-- by schema name; a bare ALTER SCHEMA ... RENAME leaves next_id() raising 55000). When the schema
-- was already renamed with ALTER SCHEMA, this registers the new name.
CREATE FUNCTION rename_shard(shard int4, new_schema_name name) RETURNS regnamespace
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    reg record;
    other int4;
BEGIN
    IF NOT (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN
        RAISE EXCEPTION 'permission denied to rename a shard' USING ERRCODE = '42501';
    END IF;
    IF rename_shard.new_schema_name IS NULL THEN
        RAISE EXCEPTION 'new schema name must not be null' USING ERRCODE = '22004';
    END IF;
    SELECT r.* INTO reg FROM @extschema@.shard_registry r WHERE r.shard = rename_shard.shard FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'shard % does not exist', rename_shard.shard USING ERRCODE = '42704';
    END IF;
    IF reg.schema_name = rename_shard.new_schema_name THEN
        RETURN (SELECT n.oid FROM pg_catalog.pg_namespace n WHERE n.nspname = reg.schema_name)::regnamespace;
    END IF;
    SELECT r.shard INTO other FROM @extschema@.shard_registry r WHERE r.schema_name = rename_shard.new_schema_name;
    IF FOUND THEN
        RAISE EXCEPTION 'schema % is already shard %', rename_shard.new_schema_name, other USING ERRCODE = '42710';
    END IF;
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_namespace n WHERE n.nspname = reg.schema_name) THEN
        EXECUTE format('ALTER SCHEMA %I RENAME TO %I', reg.schema_name, rename_shard.new_schema_name);
    ELSIF pg_catalog.to_regprocedure(pg_catalog.format('%I.next_id()', rename_shard.new_schema_name)) IS NULL THEN
        RAISE EXCEPTION 'schema % of shard % does not exist', reg.schema_name, rename_shard.shard
            USING ERRCODE = '3F000',
                  HINT = format('Neither %I nor %I.next_id() exists: drop the shard with drop_shard(%s).',
                                reg.schema_name, rename_shard.new_schema_name, rename_shard.shard);
    END IF;
    -- Rows cannot be updated (shard_registry_guard): replace it, keeping epoch and created_at.
    DELETE FROM @extschema@.shard_registry r WHERE r.shard = rename_shard.shard;
    INSERT INTO @extschema@.shard_registry (shard, schema_name, epoch, created_at)
        VALUES (reg.shard, rename_shard.new_schema_name, reg.epoch, reg.created_at);
    RETURN (SELECT n.oid FROM pg_catalog.pg_namespace n WHERE n.nspname = rename_shard.new_schema_name)::regnamespace;
END
$$;
COMMENT ON FUNCTION rename_shard(int4, name) IS 'rename shard n''s schema and its registry entry together (or register a schema already renamed); superuser only';
REVOKE ALL ON FUNCTION rename_shard(int4, name) FROM PUBLIC;
