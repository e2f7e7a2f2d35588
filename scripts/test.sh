#!/usr/bin/env bash
# The test command: every test layer of id_gen against its own throwaway PostgreSQL clusters, on
# every server version, ending with the line "N passed, N failed" (exit status 0 only when
# nothing failed). A thin driver: it installs what is missing, builds once, and starts one job
# per server version side by side (scripts/layers/job.sh; each layer is a script of its own in
# scripts/layers/, the settings and ports are in scripts/layers/env.sh).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

usage() {
  cat <<'EOF'
usage: scripts/test.sh [options]
Runs every test layer on PostgreSQL 15, 17 and 18 and ends with "N passed, N failed".

  --versions "15 17"   the server versions (default "15 17 18"; IDGEN_PG_VERSIONS); each gets a
                       job of its own with its own ports and build directory, run side by side
  --pg-config PATH     one run against the server PATH names instead (any version; no package
                       or cross-version layer unless --layers names them)
  --layers a,b         only these layers (default: all; IDGEN_LAYERS):
                         package      META.json, LICENSE, CHANGELOG, the demo, .deb packages,
                                      the release archive, the source layout (once)
                         unit         the core's GoogleTest suite (no server, once)
                         sql          pg_regress
                         integration  libpqxx tests against two clusters
                         readme       README.md's and docs/*.md's SQL blocks and links
                         reference    docs/reference.md against the catalog
                         library      the C++ library (its own tests and TSan once; libpqxx per server)
                         fault        fault injection (fsync, damaged files, crashes, failover)
                         citus        Citus coordinator + 2 workers (PostgreSQL 18)
                         fuzz         libFuzzer targets (no server, once)
                         release      the newest release's archive on each server
                         cross        a dump of 15 restored on, and pg_upgrade to, each newer server
  --filter PATTERN     a GoogleTest filter for the GoogleTest layers (IDGEN_FILTER), e.g.
                       'ShardCache.*'; for sql, the pg_regress tests matching its ':'-separated
                       globs (e.g. 'permute*')
  --keep               keep each job's work directory and leave its main clusters running; the
                       run prints how to connect and how to stop them (KEEP_WORK=1)
  --long               also the slow checks: pg_regress again with debug_discard_caches = 1 on
                       the server with assertions (17), hours (IDGEN_TEST_LONG=1)
  --serial             the versions one after another, output as it comes (IDGEN_TEST_SERIAL=1)
  --help               this text

Examples:
  scripts/test.sh                                                   everything (CI runs this)
  scripts/test.sh --versions 17 --layers integration --filter 'ShardCache.*'    one suite
  scripts/test.sh --versions 18 --layers sql --filter 'permute*' --keep         one regress test
  scripts/test.sh --versions 15 --layers unit,library                           no server
Ports: IDGEN_TEST_PORT (default 54329) and the ports after it; see scripts/layers/env.sh.
EOF
}

PG_CONFIG_ONLY=""
while [ $# -gt 0 ]; do
  case $1 in
    --versions) IDGEN_PG_VERSIONS=${2//,/ }; shift ;;
    --pg-config) PG_CONFIG_ONLY=$2; shift ;;
    --layers) IDGEN_LAYERS=$2; shift ;;
    --filter) IDGEN_FILTER=$2; shift ;;
    --keep) KEEP_WORK=1 ;;
    --long) IDGEN_TEST_LONG=1 ;;
    --serial) IDGEN_TEST_SERIAL=1 ;;
    --help|-h) usage; exit 0 ;;
    *) echo "unknown argument: $1" >&2; usage >&2; exit 2 ;;
  esac
  shift
