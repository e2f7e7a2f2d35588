#!/usr/bin/env bash
# One job of the test command (scripts/test.sh starts them; run that, not this):
#   scripts/layers/job.sh serverless   the layers that use no server: unit, library (API and
#                                      ThreadSanitizer), fuzz
#   scripts/layers/job.sh server       every layer that uses a server, on $PG_CONFIG's: the
#                                      extension built from the release archive's files,
#                                      installed, and the sql, integration, readme, reference,
#                                      library, fault, Citus (18) and release layers
# Environment (set by scripts/test.sh): PG_CONFIG, IDGEN_JOB_NAME (its label: the major version),
# IDGEN_JOB_PORT (its first port, scripts/layers/env.sh), IDGEN_DIST_ZIP (the archive),
# IDGEN_TIMES (the per-test times file), IDGEN_NPM_DIR, and env.sh's. The CMake build (build/,
# build-fuzz/) is the driver's. Ends with "N skipped" and "N passed, N failed"; exit status 0
# only when nothing failed.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib.sh
source "$here/../lib.sh"
# shellcheck source=env.sh
source "$here/env.sh"
for f in common unit sql integration readme reference library fault citus fuzz release; do
  # shellcheck disable=SC1090
  source "$here/$f.sh"
done
KIND=${1:?usage: job.sh serverless|server}
PORT=${IDGEN_JOB_PORT:-$(idgen_version_port 0)}

WORK=$(mktemp -d /tmp/id_gen_test.XXXXXX)
chmod 755 "$WORK"
SCAN_ROOT=$WORK
export IDGEN_SERVER_LOGS="$WORK/server-logs"
finish() {
  print_times "time ($IDGEN_JOB_NAME)"
  echo "$skipped skipped"
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
  exit
}

if [ "$KIND" = serverless ]; then
  trap '[ -n "$KEEP_WORK" ] || rm -rf "$WORK"' EXIT
  timer "waiting for the build of the tests"
  wait_for_tests || finish
  idgen_layer_selected unit && layer_unit
  idgen_layer_selected library && layer_library_serverless
  idgen_layer_selected fuzz && layer_fuzz
  finish
fi

MAJOR=$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
cleanup() {
  if [ -n "$KEEP_WORK" ] && [ -d "$WORK/pg/data" ]; then
    echo "kept: $WORK, its main clusters running:"
    echo "   psql -h $WORK/pg -p $PORT -U postgres       (id_gen preloaded, node 1)"
    echo "   psql -h $WORK/pg2 -p $((PORT + 1)) -U postgres      (not preloaded, node 2)"
    echo "   stop them: $PG_BINDIR/pg_ctl -D $WORK/pg/data stop; $PG_BINDIR/pg_ctl -D $WORK/pg2/data stop"
  else
    stop_cluster "$WORK/pg"
    stop_cluster "$WORK/pg2"
  fi
  stop_cluster "$WORK/it2/pg"
  stop_cluster "$WORK/it2/pg2"
  local d citus_bindir
  citus_bindir=$(cat "$WORK/citus.bindir" 2>/dev/null)
  for d in "$WORK"/citus?/data; do
    [ -f "$d/postmaster.pid" ] && as_pg "$citus_bindir/pg_ctl" -D "$d" -m immediate -w stop >/dev/null 2>&1
  done
  # Clusters of the fault layer and of the logical replication tests, should a run have been cut short.
  for d in "$WORK"/fault/*/*/data "$WORK"/fault-upgrade/*/*/data "$WORK"/logrep/*/data "$WORK"/it2/logrep/*/data; do
    [ -f "$d/postmaster.pid" ] && as_pg "$PG_BINDIR/pg_ctl" -D "$d" -m immediate -w stop >/dev/null 2>&1
  done
  [ -n "$KEEP_WORK" ] || rm -rf "$WORK"
}
trap cleanup EXIT

