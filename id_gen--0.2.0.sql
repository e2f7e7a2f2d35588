-- id_gen install script. Generated from src/sql/*.sql by the Makefile; edit those files.
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
-- Our own names; the PostgreSQL 18 names (uuidv7(), uuid_extract_timestamp(), ...) are in
-- 21_uuid_core_names.sql.
-------------------------------------------------------------------------------

-- Generation. VOLATILE; PARALLEL SAFE because each backend keeps its own monotonic clock:
-- order holds within one backend (one session), not across parallel workers or sessions, and
-- not between these and PostgreSQL 18's core uuidv7(), which keeps a clock of its own.
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
-------------------------------------------------------------------------------
-- The PostgreSQL 18 names of UUID generation and reading, in the extension's schema on every
-- server version, with PostgreSQL 18.6's semantics: uuidv4(), uuidv7(), uuidv7(interval),
-- uuid_extract_timestamp(uuid), uuid_extract_version(uuid).
--
-- pg_catalog is searched first, so where core has a name (17: the two extract functions; 18: all
-- five) an unqualified call is core's, and a schema-qualified call is ours. Creating them
-- everywhere keeps a dump restorable on any later server: pg_dump writes calls to extension
-- functions schema-qualified (DEFAULT public.uuidv7()). Our uuidv7() and uuidv7(interval) share
-- gen_uuidv7()'s per-backend clock; core's uuidv7() on 18 has a clock of its own.
--
-- CREATE OR REPLACE: this file is also part of the 0.1.0 -> 0.2.0 upgrade script, where 0.1.0
-- has created some of these names (depending on the server version) and not others.
-------------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION @extschema@.uuidv7() RETURNS uuid
    AS 'MODULE_PATHNAME', 'gen_uuidv7' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuidv7() IS
    'generate UUID version 7 (id_gen; as PostgreSQL 18, on the clock of gen_uuidv7())';

CREATE OR REPLACE FUNCTION @extschema@.uuidv7(shift interval) RETURNS uuid
    AS 'MODULE_PATHNAME', 'gen_uuidv7_shift' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuidv7(interval) IS
    'generate UUID version 7 with a timestamp shifted by specified interval (id_gen; as PostgreSQL 18)';

-- Core's own implementation of gen_random_uuid() (present since PostgreSQL 13), as 18 defines it.
CREATE OR REPLACE FUNCTION @extschema@.uuidv4() RETURNS uuid
    AS 'gen_random_uuid' LANGUAGE internal VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuidv4() IS 'generate UUID version 4 (id_gen; as PostgreSQL 18)';

CREATE OR REPLACE FUNCTION @extschema@.uuid_extract_timestamp(uuid) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'uuid_time' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_extract_timestamp(uuid) IS
    'extract timestamp from UUID version 1 or 7 (id_gen; as PostgreSQL 18: PostgreSQL 17''s core function returns NULL for version 7)';

CREATE OR REPLACE FUNCTION @extschema@.uuid_extract_version(uuid) RETURNS smallint
    AS 'MODULE_PATHNAME', 'uuid_version' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_extract_version(uuid) IS
    'extract version from RFC 9562 UUID (id_gen; as PostgreSQL 18)';
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

-- The registry's functions, prefix_register(), prefix_unregister(), prefix_owner() and
-- gen_prefixed(): see 36_prefix_registry.sql.
-------------------------------------------------------------------------------
-- The functions of the prefix registry: prefix_register(), prefix_unregister(), prefix_owner(),
-- gen_prefixed(). Written with CREATE OR REPLACE: the install script and the 0.1.0 -> 0.2.0
-- upgrade script share them.
--
-- None of them names the registry or another function of the extension in text resolved when it
-- runs (0.1.0 did, as @extschema@.<name>): the owner of the extension's schema (public belongs to
-- pg_database_owner on PostgreSQL 15+, which is often not a superuser) could rename the schema
-- and put one of their own under its name, with a prefix_registry and functions named like ours,
-- whose triggers, view columns and bodies a superuser calling these functions (or inserting a row
-- whose column default is gen_prefixed()) would then run. Instead the SQL bodies are BEGIN ATOMIC
-- (parsed when created: they refer to the registry by OID), and the C functions find the registry
-- and their helper from pg_extension by OID. Unlike the superuser-only shard functions, they
-- need no check of who may change the schema: nothing they use can be replaced by name.
-------------------------------------------------------------------------------

-- Internal to prefix_register(), which calls it by OID: inserts a registration unless the
-- prefix is taken; true when it inserted.
CREATE OR REPLACE FUNCTION prefix_registry_insert(prefix text, owner text) RETURNS boolean
    LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    WITH ins AS (
        INSERT INTO @extschema@.prefix_registry AS r (prefix, owner)
            VALUES (prefix_registry_insert.prefix, prefix_registry_insert.owner)
            ON CONFLICT ON CONSTRAINT prefix_registry_pkey DO NOTHING
            RETURNING 1
    )
    SELECT EXISTS (SELECT FROM ins);
END;
COMMENT ON FUNCTION prefix_registry_insert(text, text) IS 'internal to prefix_register(): inserts a registration unless the prefix is taken';
REVOKE ALL ON FUNCTION prefix_registry_insert(text, text) FROM PUBLIC;

-- Registry writers: VOLATILE PARALLEL UNSAFE. prefix_register() checks its arguments (22023),
-- inserts through prefix_registry_insert() and, when the prefix is taken, names its owner (42710).
CREATE OR REPLACE FUNCTION prefix_register(prefix text, owner text) RETURNS void
    AS 'MODULE_PATHNAME', 'prefix_register' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION prefix_register(text, text) IS 'reserve a prefix for an entity; an error naming the owner if it is taken';

CREATE OR REPLACE FUNCTION prefix_unregister(prefix text) RETURNS boolean
    LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    WITH gone AS (
        DELETE FROM @extschema@.prefix_registry AS r
            WHERE r.prefix OPERATOR(pg_catalog.=) prefix_unregister.prefix
            RETURNING 1
    )
    SELECT pg_catalog.count(*) OPERATOR(pg_catalog.>) 0 FROM gone;
END;
COMMENT ON FUNCTION prefix_unregister(text) IS 'release a prefix; false if it was not registered';

-- Registry reader: STABLE; an index scan of the registry's primary key (C).
CREATE OR REPLACE FUNCTION prefix_owner(prefix text) RETURNS text
    AS 'MODULE_PATHNAME', 'prefix_owner' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION prefix_owner(text) IS 'the entity a prefix is registered for; NULL if it is not registered';

-- Generator: a new UUIDv7 (the backend's gen_uuidv7() sequence) as prefixed text, for a
-- registered prefix only (42704 otherwise).
CREATE OR REPLACE FUNCTION gen_prefixed(prefix text) RETURNS text
    AS 'MODULE_PATHNAME', 'gen_prefixed' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
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

-- Where this server keeps the node and shard generators' state (added in 0.2.0; shared with the
-- upgrade script, hence CREATE OR REPLACE): 'shared memory' (preloaded), 'dsm registry' (not
-- preloaded, PostgreSQL 17+), or 'files' (not preloaded, 15 and 16: locked files with leases).
CREATE OR REPLACE FUNCTION snowflake_state_storage() RETURNS text
    AS 'MODULE_PATHNAME', 'snowflake_state_storage' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION snowflake_state_storage() IS 'where the snowflake and shard generators keep their shared state: shared memory, dsm registry or files';
-------------------------------------------------------------------------------
-- base62: fixed-width base62 text (0-9A-Za-z) for 64- and 128-bit IDs. Only new objects: this
-- file is part of the install script and included as is in the 0.1.0 -> 0.2.0 upgrade script.
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
    AS 'MODULE_PATHNAME', 'gen_prefixed' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gen_prefixed(text, text) IS 'new prefixed ID (a UUIDv7, body in base36 or base62) for a registered prefix';
-------------------------------------------------------------------------------
-- IDs that look random: a keyed permutation of [1, N], NIST FF1 (SP 800-38G) over AES-128. Only
-- new objects: this file is part of the install script and included as is in the 0.1.0 -> 0.2.0
-- upgrade script.
--
-- Keys are rows of permute_keys: 16 bytes from the server's CSPRNG (never passed in SQL), the
-- domain N (at least 10^6) and the default tweak (the key's name unless given). The table is an
-- extension configuration table, so pg_dump carries the keys (a restore that could not unpermute,
-- or that issued new IDs under another key, would lose data); only superusers read it. The
-- permutation functions read it in C, found through the extension; EXECUTE on them is granted to no
-- one by default.
-------------------------------------------------------------------------------

CREATE TABLE permute_keys (
    name       text COLLATE "C" PRIMARY KEY CHECK (pg_catalog.octet_length(name) BETWEEN 1 AND 63),
    key        bytea NOT NULL CHECK (pg_catalog.length(key) = 16),
    domain     bigint NOT NULL CHECK (domain >= 1000000),
    tweak      text COLLATE "C" NOT NULL CHECK (pg_catalog.octet_length(tweak) <= 256),
    created_at timestamptz NOT NULL DEFAULT pg_catalog.now()
);
COMMENT ON TABLE permute_keys IS 'keys of id_permute(): AES-128 key, domain [1, domain], default tweak; superusers only';
-- Keys survive pg_dump (a configuration table's rows are dumped).
SELECT pg_catalog.pg_extension_config_dump('permute_keys', '');
REVOKE ALL ON permute_keys FROM PUBLIC;

CREATE FUNCTION id_permute_keys_changed() RETURNS trigger
    AS 'MODULE_PATHNAME', 'id_permute_keys_changed' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION id_permute_keys_changed() IS 'trigger on permute_keys: every session drops its cached keys';
REVOKE ALL ON FUNCTION id_permute_keys_changed() FROM PUBLIC;
-- Every change to a key, in any session, reaches every session's cache.
CREATE TRIGGER permute_keys_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON permute_keys
    FOR EACH STATEMENT EXECUTE FUNCTION id_permute_keys_changed();

CREATE FUNCTION id_permute_new_key() RETURNS bytea
    AS 'MODULE_PATHNAME', 'id_permute_new_key' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION id_permute_new_key() IS '16 bytes from the server''s CSPRNG, for id_permute_key()';
REVOKE ALL ON FUNCTION id_permute_new_key() FROM PUBLIC;

CREATE FUNCTION id_permute_key(name text, domain bigint DEFAULT 9223372036854775807, tweak text DEFAULT NULL)
    RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF id_permute_key.name IS NULL OR pg_catalog.octet_length(id_permute_key.name) NOT BETWEEN 1 AND 63 THEN
        RAISE EXCEPTION 'invalid permutation key name: %', pg_catalog.quote_nullable(id_permute_key.name)
            USING ERRCODE = '22023', HINT = 'A key name is 1 to 63 bytes.';
    END IF;
    IF id_permute_key.domain IS NULL OR id_permute_key.domain < 1000000 THEN
        RAISE EXCEPTION 'permutation domain % is too small', COALESCE(id_permute_key.domain::text, 'NULL')
            USING ERRCODE = '22023',
                  DETAIL = 'FF1 needs at least 1000000 values (NIST SP 800-38G Rev. 1): a smaller domain can be tabulated.',
                  HINT = 'Use a domain of at least 1000000 (and a sequence with that MAXVALUE).';
    END IF;
    IF pg_catalog.octet_length(COALESCE(id_permute_key.tweak, id_permute_key.name)) > 256 THEN
        RAISE EXCEPTION 'a permutation tweak is at most 256 bytes' USING ERRCODE = '22023';
    END IF;
    INSERT INTO @extschema@.permute_keys (name, key, domain, tweak)
    VALUES (id_permute_key.name, @extschema@.id_permute_new_key(), id_permute_key.domain,
            COALESCE(id_permute_key.tweak, id_permute_key.name));
EXCEPTION WHEN unique_violation THEN
    RAISE EXCEPTION 'permutation key "%" already exists', id_permute_key.name
        USING ERRCODE = '42710',
              HINT = 'A key is never replaced (IDs made with it could not be mapped back): to rotate, create a key under a new name.';
END
$$;
COMMENT ON FUNCTION id_permute_key(text, bigint, text) IS 'create a permutation key from the CSPRNG: domain [1, domain], default tweak (the name unless given)';
REVOKE ALL ON FUNCTION id_permute_key(text, bigint, text) FROM PUBLIC;

CREATE FUNCTION id_permute(value bigint, name text) RETURNS bigint
    AS 'MODULE_PATHNAME', 'id_permute' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION id_permute(value bigint, name text, tweak text) RETURNS bigint
    AS 'MODULE_PATHNAME', 'id_permute' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION id_unpermute(value bigint, name text) RETURNS bigint
    AS 'MODULE_PATHNAME', 'id_unpermute' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION id_unpermute(value bigint, name text, tweak text) RETURNS bigint
    AS 'MODULE_PATHNAME', 'id_unpermute' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION id_permute(bigint, text) IS 'the image of value in [1, N] under permutation key name, with its default tweak (FF1)';
COMMENT ON FUNCTION id_permute(bigint, text, text) IS 'the image of value in [1, N] under permutation key name and tweak (FF1)';
COMMENT ON FUNCTION id_unpermute(bigint, text) IS 'the inverse of id_permute(bigint, text)';
COMMENT ON FUNCTION id_unpermute(bigint, text, text) IS 'the inverse of id_permute(bigint, text, text)';
REVOKE ALL ON FUNCTION id_permute(bigint, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION id_permute(bigint, text, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION id_unpermute(bigint, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION id_unpermute(bigint, text, text) FROM PUBLIC;
-------------------------------------------------------------------------------
-- objectid: MongoDB's ObjectId (BSON type 0x07). Only new objects: this file is part of the
-- install script and included as is in the 0.1.0 -> 0.2.0 upgrade script.
--
-- 12 bytes: 4-byte big-endian Unix seconds (unsigned), a 5-byte random value per process (drawn in
-- each backend, never inherited across fork()), a 3-byte big-endian counter that starts at a random
-- value. Text is 24 hex digits, lower case out, either case in. Order is bytewise, MongoDB's.
-------------------------------------------------------------------------------
CREATE TYPE objectid;

CREATE FUNCTION objectid_in(cstring) RETURNS objectid
    AS 'MODULE_PATHNAME', 'objectid_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION objectid_out(objectid) RETURNS cstring
    AS 'MODULE_PATHNAME', 'objectid_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION objectid_recv(internal) RETURNS objectid
    AS 'MODULE_PATHNAME', 'objectid_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION objectid_send(objectid) RETURNS bytea
    AS 'MODULE_PATHNAME', 'objectid_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION objectid_in(cstring) IS 'objectid input: exactly 24 hex digits, either case';
COMMENT ON FUNCTION objectid_out(objectid) IS 'objectid output: 24 lower-case hex digits';
COMMENT ON FUNCTION objectid_recv(internal) IS 'objectid binary input: the 12 bytes';
COMMENT ON FUNCTION objectid_send(objectid) IS 'objectid binary output: the 12 bytes';

CREATE TYPE objectid (
    INPUT = objectid_in,
    OUTPUT = objectid_out,
    RECEIVE = objectid_recv,
    SEND = objectid_send,
    INTERNALLENGTH = 12,
    ALIGNMENT = char,
    STORAGE = plain,
    CATEGORY = 'U'
);
COMMENT ON TYPE objectid IS 'MongoDB ObjectId: 4-byte Unix seconds, 5-byte per-process random value, 3-byte counter';

-- Comparison is memcmp over the 12 bytes (MongoDB's order); the hash is hash_any over them.
CREATE FUNCTION objectid_eq(objectid, objectid) RETURNS bool AS 'MODULE_PATHNAME', 'objectid_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION objectid_ne(objectid, objectid) RETURNS bool AS 'MODULE_PATHNAME', 'objectid_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION objectid_lt(objectid, objectid) RETURNS bool AS 'MODULE_PATHNAME', 'objectid_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION objectid_le(objectid, objectid) RETURNS bool AS 'MODULE_PATHNAME', 'objectid_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION objectid_gt(objectid, objectid) RETURNS bool AS 'MODULE_PATHNAME', 'objectid_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION objectid_ge(objectid, objectid) RETURNS bool AS 'MODULE_PATHNAME', 'objectid_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION objectid_cmp(objectid, objectid) RETURNS int4 AS 'MODULE_PATHNAME', 'objectid_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION objectid_sortsupport(internal) RETURNS void AS 'MODULE_PATHNAME', 'objectid_sortsupport' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION objectid_hash(objectid) RETURNS int4 AS 'MODULE_PATHNAME', 'objectid_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION objectid_hash_extended(objectid, int8) RETURNS int8 AS 'MODULE_PATHNAME', 'objectid_hash_extended' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OPERATOR = (
    LEFTARG = objectid, RIGHTARG = objectid, PROCEDURE = objectid_eq,
    COMMUTATOR = '=', NEGATOR = '<>', RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR <> (
    LEFTARG = objectid, RIGHTARG = objectid, PROCEDURE = objectid_ne,
    COMMUTATOR = '<>', NEGATOR = '=', RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR < (
    LEFTARG = objectid, RIGHTARG = objectid, PROCEDURE = objectid_lt,
    COMMUTATOR = '>', NEGATOR = '>=', RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
    LEFTARG = objectid, RIGHTARG = objectid, PROCEDURE = objectid_le,
    COMMUTATOR = '>=', NEGATOR = '>', RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR > (
    LEFTARG = objectid, RIGHTARG = objectid, PROCEDURE = objectid_gt,
    COMMUTATOR = '<', NEGATOR = '<=', RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR >= (
    LEFTARG = objectid, RIGHTARG = objectid, PROCEDURE = objectid_ge,
    COMMUTATOR = '<=', NEGATOR = '<', RESTRICT = scalargesel, JOIN = scalargejoinsel
);

CREATE OPERATOR CLASS objectid_ops DEFAULT FOR TYPE objectid USING btree AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 objectid_cmp(objectid, objectid),
    FUNCTION 2 objectid_sortsupport(internal),
    FUNCTION 4 pg_catalog.btequalimage(oid);

CREATE OPERATOR CLASS objectid_ops DEFAULT FOR TYPE objectid USING hash AS
    OPERATOR 1 =,
    FUNCTION 1 objectid_hash(objectid),
    FUNCTION 2 objectid_hash_extended(objectid, int8);

CREATE OPERATOR CLASS objectid_minmax_ops DEFAULT FOR TYPE objectid USING brin AS
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
CREATE FUNCTION objectid_smaller(objectid, objectid) RETURNS objectid
    AS 'MODULE_PATHNAME', 'objectid_smaller' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION objectid_larger(objectid, objectid) RETURNS objectid
    AS 'MODULE_PATHNAME', 'objectid_larger' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE AGGREGATE min(objectid) (
    SFUNC = objectid_smaller, STYPE = objectid, COMBINEFUNC = objectid_smaller, SORTOP = <, PARALLEL = SAFE
);
CREATE AGGREGATE max(objectid) (
    SFUNC = objectid_larger, STYPE = objectid, COMBINEFUNC = objectid_larger, SORTOP = >, PARALLEL = SAFE
);

-- Generation and time.
CREATE FUNCTION gen_objectid() RETURNS objectid
    AS 'MODULE_PATHNAME', 'gen_objectid' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION gen_objectid() IS 'new ObjectId: current Unix seconds, the backend''s 5-byte random value, the next counter value';
CREATE FUNCTION gen_objectid(timestamptz) RETURNS objectid
    AS 'MODULE_PATHNAME', 'gen_objectid_at' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION gen_objectid(timestamptz) IS 'new ObjectId for the given time (seconds), with the backend''s random value and the next counter value';
CREATE FUNCTION objectid_time(objectid) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'objectid_time' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION objectid_time(objectid) IS 'the timestamp inside an ObjectId (whole seconds, read as unsigned)';
CREATE FUNCTION objectid_lower(timestamptz) RETURNS objectid
    AS 'MODULE_PATHNAME', 'objectid_lower' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION objectid_lower(timestamptz) IS 'smallest ObjectId of the second containing the given time';
CREATE FUNCTION objectid_upper(timestamptz) RETURNS objectid
    AS 'MODULE_PATHNAME', 'objectid_upper' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION objectid_upper(timestamptz) IS 'largest ObjectId of the second containing the given time';

-- Casts, all explicit.
CREATE CAST (objectid AS timestamptz) WITH FUNCTION objectid_time(objectid);
CREATE FUNCTION objectid_to_bytea(objectid) RETURNS bytea
    AS 'MODULE_PATHNAME', 'objectid_to_bytea' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION objectid_to_bytea(objectid) IS 'the 12 bytes of an ObjectId';
CREATE FUNCTION objectid(bytea) RETURNS objectid
    AS 'MODULE_PATHNAME', 'objectid_from_bytea' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION objectid(bytea) IS 'exactly 12 bytes as an ObjectId; any other length is 22P02';
CREATE CAST (objectid AS bytea) WITH FUNCTION objectid_to_bytea(objectid);
CREATE CAST (bytea AS objectid) WITH FUNCTION objectid(bytea);

-- MongoDB Extended JSON ({"$oid": "<24 hex>"}, the same in canonical and relaxed mode). The cast
-- to json is also what to_json(), to_jsonb() and json_build_object() use for an objectid.
CREATE FUNCTION objectid_to_json(objectid) RETURNS json
    AS 'MODULE_PATHNAME', 'objectid_to_json' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION objectid_to_json(objectid) IS 'MongoDB Extended JSON: {"$oid": "<24 hex>"}';
CREATE FUNCTION objectid_to_jsonb(objectid) RETURNS jsonb
    AS 'MODULE_PATHNAME', 'objectid_to_jsonb' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION objectid_to_jsonb(objectid) IS 'MongoDB Extended JSON: {"$oid": "<24 hex>"}';
CREATE FUNCTION objectid(jsonb) RETURNS objectid
    AS 'MODULE_PATHNAME', 'objectid_from_jsonb' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION objectid(jsonb) IS 'an ObjectId from Extended JSON: an object whose only key is "$oid", a string of 24 hex digits';
CREATE FUNCTION objectid(json) RETURNS objectid
    AS 'MODULE_PATHNAME', 'objectid_from_json' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION objectid(json) IS 'an ObjectId from Extended JSON: an object whose only key is "$oid", a string of 24 hex digits';
CREATE CAST (objectid AS json) WITH FUNCTION objectid_to_json(objectid);
CREATE CAST (objectid AS jsonb) WITH FUNCTION objectid_to_jsonb(objectid);
CREATE CAST (json AS objectid) WITH FUNCTION objectid(json);
CREATE CAST (jsonb AS objectid) WITH FUNCTION objectid(jsonb);

-------------------------------------------------------------------------------
-- TraceId and DecimalId (added in 0.2.0; shared with the upgrade script, hence CREATE OR REPLACE).
-- Both are bigints.
--   TraceId   Unix seconds mod 2^25 << 38 | node (id_gen.node_id) << 22 | counter (>= 1): unique
--             within one 2^25 s period (about 388 days); its time is read near a reference time.
--   DecimalId counter * 10^10 + generator * 10^5 + launch (id_gen.launch_id), c...cggggglllll.
-------------------------------------------------------------------------------
CREATE OR REPLACE FUNCTION gen_trace_id() RETURNS bigint
    AS 'MODULE_PATHNAME', 'gen_trace_id' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION gen_trace_id() IS 'new TraceId (25-bit Unix seconds, 16-bit node id_gen.node_id, 22-bit counter); unique within a 2^25 s period';

CREATE OR REPLACE FUNCTION trace_id_time(id bigint, reference timestamptz DEFAULT now()) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'trace_id_time' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION trace_id_time(bigint, timestamptz) IS 'the second a TraceId was issued in, taken in the 2^25 s period nearest the reference time';

CREATE OR REPLACE FUNCTION trace_id_node(id bigint) RETURNS integer
    AS 'MODULE_PATHNAME', 'trace_id_node' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION trace_id_node(bigint) IS 'the node number of a TraceId';

CREATE OR REPLACE FUNCTION trace_id_counter(id bigint) RETURNS integer
    AS 'MODULE_PATHNAME', 'trace_id_counter' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION trace_id_counter(bigint) IS 'the counter of a TraceId (1 to 4194303)';

CREATE OR REPLACE FUNCTION trace_id_is_valid(id bigint, reference timestamptz DEFAULT now(),
                                             max_skew interval DEFAULT '1 day') RETURNS boolean
    AS 'MODULE_PATHNAME', 'trace_id_is_valid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION trace_id_is_valid(bigint, timestamptz, interval) IS 'whether a bigint can be a TraceId issued within max_skew of the reference time (positive, counter not 0)';

CREATE OR REPLACE FUNCTION gen_decimal_id() RETURNS bigint
    AS 'MODULE_PATHNAME', 'gen_decimal_id' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION gen_decimal_id() IS 'new DecimalId (counter * 10^10 + generator * 10^5 + launch id_gen.launch_id); never repeats on this server';

CREATE OR REPLACE FUNCTION decimal_id_counter(id bigint) RETURNS bigint
    AS 'MODULE_PATHNAME', 'decimal_id_counter' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION decimal_id_counter(bigint) IS 'the counter of a DecimalId (1 to 922337202)';

CREATE OR REPLACE FUNCTION decimal_id_generator(id bigint) RETURNS integer
    AS 'MODULE_PATHNAME', 'decimal_id_generator' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION decimal_id_generator(bigint) IS 'the generator number of a DecimalId (0 to 99999)';

CREATE OR REPLACE FUNCTION decimal_id_launch(id bigint) RETURNS integer
    AS 'MODULE_PATHNAME', 'decimal_id_launch' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION decimal_id_launch(bigint) IS 'the launch number of a DecimalId (0 to 99999)';
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
-- shard_id_time(bigint), which reads the registry, and create_shard(), drop_shard(),
-- rename_shard(): see 61_shard_admin.sql.
-------------------------------------------------------------------------------
-- Shard functions that read or write the registry: shard_id_time(bigint), and the superuser-only
-- create_shard(), drop_shard(), rename_shard(). Written with CREATE OR REPLACE: the install
-- script and the 0.1.0 -> 0.2.0 upgrade script share them.
--
-- The superuser-only ones run as a superuser, so they trust nothing a lesser role can change:
-- * the extension's schema, whose objects they name as @extschema@.<name>, must still be the
--   schema of that name, and only superusers may own it or create objects in it (its owner could
--   otherwise rename it and put a schema of their own, with a table and triggers named like ours,
--   under its name; a role with CREATE could add overloads of these functions' names);
-- * a shard's schema must be owned by a superuser: its owner could drop next_id() and put a
--   function of their own in its place, which column defaults then run as whoever inserts a row,
--   superusers included;
-- * an existing <schema>.next_id() is adopted (after DROP EXTENSION / CREATE EXTENSION, or a
--   restore without the registry's rows) only when it is id_gen's own C function, owned by a
--   superuser.
-- The extension-schema check is extension_schema_check() below. Its callers reach it through the
-- extension's schema found by OID (pg_extension.extnamespace), never through the name
-- @extschema@, which after a rename could be another schema's: a name lookup would run whatever
-- function the very schema being checked holds under that name. In the real schema the function
-- is an extension member, which no role but the extension's owner can drop or replace.
-------------------------------------------------------------------------------

-- Reads the shard's epoch from the registry: STABLE. NULL when the shard is not registered here.
-- In C (0.1.0 had SQL naming @extschema@.shard_registry): it finds the registry as next_id() does,
-- from the extension's schema by OID, so a superuser calling it never reads a table, or a view,
-- that the owner of a renamed extension schema put under the old name.
CREATE OR REPLACE FUNCTION shard_id_time(id bigint) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'shard_id_time_registered' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION shard_id_time(bigint) IS 'millisecond time inside a shard ID, with the epoch of its shard in shard_registry';

-- The extension-schema check of the superuser-only functions (see the top of this file): the
-- extension's schema must still be named @extschema@ (42501 otherwise), and no role but
-- superusers may own it or create objects in it (42501 naming up to five such roles). With
-- warn_only the second check raises a WARNING instead and the result says whether it passed.
-- Internal: not executable by PUBLIC; callers reach it by the schema's OID.
CREATE OR REPLACE FUNCTION extension_schema_check(warn_only boolean) RETURNS boolean
    LANGUAGE plpgsql STABLE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    ext oid := (SELECT e.extnamespace FROM pg_catalog.pg_extension e WHERE e.extname = 'id_gen');
    others text;
    hint text := 'Install id_gen in a schema only superusers can change: DROP EXTENSION id_gen; CREATE SCHEMA id_gen AUTHORIZATION <superuser>; CREATE EXTENSION id_gen SCHEMA id_gen; (or make a superuser the schema''s owner and revoke CREATE on it from other roles).';
BEGIN
    IF ext IS DISTINCT FROM pg_catalog.to_regnamespace('@extschema@') THEN
        RAISE EXCEPTION 'the schema of the id_gen extension is no longer named %', '@extschema@'
            USING ERRCODE = '42501', DETAIL = 'It was renamed after the extension was installed; id_gen''s superuser-only functions name their objects in it by that name.',
                  HINT = 'Give the extension''s schema its name back, or reinstall the extension.';
    END IF;
    others := (SELECT pg_catalog.array_to_string((pg_catalog.array_agg(pg_catalog.quote_ident(r.rolname) ORDER BY r.rolname))[1:5], ', ')
                      || CASE WHEN pg_catalog.count(*) > 5 THEN ', ...' ELSE '' END
                 FROM pg_catalog.pg_roles r, pg_catalog.pg_namespace n
                WHERE n.oid = ext AND NOT r.rolsuper AND r.rolname <> 'pg_database_owner'
                  AND (pg_catalog.pg_has_role(r.oid, n.nspowner, 'MEMBER') OR pg_catalog.has_schema_privilege(r.oid, n.oid, 'CREATE')));
    IF others IS NULL THEN
        RETURN true;
    END IF;
    IF extension_schema_check.warn_only THEN
        RAISE WARNING 'schema % of the id_gen extension can be changed by roles that are not superusers: %', '@extschema@', others
            USING DETAIL = 'create_shard(), drop_shard() and rename_shard() refuse to run until only superusers can change it, and a superuser calling any function in it by name trusts those roles.',
                  HINT = hint;
        RETURN false;
    END IF;
    RAISE EXCEPTION 'schema % of the id_gen extension can be changed by roles that are not superusers: %', '@extschema@', others
        USING ERRCODE = '42501',
              DETAIL = 'Its owner, or a role that may create objects in it, could put objects of their own where this superuser-only function looks for the extension''s.',
              HINT = hint;
END
$$;
COMMENT ON FUNCTION extension_schema_check(boolean) IS 'internal to id_gen''s superuser-only functions (shards, ID types): checks that only superusers can change the extension''s schema';
REVOKE ALL ON FUNCTION extension_schema_check(boolean) FROM PUBLIC;

-- Checks that schema `schema_name` can hold a shard: owned by a superuser. Returns its next_id()
-- when it has one, which must be id_gen's own C function owned by a superuser (42501 or 42723
-- otherwise), or NULL (also when the schema does not exist). Internal to the functions below.
CREATE OR REPLACE FUNCTION shard_trusted_next_id(schema_name name) RETURNS regprocedure
    LANGUAGE plpgsql STABLE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    sch name := shard_trusted_next_id.schema_name;
    nsp oid;
    owner_desc text;
    trusted boolean;
    fn regprocedure;
    f record;
BEGIN
    -- pg_database_owner (the owner of public since PostgreSQL 15) stands for the database's owner.
    SELECT n.oid, o.rolsuper,
           CASE WHEN pg_catalog.pg_get_userbyid(n.nspowner) = 'pg_database_owner'
                THEN pg_catalog.format('pg_database_owner (the owner of this database, role "%s")', o.rolname)
                ELSE pg_catalog.format('role "%s"', o.rolname) END
      INTO nsp, trusted, owner_desc
      FROM pg_catalog.pg_namespace n
      JOIN pg_catalog.pg_database d ON d.datname = pg_catalog.current_database()
      JOIN pg_catalog.pg_roles o
        ON o.oid = CASE WHEN pg_catalog.pg_get_userbyid(n.nspowner) = 'pg_database_owner' THEN d.datdba ELSE n.nspowner END
     WHERE n.nspname = sch;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    IF NOT trusted THEN
        RAISE EXCEPTION 'schema "%" is owned by %, which is not a superuser', sch, owner_desc
            USING ERRCODE = '42501',
                  DETAIL = 'The owner of a shard''s schema could replace its next_id() with a function of their own, which column defaults would run as whoever inserts a row, superusers included.',
                  HINT = pg_catalog.format('Transfer the schema to a superuser (ALTER SCHEMA %I OWNER TO <superuser>) or choose another schema.', sch);
    END IF;
    fn := pg_catalog.to_regprocedure(pg_catalog.format('%I.next_id()', sch));
    IF fn IS NULL THEN
        RETURN NULL;
    END IF;
    SELECT l.lanname, p.prosrc, p.probin, p.provolatile, p.prorettype, p.proretset, o.rolname, o.rolsuper
      INTO f
      FROM pg_catalog.pg_proc p
      JOIN pg_catalog.pg_language l ON l.oid = p.prolang
      JOIN pg_catalog.pg_roles o ON o.oid = p.proowner
     WHERE p.oid = fn;
    IF NOT (f.lanname = 'c' AND f.prosrc = 'shard_next_id' AND f.probin = 'MODULE_PATHNAME'
            AND f.prorettype = 'pg_catalog.int8'::pg_catalog.regtype AND NOT f.proretset AND f.provolatile = 'v') THEN
        RAISE EXCEPTION 'function %.next_id() already exists and is not id_gen''s shard function', pg_catalog.quote_ident(sch)
            USING ERRCODE = '42723',
                  DETAIL = pg_catalog.format('It is LANGUAGE %s, owned by role "%s". A shard adopts only id_gen''s own: LANGUAGE c, AS ''MODULE_PATHNAME'', ''shard_next_id'', RETURNS bigint VOLATILE.',
                                             f.lanname, f.rolname),
                  HINT = pg_catalog.format('Drop it (DROP FUNCTION %I.next_id()) or choose another schema.', sch);
    END IF;
    IF NOT f.rolsuper THEN
        RAISE EXCEPTION 'function %.next_id() is owned by role "%", which is not a superuser', pg_catalog.quote_ident(sch), f.rolname
            USING ERRCODE = '42501',
                  DETAIL = 'Its owner could replace it with a function of their own, which column defaults would run as whoever inserts a row, superusers included.',
                  HINT = pg_catalog.format('Transfer it to a superuser (ALTER FUNCTION %I.next_id() OWNER TO <superuser>), or drop it.', sch);
    END IF;
    RETURN fn;
END
$$;
COMMENT ON FUNCTION shard_trusted_next_id(name) IS 'internal to create_shard() and rename_shard(): checks that a schema can hold a shard, returns its next_id() if it has id_gen''s';
REVOKE ALL ON FUNCTION shard_trusted_next_id(name) FROM PUBLIC;

-- Makes a schema logical shard `shard`: creates the schema if needed and <schema>.next_id(), a C
-- function (one entry point for every shard) that finds its shard from its own schema; adopts
-- an existing next_id() that is id_gen's own (the way back after DROP EXTENSION).
-- Superuser only: it creates a C-language function, and a SECURITY DEFINER wrapper would let any
-- caller plant functions in any schema.
CREATE OR REPLACE FUNCTION create_shard(shard int4, schema_name name DEFAULT NULL,
                                        epoch timestamptz DEFAULT '2024-01-01 00:00:00+00')
    RETURNS regnamespace
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    sch name := coalesce(create_shard.schema_name, ('shard_' || create_shard.shard)::name);
    ext oid := (SELECT e.extnamespace FROM pg_catalog.pg_extension e WHERE e.extname = 'id_gen');
    other name;
    fn regprocedure;
    on_coordinator boolean;
BEGIN
    IF NOT (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN
        RAISE EXCEPTION 'permission denied to create a shard'
            USING ERRCODE = '42501', HINT = 'create_shard() creates a C-language function: only a superuser can call it.';
    END IF;
    -- On a Citus cluster shards are made on the coordinator, their one authority (62_shard_cluster.sql).
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus') THEN
        EXECUTE 'SELECT pg_catalog.citus_is_coordinator()' INTO on_coordinator;
        IF NOT on_coordinator THEN
            RAISE EXCEPTION 'create_shard() runs on the coordinator of a Citus cluster' USING ERRCODE = '55000',
                DETAIL = 'The coordinator grants every node its block of the shard and copies the registry to every node.';
        END IF;
    END IF;
    -- The extension's schema (see the top of 61_shard_admin.sql), reached by OID.
    EXECUTE pg_catalog.format('SELECT %I.extension_schema_check(false)',
                              (SELECT n.nspname FROM pg_catalog.pg_namespace n WHERE n.oid = ext));
    IF create_shard.shard IS NULL OR create_shard.shard NOT BETWEEN 0 AND 8191 THEN
        RAISE EXCEPTION 'shard number % is out of range', create_shard.shard
            USING ERRCODE = '22003', HINT = 'Shard numbers are 0 to 8191 (13 bits).';
    END IF;
    IF sch = '' THEN
        RAISE EXCEPTION 'a shard''s schema name must not be empty' USING ERRCODE = '42602';
    END IF;
    IF sch LIKE 'pg\_%' THEN
        RAISE EXCEPTION 'unacceptable schema name "%"', sch
            USING ERRCODE = '42939', DETAIL = 'The prefix "pg_" is reserved for system schemas.';
    END IF;
    IF create_shard.epoch IS NULL OR NOT isfinite(create_shard.epoch) OR create_shard.epoch > now() THEN
        RAISE EXCEPTION 'invalid shard epoch %', create_shard.epoch
            USING ERRCODE = '22023', HINT = 'The epoch must be a finite time, not in the future; IDs run out 2^40 ms (about 34.8 years) after it.';
    END IF;
    -- The time field is 41 bits with the sign bit on top: 2^40 ms after the epoch, no ID is left.
    IF create_shard.epoch <= now() - interval '1099511627.776 seconds' THEN
        RAISE EXCEPTION 'shard epoch % is more than 2^40 ms (about 34.8 years) ago: the shard''s IDs are already used up', create_shard.epoch
            USING ERRCODE = '22023',
                  DETAIL = 'A shard''s IDs hold the ms since its epoch in 41 bits, of which the top one is the sign bit.',
                  HINT = 'Choose a later epoch (the default is 2024-01-01).';
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
    -- Checked after CREATE SCHEMA IF NOT EXISTS, so a schema another role creates in between is
    -- checked too; once a superuser owns it, no lesser role can rename, drop or change it.
    EXECUTE format('CREATE SCHEMA IF NOT EXISTS %I', sch);
    fn := @extschema@.shard_trusted_next_id(sch);
    IF fn IS NULL THEN
        EXECUTE format('CREATE FUNCTION %I.next_id() RETURNS bigint LANGUAGE C VOLATILE PARALLEL UNSAFE AS %L, %L',
                       sch, 'MODULE_PATHNAME', 'shard_next_id');
    ELSE
        RAISE NOTICE 'adopting the existing %.next_id() (id_gen''s own) as shard %', pg_catalog.quote_ident(sch), create_shard.shard;
    END IF;
    EXECUTE format('COMMENT ON FUNCTION %I.next_id() IS %L', sch,
                   format('next ID of shard %s (id_gen): ms since %s | shard %s | sequence', create_shard.shard,
                          create_shard.epoch AT TIME ZONE 'UTC', create_shard.shard));
    -- On a Citus cluster: grant the nodes their blocks and copy the registry to every node
    -- (62_shard_cluster.sql). On a worker this raises: shards are made on the coordinator.
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus') THEN
        PERFORM @extschema@.shard_cluster_sync();
    END IF;
    -- By OID, not sch::regnamespace, which would parse the name as an identifier (and fold case).
    RETURN (SELECT n.oid FROM pg_catalog.pg_namespace n WHERE n.nspname = sch)::regnamespace;
END
$$;
COMMENT ON FUNCTION create_shard(int4, name, timestamptz) IS 'make a schema (default shard_<n>) logical shard n with its own next_id(), or adopt id_gen''s next_id() already there; superuser only';
REVOKE ALL ON FUNCTION create_shard(int4, name, timestamptz) FROM PUBLIC;

-- Drops a shard's next_id() and its registry row; the schema and its tables stay. With
-- cascade, column defaults that call next_id() are dropped too.
CREATE OR REPLACE FUNCTION drop_shard(shard int4, cascade boolean DEFAULT false) RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    sch name;
    ext oid := (SELECT e.extnamespace FROM pg_catalog.pg_extension e WHERE e.extname = 'id_gen');
BEGIN
    IF NOT (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN
        RAISE EXCEPTION 'permission denied to drop a shard' USING ERRCODE = '42501';
    END IF;
    -- The extension's schema (see the top of 61_shard_admin.sql), reached by OID.
    EXECUTE pg_catalog.format('SELECT %I.extension_schema_check(false)',
                              (SELECT n.nspname FROM pg_catalog.pg_namespace n WHERE n.oid = ext));
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
    -- On a Citus cluster: grant the nodes their blocks and copy the registry to every node
    -- (62_shard_cluster.sql). On a worker this raises: shards are made on the coordinator.
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus') THEN
        PERFORM @extschema@.shard_cluster_sync();
    END IF;
END
$$;
COMMENT ON FUNCTION drop_shard(int4, boolean) IS 'unregister shard n and drop its next_id() (the schema stays); superuser only';
REVOKE ALL ON FUNCTION drop_shard(int4, boolean) FROM PUBLIC;

-- Renames a shard's schema and updates its registry row in one transaction (the registry is keyed
-- by schema name; a bare ALTER SCHEMA ... RENAME leaves next_id() raising 55000). When the schema
-- was already renamed with ALTER SCHEMA, this registers the new name. Either way the schema must
-- be owned by a superuser and its next_id() must be id_gen's.
CREATE OR REPLACE FUNCTION rename_shard(shard int4, new_schema_name name) RETURNS regnamespace
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    reg record;
    other int4;
    blocks jsonb;
    ext oid := (SELECT e.extnamespace FROM pg_catalog.pg_extension e WHERE e.extname = 'id_gen');
BEGIN
    IF NOT (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN
        RAISE EXCEPTION 'permission denied to rename a shard' USING ERRCODE = '42501';
    END IF;
    -- The extension's schema (see the top of 61_shard_admin.sql), reached by OID.
    EXECUTE pg_catalog.format('SELECT %I.extension_schema_check(false)',
                              (SELECT n.nspname FROM pg_catalog.pg_namespace n WHERE n.oid = ext));
    IF rename_shard.new_schema_name IS NULL THEN
        RAISE EXCEPTION 'new schema name must not be null' USING ERRCODE = '22004';
    END IF;
    IF rename_shard.new_schema_name = '' THEN
        RAISE EXCEPTION 'a shard''s schema name must not be empty' USING ERRCODE = '42602';
    END IF;
    IF rename_shard.new_schema_name LIKE 'pg\_%' THEN
        RAISE EXCEPTION 'unacceptable schema name "%"', rename_shard.new_schema_name
            USING ERRCODE = '42939', DETAIL = 'The prefix "pg_" is reserved for system schemas.';
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
        PERFORM @extschema@.shard_trusted_next_id(reg.schema_name);
        EXECUTE format('ALTER SCHEMA %I RENAME TO %I', reg.schema_name, rename_shard.new_schema_name);
    ELSIF @extschema@.shard_trusted_next_id(rename_shard.new_schema_name) IS NULL THEN
        RAISE EXCEPTION 'schema % of shard % does not exist', reg.schema_name, rename_shard.shard
            USING ERRCODE = '3F000',
                  HINT = format('Neither %I nor %I.next_id() exists: drop the shard with drop_shard(%s).',
                                reg.schema_name, rename_shard.new_schema_name, rename_shard.shard);
    END IF;
    -- Rows cannot be updated (shard_registry_guard): replace it, keeping epoch and created_at,
    -- and the shard's blocks on a cluster (62_shard_cluster.sql), which the DELETE cascades to.
    blocks := (SELECT pg_catalog.jsonb_agg(pg_catalog.to_jsonb(b)) FROM @extschema@.shard_blocks b WHERE b.shard = rename_shard.shard);
    DELETE FROM @extschema@.shard_registry r WHERE r.shard = rename_shard.shard;
    INSERT INTO @extschema@.shard_registry (shard, schema_name, epoch, created_at)
        VALUES (reg.shard, rename_shard.new_schema_name, reg.epoch, reg.created_at);
    INSERT INTO @extschema@.shard_blocks
        SELECT * FROM pg_catalog.jsonb_populate_recordset(NULL::@extschema@.shard_blocks, blocks);
    -- On a Citus cluster: grant the nodes their blocks and copy the registry to every node
    -- (62_shard_cluster.sql). On a worker this raises: shards are made on the coordinator.
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus') THEN
        PERFORM @extschema@.shard_cluster_sync();
    END IF;
    RETURN (SELECT n.oid FROM pg_catalog.pg_namespace n WHERE n.nspname = rename_shard.new_schema_name)::regnamespace;
END
$$;
COMMENT ON FUNCTION rename_shard(int4, name) IS 'rename shard n''s schema and its registry entry together (or register a schema already renamed); superuser only';
REVOKE ALL ON FUNCTION rename_shard(int4, name) FROM PUBLIC;

-- Said once when the extension is installed or updated: a schema lesser roles can change makes
-- the functions above refuse, and a shard that 0.1.0 let live in such a schema is not safe.
DO $$
DECLARE
    ext oid := (SELECT e.extnamespace FROM pg_catalog.pg_extension e WHERE e.extname = 'id_gen');
    s record;
    msg text;
    hint text;
BEGIN
    EXECUTE pg_catalog.format('SELECT %I.extension_schema_check(true)',
                              (SELECT n.nspname FROM pg_catalog.pg_namespace n WHERE n.oid = ext));
    FOR s IN SELECT r.shard, r.schema_name FROM @extschema@.shard_registry r ORDER BY r.shard LOOP
        BEGIN
            PERFORM @extschema@.shard_trusted_next_id(s.schema_name);
        EXCEPTION WHEN insufficient_privilege OR duplicate_function THEN
            GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, hint = PG_EXCEPTION_HINT;
            RAISE WARNING 'shard %: %', s.shard, msg USING HINT = coalesce(hint, '');
        END;
    END LOOP;
END
$$;
-------------------------------------------------------------------------------
-- Per-schema shards on a cluster of servers (Citus). Every node keeps the registry, and the
-- blocks below, as plain local tables: next_id() reads them where it runs (a Citus task on a
-- worker cannot run a distributed query, and a reference table would be an empty shell there).
-- The coordinator is the one authority for every shard: shard_cluster_sync() grants each node a
-- block of the shard's sequence field and copies the registry and the blocks to every worker;
-- create_shard(), drop_shard() and rename_shard() call it on a Citus coordinator, and it is run
-- by hand after citus_add_node(). Without Citus nothing here is used: a shard with no blocks is
-- issued from its whole sequence field, as on one server.
-------------------------------------------------------------------------------

-- One row per (shard, node): node `node_id` (its id_gen.node_id) issues the shard's IDs with
-- sequence numbers seq_lo .. seq_lo + 2^seq_bits - 1 only, from valid_from on. Blocks of a shard
-- never overlap (shard_cluster_sync() grants them), so IDs issued on different nodes differ in
-- their bits whatever the time: no round trip per ID, and none per block once granted.
CREATE TABLE shard_blocks (
    shard int4 NOT NULL REFERENCES shard_registry (shard) ON DELETE CASCADE,
    node_id int4 NOT NULL CHECK (node_id BETWEEN 0 AND 65535),
    seq_lo int4 NOT NULL,
    seq_bits int4 NOT NULL CHECK (seq_bits BETWEEN 0 AND 10),
    valid_from timestamptz NOT NULL CHECK (isfinite(valid_from)),
    PRIMARY KEY (shard, node_id),
    CHECK (seq_lo >= 0 AND seq_lo + (1 << seq_bits) <= 1024 AND seq_lo % (1 << seq_bits) = 0)
);
COMMENT ON TABLE shard_blocks IS 'blocks of each shard''s sequence field held by the nodes of a cluster (maintained by shard_cluster_sync)';
SELECT pg_catalog.pg_extension_config_dump('shard_blocks', '');
REVOKE ALL ON shard_blocks FROM PUBLIC;
GRANT SELECT ON shard_blocks TO PUBLIC;

-- Backends cache a shard's registry row and block: a change to either table, when it commits,
-- makes every backend read them again.
CREATE FUNCTION shard_registry_changed() RETURNS trigger
    AS 'MODULE_PATHNAME', 'shard_registry_changed' LANGUAGE C VOLATILE PARALLEL UNSAFE;
CREATE TRIGGER shard_registry_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON shard_registry
    FOR EACH STATEMENT EXECUTE FUNCTION shard_registry_changed();
CREATE TRIGGER shard_blocks_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON shard_blocks
    FOR EACH STATEMENT EXECUTE FUNCTION shard_registry_changed();

-- Every node of the cluster with its id_gen.node_id and what is wrong with it, if anything:
-- unset, set on another node too, or not readable (the node could not be reached, or id_gen's
-- library is not loaded there). Without Citus: this server alone.
CREATE FUNCTION cluster_node_ids()
    RETURNS TABLE (nodename text, nodeport int4, node_id int4, problem text)
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus') THEN
        RETURN QUERY
        SELECT 'localhost'::text, pg_catalog.current_setting('port')::int4, s.v,
               CASE WHEN s.v < 0 THEN 'id_gen.node_id is not set' END
          FROM (SELECT coalesce(pg_catalog.current_setting('id_gen.node_id', true), '-1')::int4 AS v) s;
        RETURN;
    END IF;
    -- Citus's own catalog and functions, by name at run time (no dependency on Citus).
    RETURN QUERY EXECUTE $q$
        WITH r AS (
            -- A coordinator not in pg_dist_node is reported as node 0: this server.
            SELECT coalesce(n.nodename::text, pg_catalog.current_setting('citus.local_hostname')) AS nodename,
                   coalesce(n.nodeport::int4, pg_catalog.current_setting('port')::int4) AS nodeport, x.success, x.result
              FROM pg_catalog.run_command_on_all_nodes('SHOW id_gen.node_id') x
              LEFT JOIN pg_catalog.pg_dist_node n ON n.nodeid = x.nodeid
        ), v AS (
            SELECT r.nodename, r.nodeport,
                   CASE WHEN r.success AND r.result ~ '^-?[0-9]+$' THEN r.result::int4 END AS node_id,
                   CASE WHEN NOT r.success THEN r.result END AS failure
              FROM r
        )
        SELECT v.nodename, v.nodeport, v.node_id,
               CASE WHEN v.failure IS NOT NULL THEN 'id_gen.node_id could not be read: ' || v.failure
                    WHEN v.node_id IS NULL OR v.node_id < 0 THEN 'id_gen.node_id is not set'
                    WHEN pg_catalog.count(*) OVER (PARTITION BY v.node_id) > 1
                    THEN pg_catalog.format('id_gen.node_id %s is set on %s nodes', v.node_id,
                                           pg_catalog.count(*) OVER (PARTITION BY v.node_id))
               END
          FROM v ORDER BY v.nodename, v.nodeport
    $q$;
END
$$;
COMMENT ON FUNCTION cluster_node_ids() IS 'id_gen.node_id of every node of the cluster (Citus) and any problem with it: unset, not unique, unreadable';
REVOKE ALL ON FUNCTION cluster_node_ids() FROM PUBLIC;

-- Raises unless id_gen.node_id is set, and different, on every node; returns the number of nodes.
CREATE FUNCTION check_cluster_node_ids() RETURNS int4
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    bad text;
    n int4;
BEGIN
    SELECT pg_catalog.string_agg(pg_catalog.format('%s:%s: %s', c.nodename, c.nodeport, c.problem), '; ')
               FILTER (WHERE c.problem IS NOT NULL),
           pg_catalog.count(*)
      INTO bad, n
      FROM @extschema@.cluster_node_ids() c;
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'id_gen.node_id must be set, and different, on every node of the cluster'
            USING ERRCODE = '55000', DETAIL = bad,
                  HINT = 'Set id_gen.node_id in each node''s postgresql.conf (ALTER SYSTEM SET id_gen.node_id = <n>; SELECT pg_reload_conf();). Two nodes with one number issue the same snowflake IDs.';
    END IF;
    RETURN n;
END
$$;
COMMENT ON FUNCTION check_cluster_node_ids() IS 'raise unless id_gen.node_id is set and unique on every node of the cluster; the number of nodes';
REVOKE ALL ON FUNCTION check_cluster_node_ids() FROM PUBLIC;

-- Run on a worker by shard_cluster_sync(): makes this node's registry and blocks equal to the
-- coordinator's `snapshot` (rows are replaced, never updated: see shard_registry_guard).
CREATE FUNCTION shard_cluster_apply(snapshot jsonb) RETURNS int4
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    n int4;
BEGIN
    IF NOT (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN
        RAISE EXCEPTION 'permission denied to change the shard registry' USING ERRCODE = '42501';
    END IF;
    -- The extension's schema, as create_shard() checks it (61_shard_admin.sql), reached by OID.
    EXECUTE pg_catalog.format('SELECT %I.extension_schema_check(false)',
                              (SELECT n.nspname FROM pg_catalog.pg_namespace n JOIN pg_catalog.pg_extension e
                                   ON e.extnamespace = n.oid WHERE e.extname = 'id_gen'));
    CREATE TEMP TABLE idgen_reg ON COMMIT DROP AS
        SELECT * FROM pg_catalog.jsonb_populate_recordset(NULL::@extschema@.shard_registry, snapshot -> 'registry');
    CREATE TEMP TABLE idgen_blk ON COMMIT DROP AS
        SELECT * FROM pg_catalog.jsonb_populate_recordset(NULL::@extschema@.shard_blocks, snapshot -> 'blocks');
    DELETE FROM @extschema@.shard_blocks b
     WHERE NOT EXISTS (SELECT 1 FROM idgen_blk x WHERE x.shard = b.shard AND x.node_id = b.node_id
                          AND x.seq_lo = b.seq_lo AND x.seq_bits = b.seq_bits AND x.valid_from = b.valid_from);
    DELETE FROM @extschema@.shard_registry r
     WHERE NOT EXISTS (SELECT 1 FROM idgen_reg x WHERE x.shard = r.shard AND x.schema_name = r.schema_name
                          AND x.epoch = r.epoch);
    INSERT INTO @extschema@.shard_registry (shard, schema_name, epoch, created_at)
        SELECT x.shard, x.schema_name, x.epoch, x.created_at FROM idgen_reg x
         WHERE NOT EXISTS (SELECT 1 FROM @extschema@.shard_registry r WHERE r.shard = x.shard);
    INSERT INTO @extschema@.shard_blocks (shard, node_id, seq_lo, seq_bits, valid_from)
        SELECT x.shard, x.node_id, x.seq_lo, x.seq_bits, x.valid_from FROM idgen_blk x
         WHERE NOT EXISTS (SELECT 1 FROM @extschema@.shard_blocks b WHERE b.shard = x.shard AND b.node_id = x.node_id);
    SELECT pg_catalog.count(*) INTO n FROM @extschema@.shard_registry;
    DROP TABLE idgen_reg, idgen_blk;
    RETURN n;
END
$$;
COMMENT ON FUNCTION shard_cluster_apply(jsonb) IS 'internal to shard_cluster_sync(): make this node''s shard registry and blocks equal to the coordinator''s';
REVOKE ALL ON FUNCTION shard_cluster_apply(jsonb) FROM PUBLIC;

-- On a Citus coordinator: checks id_gen.node_id on every node, grants every node that has none a
-- block of 2^k sequence numbers of every shard (ids_per_ms = 2^k per ms per node; by default the
-- largest that leaves room for twice as many nodes as there are now, at most 256), and copies the
-- registry and the blocks to every worker. Returns the number of nodes. Run it after
-- citus_add_node(); create_shard(), drop_shard() and rename_shard() run it themselves.
-- A node that does not receive the copy keeps what it had: its own block (no duplicate), or no
-- registry row (next_id() refuses there).
CREATE FUNCTION shard_cluster_sync(ids_per_ms int4 DEFAULT NULL) RETURNS int4
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    nodes int4;
    width int4;
    bits int4;
    s record;
    nid int4;
    nids int4[];
    lo int4;
    snapshot jsonb;
    names text[];
    ports int4[];
    cmds text[];
    f record;
    failures text;
    is_coordinator boolean;
BEGIN
    IF NOT (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN
        RAISE EXCEPTION 'permission denied to synchronise shards' USING ERRCODE = '42501';
    END IF;
    -- The extension's schema, as create_shard() checks it (61_shard_admin.sql), reached by OID.
    EXECUTE pg_catalog.format('SELECT %I.extension_schema_check(false)',
                              (SELECT n.nspname FROM pg_catalog.pg_namespace n JOIN pg_catalog.pg_extension e
                                   ON e.extnamespace = n.oid WHERE e.extname = 'id_gen'));
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus') THEN
        RAISE EXCEPTION 'shard_cluster_sync() needs Citus' USING ERRCODE = '55000',
            DETAIL = 'On a single server a shard is issued from its whole sequence field.';
    END IF;
    EXECUTE 'SELECT pg_catalog.citus_is_coordinator()' INTO is_coordinator;
    IF NOT is_coordinator THEN
        RAISE EXCEPTION 'shard_cluster_sync() runs on the coordinator' USING ERRCODE = '55000',
            DETAIL = 'The coordinator grants the blocks of every shard; workers hold copies.';
    END IF;
    nodes := @extschema@.check_cluster_node_ids();
    nids := ARRAY(SELECT c.node_id FROM @extschema@.cluster_node_ids() c ORDER BY c.node_id);
    IF ids_per_ms IS NULL THEN
        width := 256;
        WHILE width > 1 AND width * 2 * nodes > 1024 LOOP
            width := width / 2;
        END LOOP;
    ELSIF ids_per_ms NOT IN (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024) THEN
        RAISE EXCEPTION 'ids_per_ms must be a power of two from 1 to 1024, not %', ids_per_ms USING ERRCODE = '22023';
    ELSE
        width := ids_per_ms;
    END IF;
    bits := 0;
    WHILE (1 << bits) < width LOOP
        bits := bits + 1;
    END LOOP;
    -- One grant at a time.
    LOCK TABLE @extschema@.shard_registry IN SHARE ROW EXCLUSIVE MODE;
    LOCK TABLE @extschema@.shard_blocks IN SHARE ROW EXCLUSIVE MODE;
    FOR s IN SELECT r.shard, r.epoch, r.created_at,
                    NOT EXISTS (SELECT 1 FROM @extschema@.shard_blocks b WHERE b.shard = r.shard) AS first_grant
               FROM @extschema@.shard_registry r ORDER BY r.shard LOOP
        FOR nid IN SELECT u.node_id FROM pg_catalog.unnest(nids) AS u(node_id)
                    WHERE NOT EXISTS (SELECT 1 FROM @extschema@.shard_blocks b WHERE b.shard = s.shard AND b.node_id = u.node_id)
                    ORDER BY u.node_id LOOP
            -- The lowest free aligned run of `width` sequence numbers.
            SELECT g.lo INTO lo
              FROM pg_catalog.generate_series(0, 1024 - width, width) AS g(lo)
             WHERE NOT EXISTS (SELECT 1 FROM @extschema@.shard_blocks b
                                WHERE b.shard = s.shard AND b.seq_lo < g.lo + width AND g.lo < b.seq_lo + (1 << b.seq_bits))
             ORDER BY g.lo LIMIT 1;
            IF lo IS NULL THEN
                RAISE EXCEPTION 'shard % has no free block of % IDs per ms for node %', s.shard, width, nid
                    USING ERRCODE = '54000',
                          DETAIL = 'A shard''s 1024 sequence numbers per ms are shared among the nodes that issue its IDs.',
                          HINT = 'Grant smaller blocks (shard_cluster_sync(ids_per_ms => ...)) to new shards, or give new nodes new shards.';
            END IF;
            -- A shard created in this transaction has issued nothing; one that existed before its
            -- first grant may have issued IDs from its whole field, up to the run-ahead allowance
            -- past the clock: its blocks start after that.
            INSERT INTO @extschema@.shard_blocks (shard, node_id, seq_lo, seq_bits, valid_from)
                VALUES (s.shard, nid, lo, bits,
                        CASE WHEN NOT s.first_grant OR s.created_at = pg_catalog.now() THEN s.epoch
                             ELSE pg_catalog.clock_timestamp() + interval '1 second'
                                  + coalesce(pg_catalog.current_setting('id_gen.max_run_ahead', true), '1s')::interval END);
        END LOOP;
    END LOOP;
    snapshot := pg_catalog.jsonb_build_object(
        'registry', coalesce((SELECT pg_catalog.jsonb_agg(pg_catalog.to_jsonb(r)) FROM @extschema@.shard_registry r), '[]'),
        'blocks', coalesce((SELECT pg_catalog.jsonb_agg(pg_catalog.to_jsonb(b)) FROM @extschema@.shard_blocks b), '[]'));
    -- Every active primary but this one, each over its own connection (Citus's master_run_on_worker).
    EXECUTE $q$SELECT pg_catalog.array_agg(n.nodename::text ORDER BY n.nodeid), pg_catalog.array_agg(n.nodeport::int4 ORDER BY n.nodeid)
                 FROM pg_catalog.pg_dist_node n
                WHERE n.isactive AND n.noderole = 'primary' AND n.groupid <> 0$q$ INTO names, ports;
    IF names IS NULL THEN
        RETURN nodes;
    END IF;
    cmds := pg_catalog.array_fill(pg_catalog.format('SELECT %I.shard_cluster_apply(%L::jsonb)', '@extschema@', snapshot::text),
                                  ARRAY[pg_catalog.array_length(names, 1)]);
    FOR f IN EXECUTE 'SELECT m.node_name::text AS node_name, m.node_port::int4 AS node_port, m.success, m.result
                        FROM pg_catalog.master_run_on_worker($1, $2, $3, true) m' USING names, ports, cmds LOOP
        IF NOT f.success THEN
            failures := coalesce(failures || '; ', '') || pg_catalog.format('%s:%s: %s', f.node_name, f.node_port, f.result);
        END IF;
    END LOOP;
    IF failures IS NOT NULL THEN
        RAISE EXCEPTION 'the shard registry could not be copied to every node' USING ERRCODE = '08006',
            DETAIL = failures,
            HINT = 'Nodes that did not receive it refuse next_id() for shards they do not know. Run SELECT shard_cluster_sync() again once they are reachable.';
    END IF;
    RETURN nodes;
END
$$;
COMMENT ON FUNCTION shard_cluster_sync(int4) IS 'on a Citus coordinator: check node ids, grant every node a block of every shard, copy the registry and blocks to every worker';
REVOKE ALL ON FUNCTION shard_cluster_sync(int4) FROM PUBLIC;
-------------------------------------------------------------------------------
-- Additions of 0.2.0 to the types' SQL surface. Only new objects: this file is part of the install
-- script and included as is in the 0.1.0 -> 0.2.0 upgrade script.
-------------------------------------------------------------------------------

-- BRIN minmax operator classes for the base36 types (ulid and snowflake have theirs): the btree
-- operators of each type, with the built-in minmax support functions.
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

-- snowflake compared with bigint, both ways, so `WHERE id = 2124948553146044416` (and an integer
-- literal, through int4 -> int8) works and uses a btree index on a snowflake column. The bytes
-- are an int8's, so the built-in int8 functions serve. In the btree family snowflake_ops, which
-- an index scan needs; not HASHES or MERGES (the family has no bigint-bigint operators).
CREATE FUNCTION snowflake_eq_int8(snowflake, bigint) RETURNS bool AS 'int8eq' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_ne_int8(snowflake, bigint) RETURNS bool AS 'int8ne' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_lt_int8(snowflake, bigint) RETURNS bool AS 'int8lt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_le_int8(snowflake, bigint) RETURNS bool AS 'int8le' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_gt_int8(snowflake, bigint) RETURNS bool AS 'int8gt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_ge_int8(snowflake, bigint) RETURNS bool AS 'int8ge' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_cmp_int8(snowflake, bigint) RETURNS int4 AS 'btint8cmp' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION int8_eq_snowflake(bigint, snowflake) RETURNS bool AS 'int8eq' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION int8_ne_snowflake(bigint, snowflake) RETURNS bool AS 'int8ne' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION int8_lt_snowflake(bigint, snowflake) RETURNS bool AS 'int8lt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION int8_le_snowflake(bigint, snowflake) RETURNS bool AS 'int8le' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION int8_gt_snowflake(bigint, snowflake) RETURNS bool AS 'int8gt' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION int8_ge_snowflake(bigint, snowflake) RETURNS bool AS 'int8ge' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION int8_cmp_snowflake(bigint, snowflake) RETURNS int4 AS 'btint8cmp' LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OPERATOR = (
    LEFTARG = snowflake, RIGHTARG = bigint, PROCEDURE = snowflake_eq_int8,
    COMMUTATOR = '=', NEGATOR = '<>', RESTRICT = eqsel, JOIN = eqjoinsel
);
CREATE OPERATOR <> (
    LEFTARG = snowflake, RIGHTARG = bigint, PROCEDURE = snowflake_ne_int8,
    COMMUTATOR = '<>', NEGATOR = '=', RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR < (
    LEFTARG = snowflake, RIGHTARG = bigint, PROCEDURE = snowflake_lt_int8,
    COMMUTATOR = '>', NEGATOR = '>=', RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
    LEFTARG = snowflake, RIGHTARG = bigint, PROCEDURE = snowflake_le_int8,
    COMMUTATOR = '>=', NEGATOR = '>', RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR > (
    LEFTARG = snowflake, RIGHTARG = bigint, PROCEDURE = snowflake_gt_int8,
    COMMUTATOR = '<', NEGATOR = '<=', RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR >= (
    LEFTARG = snowflake, RIGHTARG = bigint, PROCEDURE = snowflake_ge_int8,
    COMMUTATOR = '<=', NEGATOR = '<', RESTRICT = scalargesel, JOIN = scalargejoinsel
);
CREATE OPERATOR = (
    LEFTARG = bigint, RIGHTARG = snowflake, PROCEDURE = int8_eq_snowflake,
    COMMUTATOR = '=', NEGATOR = '<>', RESTRICT = eqsel, JOIN = eqjoinsel
);
CREATE OPERATOR <> (
    LEFTARG = bigint, RIGHTARG = snowflake, PROCEDURE = int8_ne_snowflake,
    COMMUTATOR = '<>', NEGATOR = '=', RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR < (
    LEFTARG = bigint, RIGHTARG = snowflake, PROCEDURE = int8_lt_snowflake,
    COMMUTATOR = '>', NEGATOR = '>=', RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
    LEFTARG = bigint, RIGHTARG = snowflake, PROCEDURE = int8_le_snowflake,
    COMMUTATOR = '>=', NEGATOR = '>', RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR > (
    LEFTARG = bigint, RIGHTARG = snowflake, PROCEDURE = int8_gt_snowflake,
    COMMUTATOR = '<', NEGATOR = '<=', RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR >= (
    LEFTARG = bigint, RIGHTARG = snowflake, PROCEDURE = int8_ge_snowflake,
    COMMUTATOR = '<=', NEGATOR = '<', RESTRICT = scalargesel, JOIN = scalargejoinsel
);

ALTER OPERATOR FAMILY snowflake_ops USING btree ADD
    OPERATOR 1 < (snowflake, bigint),
    OPERATOR 2 <= (snowflake, bigint),
    OPERATOR 3 = (snowflake, bigint),
    OPERATOR 4 >= (snowflake, bigint),
    OPERATOR 5 > (snowflake, bigint),
    FUNCTION 1 (snowflake, bigint) snowflake_cmp_int8(snowflake, bigint),
    OPERATOR 1 < (bigint, snowflake),
    OPERATOR 2 <= (bigint, snowflake),
    OPERATOR 3 = (bigint, snowflake),
    OPERATOR 4 >= (bigint, snowflake),
    OPERATOR 5 > (bigint, snowflake),
    FUNCTION 1 (bigint, snowflake) int8_cmp_snowflake(bigint, snowflake);

-- integer -> snowflake, explicit and checked like bigint -> snowflake, so 1::snowflake works.
CREATE FUNCTION snowflake(integer) RETURNS snowflake
    AS 'MODULE_PATHNAME', 'snowflake_from_int4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake(integer) IS 'integer to snowflake; 22003 unless the value is at least 1';
CREATE CAST (integer AS snowflake) WITH FUNCTION snowflake(integer);

-- Range helpers of shard IDs, for any shard epoch (a custom layout for snowflake_lower/upper()
-- is capped at 63 bits of widths; the shard layout's are 41 + 13 + 10, the time's top bit never
-- set): every shard ID, of any shard, issued in the millisecond containing `at` lies in
-- [shard_id_lower(at, epoch), shard_id_upper(at, epoch)].
CREATE FUNCTION shard_id_lower(at timestamptz, epoch timestamptz) RETURNS bigint
    AS 'MODULE_PATHNAME', 'shard_id_lower' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION shard_id_upper(at timestamptz, epoch timestamptz) RETURNS bigint
    AS 'MODULE_PATHNAME', 'shard_id_upper' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION shard_id_lower(timestamptz, timestamptz) IS 'smallest shard ID (any shard) of the millisecond containing the given time, given the shard epoch';
COMMENT ON FUNCTION shard_id_upper(timestamptz, timestamptz) IS 'largest shard ID (any shard) of the millisecond containing the given time, given the shard epoch';
-------------------------------------------------------------------------------
-- Raising a generator's high-water mark above IDs it did not issue here (added in 0.2.0; shared
-- with the upgrade script, hence CREATE OR REPLACE). After a dump is restored on another server,
-- or after pg_upgrade when the old data directory's pg_idgen/ was not copied, the generators start
-- at this server's clock, which may be behind IDs the old server issued (its clock was ahead):
--   SELECT snowflake_raise_mark(max(id)) FROM orders;
--   SELECT shard_raise_mark(5, max(id)) FROM shard_5.photos;
-- Superuser only by default: the mark is shared by every database of the server (node layouts)
-- and never moves back.
-------------------------------------------------------------------------------
CREATE OR REPLACE FUNCTION snowflake_raise_mark(above snowflake, layout text DEFAULT 'twitter') RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'snowflake_raise_mark' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION snowflake_raise_mark(snowflake, text) IS 'makes gen_snowflake(layout) issue only IDs greater than the given one from now on; returns the high-water mark';
REVOKE ALL ON FUNCTION snowflake_raise_mark(snowflake, text) FROM PUBLIC;

CREATE OR REPLACE FUNCTION shard_raise_mark(shard int4, above bigint) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'shard_raise_mark' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION shard_raise_mark(int4, bigint) IS 'makes the shard''s next_id() issue only IDs greater than the given one from now on; returns the high-water mark';
REVOKE ALL ON FUNCTION shard_raise_mark(int4, bigint) FROM PUBLIC;
-------------------------------------------------------------------------------
-- Idempotent requests: a store of idempotency keys (request IDs). New in 0.2.0: this file is part
-- of the install script and included as is in the 0.1.0 -> 0.2.0 upgrade script.
--
-- A key belongs to the role that used it (current_user at the call), a scope of the caller's
-- choice and the key text. The role is stored by name and by OID (as regrole, which pg_dump writes
-- as the role's name and a restore reads back as the new cluster's OID): a row is the caller's
-- only when both match, so a new role given a dropped or renamed role's name does not inherit its
-- keys. The table is the extension owner's and no other role has a privilege on it. The
-- functions are C: they read current_user themselves, so a caller cannot name another role, and
-- read and write the table directly (found by OID from pg_extension, as catalog code does), so no
-- SQL text is resolved by name, or planned, while a request runs.
-------------------------------------------------------------------------------

CREATE TABLE idempotency_keys (
    role_name           name        NOT NULL,
    role_id             regrole     NOT NULL,
    scope               text        COLLATE "C" NOT NULL,
    key                 text        COLLATE "C" NOT NULL,
    fingerprint         text        COLLATE "C",
    state               text        NOT NULL,   -- 'in_flight' or 'done'
    response            jsonb,
    attempts            integer     NOT NULL,
    original_attempt_id text,
    attempt_id          text,
    recovery_point      text,
    lock_timeout        interval    NOT NULL,
    locked_until        timestamptz,
    retention           interval    NOT NULL,
    created_at          timestamptz NOT NULL,
    updated_at          timestamptz NOT NULL,
    finished_at         timestamptz,
    expires_at          timestamptz NOT NULL,
    CONSTRAINT idempotency_keys_pkey PRIMARY KEY (role_name, scope, key)
) WITH (fillfactor = 80);
-- Only the functions below write rows (and check what they write). They write the heap and the
-- indexes directly, so they refuse to write while the table has triggers, rules, row-level
-- security, CHECK constraints or columns of its own that they would bypass. Every key is updated
-- at least once (its finish; each replay counts an attempt), never in an indexed column: the free
-- space lets those updates stay on the page, heap-only (HOT), with no new index entries. The index
-- on expires_at (set when a request is granted the key) serves purges.
CREATE INDEX idempotency_keys_expires_at ON idempotency_keys (expires_at);
COMMENT ON TABLE idempotency_keys IS 'idempotency keys: one row per (role, scope, key); read and written through the idempotency_* functions';
-- Keys survive pg_dump (a configuration table's rows are dumped).
SELECT pg_catalog.pg_extension_config_dump('idempotency_keys', '');
REVOKE ALL ON idempotency_keys FROM PUBLIC;

-------------------------------------------------------------------------------
-- The API. EXECUTE is granted to no one by default: grant it to the roles that serve requests.
-------------------------------------------------------------------------------

CREATE FUNCTION idempotency_begin(scope text, key text, fingerprint text, wait boolean DEFAULT true,
                                  attempt_id text DEFAULT NULL, lock_timeout interval DEFAULT '30 seconds',
                                  retention interval DEFAULT NULL)
    RETURNS TABLE (state text, response jsonb, replayed boolean, attempts integer, original_attempt_id text,
                   recovery_point text)
    AS 'MODULE_PATHNAME', 'idempotency_begin' LANGUAGE C VOLATILE PARALLEL UNSAFE ROWS 1;
COMMENT ON FUNCTION idempotency_begin(text, text, text, boolean, text, interval, interval) IS 'start a request with an idempotency key: new, replay (with the stored response) or resume';

CREATE FUNCTION idempotency_finish(scope text, key text, response jsonb, attempt_id text DEFAULT NULL)
    RETURNS void AS 'MODULE_PATHNAME', 'idempotency_finish' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION idempotency_finish(text, text, jsonb, text) IS 'store the response of a request in flight; retries replay it';

CREATE FUNCTION idempotency_recovery_point(scope text, key text, point text, attempt_id text DEFAULT NULL)
    RETURNS void AS 'MODULE_PATHNAME', 'idempotency_recovery_point' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION idempotency_recovery_point(text, text, text, text) IS 'record the phase a request in flight has completed; a retry that takes over resumes from it';

CREATE FUNCTION idempotency_purge(older_than interval DEFAULT NULL, batch_size integer DEFAULT 1000)
    RETURNS bigint AS 'MODULE_PATHNAME', 'idempotency_purge' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION idempotency_purge(interval, integer) IS 'delete up to batch_size expired idempotency keys; returns how many';

CREATE FUNCTION idempotency_fingerprint(payload jsonb, paths text[] DEFAULT NULL)
    RETURNS text AS 'MODULE_PATHNAME', 'idempotency_fingerprint' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION idempotency_fingerprint(jsonb, text[]) IS 'SHA-256 (hex) of the canonical JSON of a payload, or of the members its JSON Pointers select';

REVOKE ALL ON FUNCTION idempotency_begin(text, text, text, boolean, text, interval, interval) FROM PUBLIC;
REVOKE ALL ON FUNCTION idempotency_finish(text, text, jsonb, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION idempotency_recovery_point(text, text, text, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION idempotency_purge(interval, integer) FROM PUBLIC;
-------------------------------------------------------------------------------
-- Input validity checks: PostgreSQL 16's pg_input_is_valid() and pg_input_error_info() on every
-- server version (15 has neither), for any type. Only new objects: this file is part of the
-- install script and included as is in the 0.1.0 -> 0.2.0 upgrade script.
-- STABLE as core's (an input function may read settings, such as timestamptz's TimeZone).
-- PARALLEL UNSAFE unlike core's: on 15 the input function runs inside a subtransaction, which
-- cannot start in parallel mode (a label cannot differ between server versions).
-------------------------------------------------------------------------------
CREATE FUNCTION id_gen_input_is_valid(value text, type_name text) RETURNS boolean
    AS 'MODULE_PATHNAME', 'id_gen_input_is_valid' LANGUAGE C STABLE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION id_gen_input_is_valid(text, text) IS
    'whether value is valid text input for the named type, as pg_input_is_valid() (PostgreSQL 16) on every version';

CREATE FUNCTION id_gen_input_error_info(value text, type_name text,
        OUT message text, OUT detail text, OUT hint text, OUT sql_error_code text) RETURNS record
    AS 'MODULE_PATHNAME', 'id_gen_input_error_info' LANGUAGE C STABLE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION id_gen_input_error_info(text, text) IS
    'the error value would raise as text input for the named type (all NULL if none), as pg_input_error_info() (PostgreSQL 16) on every version';

-------------------------------------------------------------------------------
-- Correlation IDs (added in 0.2.0; only new objects: this file is part of the install script and
-- included as is in the 0.1.0 -> 0.2.0 upgrade script). The setting id_gen.correlation_id is
-- defined by the library; these functions read and change it. Every function that can set it is
-- VOLATILE and PARALLEL UNSAFE (a parameter cannot be set during a parallel operation).
-------------------------------------------------------------------------------

CREATE FUNCTION correlation_id() RETURNS text
    AS 'MODULE_PATHNAME', 'correlation_id' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION correlation_id() IS 'the current correlation ID (id_gen.correlation_id); when there is none, a fresh one (a UUIDv7), set for the rest of the transaction';

CREATE FUNCTION correlation_extend(parent text DEFAULT NULL, method text DEFAULT 'counter') RETURNS text
    AS 'MODULE_PATHNAME', 'correlation_extend' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION correlation_extend(text, text) IS 'a child of the parent (NULL: the current ID) for spawned work: parent.1, parent.2, ... (method counter) or parent.<10 random characters> (method random)';

CREATE FUNCTION correlation_replace(id text, is_local boolean DEFAULT false) RETURNS text
    AS 'MODULE_PATHNAME', 'correlation_replace' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION correlation_replace(text, boolean) IS 'makes id the current correlation ID (for the session, or the transaction if is_local), logging the two linking lines';

CREATE FUNCTION correlation_combine(other text, is_local boolean DEFAULT false) RETURNS text
    AS 'MODULE_PATHNAME', 'correlation_combine' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION correlation_combine(text, boolean) IS 'makes <current>+<other> the current correlation ID, logging the two linking lines';

CREATE FUNCTION correlation_from_traceparent(traceparent text, is_local boolean DEFAULT false) RETURNS text
    AS 'MODULE_PATHNAME', 'correlation_from_traceparent' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION correlation_from_traceparent(text, boolean) IS 'makes the trace-id of a W3C traceparent the current correlation ID, logging the two linking lines';

CREATE FUNCTION correlation_counter_storage() RETURNS text
    AS 'MODULE_PATHNAME', 'correlation_counter_storage' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION correlation_counter_storage() IS 'where correlation_extend() counts children: shared memory, dsm registry or per backend';

CREATE FUNCTION traceparent_parse(traceparent text, OUT version text, OUT trace_id text, OUT parent_id text,
                                  OUT flags text, OUT sampled boolean)
    AS 'MODULE_PATHNAME', 'traceparent_parse' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION traceparent_parse(text) IS 'the fields of a W3C traceparent; 22P02 if it is not valid';

CREATE FUNCTION traceparent_valid(traceparent text) RETURNS boolean
    AS 'MODULE_PATHNAME', 'traceparent_valid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION traceparent_valid(text) IS 'whether a text is a valid W3C traceparent';

CREATE FUNCTION traceparent_child(traceparent text) RETURNS text
    AS 'MODULE_PATHNAME', 'traceparent_child' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION traceparent_child(text) IS 'a child traceparent: the same trace-id, a new random parent-id, version 00';
-------------------------------------------------------------------------------
-- One ID type per entity: create_id_type('account_id', kind => 'ulid', prefix => 'acct') makes a
-- base type of its own, so that comparing an account's ID with an order's fails when the query is
-- planned (42883) instead of returning nothing. Written with CREATE OR REPLACE: the install script
-- and the 0.1.0 -> 0.2.0 upgrade script share it.
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
CREATE OR REPLACE FUNCTION id_type_create(type_name name, kind text, prefix text, format text, schema_name name)
    RETURNS regtype
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    SET client_min_messages = warning  -- not the notices about the shell type its I/O functions name
    AS $$
DECLARE
    sch name := id_type_create.schema_name;
    t text;            -- the type, schema-qualified and quoted
    n name := id_type_create.type_name;
    base text;         -- the kind's type
    cmp text; lt text; le text; eq text; ne text; ge text; gt text; sortsup text; hash text; hashx text;
    recv text; send text; smaller text; larger text; gen text; gen_parallel text;
    fname text;
    spec text;
    clash text;
BEGIN
    IF n IS NULL OR n = '' THEN
        RAISE EXCEPTION 'an ID type''s name must not be empty' USING ERRCODE = '42602';
    END IF;
    IF pg_catalog.length(n) > 49 THEN
        RAISE EXCEPTION 'ID type name "%" is too long', n
            USING ERRCODE = '42622', DETAIL = 'Its functions are named <type>_hash_extended and so on: a name of at most 49 characters leaves room for them.';
    END IF;
    IF id_type_create.kind IS NULL OR id_type_create.kind NOT IN ('ulid', 'uuidv7', 'snowflake') THEN
        RAISE EXCEPTION 'invalid kind "%" for an ID type', id_type_create.kind
            USING ERRCODE = '22023', HINT = 'The kind is ''ulid'', ''uuidv7'' or ''snowflake''.';
    END IF;
    IF id_type_create.format IS NULL OR id_type_create.format NOT IN ('prefixed', 'typeid') THEN
        RAISE EXCEPTION 'invalid text format "%" for an ID type', id_type_create.format
            USING ERRCODE = '22023', HINT = 'The format is ''prefixed'' (prefix, ''_'', base36) or ''typeid'' (TypeID 0.3, 128-bit kinds only).';
    END IF;
    IF id_type_create.format = 'typeid' AND id_type_create.kind = 'snowflake' THEN
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
    ELSE
        base := CASE id_type_create.kind WHEN 'ulid' THEN '@extschema@.ulid' ELSE 'pg_catalog.uuid' END;
        cmp := 'uuid_cmp'; sortsup := 'uuid_sortsupport'; hash := 'uuid_hash'; hashx := 'uuid_hash_extended';
        eq := 'uuid_eq'; ne := 'uuid_ne'; lt := 'uuid_lt'; le := 'uuid_le'; gt := 'uuid_gt'; ge := 'uuid_ge';
        recv := 'LANGUAGE internal AS ''uuid_recv''';
        send := 'LANGUAGE internal AS ''uuid_send''';
        smaller := 'LANGUAGE C AS ''MODULE_PATHNAME'', ''ulid_smaller'''; larger := 'LANGUAGE C AS ''MODULE_PATHNAME'', ''ulid_larger''';
        gen := CASE id_type_create.kind WHEN 'ulid' THEN 'gen_ulid' ELSE 'gen_uuidv7' END; gen_parallel := 'SAFE';
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
        EXECUTE pg_catalog.format('CREATE FUNCTION %I.%I(%s, %s) RETURNS %s AS %L LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF',
                                  sch, n || '_' || fname, t, t, CASE fname WHEN 'cmp' THEN 'int4' ELSE 'bool' END,
                                  CASE fname WHEN 'eq' THEN eq WHEN 'ne' THEN ne WHEN 'lt' THEN lt WHEN 'le' THEN le
                                             WHEN 'gt' THEN gt WHEN 'ge' THEN ge ELSE cmp END);
    END LOOP;
    EXECUTE pg_catalog.format('CREATE FUNCTION %I.%I(internal) RETURNS void AS %L LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE', sch, n || '_sortsupport', sortsup);
    EXECUTE pg_catalog.format('CREATE FUNCTION %I.%I(%s) RETURNS int4 AS %L LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF', sch, n || '_hash', t, hash);
    EXECUTE pg_catalog.format('CREATE FUNCTION %I.%I(%s, int8) RETURNS int8 AS %L LANGUAGE internal IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF', sch, n || '_hash_extended', t, hashx);

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
                                  CASE id_type_create.kind WHEN 'ulid' THEN 'ulid_time' ELSE 'uuidv7_time' END);
        EXECUTE pg_catalog.format('CREATE FUNCTION %I.%I(at timestamptz) RETURNS %s AS %L, %L LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE', sch, n || '_lower', t, 'MODULE_PATHNAME',
                                  id_type_create.kind || '_lower');
        EXECUTE pg_catalog.format('CREATE FUNCTION %I.%I(at timestamptz) RETURNS %s AS %L, %L LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE', sch, n || '_upper', t, 'MODULE_PATHNAME',
                                  id_type_create.kind || '_upper');
    END IF;
    EXECUTE pg_catalog.format('COMMENT ON FUNCTION %I.%I(%s) IS %L', sch, n || '_time', t, 'the millisecond time inside the ID');
    EXECUTE pg_catalog.format('COMMENT ON FUNCTION %I.%I(timestamptz) IS %L', sch, n || '_lower', 'smallest ID of the millisecond containing the given time');
    EXECUTE pg_catalog.format('COMMENT ON FUNCTION %I.%I(timestamptz) IS %L', sch, n || '_upper', 'largest ID of the millisecond containing the given time');
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
    SELECT @extschema@.id_type_admin_check('create_id_type()', coalesce(create_id_type.schema_name, '@extschema@'));
    SELECT @extschema@.id_type_create(create_id_type.type_name, create_id_type.kind, create_id_type.prefix,
                                      create_id_type.format, coalesce(create_id_type.schema_name, '@extschema@'));
END;
COMMENT ON FUNCTION create_id_type(name, text, text, text, name) IS 'make a base type of its own for one entity''s IDs (kind ulid, uuidv7 or snowflake; text prefix_… or TypeID); superuser only';
REVOKE ALL ON FUNCTION create_id_type(name, text, text, text, name) FROM PUBLIC;

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
    SELECT @extschema@.id_type_drop(drop_id_type.id_type, drop_id_type.cascade);
END;
COMMENT ON FUNCTION drop_id_type(regtype, boolean) IS 'drop a type made by create_id_type() with all it made, and free its prefix; superuser only';
REVOKE ALL ON FUNCTION drop_id_type(regtype, boolean) FROM PUBLIC;
