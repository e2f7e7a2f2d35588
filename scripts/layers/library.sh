# The library layer: the C++ client library's own tests (build/lib_tests, and again under
# ThreadSanitizer: no server, the serverless job) and, per server, its libpqxx round trips
# (build/lib_pqxx_tests) and examples/order_retry against the main cluster.
# shellcheck shell=bash
layer_library_serverless() {
  echo "== library (the C++ client library: API, generators under ThreadSanitizer)"
  timer "library (API, ThreadSanitizer)"
  run_gtest library "$ROOT/build/lib_tests"
  TSAN_OPTIONS="halt_on_error=1" run_gtest library-tsan "$ROOT/build/lib_tests_tsan"
}
layer_library() {
  echo "== library (the C++ client library against this server: libpqxx round trips, the example)"
  timer "library"
  run_gtest library-pqxx "$ROOT/build/lib_pqxx_tests"
  if [ -n "${IDGEN_FILTER:-}" ]; then
    echo "skipped: examples/order_retry (a run with a filter)"
  else
    # examples/order_retry against this server: needs the idempotency store (idempotency_begin).
    local rc
    "$PG_BINDIR/psql" -X -q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS example_order_retry" -c "CREATE DATABASE example_order_retry" \
      && "$PG_BINDIR/psql" -X -q -d example_order_retry -c "CREATE EXTENSION id_gen" >"$WORK/example.out" 2>&1
    timeout -k 10 120 "$ROOT/build/examples/order_retry/order_retry" "dbname=example_order_retry" >>"$WORK/example.out" 2>&1
    rc=$?
    cat "$WORK/example.out"
    if [ "$rc" -eq 0 ] && grep -q '^orders with id [0-9A-Z]\{26\}: 1$' "$WORK/example.out"; then tally library-example 1 0
    else tally library-example 0 1; fi
  fi
  check_logs "reference, library" $(main_log_dirs)
}
