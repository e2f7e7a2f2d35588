-- id_gen benchmark harness: the generic, ID-kind-independent part, loaded into the benchmark
-- database by bench/lib.sh (bench_init). See bench/README.md for the method.
--
--   bench.contender   one row per thing to time: setup (untimed), query (timed), post (untimed,
--                     returns one number kept as a metric, e.g. an index size), rows processed,
--                     and the contender of the same suite whose time is subtracted (baseline).
--   bench.run(suite, rounds)   times every contender of a suite once per round, forward order in
--                     odd rounds and reverse order in even rounds, committing after each run.
--   bench.report      per contender and clock ('cpu' or 'wall'): median gross ns, median per-round
--                     net ns (paired with the baseline of the same round), net ns per row, median
--                     metric.
--   bench.client_contender, bench.client_sample, bench.client_report   the many-clients suites:
--                     a pgbench script per contender, run by bench_clients (bench/lib.sh) with N
--                     clients for T seconds per round; throughput in IDs per second.
--
-- Two clocks are recorded for every run: wall time (clock_timestamp()) and the backend's own
-- on-CPU time (/proc/self/schedstat, ns). On a shared machine the CPU clock leaves out the time the
-- backend sat in the run queue behind other tenants' work; see bench/README.md for which to use.
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS bench CASCADE;
CREATE SCHEMA bench;

CREATE TABLE bench.contender (
    suite    text   NOT NULL,
    name     text   NOT NULL,
    ord      int    NOT NULL,             -- position in the forward order
    query    text   NOT NULL,             -- the timed statement(s)
    rows     bigint NOT NULL CHECK (rows > 0),
    baseline text,                         -- name of a contender in the same suite, or NULL
    setup    text,                         -- untimed, committed before each timed run
    post     text,                         -- untimed, after each timed run; SELECT of one number
    PRIMARY KEY (suite, name)
);

CREATE TABLE bench.sample (
    suite    text   NOT NULL,
    name     text   NOT NULL,
    round    int    NOT NULL,
    wall_ns  float8 NOT NULL,
    cpu_ns   float8 NOT NULL,
    wait_ns  float8 NOT NULL,             -- time runnable but not running (other tenants)
    metric   float8,
    PRIMARY KEY (suite, name, round)
);

-- The backend's on-CPU and run-queue-wait nanoseconds so far (Linux schedstat; superuser). The
-- kernel brings a running task's total up to date only at a scheduler tick or a context switch,
-- so a 0.1 ms sleep first makes the reading exact instead of up to one tick (4 ms at HZ=250) old.
CREATE FUNCTION bench.sched() RETURNS float8[] LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    s text;
BEGIN
    PERFORM pg_catalog.pg_sleep(0.0001);
    s := pg_catalog.pg_read_file('/proc/self/schedstat');
    RETURN ARRAY[split_part(s, ' ', 1)::float8, split_part(s, ' ', 2)::float8];
END
$$;

-- One EXECUTE: {wall ns, cpu ns, wait ns}. clock_timestamp() has microsecond resolution and
-- schedstat nanosecond; every timed query runs for tens of milliseconds or more.
CREATE FUNCTION bench.time_sql(q text) RETURNS float8[] LANGUAGE plpgsql AS $$
DECLARE
    s0 float8[];
    s1 float8[];
    t0 timestamptz;
    t1 timestamptz;
BEGIN
    s0 := bench.sched();
    t0 := clock_timestamp();
    EXECUTE q;
    t1 := clock_timestamp();
    s1 := bench.sched();
    RETURN ARRAY[extract(epoch FROM t1 - t0)::float8 * 1e9, s1[1] - s0[1], s1[2] - s0[2]];
END
$$;

