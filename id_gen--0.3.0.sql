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

-- Generation. VOLATILE. Each backend keeps its own monotonic state, and a parallel worker is a
-- backend of its own: PARALLEL RESTRICTED, so every call runs in the session's own backend and a
-- session's IDs strictly increase (a parallel plan still scans in its workers). gen_ulid(timestamptz)
-- does not touch that state: PARALLEL SAFE.
CREATE FUNCTION gen_ulid() RETURNS ulid
    AS 'MODULE_PATHNAME', 'gen_ulid' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
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

-- Generation. VOLATILE. Each backend keeps its own monotonic clock, and a parallel worker is a
-- backend of its own: PARALLEL RESTRICTED, so every call runs in the session's own backend and a
-- session's IDs strictly increase. Order does not hold across sessions, nor between these and
-- PostgreSQL 18's core uuidv7(), which keeps a clock of its own.
CREATE FUNCTION gen_uuidv7() RETURNS uuid
    AS 'MODULE_PATHNAME', 'gen_uuidv7' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION gen_uuidv7() IS
    'new UUIDv7: Unix ms, 12-bit sub-ms fraction (RFC 9562 method 3), 62 CSPRNG bits; strictly increasing within a backend';
CREATE FUNCTION gen_uuidv7(shift interval) RETURNS uuid
    AS 'MODULE_PATHNAME', 'gen_uuidv7_shift' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
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
-- gen_uuidv7()'s per-backend clock, and are PARALLEL RESTRICTED as it is; core's uuidv7() on 18
-- has a clock of its own (and is PARALLEL SAFE).
--
-- CREATE OR REPLACE: this file is also part of the 0.1.0 -> 0.2.0 upgrade script, where 0.1.0
-- has created some of these names (depending on the server version) and not others.
-------------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION @extschema@.uuidv7() RETURNS uuid
    AS 'MODULE_PATHNAME', 'gen_uuidv7' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.uuidv7() IS
    'generate UUID version 7 (id_gen; as PostgreSQL 18, on the clock of gen_uuidv7())';

CREATE OR REPLACE FUNCTION @extschema@.uuidv7(shift interval) RETURNS uuid
    AS 'MODULE_PATHNAME', 'gen_uuidv7_shift' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
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
-- uuidv6: RFC 9562 version 6 on the built-in uuid type (0.3.0), the lossless conversions
-- between versions 1 and 6, and timestamps of versions 1, 6 and 7.
--
-- uuid_extract_timestamp() and uuid_time() are re-pointed at a reader of versions 1, 6 and 7.
-- PostgreSQL 17's and 18's core uuid_extract_timestamp (reached by an unqualified call there)
-- reads versions 1 (17) and 1 and 7 (18) only; a schema-qualified call reaches ours.
--
-- CREATE OR REPLACE: this file is also part of the 0.2.0 -> 0.3.0 upgrade script.
-------------------------------------------------------------------------------

-- VOLATILE; PARALLEL RESTRICTED as gen_uuidv7(): each backend keeps its own monotonic timestamp,
-- so every call runs in the session's own backend, never in a parallel worker.
CREATE OR REPLACE FUNCTION @extschema@.uuidv6() RETURNS uuid
    AS 'MODULE_PATHNAME', 'gen_uuidv6' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.uuidv6() IS
    'new UUIDv6: 60-bit Gregorian 100 ns timestamp high bits first, random 14-bit clock sequence and multicast-bit node; strictly increasing within a backend';

CREATE OR REPLACE FUNCTION @extschema@.uuid_v1_to_v6(uuid) RETURNS uuid
    AS 'MODULE_PATHNAME', 'uuid_v1_to_v6' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_v1_to_v6(uuid) IS
    'the version 6 UUID with the timestamp, clock sequence and node of a version 1 UUID (22023 for other versions)';

CREATE OR REPLACE FUNCTION @extschema@.uuid_v6_to_v1(uuid) RETURNS uuid
    AS 'MODULE_PATHNAME', 'uuid_v6_to_v1' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_v6_to_v1(uuid) IS
    'the version 1 UUID with the timestamp, clock sequence and node of a version 6 UUID (22023 for other versions)';

CREATE OR REPLACE FUNCTION @extschema@.uuid_time(uuid) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'uuid_time_v167' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_time(uuid) IS
    'timestamp of a version 1 or 6 (µs) or version 7 (ms) UUID; NULL otherwise';

CREATE OR REPLACE FUNCTION @extschema@.uuid_extract_timestamp(uuid) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'uuid_time_v167' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_extract_timestamp(uuid) IS
    'extract timestamp from UUID version 1, 6 or 7 (id_gen; PostgreSQL 18''s core function reads 1 and 7, 17''s only 1)';
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
-- registered prefix only (42704 otherwise). PARALLEL RESTRICTED as gen_uuidv7(): the session's
-- own backend makes every ID, so they increase with its other UUIDv7s.
CREATE OR REPLACE FUNCTION gen_prefixed(prefix text) RETURNS text
    AS 'MODULE_PATHNAME', 'gen_prefixed' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
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
    AS 'MODULE_PATHNAME', 'gen_prefixed' LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
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
-- The coordinator is the one authority for every shard: shard_cluster_sync() (64_shard_cluster_pull.sql)
-- grants each node a block of the shard's sequence field and copies the registry and the blocks
-- to every worker; create_shard(), drop_shard() and rename_shard() call it on a Citus coordinator.
-- Without Citus nothing here is used: a shard with no blocks is issued from its whole sequence
-- field, as on one server.
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

-- shard_cluster_apply() and shard_cluster_sync(), which copy the registry and the blocks to every
-- worker, are defined in 64_shard_cluster_pull.sql.
-------------------------------------------------------------------------------
-- 0.3.0: what keeps every backend's cache of shard_registry and shard_blocks current fires in
-- every session_replication_role. Included as is in the 0.2.0 -> 0.3.0 upgrade script.
--
-- next_id() trusts its cached rows only after taking its locks (shard.cpp); a change invalidates the caches when it commits, through
-- shard_registry_changed(). The statement triggers (62_shard_cluster.sql) were ENABLE ORIGIN:
-- silent under session_replication_role = replica, which is how logical replication applies
-- changes, and the apply worker fires row triggers only. Row triggers are added, and all of them
-- fire always. The guard against updating a shard's number, schema or epoch fires always too.
--
-- next_id() locks its shard, not the tables: it holds AccessShareLock on both tables and a
-- ShareLock on a lock object of its shard's number (shard.cpp). shard_rows_lock(), a BEFORE ROW
-- trigger that fires always, takes the conflicting lock for every row changed: a change to a
-- shard's existing rows waits for the transactions issuing from them, the first block of a shard
-- for those issuing from its whole field, and a new block for another node (a grant) for no one.
-------------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION shard_rows_lock() RETURNS trigger
    AS 'MODULE_PATHNAME', 'shard_rows_lock' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION shard_rows_lock() IS 'internal: the lock of the shard of each row changed in shard_registry or shard_blocks (next_id() caches rest on it)';
REVOKE ALL ON FUNCTION shard_rows_lock() FROM PUBLIC;
CREATE TRIGGER shard_registry_rows_lock BEFORE UPDATE OR DELETE ON shard_registry
    FOR EACH ROW EXECUTE FUNCTION shard_rows_lock();
CREATE TRIGGER shard_blocks_rows_lock BEFORE INSERT OR UPDATE OR DELETE ON shard_blocks
    FOR EACH ROW EXECUTE FUNCTION shard_rows_lock();

CREATE TRIGGER shard_registry_changed_row AFTER INSERT OR UPDATE OR DELETE ON shard_registry
    FOR EACH ROW EXECUTE FUNCTION shard_registry_changed();
CREATE TRIGGER shard_blocks_changed_row AFTER INSERT OR UPDATE OR DELETE ON shard_blocks
    FOR EACH ROW EXECUTE FUNCTION shard_registry_changed();
ALTER TABLE shard_registry
    ENABLE ALWAYS TRIGGER shard_registry_changed,
    ENABLE ALWAYS TRIGGER shard_registry_changed_row,
    ENABLE ALWAYS TRIGGER shard_registry_guard,
    ENABLE ALWAYS TRIGGER shard_registry_rows_lock;
ALTER TABLE shard_blocks
    ENABLE ALWAYS TRIGGER shard_blocks_changed,
    ENABLE ALWAYS TRIGGER shard_blocks_changed_row,
    ENABLE ALWAYS TRIGGER shard_blocks_rows_lock;
-------------------------------------------------------------------------------
-- 0.3.0: a node added to a Citus cluster is ready without an id_gen call. Included as is in the
-- 0.2.0 -> 0.3.0 upgrade script (every definition here is CREATE OR REPLACE).
--
-- The coordinator stays the one authority for every shard's blocks (62_shard_cluster.sql). What
-- changes is who asks: a worker whose next_id() finds no registry row for its schema, or no block
-- of the shard for its id_gen.node_id, asks the coordinator for its grant itself
-- (shard_cluster_pull(), called by next_id() in C), over a connection of its own
-- (master_run_on_worker), and applies the coordinator's answer in its own transaction. So a node
-- added by citus_add_node() (or back after citus_activate_node(), or one that missed a copy while
-- it was down) issues on its first next_id() call. The grant is made and committed on the
-- coordinator, under the same lock as shard_cluster_sync(), before the worker sees it: two nodes
-- asking at once are granted one after the other, disjoint blocks; two sessions of one node asking
-- at once each get the same answer.
--
-- A worker's copy can be stale: a node disabled (or removed) while a shard was dropped and made
-- again under the same number comes back with its old block of it, and next_id() there finds
-- no reason to ask. So the coordinator never grants a run of a shard's sequence field that
-- another node id held for that shard number before (shard_block_history, 94_shard_block_history.sql,
-- kept across drop_shard()): a stale block is that node's own, whatever the coordinator granted
-- since.
--
-- A grant is durable before anyone issues from it: the transaction that grants runs with
-- synchronous_commit at least 'on', whatever the database or role says, so a coordinator that
-- crashes (or fails over to a synchronous standby) still has every grant a worker was told of.
-- And a node id's blocks go to one Citus node: shard_block_history records the group id of the
-- node each grant went to, and no other node still in pg_dist_node (active or disabled) is
-- granted that node id's blocks (shard_cluster_check_holder()). A grant a worker asks for checks
-- only that, from the coordinator's own tables: it connects to no other node, so one unreachable
-- worker delays no one else's grant.
-------------------------------------------------------------------------------

