#!/usr/bin/env bash
# Idempotency-key purge benchmark (issue 18, finding 2): BENCH_PURGE_KEYS (default 1,000,000)
# expired keys purged by idempotency_purge(batch_size => BENCH_PURGE_BATCH) (default 10,000), one
# call per transaction (a procedure that commits after each, until a call says done), in one backend. Reports the total
# time, the time per call at the start and at the end of the run (linear total time: a call costs
# the same at the end as at the start), and the backend's peak private memory (RssAnon, sampled
# from /proc every 10 ms; shared buffers are not private memory and are not counted) and VmHWM.
# With BENCH_PURGE_HOLD=1 another session holds a REPEATABLE READ snapshot older than every
# deletion throughout (no deleted row's index entry can be marked dead meanwhile).
#   BENCH_PURGE_KEYS=100000 bash bench/idempotency_purge.sh      a quick run
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
KEYS=${BENCH_PURGE_KEYS:-1000000}
BATCH=${BENCH_PURGE_BATCH:-10000}

bench_start

bench_sql -o /dev/null <<SQL
INSERT INTO idempotency_keys
SELECT current_user, current_user::regrole, 'POST /orders', 'key-' || g, 'fp', 'done', '{"status": 201}', 1,
       NULL, NULL, NULL, '30 s', NULL, '1 day', now() - '2 days'::interval, now() - '2 days'::interval,
       now() - '2 days'::interval, now() - '1 day'::interval + g * '1 ms'::interval
FROM generate_series(1, $KEYS) g;
VACUUM ANALYZE idempotency_keys;
CREATE TABLE bench.purge_call (n int, deleted bigint, ms float8);
CREATE PROCEDURE bench.purge_all(batch int) LANGUAGE plpgsql AS \$\$
DECLARE
    r record;
    t0 timestamptz;
    i int := 0;
BEGIN
    LOOP
        i := i + 1;
        t0 := clock_timestamp();
        SELECT * INTO r FROM idempotency_purge(batch_size => batch);
        INSERT INTO bench.purge_call VALUES (i, r.deleted, extract(epoch FROM clock_timestamp() - t0) * 1000);
        COMMIT;
        EXIT WHEN r.done;
    END LOOP;
END \$\$;
SQL

if [ -n "${BENCH_PURGE_HOLD:-}" ]; then
  # An old snapshot, held until the purge ends.
  (echo "BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM bench.purge_call; SELECT pg_sleep(100000);" |
     bench_sql >/dev/null 2>&1) &
  holder=$!
  sleep 1
fi

bench_sql -c "CALL bench.purge_all($BATCH)" &
caller=$!
pid=""
while [ -z "$pid" ] && kill -0 "$caller" 2>/dev/null; do
  pid=$(bench_sql -At -c "SELECT pid FROM pg_stat_activity WHERE query LIKE 'CALL bench.purge_all%' AND pid <> pg_backend_pid()")
done
peak_anon=0
hwm=0
while [ -n "$pid" ] && [ -r "/proc/$pid/status" ]; do
  a=$(awk '/^RssAnon:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
  h=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
  [ -n "$a" ] && [ "$a" -gt "$peak_anon" ] && peak_anon=$a
  [ -n "$h" ] && hwm=$h
  kill -0 "$caller" 2>/dev/null || break
  sleep 0.01
done
wait "$caller"
if [ -n "${BENCH_PURGE_HOLD:-}" ]; then
  bench_sql -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(100000)%' AND pid <> pg_backend_pid()" >/dev/null
  wait "$holder" || true
fi

echo
echo "## purge: $KEYS expired keys, batches of $BATCH, one call per transaction${BENCH_PURGE_HOLD:+, an older snapshot held}"
bench_sql -P footer=off <<SQL
WITH c AS (SELECT * FROM bench.purge_call), n AS (SELECT max(n) AS calls FROM c)
SELECT (SELECT calls FROM n) AS calls, (SELECT sum(deleted) FROM c) AS deleted,
       round((SELECT sum(ms) FROM c)::numeric / 1000, 2) AS "total s",
       round((SELECT avg(ms) FROM c WHERE n BETWEEN 2 AND 11)::numeric, 1) AS "ms/call, calls 2-11",
       round((SELECT avg(ms) FROM c, n WHERE c.n BETWEEN n.calls - 10 AND n.calls - 1)::numeric, 1) AS "ms/call, last 10 full",
       $peak_anon / 1024 AS "peak RssAnon MB", $hwm / 1024 AS "VmHWM MB (shared buffers touched included)",
       (SELECT count(*) FROM idempotency_keys) AS "keys left";
SQL
