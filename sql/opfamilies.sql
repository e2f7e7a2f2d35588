-- Operator families. Every family of id_gen, and every family create_id_type() makes, passes
-- amvalidate(): the query returns the ones that do not (none), and amvalidate() reports what it
-- finds missing as INFO lines (none either). snowflake_ops holds (snowflake, bigint) and
-- (bigint, snowflake) operators, and with them int8's own (bigint, bigint) members: a btree scan
-- sorts a bigint array with the family's (bigint, bigint) comparison function.
\set VERBOSITY default
\set SHOW_CONTEXT never

SELECT create_id_type('fam_ulid', kind => 'ulid', prefix => 'fau') IS NOT NULL AS made,
       create_id_type('fam_uuidv7', kind => 'uuidv7', prefix => 'fav') IS NOT NULL AS made,
       create_id_type('fam_snowflake', kind => 'snowflake', prefix => 'fas') IS NOT NULL AS made,
       create_id_type('fam_ksuid', kind => 'ksuid', prefix => 'fak') IS NOT NULL AS made,
       create_id_type('fam_xid', kind => 'xid', prefix => 'fax') IS NOT NULL AS made;
WITH opclasses AS (
    SELECT c.oid, c.opcname, c.opcfamily, a.amname
    FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod
    WHERE c.oid IN (SELECT d.objid FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'id_gen'
                     WHERE d.classid = 'pg_opclass'::regclass AND d.deptype = 'e')
       OR c.opcname LIKE 'fam\_%'
)
SELECT count(*) AS opclasses, count(DISTINCT opcfamily) AS families,
       count(*) FILTER (WHERE amname = 'btree') AS btree, count(*) FILTER (WHERE amname = 'hash') AS hash,
       count(*) FILTER (WHERE amname = 'brin') AS brin,
       coalesce(string_agg(opcname || ' USING ' || amname, ', ') FILTER (WHERE NOT amvalidate(oid)), '') AS invalid
FROM opclasses;
SELECT count(*) AS dropped FROM (SELECT drop_id_type(t)
FROM unnest(ARRAY['fam_ulid', 'fam_uuidv7', 'fam_snowflake', 'fam_ksuid', 'fam_xid']::regtype[]) t) s;

-- snowflake_ops: every pair of snowflake and bigint has its five operators and a comparison function.
SELECT o.amoplefttype::regtype AS left, o.amoprighttype::regtype AS right,
       string_agg(o.amopopr::regoperator::text, ' ' ORDER BY o.amopstrategy) AS operators,
       (SELECT string_agg(p.amproc::regprocedure::text, ' ' ORDER BY p.amprocnum) FROM pg_amproc p
         WHERE p.amprocfamily = o.amopfamily AND p.amproclefttype = o.amoplefttype AND p.amprocrighttype = o.amoprighttype) AS functions
FROM pg_amop o JOIN pg_opfamily f ON f.oid = o.amopfamily
JOIN pg_am a ON a.oid = f.opfmethod AND a.amname = 'btree'
WHERE f.opfname = 'snowflake_ops'
GROUP BY o.amopfamily, o.amoplefttype, o.amoprighttype
ORDER BY o.amoplefttype::regtype::text COLLATE "C", o.amoprighttype::regtype::text COLLATE "C";

-- A primary key on a snowflake, searched with bigint lists as drivers and ORMs send them.
CREATE TABLE fam_orders (id snowflake PRIMARY KEY, n int);
INSERT INTO fam_orders SELECT snowflake(g * 1000::bigint), g FROM generate_series(1, 2000) g;
ANALYZE fam_orders;
SET enable_seqscan = off;
CREATE FUNCTION pg_temp.index_scan(q text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    p jsonb;
BEGIN
    EXECUTE 'EXPLAIN (COSTS OFF, FORMAT JSON) ' || q INTO p;
    RETURN jsonb_path_exists(p, '$.** ? (@."Node Type" like_regex "^(Bitmap )?Index( Only)? Scan$" && @."Index Name" == "fam_orders_pkey")');
END
$$;
SELECT pg_temp.index_scan($$SELECT n FROM fam_orders WHERE id = ANY('{2000,1000,1000,7}'::bigint[])$$) AS index_scan;
SELECT n FROM fam_orders WHERE id = ANY('{2000,1000,1000,7}'::bigint[]) ORDER BY n;
SELECT pg_temp.index_scan($$SELECT n FROM fam_orders WHERE id IN (3000::bigint, 4000::bigint)$$) AS index_scan;
SELECT n FROM fam_orders WHERE id IN (3000::bigint, 4000::bigint) ORDER BY n;
SELECT n FROM fam_orders WHERE id IN (5000, 6000) ORDER BY n;
SELECT n FROM fam_orders WHERE id = ANY(ARRAY[7000, 8000]) ORDER BY n;
SELECT count(*) FROM fam_orders WHERE id < ANY('{3000,2500}'::bigint[]);
SELECT count(*) FROM fam_orders WHERE id > ALL('{1998000,1999000}'::bigint[]);
SELECT count(*) FROM fam_orders WHERE id = ANY('{}'::bigint[]);
SELECT count(*) FROM fam_orders WHERE id = ANY('{9000,NULL}'::bigint[]);
PREPARE fam_by_ids(bigint[]) AS SELECT n FROM fam_orders WHERE id = ANY($1) ORDER BY n;
EXECUTE fam_by_ids('{10000,11000,-5}');
-- The mixed forms: a snowflake list, a bigint range and the list in one condition.
SELECT n FROM fam_orders WHERE id = ANY('{12000,13000}'::snowflake[]) AND id >= 12500::bigint ORDER BY n;
SELECT n FROM fam_orders WHERE id = ANY('{14000,15000}'::bigint[]) AND id = ANY('{15000,16000}'::snowflake[]) ORDER BY n;
DEALLOCATE fam_by_ids;
RESET enable_seqscan;
DROP TABLE fam_orders;
