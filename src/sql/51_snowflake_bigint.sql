-------------------------------------------------------------------------------
-- snowflake compared with bigint, and integer -> snowflake. The btree family snowflake_ops
-- (50_snowflake.sql) holds the cross-type operators and int8's own, so it is complete.
-------------------------------------------------------------------------------

-- snowflake compared with bigint, both ways, so `WHERE id = 2124948553146044416` (and an integer
-- literal, through int4 -> int8) works and uses a btree index on a snowflake column. The bytes
-- are an int8's, so the built-in int8 functions serve. In the btree family snowflake_ops, which
-- an index scan needs; not HASHES or MERGES.
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

-- snowflake_ops (btree) also holds int8's own comparison, (bigint, bigint). A scan of a
-- snowflake index for `id = ANY($1::bigint[])` or `id IN (1::bigint, 2::bigint)` sorts and
-- deduplicates the bigint array with the family's (bigint, bigint) comparison function (XX000
-- "missing support function 1(20,20)" without it). A snowflake's order is its int8 order, so
-- int8's built-in operators and btint8cmp agree with every other member; with them the family is
-- complete (amvalidate() is true: every pair of snowflake and bigint has all five operators and a
-- comparison function).
ALTER OPERATOR FAMILY snowflake_ops USING btree ADD
    OPERATOR 1 pg_catalog.< (bigint, bigint),
    OPERATOR 2 pg_catalog.<= (bigint, bigint),
    OPERATOR 3 pg_catalog.= (bigint, bigint),
    OPERATOR 4 pg_catalog.>= (bigint, bigint),
    OPERATOR 5 pg_catalog.> (bigint, bigint),
    FUNCTION 1 (bigint, bigint) pg_catalog.btint8cmp(bigint, bigint);

-- integer -> snowflake, explicit and checked like bigint -> snowflake, so 1::snowflake works.
CREATE FUNCTION snowflake(integer) RETURNS snowflake
    AS 'MODULE_PATHNAME', 'snowflake_from_int4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake(integer) IS 'integer to snowflake; 22003 unless the value is at least 1';
CREATE CAST (integer AS snowflake) WITH FUNCTION snowflake(integer);
