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
