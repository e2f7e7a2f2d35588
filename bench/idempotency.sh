#!/usr/bin/env bash
# Idempotency-key store benchmark (issue 11), on the shared harness (bench/lib.sh, bench/bench.sql).
# What one request costs with a key, against the same request without one, measured in the same
# run, interleaved, medians over rounds:
#   clients_1   pgbench, one client, one request per transaction:
#                 plain        BEGIN; INSERT an order; COMMIT
#                 idempotent   BEGIN; idempotency_begin(scope, a new key, fingerprint); INSERT;
#                              idempotency_finish(scope, key, response); COMMIT
#                 fingerprinted  the same, the fingerprint computed by idempotency_fingerprint()
#                 replay       BEGIN; idempotency_begin() of a finished key (the stored response); COMMIT
#               per request: latency (pgbench's average), the overhead over plain in microseconds,
#               and the ratio of latencies (= the ratio of throughputs).
#   clients_N   the same with BENCH_CLIENTS clients at once (throughput).
#   server      inside the server, no round trips: BENCH_REQUESTS requests from a procedure, each
#               its own transaction, timed on the backend's CPU clock: the store's own cost.
#   BENCH_QUICK=1 bash bench/idempotency.sh       about 2 minutes (3 rounds, 3 s per client run)
set -euo pipefail
if [ -n "${BENCH_QUICK:-}" ]; then
  BENCH_ROUNDS=${BENCH_ROUNDS:-3}
  BENCH_CLIENT_SECONDS=${BENCH_CLIENT_SECONDS:-3}
fi
BENCH_CLIENT_SECONDS=${BENCH_CLIENT_SECONDS:-10}
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
REQUESTS=${BENCH_REQUESTS:-2000}   # per round of the server suite
REPLAY_KEYS=10000
MANY=$BENCH_CLIENTS

bench_start

bench_sql -o /dev/null <<SQL
CREATE TABLE bench.orders (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, item text NOT NULL, amount int NOT NULL);
CREATE SEQUENCE bench.key_seq;
-- Finished keys for the replay contenders, a thousand per transaction (each key begun holds a
-- lock to the end of its transaction).
SELECT format('SELECT count(*) FROM (SELECT (idempotency_begin(''POST /orders'', ''done-'' || g, ''fp'')).state,
                      idempotency_finish(''POST /orders'', ''done-'' || g, jsonb_build_object(''order'', g, ''status'', 201))
               FROM generate_series(%s, %s) g) s', b, b + 999)
FROM generate_series(1, $REPLAY_KEYS, 1000) b \gexec

-- The server suite: n requests, each its own transaction (a procedure that commits after each),
-- timed on the backend's CPU clock: what the store costs the server per request, planning and
-- commit included, without round trips or time spent waiting for a CPU.
CREATE TABLE bench.tx_sample (kind text, round int, requests int, cpu_ns float8, wall_ns float8);
CREATE PROCEDURE bench.tx_requests(p_kind text, p_round int, n int) LANGUAGE plpgsql AS \$\$
DECLARE
    k text;
    id bigint;
    s0 float8[];
    s1 float8[];
    t0 timestamptz;
    payload jsonb := '{"item": "book", "amount": 1}';
BEGIN
    s0 := bench.sched();
    t0 := clock_timestamp();
    FOR i IN 1 .. n LOOP
        IF p_kind = 'plain' THEN
            INSERT INTO bench.orders (item, amount) VALUES ('book', 1);
        ELSIF p_kind = 'idempotent' THEN
            k := 'tx-' || nextval('bench.key_seq');
            PERFORM state FROM idempotency_begin('POST /orders', k, 'fp');
            INSERT INTO bench.orders (item, amount) VALUES ('book', 1) RETURNING bench.orders.id INTO id;
            PERFORM idempotency_finish('POST /orders', k, jsonb_build_object('order', id, 'status', 201));
        ELSIF p_kind = 'fingerprinted' THEN
            k := 'tx-' || nextval('bench.key_seq');
            PERFORM state FROM idempotency_begin('POST /orders', k, idempotency_fingerprint(payload));
            INSERT INTO bench.orders (item, amount) VALUES ('book', 1) RETURNING bench.orders.id INTO id;
            PERFORM idempotency_finish('POST /orders', k, jsonb_build_object('order', id, 'status', 201));
        ELSIF p_kind = 'replay' THEN
            PERFORM state FROM idempotency_begin('POST /orders', 'done-' || (1 + i % $REPLAY_KEYS), 'fp');
        ELSE
            RAISE EXCEPTION 'unknown kind %', p_kind;
        END IF;
        COMMIT;
    END LOOP;
    s1 := bench.sched();
    INSERT INTO bench.tx_sample
    VALUES (p_kind, p_round, n, s1[1] - s0[1], extract(epoch FROM clock_timestamp() - t0) * 1e9);
    COMMIT;
END \$\$;
CREATE FUNCTION bench.tx_table()
RETURNS TABLE (request text, rounds bigint, "requests/round" int, "CPU us/request" numeric, "spread %" numeric,
               "overhead us" numeric, "ratio to plain" numeric, "wall us/request" numeric)
