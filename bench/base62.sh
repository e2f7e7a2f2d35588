#!/usr/bin/env bash
# base62 benchmark (issue 10, part 5): base62 text in and out for 128- and 64-bit IDs, next to
# base36 and to the built-in text conversions (uuid::text, text::uuid, bigint::text, text::bigint),
# timed interleaved in one session, each net of the bare scan of its column. Uses the harness in
# bench/lib.sh + bench/bench.sql (method: bench/README.md).
#   BENCH_ROWS=1000000 bash bench/base62.sh     quicker run (default 5,000,000)
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
N=$BENCH_ROWS

t_start=$(date +%s)
bench_start

echo "# fixtures: $N random uuids and bigints, with their text in each encoding" >&2
bench_sql -o /dev/null <<SQL
CREATE TABLE bench.vals AS
  SELECT u, n, u::text AS u_text, base36_encode(u) AS u36, base62_encode(u) AS u62,
         n::text AS n_text, base36_encode(n) AS n36, base62_encode(n) AS n62
  FROM (SELECT gen_random_uuid() AS u, (random() * 9223372036854775807)::bigint AS n FROM generate_series(1, $N)) s;
VACUUM (FREEZE, ANALYZE) bench.vals;
SELECT count(*) FROM bench.vals;

-- 1. uuid -> text, net of the bare scan.
SELECT bench.add('uuid_out', 'scan uuid',               \$q\$SELECT count(u) FROM bench.vals\$q\$, $N);
SELECT bench.add('uuid_out', 'uuid::text',              \$q\$SELECT count(u::text) FROM bench.vals\$q\$, $N, 'scan uuid');
SELECT bench.add('uuid_out', 'base36_encode(uuid)',     \$q\$SELECT count(base36_encode(u)) FROM bench.vals\$q\$, $N, 'scan uuid');
SELECT bench.add('uuid_out', 'base62_encode(uuid)',     \$q\$SELECT count(base62_encode(u)) FROM bench.vals\$q\$, $N, 'scan uuid');
SELECT bench.add('uuid_out', 'uuid::base62_128::text',  \$q\$SELECT count(u::base62_128::text) FROM bench.vals\$q\$, $N, 'scan uuid');
SELECT bench.add('uuid_out', 'prefixed_format(base62)', \$q\$SELECT count(prefixed_format('acct', u, 'base62')) FROM bench.vals\$q\$, $N, 'scan uuid');

-- 2. text -> uuid, net of the bare scan of a text column.
SELECT bench.add('uuid_in', 'scan text',                \$q\$SELECT count(u_text) FROM bench.vals\$q\$, $N);
SELECT bench.add('uuid_in', 'text::uuid',               \$q\$SELECT count(u_text::uuid) FROM bench.vals\$q\$, $N, 'scan text');
SELECT bench.add('uuid_in', 'base36_decode_uuid(text)', \$q\$SELECT count(base36_decode_uuid(u36)) FROM bench.vals\$q\$, $N, 'scan text');
SELECT bench.add('uuid_in', 'base62_decode_uuid(text)', \$q\$SELECT count(base62_decode_uuid(u62)) FROM bench.vals\$q\$, $N, 'scan text');
SELECT bench.add('uuid_in', 'text::base62_128',         \$q\$SELECT count(u62::base62_128) FROM bench.vals\$q\$, $N, 'scan text');

-- 3. bigint -> text and back.
SELECT bench.add('int_out', 'scan bigint',              \$q\$SELECT count(n) FROM bench.vals\$q\$, $N);
SELECT bench.add('int_out', 'bigint::text',             \$q\$SELECT count(n::text) FROM bench.vals\$q\$, $N, 'scan bigint');
SELECT bench.add('int_out', 'base36_encode(bigint)',    \$q\$SELECT count(base36_encode(n)) FROM bench.vals\$q\$, $N, 'scan bigint');
SELECT bench.add('int_out', 'base62_encode(bigint)',    \$q\$SELECT count(base62_encode(n)) FROM bench.vals\$q\$, $N, 'scan bigint');
SELECT bench.add('int_in', 'scan text',                 \$q\$SELECT count(n_text) FROM bench.vals\$q\$, $N);
SELECT bench.add('int_in', 'text::bigint',              \$q\$SELECT count(n_text::bigint) FROM bench.vals\$q\$, $N, 'scan text');
SELECT bench.add('int_in', 'base36_decode_bigint(text)', \$q\$SELECT count(base36_decode_bigint(n36)) FROM bench.vals\$q\$, $N, 'scan text');
SELECT bench.add('int_in', 'base62_decode_bigint(text)', \$q\$SELECT count(base62_decode_bigint(n62)) FROM bench.vals\$q\$, $N, 'scan text');
SQL

for suite in uuid_out uuid_in int_out int_in; do bench_run "$suite"; done

bench_table uuid_out 'uuid::text'
bench_table uuid_in 'text::uuid'
bench_table int_out 'bigint::text'
bench_table int_in 'text::bigint'

bench_sql -o /dev/null <<'SQL'
SELECT bench.check('base62_encode(uuid) / uuid::text, net ns per value',
                   bench.ns('uuid_out', 'base62_encode(uuid)') / bench.ns('uuid_out', 'uuid::text'), '<=', 1.0, 'x');
SELECT bench.check('base62_encode(uuid) / base36_encode(uuid), net ns per value',
                   bench.ns('uuid_out', 'base62_encode(uuid)') / bench.ns('uuid_out', 'base36_encode(uuid)'), '<=', 1.5, 'x',
                   'the same work (two 128-bit divisions): equal but for noise');
SELECT bench.check('base62_decode_uuid(text) / text::uuid, net ns per value',
                   bench.ns('uuid_in', 'base62_decode_uuid(text)') / bench.ns('uuid_in', 'text::uuid'), '<=', 1.0, 'x');
SELECT bench.check('base62_encode(bigint) / bigint::text, net ns per value',
                   bench.ns('int_out', 'base62_encode(bigint)') / bench.ns('int_out', 'bigint::text'), '<=', 1.5, 'x');
SELECT bench.check('base62_decode_bigint(text) / text::bigint, net ns per value',
                   bench.ns('int_in', 'base62_decode_bigint(text)') / bench.ns('int_in', 'text::bigint'), '<=', 1.5, 'x');
SQL
bench_targets
echo
echo "# total $(( $(date +%s) - t_start )) s"
