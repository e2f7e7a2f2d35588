#!/usr/bin/env bash
# Idempotency-key purge with nothing to delete (issue 30, finding 6): for each table size in
# BENCH_PURGE_IDLE_KEYS (default "20000 200000"), that many keys neither expired nor idle, then
# BENCH_PURGE_IDLE_CALLS (default 21) calls of idempotency_purge(older_than => '1 hour') with the
# default batch_size, each in its own transaction (a procedure that commits after each), in one
# backend. Reports the median, minimum and maximum milliseconds per call (what one call of a
# scheduled purge costs when there is nothing to purge) and the median heap blocks a call fetched
# (the work, which the machine's load does not move).
#   BENCH_PURGE_IDLE_KEYS=20000 bash bench/idempotency_purge_idle.sh      a quick run
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
SIZES=${BENCH_PURGE_IDLE_KEYS:-20000 200000}
CALLS=${BENCH_PURGE_IDLE_CALLS:-21}

bench_start

bench_sql -o /dev/null <<SQL
CREATE TABLE bench.purge_idle (keys int, n int, ms float8, blocks bigint);
CREATE PROCEDURE bench.purge_idle_calls(keys int, calls int) LANGUAGE plpgsql AS \$\$
DECLARE
    t0 timestamptz;
    b0 bigint;
BEGIN
    FOR i IN 1 .. calls LOOP
        b0 := pg_stat_get_xact_blocks_fetched('idempotency_keys'::regclass);
        t0 := clock_timestamp();
        PERFORM idempotency_purge(older_than => '1 hour');
        INSERT INTO bench.purge_idle VALUES (keys, i, extract(epoch FROM clock_timestamp() - t0) * 1000,
                                             pg_stat_get_xact_blocks_fetched('idempotency_keys'::regclass) - b0);
        COMMIT;
    END LOOP;
END \$\$;
SQL

for keys in $SIZES; do
  bench_sql -o /dev/null <<SQL
TRUNCATE idempotency_keys;
INSERT INTO idempotency_keys
SELECT current_user, current_user::regrole, 'POST /orders', 'key-' || g, 'fp', 'done', '{"status": 201}', 1,
       NULL, NULL, NULL, '30 s', NULL, '1 day', now(), now(), now(), now() + '1 day'::interval
FROM generate_series(1, $keys) g;
VACUUM ANALYZE idempotency_keys;
SELECT count(*) FROM idempotency_keys;
SQL
  bench_sql -c "CALL bench.purge_idle_calls($keys, $CALLS)"
done

echo
echo "## purge(older_than => '1 hour') with nothing to delete, batch_size 1000, one call per transaction"
bench_sql -P footer=off <<SQL
SELECT keys, count(*) AS calls,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 2) AS "median ms/call",
       round(min(ms)::numeric, 2) AS "min ms", round(max(ms)::numeric, 2) AS "max ms",
       percentile_disc(0.5) WITHIN GROUP (ORDER BY blocks) AS "median heap blocks/call",
       (SELECT pg_relation_size('idempotency_keys') / 8192) AS "table blocks (last size)",
       (SELECT count(*) FROM idempotency_keys) AS "keys left (last size)"
FROM bench.purge_idle GROUP BY keys ORDER BY keys;
SQL
