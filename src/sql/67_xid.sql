-------------------------------------------------------------------------------
-- rsxid: the xid format of the Go package rs/xid.
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
