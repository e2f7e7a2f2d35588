#!/usr/bin/env bash
# gen_prefixed() and the generators it is compared with: instructions per call (valgrind's
# callgrind), a measure the machine's load does not move. One backend in single-user mode runs
# `SELECT count(f) FROM generate_series(1, BENCH_CALLS)` per function; only the executor is counted
# (no start-up, parse or shutdown), net of the same loop over count(1).
# Prints instructions per call, the ratio to gen_ulid(), and (BENCH_PROFILE=1) the functions that
# cost the most, inclusive, per call of gen_prefixed(). Needs valgrind.
#   bash bench/prefixed_instructions.sh            about 1 minute
#   BENCH_KEEP=DIR ...                            also copies callgrind's outputs (cg.KIND) to DIR
set -euo pipefail
# shellcheck source=../scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"
CALLS=${BENCH_CALLS:-200000}
PORT=${BENCH_PORT:-$(( ${IDGEN_TEST_PORT:-54329} + 102 ))}
command -v valgrind >/dev/null || { echo "valgrind is not installed"; exit 1; }
[ -n "${BENCH_NO_BUILD:-}" ] || build_extension
WORK=$(mktemp -d /tmp/id_gen_bench.XXXXXX)
chmod 755 "$WORK"
chown "$PG_OS_USER" "$WORK" 2>/dev/null || true  # the backend writes callgrind's output there
trap 'stop_cluster "$WORK/pg"; [ -z "${BENCH_KEEP:-}" ] || cp "$WORK"/cg.* "$BENCH_KEEP"/; rm -rf "$WORK"' EXIT
start_cluster "$WORK/pg" "$PORT" "jit = off" "autovacuum = off"
"$PG_BINDIR/psql" -X -q -v ON_ERROR_STOP=1 -h "$WORK/pg" -p "$PORT" -U postgres -d postgres <<SQL
CREATE EXTENSION id_gen;
SELECT prefix_register('acct', 'accounts');
SQL
as_pg "$PG_BINDIR/pg_ctl" -D "$WORK/pg/data" -w stop >/dev/null
names=(empty ulid uuidv7 prefixed prefixed_format)
declare -A expr=([empty]="1" [ulid]="gen_ulid()" [uuidv7]="gen_uuidv7()" [prefixed]="gen_prefixed('acct')"
                 [prefixed_format]="prefixed_format('acct', gen_uuidv7())")
declare -A per
for kind in "${names[@]}"; do
  # A first call outside the count fills the session's caches, as in any session after its first call.
  printf "SELECT gen_prefixed('acct'), gen_ulid(), gen_uuidv7();\nSELECT count(%s) FROM generate_series(1, %d);\n" \
      "${expr[$kind]}" "$CALLS" |
    as_pg valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.$kind" --collect-atstart=no \
      --toggle-collect=standard_ExecutorRun "$PG_BINDIR/postgres" --single -D "$WORK/pg/data" -c jit=off postgres \
      >"$WORK/$kind.log" 2>&1 || { cat "$WORK/$kind.log"; exit 1; }
  total=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$WORK/$kind.log")
  per[$kind]=$((total / CALLS))
done
echo "## instructions per call, net of count(1) (callgrind, $CALLS calls, PostgreSQL $("$PG_BINDIR/postgres" --version | awk '{print $3}'))"
printf '%-40s %14s %10s\n' function "instructions" "/ gen_ulid"
for kind in ulid uuidv7 prefixed prefixed_format; do
  net=$(( per[$kind] - per[empty] ))
  printf '%-40s %14d %10s\n' "${expr[$kind]}" "$net" \
    "$(awk -v a="$net" -v b="$(( per[ulid] - per[empty] ))" 'BEGIN { printf "%.2f", a / b }')"
done
if [ -n "${BENCH_PROFILE:-}" ]; then
  echo "## gen_prefixed('acct'): most costly functions, inclusive, instructions per call"
  callgrind_annotate --inclusive=yes "$WORK/cg.prefixed" 2>/dev/null |
    awk -v n="$CALLS" '/^ *[0-9,]+ +\(/ { ir = $1; gsub(",", "", ir); line = $0; sub(/^ *[0-9,]+ +\( *[0-9.]+%\) +/, "", line); printf "%9.1f %s\n", ir / n, substr(line, 1, 110) }' |
    grep -vE 'libc|below main|PostgresMain|PortalRun|0x0' | head -40
fi
