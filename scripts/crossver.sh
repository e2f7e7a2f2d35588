#!/usr/bin/env bash
# The cross-version layer of the test command (test/crossver): a database that uses every id_gen
# type is dumped on the oldest server given and restored on each newer one, and the oldest server's
# cluster is upgraded to each newer one with pg_upgrade. Every server must already have this build
# of id_gen and amcheck installed (scripts/test.sh runs this after its per-version runs, which
# install it). Ends with the line "N passed, N failed"; exit status 0 only when nothing failed.
#
#   scripts/crossver.sh MAJOR=PG_CONFIG ...    e.g. 15=/usr/lib/postgresql/15/bin/pg_config 18=...
#
#   IDGEN_CROSS_PORT  the first of the six ports this layer uses (default: the test command's
#                     base port + 1, scripts/layers/env.sh)
#   IDGEN_TIMES       a file the per-test times are appended to (the test command's)
#   KEEP_WORK         keep the work directory (clusters, dumps, logs)
set -uo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=layers/env.sh
source "$(dirname "${BASH_SOURCE[0]}")/layers/env.sh"

if [ $# -lt 2 ]; then
  echo "usage: $0 MAJOR=PG_CONFIG MAJOR=PG_CONFIG ..." >&2
  echo "0 passed, 1 failed"
  exit 1
fi
bindirs=""
declare -A bin_of
for arg in "$@"; do
  major=${arg%%=*}
  bin_of[$major]=$("${arg#*=}" --bindir) || { echo "no pg_config for PostgreSQL $major: ${arg#*=}"; echo "0 passed, 1 failed"; exit 1; }
  bindirs+="$major=${bin_of[$major]} "
done

bin="$ROOT/build/crossver_tests"
if [ ! -x "$bin" ]; then
  echo "$bin was not built"
  echo "0 passed, 1 failed"
  exit 1
fi

WORK=$(mktemp -d /tmp/id_gen_cross.XXXXXX)
chmod 755 "$WORK"
cleanup() {
  # Clusters left running by a test that was cut short, each stopped by its own version's pg_ctl.
  for d in "$WORK"/*/data; do
    [ -f "$d/postmaster.pid" ] || continue
    v=$(cat "$d/PG_VERSION" 2>/dev/null)
    [ -n "$v" ] && [ -n "${bin_of[$v]:-}" ] && as_pg "${bin_of[$v]}/pg_ctl" -D "$d" -m immediate -w stop >/dev/null 2>&1
  done
  [ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT

log="$WORK/crossver.log"
# Bounded, so a stuck server fails the layer instead of stalling the run.
IDGEN_CROSS_BINDIRS="$bindirs" IDGEN_CROSS_WORK="$WORK" IDGEN_CROSS_PORT=${IDGEN_CROSS_PORT:-$IDGEN_CROSS_FIRST_PORT} \
  IDGEN_PG_OS_USER="$PG_OS_USER" IDGEN_SERVER_LOGS="$WORK/server-logs" timeout -k 10 600 "$bin" --gtest_color=no >"$log" 2>&1
rc=$?
grep -E '^note: ' "$log"
[ -z "${IDGEN_TIMES:-}" ] || sed -nE 's/^\[ +(OK|FAILED) +\] ([^ ]+) \(([0-9]+) ms\)$/\3\tcross\tcross-version\t\2/p' "$log" >>"$IDGEN_TIMES"
p=$(grep -cE '^\[       OK \]' "$log")
f=$(grep -cE '^\[  FAILED  \] .*\([0-9]+ ms\)$' "$log")
if [ "$f" -gt 0 ]; then grep -E '^\[  FAILED  \]|: Failure$|Which is|error' "$log" | head -60; fi
if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then tail -30 "$log"; f=1; fi
# Every server log of the layer's clusters: assertion failures, crashes, leaked resources (lib.sh).
SCAN_ROOT=$WORK
scan_server_logs "$WORK"
echo "== server logs (cross-version): $scan_passed passed, $scan_failed failed"
p=$((p + scan_passed))
f=$((f + scan_failed))
echo "$p passed, $f failed"
[ "$f" -eq 0 ]
