#!/usr/bin/env bash
# Idempotency-key store: instructions per request (valgrind's callgrind), a measure the machine's
# load does not move, against the plain request measured the same way. One backend in
# single-user mode runs BENCH_REQUESTS requests from a procedure, each its own transaction, and
# only the CALL is counted (so no start-up or shutdown):
#   plain        INSERT an order
#   idempotent   idempotency_begin(a new key) + INSERT + idempotency_finish(key, response)
#   replay       idempotency_begin() of a finished key
# Prints instructions per request, the ratio to plain, and (BENCH_PROFILE=1) the functions that
# cost the most, inclusive, per request. Needs valgrind.
#   bash bench/idempotency_instructions.sh            about 2 minutes
set -euo pipefail
# shellcheck source=../scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"
REQUESTS=${BENCH_REQUESTS:-2000}
PORT=${BENCH_PORT:-$(( ${IDGEN_TEST_PORT:-54329} + 101 ))}
command -v valgrind >/dev/null || { echo "valgrind is not installed"; exit 1; }
[ -n "${BENCH_NO_BUILD:-}" ] || build_extension
WORK=$(mktemp -d /tmp/id_gen_bench.XXXXXX)
chmod 755 "$WORK"
chown "$PG_OS_USER" "$WORK" 2>/dev/null || true  # the backend writes callgrind's output there
trap 'stop_cluster "$WORK/pg"; rm -rf "$WORK"' EXIT
start_cluster "$WORK/pg" "$PORT" "synchronous_commit = off" "jit = off" "autovacuum = off"
"$PG_BINDIR/psql" -X -q -v ON_ERROR_STOP=1 -h "$WORK/pg" -p "$PORT" -U postgres -d postgres <<SQL
CREATE EXTENSION id_gen;
CREATE TABLE orders (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, item text NOT NULL, amount int NOT NULL);
CREATE SEQUENCE key_seq;
CREATE PROCEDURE requests(p_kind text, n int) LANGUAGE plpgsql AS \$\$
DECLARE
    k text;
    id bigint;
BEGIN
    FOR i IN 1 .. n LOOP
        IF p_kind = 'plain' THEN
            INSERT INTO orders (item, amount) VALUES ('book', 1);
        ELSIF p_kind = 'idempotent' THEN
            k := 'tx-' || nextval('key_seq');
            PERFORM state FROM idempotency_begin('POST /orders', k, 'fp');
            INSERT INTO orders (item, amount) VALUES ('book', 1) RETURNING orders.id INTO id;
            PERFORM idempotency_finish('POST /orders', k, jsonb_build_object('order', id, 'status', 201));
        ELSE
            PERFORM state FROM idempotency_begin('POST /orders', 'tx-' || (1 + i % 5000), 'fp');
        END IF;
        COMMIT;
    END LOOP;
END \$\$;
-- Finished keys for the replays, and tables and indexes of the size they will have.
CALL requests('idempotent', 6000);
CALL requests('plain', 6000);
SQL
as_pg "$PG_BINDIR/pg_ctl" -D "$WORK/pg/data" -w stop >/dev/null
declare -A per
for kind in plain idempotent replay; do
  echo "CALL requests('$kind', $REQUESTS);" |
    as_pg valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.$kind" --collect-atstart=no \
      --toggle-collect=ExecuteCallStmt "$PG_BINDIR/postgres" --single -D "$WORK/pg/data" -c jit=off postgres \
      >"$WORK/$kind.log" 2>&1 || { cat "$WORK/$kind.log"; exit 1; }
  total=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$WORK/$kind.log")
  per[$kind]=$((total / REQUESTS))
done
echo "## instructions per request (callgrind, $REQUESTS requests, one transaction each, PostgreSQL $("$PG_BINDIR/postgres" --version | awk '{print $3}'))"
printf '%-12s %14s %10s\n' request "instructions" "ratio"
for kind in plain idempotent replay; do
  printf '%-12s %14d %10s\n' "$kind" "${per[$kind]}" "$(awk -v a="${per[$kind]}" -v b="${per[plain]}" 'BEGIN { printf "%.2f", a / b }')"
done
if [ -n "${BENCH_PROFILE:-}" ]; then
  for kind in idempotent replay; do
    echo "## $kind: most costly functions, inclusive, instructions per request"
    callgrind_annotate --inclusive=yes "$WORK/cg.$kind" 2>/dev/null |
      awk -v n="$REQUESTS" '/^ *[0-9,]+ +\(/ { ir = $1; gsub(",", "", ir); line = $0; sub(/^ *[0-9,]+ +\( *[0-9.]+%\) +/, "", line); printf "%9.1fk %s\n", ir / n / 1000, substr(line, 1, 110) }' |
      grep -vE 'plpgsql\.so|libc|below main|PostgresMain|PortalRun|ProcessUtility|ExecuteCallStmt|main \[|0x0' | head -25
  done
fi
