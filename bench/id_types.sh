#!/usr/bin/env bash
# Per-entity ID types (issue 10, part 1): each created type's generator and text I/O next to its
# kind's own, on the same values, interleaved in one session. See bench/README.md.
#   BENCH_ROWS=1000000 bash bench/id_types.sh      quicker run (default 5,000,000)
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
N=$BENCH_ROWS
[ $((N % 10000)) -eq 0 ] || { echo "BENCH_ROWS must be a multiple of 10000" >&2; exit 1; }

t_start=$(date +%s)
bench_start
# Preloaded, node 1, with a 60 s run-ahead allowance (as bench/generators.sh): the cost of making
# an ID, not a layout's ceiling.
bench_sql -c "LOAD 'id_gen'" -c "ALTER SYSTEM SET shared_preload_libraries = 'id_gen'" \
          -c "ALTER SYSTEM SET id_gen.node_id = 1" -c "ALTER SYSTEM SET id_gen.max_run_ahead = '60s'"
as_pg "$PG_BINDIR/pg_ctl" -D "$BENCH_WORK/pg/data" -l "$BENCH_WORK/pg/server.log" -w -t 60 restart >/dev/null
[ "$(bench_sql -At -c 'SHOW shared_preload_libraries')" = "id_gen" ] || { echo "not preloaded" >&2; exit 1; }

echo "# fixtures: 10,000 IDs of each type, their text forms, and the same values as the kind's type" >&2
bench_sql -o /dev/null <<SQL
SELECT create_id_type('account_id', kind => 'ulid', prefix => 'acct');
SELECT create_id_type('order_id', kind => 'uuidv7', prefix => 'ord', format => 'typeid');
SELECT create_id_type('event_id', kind => 'snowflake', prefix => 'evt');
CREATE TABLE bench.small AS
  SELECT a, a::ulid AS ak, a::text AS at, a::ulid::text AS akt,
         o, o::uuid AS ok, o::text AS ot, o::uuid::text AS okt,
         e, e::snowflake AS ek, e::text AS et, e::snowflake::text AS ekt
  FROM (SELECT gen_account_id() a, gen_order_id() o, gen_event_id() e FROM generate_series(1, 10000)) g
  ORDER BY random();
VACUUM (FREEZE, ANALYZE) bench.small;

-- 1. generation: per ID, net of the empty loop.
SELECT bench.add('gen', 'empty loop',        \$q\$SELECT count(1) FROM generate_series(1, $N)\$q\$, $N);
SELECT bench.add('gen', 'gen_ulid()',        \$q\$SELECT count(gen_ulid()) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SELECT bench.add('gen', 'gen_account_id()',  \$q\$SELECT count(gen_account_id()) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SELECT bench.add('gen', 'gen_uuidv7()',      \$q\$SELECT count(gen_uuidv7()) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SELECT bench.add('gen', 'gen_order_id()',    \$q\$SELECT count(gen_order_id()) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SELECT bench.add('gen', 'gen_snowflake()',   \$q\$SELECT count(gen_snowflake()) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SELECT bench.add('gen', 'gen_event_id()',    \$q\$SELECT count(gen_event_id()) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');

-- 2. text output and input over a cache-resident table scanned N/10000 times, net of the scan.
SELECT bench.add('to_text', 'scan',                \$q\$SELECT count(a) FROM generate_series(1, $N / 10000) g, bench.small\$q\$, $N);
SELECT bench.add('to_text', 'ulid::text',          \$q\$SELECT count(ak::text) FROM generate_series(1, $N / 10000) g, bench.small\$q\$, $N, 'scan');
SELECT bench.add('to_text', 'account_id::text',    \$q\$SELECT count(a::text) FROM generate_series(1, $N / 10000) g, bench.small\$q\$, $N, 'scan');
SELECT bench.add('to_text', 'uuid::text',          \$q\$SELECT count(ok::text) FROM generate_series(1, $N / 10000) g, bench.small\$q\$, $N, 'scan');
SELECT bench.add('to_text', 'order_id::text',      \$q\$SELECT count(o::text) FROM generate_series(1, $N / 10000) g, bench.small\$q\$, $N, 'scan');
SELECT bench.add('to_text', 'snowflake::text',     \$q\$SELECT count(ek::text) FROM generate_series(1, $N / 10000) g, bench.small\$q\$, $N, 'scan');
SELECT bench.add('to_text', 'event_id::text',      \$q\$SELECT count(e::text) FROM generate_series(1, $N / 10000) g, bench.small\$q\$, $N, 'scan');
SELECT bench.add('from_text', 'scan',              \$q\$SELECT count(at) FROM generate_series(1, $N / 10000) g, bench.small\$q\$, $N);
SELECT bench.add('from_text', 'text::ulid',        \$q\$SELECT count(akt::ulid) FROM generate_series(1, $N / 10000) g, bench.small\$q\$, $N, 'scan');
SELECT bench.add('from_text', 'text::account_id',  \$q\$SELECT count(at::account_id) FROM generate_series(1, $N / 10000) g, bench.small\$q\$, $N, 'scan');
SELECT bench.add('from_text', 'text::uuid',        \$q\$SELECT count(okt::uuid) FROM generate_series(1, $N / 10000) g, bench.small\$q\$, $N, 'scan');
SELECT bench.add('from_text', 'text::order_id',    \$q\$SELECT count(ot::order_id) FROM generate_series(1, $N / 10000) g, bench.small\$q\$, $N, 'scan');
SELECT bench.add('from_text', 'text::snowflake',   \$q\$SELECT count(ekt::snowflake) FROM generate_series(1, $N / 10000) g, bench.small\$q\$, $N, 'scan');
SELECT bench.add('from_text', 'text::event_id',    \$q\$SELECT count(et::event_id) FROM generate_series(1, $N / 10000) g, bench.small\$q\$, $N, 'scan');
SQL

for suite in gen to_text from_text; do bench_run "$suite"; done
for clock in cpu wall; do
  bench_table gen 'gen_ulid()' $clock
  bench_table to_text 'ulid::text' $clock
  bench_table from_text 'text::ulid' $clock
done
echo
echo "## each created type against its kind (median net ns, on-CPU)"
bench_sql -P footer=off -c "
  SELECT t.what, t.kind_op, round(bench.ns(t.suite, t.kind_op)::numeric, 1) AS kind_ns,
         t.type_op, round(bench.ns(t.suite, t.type_op)::numeric, 1) AS type_ns,
         round((bench.ns(t.suite, t.type_op) / nullif(bench.ns(t.suite, t.kind_op), 0))::numeric, 2) AS ratio
  FROM (VALUES (1, 'gen', 'generate', 'gen_ulid()', 'gen_account_id()'), (2, 'gen', 'generate', 'gen_uuidv7()', 'gen_order_id()'),
               (3, 'gen', 'generate', 'gen_snowflake()', 'gen_event_id()'),
               (4, 'to_text', 'to text', 'ulid::text', 'account_id::text'), (5, 'to_text', 'to text', 'uuid::text', 'order_id::text'),
               (6, 'to_text', 'to text', 'snowflake::text', 'event_id::text'),
               (7, 'from_text', 'from text', 'text::ulid', 'text::account_id'), (8, 'from_text', 'from text', 'text::uuid', 'text::order_id'),
               (9, 'from_text', 'from text', 'text::snowflake', 'text::event_id')) t(ord, suite, what, kind_op, type_op)
  ORDER BY t.ord"
echo
echo "# total $(( $(date +%s) - t_start )) s"
