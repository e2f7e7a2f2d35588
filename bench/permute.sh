#!/usr/bin/env bash
# id_permute benchmark (issue 10, part 2): the keyed permutation (FF1 over AES-128) per value,
# next to nextval() and gen_random_uuid(), timed interleaved in one session, each net of the empty
# loop. Uses the harness in bench/lib.sh + bench/bench.sql (method: bench/README.md).
#   BENCH_ROWS=1000000 bash bench/permute.sh     quicker run (default 5,000,000)
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
N=$BENCH_ROWS

t_start=$(date +%s)
bench_start

bench_sql -o /dev/null <<SQL
SELECT id_permute_key('orders');
SELECT id_permute_key('orders_js', domain => 9007199254740991);
SELECT id_permute_key('orders_small', domain => 1000000);
CREATE SEQUENCE bench.seq;
CREATE SEQUENCE bench.seq2;
-- Fill each session's key cache once, as any session after its first call.
SELECT id_permute(1, 'orders'), id_permute(1, 'orders_js'), id_permute(1, 'orders', 'invoices_seq');

SELECT bench.add('gen', 'empty loop',                  \$q\$SELECT count(1) FROM generate_series(1, $N)\$q\$, $N);
SELECT bench.add('gen', 'nextval()',                   \$q\$SELECT count(nextval('bench.seq')) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SELECT bench.add('gen', 'gen_random_uuid()',           \$q\$SELECT count(gen_random_uuid()) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SELECT bench.add('gen', 'id_permute(g, key)',          \$q\$SELECT count(id_permute(g, 'orders')) FROM generate_series(1, $N) g\$q\$, $N, 'empty loop');
SELECT bench.add('gen', 'id_permute(g, key, tweak)',   \$q\$SELECT count(id_permute(g, 'orders', 'invoices_seq')) FROM generate_series(1, $N) g\$q\$, $N, 'empty loop');
SELECT bench.add('gen', 'id_permute(g, js key)',       \$q\$SELECT count(id_permute(g, 'orders_js')) FROM generate_series(1, $N) g\$q\$, $N, 'empty loop');
SELECT bench.add('gen', 'id_unpermute(g, key)',        \$q\$SELECT count(id_unpermute(g, 'orders')) FROM generate_series(1, $N) g\$q\$, $N, 'empty loop');
SELECT bench.add('gen', 'id_permute(nextval(), key)',  \$q\$SELECT count(id_permute(nextval('bench.seq2'), 'orders')) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SQL

bench_run gen
bench_table gen 'nextval()'

bench_sql -o /dev/null <<'SQL'
SELECT bench.check('id_permute(g, key) / nextval(), net ns per value',
                   bench.ns('gen', 'id_permute(g, key)') / bench.ns('gen', 'nextval()'), '<=', 1.0, 'x',
                   'goal: at least as fast as nextval()');
SQL
bench_targets
echo
echo "# total $(( $(date +%s) - t_start )) s"
