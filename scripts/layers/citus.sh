# The Citus layer (PostgreSQL 18 only): Citus, built by scripts/citus.sh into its own copy of the
# 18 server, with a coordinator and two workers on loopback plus a fourth server that a test adds
# as a node (build/citus_tests), on the version's ports P+11 to P+14. It installs this job's build
# into the Citus server and runs beside the other layers of the job (citus_start after the build,
# citus_finish at the end); its clusters, server and ports are its own.
# shellcheck shell=bash
CITUS_PID=""
citus_layer() {
  local pgc rc i port ports=()
  if [ -n "${IDGEN_CITUS_PG_CONFIG:-}" ]; then
    pgc=$IDGEN_CITUS_PG_CONFIG
    rc=0
  else
    pgc=$("$ROOT/scripts/citus.sh")
    rc=$?
  fi
  if [ "$rc" -eq 3 ]; then
    echo "== Citus: skipped (no Citus source)"
    return
  fi
  [ "$rc" -eq 0 ] || { tally Citus 0 1; return; }
  # The same build, installed into the Citus server's copy (same major and headers).
  as_root make -C "$EXT_DIR" -s install PG_CONFIG="$pgc" >/dev/null || { tally Citus 0 1; return; }
  PG_BINDIR=$("$pgc" --bindir)
  echo "$PG_BINDIR" >"$WORK/citus.bindir"
  # The four servers are made and started at once (initdb dominates).
  local pids=() start_failed=0
  for i in 0 1 2 3; do
    port=$((PORT + 11 + i))
    ports+=("$port")
    start_cluster "$WORK/citus$i" "$port" "listen_addresses = '127.0.0.1'" "shared_buffers = 64MB" \
      "max_connections = 100" "shared_preload_libraries = 'citus,id_gen'" "id_gen.node_id = $((100 + i))" "id_gen.enable_test_clock = on" \
      "citus.node_conninfo = 'sslmode=disable'" "citus.enable_statistics_collection = off" \
      "wal_level = logical" "output_plugin_libraries = 'pgoutput, citus'" "max_replication_slots = 20" "max_wal_senders = 20" "max_worker_processes = 32" \
      >"$WORK/citus$i.start.log" 2>&1 &
    pids+=($!)
  done
  for i in 0 1 2 3; do wait "${pids[$i]}" || start_failed=1; done
  if [ "$start_failed" = 1 ]; then
    cat "$WORK"/citus?.start.log
    for i in 0 1 2 3; do stop_cluster "$WORK/citus$i"; done
    tally Citus 0 1
    return
  fi
  IDGEN_CITUS_HOST=127.0.0.1 IDGEN_CITUS_PORTS="${ports[*]}" run_gtest Citus "$ROOT/build/citus_tests" 900
  # The cluster's counts (rows, distinct IDs per table and per issuing node) and Citus's own hiccups.
  grep -E '^\[ (count|note) \]' "$WORK/Citus.log"
  for i in 0 1 2 3; do stop_cluster "$WORK/citus$i"; done
  check_logs Citus "$WORK"/citus?
}
citus_start() {
  (
    passed=0 failed=0 skipped=0
    t0=$(date +%s)
    citus_layer
    echo "$passed $failed $skipped $(($(date +%s) - t0))" >"$WORK/citus.counts"
  ) >"$WORK/citus.out" 2>&1 &
  CITUS_PID=$!
}
citus_finish() {
  local p f s t
  echo "== Citus (coordinator + 2 workers on loopback, PostgreSQL 18; run beside the layers above)"
  timer "Citus (after the layers above)"
  wait "$CITUS_PID"
  cat "$WORK/citus.out"
  if read -r p f s t <"$WORK/citus.counts" 2>/dev/null; then
    passed=$((passed + p))
    failed=$((failed + f))
    skipped=$((skipped + s))
    phase_line "Citus (beside the layers above)" "$t"
  else
    tally Citus 0 1
  fi
}
