#!/usr/bin/env bash
# SERIALIZABLE transactions beginning distinct idempotency keys (issue 18, finding 4): how many
# fail with 40001, against the same transactions with a plain INSERT of the key instead. pgbench,
# BENCH_CLIENTS (8) clients for BENCH_CLIENT_SECONDS (20) s per contender, no retries; a failed
# transaction is a serialization failure (pgbench --failures-detailed tells them apart).
#   plain       BEGIN ISOLATION LEVEL SERIALIZABLE; INSERT an order; INSERT the key into a table with a primary key; COMMIT
#   idempotent  BEGIN ISOLATION LEVEL SERIALIZABLE; idempotency_begin(a new key); INSERT an order; idempotency_finish(); COMMIT
set -euo pipefail
BENCH_CLIENT_SECONDS=${BENCH_CLIENT_SECONDS:-20}
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_start
bench_sql -o /dev/null <<'SQL'
CREATE TABLE bench.orders (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, item text NOT NULL);
CREATE TABLE bench.keys (scope text, key text, PRIMARY KEY (scope, key));
SQL
dir=$(mktemp -d)
cat >"$dir/plain.sql" <<'SQL'
\set r random(1, 9000000000000000000)
BEGIN ISOLATION LEVEL SERIALIZABLE;
INSERT INTO bench.keys VALUES ('POST /orders', 'req-:r');
INSERT INTO bench.orders (item) VALUES ('book');
COMMIT;
SQL
cat >"$dir/idempotent.sql" <<'SQL'
\set r random(1, 9000000000000000000)
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT state FROM idempotency_begin('POST /orders', 'req-:r', 'fp');
INSERT INTO bench.orders (item) VALUES ('book');
SELECT idempotency_finish('POST /orders', 'req-:r', '{"status": 201}');
COMMIT;
SQL
echo
echo "## SERIALIZABLE, distinct keys, $BENCH_CLIENTS clients, ${BENCH_CLIENT_SECONDS} s each, no retries"
printf '%-12s %12s %12s %10s\n' contender transactions "40001" "rate %"
for k in plain idempotent plain idempotent; do
  out=$(PGOPTIONS="-c jit=off" "$PG_BINDIR/pgbench" -n -d bench -c "$BENCH_CLIENTS" -j "$BENCH_CLIENT_JOBS" \
          -T "$BENCH_CLIENT_SECONDS" --failures-detailed -f "$dir/$k.sql" 2>&1)
  done_=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' <<<"$out")
  failed=$(sed -n 's/^number of serialization failures: \([0-9]*\).*/\1/p' <<<"$out")
  failed=${failed:-0}
  printf '%-12s %12s %12s %10s\n' "$k" "$done_" "$failed" \
    "$(awk -v f="$failed" -v d="$done_" 'BEGIN { printf "%.2f", (d + f) ? 100 * f / (d + f) : 0 }')"
done
rm -rf "$dir"
