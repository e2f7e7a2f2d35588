#!/usr/bin/env bash
# snowflake benchmark (issue 4), on the shared harness (bench/lib.sh, bench/bench.sql):
#   gen    cost per ID of gen_snowflake() and a shard's next_id(), preloaded, against nextval()
#          and against the published PL/pgSQL recipe (nextval() % 1024), interleaved in one
#          session, net of an empty count(1) loop. Bursts stay inside the run-ahead allowance
#          (id_gen.max_run_ahead = 60 s here), so no call waits for the clock.
#   sustained   10 s of back-to-back IDs with the default allowance (1 s): the rate must reach
#          the layout's capacity (4,096 IDs/ms per node, 1,024 per shard). Measured as IDs per ms
#          of ID time (every sequence slot used = capacity) and as wall-clock rate.
#   nopreload   the same generators after a restart without shared_preload_libraries (state in
#          locked files): what preloading buys.
#   BENCH_ROWS=200000 bash bench/snowflake.sh      quicker (default 1,000,000 per timed query)
set -euo pipefail
BENCH_ROWS=${BENCH_ROWS:-1000000}
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
N=$BENCH_ROWS
SUSTAIN_S=${BENCH_SUSTAIN_SECONDS:-10}

bench_start

# Preload the library, node 1, a large run-ahead allowance for the cost suite.
bench_sql -c "LOAD 'id_gen'" -c "ALTER SYSTEM SET shared_preload_libraries = 'id_gen'" \
          -c "ALTER SYSTEM SET id_gen.node_id = 1" -c "ALTER SYSTEM SET id_gen.max_run_ahead = '60s'"
as_pg "$PG_BINDIR/pg_ctl" -D "$BENCH_WORK/pg/data" -l "$BENCH_WORK/pg/server.log" -w restart >/dev/null
[ "$(bench_sql -At -c 'SHOW shared_preload_libraries')" = "id_gen" ] || { echo "not preloaded" >&2; exit 1; }

bench_sql -o /dev/null <<SQL
CREATE SEQUENCE bench.seq;
SELECT create_shard(1);
-- The recipe from Instagram's engineering post ("Sharding & IDs at Instagram", 2012), as published.
CREATE SEQUENCE bench.table_id_seq;
CREATE FUNCTION bench.recipe_next_id(OUT result bigint) AS \$\$
DECLARE
    our_epoch bigint := 1314220021721;
    seq_id bigint;
    now_millis bigint;
    shard_id int := 5;
BEGIN
    SELECT nextval('bench.table_id_seq') % 1024 INTO seq_id;
    SELECT FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) INTO now_millis;
    result := (now_millis - our_epoch) << 23;
    result := result | (shard_id << 10);
    result := result | (seq_id);
END;
\$\$ LANGUAGE PLPGSQL;

