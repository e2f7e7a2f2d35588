#!/usr/bin/env bash
# id_permute benchmark: the keyed permutation (FF1 over AES-128) per value, next to nextval(),
# gen_random_uuid() and permuteseq's cipher (a Feistel network over PostgreSQL's hash_uint32,
# the weak alternative users pick for speed), timed interleaved in one session, each net of the
# empty loop. AES-NI where the CPU has it, and the OpenSSL fallback (id_gen.permute_aes_ni = off)
# in the same run. Uses the harness in bench/lib.sh + bench/bench.sql (method: bench/README.md).
#   BENCH_ROWS=1000000 bash bench/permute.sh     quicker run (default 5,000,000)
# permuteseq is built with PGXS from IDGEN_PERMUTESEQ_TARBALL (default: the newest
# ../shared/vendor/permuteseq-*.tar.gz next to the repository) and installed into PG_CONFIG's
# server, for this comparison only; without the tarball its lines are left out.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
N=$BENCH_ROWS

t_start=$(date +%s)
bench_start

PERMUTESEQ_TARBALL=${IDGEN_PERMUTESEQ_TARBALL:-$(compgen -G "$ROOT/../shared/vendor/permuteseq-*.tar.gz" | sort -V | tail -1 || true)}
have_permuteseq=
if [ -n "$PERMUTESEQ_TARBALL" ] && [ -f "$PERMUTESEQ_TARBALL" ]; then
  mkdir -p "$BENCH_WORK/permuteseq"
  tar -xzf "$PERMUTESEQ_TARBALL" -C "$BENCH_WORK/permuteseq" --strip-components=1
  make -s -C "$BENCH_WORK/permuteseq" PG_CONFIG="$PG_CONFIG" >/dev/null
  make -s -C "$BENCH_WORK/permuteseq" PG_CONFIG="$PG_CONFIG" install >/dev/null
  bench_sql -c "CREATE EXTENSION permuteseq"
  have_permuteseq=1
  echo "# permuteseq: $(basename "$PERMUTESEQ_TARBALL")"
else
  echo "# permuteseq: no source tarball (set IDGEN_PERMUTESEQ_TARBALL): its comparison is left out"
fi

# The OpenSSL contender turns AES-NI off for its own transaction only (set_config(..., true); the
# harness commits after every timed query). The one-row subquery is joined before any row reaches
# id_permute().
bench_sql -o /dev/null <<SQL
SELECT id_permute_key('orders');
SELECT id_permute_key('orders_js', domain => 9007199254740991);
CREATE SEQUENCE bench.seq;
CREATE SEQUENCE bench.seq2;
-- Fill each session's key cache once, as any session after its first call.
SELECT id_permute(1, 'orders'), id_permute(1, 'orders_js'), id_permute(1, 'orders', 'invoices_seq');

SELECT bench.add('gen', 'empty loop',                  \$q\$SELECT count(1) FROM generate_series(1, $N)\$q\$, $N);
SELECT bench.add('gen', 'nextval()',                   \$q\$SELECT count(nextval('bench.seq')) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SELECT bench.add('gen', 'gen_random_uuid()',           \$q\$SELECT count(gen_random_uuid()) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SELECT bench.add('gen', 'id_permute(g, key)',          \$q\$SELECT count(id_permute(g, 'orders')) FROM generate_series(1, $N) g\$q\$, $N, 'empty loop');
SELECT bench.add('gen', 'id_permute(g, key) OpenSSL',  \$q\$SELECT count(id_permute(g, 'orders')) FROM (SELECT set_config('id_gen.permute_aes_ni', 'off', true)) s, generate_series(1, $N) g\$q\$, $N, 'empty loop');
SELECT bench.add('gen', 'id_permute(g, key, tweak)',   \$q\$SELECT count(id_permute(g, 'orders', 'invoices_seq')) FROM generate_series(1, $N) g\$q\$, $N, 'empty loop');
SELECT bench.add('gen', 'id_permute(g, js key)',       \$q\$SELECT count(id_permute(g, 'orders_js')) FROM generate_series(1, $N) g\$q\$, $N, 'empty loop');
SELECT bench.add('gen', 'id_unpermute(g, key)',        \$q\$SELECT count(id_unpermute(g, 'orders')) FROM generate_series(1, $N) g\$q\$, $N, 'empty loop');
SELECT bench.add('gen', 'id_permute(nextval(), key)',  \$q\$SELECT count(id_permute(nextval('bench.seq2'), 'orders')) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
-- Values out of order (no run made ahead is ever used): the cost of one value alone.
SELECT bench.add('gen', 'scattered loop',              \$q\$SELECT count((g::int8 * 7919) % $N + 1) FROM generate_series(1, $N) g\$q\$, $N);
SELECT bench.add('gen', 'id_permute(scattered, key)',  \$q\$SELECT count(id_permute((g::int8 * 7919) % $N + 1, 'orders')) FROM generate_series(1, $N) g\$q\$, $N, 'scattered loop');
SQL
if [ -n "$have_permuteseq" ]; then
  # The same domains as the keys above: [1, 2^63 - 1] and [1, 2^53 - 1].
  bench_sql -o /dev/null <<SQL
CREATE SEQUENCE bench.seq3;
SELECT bench.add('gen', 'permuteseq range_encrypt_element(g)',    \$q\$SELECT count(range_encrypt_element(g, 1, 9223372036854775807, 8172638162387)) FROM generate_series(1, $N) g\$q\$, $N, 'empty loop');
SELECT bench.add('gen', 'permuteseq range_encrypt_element(g) js', \$q\$SELECT count(range_encrypt_element(g, 1, 9007199254740991, 8172638162387)) FROM generate_series(1, $N) g\$q\$, $N, 'empty loop');
SELECT bench.add('gen', 'permuteseq permute_nextval()',           \$q\$SELECT count(permute_nextval('bench.seq3'::regclass, 8172638162387)) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SQL
fi

bench_run gen
bench_table gen 'nextval()'

bench_sql -o /dev/null <<'SQL'
SELECT bench.check('id_permute(g, key) / nextval(), net ns per value',
                   bench.ns('gen', 'id_permute(g, key)') / bench.ns('gen', 'nextval()'), '<=', 1.0, 'x',
                   'goal: at least as fast as nextval()');
SELECT bench.check('id_permute(nextval(), key) / nextval(), net ns per value',
                   bench.ns('gen', 'id_permute(nextval(), key)') / bench.ns('gen', 'nextval()'), '<=', 1.6, 'x',
                   'a DEFAULT id_permute(nextval(), key) next to DEFAULT nextval()');
SQL
if [ -n "$have_permuteseq" ]; then
  bench_sql -o /dev/null <<'SQL'
SELECT bench.check('id_permute(g, key) / permuteseq range_encrypt_element(g), same domain',
                   bench.ns('gen', 'id_permute(g, key)') / bench.ns('gen', 'permuteseq range_encrypt_element(g)'),
                   '<=', 1.2, 'x', 'FF1 (AES) next to a Feistel network over a non-cryptographic hash');
SELECT bench.check('id_permute(nextval(), key) / permuteseq permute_nextval()',
                   bench.ns('gen', 'id_permute(nextval(), key)') / bench.ns('gen', 'permuteseq permute_nextval()'),
                   '<=', 1.2, 'x', 'the same, drawing from a sequence');
SQL
fi
bench_targets
echo
echo "# total $(( $(date +%s) - t_start )) s"