done
[ -z "$PG_CONFIG_ONLY" ] || export PG_CONFIG=$PG_CONFIG_ONLY
# shellcheck source=lib.sh
source "$here/lib.sh"
# shellcheck source=layers/env.sh
source "$here/layers/env.sh"
if [ "$IDGEN_LAYERS" != all ]; then
  for l in ${IDGEN_LAYERS//,/ }; do
    [[ " $IDGEN_ALL_LAYERS " == *" $l "* ]] || { echo "unknown layer: $l (layers: $IDGEN_ALL_LAYERS)" >&2; exit 2; }
  done
fi
if [ -n "$PG_CONFIG_ONLY" ]; then
  [ -x "$PG_CONFIG_ONLY" ] || { echo "--pg-config: $PG_CONFIG_ONLY is not a pg_config" >&2; exit 2; }
  IDGEN_PG_VERSIONS=$("$PG_CONFIG_ONLY" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
  [ "$IDGEN_LAYERS" != all ] || IDGEN_LAYERS=$(echo "$IDGEN_ALL_LAYERS" | tr ' ' '\n' | grep -vxE 'package|cross' | paste -sd, -)
fi
export IDGEN_LAYERS IDGEN_PG_VERSIONS
RUN=$(mktemp -d /tmp/id_gen_run.XXXXXX)
chmod 755 "$RUN"
# shellcheck source=layers/cpu.sh
source "$here/layers/cpu.sh"
trap 'cpu_groups_remove; rm -rf "$RUN"' EXIT
cpu_group_join setup  # the driver and its setup steps; each job and the tests' build move to their own
export IDGEN_TIMES="$RUN/times"
: >"$IDGEN_TIMES"
run_start=$(date +%s)
since() { local t=$(($(date +%s) - $1)); printf '%dm%02ds' $((t / 60)) $((t % 60)); }
setup_lines=()
step() { # step NAME COMMAND...: a setup step, timed
  local t0 rc
  t0=$(date +%s)
  "${@:2}"
  rc=$?
  setup_lines+=("$(printf '%-44s %9s' "$1" "$(since "$t0")")")
  return $rc
}

# ---- What is missing, installed (Debian's packages, once per machine).
step "dependencies (scripts/deps.sh)" "$ROOT/scripts/deps.sh" || exit 1

# ---- The servers Debian does not package (scripts/pg_versions.sh) and Citus (scripts/citus.sh),
# built in the background at a lower priority from the start while the other jobs run: a job
# asks pg_versions.sh for its server, which waits for that build (a lock per version) when it is
# still going and returns at once when it is cached. Its output is printed when the run ends.
builds=()
if [ -z "$PG_CONFIG_ONLY" ]; then
  for v in $IDGEN_PG_VERSIONS; do
    [ -x "/usr/lib/postgresql/$v/bin/postgres" ] || builds+=("$v")
  done
fi
provide_pid=""
if [ ${#builds[@]} -gt 0 ]; then
  (
    t0=$(date +%s)
    nice -n 10 "$ROOT/scripts/pg_versions.sh" "${builds[@]}" >/dev/null || exit 1
    echo "servers ${builds[*]} provided in $(($(date +%s) - t0))s"
    if [[ " ${builds[*]} " == *" 18 "* ]] && idgen_layer_selected citus; then
      t0=$(date +%s)
      nice -n 10 "$ROOT/scripts/citus.sh" >/dev/null
      rc=$?
      [ "$rc" -ne 0 ] || echo "Citus provided in $(($(date +%s) - t0))s"
    fi
  ) >"$RUN/provide.log" 2>&1 &
  provide_pid=$!
fi

# ---- Built once for every job: the release archive of the tracked files as they are now
# (uncommitted changes included; untracked files are not in it), from which each version's job
# builds, installs and regress-tests the extension, so every version tests what `make dist`
# ships; the newest release's archive (the release layer); the tests (CMake, build/); the fuzz
# targets (build-fuzz/) when the fuzz layer runs; the npm oracles when the integration layer does.
build_tests() {
  local launchers=()
  [ -z "$ccache_launch" ] || launchers=(-DCMAKE_C_COMPILER_LAUNCHER="$ccache_launch" -DCMAKE_CXX_COMPILER_LAUNCHER="$ccache_launch")
  cmake -S "$ROOT" -B "$ROOT/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launchers[@]}" >/dev/null || return 1
  cmake --build "$ROOT/build" -j"$JOBS" >/dev/null || { cmake --build "$ROOT/build"; return 1; }
  idgen_layer_selected fuzz || return 0
  local clangxx
  clangxx=$(command -v clang++-14 || command -v clang++)
  cmake -S "$ROOT" -B "$ROOT/build-fuzz" -DCMAKE_CXX_COMPILER="$clangxx" -DIDGEN_FUZZ=ON "${launchers[@]}" >/dev/null || return 1
  cmake --build "$ROOT/build-fuzz" -j"$JOBS" >/dev/null || { cmake --build "$ROOT/build-fuzz"; return 1; }
}
archives() {
  IDGEN_DIST_ZIP=$("$ROOT/scripts/release.sh" --worktree --out "$ROOT/build-dist") || return 1
  export IDGEN_DIST_ZIP
  local untracked
  untracked=$(git -C "$ROOT" ls-files --others --exclude-standard 2>/dev/null | head -10 | tr '\n' ' ')
  [ -z "$untracked" ] || echo "note: untracked files, not in the archive: $untracked"
  if idgen_layer_selected release; then
    # When it cannot be made (a shallow clone), each job's release layer says why.
    IDGEN_RELEASE_ZIP=$("$ROOT/scripts/release_check.sh" --archive "$RUN/release" 2>/dev/null | tail -1)
    if [ -f "$IDGEN_RELEASE_ZIP" ]; then export IDGEN_RELEASE_ZIP; else unset IDGEN_RELEASE_ZIP; fi
  fi
}
step "release archives (scripts/release.sh)" archives || exit 1
# The tests' build runs beside the jobs: a job builds the extension, starts its clusters and runs
# pg_regress first, and waits for the tests (scripts/layers/common.sh: wait_for_tests) only then.
export IDGEN_BUILD_RC="$RUN/build.rc"
build_name="build (tests$(idgen_layer_selected fuzz && echo ', fuzz targets'), beside the jobs)"
( cpu_group_join build; t0=$(date +%s); build_tests >"$RUN/build.log" 2>&1; rc=$?; echo "$(($(date +%s) - t0))" >"$RUN/build.time"; echo "$rc" >"$IDGEN_BUILD_RC"
  [ "$rc" -eq 0 ] || { echo "== the build of the tests failed:"; tail -60 "$RUN/build.log"; } ) &
build_pid=$!
if idgen_layer_selected integration; then
  # A failed install leaves IDGEN_NPM_DIR set all the same, so the oracle tests fail, not skip.
  npm_oracles() { "$ROOT/scripts/npm_oracles.sh" >"$RUN/npm.dir"; }
  step "npm oracles (scripts/npm_oracles.sh)" npm_oracles
  IDGEN_NPM_DIR=$(cat "$RUN/npm.dir")
  export IDGEN_NPM_DIR=${IDGEN_NPM_DIR:-$ROOT/build/npm}
fi

# ---- The jobs. Each writes its own log ($RUN/NAME.log), printed whole when it ends.
job_names=()
run_job() { # run_job NAME COMMAND...: runs a job, its log in $RUN/NAME.log
  local t0 rc
  t0=$(date +%s)
  if [ "${IDGEN_TEST_SERIAL:-}" = 1 ]; then
    echo "==== $1"
    ( cpu_group_join "$1"; "${@:2}" ) 2>&1 | tee "$RUN/$1.log"
    rc=${PIPESTATUS[0]}
  else
    ( cpu_group_join "$1"; "${@:2}" ) >"$RUN/$1.log" 2>&1
    rc=$?
    # One job's log at a time.
    { flock 9; echo "==== $1 (ended after $(since "$run_start"))"; cat "$RUN/$1.log"; } 9>"$RUN/print.lock"
  fi
  echo "$rc $(($(date +%s) - t0)) $(cpu_group_seconds "$1")" >"$RUN/$1.rc"
  return "$rc"
}
package_job() { # package_job PART: test/package/run.sh --part PART
  PG_CONFIG=$PG_CONFIG IDGEN_DEMO_PORT=$IDGEN_TEST_PORT "$ROOT/test/package/run.sh" --part "$1"
}
version_job() { # version_job MAJOR K: the server layers of MAJOR on the K-th version's ports
  local pgc
  if [ -n "$PG_CONFIG_ONLY" ]; then pgc=$PG_CONFIG_ONLY
  elif [ -x "/usr/lib/postgresql/$1/bin/pg_config" ]; then pgc=/usr/lib/postgresql/$1/bin/pg_config
  else
    pgc=$("$ROOT/scripts/pg_versions.sh" --pg-config "$1") || { echo "PostgreSQL $1 is not available"; echo "0 passed, 1 failed"; return 1; }
  fi
  echo "$pgc" >"$RUN/pg_config.$1"
  PG_CONFIG=$pgc IDGEN_JOB_NAME=$1 IDGEN_JOB_PORT=$(idgen_version_port "$2") "$here/layers/job.sh" server
}
serverless_job() { IDGEN_JOB_NAME=serverless "$here/layers/job.sh" serverless; }

any_selected() { local l; for l in "$@"; do idgen_layer_selected "$l" && return 0; done; return 1; }
package_major=$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
do_package=0
idgen_layer_selected package && do_package=1
# Lanes run side by side; the jobs of a lane one after another. The package layer's demo and .deb
# installs go into the server they demonstrate (Debian's 15), and so does that version's job: those
# (test/package/run.sh --part server) run in 15's lane after its job. Its other checks, which
# install nothing (--part files: the .debs built, the C++ library's builds, META.json, the archive,
# the layout), run in a lane of their own, the .debs first, into $IDGEN_DEB_DIR.
export IDGEN_DEB_DIR="$RUN/debs"
lanes=()
k=0
for v in $IDGEN_PG_VERSIONS; do
  if any_selected sql integration readme reference library fault citus release; then
    job_names+=("PostgreSQL $v")
    if [ "$do_package" = 1 ] && [ "$v" = "$package_major" ]; then
      lanes+=("package-files" "PostgreSQL $v:$v:$k|package-server")
      job_names=("package-files" "${job_names[@]}" "package-server")
      do_package=2
    else
      lanes+=("PostgreSQL $v:$v:$k")
    fi
  fi
  k=$((k + 1))
done
if [ "$do_package" = 1 ]; then lanes=("package" "${lanes[@]}"); job_names=("package" "${job_names[@]}"); fi
if any_selected unit library fuzz; then lanes+=("serverless"); job_names+=("serverless"); fi

run_lane() { # run_lane "JOB|JOB...": package, serverless, or "PostgreSQL V:V:K"
  local j IFS='|'
  for j in $1; do
    case $j in
      package) run_job package package_job all ;;
      package-files) run_job package-files package_job files ;;
      package-server) run_job package-server package_job server ;;
      serverless) run_job serverless serverless_job ;;
      *) IFS=: read -r name v kk <<<"$j"; run_job "$name" version_job "$v" "$kk" ;;
    esac
  done
}
echo "== setup: $(since "$run_start"); jobs: ${job_names[*]}$([ "${IDGEN_TEST_SERIAL:-}" = 1 ] || echo ', side by side')"
lane_pids=()
for lane in "${lanes[@]}"; do
  if [ "${IDGEN_TEST_SERIAL:-}" = 1 ]; then run_lane "$lane"; else run_lane "$lane" & lane_pids+=($!); fi
