#!/usr/bin/env bash
# TraceId and DecimalId benchmark (issue 10, part 4): cost per ID of gen_trace_id() and
# gen_decimal_id() against nextval() and gen_random_uuid() (and gen_snowflake(), the machinery
# gen_trace_id() shares), interleaved in one session, net of an empty count(1) loop; preloaded,
# then again after a restart without shared_preload_libraries (state in locked files on 15 and
# 16, the DSM registry on 17 and later). Medians of BENCH_ROUNDS rounds, ratios to nextval().
# id_gen.max_run_ahead = 60 s, so no burst waits for the clock (a TraceId second holds 4,194,303
# IDs). Uses the harness in bench/lib.sh + bench/bench.sql (method: bench/README.md).
#   BENCH_ROWS=200000 bash bench/trace_decimal.sh     quicker run (default 5,000,000)
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
N=$BENCH_ROWS
t_start=$(date +%s)
restart() { as_pg "$PG_BINDIR/pg_ctl" -D "$BENCH_WORK/pg/data" -l "$BENCH_WORK/pg/server.log" -w restart >/dev/null; }

bench_start
bench_sql -c "LOAD 'id_gen'" -c "ALTER SYSTEM SET shared_preload_libraries = 'id_gen'" \
          -c "ALTER SYSTEM SET id_gen.node_id = 1" -c "ALTER SYSTEM SET id_gen.launch_id = 1" \
          -c "ALTER SYSTEM SET id_gen.max_run_ahead = '60s'" -o /dev/null
restart
[ "$(bench_sql -At -c 'SHOW shared_preload_libraries')" = "id_gen" ] || { echo "not preloaded" >&2; exit 1; }

add_suite() { # add_suite SUITE
  bench_sql -o /dev/null <<SQL
CREATE SEQUENCE IF NOT EXISTS bench.seq;
SELECT bench.add('$1', 'empty loop',        \$q\$SELECT count(1) FROM generate_series(1, $N)\$q\$, $N);
SELECT bench.add('$1', 'nextval()',         \$q\$SELECT count(nextval('bench.seq')) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SELECT bench.add('$1', 'gen_random_uuid()', \$q\$SELECT count(gen_random_uuid()) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SELECT bench.add('$1', 'gen_snowflake()',   \$q\$SELECT count(gen_snowflake()) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SELECT bench.add('$1', 'gen_trace_id()',    \$q\$SELECT count(gen_trace_id()) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SELECT bench.add('$1', 'gen_decimal_id()',  \$q\$SELECT count(gen_decimal_id()) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SQL
}
# The first call of each generator after a start waits for its state (a new mark): not timed.
warm() { bench_sql -o /dev/null -c "SELECT gen_trace_id(), gen_decimal_id(), gen_snowflake()"; }

warm
add_suite gen
bench_run gen
bench_table gen 'nextval()'

bench_sql -c "ALTER SYSTEM RESET shared_preload_libraries" -o /dev/null
restart
warm
echo "# without preloading: generator state in $(bench_sql -At -c 'SELECT snowflake_state_storage()')"
add_suite nopreload
bench_run nopreload
bench_table nopreload 'nextval()'

bench_sql -o /dev/null <<'SQL'
SELECT bench.check('gen_trace_id() / nextval(), preloaded, net ns per ID',
                   bench.ns('gen', 'gen_trace_id()') / bench.ns('gen', 'nextval()'), '<=', 1.0, 'x');
SELECT bench.check('gen_decimal_id() / nextval(), preloaded, net ns per ID',
                   bench.ns('gen', 'gen_decimal_id()') / bench.ns('gen', 'nextval()'), '<=', 1.0, 'x');
SELECT bench.check('gen_trace_id() / gen_random_uuid(), preloaded, net ns per ID',
                   bench.ns('gen', 'gen_trace_id()') / bench.ns('gen', 'gen_random_uuid()'), '<=', 1.0, 'x');
SELECT bench.check('gen_decimal_id() / gen_random_uuid(), preloaded, net ns per ID',
                   bench.ns('gen', 'gen_decimal_id()') / bench.ns('gen', 'gen_random_uuid()'), '<=', 1.0, 'x');
SELECT bench.check('gen_trace_id() / nextval(), without preloading, net ns per ID',
                   bench.ns('nopreload', 'gen_trace_id()') / bench.ns('nopreload', 'nextval()'), '<=', 1.0, 'x');
SELECT bench.check('gen_decimal_id() / nextval(), without preloading, net ns per ID',
                   bench.ns('nopreload', 'gen_decimal_id()') / bench.ns('nopreload', 'nextval()'), '<=', 1.0, 'x');
SQL
bench_targets
echo
echo "# total $(( $(date +%s) - t_start )) s"
