#!/usr/bin/env bash
# objectid benchmark (issue 10, part 3): gen_objectid() next to gen_random_uuid(), nextval() and
# gen_ulid(); objectid text out and in next to uuid's (uuid::text, text::uuid); Extended JSON out.
# Contenders are timed interleaved in one session, each net of its baseline (an empty loop, or the
# bare scan of the same column). Uses the harness in bench/lib.sh + bench/bench.sql (method:
# bench/README.md).
#   BENCH_ROWS=1000000 bash bench/objectid.sh     quicker run (default 5,000,000)
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
N=$BENCH_ROWS

t_start=$(date +%s)
bench_start

echo "# fixtures: $N objectids and uuids, with their text" >&2
bench_sql -o /dev/null <<SQL
CREATE SEQUENCE bench.seq;
CREATE TABLE bench.vals AS
  SELECT o, u, o::text AS o_text, u::text AS u_text
  FROM (SELECT gen_objectid() AS o, gen_random_uuid() AS u FROM generate_series(1, $N)) s;
VACUUM (FREEZE, ANALYZE) bench.vals;
SELECT count(*) FROM bench.vals;

-- 1. Generation, net of an empty loop.
SELECT bench.add('gen', 'empty loop',        \$q\$SELECT count(1) FROM generate_series(1, $N)\$q\$, $N);
SELECT bench.add('gen', 'nextval()',         \$q\$SELECT count(nextval('bench.seq')) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SELECT bench.add('gen', 'gen_random_uuid()', \$q\$SELECT count(gen_random_uuid()) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SELECT bench.add('gen', 'gen_ulid()',        \$q\$SELECT count(gen_ulid()) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SELECT bench.add('gen', 'gen_objectid()',    \$q\$SELECT count(gen_objectid()) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');

-- 2. ID -> text, net of the bare scan of the column.
SELECT bench.add('to_text', 'scan uuid',        \$q\$SELECT count(u) FROM bench.vals\$q\$, $N);
SELECT bench.add('to_text', 'scan objectid',    \$q\$SELECT count(o) FROM bench.vals\$q\$, $N);
SELECT bench.add('to_text', 'uuid::text',       \$q\$SELECT count(u::text) FROM bench.vals\$q\$, $N, 'scan uuid');
SELECT bench.add('to_text', 'objectid::text',   \$q\$SELECT count(o::text) FROM bench.vals\$q\$, $N, 'scan objectid');
SELECT bench.add('to_text', 'objectid::jsonb',  \$q\$SELECT count(o::jsonb) FROM bench.vals\$q\$, $N, 'scan objectid');

-- 3. text -> ID, net of the bare scan of the text column.
SELECT bench.add('from_text', 'scan uuid text',     \$q\$SELECT count(u_text) FROM bench.vals\$q\$, $N);
SELECT bench.add('from_text', 'scan objectid text', \$q\$SELECT count(o_text) FROM bench.vals\$q\$, $N);
SELECT bench.add('from_text', 'text::uuid',         \$q\$SELECT count(u_text::uuid) FROM bench.vals\$q\$, $N, 'scan uuid text');
SELECT bench.add('from_text', 'text::objectid',     \$q\$SELECT count(o_text::objectid) FROM bench.vals\$q\$, $N, 'scan objectid text');
SQL

for suite in gen to_text from_text; do bench_run "$suite"; done

bench_table gen 'gen_random_uuid()'
bench_table to_text 'uuid::text'
bench_table from_text 'text::uuid'

bench_sql -o /dev/null <<'SQL'
SELECT bench.check('gen_objectid() / gen_random_uuid(), net ns per ID',
                   bench.ns('gen', 'gen_objectid()') / bench.ns('gen', 'gen_random_uuid()'), '<=', 1.0, 'x');
SELECT bench.check('objectid::text / uuid::text, net ns per value',
                   bench.ns('to_text', 'objectid::text') / bench.ns('to_text', 'uuid::text'), '<=', 1.0, 'x');
SELECT bench.check('text::objectid / text::uuid, net ns per value',
                   bench.ns('from_text', 'text::objectid') / bench.ns('from_text', 'text::uuid'), '<=', 1.0, 'x');
SQL
bench_targets
echo
echo "# total $(( $(date +%s) - t_start )) s"