SELECT bench.add('gen', 'empty loop',            \$q\$SELECT count(1) FROM generate_series(1, $N)\$q\$, $N);
SELECT bench.add('gen', 'nextval()',             \$q\$SELECT count(nextval('bench.seq')) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SELECT bench.add('gen', 'gen_snowflake()',       \$q\$SELECT count(gen_snowflake()) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SELECT bench.add('gen', 'shard_1.next_id()',     \$q\$SELECT count(shard_1.next_id()) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SELECT bench.add('gen', 'PL/pgSQL recipe',       \$q\$SELECT count(bench.recipe_next_id()) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');

CREATE TABLE bench.sustained (name text, ids bigint, wall_ms float8, span_ms float8, capacity_per_ms int);
CREATE TABLE bench.sustained_part (name text, ids bigint, lo bigint, hi bigint, t0 timestamptz, t1 timestamptz);
SQL

bench_run gen
bench_table gen 'nextval()'

# Sustained: the default 1 s allowance, then SUSTAIN_S seconds' worth of capacity on top of it,
# from BENCH_SUSTAIN_CONNS sessions at once (they share the node's / shard's capacity).
SUSTAIN_CONNS=${BENCH_SUSTAIN_CONNS:-2}
bench_sql -c "ALTER SYSTEM SET id_gen.max_run_ahead = '1s'" -c "SELECT pg_reload_conf()" -o /dev/null
sustain() { # sustain NAME CALL CAPACITY_PER_MS TIME_SHIFT
  local n=$(( $3 * (SUSTAIN_S * 1000 + 1000) / SUSTAIN_CONNS )) pids=() i
  echo "#   sustained: $1, $SUSTAIN_CONNS sessions x $n IDs" >&2
  sleep 2  # let the clock pass any run-ahead left by earlier runs
  for i in $(seq "$SUSTAIN_CONNS"); do
    # generate_series in the target list streams (in FROM it would be materialized first, inside
    # the timed span); now() is the statement's start.
    bench_sql -o /dev/null -c "INSERT INTO bench.sustained_part
      SELECT '$1', count(*), min(x), max(x), now(), clock_timestamp()
      FROM (SELECT $2::bigint AS x FROM (SELECT generate_series(1, $n)) g) s" &
    pids+=($!)
  done
  for i in "${pids[@]}"; do wait "$i"; done
  bench_sql -o /dev/null -c "INSERT INTO bench.sustained SELECT '$1', sum(ids),
      extract(epoch FROM max(t1) - min(t0)) * 1000, (max(hi) >> $4) - (min(lo) >> $4) + 1, $3
      FROM bench.sustained_part WHERE name = '$1'"
}
sustain 'gen_snowflake() (twitter, 4096/ms)' 'gen_snowflake()' 4096 22
sustain 'shard_1.next_id() (1024/ms)' 'shard_1.next_id()' 1024 23
echo
echo "## sustained ($SUSTAIN_CONNS sessions, ${SUSTAIN_S} s of capacity after a 1 s allowance): IDs per ms of ID time, and wall-clock rate"
bench_sql -P footer=off -c "SELECT name, ids, round(wall_ms) AS wall_ms, span_ms AS id_time_span_ms,
  round((ids / span_ms)::numeric, 1) AS ids_per_id_ms, capacity_per_ms,
  round((ids / wall_ms)::numeric, 1) AS wall_ids_per_ms FROM bench.sustained"

# Without preloading: the same cluster restarted without shared_preload_libraries.
bench_sql -c "ALTER SYSTEM RESET shared_preload_libraries" -c "ALTER SYSTEM SET id_gen.max_run_ahead = '60s'" -o /dev/null
as_pg "$PG_BINDIR/pg_ctl" -D "$BENCH_WORK/pg/data" -l "$BENCH_WORK/pg/server.log" -w restart >/dev/null
M=$(( N / 5 ))
bench_sql -o /dev/null <<SQL
SELECT bench.add('nopreload', 'empty loop',        \$q\$SELECT count(1) FROM generate_series(1, $M)\$q\$, $M);
SELECT bench.add('nopreload', 'nextval()',         \$q\$SELECT count(nextval('bench.seq')) FROM generate_series(1, $M)\$q\$, $M, 'empty loop');
SELECT bench.add('nopreload', 'gen_snowflake()',   \$q\$SELECT count(gen_snowflake()) FROM generate_series(1, $M)\$q\$, $M, 'empty loop');
SELECT bench.add('nopreload', 'shard_1.next_id()', \$q\$SELECT count(shard_1.next_id()) FROM generate_series(1, $M)\$q\$, $M, 'empty loop');
SELECT bench.add('nopreload', 'PL/pgSQL recipe',   \$q\$SELECT count(bench.recipe_next_id()) FROM generate_series(1, $M)\$q\$, $M, 'empty loop');
SQL
bench_run nopreload
bench_table nopreload 'nextval()'

bench_sql -o /dev/null <<SQL
SELECT bench.check('gen_snowflake() / nextval(), preloaded', bench.ns('gen', 'gen_snowflake()') / bench.ns('gen', 'nextval()'), '<=', 1, 'x');
SELECT bench.check('next_id() / nextval(), preloaded', bench.ns('gen', 'shard_1.next_id()') / bench.ns('gen', 'nextval()'), '<=', 1, 'x');
SELECT bench.check('recipe / gen_snowflake(), preloaded', bench.ns('gen', 'PL/pgSQL recipe') / bench.ns('gen', 'gen_snowflake()'), '>=', 5, 'x');
SELECT bench.check('recipe / next_id(), preloaded', bench.ns('gen', 'PL/pgSQL recipe') / bench.ns('gen', 'shard_1.next_id()'), '>=', 5, 'x');
SELECT bench.check('sustained ' || name, ids / span_ms / capacity_per_ms, '>=', 0.99,
                   'of capacity (IDs per ms of ID time / capacity; first and last ms are partial)',
                   round((ids / span_ms)::numeric, 1) || ' IDs/ms of ID time, wall ' || round((ids / wall_ms)::numeric) || ' IDs/ms')
FROM bench.sustained;
SELECT bench.check('recipe / next_id(), not preloaded', bench.ns('nopreload', 'PL/pgSQL recipe') / bench.ns('nopreload', 'shard_1.next_id()'), '>=', 1, 'x', 'informational: locked-file state');
SQL
bench_targets
