# The integration layer: libpqxx tests (build/integration_tests) against the main pair of clusters,
# and half of the suites at the same time against a second pair configured the same way.
# shellcheck shell=bash

# The layer waits on its servers (restarts, clock seconds, lock waits, other sessions) more than
# it computes, so the suites listed run on a second pair in $WORK/it2 (the version's ports P+4 and
# P+5; a test's extra servers go two and three ports above its cluster's: P+6 and P+7 there, P+2
# and P+3 for the main pair) while every other suite runs on the main pair. A suite never spans
# the two (tests of one suite may share its databases). IDGEN_INTEGRATION_SECOND="" runs them all
# in one process, as does a run with a filter (IDGEN_FILTER).
IDGEN_INTEGRATION_SECOND=${IDGEN_INTEGRATION_SECOND-GeneratorMarks:LogicalReplication:Idempotency:ShardCache:IdempotencyDdl:KsuidOracle:IdempotencySettled}

layer_integration() {
  echo "== integration (libpqxx)"
  # Oracle tests run the npm packages of scripts/npm_oracles.sh (installed by the driver) with
  # node; a failed install leaves IDGEN_NPM_DIR set all the same, so those tests fail, not skip.
  export IDGEN_NPM_DIR=${IDGEN_NPM_DIR:-$ROOT/build/npm}
  timer "integration"
  local bin="$ROOT/build/integration_tests" second="$WORK/it2" filter pid
  if [ -z "$IDGEN_INTEGRATION_SECOND" ] || [ -n "${IDGEN_FILTER:-}" ] || ! main_clusters "$second" "$((PORT + 4))"; then
    run_gtest integration "$bin"
  else
    filter=$(printf '%s' "$IDGEN_INTEGRATION_SECOND" | sed -E 's/([^:]+)/\1.*/g')
    (
      export PGHOST="$second/pg" PGPORT="$((PORT + 4))" IDGEN_WORK="$second" IDGEN_PGDATA="$second/pg/data"
      export IDGEN_NOPRELOAD_PGHOST="$second/pg2" IDGEN_NOPRELOAD_PGPORT="$((PORT + 5))" IDGEN_NOPRELOAD_PGDATA="$second/pg2/data"
      GTEST_FILTER="$filter" timeout -k 10 900 "$bin" --gtest_color=no >"$WORK/integration-2.log" 2>&1
      echo $? >"$WORK/integration-2.rc"
    ) &
    pid=$!
    GTEST_FILTER="-$filter" run_gtest integration "$bin"
    wait "$pid"
    gtest_tally integration-2 "$(cat "$WORK/integration-2.rc" 2>/dev/null || echo 1)"
    stop_cluster "$second/pg"
    stop_cluster "$second/pg2"
  fi
  check_logs integration $(main_log_dirs)
}
