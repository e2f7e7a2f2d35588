# What every layer of a job uses (sourced by scripts/layers/job.sh): counts, GoogleTest and
# pg_regress runs, per-test times, the server log check, phase times.
# shellcheck shell=bash

passed=0
failed=0
skipped=0
tally() { # tally LAYER PASSED FAILED [SKIPPED]
  echo "== $1: $2 passed, $3 failed${4:+, $4 skipped}"
  passed=$((passed + $2))
  failed=$((failed + $3))
  skipped=$((skipped + ${4:-0}))
}

# Phase times, printed at the job's end: "timer NAME" ends the phase running and starts NAME.
phase_name=""
phase_start=$(date +%s)
phase_lines=()
job_start=$phase_start
timer() {
  local now
  now=$(date +%s)
  [ -z "$phase_name" ] || phase_lines+=("$(printf '%-44s %4dm%02ds' "$phase_name" $(((now - phase_start) / 60)) $(((now - phase_start) % 60)))")
  phase_name=$1
  phase_start=$now
}
print_times() { # print_times TITLE
  timer ""
  local t=$(($(date +%s) - job_start))
  echo "== $1: $((t / 60))m$(printf '%02d' $((t % 60)))s"
  printf '   %s\n' "${phase_lines[@]}"
}

# Per-test times: one line per test, "MILLISECONDS<TAB>LAYER<TAB>JOB<TAB>TEST", appended to
# $IDGEN_TIMES (the driver prints each layer's slowest at the end of the run).
record_gtest_times() { # record_gtest_times LAYER LOG
  [ -n "${IDGEN_TIMES:-}" ] || return 0
  sed -nE 's/^\[ +(OK|FAILED) +\] ([^ ]+) \(([0-9]+) ms\)$/\3\t\2/p' "$2" |
    awk -F '\t' -v layer="$1" -v job="${IDGEN_JOB_NAME:-}" '{ print $1 "\t" layer "\t" job "\t" $2 }' >>"$IDGEN_TIMES"
}
record_regress_times() { # record_regress_times LAYER LOG: pg_regress's "ok 1 - name  12 ms" (16+) and "test name ... ok  12 ms" (15)
  [ -n "${IDGEN_TIMES:-}" ] || return 0
  sed -nE -e 's/^(not )?ok +[0-9]+ +[-+] +([^ ]+) +([0-9]+) ms$/\3\t\2/p' \
    -e 's/^test +([^ ]+) +\.\.\. +(ok|FAILED) +([0-9]+) ms$/\3\t\1/p' "$2" |
    awk -F '\t' -v layer="$1" -v job="${IDGEN_JOB_NAME:-}" '{ print $1 "\t" layer "\t" job "\t" $2 }' >>"$IDGEN_TIMES"
}

# gtest binaries: one count per test case; a crash counts as a failure. The run's filter
# (IDGEN_FILTER) applies unless the caller set GTEST_FILTER itself.
run_gtest() { # run_gtest LAYER BINARY [TIMEOUT]
  # Bounded, so a deadlocked test fails the run instead of stalling CI.
  GTEST_FILTER=${GTEST_FILTER:-${IDGEN_FILTER:-*}} timeout -k 10 "${3:-900}" "$2" --gtest_color=no >"$WORK/$1.log" 2>&1
  gtest_tally "$1" $?
}
gtest_tally() { # gtest_tally LAYER STATUS: counts $WORK/LAYER.log, a gtest run that ended with STATUS
  local log="$WORK/$1.log" rc=$2 p f s
  p=$(grep -cE '^\[       OK \]' "$log")
  f=$(grep -cE '^\[  FAILED  \] .*\([0-9]+ ms\)$' "$log")
  s=$(grep -cE '^\[  SKIPPED \] .*\([0-9]+ ms\)$' "$log")
  grep -E '^\[  FAILED  \]|: Failure$|error:' "$log" | head -40
  # A skipped test says why on the line after "Skipped" (the README layer: which fence tag).
  [ "$s" -eq 0 ] || grep -A1 -E ': Skipped$' "$log" | grep -vE ': Skipped$|^--$' | sed 's/^/skipped: /'
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    tail -20 "$log"
    echo "$1: the run ended with status $rc$([ "$rc" -ne 124 ] || echo " (its time limit)") in $(grep -E '^\[ RUN +\]' "$log" | tail -1 | sed -E 's/^\[ RUN +\] //')"
    f=1
  fi
  record_gtest_times "${1%%-*}" "$log"
  tally "$1" "$p" "$f" "$([ "$s" -eq 0 ] || echo "$s")"
}

# gtest_filter_without FILTER NEGATIVE: FILTER with the tests NEGATIVE matches taken out.
gtest_filter_without() {
  case $1 in
    *-*) echo "$1:$2" ;;
    *) echo "${1:-*}-$2" ;;
  esac
}
# gtest_matching BINARY FILTER PATTERN: the tests of BINARY that FILTER selects and whose full
# name matches the shell glob PATTERN, joined by ':' (a filter of exact names; empty: none).
gtest_matching() {
  "$1" --gtest_list_tests --gtest_filter="${2:-*}" 2>/dev/null | awk '
    /^[^ ]/ { suite = $1; next }
    /^  [^ ]/ { print suite $1 }' | while read -r t; do
    # shellcheck disable=SC2053
    [[ $t == $3 ]] && echo "$t"
  done | paste -sd: -
}

# The server logs a layer's clusters wrote, checked when it ends (lib.sh, scan_server_logs):
# assertion failures (the 17 of scripts/pg_versions.sh has assertions on), crashes, and the
# WARNINGs of leaked relcache references, buffer pins, snapshots, locks and the like. One count
# per log.
check_logs() { # check_logs LAYER DIR...
  scan_server_logs "${@:2}"
  tally "server logs ($1)" "$scan_passed" "$scan_failed"
}

phase_line() { # phase_line NAME SECONDS: a phase that ran beside the others
  phase_lines+=("$(printf '%-44s %4dm%02ds' "$1" $(($2 / 60)) $(($2 % 60)))")
}

# wait_for_tests: waits for the driver's build of the tests (build/, build-fuzz/), which runs
# beside the jobs; its status is written to $IDGEN_BUILD_RC when it ends. False when it failed
# (the driver prints why), and the job counts one failure for the layers that needed it.
wait_for_tests() {
  [ -n "${IDGEN_BUILD_RC:-}" ] || return 0
  local t0
  t0=$(date +%s)
  while [ ! -s "$IDGEN_BUILD_RC" ]; do sleep 1; done
  [ "$(($(date +%s) - t0))" -lt 2 ] || echo "(waited $(($(date +%s) - t0)) s for the build of the tests)"
  [ "$(cat "$IDGEN_BUILD_RC")" = 0 ] && return 0
  tally "build of the tests" 0 1
  IDGEN_BUILD_RC=""  # counted once
  return 1
}