# ---- The extension, built, installed and regress-tested from the release archive's files, not
# from the tree, so every version tests what `make dist` ships: IDGEN_DIST_ZIP, made once by the
# driver. They go to build-dist/pgNN, one directory per major version, kept between runs so that
# only what changed is rebuilt (lib.sh: dist_ext_dir).
timer "build (the extension)"
EXT_DIR="$ROOT/build-dist/pg$MAJOR"
echo "== the extension from $(basename "$IDGEN_DIST_ZIP") in ${EXT_DIR#"$ROOT"/}: $(dist_ext_dir "$IDGEN_DIST_ZIP" "$EXT_DIR" | tr '\n' ' ')"
[ -f "$EXT_DIR/Makefile" ] || { tally build 0 1; finish; }
export IDGEN_EXT_DIR=$EXT_DIR
build_extension || { tally build 0 1; finish; }

# The main cluster preloads the library (shared-memory generator state) and is node 1; a second
# cluster, node 2, does not preload it (the generators keep their state in locked files). Both let
# id_gen.test_clock_offset move the generators' clock (id_gen.enable_test_clock: test clusters
# only). id_gen.launch_id (gen_decimal_id()) is 1 and 2.
# Without JIT: the tests' large statements (sorts of a million IDs) would be compiled first, up to
# half a second of CPU each; the JIT test (test/integration/jit_test.cpp) turns it on for its own
# statements, with every threshold at 0, where the server has it.
main_clusters() { # main_clusters DIR PORT: the two clusters in DIR/pg (PORT) and DIR/pg2 (PORT + 1)
  start_cluster "$1/pg" "$2" "shared_preload_libraries = 'id_gen'" "id_gen.node_id = 1" "id_gen.enable_test_clock = on" "id_gen.launch_id = 1" "jit = off" \
    && start_cluster "$1/pg2" "$(($2 + 1))" "shared_buffers = 64MB" "id_gen.node_id = 2" "id_gen.enable_test_clock = on" "id_gen.launch_id = 2" "jit = off"
}
# The directories of the main pairs and of the clusters the integration tests make for
# themselves: every one under $WORK but the fault and Citus layers'.
main_log_dirs() { find "$WORK" -mindepth 1 -maxdepth 1 -type d ! -name 'fault*' ! -name 'citus*'; }

# The release check beside the other layers: its own server copy, cluster and port.
idgen_layer_selected release && release_start

any_selected() { local l; for l in "$@"; do idgen_layer_selected "$l" && return 0; done; return 1; }
main=0
for l in sql integration readme reference library; do idgen_layer_selected "$l" && main=1; done
if [ "$main" = 1 ]; then
  timer "clusters"
  if ! main_clusters "$WORK" "$PORT"; then
    tally clusters 0 1
    main=0
  fi
  export PGHOST="$WORK/pg" PGPORT="$PORT" PGUSER=postgres
  export IDGEN_NOPRELOAD_PGHOST="$WORK/pg2" IDGEN_NOPRELOAD_PGPORT="$((PORT + 1))" IDGEN_NOPRELOAD_PGDATA="$WORK/pg2/data"
  # For the integration tests: where the cluster lives and how to run its tools as its owner.
  export IDGEN_PGDATA="$WORK/pg/data" IDGEN_PG_BINDIR="$PG_BINDIR" IDGEN_PG_OS_USER="$PG_OS_USER" IDGEN_WORK="$WORK"
fi
[ "$main" = 1 ] && idgen_layer_selected sql && layer_sql
# Every other layer runs the tests' binaries: from here on, after their build.
tests=0
if any_selected integration readme library fault citus; then
  timer "waiting for the build of the tests"
  wait_for_tests && tests=1
fi
if [ "$tests" = 1 ]; then
  # Beside the others: Citus (18) and fault; each has its own clusters and ports.
  [ "$MAJOR" = 18 ] && idgen_layer_selected citus && citus_start
  idgen_layer_selected fault && fault_start
fi
if [ "$main" = 1 ]; then
  [ "$tests" = 1 ] && idgen_layer_selected integration && layer_integration
  [ "$tests" = 1 ] && idgen_layer_selected readme && layer_readme
  idgen_layer_selected reference && layer_reference
  [ "$tests" = 1 ] && idgen_layer_selected library && layer_library
fi
# The fault layer's upgrade tests install another build into the server: after every layer that
# loads the installed one (Citus and the release check beside use their own servers).
[ -n "$FAULT_PID" ] && fault_finish
[ -n "$CITUS_PID" ] && citus_finish
idgen_layer_selected release && release_finish
finish
