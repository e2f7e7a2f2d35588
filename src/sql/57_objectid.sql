-------------------------------------------------------------------------------
-- objectid: MongoDB's ObjectId (BSON type 0x07).
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

