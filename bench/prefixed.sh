#!/usr/bin/env bash
# gen_prefixed() benchmark: a registered prefix's new ID (a UUIDv7 as prefixed base36 or base62
# text, the prefix checked against the registry through the session's cache) next to gen_ulid(),
# gen_uuidv7() and gen_random_uuid(), and next to prefixed_format(prefix, gen_uuidv7()) (the
# same text without the registry check), timed interleaved in one session, each net of the empty
# loop. Uses the harness in bench/lib.sh + bench/bench.sql (method: bench/README.md).
#   BENCH_ROWS=1000000 bash bench/prefixed.sh     quicker run (default 5,000,000)
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
N=$BENCH_ROWS

t_start=$(date +%s)
bench_start

bench_sql -o /dev/null <<SQL
SELECT prefix_register('acct', 'accounts');
-- Fill the session's cache once, as any session after its first call.
SELECT gen_prefixed('acct');

SELECT bench.add('gen', 'empty loop',                          \$q\$SELECT count(1) FROM generate_series(1, $N)\$q\$, $N);
SELECT bench.add('gen', 'gen_random_uuid()',                   \$q\$SELECT count(gen_random_uuid()) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SELECT bench.add('gen', 'gen_ulid()',                          \$q\$SELECT count(gen_ulid()) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SELECT bench.add('gen', 'gen_uuidv7()',                        \$q\$SELECT count(gen_uuidv7()) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SELECT bench.add('gen', 'gen_prefixed(p)',                     \$q\$SELECT count(gen_prefixed('acct')) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SELECT bench.add('gen', 'gen_prefixed(p, base62)',             \$q\$SELECT count(gen_prefixed('acct', 'base62')) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SELECT bench.add('gen', 'prefixed_format(p, gen_uuidv7())',    \$q\$SELECT count(prefixed_format('acct', gen_uuidv7())) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SQL

bench_run gen
bench_table gen 'gen_ulid()'

bench_sql -o /dev/null <<'SQL'
SELECT bench.check('gen_prefixed(p) / gen_ulid(), net ns per ID',
                   bench.ns('gen', 'gen_prefixed(p)') / bench.ns('gen', 'gen_ulid()'), '<=', 2.0, 'x',
                   'goal: at ULID speed (within 2x)');
SELECT bench.check('gen_prefixed(p) - prefixed_format(p, gen_uuidv7()), net ns per ID',
                   bench.ns('gen', 'gen_prefixed(p)') - bench.ns('gen', 'prefixed_format(p, gen_uuidv7())'), '<=', 30,
                   'ns', 'the registry check, from the cache (the 0.2.0 probe cost about 1000 ns)');
SQL
bench_targets
echo
echo "# total $(( $(date +%s) - t_start )) s"