-- Loads `total` rows into tbl(n) in INSERTs of `batch` rows each; the table's DEFAULT makes the ID.
-- For insert suites: bench.add(..., $q$SELECT bench.load('t', N, 100000)$q$, N, ...).
CREATE FUNCTION bench.load(tbl regclass, total bigint, batch int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    FOR i IN 1 .. total / batch LOOP
        EXECUTE format('INSERT INTO %s (n) SELECT g FROM generate_series(1, %s) g', tbl, batch);
    END LOOP;
END
$$;

-- Adds a contender (ord = next position in the suite).
CREATE FUNCTION bench.add(p_suite text, p_name text, p_query text, p_rows bigint,
                          p_baseline text DEFAULT NULL, p_setup text DEFAULT NULL, p_post text DEFAULT NULL)
RETURNS void LANGUAGE sql AS $$
    INSERT INTO bench.contender
    SELECT p_suite, p_name, coalesce(max(ord), 0) + 1, p_query, p_rows, p_baseline, p_setup, p_post
    FROM bench.contender WHERE suite = p_suite;
$$;

-- Interleaved rounds. A procedure, so that each timed run is its own transaction (CALL it at top
-- level, outside BEGIN).
CREATE PROCEDURE bench.run(p_suite text, p_rounds int) LANGUAGE plpgsql AS $$
DECLARE
    names text[];
    n     int;
    r     int;
    i     int;
    c     bench.contender;
    t     float8[];
    m     float8;
BEGIN
    SELECT array_agg(name ORDER BY ord) INTO names FROM bench.contender WHERE suite = p_suite;
    IF names IS NULL THEN
        RAISE EXCEPTION 'bench.run: suite % has no contenders', p_suite;
    END IF;
    n := array_length(names, 1);
    DELETE FROM bench.sample WHERE suite = p_suite;
    COMMIT;
    FOR r IN 1 .. p_rounds LOOP
        FOR k IN 1 .. n LOOP
            i := CASE WHEN r % 2 = 1 THEN k ELSE n + 1 - k END;
            SELECT * INTO c FROM bench.contender WHERE suite = p_suite AND name = names[i];
            IF c.setup IS NOT NULL THEN
                EXECUTE c.setup;
                COMMIT;
            END IF;
            t := bench.time_sql(c.query);
            COMMIT;
            m := NULL;
            IF c.post IS NOT NULL THEN
                EXECUTE c.post INTO m;
            END IF;
            INSERT INTO bench.sample VALUES (p_suite, c.name, r, t[1], t[2], t[3], m);
            COMMIT;
            RAISE NOTICE '% round %/%: % wall % ms, cpu % ms, run-queue wait % ms', p_suite, r, p_rounds,
                rpad(c.name, 28), round((t[1] / 1e6)::numeric, 1), round((t[2] / 1e6)::numeric, 1),
                round((t[3] / 1e6)::numeric, 1);
        END LOOP;
    END LOOP;
END
$$;

CREATE FUNCTION bench.median(float8[]) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
    SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM unnest($1) AS x;
$$;

-- One row per contender and clock. net_ns is the median over rounds of (contender - baseline) in
-- the same round; net_ns_per_row divides it by the contender's rows. Without a baseline, net =
-- gross. spread_pct: (max - min) / median of the per-round net times, a noise indicator.
-- wait_pct: run-queue wait as a share of wall time over all of the contender's runs.
CREATE VIEW bench.report AS
WITH clocked AS (
    SELECT s.suite, s.name, s.round, k.clock, CASE k.clock WHEN 'cpu' THEN s.cpu_ns ELSE s.wall_ns END AS ns,
           s.metric, s.wall_ns, s.wait_ns
    FROM bench.sample s CROSS JOIN (VALUES ('cpu'), ('wall')) AS k(clock)
), paired AS (
    SELECT s.*, s.ns - coalesce(b.ns, 0) AS net
    FROM clocked s
    JOIN bench.contender c USING (suite, name)
    LEFT JOIN clocked b ON b.suite = s.suite AND b.name = c.baseline AND b.round = s.round AND b.clock = s.clock
)
SELECT p.suite, p.name, p.clock, c.ord, c.rows, c.baseline, count(*) AS rounds,
       bench.median(array_agg(p.ns)) AS gross_ns,
       bench.median(array_agg(p.net)) AS net_ns,
       bench.median(array_agg(p.net)) / c.rows AS net_ns_per_row,
       100 * (max(p.net) - min(p.net)) / nullif(abs(bench.median(array_agg(p.net))), 0) AS spread_pct,
       100 * sum(p.wait_ns) / nullif(sum(p.wall_ns), 0) AS wait_pct,
       min(p.ns) AS min_ns,
       bench.median(array_agg(p.metric)) AS metric
FROM paired p JOIN bench.contender c USING (suite, name)
GROUP BY p.suite, p.name, p.clock, c.ord, c.rows, c.baseline;

-- Best-round estimator: (fastest run of the contender - fastest run of its baseline) / rows. Noise
-- on a shared machine only ever adds time, so when spread is large this is the steadier number;
-- the median stays the headline.
CREATE VIEW bench.report_min AS
SELECT r.suite, r.name, r.clock, (r.min_ns - coalesce(b.min_ns, 0)) / r.rows AS min_net_ns_per_row
FROM bench.report r
LEFT JOIN bench.report b ON b.suite = r.suite AND b.name = r.baseline AND b.clock = r.clock;

-- A printable table of a suite on one clock: per-row net cost and the ratio to a reference.
CREATE FUNCTION bench.table(p_suite text, p_reference text, p_clock text DEFAULT 'cpu')
RETURNS TABLE (contender text, rows bigint, rounds bigint, "median ms" numeric, "net ns/row" numeric,
               "spread %" numeric, "wait %" numeric, "ratio to ref" numeric,
               "best-round net ns/row" numeric, "best-round ratio" numeric)
LANGUAGE sql AS $$
    SELECT r.name, r.rows, r.rounds, round((r.gross_ns / 1e6)::numeric, 1),
           round(r.net_ns_per_row::numeric, 1), round(r.spread_pct::numeric, 0), round(r.wait_pct::numeric, 0),
           CASE WHEN is_baseline THEN NULL  -- a baseline itself: no ratio
                ELSE round((r.net_ns_per_row / nullif(ref.net_ns_per_row, 0))::numeric, 3) END,
           round(m.min_net_ns_per_row::numeric, 1),
           CASE WHEN is_baseline THEN NULL
                ELSE round((m.min_net_ns_per_row / nullif(mref.min_net_ns_per_row, 0))::numeric, 3) END
    FROM bench.report r
    JOIN bench.report_min m ON m.suite = r.suite AND m.name = r.name AND m.clock = r.clock
    LEFT JOIN bench.report ref ON ref.suite = r.suite AND ref.name = p_reference AND ref.clock = r.clock
    LEFT JOIN bench.report_min mref ON mref.suite = r.suite AND mref.name = p_reference AND mref.clock = r.clock
    CROSS JOIN LATERAL (SELECT r.baseline IS NULL AND r.name <> p_reference
                           AND EXISTS (SELECT 1 FROM bench.contender x WHERE x.suite = p_suite AND x.baseline = r.name)
                        AS is_baseline) AS b
    WHERE r.suite = p_suite AND r.clock = p_clock
    ORDER BY r.ord;
$$;

-- Net ns per row of one contender on a clock, and the median metric; for target checks.
CREATE FUNCTION bench.ns(p_suite text, p_name text, p_clock text DEFAULT 'cpu') RETURNS float8 LANGUAGE sql STABLE AS $$
    SELECT net_ns_per_row FROM bench.report WHERE suite = p_suite AND name = p_name AND clock = p_clock;
$$;
CREATE FUNCTION bench.ns_min(p_suite text, p_name text, p_clock text DEFAULT 'cpu') RETURNS float8 LANGUAGE sql STABLE AS $$
    SELECT min_net_ns_per_row FROM bench.report_min WHERE suite = p_suite AND name = p_name AND clock = p_clock;
$$;
CREATE FUNCTION bench.metric(p_suite text, p_name text) RETURNS float8 LANGUAGE sql STABLE AS $$
    SELECT metric FROM bench.report WHERE suite = p_suite AND name = p_name AND clock = 'wall';
$$;

-- Target lines: what was measured, the target, PASS or MISS.
CREATE TABLE bench.target (
    ord      serial,
    target   text   NOT NULL,
    measured float8,
    op       text   NOT NULL CHECK (op IN ('<=', '>=')),
    bound    float8 NOT NULL,
    unit     text   NOT NULL,
    note     text
);
CREATE FUNCTION bench.check(p_target text, p_measured float8, p_op text, p_bound float8, p_unit text,
                            p_note text DEFAULT NULL)
RETURNS void LANGUAGE sql AS $$
    INSERT INTO bench.target (target, measured, op, bound, unit, note)
    VALUES (p_target, p_measured, p_op, p_bound, p_unit, p_note);
$$;
CREATE VIEW bench.targets AS
SELECT target, round(measured::numeric, 3) AS measured,
       op || ' ' || trim_scale(round(bound::numeric, 3)) || ' ' || unit AS goal,
       CASE WHEN measured IS NULL THEN 'NO DATA'
            WHEN (op = '<=' AND measured <= bound) OR (op = '>=' AND measured >= bound) THEN 'PASS'
            ELSE 'MISS' END AS result,
       note
FROM bench.target ORDER BY ord;

-------------------------------------------------------------------------------
-- Many clients at once (bench_clients in bench/lib.sh runs pgbench; this part only stores and
-- summarises). A contender is a pgbench script whose every transaction makes `ids` IDs; its
-- throughput is transactions per second (pgbench's tps, without connection time) * ids.
-------------------------------------------------------------------------------
CREATE TABLE bench.client_contender (
    suite    text   NOT NULL,
    name     text   NOT NULL,
    ord      int    NOT NULL,
    script   text   NOT NULL,             -- a pgbench script (-f)
    ids      bigint NOT NULL CHECK (ids > 0),  -- IDs made by one transaction of the script
    ceiling  float8 CHECK (ceiling > 0),  -- IDs per second the generator's layout allows, or NULL
    PRIMARY KEY (suite, name)
);

CREATE TABLE bench.client_sample (
    suite        text   NOT NULL,
    name         text   NOT NULL,
    round        int    NOT NULL,
    clients      int    NOT NULL,
    seconds      float8 NOT NULL,
    transactions bigint NOT NULL,
    tps          float8 NOT NULL,
    latency_ms   float8,
    PRIMARY KEY (suite, name, round)
);

CREATE FUNCTION bench.client_add(p_suite text, p_name text, p_script text, p_ids bigint,
                                 p_ceiling float8 DEFAULT NULL)
RETURNS void LANGUAGE sql AS $$
    INSERT INTO bench.client_contender
    SELECT p_suite, p_name, coalesce(max(ord), 0) + 1, p_script, p_ids, p_ceiling
    FROM bench.client_contender WHERE suite = p_suite;
$$;

-- Median IDs per second over rounds; spread_pct = (max - min) / median.
CREATE VIEW bench.client_report AS
SELECT c.suite, c.name, c.ord, c.ids, c.ceiling, max(s.clients) AS clients, count(*) AS rounds,
       bench.median(array_agg(s.tps * c.ids)) AS ids_per_s,
       max(s.tps * c.ids) AS best_ids_per_s,
       100 * (max(s.tps) - min(s.tps)) / nullif(bench.median(array_agg(s.tps)), 0) AS spread_pct,
       bench.median(array_agg(s.latency_ms)) AS latency_ms
FROM bench.client_contender c JOIN bench.client_sample s USING (suite, name)
GROUP BY c.suite, c.name, c.ord, c.ids, c.ceiling;

CREATE FUNCTION bench.client_table(p_suite text, p_reference text)
RETURNS TABLE (contender text, clients int, rounds bigint, "IDs/stmt" bigint, "median IDs/s" numeric,
               "spread %" numeric, "ms/stmt" numeric, "ratio to ref" numeric, "ceiling IDs/s" numeric,
               "ratio to ceiling" numeric, "best-round IDs/s" numeric)
LANGUAGE sql AS $$
    SELECT r.name, r.clients, r.rounds, r.ids, round(r.ids_per_s::numeric), round(r.spread_pct::numeric, 0),
           round(r.latency_ms::numeric, 2),
           round((r.ids_per_s / nullif(ref.ids_per_s, 0))::numeric, 3),
           round(r.ceiling::numeric), round((r.ids_per_s / r.ceiling)::numeric, 3),
           round(r.best_ids_per_s::numeric)
    FROM bench.client_report r
    LEFT JOIN bench.client_report ref ON ref.suite = r.suite AND ref.name = p_reference
    WHERE r.suite = p_suite
    ORDER BY r.ord;
$$;

-- Median IDs per second of one contender, and its layout's ceiling; for target checks.
CREATE FUNCTION bench.ids_per_s(p_suite text, p_name text) RETURNS float8 LANGUAGE sql STABLE AS $$
    SELECT ids_per_s FROM bench.client_report WHERE suite = p_suite AND name = p_name;
$$;
CREATE FUNCTION bench.ceiling(p_suite text, p_name text) RETURNS float8 LANGUAGE sql STABLE AS $$
    SELECT ceiling FROM bench.client_contender WHERE suite = p_suite AND name = p_name;
$$;
