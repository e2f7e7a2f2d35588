#!/usr/bin/env bash
# Runs every test layer of id_gen against its own throwaway PostgreSQL cluster and ends with the
# line "N passed, N failed". Exit status 0 only when nothing failed.
#   FUZZ_SECONDS     seconds per fuzz target (default 8; run longer by hand)
#   IDGEN_TEST_PORT  the first port of the test clusters (default 54329); they use it and the
#                    next nine (the integration layer's second pair base+4 to base+7, the Citus
#                    layer the same four afterwards, the fault layer base+8 and base+9 beside the
#                    integration layer), and the cross-version layer base+20 to base+25
#   IDGEN_CITUS_PG_CONFIG  the Citus layer's server (default: scripts/citus.sh's); the layer
#                    installs the build there
#   IDGEN_SERVERLESS_LAYERS  1 (default) also runs the layers that use no server (unit tests, the
#                    C++ library's own tests, fuzzing); the run over several versions sets it for
#                    the first version only, since their code does not depend on the server
# Every server log the layers' clusters write is checked when the layer ends ("server logs"
# lines): assertion failures (PostgreSQL 17 is built with --enable-cassert), crashes, and the
# WARNINGs of leaked relcache references, buffer pins, snapshots, locks and the like.
#   --long           also runs the slow checks (IDGEN_TEST_LONG=1 does the same): pg_regress a
#                    second time with debug_discard_caches = 1 on a server with assertions (every
#                    cache entry thrown away at each chance: a pointer kept into the catalog
#                    caches or the relcache past an invalidation fails there); hours more
set -uo pipefail
for arg in "$@"; do
  case $arg in
    --long) export IDGEN_TEST_LONG=1 ;;
    *) echo "usage: $0 [--long]" >&2; exit 2 ;;
  esac
done
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
FUZZ_SECONDS=${FUZZ_SECONDS:-8}

# IDGEN_PG_VERSIONS (default "15 17 18"): every layer once per PostgreSQL major version, each
# against its own server (scripts/pg_versions.sh builds the ones Debian 12 does not package, once,
# into a cache outside the repository), a line per version, then the sum. Set to one version for a
# quicker run; set to "" for one run against $PG_CONFIG (without the package layer).
IDGEN_PG_VERSIONS=${IDGEN_PG_VERSIONS-15 17 18}

# Phase times, printed before the final line: "timer NAME" ends the phase running and starts NAME.
phase_name=""
phase_start=$(date +%s)
phase_lines=()
timer() {
  local now
  now=$(date +%s)
  [ -z "$phase_name" ] || phase_lines+=("$(printf '%-40s %4dm%02ds' "$phase_name" $(((now - phase_start) / 60)) $(((now - phase_start) % 60)))")
  phase_name=$1
  phase_start=$now
}
run_start=$(date +%s)
print_times() { # print_times TITLE
  timer ""
  local t=$(($(date +%s) - run_start))
  echo "== $1: $((t / 60))m$(printf '%02d' $((t % 60)))s"
  printf '   %s\n' "${phase_lines[@]}"
}

