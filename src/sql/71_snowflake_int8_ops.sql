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