-- Raises (55000) unless node id `node_id` may be granted blocks for the Citus node of group
-- `node_group` (0 the coordinator): no other node still in pg_dist_node, active or disabled, holds
-- blocks of that node id (shard_block_history), and it is not the coordinator's own id_gen.node_id.
CREATE OR REPLACE FUNCTION shard_cluster_check_holder(node_id int4, node_group int4) RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    holder int4;
    holder_name text;
    own int4;
BEGIN
    IF NOT (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN
        RAISE EXCEPTION 'permission denied to grant shard blocks' USING ERRCODE = '42501';
    END IF;
    own := NULLIF(pg_catalog.current_setting('id_gen.node_id', true), '')::int4;
    IF shard_cluster_check_holder.node_group <> 0 AND shard_cluster_check_holder.node_id = own THEN
        holder := 0;
    ELSE
        -- Citus's catalog by name at run time (no dependency on Citus).
        EXECUTE $q$SELECT h.node_group FROM @extschema@.shard_block_history h
                    WHERE h.node_id = $1 AND h.node_group IS NOT NULL AND h.node_group <> $2
                      AND (h.node_group = 0 OR EXISTS (SELECT 1 FROM pg_catalog.pg_dist_node n WHERE n.groupid = h.node_group))
                    ORDER BY h.node_group LIMIT 1$q$
            INTO holder USING shard_cluster_check_holder.node_id, shard_cluster_check_holder.node_group;
    END IF;
    IF holder IS NULL THEN
        RETURN;
    END IF;
    EXECUTE $q$SELECT pg_catalog.format('%s:%s (Citus group %s, %s)', n.nodename, n.nodeport, n.groupid,
                                        CASE WHEN n.isactive THEN 'active' ELSE 'disabled' END)
                 FROM pg_catalog.pg_dist_node n WHERE n.groupid = $1 AND n.noderole = 'primary' ORDER BY n.nodeid LIMIT 1$q$
        INTO holder_name USING holder;
    RAISE EXCEPTION 'id_gen.node_id % is held by another node of the cluster: %', shard_cluster_check_holder.node_id,
                    coalesce(holder_name, 'the coordinator')
        USING ERRCODE = '55000',
              DETAIL = pg_catalog.format('Blocks of node id %s were granted to that node, which is still in pg_dist_node; two nodes with one node id would issue the same IDs. The node asking is Citus group %s.',
                                         shard_cluster_check_holder.node_id, shard_cluster_check_holder.node_group),
              HINT = 'Set an id_gen.node_id no other node uses on the node asking (ALTER SYSTEM SET id_gen.node_id = <n>; SELECT pg_reload_conf();), or remove the other node from the cluster first (citus_remove_node()).';
END
$$;
COMMENT ON FUNCTION shard_cluster_check_holder(int4, int4) IS 'internal: raise unless node id node_id may be granted blocks for the Citus node of group node_group (no other node in pg_dist_node holds its blocks)';
REVOKE ALL ON FUNCTION shard_cluster_check_holder(int4, int4) FROM PUBLIC;

-- Makes the caller's transaction commit with synchronous_commit at least 'on' (a grant must not
-- be lost by a crash, nor by a failover to a synchronous standby, once a worker may issue from it).
CREATE OR REPLACE FUNCTION shard_cluster_durable() RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    IF pg_catalog.current_setting('synchronous_commit') IN ('off', 'local', 'remote_write') THEN
        PERFORM pg_catalog.set_config('synchronous_commit', 'on', true);
    END IF;
END
$$;
COMMENT ON FUNCTION shard_cluster_durable() IS 'internal: raise synchronous_commit to on for the rest of this transaction (a grant commits durably)';
REVOKE ALL ON FUNCTION shard_cluster_durable() FROM PUBLIC;

-- The grant itself, shared by shard_cluster_sync() and shard_cluster_grant(): every node of `nids`
-- (of Citus groups `groups`, one per node id) that holds no block of a shard (of shard
-- `only_shard` when it is not NULL) gets one of `width` sequence numbers. The caller holds SHARE
-- ROW EXCLUSIVE on both tables (one grant at a time); each node id is checked against the nodes
-- that hold its blocks (shard_cluster_check_holder()); the transaction commits durably.
CREATE OR REPLACE FUNCTION shard_cluster_grant_blocks(nids int4[], groups int4[], width int4, only_shard int4 DEFAULT NULL) RETURNS int4
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    bits int4 := 0;
    s record;
    nid int4;
    grp int4;
    lo int4;
    nbits int4;
    from_ts timestamptz;
    granted int4 := 0;