if [ -n "$IDGEN_PG_VERSIONS" ]; then
  timer "dependencies (scripts/deps.sh)"
  "$ROOT/scripts/deps.sh" || exit 1
  # The servers Debian does not package (scripts/pg_versions.sh) and Citus (scripts/citus.sh) are
  # built in the background from the start, at a lower priority, while the first versions' layers
  # run: most of a layer's time is spent waiting on its server, not on the CPU. A version's run
  # asks pg_versions.sh for its server, which waits for that build (a lock per version) when it is
  # still going and returns at once when it is cached; on a warm machine the background job ends
  # within a second. Its output is printed when the run ends.
  builds=()
  for v in $IDGEN_PG_VERSIONS; do
    [ -x "/usr/lib/postgresql/$v/bin/postgres" ] || builds+=("$v")
  done
  provide_log=$(mktemp)
  if [ ${#builds[@]} -gt 0 ]; then
    (
      t0=$(date +%s)
      nice -n 10 "$ROOT/scripts/pg_versions.sh" "${builds[@]}" >/dev/null || exit 1
      echo "servers ${builds[*]} provided in $(($(date +%s) - t0))s"
      if [[ " ${builds[*]} " == *" 18 "* ]]; then
        t0=$(date +%s)
        nice -n 10 "$ROOT/scripts/citus.sh" >/dev/null
        rc=$?
        [ "$rc" -ne 0 ] || echo "Citus provided in $(($(date +%s) - t0))s"
      fi
    ) >"$provide_log" 2>&1 &
    provide_pid=$!
  fi
  # ---- The release archive (scripts/release.sh --worktree), made once: every version's run
  # builds, installs and regress-tests the extension from its files (see below).
  IDGEN_DIST_ZIP=$("$ROOT/scripts/release.sh" --worktree --out "$ROOT/build-dist") || exit 1
  export IDGEN_DIST_ZIP
  # The package layer, once, before the versions: META.json, LICENSE, CHANGELOG.md, and the
  # README's demo, run on $PG_CONFIG's server (Debian's 15 by default) on the first test port.
  echo "==== package"
  timer "package layer"
  log=$(mktemp)
  [ -x "$PG_CONFIG" ] || PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config
  PG_CONFIG=$PG_CONFIG IDGEN_DEMO_PORT=${IDGEN_TEST_PORT:-54329} "$ROOT/test/package/run.sh" 2>&1 | tee "$log"
  result=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -1)
  rm -f "$log"
  result=${result:-0 passed, 1 failed}
  lines=("== package: $result")
  read -r total_p _ total_f _ <<<"$result"
  total_s=0
  declare -A pg_config_of
  # The layers that use no server (unit, library, fuzz) run with the first version only.
  serverless=1
  for v in $IDGEN_PG_VERSIONS; do
    echo "==== PostgreSQL $v"
    result="0 passed, 1 failed"
    s=""
    if [ "$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')" = "$v" ]; then
      pgc=$PG_CONFIG
    else
      timer "PostgreSQL $v: waiting for its build"
      pgc=$("$ROOT/scripts/pg_versions.sh" --pg-config "$v") || pgc=""
    fi
    timer "PostgreSQL $v: every layer"
    if [ -n "$pgc" ]; then
      pg_config_of[$v]=$pgc
      log=$(mktemp)
      IDGEN_SERVERLESS_LAYERS=$serverless IDGEN_PG_VERSIONS="" PG_CONFIG=$pgc "$ROOT/scripts/test.sh" 2>&1 | tee "$log"
      serverless=0
      last=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -1)
      [ -n "$last" ] && result=$last
      s=$(grep -E '^[0-9]+ skipped$' "$log" | tail -1)
      s=${s%% *}
      rm -f "$log"
    else
      echo "PostgreSQL $v is not available"
    fi
    lines+=("== PostgreSQL $v: $result${s:+ ($s skipped)}")
    read -r p _ f _ <<<"$result"
    total_p=$((total_p + p))
    total_f=$((total_f + f))
    total_s=$((total_s + ${s:-0}))
  done
  # Cross-version layer (scripts/crossver.sh): a dump of 15 restored on each newer server, and
  # pg_upgrade from 15 to each, once every server has this build installed by its run above.
  cross=()
  for v in $IDGEN_PG_VERSIONS; do
    if [ "$v" -gt 15 ] && [ -n "${pg_config_of[$v]:-}" ]; then cross+=("$v=${pg_config_of[$v]}"); fi
  done
  if [ -n "${pg_config_of[15]:-}" ] && [ ${#cross[@]} -gt 0 ]; then
    echo "==== PostgreSQL cross-version: 15 -> ${cross[*]%%=*}"
    timer "cross-version layer"
    result="0 passed, 1 failed"
    log=$(mktemp)
    "$ROOT/scripts/crossver.sh" "15=${pg_config_of[15]}" "${cross[@]}" 2>&1 | tee "$log"
    last=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -1)
    [ -n "$last" ] && result=$last
    rm -f "$log"
    lines+=("== PostgreSQL cross-version: $result")
    read -r p _ f _ <<<"$result"
    total_p=$((total_p + p))
    total_f=$((total_f + f))
  fi
  timer ""
  if [ -n "${provide_pid:-}" ]; then
    wait "$provide_pid"
    echo "== background builds:"
    sed 's/^/   /' "$provide_log"
  fi
  rm -f "$provide_log"
  print_times "time"
  printf '%s\n' "${lines[@]}"
  echo "$total_s skipped"
  echo "$total_p passed, $total_f failed"
  [ "$total_f" -eq 0 ]
  exit
fi

timer "build (extension, tests, fuzz targets)"
"$ROOT/scripts/deps.sh" || exit 1
# ---- The extension is built, installed and regress-tested from the release archive's files, not
# from the tree, so every version tests what `make dist` ships: IDGEN_DIST_ZIP (made once by the
# run over several versions) or an archive of the tracked files as they are now (uncommitted
# changes included; untracked files are not in it). They go to build-dist/pgNN, one directory per
# major version, kept between runs so that only what changed is rebuilt (lib.sh: dist_ext_dir).
# The CMake tests are built from the tree. Outside a git checkout (the archive unpacked): the tree.
if [ -z "${IDGEN_DIST_ZIP:-}" ] && git -C "$ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  IDGEN_DIST_ZIP=$("$ROOT/scripts/release.sh" --worktree --out "$ROOT/build-dist") || exit 1
fi
if [ -n "${IDGEN_DIST_ZIP:-}" ]; then
  EXT_DIR="$ROOT/build-dist/pg$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')"
  echo "== the extension from $(basename "$IDGEN_DIST_ZIP") in ${EXT_DIR#"$ROOT"/}: $(dist_ext_dir "$IDGEN_DIST_ZIP" "$EXT_DIR" | tr '\n' ' ')"
  [ -f "$EXT_DIR/Makefile" ] || exit 1
  export IDGEN_EXT_DIR=$EXT_DIR
  untracked=$(git -C "$ROOT" ls-files --others --exclude-standard | head -10 | tr '\n' ' ')
  [ -z "$untracked" ] || echo "note: untracked files, not in the archive: $untracked"
fi
build_extension || exit 1
# Through the compiler cache when there is one (lib.sh: ccache_launch).
launchers=()
[ -z "$ccache_launch" ] || launchers=(-DCMAKE_C_COMPILER_LAUNCHER="$ccache_launch" -DCMAKE_CXX_COMPILER_LAUNCHER="$ccache_launch")
cmake -S "$ROOT" -B "$ROOT/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launchers[@]}" >/dev/null || exit 1
cmake --build "$ROOT/build" -j"$JOBS" >/dev/null || { cmake --build "$ROOT/build"; exit 1; }
SERVERLESS=${IDGEN_SERVERLESS_LAYERS:-1}
if [ "$SERVERLESS" = 1 ]; then
  CLANGXX=$(command -v clang++-14 || command -v clang++)
  cmake -S "$ROOT" -B "$ROOT/build-fuzz" -DCMAKE_CXX_COMPILER="$CLANGXX" -DIDGEN_FUZZ=ON "${launchers[@]}" >/dev/null || exit 1
  cmake --build "$ROOT/build-fuzz" -j"$JOBS" >/dev/null || { cmake --build "$ROOT/build-fuzz"; exit 1; }
fi

WORK=$(mktemp -d /tmp/id_gen_test.XXXXXX)
chmod 755 "$WORK"
PORT=${IDGEN_TEST_PORT:-54329}
cleanup() {
  stop_cluster "$WORK/pg"
  stop_cluster "$WORK/pg2"
  stop_cluster "$WORK/it2/pg"
  stop_cluster "$WORK/it2/pg2"
  for d in "$WORK"/citus?/data; do
    [ -f "$d/postmaster.pid" ] && as_pg "${CITUS_BINDIR:-$PG_BINDIR}/pg_ctl" -D "$d" -m immediate -w stop >/dev/null 2>&1
  done
  # Clusters of the fault layer and of the logical replication tests, should a run have been cut short.
  for d in "$WORK"/fault/*/*/data "$WORK"/fault-upgrade/*/*/data "$WORK"/logrep/*/data "$WORK"/it2/logrep/*/data; do
    [ -f "$d/postmaster.pid" ] && as_pg "$PG_BINDIR/pg_ctl" -D "$d" -m immediate -w stop >/dev/null 2>&1
  done
  [ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT

# The main cluster preloads the library (shared-memory generator state) and is node 1; a second
# cluster, node 2, does not preload it (the generators keep their state in locked files).
# Both let id_gen.test_clock_offset move the generators' clock (id_gen.enable_test_clock: test clusters only).
# id_gen.launch_id (gen_decimal_id()) is 1 and 2.
main_clusters() { # main_clusters DIR PORT: the two clusters in DIR/pg (PORT) and DIR/pg2 (PORT + 1)
  start_cluster "$1/pg" "$2" "shared_preload_libraries = 'id_gen'" "id_gen.node_id = 1" "id_gen.enable_test_clock = on" "id_gen.launch_id = 1" \
    && start_cluster "$1/pg2" "$(($2 + 1))" "shared_buffers = 64MB" "id_gen.node_id = 2" "id_gen.enable_test_clock = on" "id_gen.launch_id = 2"
}
main_clusters "$WORK" "$PORT" || { echo "0 passed, 1 failed"; exit 1; }
export PGHOST="$WORK/pg" PGPORT="$PORT" PGUSER=postgres
export IDGEN_NOPRELOAD_PGHOST="$WORK/pg2" IDGEN_NOPRELOAD_PGPORT="$((PORT + 1))" IDGEN_NOPRELOAD_PGDATA="$WORK/pg2/data"
# For the integration tests: where the cluster lives and how to run its tools as its owner.
export IDGEN_PGDATA="$WORK/pg/data" IDGEN_PG_BINDIR="$PG_BINDIR" IDGEN_PG_OS_USER="$PG_OS_USER" IDGEN_WORK="$WORK"

passed=0
failed=0
skipped=0
tally() { # tally LAYER PASSED FAILED [SKIPPED]
  echo "== $1: $2 passed, $3 failed${4:+, $4 skipped}"
  passed=$((passed + $2))
  failed=$((failed + $3))
  skipped=$((skipped + ${4:-0}))
}

# gtest binaries: one count per test case; a crash counts as a failure.
run_gtest() { # run_gtest LAYER BINARY [TIMEOUT]
  # Bounded, so a deadlocked test fails the run instead of stalling CI.
  timeout -k 10 "${3:-900}" "$2" --gtest_color=no >"$WORK/$1.log" 2>&1
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
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then tail -20 "$log"; f=1; fi
  tally "$1" "$p" "$f" "$([ "$s" -eq 0 ] || echo "$s")"
}

# The server logs a layer's clusters wrote, checked when it ends (lib.sh, scan_server_logs):
# assertion failures (the 17 of scripts/pg_versions.sh has assertions on), crashes, and the
# WARNINGs of leaked relcache references, buffer pins, snapshots, locks and the like. One count
# per log. Logs of the clusters a test removes when it ends are kept in $IDGEN_SERVER_LOGS.
SCAN_ROOT=$WORK
export IDGEN_SERVER_LOGS="$WORK/server-logs"
check_logs() { # check_logs LAYER DIR...
  scan_server_logs "${@:2}"
  tally "server logs ($1)" "$scan_passed" "$scan_failed"
}
# The directories of the main pairs and of the clusters the integration tests make for
# themselves: every one under $WORK but the fault and Citus layers'.
main_log_dirs() { find "$WORK" -mindepth 1 -maxdepth 1 -type d ! -name 'fault*' ! -name 'citus*'; }

timer "clusters"
if [ "$SERVERLESS" = 1 ]; then
  echo "== unit (GoogleTest)"
  timer "unit"
  run_gtest unit "$ROOT/build/unit_tests"
else
  echo "== unit, library (API, ThreadSanitizer) and fuzz: they use no server, run with the first version"
fi

run_regress() { # run_regress LAYER TIMEOUT: pg_regress (make installcheck) on the main cluster
  local log="$WORK/$1.log" rc p f expected
  timeout -k 10 "$2" make -C "$EXT_DIR" -s installcheck PG_CONFIG="$PG_CONFIG" >"$log" 2>&1
  rc=$?
  # 15 prints "test name ... ok" / "... FAILED"; 16 and later print "ok 1 - name" / "not ok 1 - name".
  p=$(grep -cE '\.\.\. ok|^ok [0-9]+ +[-+] ' "$log")
  f=$(grep -cE '\.\.\. FAILED|^not ok [0-9]+ +[-+] ' "$log")
  # pg_regress failed without a failing test (setup error, timeout): one failure.
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then cat "$log"; f=1; fi
  if [ "$f" -gt 0 ]; then cat "$log"; head -200 "$EXT_DIR/regression.diffs" 2>/dev/null; fi
  # Every sql/*.sql file must have run: a test that did not (pg_regress stopped early) is a failure.
  expected=$(find "$EXT_DIR/sql" -maxdepth 1 -name '*.sql' | wc -l)
  if [ $((p + f)) -lt "$expected" ]; then
    cat "$log"
    f=$((expected - p))
  fi
  tally "$1" "$p" "$f"
}
echo "== sql (pg_regress)"
timer "sql"
run_regress sql 600
check_logs sql "$WORK/pg" "$WORK/pg2"

# --- sql again with debug_discard_caches = 1 (--long; a server with assertions only, the setting
# exists nowhere else): every catalog cache, relcache and plan cache entry is thrown away at each
# chance, so a pointer kept past an invalidation, or a cache whose entry is not rebuilt on use,
# fails here. Every session pg_regress opens gets it (PGOPTIONS, which pg_regress keeps).
if [ "${IDGEN_TEST_LONG:-}" = 1 ]; then
  if [ "$("$PG_BINDIR/psql" -X -At -d postgres -c 'SHOW debug_assertions')" = on ]; then
    echo "== sql with debug_discard_caches = 1 (pg_regress again)"
    timer "sql, debug_discard_caches = 1"
    PGOPTIONS="-c debug_discard_caches=1" run_regress "sql-discard-caches" 7200
    check_logs "sql, debug_discard_caches = 1" "$WORK/pg" "$WORK/pg2"
  else
    echo "skipped: sql with debug_discard_caches = 1: this server has no assertions (--enable-cassert)"
    skipped=$((skipped + 1))
  fi
fi

# --- fault, beside the integration, readme, reference and library layers: most of its time is
# spent waiting (servers started, stopped, crashed and promoted, slow fsync), and its clusters are
# its own (copies of one template under $WORK/fault, on PORT + 8 and + 9), with test/fault's shim
# preloaded into each postmaster. Bounded: 7 minutes. Its one test that installs another build of
# the extension into the server (UpgradeWindow: 0.1.0, then this build again) runs afterwards, on
# its own, since every other layer loads the installed library.
start_fault_layer() {
  mkdir -p "$WORK/fault"
  (
    IDGEN_FAULT_WORK="$WORK/fault" IDGEN_FAULT_PORT="$((PORT + 8))" IDGEN_FAULT_KEEP="${KEEP_WORK:-}" PG_CONFIG="$PG_CONFIG" \
      IDGEN_SERVER_LOGS="$WORK/fault/server-logs" GTEST_FILTER="-UpgradeWindow.*" timeout -k 10 420 "$ROOT/build/fault_tests" --gtest_color=no >"$WORK/fault.log" 2>&1
    echo $? >"$WORK/fault.rc"
  ) &
  FAULT_PID=$!
}
start_fault_layer
# --- end fault (started)

# --- release (started here on a server under one prefix, run at the end on another): the newest
# release's archive built, installed and regress-tested (scripts/release_check.sh). Beside the
# layers, it installs the release into a copy of the server, on base+10; at the end (Debian's
# servers, whose files are spread over /usr) into the server itself, then this build again.
RELEASE_PID=""
if [ -n "$(server_prefix)" ]; then
  IDGEN_RELEASE_BESIDE=1 IDGEN_TEST_PORT=$PORT PG_CONFIG=$PG_CONFIG "$ROOT/scripts/release_check.sh" >"$WORK/release.log" 2>&1 &
  RELEASE_PID=$!
fi
# --- end release (started)

echo "== integration (libpqxx)"
# Oracle tests run the npm packages of scripts/npm_oracles.sh with node; a failed install leaves
# IDGEN_NPM_DIR set all the same, so those tests fail rather than skip.
IDGEN_NPM_DIR=$("$ROOT/scripts/npm_oracles.sh") || IDGEN_NPM_DIR="$ROOT/build/npm"
export IDGEN_NPM_DIR
timer "integration"
# The integration tests in two processes at once, each against its own pair of clusters: the layer
# waits on its servers (restarts, clock seconds, lock waits, other sessions) more than it computes.
# The suites listed run on a second pair, configured as the main one, in $WORK/it2 on PORT + 4 and
# PORT + 5 (a test's extra servers go two and three ports above its cluster's: PORT + 6 and + 7
# there, PORT + 2 and + 3 for the main pair; the fault and Citus layers, which use those ports
# later, start after both have ended); every other suite runs on the main pair. A suite never
# spans the two (tests of one suite may share its databases). IDGEN_INTEGRATION_SECOND="" runs
# them all in one process.
IDGEN_INTEGRATION_SECOND=${IDGEN_INTEGRATION_SECOND-GeneratorMarks:LogicalReplication:Idempotency:ShardCache:IdempotencyDdl:KsuidOracle:IdempotencySettled}
run_integration() {
  local bin="$ROOT/build/integration_tests" second="$WORK/it2" filter pid
  if [ -z "$IDGEN_INTEGRATION_SECOND" ] || ! main_clusters "$second" "$((PORT + 4))"; then
    run_gtest integration "$bin"
    return
  fi
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
}
run_integration
check_logs integration $(main_log_dirs)

echo "== readme (README.md's and then docs/*.md's SQL blocks in order, on both clusters, shown results checked; links)"
timer "readme"
run_gtest readme "$ROOT/build/readme_tests" 300
check_logs readme $(main_log_dirs)

# --- reference: docs/reference.md is what scripts/reference.sh prints from a fresh install's catalog
# (the same page on every server version).
echo "== reference (docs/reference.md = scripts/reference.sh's output)"
if PG_BINDIR="$PG_BINDIR" "$ROOT/scripts/reference.sh" >"$WORK/reference.md" 2>"$WORK/reference.err" \
  && diff -u "$ROOT/docs/reference.md" "$WORK/reference.md" >"$WORK/reference.diff"; then
  tally reference 1 0
else
  cat "$WORK/reference.err"; head -60 "$WORK/reference.diff"
  echo "docs/reference.md differs from scripts/reference.sh's output: regenerate it (scripts/reference.sh > docs/reference.md)"
  tally reference 0 1
fi
# --- end reference

echo "== library (the C++ client library: API, generators under ThreadSanitizer, libpqxx round trips, the example)"
timer "library"
if [ "$SERVERLESS" = 1 ]; then
  run_gtest library "$ROOT/build/lib_tests"
  TSAN_OPTIONS="halt_on_error=1" run_gtest library-tsan "$ROOT/build/lib_tests_tsan"
fi
run_gtest library-pqxx "$ROOT/build/lib_pqxx_tests"
# examples/order_retry against this server: needs the idempotency store (idempotency_begin).
"$PG_BINDIR/psql" -X -q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS example_order_retry" -c "CREATE DATABASE example_order_retry" \
  && "$PG_BINDIR/psql" -X -q -d example_order_retry -c "CREATE EXTENSION id_gen" >"$WORK/example.out" 2>&1
if [ "$("$PG_BINDIR/psql" -X -At -d example_order_retry -c "SELECT count(*) FROM pg_proc WHERE proname = 'idempotency_begin'")" = "0" ]; then
  echo "skipped: examples/order_retry: this build of the extension has no idempotency_begin()"
  tally library-example 0 0 1
else
  timeout -k 10 120 "$ROOT/build/examples/order_retry/order_retry" "dbname=example_order_retry" >>"$WORK/example.out" 2>&1
  rc=$?
  cat "$WORK/example.out"
  if [ "$rc" -eq 0 ] && grep -q '^orders with id [0-9A-Z]\{26\}: 1$' "$WORK/example.out"; then tally library-example 1 0
  else tally library-example 0 1; fi
fi
check_logs "reference, library" $(main_log_dirs)

echo "== fault (fault injection: slow and failing fsync/write, damaged state files, crashes, failover; run beside the layers above)"
timer "fault (after the layers above)"
wait "$FAULT_PID"
gtest_tally fault "$(cat "$WORK/fault.rc" 2>/dev/null || echo 1)"
check_logs fault "$WORK/fault"
mkdir -p "$WORK/fault-upgrade"
IDGEN_FAULT_WORK="$WORK/fault-upgrade" IDGEN_FAULT_PORT="$((PORT + 2))" IDGEN_FAULT_KEEP="${KEEP_WORK:-}" PG_CONFIG="$PG_CONFIG" \
  IDGEN_SERVER_LOGS="$WORK/fault-upgrade/server-logs" GTEST_FILTER="UpgradeWindow.*" run_gtest fault-upgrade "$ROOT/build/fault_tests" 300
check_logs fault-upgrade "$WORK/fault-upgrade"

citus_layer() {
  # Once, on PostgreSQL 18: Citus (built by scripts/citus.sh into its own copy of the 18 server)
  # with a coordinator and two workers on loopback, plus a fourth server that a test adds as a
  # node. Ports base+4 .. base+7.
  local pgc rc i port bindir_saved=$PG_BINDIR ports=()
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
  CITUS_BINDIR=$PG_BINDIR
  # The four servers are made and started at once (initdb dominates; one after the other took
  # about 40 s on a loaded 2-core machine).
  local pids=() start_failed=0 busy
  for i in 0 1 2 3; do
    port=$((PORT + 4 + i))
    # An integration test's extra server on this port may still be shutting down (a publisher
    # whose stop outlasted pg_ctl's wait once took the port from this layer): wait up to 60 s.
    busy=0
    while [ "$busy" -lt 60 ] && (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
      sleep 1
      busy=$((busy + 1))
    done
    [ "$busy" -eq 0 ] || echo "   port $port was in use for ${busy}s before the Citus layer could start"
    ports+=("$port")
    start_cluster "$WORK/citus$i" "$port" "listen_addresses = '127.0.0.1'" "shared_buffers = 64MB" \
      "max_connections = 100" "shared_preload_libraries = 'citus,id_gen'" "id_gen.node_id = $((100 + i))" "id_gen.enable_test_clock = on" \
      "citus.node_conninfo = 'sslmode=disable'" "citus.enable_statistics_collection = off" \
      "wal_level = logical" "output_plugin_libraries = 'pgoutput, citus'" "max_replication_slots = 20" "max_wal_senders = 20" "max_worker_processes = 32" \
      >"$WORK/citus$i.start.log" 2>&1 &
    pids+=($!)
  done
  for i in 0 1 2 3; do wait "${pids[$i]}" || start_failed=1; done
  # (Not named "failed": a local of that name hid the run's count from tally, so a failing Citus
  # test was printed but not counted.)
  if [ "$start_failed" = 1 ]; then
    cat "$WORK"/citus?.start.log
    for i in 0 1 2 3; do stop_cluster "$WORK/citus$i"; done
    PG_BINDIR=$bindir_saved
    tally Citus 0 1
    return
  fi
  IDGEN_CITUS_HOST=127.0.0.1 IDGEN_CITUS_PORTS="${ports[*]}" run_gtest Citus "$ROOT/build/citus_tests" 900
  # The cluster's counts (rows, distinct IDs per table and per issuing node) and Citus's own hiccups.
  grep -E '^\[ (count|note) \]' "$WORK/Citus.log"
  for i in 0 1 2 3; do stop_cluster "$WORK/citus$i"; done
  check_logs Citus "$WORK"/citus?
  PG_BINDIR=$bindir_saved
}
if [ "$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')" = 18 ]; then
  echo "== Citus (coordinator + 2 workers on loopback, PostgreSQL 18)"
  timer "Citus"
  citus_layer
fi

if [ "$SERVERLESS" = 1 ]; then
  echo "== fuzz (libFuzzer, ${FUZZ_SECONDS}s per target, $JOBS at a time)"
  timer "fuzz"
  fp=0
  ff=0
  # One target per test/fuzz/fuzz_*.cpp; a target that was not built is a failure. Each target is
  # one process on one core, so JOBS of them run at once: the same time per target, less wall time.
  fuzz_one() { # fuzz_one NAME: runs the target, its status in $WORK/NAME.rc
    local name=$1 fz="$ROOT/build-fuzz/$1" corpus="$WORK/corpus-$1" seeds="$ROOT/test/fuzz/seeds/${1#fuzz_}"
    mkdir -p "$corpus"
    "$fz" -max_total_time="$FUZZ_SECONDS" -rss_limit_mb=2048 -print_final_stats=0 \
      -artifact_prefix="$WORK/$name-" "$corpus" $( [ -d "$seeds" ] && echo "$seeds" ) >"$WORK/$name.log" 2>&1
    echo $? >"$WORK/$name.rc"
  }
  fuzz_names=()
  for src in "$ROOT"/test/fuzz/fuzz_*.cpp; do
    name=$(basename "$src" .cpp)
    if [ ! -x "$ROOT/build-fuzz/$name" ]; then
      echo "fuzz target $name was not built"
      ff=$((ff + 1))
      continue
    fi
    fuzz_names+=("$name")
    fuzz_one "$name" &
    # At most JOBS targets at once.
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
  done
  wait
  for name in "${fuzz_names[@]}"; do
    if [ "$(cat "$WORK/$name.rc" 2>/dev/null)" = 0 ]; then
      fp=$((fp + 1))
    else
      ff=$((ff + 1))
      echo "fuzz target $name failed:"
      tail -30 "$WORK/$name.log"
    fi
  done
  tally fuzz "$fp" "$ff"
fi

# --- release: the newest release's archive built, installed and regress-tested on this server
# (scripts/release_check.sh), last, since it installs that release's build (then this one again).
echo "== release (the newest release's archive on this server: built, installed, pg_regress)"
if [ -n "$RELEASE_PID" ]; then
  timer "release (after the layers above)"
  wait "$RELEASE_PID"
  rc=$?
else
  timer "release"
  IDGEN_TEST_PORT=$PORT IDGEN_EXT_DIR=$EXT_DIR PG_CONFIG=$PG_CONFIG "$ROOT/scripts/release_check.sh" >"$WORK/release.log" 2>&1
  rc=$?
fi
result=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$WORK/release.log" | tail -1)
grep -vE '^[0-9]+ passed, [0-9]+ failed' "$WORK/release.log" | grep -E '^== |^skipped:|release check:' | head -5
if [ -z "$result" ] || { [ "$rc" -ne 0 ] && [[ "$result" == *" 0 failed"* ]]; }; then
  tail -40 "$WORK/release.log"
  tally release 0 1
else
  read -r rp _ rf _ rs _ <<<"${result//,/}"
  [ "$rf" -eq 0 ] || tail -60 "$WORK/release.log"
  tally release "$rp" "$rf" "$([ "${rs:-0}" = 0 ] || echo "$rs")"
fi

print_times "time ($("$PG_CONFIG" --version))"
echo "$skipped skipped"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
