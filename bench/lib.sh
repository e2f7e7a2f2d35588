# id_gen benchmarks: the generic shell part. Source it from bench/<kind>.sh; see bench/README.md.
#
#   bench_start                 build + install the extension, start a throwaway cluster, create the
#                               database "bench" with id_gen and the harness (bench/bench.sql)
#   bench_sql  [psql args...]   psql on that database, ON_ERROR_STOP, quiet
#   bench_run  SUITE            interleaved rounds of a suite's contenders (BENCH_ROUNDS)
#   bench_table SUITE REF [CLOCK]  print the suite: median net ns/row, ratio to contender REF, on
#                               CLOCK = cpu (default: the backend's on-CPU time) or wall
#   bench_targets               print the PASS/MISS lines recorded with bench.check(...)
#
# Environment: PG_CONFIG, BENCH_ROWS (default 5000000), BENCH_ROUNDS (default 5),
# BENCH_PORT (default IDGEN_TEST_PORT + 50), BENCH_SHARED_BUFFERS (default 1GB),
# BENCH_WORK_MEM (default 1GB), BENCH_NO_BUILD=1 to skip the build, KEEP_WORK=1 to keep the cluster.
# shellcheck shell=bash
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../scripts/lib.sh
source "$BENCH_DIR/../scripts/lib.sh"

BENCH_ROWS=${BENCH_ROWS:-5000000}
BENCH_ROUNDS=${BENCH_ROUNDS:-5}
BENCH_BATCH=${BENCH_BATCH:-100000}          # rows per INSERT in insert suites
BENCH_INSERT_ROUNDS=${BENCH_INSERT_ROUNDS:-3}  # rounds of the (slow) insert suites
BENCH_PORT=${BENCH_PORT:-$(( ${IDGEN_TEST_PORT:-54329} + 50 ))}
BENCH_SHARED_BUFFERS=${BENCH_SHARED_BUFFERS:-1GB}
BENCH_WORK_MEM=${BENCH_WORK_MEM:-1GB}

bench_sql() {
  PGOPTIONS="-c work_mem=$BENCH_WORK_MEM -c max_parallel_workers_per_gather=0 -c jit=off" \
    "$PG_BINDIR/psql" -X -q -v ON_ERROR_STOP=1 -d bench "$@"
}

bench_start() {
  [ -n "${BENCH_NO_BUILD:-}" ] || build_extension || return 1
  BENCH_WORK=$(mktemp -d /tmp/id_gen_bench.XXXXXX)
  chmod 755 "$BENCH_WORK"
  trap bench_stop EXIT
  # Later lines win over start_cluster's defaults. Parallel query and JIT are off so every number
  # is one backend's CPU; autovacuum is off so nothing runs behind a timed query's back.
  start_cluster "$BENCH_WORK/pg" "$BENCH_PORT" \
    "shared_buffers = $BENCH_SHARED_BUFFERS" \
    "max_wal_size = 16GB" "checkpoint_timeout = 1h" "autovacuum = off" \
    "max_parallel_workers_per_gather = 0" "jit = off" "synchronous_commit = off" || return 1
  export PGHOST="$BENCH_WORK/pg" PGPORT="$BENCH_PORT" PGUSER=postgres
  "$PG_BINDIR/psql" -X -q -v ON_ERROR_STOP=1 -d postgres -c "CREATE DATABASE bench" || return 1
  bench_sql -c "CREATE EXTENSION id_gen" -f "$BENCH_DIR/bench.sql" || return 1
  echo "# cluster: PostgreSQL $("$PG_BINDIR/postgres" --version | awk '{print $3}'), $(nproc) cores," \
       "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), rows=$BENCH_ROWS rounds=$BENCH_ROUNDS"
}

bench_stop() {
  [ -n "${BENCH_WORK:-}" ] || return 0
  stop_cluster "$BENCH_WORK/pg"
  [ -n "${KEEP_WORK:-}" ] || rm -rf "$BENCH_WORK"
}

# bench_run SUITE: progress (one line per timed run) goes to stderr.
bench_run() {
  bench_sql -c "CALL bench.run('$1', $BENCH_ROUNDS)" 2>&1 | sed -n 's/^NOTICE:  /#   /p' >&2
  return "${PIPESTATUS[0]}"
}

bench_table() {
  local clock=${3:-cpu}
  echo
  echo "## $1 [$clock time] net ns/row = median over rounds of (contender - baseline in the same round) / rows; ratio to $2"
  bench_sql -P footer=off -c "SELECT * FROM bench.table('$1', '$2', '$clock')"
}

bench_targets() {
  echo
  echo "## targets"
  bench_sql -P footer=off -c "SELECT * FROM bench.targets"
}
