# id_gen benchmarks: the generic shell part. Source it from bench/<kind>.sh; see bench/README.md.
#
#   bench_start                 build + install the extension, start a throwaway cluster, create the
#                               database "bench" with id_gen and the harness (bench/bench.sql)
#   bench_sql  [psql args...]   psql on that database, ON_ERROR_STOP, quiet
#   bench_run  SUITE            interleaved rounds of a suite's contenders (BENCH_ROUNDS)
#   bench_table SUITE REF [CLOCK]  print the suite: median net ns/row, ratio to contender REF, on
#                               CLOCK = cpu (default: the backend's on-CPU time) or wall
#   bench_targets               print the PASS/MISS lines recorded with bench.check(...)
#   bench_clients SUITE         interleaved rounds of a many-clients suite (bench.client_add): pgbench
#                               with BENCH_CLIENTS clients for BENCH_CLIENT_SECONDS per contender
#   bench_client_table SUITE REF [NOTE]   print it: median IDs/s, ratio to contender REF and to
#                               the ceiling, NOTE printed under the heading
#
# Environment: PG_CONFIG, BENCH_ROWS (default 5000000), BENCH_ROUNDS (default 5),
# BENCH_PORT (default IDGEN_TEST_PORT + 100), BENCH_SHARED_BUFFERS (default 1GB),
# BENCH_WORK_MEM (default 1GB), BENCH_FSYNC (default off), BENCH_CLIENTS (default 8),
# BENCH_CLIENT_JOBS (pgbench threads, default 2), BENCH_CLIENT_SECONDS (default 10),
# BENCH_CLIENT_REST (seconds of idle before each client run, default 0),
# BENCH_NO_BUILD=1 to skip the build, KEEP_WORK=1 to keep the cluster.
# shellcheck shell=bash
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../scripts/lib.sh
source "$BENCH_DIR/../scripts/lib.sh"

BENCH_ROWS=${BENCH_ROWS:-5000000}
BENCH_ROUNDS=${BENCH_ROUNDS:-5}
BENCH_BATCH=${BENCH_BATCH:-100000}          # rows per INSERT in insert suites
BENCH_INSERT_ROUNDS=${BENCH_INSERT_ROUNDS:-3}  # rounds of the (slow) insert suites
BENCH_PORT=${BENCH_PORT:-$(( ${IDGEN_TEST_PORT:-54329} + 100 ))}
BENCH_SHARED_BUFFERS=${BENCH_SHARED_BUFFERS:-1GB}
BENCH_WORK_MEM=${BENCH_WORK_MEM:-1GB}
BENCH_FSYNC=${BENCH_FSYNC:-off}
BENCH_CLIENTS=${BENCH_CLIENTS:-8}
BENCH_CLIENT_JOBS=${BENCH_CLIENT_JOBS:-2}
BENCH_CLIENT_SECONDS=${BENCH_CLIENT_SECONDS:-10}
BENCH_CLIENT_REST=${BENCH_CLIENT_REST:-0}

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
    "shared_buffers = $BENCH_SHARED_BUFFERS" "fsync = $BENCH_FSYNC" \
    "max_wal_size = 16GB" "checkpoint_timeout = 1h" "autovacuum = off" \
    "max_parallel_workers_per_gather = 0" "jit = off" "synchronous_commit = off" || return 1
  export PGHOST="$BENCH_WORK/pg" PGPORT="$BENCH_PORT" PGUSER=postgres
  "$PG_BINDIR/psql" -X -q -v ON_ERROR_STOP=1 -d postgres -c "CREATE DATABASE bench" || return 1
  bench_sql -c "CREATE EXTENSION id_gen" -f "$BENCH_DIR/bench.sql" || return 1
  echo "# cluster: PostgreSQL $("$PG_BINDIR/postgres" --version | awk '{print $3}'), $(nproc) cores," \
       "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), rows=$BENCH_ROWS rounds=$BENCH_ROUNDS" \
       "fsync=$BENCH_FSYNC"
}

bench_stop() {
  [ -n "${BENCH_WORK:-}" ] || return 0
  stop_cluster "$BENCH_WORK/pg"
  [ -n "${KEEP_WORK:-}" ] || rm -rf "$BENCH_WORK"
}

