#!/usr/bin/env bash
# uuidv7 + base36 benchmark (issue 3): generation, indexed PK load, base36 text output; each
# contender next to the built-in it replaces, timed interleaved in one session. Uses the harness in
# bench/lib.sh + bench/bench.sql (method: bench/README.md).
#   BENCH_ROWS=1000000 bash bench/uuidv7.sh     quicker run (default 5,000,000)
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
N=$BENCH_ROWS
B=$BENCH_BATCH
[ $((N % B)) -eq 0 ] || { echo "BENCH_ROWS must be a multiple of BENCH_BATCH ($B)" >&2; exit 1; }

t_start=$(date +%s)
bench_start

echo "# fixtures: $N random uuids" >&2
bench_sql -o /dev/null <<SQL
CREATE TABLE bench.vals AS SELECT gen_random_uuid() AS v FROM generate_series(1, $N);
VACUUM (FREEZE, ANALYZE) bench.vals;
SELECT count(*) FROM bench.vals;

-- 1. generation: per ID, net of the empty generate_series loop.
SELECT bench.add('gen', 'empty loop',        \$q\$SELECT count(1) FROM generate_series(1, $N)\$q\$, $N);
SELECT bench.add('gen', 'gen_random_uuid()', \$q\$SELECT count(gen_random_uuid()) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SELECT bench.add('gen', 'uuidv7()',          \$q\$SELECT count(uuidv7()) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SELECT bench.add('gen', 'uuidv7(interval)',  \$q\$SELECT count(uuidv7(interval '-1 hour')) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');

-- 2. text output of the same uuid values: core uuid text vs base36, net of the bare scan.
SELECT bench.add('to_text', 'scan uuid',             \$q\$SELECT count(v) FROM bench.vals\$q\$, $N);
SELECT bench.add('to_text', 'uuid::text',            \$q\$SELECT count(v::text) FROM bench.vals\$q\$, $N, 'scan uuid');
SELECT bench.add('to_text', 'base36_encode(uuid)',   \$q\$SELECT count(base36_encode(v)) FROM bench.vals\$q\$, $N, 'scan uuid');
SELECT bench.add('to_text', 'uuid::base36_128::text', \$q\$SELECT count(v::base36_128::text) FROM bench.vals\$q\$, $N, 'scan uuid');
SELECT bench.add('to_text', 'prefixed_format()',     \$q\$SELECT count(prefixed_format('acct', v)) FROM bench.vals\$q\$, $N, 'scan uuid');

-- 3. indexed load: $N rows in INSERTs of $B into a fresh table with the ID as primary key.
SELECT bench.add('insert', 'uuid gen_random_uuid() PK', \$q\$SELECT bench.load('bench.ins_v4', $N, $B)\$q\$, $N, NULL,
  \$q\$DROP TABLE IF EXISTS bench.ins_v4; CREATE TABLE bench.ins_v4 (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), n int)\$q\$,
  \$q\$SELECT pg_relation_size('bench.ins_v4_pkey')\$q\$);
SELECT bench.add('insert', 'uuid uuidv7() PK', \$q\$SELECT bench.load('bench.ins_v7', $N, $B)\$q\$, $N, NULL,
  \$q\$DROP TABLE IF EXISTS bench.ins_v7; CREATE TABLE bench.ins_v7 (id uuid PRIMARY KEY DEFAULT uuidv7(), n int)\$q\$,
  \$q\$SELECT pg_relation_size('bench.ins_v7_pkey')\$q\$);
SQL

for suite in gen to_text; do bench_run "$suite"; done
BENCH_ROUNDS=$BENCH_INSERT_ROUNDS bench_run insert

bench_table gen 'gen_random_uuid()'
bench_table to_text 'uuid::text'
bench_table insert 'uuid gen_random_uuid() PK'
echo
echo "## insert: PK index size after $N rows (median over rounds) and throughput"
bench_sql -P footer=off -c "
  SELECT name AS contender, pg_size_pretty(metric::bigint) AS pk_index_size,
         round((rows / (net_ns / 1e9))::numeric) AS rows_per_s
  FROM bench.report WHERE suite = 'insert' ORDER BY ord"

bench_sql -o /dev/null <<'SQL'
SELECT bench.check('uuidv7() speed-up over gen_random_uuid() (x)',
                   bench.ns('gen', 'gen_random_uuid()') / bench.ns('gen', 'uuidv7()'), '>=', 10, 'x');
SELECT bench.check('PK load time uuidv7 / gen_random_uuid',
                   bench.ns('insert', 'uuid uuidv7() PK') / bench.ns('insert', 'uuid gen_random_uuid() PK'), '<=', 0.5, 'x');
SELECT bench.check('PK index size uuidv7 / gen_random_uuid',
                   bench.metric('insert', 'uuid uuidv7() PK') / bench.metric('insert', 'uuid gen_random_uuid() PK'), '<=', 0.8, 'x',
                   format('%s vs %s', pg_size_pretty(bench.metric('insert', 'uuid uuidv7() PK')::bigint),
                          pg_size_pretty(bench.metric('insert', 'uuid gen_random_uuid() PK')::bigint)));
SELECT bench.check('base36_encode(uuid) / uuid::text, net ns per value',
                   bench.ns('to_text', 'base36_encode(uuid)') / bench.ns('to_text', 'uuid::text'), '<=', 1.0, 'x',
                   format('%s ns vs %s ns', round(bench.ns('to_text', 'base36_encode(uuid)')::numeric, 1),
                          round(bench.ns('to_text', 'uuid::text')::numeric, 1)));
SQL
bench_targets
echo
echo "# total $(( $(date +%s) - t_start )) s"
