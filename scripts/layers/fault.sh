# The fault layer: fault injection (build/fault_tests: slow and failing fsync/write, damaged state
# files, crashes, failover). It runs beside the other layers of its job: most of its time is spent
# waiting (servers started, stopped, crashed and promoted, slow fsync), and its clusters are its
# own (copies of one template under $WORK/fault, on the version's ports P+8 and P+9), with
# test/fault's shim preloaded into each postmaster. Bounded: 7 minutes. Its tests that install
# another build of the extension into the server (UpgradeWindow: 0.1.0, then this build again)
# run afterwards, on their own (fault_finish), since every other layer loads the installed library.
# shellcheck shell=bash
FAULT_PID=""
fault_start() {
  local filter
  filter=$(gtest_filter_without "${IDGEN_FILTER:-*}" "UpgradeWindow.*")
  mkdir -p "$WORK/fault"
  (
    IDGEN_FAULT_WORK="$WORK/fault" IDGEN_FAULT_PORT="$((PORT + 8))" IDGEN_FAULT_KEEP="${KEEP_WORK:-}" PG_CONFIG="$PG_CONFIG" \
      IDGEN_SERVER_LOGS="$WORK/fault/server-logs" GTEST_FILTER="$filter" timeout -k 10 420 "$ROOT/build/fault_tests" --gtest_color=no >"$WORK/fault.log" 2>&1
    echo $? >"$WORK/fault.rc"
  ) &
  FAULT_PID=$!
}
fault_finish() {
  echo "== fault (fault injection: slow and failing fsync/write, damaged state files, crashes, failover; run beside the layers above)"
  timer "fault (after the layers above)"
  wait "$FAULT_PID"
  gtest_tally fault "$(cat "$WORK/fault.rc" 2>/dev/null || echo 1)"
  check_logs fault "$WORK/fault"
  local upgrade="UpgradeWindow.*"
  [ -z "${IDGEN_FILTER:-}" ] || upgrade=$(gtest_matching "$ROOT/build/fault_tests" "$IDGEN_FILTER" 'UpgradeWindow.*')
  [ -n "$upgrade" ] || return 0
  mkdir -p "$WORK/fault-upgrade"
  IDGEN_FAULT_WORK="$WORK/fault-upgrade" IDGEN_FAULT_PORT="$((PORT + 2))" IDGEN_FAULT_KEEP="${KEEP_WORK:-}" PG_CONFIG="$PG_CONFIG" \
    IDGEN_SERVER_LOGS="$WORK/fault-upgrade/server-logs" GTEST_FILTER="$upgrade" run_gtest fault-upgrade "$ROOT/build/fault_tests" 300
  check_logs fault-upgrade "$WORK/fault-upgrade"
}