# bench_run SUITE: progress (one line per timed run) goes to stderr.
bench_run() {
  bench_sql -c "CALL bench.run('$1', $BENCH_ROUNDS)" 2>&1 | sed -n -e 's/^NOTICE:  /#   /p' -e '/ERROR:/p' >&2
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

# A string as a SQL literal.
bench_quote() { printf "'%s'" "${1//\'/\'\'}"; }

# bench_clients SUITE: for each round (BENCH_ROUNDS), every contender of the suite in turn (forward
# order in odd rounds, reverse in even rounds), each one pgbench run of BENCH_CLIENT_SECONDS with
# BENCH_CLIENTS clients on BENCH_CLIENT_JOBS threads, simple query protocol (so a script can build
# a name from a variable, e.g. shard_:s.next_id()), after BENCH_CLIENT_REST seconds of idle (so
# every run starts from the same state, e.g. a generator's run-ahead allowance back in full). A
# run with a failed or aborted client stops the benchmark. Progress goes to stderr.
bench_clients() {
  local suite=$1 names=() n r k i name where ids out tps xacts lat
  local script="$BENCH_WORK/client_script.sql"
  mapfile -t names < <(bench_sql -At -c "SELECT name FROM bench.client_contender
                                         WHERE suite = $(bench_quote "$suite") ORDER BY ord")
  n=${#names[@]}
  [ "$n" -gt 0 ] || { echo "bench_clients: suite $suite has no contenders" >&2; return 1; }
  bench_sql -c "DELETE FROM bench.client_sample WHERE suite = $(bench_quote "$suite")"
  for r in $(seq "$BENCH_ROUNDS"); do
    for k in $(seq "$n"); do
      if [ $((r % 2)) -eq 1 ]; then i=$k; else i=$((n + 1 - k)); fi
      name=${names[i-1]}
      where="suite = $(bench_quote "$suite") AND name = $(bench_quote "$name")"
      bench_sql -At -c "SELECT script FROM bench.client_contender WHERE $where" >"$script"
      ids=$(bench_sql -At -c "SELECT ids FROM bench.client_contender WHERE $where")
      sleep "$BENCH_CLIENT_REST"
      if ! out=$("$PG_BINDIR/pgbench" -n -M simple -c "$BENCH_CLIENTS" -j "$BENCH_CLIENT_JOBS" \
                   -T "$BENCH_CLIENT_SECONDS" -f "$script" bench 2>&1); then
        echo "bench_clients: pgbench failed for $suite / $name:" >&2; echo "$out" >&2; return 1
      fi
      tps=$(sed -n 's/^tps = \([0-9.]*\) (without initial connection time)$/\1/p' <<<"$out")
      xacts=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' <<<"$out")
      lat=$(sed -n 's/^latency average = \([0-9.]*\) ms$/\1/p' <<<"$out")
      if [ -z "$tps" ] || [ -z "$xacts" ] || grep -q '^number of failed transactions: [1-9]' <<<"$out"; then
        echo "bench_clients: unexpected pgbench output for $suite / $name:" >&2; echo "$out" >&2; return 1
      fi
      bench_sql -c "INSERT INTO bench.client_sample VALUES ($(bench_quote "$suite"), $(bench_quote "$name"),
                      $r, $BENCH_CLIENTS, $BENCH_CLIENT_SECONDS, $xacts, $tps, ${lat:-NULL})"
      awk -v s="$suite" -v r="$r" -v rs="$BENCH_ROUNDS" -v n="$name" -v t="$tps" -v i="$ids" -v x="$xacts" \
        'BEGIN { printf "#   %s round %d/%d: %-28s %12.0f IDs/s (%d statements)\n", s, r, rs, n, t * i, x }' >&2
    done
  done
}

bench_client_table() {
  echo
  echo "## $1 [$BENCH_CLIENTS clients, ${BENCH_CLIENT_SECONDS} s per run] median IDs/s over rounds (pgbench tps x IDs per statement); ratio to $2 and to the layout's ceiling"
  [ -z "${3:-}" ] || echo "$3"
  bench_sql -P footer=off -c "SELECT * FROM bench.client_table($(bench_quote "$1"), $(bench_quote "$2"))"
}
