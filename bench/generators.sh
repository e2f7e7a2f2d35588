#!/usr/bin/env bash
# Every generator of the extension in one session, against the two built-ins users would otherwise
# reach for: gen_random_uuid() and nextval(). Net ns per ID (CPU time of the backend, minus an
# empty generate_series loop in the same round), medians over interleaved rounds, ratios to both.
# Preloaded (shared_preload_libraries = 'id_gen', node 1, launch 1), with a large run-ahead allowance so a
# burst never waits for the clock: this measures the cost of making an ID, not the layout's ceiling
# (bench/snowflake.sh measures that).
#   BENCH_ROWS=200000 bash bench/generators.sh     quicker (default 1,000,000 IDs per query)
set -euo pipefail
BENCH_ROWS=${BENCH_ROWS:-1000000}
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
N=$BENCH_ROWS

# name | expression making one ID | setup SQL: bench/generators.list (shared with bench/report.sh).
mapfile -t GENERATORS < <(grep -v -e '^#' -e '^$' "$BENCH_DIR/generators.list")

bench_start
bench_sql -c "LOAD 'id_gen'" -c "ALTER SYSTEM SET shared_preload_libraries = 'id_gen'" \
          -c "ALTER SYSTEM SET id_gen.node_id = 1" -c "ALTER SYSTEM SET id_gen.launch_id = 1" \
          -c "ALTER SYSTEM SET id_gen.max_run_ahead = '60s'" >/dev/null
as_pg "$PG_BINDIR/pg_ctl" -D "$BENCH_WORK/pg/data" -l "$BENCH_WORK/pg/server.log" -w restart >/dev/null
[ "$(bench_sql -At -c 'SHOW shared_preload_libraries')" = "id_gen" ] || { echo "not preloaded" >&2; exit 1; }

bench_sql -o /dev/null -c "SELECT bench.add('gen', 'empty loop', \$q\$SELECT count(1) FROM generate_series(1, $N)\$q\$, $N)"
for g in "${GENERATORS[@]}"; do
  IFS='|' read -r name expr setup <<<"$g"
  [ -z "$setup" ] || bench_sql -o /dev/null -c "$setup"
  bench_sql -o /dev/null -c "SELECT bench.add('gen', $(bench_quote "$name"),
      $(bench_quote "SELECT count($expr) FROM generate_series(1, $N)"), $N, 'empty loop')"
done
bench_run gen

bench_table gen 'nextval()'
echo
echo "## the same medians against gen_random_uuid()"
bench_sql -P footer=off -c "
  SELECT name AS contender, round(bench.ns('gen', name)::numeric, 1) AS net_ns_per_id,
         round((bench.ns('gen', name) / bench.ns('gen', 'gen_random_uuid()'))::numeric, 3) AS ratio_to_gen_random_uuid,
         round((bench.ns('gen', name) / bench.ns('gen', 'nextval()'))::numeric, 3) AS ratio_to_nextval
  FROM bench.contender WHERE suite = 'gen' AND name <> 'empty loop' ORDER BY ord"
