-- The primary-key load suite of bench/report.sh, loaded after bench/bench.sql.
--
--   bench.pk_kind     one row per key kind: the column's type and DEFAULT, and setup SQL run once.
--   bench.pk_load     a procedure: a fresh table whose primary key is that kind, then `total` rows in
--                     INSERTs of `batch` rows, each INSERT its own transaction (as an application
--                     commits), timed on the wall clock; records WAL bytes (insert LSN before and
--                     after), the primary-key index and heap sizes, and the checkpoints that ran.
--   bench.pk_report   medians over rounds per kind.
-- The caller (bench/report.sh) runs CHECKPOINT before each load, so every load starts from the same
-- state: every page clean, the next change to any page writes a full-page image.
SET client_min_messages = warning;

CREATE TABLE bench.pk_kind (
    name     text PRIMARY KEY,
    ord      int  NOT NULL,
    grp      text NOT NULL,               -- builtin, id_gen or peer
    coltype  text NOT NULL,               -- the key column's type
    expr     text,                        -- its DEFAULT, NULL for a serial type
    setup    text,                        -- run once before the rounds, NULL for none
    vs       text                         -- a peer's id_gen counterpart, NULL for others
);

CREATE TABLE bench.pk_sample (
    name         text   NOT NULL,
    round        int    NOT NULL,
    rows         bigint NOT NULL,
    wall_ns      float8 NOT NULL,
    wal_bytes    float8 NOT NULL,
    index_bytes  float8 NOT NULL,
    heap_bytes   float8 NOT NULL,
    checkpoints  float8,
    fpi          float8,                  -- full-page images, from pg_stat_wal (filled in after the call)
    PRIMARY KEY (name, round)
);

-- Checkpoints completed so far (pg_stat_bgwriter before 17, pg_stat_checkpointer from 17).
CREATE FUNCTION bench.checkpoints() RETURNS float8 LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    n float8;
BEGIN
    IF to_regclass('pg_catalog.pg_stat_checkpointer') IS NOT NULL THEN
        EXECUTE 'SELECT num_timed + num_requested FROM pg_catalog.pg_stat_checkpointer' INTO n;
    ELSE
        EXECUTE 'SELECT checkpoints_timed + checkpoints_req FROM pg_catalog.pg_stat_bgwriter' INTO n;
    END IF;
    RETURN n;
END
$$;

-- Creates bench.pk for a kind (committed), for the caller to CHECKPOINT before pk_load.
CREATE PROCEDURE bench.pk_create(p_name text) LANGUAGE plpgsql AS $$
DECLARE
    k bench.pk_kind;
BEGIN
    SELECT * INTO STRICT k FROM bench.pk_kind WHERE name = p_name;
    DROP TABLE IF EXISTS bench.pk;
    EXECUTE format('CREATE TABLE bench.pk (id %s PRIMARY KEY %s, n int NOT NULL)', k.coltype,
                   CASE WHEN k.expr IS NULL THEN '' ELSE 'DEFAULT ' || k.expr END);
    COMMIT;
END
$$;

CREATE PROCEDURE bench.pk_load(p_name text, p_round int, p_total bigint, p_batch int) LANGUAGE plpgsql AS $$
DECLARE
    t0   timestamptz;
    t1   timestamptz;
    l0   pg_lsn;
    l1   pg_lsn;
    c0   float8;
    ins  text := format('INSERT INTO bench.pk (n) SELECT g FROM generate_series(1, %s) g', p_batch);
BEGIN
    IF p_total % p_batch <> 0 THEN
        RAISE EXCEPTION 'bench.pk_load: % rows is not a multiple of the batch size %', p_total, p_batch;
    END IF;
    c0 := bench.checkpoints();
    l0 := pg_current_wal_insert_lsn();
    t0 := clock_timestamp();
    FOR i IN 1 .. p_total / p_batch LOOP
        EXECUTE ins;
        COMMIT;
    END LOOP;
    t1 := clock_timestamp();
    l1 := pg_current_wal_insert_lsn();
    INSERT INTO bench.pk_sample (name, round, rows, wall_ns, wal_bytes, index_bytes, heap_bytes, checkpoints)
    VALUES (p_name, p_round, p_total, extract(epoch FROM t1 - t0)::float8 * 1e9, l1 - l0,
            pg_relation_size('bench.pk_pkey'), pg_relation_size('bench.pk'), bench.checkpoints() - c0);
    COMMIT;
END
$$;

CREATE VIEW bench.pk_report AS
SELECT k.ord, k.grp, k.name, k.coltype, k.vs, count(*) AS rounds, max(s.rows) AS rows,
       bench.median(array_agg(s.wall_ns)) AS wall_ns,
       100 * (max(s.wall_ns) - min(s.wall_ns)) / nullif(bench.median(array_agg(s.wall_ns)), 0) AS spread_pct,
       bench.median(array_agg(s.index_bytes)) AS index_bytes,
       bench.median(array_agg(s.heap_bytes)) AS heap_bytes,
       bench.median(array_agg(s.wal_bytes)) AS wal_bytes,
       bench.median(array_agg(s.fpi)) AS fpi,
       bench.median(array_agg(s.checkpoints)) AS checkpoints
FROM bench.pk_kind k JOIN bench.pk_sample s USING (name)
GROUP BY k.ord, k.grp, k.name, k.coltype, k.vs;