BEGIN
    IF NOT (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN
        RAISE EXCEPTION 'permission denied to grant shard blocks' USING ERRCODE = '42501';
    END IF;
    IF pg_catalog.cardinality(groups) IS DISTINCT FROM pg_catalog.cardinality(nids) THEN
        RAISE EXCEPTION 'a group id for every node id' USING ERRCODE = '22023';
    END IF;
    FOR i IN 1 .. coalesce(pg_catalog.cardinality(nids), 0) LOOP
        PERFORM @extschema@.shard_cluster_check_holder(nids[i], groups[i]);
        -- The hand-over, explicit and in this transaction: the node id's blocks (every shard's)
        -- and their history become this node's. check_holder() let it through, so they were
        -- granted to no node still in pg_dist_node (a removed node's), or by 0.2.0 (no group).
        -- A removed node's block, and its run of a shard dropped since (the history's
        -- valid_from, used when that run is granted again), is used by its new holder only from
        -- 61 s after now: one second plus the largest id_gen.max_run_ahead (60 s), past every ID
        -- the old holder can have issued before it was removed, whatever its own setting was (it
        -- is per node, and the coordinator cannot read a removed node's). A second claimant is
        -- refused by check_holder(), since the record names this node now.
        UPDATE @extschema@.shard_blocks b
           SET node_group = groups[i],
               valid_from = CASE WHEN b.node_group IS NULL THEN b.valid_from
                                 ELSE GREATEST(b.valid_from, pg_catalog.clock_timestamp() + interval '61 seconds') END
         WHERE b.node_id = nids[i] AND b.node_group IS DISTINCT FROM groups[i];
        UPDATE @extschema@.shard_block_history h
           SET node_group = groups[i],
               valid_from = CASE WHEN h.node_group IS NULL THEN h.valid_from
                                 ELSE GREATEST(h.valid_from, pg_catalog.clock_timestamp() + interval '61 seconds') END
         WHERE h.node_id = nids[i] AND h.node_group IS DISTINCT FROM groups[i];
    END LOOP;
    PERFORM @extschema@.shard_cluster_durable();
    WHILE (1 << bits) < width LOOP
        bits := bits + 1;
    END LOOP;
    FOR s IN SELECT r.shard, r.epoch, r.created_at,
                    NOT EXISTS (SELECT 1 FROM @extschema@.shard_blocks b WHERE b.shard = r.shard) AS first_grant
               FROM @extschema@.shard_registry r
              WHERE only_shard IS NULL OR r.shard = only_shard ORDER BY r.shard LOOP
        FOR nid, grp IN SELECT u.node_id, u.node_group FROM ROWS FROM (pg_catalog.unnest(nids), pg_catalog.unnest(groups)) AS u(node_id, node_group)
                    WHERE NOT EXISTS (SELECT 1 FROM @extschema@.shard_blocks b WHERE b.shard = s.shard AND b.node_id = u.node_id)
                    ORDER BY u.node_id LOOP
            -- The block this node id held of this shard before (dropped with the shard), at the
            -- size it had then, if it is free: the node continues under the same generator key,
            -- above every ID it issued from it, whatever its clock does (a narrower block inside
            -- it would be a new key that knows nothing of them). Else the lowest free aligned run
            -- of `width` sequence numbers that no other node id ever held of this shard.
            SELECT h.seq_lo, h.seq_bits,
                   -- Last held by another node (the hand-over above, or of an earlier call, set its
                   -- valid_from; any other group: the same 61 s from now): valid after the IDs
                   -- that node can have issued from it. The node's own run: from the epoch.
                   CASE WHEN h.node_group IS NOT NULL AND h.node_group <> grp
                        THEN pg_catalog.clock_timestamp() + interval '61 seconds'
                        ELSE GREATEST(s.epoch, coalesce(h.valid_from, s.epoch)) END
              INTO lo, nbits, from_ts
              FROM @extschema@.shard_block_history h
             WHERE h.shard = s.shard AND h.node_id = nid
               AND NOT EXISTS (SELECT 1 FROM @extschema@.shard_blocks b
                                WHERE b.shard = s.shard AND b.seq_lo < h.seq_lo + (1 << h.seq_bits)
                                  AND h.seq_lo < b.seq_lo + (1 << b.seq_bits))
             ORDER BY h.seq_bits DESC, h.seq_lo LIMIT 1;
            IF lo IS NULL THEN
                nbits := bits;
                from_ts := s.epoch;
                SELECT g.lo INTO lo
                  FROM pg_catalog.generate_series(0, 1024 - width, width) AS g(lo)
                 WHERE NOT EXISTS (SELECT 1 FROM @extschema@.shard_blocks b
                                    WHERE b.shard = s.shard AND b.seq_lo < g.lo + width AND g.lo < b.seq_lo + (1 << b.seq_bits))
                   AND NOT EXISTS (SELECT 1 FROM @extschema@.shard_block_history h
                                    WHERE h.shard = s.shard AND h.node_id <> nid
                                      AND h.seq_lo < g.lo + width AND g.lo < h.seq_lo + (1 << h.seq_bits))
                 ORDER BY g.lo LIMIT 1;
            END IF;
            IF lo IS NULL THEN
                RAISE EXCEPTION 'shard % has no free block of % IDs per ms for node %', s.shard, width, nid
                    USING ERRCODE = '54000',
                          DETAIL = 'A shard''s 1024 sequence numbers per ms are shared among the nodes that issue its IDs; a run another node id held of this shard number (shard_block_history) is not granted again.',
                          HINT = 'Grant smaller blocks (shard_cluster_sync(ids_per_ms => ...)) to new shards, or give new nodes new shards.';
            END IF;
            -- A shard created in this transaction has issued nothing; one that existed before its
            -- first grant may have issued IDs from its whole field, up to the run-ahead allowance
            -- past the clock: its blocks start after that. A later grant is a block no other node
            -- ever held (blocks are never freed), valid at once, or a run of a dropped shard given
            -- back: valid at once to the node that held it, after from_ts (above) to another.
            INSERT INTO @extschema@.shard_blocks (shard, node_id, seq_lo, seq_bits, valid_from, node_group)
                VALUES (s.shard, nid, lo, nbits, from_ts, grp);
            -- The insert waited (shard_rows_lock()) for every transaction issuing from the
            -- shard's whole field, and holds off new ones: the time is read after that.
            IF s.first_grant AND s.created_at <> pg_catalog.now() THEN
                UPDATE @extschema@.shard_blocks b
                   SET valid_from = GREATEST(b.valid_from, pg_catalog.clock_timestamp() + interval '1 second'
                                    + coalesce(pg_catalog.current_setting('id_gen.max_run_ahead', true), '1s')::interval)
                 WHERE b.shard = s.shard AND b.node_id = nid;
            END IF;
            INSERT INTO @extschema@.shard_block_history AS h (shard, node_id, seq_lo, seq_bits, node_group)
                VALUES (s.shard, nid, lo, nbits, grp)
                ON CONFLICT (shard, node_id, seq_lo, seq_bits) DO UPDATE SET node_group = excluded.node_group;
            granted := granted + 1;
        END LOOP;
    END LOOP;
    RETURN granted;
END
$$;
COMMENT ON FUNCTION shard_cluster_grant_blocks(int4[], int4[], int4, int4) IS 'internal to shard_cluster_sync() and shard_cluster_grant(): grant every listed node without a block of a shard one';
REVOKE ALL ON FUNCTION shard_cluster_grant_blocks(int4[], int4[], int4, int4) FROM PUBLIC;

-- The block size a grant uses: ids_per_ms, or by default the largest power of two, at most 256,
-- that leaves room for twice as many nodes as there are now.
CREATE OR REPLACE FUNCTION shard_cluster_block_width(ids_per_ms int4, nodes int4) RETURNS int4
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    width int4 := 256;
BEGIN
    IF ids_per_ms IS NULL THEN
        WHILE width > 1 AND width * 2 * nodes > 1024 LOOP
            width := width / 2;
        END LOOP;
        RETURN width;
    ELSIF ids_per_ms NOT IN (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024) THEN
        RAISE EXCEPTION 'ids_per_ms must be a power of two from 1 to 1024, not %', ids_per_ms USING ERRCODE = '22023';
    END IF;
    RETURN ids_per_ms;
END
$$;
COMMENT ON FUNCTION shard_cluster_block_width(int4, int4) IS 'internal: the block size of a grant (ids_per_ms, or the default for a cluster of `nodes` nodes)';
REVOKE ALL ON FUNCTION shard_cluster_block_width(int4, int4) FROM PUBLIC;

-- The coordinator's registry and blocks, as shard_cluster_apply() takes them.
CREATE OR REPLACE FUNCTION shard_cluster_snapshot() RETURNS jsonb
    LANGUAGE sql STABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
    SELECT pg_catalog.jsonb_build_object(
        'registry', coalesce((SELECT pg_catalog.jsonb_agg(pg_catalog.to_jsonb(r)) FROM @extschema@.shard_registry r), '[]'),
        'blocks', coalesce((SELECT pg_catalog.jsonb_agg(pg_catalog.to_jsonb(b)) FROM @extschema@.shard_blocks b), '[]'))
$$;
COMMENT ON FUNCTION shard_cluster_snapshot() IS 'internal: this node''s shard registry and blocks as one jsonb value (what shard_cluster_apply() takes)';
REVOKE ALL ON FUNCTION shard_cluster_snapshot() FROM PUBLIC;

-- Raises (42501, "permission denied to <action>") unless the caller is a superuser, then checks
-- the extension's schema as create_shard() does (61_shard_admin.sql), reaching it by OID.
CREATE OR REPLACE FUNCTION shard_cluster_check_caller(action text) RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    IF NOT (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN
        RAISE EXCEPTION 'permission denied to %', action USING ERRCODE = '42501';
    END IF;
    EXECUTE pg_catalog.format('SELECT %I.extension_schema_check(false)',
                              (SELECT n.nspname FROM pg_catalog.pg_namespace n JOIN pg_catalog.pg_extension e
                                   ON e.extnamespace = n.oid WHERE e.extname = 'id_gen'));
END
$$;
COMMENT ON FUNCTION shard_cluster_check_caller(text) IS 'internal: raise unless the caller is a superuser and the extension''s schema is safe';
REVOKE ALL ON FUNCTION shard_cluster_check_caller(text) FROM PUBLIC;

-- Raises unless this is a Citus coordinator and the caller a superuser.
CREATE OR REPLACE FUNCTION shard_cluster_check_coordinator(what text) RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    is_coordinator boolean;
BEGIN
    PERFORM @extschema@.shard_cluster_check_caller('synchronise shards');
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus') THEN
        RAISE EXCEPTION '% needs Citus', what USING ERRCODE = '55000',
            DETAIL = 'On a single server a shard is issued from its whole sequence field.';
    END IF;
    EXECUTE 'SELECT pg_catalog.citus_is_coordinator()' INTO is_coordinator;
    IF NOT is_coordinator THEN
        RAISE EXCEPTION '% runs on the coordinator', what USING ERRCODE = '55000',
            DETAIL = 'The coordinator grants the blocks of every shard; workers hold copies.';
    END IF;
END
$$;
COMMENT ON FUNCTION shard_cluster_check_coordinator(text) IS 'internal: raise unless this is a Citus coordinator and the caller a superuser';
REVOKE ALL ON FUNCTION shard_cluster_check_coordinator(text) FROM PUBLIC;

-- Checks a Citus coordinator and the node ids of every active node (each node is asked); the ids
-- of every node and the Citus group of each (0 the coordinator).
CREATE OR REPLACE FUNCTION shard_cluster_check(what text, OUT nids int4[], OUT groups int4[]) RETURNS record
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    PERFORM @extschema@.shard_cluster_check_coordinator(what);
    PERFORM @extschema@.check_cluster_node_ids();
    EXECUTE $q$SELECT pg_catalog.array_agg(c.node_id ORDER BY c.node_id), pg_catalog.array_agg(coalesce(n.groupid, 0) ORDER BY c.node_id)
                 FROM @extschema@.cluster_node_ids() c
                 LEFT JOIN pg_catalog.pg_dist_node n ON n.nodename = c.nodename AND n.nodeport = c.nodeport AND n.noderole = 'primary'$q$
        INTO nids, groups;
END
$$;
COMMENT ON FUNCTION shard_cluster_check(text) IS 'internal: raise unless this is a Citus coordinator whose nodes have unique id_gen.node_id values; those values and the nodes'' Citus groups';
REVOKE ALL ON FUNCTION shard_cluster_check(text) FROM PUBLIC;

-- Runs `command` on every other active primary node, inside the caller's transaction, through
-- Citus's own execute_command_on_remote_nodes_as_user() (in C: Citus's SQL scripts do not create
-- it): Citus commits it there with two-phase commit when the caller's transaction commits, so it
-- takes effect on every active worker or on none. A worker that cannot be reached fails the call
-- (and so the caller's transaction); a disabled one is not sent it. Superuser only; raises
-- without Citus.
CREATE OR REPLACE FUNCTION shard_cluster_send(command text) RETURNS void
    AS 'MODULE_PATHNAME', 'shard_cluster_send' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION shard_cluster_send(text) IS 'internal to shard_cluster_sync(): run a command on every worker in this transaction, under Citus''s two-phase commit';
REVOKE ALL ON FUNCTION shard_cluster_send(text) FROM PUBLIC;

-- A deadline for this backend's request to the coordinator (shard_cluster_pull()): `ms` > 0 arms
-- it (the statement is cancelled, 57014, when it passes) and returns false; 0 disarms it and
-- returns whether it passed.
CREATE OR REPLACE FUNCTION shard_cluster_request_timer(ms int4) RETURNS boolean
    AS 'MODULE_PATHNAME', 'shard_cluster_request_timer' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION shard_cluster_request_timer(int4) IS 'internal to shard_cluster_pull(): arm (ms > 0) or disarm (0) the deadline of a request to the coordinator; whether it passed';
REVOKE ALL ON FUNCTION shard_cluster_request_timer(int4) FROM PUBLIC;

-- 0.2.0's function, now built from the parts above: it grants every node its blocks and copies
-- the registry and the blocks to every worker. The copy is part of the caller's transaction
-- (shard_cluster_send(), Citus's two-phase commit): create_shard(), drop_shard() and
-- rename_shard(), which run it, take effect on the coordinator and every active worker, or on
-- none of them. It is no longer needed after citus_add_node() (a new node asks for its grant, see
-- shard_cluster_pull()); it stays for use by hand.
CREATE OR REPLACE FUNCTION shard_cluster_sync(ids_per_ms int4 DEFAULT NULL) RETURNS int4
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    nids int4[];
    groups int4[];
BEGIN
    SELECT c.nids, c.groups INTO nids, groups FROM @extschema@.shard_cluster_check('shard_cluster_sync()') c;
    -- One grant at a time.
    LOCK TABLE @extschema@.shard_registry IN SHARE ROW EXCLUSIVE MODE;
    LOCK TABLE @extschema@.shard_blocks IN SHARE ROW EXCLUSIVE MODE;
    PERFORM @extschema@.shard_cluster_grant_blocks(nids, groups,
                @extschema@.shard_cluster_block_width(ids_per_ms, pg_catalog.cardinality(nids)));
    -- The rest of the transaction on the connections that hold the copy (one per worker): a
    -- parallel query's extra connections would ask the coordinator for blocks this copy holds
    -- locked, and wait on this very transaction (a distributed deadlock).
    PERFORM pg_catalog.set_config('citus.multi_shard_modify_mode', 'sequential', true);
    PERFORM @extschema@.shard_cluster_send(pg_catalog.format('SELECT %s.shard_cluster_apply(%L::jsonb)', '@extschema@',
                                                             @extschema@.shard_cluster_snapshot()::text));
    RETURN pg_catalog.cardinality(nids);
END
$$;
COMMENT ON FUNCTION shard_cluster_sync(int4) IS 'on a Citus coordinator: check node ids, grant every node a block of every shard, copy the registry and blocks to every worker in this transaction';
REVOKE ALL ON FUNCTION shard_cluster_sync(int4) FROM PUBLIC;

-- Makes this node's registry and blocks equal to the coordinator's `snapshot` (rows are replaced,
-- never updated: see shard_registry_guard). Without temporary tables (a worker applies a copy
-- inside a transaction Citus prepares for two-phase commit, and PREPARE refuses a transaction
-- that touched temporary tables), and tolerant of a concurrent copy of the same rows. With
-- `lock_timeout`, it gives up (55P03) unless it gets its locks within that time. 0.2.0's
-- shard_cluster_apply(jsonb) is this function with the default.
DROP FUNCTION IF EXISTS shard_cluster_apply(jsonb);
CREATE OR REPLACE FUNCTION shard_cluster_apply(snapshot jsonb, lock_timeout text DEFAULT NULL) RETURNS int4
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    n int4;
BEGIN
    PERFORM @extschema@.shard_cluster_check_caller('change the shard registry');
    IF shard_cluster_apply.lock_timeout IS NOT NULL THEN
        PERFORM pg_catalog.set_config('lock_timeout', shard_cluster_apply.lock_timeout, true);
    END IF;
    DELETE FROM @extschema@.shard_blocks b
     WHERE NOT EXISTS (SELECT 1 FROM pg_catalog.jsonb_populate_recordset(NULL::@extschema@.shard_blocks, snapshot -> 'blocks') x
                        WHERE x.shard = b.shard AND x.node_id = b.node_id
                          AND x.seq_lo = b.seq_lo AND x.seq_bits = b.seq_bits AND x.valid_from = b.valid_from
                          AND x.node_group IS NOT DISTINCT FROM b.node_group);
    DELETE FROM @extschema@.shard_registry r
     WHERE NOT EXISTS (SELECT 1 FROM pg_catalog.jsonb_populate_recordset(NULL::@extschema@.shard_registry, snapshot -> 'registry') x
                        WHERE x.shard = r.shard AND x.schema_name = r.schema_name AND x.epoch = r.epoch);
    INSERT INTO @extschema@.shard_registry (shard, schema_name, epoch, created_at)
        SELECT x.shard, x.schema_name, x.epoch, x.created_at
          FROM pg_catalog.jsonb_populate_recordset(NULL::@extschema@.shard_registry, snapshot -> 'registry') x
        ON CONFLICT DO NOTHING;
    INSERT INTO @extschema@.shard_blocks (shard, node_id, seq_lo, seq_bits, valid_from, node_group)
        SELECT x.shard, x.node_id, x.seq_lo, x.seq_bits, x.valid_from, x.node_group
          FROM pg_catalog.jsonb_populate_recordset(NULL::@extschema@.shard_blocks, snapshot -> 'blocks') x
        ON CONFLICT DO NOTHING;
    SELECT pg_catalog.count(*) INTO n FROM @extschema@.shard_registry;
    RETURN n;
END
$$;
COMMENT ON FUNCTION shard_cluster_apply(jsonb, text) IS 'internal to shard_cluster_sync() and shard_cluster_pull(): make this node''s shard registry and blocks equal to the coordinator''s (giving up after lock_timeout, if given)';
REVOKE ALL ON FUNCTION shard_cluster_apply(jsonb, text) FROM PUBLIC;

-- Run by the coordinator on a worker, over a connection to the address pg_dist_node has for Citus
-- group `node_group` (shard_cluster_grant()): records that this node is that group with
-- id_gen.node_id `node_id` (shard_node_identity, 94_shard_block_history.sql), after checking that
-- this node's own group and setting say the same (55000 otherwise: the node at the registered
-- address is not the node that asked, say a copy of it with another node id), with this server's
-- start time (pg_postmaster_start_time()): the row confirms this run of the server only. A write
-- to an unlogged table with no key. True when the row was added, false when it was
-- there. Superuser only.
CREATE OR REPLACE FUNCTION shard_cluster_identify(node_group int4, node_id int4) RETURNS boolean
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    my_group int4;
    me int4;
BEGIN
    PERFORM @extschema@.shard_cluster_check_caller('confirm a node''s identity');
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus') THEN
        RAISE EXCEPTION 'shard_cluster_identify() needs Citus' USING ERRCODE = '55000';
    END IF;
    EXECUTE 'SELECT g.groupid::int4 FROM pg_catalog.pg_dist_local_group g' INTO my_group;
    me := NULLIF(pg_catalog.current_setting('id_gen.node_id', true), '')::int4;
    IF my_group IS DISTINCT FROM shard_cluster_identify.node_group OR me IS DISTINCT FROM shard_cluster_identify.node_id THEN
        RAISE EXCEPTION 'the node at the address of Citus group % is Citus group % with id_gen.node_id %, not the node that asked (id_gen.node_id %)',
                        shard_cluster_identify.node_group, my_group, coalesce(me::text, 'unset'), shard_cluster_identify.node_id
            USING ERRCODE = '55000',
                  DETAIL = 'The coordinator confirms a node''s identity only at the address pg_dist_node has for its group; the node that asked is another server with that group (a copy of that node?).',
                  HINT = 'Give a copy of a node its own place in the cluster (citus_add_node()) or point pg_dist_node at it (citus_update_node()) if it replaces the node.';
    END IF;
    -- The confirmation holds for this run of the server only (next_id() accepts a row whose
    -- started_at is its own postmaster's start time): a copy of the data directory, or this node
    -- restarted after another took its place, asks again.
    IF EXISTS (SELECT 1 FROM @extschema@.shard_node_identity i
                WHERE i.node_group = shard_cluster_identify.node_group AND i.node_id = shard_cluster_identify.node_id
                  AND i.started_at = pg_catalog.pg_postmaster_start_time()) THEN
        RETURN false;
    END IF;
    DELETE FROM @extschema@.shard_node_identity i WHERE i.started_at <> pg_catalog.pg_postmaster_start_time();
    INSERT INTO @extschema@.shard_node_identity (node_group, node_id, started_at)
        VALUES (shard_cluster_identify.node_group, shard_cluster_identify.node_id, pg_catalog.pg_postmaster_start_time());
    RETURN true;
END
$$;
COMMENT ON FUNCTION shard_cluster_identify(int4, int4) IS 'internal to shard_cluster_grant(), run on a worker by the coordinator: record that this node is Citus group node_group with id_gen.node_id node_id';
REVOKE ALL ON FUNCTION shard_cluster_identify(int4, int4) FROM PUBLIC;

-- Run on the coordinator for a worker that asks (shard_cluster_pull()): the node of Citus group
-- `node_group` with id_gen.node_id `node_id` gets its block of the shard of schema `schema_name`
-- (if it has none), and the answer is the registry and the blocks. It checks that node id against
-- the nodes that hold blocks (shard_cluster_check_holder()) and the group against pg_dist_node,
-- both in the coordinator's own tables: it connects to no other node. Only that shard: one whose
-- field is full (54000) stops no other. Committed on the coordinator, durably, before the worker
-- applies it. A lock wait longer than 5 s (a create_shard() copying to the asking node while it
-- waits for this answer) fails the request instead of waiting for ever. A refusal is the answer
-- {"error": {sqlstate, message, detail, hint}} (Citus passes on only the first line of an error),
-- which shard_cluster_pull() raises on the worker.
CREATE OR REPLACE FUNCTION shard_cluster_grant(node_id int4, schema_name name, node_group int4) RETURNS jsonb
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    s int4;
    nodes int4;
    registered boolean;
    w_host text;
    w_port int4;
    w_ok boolean;
    w_answer text;
    e_state text;
    e_message text;
    e_detail text;
    e_hint text;
BEGIN
    PERFORM @extschema@.shard_cluster_check_coordinator('shard_cluster_grant()');
    BEGIN
        IF shard_cluster_grant.node_id IS NULL OR shard_cluster_grant.node_id NOT BETWEEN 0 AND 65535 THEN
            RAISE EXCEPTION 'id_gen.node_id % is not a node id', shard_cluster_grant.node_id
                USING ERRCODE = '55000', HINT = 'Set id_gen.node_id (0 to 65535) on the node asking.';
        END IF;
        EXECUTE $q$SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_node n WHERE n.groupid = $1 AND n.noderole = 'primary')$q$
            INTO registered USING shard_cluster_grant.node_group;
        IF NOT coalesce(registered, false) THEN
            RAISE EXCEPTION 'the node asking (Citus group %) is not a node of the cluster', shard_cluster_grant.node_group
                USING ERRCODE = '55000', HINT = 'Add the node with citus_add_node() on the coordinator first.';
        END IF;
        -- The node id is checked first (again under the locks, by shard_cluster_grant_blocks()):
        -- a request refused for it records no identity on the node asking.
        PERFORM @extschema@.shard_cluster_check_holder(shard_cluster_grant.node_id, shard_cluster_grant.node_group);
        -- The node's identity, confirmed at the address pg_dist_node has for its group (a copy of
        -- the node elsewhere never gets it): before any lock here, on a connection of its own.
        IF shard_cluster_grant.node_group <> 0 THEN
            EXECUTE $q$SELECT n.nodename::text, n.nodeport::int4 FROM pg_catalog.pg_dist_node n
                        WHERE n.groupid = $1 AND n.noderole = 'primary' ORDER BY n.nodeid LIMIT 1$q$
                INTO w_host, w_port USING shard_cluster_grant.node_group;
            PERFORM pg_catalog.set_config('citus.node_connection_timeout', '5s', true);
            EXECUTE 'SELECT m.success, m.result FROM pg_catalog.master_run_on_worker($1, $2, $3, false) m'
                INTO w_ok, w_answer
                USING ARRAY[w_host], ARRAY[w_port],
                      ARRAY[pg_catalog.format('SELECT %s.shard_cluster_identify(%s, %s)', '@extschema@',
                                              shard_cluster_grant.node_group, shard_cluster_grant.node_id)];
            IF NOT coalesce(w_ok, false) THEN
                RAISE EXCEPTION 'could not confirm the identity of the node asking at %:%, the address of Citus group %',
                                w_host, w_port, shard_cluster_grant.node_group
                    USING ERRCODE = '55000', DETAIL = coalesce(w_answer, 'no answer');
            END IF;
        END IF;
        PERFORM pg_catalog.set_config('lock_timeout', '5s', true);
        LOCK TABLE @extschema@.shard_registry IN SHARE ROW EXCLUSIVE MODE;
        LOCK TABLE @extschema@.shard_blocks IN SHARE ROW EXCLUSIVE MODE;
        SELECT r.shard INTO s FROM @extschema@.shard_registry r WHERE r.schema_name = shard_cluster_grant.schema_name;
        IF s IS NOT NULL THEN
            -- The block size for the active nodes, the coordinator counted (as shard_cluster_sync() counts them).
            EXECUTE $q$SELECT pg_catalog.count(DISTINCT n.groupid)::int4 + 1 FROM pg_catalog.pg_dist_node n
                        WHERE n.isactive AND n.noderole = 'primary' AND n.groupid <> 0$q$ INTO nodes;
            PERFORM @extschema@.shard_cluster_grant_blocks(ARRAY[shard_cluster_grant.node_id], ARRAY[shard_cluster_grant.node_group],
                        @extschema@.shard_cluster_block_width(NULL, nodes), s);
        END IF;
        RETURN @extschema@.shard_cluster_snapshot();
    EXCEPTION WHEN OTHERS THEN
        GET STACKED DIAGNOSTICS e_state = RETURNED_SQLSTATE, e_message = MESSAGE_TEXT, e_detail = PG_EXCEPTION_DETAIL,
                                e_hint = PG_EXCEPTION_HINT;
        RETURN pg_catalog.jsonb_build_object('error', pg_catalog.jsonb_build_object(
                   'sqlstate', e_state, 'message', e_message, 'detail', NULLIF(e_detail, ''), 'hint', NULLIF(e_hint, '')));
    END;
END
$$;
COMMENT ON FUNCTION shard_cluster_grant(int4, name, int4) IS 'internal to shard_cluster_pull(): on the coordinator, grant the node asking its block of one shard and return the registry and the blocks';
REVOKE ALL ON FUNCTION shard_cluster_grant(int4, name, int4) FROM PUBLIC;

-- Runs `command` on the coordinator over a connection of its own (master_run_on_worker), for a
-- worker's request (shard_cluster_pull(), id_type_cluster_pull()): the coordinator as this node's
-- pg_dist_node has it (host NULL, nothing asked, when it is not there), Citus's success flag and
-- answer, and whether the 10 s bound passed. Citus bounds the connection (5 s, below), not the
-- wait for the answer: a coordinator that accepts and then hangs is given 10 s from the start of
-- the request in all (shard_cluster_request_timer()). The caller's own cancel or statement_timeout
-- is raised as it was.
CREATE OR REPLACE FUNCTION shard_cluster_ask_coordinator(command text, OUT host text, OUT port int4, OUT ok boolean,
                                                         OUT answer text, OUT expired boolean)
    RETURNS record
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    SET citus.node_connection_timeout = '5s'
    AS $$
BEGIN
    EXECUTE $q$SELECT n.nodename::text, n.nodeport::int4 FROM pg_catalog.pg_dist_node n
                WHERE n.groupid = 0 AND n.noderole = 'primary' ORDER BY n.nodeid LIMIT 1$q$ INTO host, port;
    IF host IS NULL THEN
        RETURN;
    END IF;
    PERFORM @extschema@.shard_cluster_request_timer(10000);
    BEGIN
        EXECUTE 'SELECT m.success, m.result FROM pg_catalog.master_run_on_worker($1, $2, $3, false) m'
            INTO ok, answer USING ARRAY[host], ARRAY[port], ARRAY[shard_cluster_ask_coordinator.command];
        expired := @extschema@.shard_cluster_request_timer(0);
    EXCEPTION
        WHEN query_canceled THEN
            -- The deadline, or the caller's own cancel or statement_timeout (raised as it was).
            IF NOT @extschema@.shard_cluster_request_timer(0) THEN
                RAISE;
            END IF;
            expired := true;
        WHEN OTHERS THEN
            PERFORM @extschema@.shard_cluster_request_timer(0);
            RAISE;
    END;
END
$$;
COMMENT ON FUNCTION shard_cluster_ask_coordinator(text) IS 'internal to a worker''s requests: run a command on the coordinator, bounded to 10 s; the coordinator, Citus''s success flag and answer, and whether the bound passed';
REVOKE ALL ON FUNCTION shard_cluster_ask_coordinator(text) FROM PUBLIC;

-- Called by next_id() (in C) on a node where schema `schema_name` is not a registered shard, or
-- where its shard has blocks and none is this node's. On a Citus worker with id_gen.node_id set
-- it asks the coordinator for the grant (shard_cluster_grant(), committed there) and returns the
-- shard and this node's block as the coordinator has them; all NULL where there is nothing to ask
-- (no Citus, the coordinator itself, id_gen.node_id unset) or the schema is no shard there; 55000
-- when the coordinator cannot be asked or refuses. It writes nothing in the caller's transaction:
-- a Citus task's transaction may have sibling backends on this node that hold next_id()'s
-- ShareLock until the distributed transaction ends, so a write there would wait for them for
-- ever. The copy is kept on this node by a separate connection to the node itself that gives up
-- unless it gets its lock within 50 ms (then the next session asks again; the coordinator answers
-- with the same block). SECURITY DEFINER: the caller of next_id() need not be a superuser, and
-- the answer only ever comes from the coordinator. The connections give up after 5 s
-- (citus.node_connection_timeout), and the request as a whole after 10 s
-- (shard_cluster_request_timer()), so an unreachable or hung coordinator fails the call within
-- that bound; the coordinator's refusal is raised with its message, detail and hint.
CREATE OR REPLACE FUNCTION shard_cluster_pull(schema_name name, OUT shard int4, OUT epoch timestamptz,
                                              OUT seq_lo int4, OUT seq_bits int4, OUT valid_from timestamptz)
    RETURNS record
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
    SET citus.node_connection_timeout = '5s'
    AS $$
DECLARE
    is_coordinator boolean;
    me int4;
    my_group int4;
    host text;
    port int4;
    ok boolean;
    answer text;
    copy jsonb;
    expired boolean;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus') THEN
        RETURN;
    END IF;
    EXECUTE 'SELECT pg_catalog.citus_is_coordinator()' INTO is_coordinator;
    me := NULLIF(pg_catalog.current_setting('id_gen.node_id', true), '')::int4;
    IF is_coordinator OR me IS NULL OR me < 0 THEN
        RETURN;
    END IF;
    EXECUTE 'SELECT g.groupid::int4 FROM pg_catalog.pg_dist_local_group g' INTO my_group;
    SELECT a.host, a.port, a.ok, a.answer, a.expired INTO host, port, ok, answer, expired
      FROM @extschema@.shard_cluster_ask_coordinator(pg_catalog.format('SELECT %s.shard_cluster_grant(%s, %L, %s)', '@extschema@', me,
                                                                       shard_cluster_pull.schema_name, my_group)) a;
    IF host IS NULL THEN
        RAISE EXCEPTION 'this node cannot ask the coordinator for its block of the shard of schema "%": the coordinator is not in pg_dist_node',
                        shard_cluster_pull.schema_name
            USING ERRCODE = '55000',
                  HINT = 'On the coordinator, run SELECT citus_set_coordinator_host(''<its host>'', <its port>); or run SELECT shard_cluster_sync() there.';
    END IF;
    IF expired THEN
        RAISE EXCEPTION 'this node (id_gen.node_id %) could not get its block of the shard of schema "%" from the coordinator %:%',
                        me, shard_cluster_pull.schema_name, host, port
            USING ERRCODE = '55000', DETAIL = 'The coordinator did not answer within 10 s.',
                  HINT = 'next_id() refuses on this node until the coordinator grants it a block (it asks again at the next call); nothing was issued.';
    END IF;
    IF coalesce(ok, false) AND answer::jsonb ? 'error' THEN
        copy := answer::jsonb -> 'error';
        RAISE EXCEPTION 'this node (id_gen.node_id %) could not get its block of the shard of schema "%" from the coordinator %:%',
                        me, shard_cluster_pull.schema_name, host, port
            USING ERRCODE = '55000',
                  DETAIL = pg_catalog.format('The coordinator refused (%s): %s%s', copy ->> 'sqlstate', copy ->> 'message',
                                             coalesce('. ' || (copy ->> 'detail'), '')),
                  HINT = coalesce(copy ->> 'hint', 'next_id() refuses on this node until the coordinator grants it a block (it asks again at the next call); nothing was issued.');
    END IF;
    IF NOT coalesce(ok, false) THEN
        RAISE EXCEPTION 'this node (id_gen.node_id %) could not get its block of the shard of schema "%" from the coordinator %:%',
                        me, shard_cluster_pull.schema_name, host, port
            USING ERRCODE = '55000', DETAIL = coalesce(answer, 'no answer'),
                  HINT = 'next_id() refuses on this node until the coordinator grants it a block (it asks again at the next call); nothing was issued.';
    END IF;
    copy := answer::jsonb;
    SELECT r.shard, r.epoch, b.seq_lo, b.seq_bits, b.valid_from
      INTO shard_cluster_pull.shard, shard_cluster_pull.epoch, shard_cluster_pull.seq_lo,
           shard_cluster_pull.seq_bits, shard_cluster_pull.valid_from
      FROM pg_catalog.jsonb_populate_recordset(NULL::@extschema@.shard_registry, copy -> 'registry') r
      JOIN pg_catalog.jsonb_populate_recordset(NULL::@extschema@.shard_blocks, copy -> 'blocks') b
        ON b.shard = r.shard AND b.node_id = me AND b.node_group = my_group
     WHERE r.schema_name = shard_cluster_pull.schema_name;
    -- Keep the copy on this node when that is quick (see above); a failure changes nothing.
    EXECUTE $q$SELECT n.nodename::text, n.nodeport::int4 FROM pg_catalog.pg_dist_node n
                WHERE n.groupid = (SELECT g.groupid FROM pg_catalog.pg_dist_local_group g) AND n.noderole = 'primary'
                ORDER BY n.nodeid LIMIT 1$q$ INTO host, port;
    IF host IS NOT NULL THEN
        EXECUTE 'SELECT m.success, m.result FROM pg_catalog.master_run_on_worker($1, $2, $3, false) m'
            INTO ok, answer
            USING ARRAY[host], ARRAY[port],
                  ARRAY[pg_catalog.format('SELECT %s.shard_cluster_apply(%L::jsonb, %L)', '@extschema@', copy::text, '50ms')];
    END IF;
END
$$;
COMMENT ON FUNCTION shard_cluster_pull(name) IS 'internal to next_id() on a Citus worker: ask the coordinator for this node''s block of a shard; the shard and the block';
REVOKE ALL ON FUNCTION shard_cluster_pull(name) FROM PUBLIC;
-------------------------------------------------------------------------------
-- ksuid: Segment's K-Sortable Unique IDentifier. Only new objects: this file is part of the
-- install script and included as is in the 0.2.0 -> 0.3.0 upgrade script.
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
-------------------------------------------------------------------------------
-- rsxid: the xid format of the Go package rs/xid. Only new objects: this file is part of the
-- install script and included as is in the 0.2.0 -> 0.3.0 upgrade script.
--
-- The type is not called xid: pg_catalog.xid is PostgreSQL's transaction ID type, and pg_catalog
-- is searched first, so '...'::xid would never reach a type of that name. The generator and the
-- decoders keep the format's name (gen_xid(), xid_time(), ...).
--
-- 12 bytes: 4-byte big-endian Unix seconds, a 3-byte machine ID (this server's: from its system
-- identifier), a 2-byte process ID (the backend's pid, low 16 bits), a 3-byte counter that starts
-- at a random value per backend (redrawn after fork). Text is 20 lower-case base32hex characters
-- (0-9a-v), no padding; upper case is rejected, as rs/xid does. Order is bytewise.
-------------------------------------------------------------------------------
CREATE TYPE rsxid;

CREATE FUNCTION rsxid_in(cstring) RETURNS rsxid
    AS 'MODULE_PATHNAME', 'rsxid_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION rsxid_out(rsxid) RETURNS cstring
    AS 'MODULE_PATHNAME', 'rsxid_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION rsxid_recv(internal) RETURNS rsxid
    AS 'MODULE_PATHNAME', 'rsxid_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION rsxid_send(rsxid) RETURNS bytea
    AS 'MODULE_PATHNAME', 'rsxid_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION rsxid_in(cstring) IS 'rsxid input: exactly 20 lower-case base32hex characters (0-9a-v)';
COMMENT ON FUNCTION rsxid_out(rsxid) IS 'rsxid output: 20 lower-case base32hex characters';
COMMENT ON FUNCTION rsxid_recv(internal) IS 'rsxid binary input: the 12 bytes';
COMMENT ON FUNCTION rsxid_send(rsxid) IS 'rsxid binary output: the 12 bytes';

CREATE TYPE rsxid (
    INPUT = rsxid_in,
    OUTPUT = rsxid_out,
    RECEIVE = rsxid_recv,
    SEND = rsxid_send,
    INTERNALLENGTH = 12,
    ALIGNMENT = char,
    STORAGE = plain,
    CATEGORY = 'U'
);
COMMENT ON TYPE rsxid IS 'xid (rs/xid): 4-byte Unix seconds, 3-byte machine ID, 2-byte process ID, 3-byte counter';

-- Comparison is memcmp over the 12 bytes; the hash is hash_any over them (objectid's too).
CREATE FUNCTION rsxid_eq(rsxid, rsxid) RETURNS bool AS 'MODULE_PATHNAME', 'rsxid_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION rsxid_ne(rsxid, rsxid) RETURNS bool AS 'MODULE_PATHNAME', 'rsxid_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION rsxid_lt(rsxid, rsxid) RETURNS bool AS 'MODULE_PATHNAME', 'rsxid_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION rsxid_le(rsxid, rsxid) RETURNS bool AS 'MODULE_PATHNAME', 'rsxid_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION rsxid_gt(rsxid, rsxid) RETURNS bool AS 'MODULE_PATHNAME', 'rsxid_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION rsxid_ge(rsxid, rsxid) RETURNS bool AS 'MODULE_PATHNAME', 'rsxid_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION rsxid_cmp(rsxid, rsxid) RETURNS int4 AS 'MODULE_PATHNAME', 'rsxid_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION rsxid_sortsupport(internal) RETURNS void AS 'MODULE_PATHNAME', 'rsxid_sortsupport' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION rsxid_hash(rsxid) RETURNS int4 AS 'MODULE_PATHNAME', 'rsxid_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION rsxid_hash_extended(rsxid, int8) RETURNS int8 AS 'MODULE_PATHNAME', 'rsxid_hash_extended' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OPERATOR = (
    LEFTARG = rsxid, RIGHTARG = rsxid, PROCEDURE = rsxid_eq,
    COMMUTATOR = '=', NEGATOR = '<>', RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR <> (
    LEFTARG = rsxid, RIGHTARG = rsxid, PROCEDURE = rsxid_ne,
    COMMUTATOR = '<>', NEGATOR = '=', RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR < (
    LEFTARG = rsxid, RIGHTARG = rsxid, PROCEDURE = rsxid_lt,
    COMMUTATOR = '>', NEGATOR = '>=', RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
    LEFTARG = rsxid, RIGHTARG = rsxid, PROCEDURE = rsxid_le,
    COMMUTATOR = '>=', NEGATOR = '>', RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR > (
    LEFTARG = rsxid, RIGHTARG = rsxid, PROCEDURE = rsxid_gt,
    COMMUTATOR = '<', NEGATOR = '<=', RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR >= (
    LEFTARG = rsxid, RIGHTARG = rsxid, PROCEDURE = rsxid_ge,
    COMMUTATOR = '<=', NEGATOR = '<', RESTRICT = scalargesel, JOIN = scalargejoinsel
);

CREATE OPERATOR CLASS rsxid_ops DEFAULT FOR TYPE rsxid USING btree AS
    OPERATOR 1 <,
    OPERATOR 2 <=,
    OPERATOR 3 =,
    OPERATOR 4 >=,
    OPERATOR 5 >,
    FUNCTION 1 rsxid_cmp(rsxid, rsxid),
    FUNCTION 2 rsxid_sortsupport(internal),
    FUNCTION 4 pg_catalog.btequalimage(oid);

-- hash_any over the bytes; never change it (hash partitions depend on it).
CREATE OPERATOR CLASS rsxid_ops DEFAULT FOR TYPE rsxid USING hash AS
    OPERATOR 1 =,
    FUNCTION 1 rsxid_hash(rsxid),
    FUNCTION 2 rsxid_hash_extended(rsxid, int8);

CREATE OPERATOR CLASS rsxid_minmax_ops DEFAULT FOR TYPE rsxid USING brin AS
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
CREATE FUNCTION rsxid_smaller(rsxid, rsxid) RETURNS rsxid
    AS 'MODULE_PATHNAME', 'rsxid_smaller' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION rsxid_larger(rsxid, rsxid) RETURNS rsxid
    AS 'MODULE_PATHNAME', 'rsxid_larger' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE AGGREGATE min(rsxid) (
    SFUNC = rsxid_smaller, STYPE = rsxid, COMBINEFUNC = rsxid_smaller, SORTOP = <, PARALLEL = SAFE
);
CREATE AGGREGATE max(rsxid) (
    SFUNC = rsxid_larger, STYPE = rsxid, COMBINEFUNC = rsxid_larger, SORTOP = >, PARALLEL = SAFE
);

-- Generation: VOLATILE. Each backend has its own process ID and counter, and a parallel worker is
-- a backend of its own: PARALLEL RESTRICTED, so a session's xids carry its own backend's process
-- ID and strictly increase.
CREATE FUNCTION gen_xid() RETURNS rsxid
    AS 'MODULE_PATHNAME', 'gen_xid' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION gen_xid() IS 'new xid: current Unix seconds, this server''s machine ID, the backend''s pid, the next counter value; strictly increasing within a backend';

-- Decoders and bounds.
CREATE FUNCTION xid_time(rsxid) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'xid_time' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION xid_time(rsxid) IS 'the timestamp inside an xid (whole seconds, read as unsigned)';
CREATE FUNCTION xid_machine(rsxid) RETURNS int4
    AS 'MODULE_PATHNAME', 'xid_machine' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION xid_machine(rsxid) IS 'the 3-byte machine ID of an xid, 0 .. 16777215';
CREATE FUNCTION xid_pid(rsxid) RETURNS int4
    AS 'MODULE_PATHNAME', 'xid_pid' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION xid_pid(rsxid) IS 'the 2-byte process ID of an xid, 0 .. 65535';
CREATE FUNCTION xid_counter(rsxid) RETURNS int4
    AS 'MODULE_PATHNAME', 'xid_counter' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION xid_counter(rsxid) IS 'the 3-byte counter of an xid, 0 .. 16777215';
CREATE FUNCTION xid_server_machine() RETURNS int4
    AS 'MODULE_PATHNAME', 'xid_server_machine' LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION xid_server_machine() IS 'the machine ID gen_xid() writes on this server (from its system identifier)';
CREATE FUNCTION xid_lower(timestamptz) RETURNS rsxid
    AS 'MODULE_PATHNAME', 'xid_lower' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION xid_lower(timestamptz) IS 'smallest xid of the second containing the given time';
CREATE FUNCTION xid_upper(timestamptz) RETURNS rsxid
    AS 'MODULE_PATHNAME', 'xid_upper' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION xid_upper(timestamptz) IS 'largest xid of the second containing the given time';

-- Casts, all explicit.
CREATE CAST (rsxid AS timestamptz) WITH FUNCTION xid_time(rsxid);
CREATE FUNCTION rsxid_to_bytea(rsxid) RETURNS bytea
    AS 'MODULE_PATHNAME', 'rsxid_to_bytea' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION rsxid_to_bytea(rsxid) IS 'the 12 bytes of an xid';
CREATE FUNCTION rsxid(bytea) RETURNS rsxid
    AS 'MODULE_PATHNAME', 'rsxid_from_bytea' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION rsxid(bytea) IS 'exactly 12 bytes as an xid; any other length is 22P02';
CREATE CAST (rsxid AS bytea) WITH FUNCTION rsxid_to_bytea(rsxid);
CREATE CAST (bytea AS rsxid) WITH FUNCTION rsxid(bytea);
-- objectid has the same 12-byte layout family (4-byte seconds first, a 3-byte counter last) and
-- every 12 bytes are valid in both: the cast keeps every byte. The seconds and the counter keep
-- their meaning; the xid's machine ID and process ID become the ObjectId's 5-byte per-process
-- value, and back.
CREATE CAST (rsxid AS objectid) WITHOUT FUNCTION;
CREATE CAST (objectid AS rsxid) WITHOUT FUNCTION;
-------------------------------------------------------------------------------
-- NanoID (0.3.0): random text over an alphabet, uniform by mask-and-reject sampling, from the
-- backend's block-buffered kernel CSPRNG. No type: NanoIDs are opaque text.
-------------------------------------------------------------------------------

-- VOLATILE; PARALLEL SAFE (each backend draws from its own CSPRNG buffer). STRICT: a NULL size or
-- alphabet gives NULL. Size 1 to 255; alphabet 2 to 255 distinct single-byte characters; 22023
-- otherwise.
CREATE OR REPLACE FUNCTION @extschema@.gen_nanoid(
        size integer DEFAULT 21,
        alphabet text DEFAULT 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-')
    RETURNS text
    AS 'MODULE_PATHNAME', 'gen_nanoid' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.gen_nanoid(integer, text) IS
    'new NanoID: size (1..255) characters drawn uniformly from the alphabet (2..255 distinct single-byte characters; default the URL-safe 64)';
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
-- snowflake_ops (btree) also holds int8's own comparison, (bigint, bigint) (0.3.0). A scan of a
-- snowflake index for `id = ANY($1::bigint[])` or `id IN (1::bigint, 2::bigint)` sorts and
-- deduplicates the bigint array with the family's (bigint, bigint) comparison function, which the
-- family lacked (XX000 "missing support function 1(20,20)"). A snowflake's order is its int8
-- order, so int8's built-in operators and btint8cmp agree with every other member; with them the
-- family is complete (amvalidate() is true: every pair of snowflake and bigint has all five
-- operators and a comparison function).
--
-- Part of the install script and of the 0.2.0 -> 0.3.0 update (0.2.0's family has the cross-type
-- members of 70_surface_0_2.sql and not these).
-------------------------------------------------------------------------------
ALTER OPERATOR FAMILY snowflake_ops USING btree ADD
    OPERATOR 1 pg_catalog.< (bigint, bigint),
    OPERATOR 2 pg_catalog.<= (bigint, bigint),
    OPERATOR 3 pg_catalog.= (bigint, bigint),
    OPERATOR 4 pg_catalog.>= (bigint, bigint),
    OPERATOR 5 pg_catalog.> (bigint, bigint),
    FUNCTION 1 (bigint, bigint) pg_catalog.btint8cmp(bigint, bigint);
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
-- TraceId: the tools snowflakes and shards have (added in 0.3.0; part of the install script and
-- of the 0.2.0 -> 0.3.0 upgrade script).
--   trace_id_lower(at), trace_id_upper(at)   the smallest and largest TraceId of the second
--       containing `at`: range scans over one period, for example
--       WHERE trace_id BETWEEN trace_id_lower(a) AND trace_id_upper(b)
--   trace_id_raise_mark(above)   gen_trace_id() issues only IDs of later seconds than `above`
--       (read in the period nearest the clock) from now on, for IDs carried in by a dump.
--       Superuser only by default: the mark is shared by every database of the server and never
--       moves back.
-------------------------------------------------------------------------------
CREATE FUNCTION trace_id_lower(at timestamptz) RETURNS bigint
    AS 'MODULE_PATHNAME', 'trace_id_lower' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION trace_id_lower(timestamptz) IS 'smallest TraceId of the second containing the given time';

CREATE FUNCTION trace_id_upper(at timestamptz) RETURNS bigint
    AS 'MODULE_PATHNAME', 'trace_id_upper' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION trace_id_upper(timestamptz) IS 'largest TraceId of the second containing the given time';

CREATE FUNCTION trace_id_raise_mark(above bigint) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'trace_id_raise_mark' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION trace_id_raise_mark(bigint) IS 'makes gen_trace_id() issue only IDs of later seconds than the given one from now on; returns the high-water mark';
REVOKE ALL ON FUNCTION trace_id_raise_mark(bigint) FROM PUBLIC;
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
-- read and write the table found by OID from pg_extension (since 0.3.0 through the executor's
-- single-row path, as the logical replication apply worker writes), so no SQL text is resolved by
-- name, or planned, while a request runs.
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
-- Only the functions below write rows (and check what they write). Their path applies constraints,
-- row triggers and every index, but not statement triggers, rules or row-level security, so they
-- refuse to write while the table has those (or a column of its own with a default). Every key is updated
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

CREATE FUNCTION idempotency_fingerprint(payload jsonb, paths text[] DEFAULT NULL)
    RETURNS text AS 'MODULE_PATHNAME', 'idempotency_fingerprint' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION idempotency_fingerprint(jsonb, text[]) IS 'SHA-256 (hex) of the canonical JSON of a payload, or of the members its JSON Pointers select';

REVOKE ALL ON FUNCTION idempotency_begin(text, text, text, boolean, text, interval, interval) FROM PUBLIC;
REVOKE ALL ON FUNCTION idempotency_finish(text, text, jsonb, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION idempotency_recovery_point(text, text, text, text) FROM PUBLIC;
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
-- idempotency_purge(), 0.3.0: a call is one bounded step of a purge round (at most batch_size
-- keys deleted, at most ten rows examined per key of batch_size) and says whether the round is
-- done. Part of the install script and of the 0.2.0 -> 0.3.0 upgrade script.
--
-- 0.2.0's returned bigint (the keys deleted; fewer than batch_size meant done, which a bounded
-- call cannot promise). A function's result type cannot be changed in place, so the upgrade
-- script drops 0.2.0's function before this piece (src/update/0.2.0--0.3.0.sql; never here: the
-- install script must fail, as any CREATE FUNCTION does, on a function of the same signature
-- that is not the extension's) and creates it again here.
-------------------------------------------------------------------------------

CREATE FUNCTION idempotency_purge(older_than interval DEFAULT NULL, batch_size integer DEFAULT 1000,
                                  OUT deleted bigint, OUT done boolean)
    AS 'MODULE_PATHNAME', 'idempotency_purge' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION idempotency_purge(interval, integer) IS 'delete expired (and with older_than idle) idempotency keys, one bounded step of a round per call: how many, and whether the round is done';
REVOKE ALL ON FUNCTION idempotency_purge(interval, integer) FROM PUBLIC;

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
-- 0.3.0: created types on a Citus cluster. Citus creates the types of a distributed table's
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
-------------------------------------------------------------------------------
-- permute_keys, 0.3.0: no error prints a key, and every change reaches every session's key cache.
-- Part of the install script and of the 0.2.0 -> 0.3.0 upgrade script (after 56_permute.sql).
--
-- A failed CHECK or NOT NULL constraint reports the whole row ("Failing row contains (...)") to
-- the client and into the server log, the key included. The constraints on the values are a
-- BEFORE trigger instead, which raises the same SQLSTATEs (23502 for a NULL, 23514 for a value out
-- of bounds) naming the column, never a value. NOT NULL stays, as a backstop that the trigger's
-- NULL checks come before.
--
-- Cache invalidation (src/pg/permute.cpp): ENABLE ORIGIN triggers do not fire under
-- session_replication_role = replica, and logical replication's apply worker fires row triggers
-- only. A row trigger joins the statement one (still needed for TRUNCATE); both, and the check,
-- fire ALWAYS.
-------------------------------------------------------------------------------

ALTER TABLE @extschema@.permute_keys
    DROP CONSTRAINT permute_keys_name_check,
    DROP CONSTRAINT permute_keys_key_check,
    DROP CONSTRAINT permute_keys_domain_check,
    DROP CONSTRAINT permute_keys_tweak_check;

CREATE FUNCTION id_permute_keys_check() RETURNS trigger
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    bad text;
    rule text;
BEGIN
    bad := CASE WHEN NEW.name IS NULL THEN 'name' WHEN NEW.key IS NULL THEN 'key'
                WHEN NEW.domain IS NULL THEN 'domain' WHEN NEW.tweak IS NULL THEN 'tweak'
                WHEN NEW.created_at IS NULL THEN 'created_at' END;
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'null value in column "%" of relation "permute_keys" violates not-null constraint', bad
            USING ERRCODE = '23502', SCHEMA = TG_TABLE_SCHEMA, TABLE = TG_TABLE_NAME, COLUMN = bad;
    END IF;
    IF pg_catalog.octet_length(NEW.name) NOT BETWEEN 1 AND 63 THEN
        bad := 'name';
        rule := 'A key name is 1 to 63 bytes.';
    ELSIF pg_catalog.length(NEW.key) OPERATOR(pg_catalog.<>) 16 THEN
        bad := 'key';
        rule := 'A key is 16 bytes.';
    ELSIF NEW.domain OPERATOR(pg_catalog.<) 1000000 THEN
        bad := 'domain';
        rule := 'A domain is at least 1000000.';
    ELSIF pg_catalog.octet_length(NEW.tweak) OPERATOR(pg_catalog.>) 256 THEN
        bad := 'tweak';
        rule := 'A tweak is at most 256 bytes.';
    END IF;
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION 'new row for relation "permute_keys" violates the check on column "%"', bad
            USING ERRCODE = '23514', DETAIL = rule, SCHEMA = TG_TABLE_SCHEMA, TABLE = TG_TABLE_NAME, COLUMN = bad;
    END IF;
    RETURN NEW;
END
$$;
COMMENT ON FUNCTION id_permute_keys_check() IS 'trigger on permute_keys: its checks, reported without the row (which holds the key)';
REVOKE ALL ON FUNCTION id_permute_keys_check() FROM PUBLIC;
CREATE TRIGGER permute_keys_check BEFORE INSERT OR UPDATE ON @extschema@.permute_keys
    FOR EACH ROW EXECUTE FUNCTION @extschema@.id_permute_keys_check();

CREATE TRIGGER permute_keys_row_changed AFTER INSERT OR UPDATE OR DELETE ON @extschema@.permute_keys
    FOR EACH ROW EXECUTE FUNCTION @extschema@.id_permute_keys_changed();
ALTER TABLE @extschema@.permute_keys
    ENABLE ALWAYS TRIGGER permute_keys_check,
    ENABLE ALWAYS TRIGGER permute_keys_changed,
    ENABLE ALWAYS TRIGGER permute_keys_row_changed;
-------------------------------------------------------------------------------
-- prefix_registry, 0.3.0: every change reaches every session's cache of registered prefixes.
-- Part of the install script and of the 0.2.0 -> 0.3.0 upgrade script.
--
-- gen_prefixed() keeps, per session, the prefixes it found registered (src/pg/prefixed.cpp), and
-- forgets them all when the registry's relcache invalidation is processed. These triggers send
-- it for every INSERT, UPDATE, DELETE and TRUNCATE, committed or rolled back, and fire ALWAYS:
-- ENABLE ORIGIN triggers are silent under session_replication_role = replica, which is how
-- logical replication applies changes, and its apply worker fires row triggers only.
-------------------------------------------------------------------------------

CREATE FUNCTION prefix_registry_changed() RETURNS trigger
    AS 'MODULE_PATHNAME', 'prefix_registry_changed' LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION prefix_registry_changed() IS 'trigger on prefix_registry: every session drops its cached prefixes';
REVOKE ALL ON FUNCTION prefix_registry_changed() FROM PUBLIC;
CREATE TRIGGER prefix_registry_changed AFTER TRUNCATE ON @extschema@.prefix_registry
    FOR EACH STATEMENT EXECUTE FUNCTION @extschema@.prefix_registry_changed();
CREATE TRIGGER prefix_registry_row_changed AFTER INSERT OR UPDATE OR DELETE ON @extschema@.prefix_registry
    FOR EACH ROW EXECUTE FUNCTION @extschema@.prefix_registry_changed();
ALTER TABLE @extschema@.prefix_registry
    ENABLE ALWAYS TRIGGER prefix_registry_changed,
    ENABLE ALWAYS TRIGGER prefix_registry_row_changed;
-------------------------------------------------------------------------------
-- 0.3.0: the history of block grants (see 64_shard_cluster_pull.sql). A file of its own, sorted
-- after every configuration table of 0.2.0 and included last by the 0.2.0 -> 0.3.0 upgrade
-- script, so that a fresh install and an update list the configuration tables in one order.
-------------------------------------------------------------------------------

-- Every block ever granted on this node (the coordinator's grants; kept when drop_shard() drops
-- the shard's blocks), so that a run of a shard's field goes to one node id only, ever, and
-- which Citus node (its group id in pg_dist_node; 0 the coordinator) a node id's blocks went to,
-- so that no other node still in pg_dist_node, active or disabled, is given that node id's blocks.
-- node_group is NULL for the grants of 0.2.0, which did not record it. valid_from: when the run
-- is granted again (its shard dropped and created again), it is valid from then (set by the
-- hand-over of a removed node's blocks to another node, past the IDs the removed node can have
-- issued from it); NULL: from the shard's epoch.
CREATE TABLE shard_block_history (
    shard int4 NOT NULL CHECK (shard BETWEEN 0 AND 8191),
    node_id int4 NOT NULL CHECK (node_id BETWEEN 0 AND 65535),
    seq_lo int4 NOT NULL,
    seq_bits int4 NOT NULL CHECK (seq_bits BETWEEN 0 AND 10),
    node_group int4,
    valid_from timestamptz,
    PRIMARY KEY (shard, node_id, seq_lo, seq_bits)
);
COMMENT ON TABLE shard_block_history IS 'every block of a shard''s sequence field granted on this coordinator, kept when the shard is dropped, and the Citus group of the node it went to: a run goes to one node id only, a node id to one node';
SELECT pg_catalog.pg_extension_config_dump('shard_block_history', '');
REVOKE ALL ON shard_block_history FROM PUBLIC;
GRANT SELECT ON shard_block_history TO PUBLIC;
-- A 0.2.0 cluster's grants so far.
INSERT INTO shard_block_history (shard, node_id, seq_lo, seq_bits)
    SELECT b.shard, b.node_id, b.seq_lo, b.seq_bits FROM shard_blocks b ON CONFLICT DO NOTHING;

-- 0.3.0: a block belongs to a Citus node, not to a setting. node_group is the Citus group (its
-- group id in pg_dist_node; 0 the coordinator) the block was granted to; next_id() on a Citus node
-- issues only from a block of its id_gen.node_id granted to its own group (pg_dist_local_group),
-- and refuses (55000, naming both groups) a block of its node id granted to another. NULL for a
-- grant of 0.2.0: the coordinator records the group of the first node that asks for it
-- (shard_cluster_grant_blocks()).
ALTER TABLE shard_blocks ADD COLUMN node_group int4;
COMMENT ON COLUMN shard_blocks.node_group IS 'the Citus group the block was granted to (NULL: granted by 0.2.0, claimed by the first node of that node id that asks)';
-- The coordinator's own blocks of 0.2.0 are its group's (0): it never asks anyone.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'citus')
       AND pg_catalog.current_setting('id_gen.node_id', true) ~ '^[0-9]+$' THEN
        EXECUTE $q$UPDATE @extschema@.shard_blocks SET node_group = 0
                    WHERE node_group IS NULL AND node_id = pg_catalog.current_setting('id_gen.node_id')::int4
                      AND (SELECT g.groupid FROM pg_catalog.pg_dist_local_group g) = 0$q$;
        EXECUTE $q$UPDATE @extschema@.shard_block_history SET node_group = 0
                    WHERE node_group IS NULL AND node_id = pg_catalog.current_setting('id_gen.node_id')::int4
                      AND (SELECT g.groupid FROM pg_catalog.pg_dist_local_group g) = 0$q$;
    END IF;
END
$$;

-- 0.3.0: the identity of this node as the coordinator confirmed it: its Citus group and
-- id_gen.node_id. UNLOGGED, so that pg_basebackup does not copy its rows and a crash empties it:
-- a copy of a worker started as a server of its own has the worker's group, blocks and settings,
-- and nothing else tells the two apart. Written only by shard_cluster_identify(), which the
-- coordinator runs over a connection to the address pg_dist_node has for the group
-- (shard_cluster_grant()); next_id() on a worker issues from a block only once a row here names
-- its group and node id and started_at is the start time of its running server
-- (pg_postmaster_start_time()), and asks the coordinator otherwise: a cleanly stopped server keeps
-- the table's rows, so a cold copy of its data directory, or the node itself restarted after
-- another took its place, would otherwise keep the confirmation. Every start asks once. Never
-- dumped.
CREATE UNLOGGED TABLE shard_node_identity (
    node_group int4 NOT NULL,
    node_id int4 NOT NULL,
    started_at timestamptz NOT NULL,
    confirmed_at timestamptz NOT NULL DEFAULT pg_catalog.now()
);
COMMENT ON TABLE shard_node_identity IS 'this node''s Citus group and id_gen.node_id as the coordinator confirmed them over a connection to the node''s address in pg_dist_node (unlogged: not copied by pg_basebackup, emptied by a crash)';
REVOKE ALL ON shard_node_identity FROM PUBLIC;
-- A node Citus is adding to a cluster: the coordinator's created ID types (id_type_cluster_pull(),
-- 90_id_types.sql). Install script only: a node updated from 0.2.0 has its types already. A
-- coordinator this node cannot ask fails the install (55000, naming it), and so the node's
-- addition: going on would leave the node without types the cluster's tables may need.
SELECT @extschema@.id_type_cluster_pull();