done
for pid in "${lane_pids[@]}"; do wait "$pid"; done
wait "$build_pid"
setup_lines+=("$(printf '%-44s %4dm%02ds' "$build_name" $(($(cat "$RUN/build.time") / 60)) $(($(cat "$RUN/build.time") % 60)))$(cpu_text "$(cpu_group_seconds build)")")

# ---- The cross-version layer (scripts/crossver.sh): a dump of 15 restored on each newer server,
# and pg_upgrade from 15 to each, once every server has this build installed by its job.
if idgen_layer_selected cross && [ -f "$RUN/pg_config.15" ]; then
  cross=()
  for v in $IDGEN_PG_VERSIONS; do
    if [ "$v" -gt 15 ] && [ -f "$RUN/pg_config.$v" ]; then cross+=("$v=$(cat "$RUN/pg_config.$v")"); fi
  done
  if [ ${#cross[@]} -gt 0 ]; then
    job_names+=("cross-version")
    cross_job() { IDGEN_CROSS_PORT=$IDGEN_CROSS_FIRST_PORT "$ROOT/scripts/crossver.sh" "15=$(cat "$RUN/pg_config.15")" "${cross[@]}"; }
    run_job "cross-version" cross_job
  fi
fi

# ---- The summary: each job's result and phases, the slowest tests of each layer, the sum.
if [ -n "$provide_pid" ]; then
  wait "$provide_pid"
  echo "== background builds:"
  sed 's/^/   /' "$RUN/provide.log"
fi
echo "== time: $(since "$run_start") (setup, then the jobs side by side)"
cpu_total=0
printf '   %s\n' "${setup_lines[@]}"
for j in "${job_names[@]}"; do
  cpu=""
  read -r rc t cpu <"$RUN/$j.rc" 2>/dev/null || t=0
  printf '   %-44s %4dm%02ds%s\n' "$j" $((t / 60)) $((t % 60)) "$(cpu_text "$cpu")"
  cpu_total=$((cpu_total + ${cpu:-0}))
  # The job's own phases.
  sed -n '/^== time (/,/^[0-9]* skipped$/p' "$RUN/$j.log" 2>/dev/null | grep -E '^   ' | sed 's/^/   /'
done
if [ -n "$cpu_root" ]; then
  cpu_total=$((cpu_total + $(cpu_group_seconds build) + $(cpu_group_seconds setup)))
  printf '   %-44s %9s%s\n' "CPU time of the run (setup, build, jobs)" "" "$(cpu_text "$cpu_total")"
  echo "   (on $(nproc) cores, no run of this work can take less than $((cpu_total / $(nproc) / 60))m$(printf '%02d' $((cpu_total / $(nproc) % 60)))s)"
fi
echo "== slowest tests of each layer (seconds, job)"
for layer in unit sql integration readme library fault Citus cross; do
  grep -P "^[0-9]+\t$layer\t" "$IDGEN_TIMES" | sort -t$'\t' -k1,1nr | head -10 |
    awk -F '\t' -v layer="$layer" 'NR == 1 { print "   " layer ":" } { printf "   %8.1f  %s (%s)\n", $1 / 1000, $4, $3 }'
done
total_p=0
total_f=0
total_s=0
for j in "${job_names[@]}"; do
  result=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$RUN/$j.log" 2>/dev/null | tail -1)
  result=${result:-0 passed, 1 failed}
  s=$(grep -E '^[0-9]+ skipped$' "$RUN/$j.log" 2>/dev/null | tail -1)
  s=${s%% *}
  echo "== $j: $result${s:+ ($s skipped)}"
  read -r p _ f _ <<<"$result"
  total_p=$((total_p + p))
  total_f=$((total_f + f))
  total_s=$((total_s + ${s:-0}))
done
echo "$total_s skipped"
echo "$total_p passed, $total_f failed"
[ "$total_f" -eq 0 ]