LANGUAGE sql AS \$\$
    WITH m AS (
        SELECT kind, count(*) AS rounds, max(requests) AS requests,
               bench.median(array_agg(cpu_ns / requests)) AS cpu, bench.median(array_agg(wall_ns / requests)) AS wall,
               (max(cpu_ns / requests) - min(cpu_ns / requests)) / nullif(bench.median(array_agg(cpu_ns / requests)), 0) AS spread
        FROM bench.tx_sample GROUP BY kind)
    SELECT m.kind, m.rounds, m.requests, round((m.cpu / 1000)::numeric, 1), round((100 * m.spread)::numeric, 0),
           round(((m.cpu - p.cpu) / 1000)::numeric, 1), round((m.cpu / p.cpu)::numeric, 2), round((m.wall / 1000)::numeric, 1)
    FROM m JOIN m p ON p.kind = 'plain'
    ORDER BY array_position(ARRAY['plain', 'idempotent', 'fingerprinted', 'replay'], m.kind);
\$\$;

-- The client suites: one request per pgbench transaction; a new key each time (pgbench
-- substitutes :r inside the literal).
CREATE FUNCTION bench.add_clients(p_suite text) RETURNS void LANGUAGE sql AS \$f\$
SELECT bench.client_add(p_suite, 'plain', E'BEGIN;\nINSERT INTO bench.orders (item, amount) VALUES (''book'', 1);\nCOMMIT;\n', 1);
SELECT bench.client_add(p_suite, 'idempotent', E'\\\\set r random(1, 9000000000000000000)\nBEGIN;\n'
    'SELECT state FROM idempotency_begin(''POST /orders'', ''req-:r'', ''fp'');\n'
    'INSERT INTO bench.orders (item, amount) VALUES (''book'', 1);\n'
    'SELECT idempotency_finish(''POST /orders'', ''req-:r'', ''{"order": 1, "status": 201}'');\nCOMMIT;\n', 1);
SELECT bench.client_add(p_suite, 'fingerprinted', E'\\\\set r random(1, 9000000000000000000)\nBEGIN;\n'
    'SELECT state FROM idempotency_begin(''POST /orders'', ''req-:r'', idempotency_fingerprint(''{"item": "book", "amount": 1}''));\n'
    'INSERT INTO bench.orders (item, amount) VALUES (''book'', 1);\n'
    'SELECT idempotency_finish(''POST /orders'', ''req-:r'', ''{"order": 1, "status": 201}'');\nCOMMIT;\n', 1);
SELECT bench.client_add(p_suite, 'replay', E'\\\\set r random(1, $REPLAY_KEYS)\nBEGIN;\n'
    'SELECT state FROM idempotency_begin(''POST /orders'', ''done-:r'', ''fp'');\nCOMMIT;\n', 1);
\$f\$;
SELECT bench.add_clients('clients_1');
SELECT bench.add_clients('clients_N');

-- Per request: latency, overhead over 'plain' in microseconds, latency ratio to 'plain'.
CREATE FUNCTION bench.request_table(p_suite text)
RETURNS TABLE (request text, clients int, rounds bigint, "median requests/s" numeric, "spread %" numeric,
               "us/request" numeric, "overhead us" numeric, "ratio to plain" numeric)
LANGUAGE sql AS \$\$
    SELECT r.name, r.clients, r.rounds, round(r.ids_per_s::numeric), round(r.spread_pct::numeric, 0),
           round((r.latency_ms * 1000)::numeric, 1),
           round(((r.latency_ms - ref.latency_ms) * 1000)::numeric, 1),
           round((ref.ids_per_s / nullif(r.ids_per_s, 0))::numeric, 2)
    FROM bench.client_report r JOIN bench.client_report ref ON ref.suite = r.suite AND ref.name = 'plain'
    WHERE r.suite = p_suite ORDER BY r.ord;
\$\$;
SQL

request_table() {
  echo
  echo "## $1 [$2 client(s), ${BENCH_CLIENT_SECONDS} s per run] one request per transaction; medians over rounds; ratio = plain's requests/s over the contender's"
  bench_sql -P footer=off -c "SELECT * FROM bench.request_table('$1')"
}

KINDS=(plain idempotent fingerprinted replay)
for r in $(seq "$BENCH_ROUNDS"); do
  for k in $(seq ${#KINDS[@]}); do
    if [ $((r % 2)) -eq 1 ]; then i=$k; else i=$((${#KINDS[@]} + 1 - k)); fi
    bench_sql -c "CALL bench.tx_requests('${KINDS[i-1]}', $r, $REQUESTS)"
    bench_sql -At -c "SELECT format('#   server round %s/%s: %-14s %s us CPU per request', round, $BENCH_ROUNDS, kind,
                                    round((cpu_ns / requests / 1000)::numeric, 1))
                      FROM bench.tx_sample WHERE kind = '${KINDS[i-1]}' AND round = $r" >&2
  done
done
echo
echo "## server [one transaction per request, $REQUESTS requests per round] median on-CPU us per request of the backend (bench.sched); ratio to plain"
bench_sql -P footer=off -c "SELECT * FROM bench.tx_table()"

BENCH_CLIENTS=1
bench_clients clients_1
request_table clients_1 1

BENCH_CLIENTS=$MANY
bench_clients clients_N
request_table clients_N "$MANY"
