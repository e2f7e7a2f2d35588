#!/usr/bin/env bash
# gen_monotonic_ulid() benchmark (issue 36): what one order for the whole server costs beside
# gen_ulid() (ordered within a session only), on the shared harness (bench/lib.sh, bench/bench.sql).
#   gen         cost per ID in one session, interleaved, net of an empty count(1) loop, against
#               gen_ulid(), gen_random_uuid() and nextval(); preloaded (state in shared memory),
#               then again after a restart without shared_preload_libraries (locked files on 15
#               and 16, where every call takes the state file's lock; the DSM registry on 17+).
#   clients_N   N = 1, 2 and 8 pgbench clients at once, each statement making 1,000 IDs:
#               throughput in IDs/s of the same generators, preloaded; and 8 without preloading.
# id_gen.max_run_ahead = 60 s, so no burst waits for the clock (a millisecond holds 65,536
# monotonic ULIDs). Medians of BENCH_ROUNDS rounds.
#   BENCH_ROWS=200000 BENCH_CLIENT_SECONDS=3 bash bench/monotonic_ulid.sh     quicker
set -euo pipefail
BENCH_ROWS=${BENCH_ROWS:-1000000}
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
N=$BENCH_ROWS
STMT_IDS=1000
t_start=$(date +%s)
restart() { as_pg "$PG_BINDIR/pg_ctl" -D "$BENCH_WORK/pg/data" -l "$BENCH_WORK/pg/server.log" -w restart >/dev/null; }

bench_start
bench_sql -c "LOAD 'id_gen'" -c "ALTER SYSTEM SET shared_preload_libraries = 'id_gen'" \
          -c "ALTER SYSTEM SET id_gen.max_run_ahead = '60s'" -o /dev/null
restart
[ "$(bench_sql -At -c 'SHOW shared_preload_libraries')" = "id_gen" ] || { echo "not preloaded" >&2; exit 1; }
bench_sql -o /dev/null -c "CREATE SEQUENCE bench.seq"

add_suite() { # add_suite SUITE
  bench_sql -o /dev/null <<SQL
SELECT bench.add('$1', 'empty loop',           \$q\$SELECT count(1) FROM generate_series(1, $N)\$q\$, $N);
SELECT bench.add('$1', 'nextval()',            \$q\$SELECT count(nextval('bench.seq')) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SELECT bench.add('$1', 'gen_random_uuid()',    \$q\$SELECT count(gen_random_uuid()) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SELECT bench.add('$1', 'gen_ulid()',           \$q\$SELECT count(gen_ulid()) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SELECT bench.add('$1', 'gen_monotonic_ulid()', \$q\$SELECT count(gen_monotonic_ulid()) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SQL
}
add_clients() { # add_clients SUITE
  bench_sql -o /dev/null <<SQL
SELECT bench.client_add('$1', 'nextval()',            \$q\$SELECT count(nextval('bench.seq')) FROM generate_series(1, $STMT_IDS)\$q\$, $STMT_IDS);
SELECT bench.client_add('$1', 'gen_ulid()',           'SELECT count(gen_ulid()) FROM generate_series(1, $STMT_IDS)', $STMT_IDS);
SELECT bench.client_add('$1', 'gen_monotonic_ulid()', 'SELECT count(gen_monotonic_ulid()) FROM generate_series(1, $STMT_IDS)', $STMT_IDS);
SQL
}
clients() { # clients SUITE N
  add_clients "$1"
  BENCH_CLIENTS=$2 BENCH_CLIENT_JOBS=$(( $2 < 2 ? $2 : 2 )) bench_clients "$1"
  BENCH_CLIENTS=$2 bench_client_table "$1" 'gen_ulid()'
}
# The first call after a start waits for the generator's state (a new mark): not timed.
warm() { bench_sql -o /dev/null -c "SELECT gen_monotonic_ulid()"; }

warm
add_suite gen
bench_run gen
bench_table gen 'gen_ulid()'
for c in 1 2 8; do clients "clients_$c" "$c"; done

bench_sql -c "ALTER SYSTEM RESET shared_preload_libraries" -o /dev/null
restart
warm
echo "# without preloading: generator state in $(bench_sql -At -c 'SELECT snowflake_state_storage()')"
add_suite nopreload
bench_run nopreload
bench_table nopreload 'gen_ulid()'
clients clients_8_nopreload 8

bench_sql -o /dev/null <<'SQL'
SELECT bench.check('gen_monotonic_ulid() / gen_ulid(), preloaded, net ns per ID',
                   bench.ns('gen', 'gen_monotonic_ulid()') / bench.ns('gen', 'gen_ulid()'), '<=', 2.0, 'x');
SELECT bench.check('gen_monotonic_ulid() / gen_random_uuid(), preloaded, net ns per ID',
                   bench.ns('gen', 'gen_monotonic_ulid()') / bench.ns('gen', 'gen_random_uuid()'), '<=', 1.0, 'x');
SELECT bench.check('gen_monotonic_ulid() / nextval() IDs/s, 8 clients, preloaded',
                   bench.ids_per_s('clients_8', 'gen_monotonic_ulid()') / bench.ids_per_s('clients_8', 'nextval()'), '>=', 1.0, 'x');
SQL
bench_targets
echo
echo "# total $(( $(date +%s) - t_start )) s"
