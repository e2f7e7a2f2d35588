#!/usr/bin/env bash
# snowflake benchmark (issues 4 and 8), on the shared harness (bench/lib.sh, bench/bench.sql):
#   gen    cost per ID of gen_snowflake() and a shard's next_id(), preloaded, against nextval()
#          and against the published PL/pgSQL recipe (nextval() % 1024), interleaved in one
#          session, net of an empty count(1) loop. Bursts stay inside the run-ahead allowance
#          (id_gen.max_run_ahead = 60 s here), so no call waits for the clock.
#   clients   BENCH_CLIENTS (8) pgbench clients at once, each statement making 1,000 IDs:
#          throughput in IDs/s of the same generators against nextval(), with the default
#          run-ahead allowance (1 s), so a generator is held to its layout's ceiling (4,096 IDs
#          per ms per node, 1,024 per shard); one variant spreads the clients over as many shards.
#   sustained   10 s of back-to-back IDs with the default allowance (1 s): the rate must reach
#          the layout's capacity (4,096 IDs/ms per node, 1,024 per shard). Measured as IDs per ms
#          of ID time (every sequence slot used = capacity) and as wall-clock rate.
#   nopreload, clients_nopreload   gen and clients again after a restart without
#          shared_preload_libraries (state in locked files): what users who cannot preload get.
# Targets (issue 8): without preloading, gen_snowflake() at least as fast as nextval() in one
# session (ns/ID) and with 8 clients (IDs/s); preloaded, >= 3x. A shard's next_id(): the same per
# call; its throughput the lesser of that and the layout's ceiling.
#   BENCH_QUICK=1 bash bench/snowflake.sh          a few minutes: 200,000 IDs per query, 3 s per
#                                                  client run, 3 s sustained (each overridable)
set -euo pipefail
if [ -n "${BENCH_QUICK:-}" ]; then
  BENCH_ROWS=${BENCH_ROWS:-200000}
  BENCH_CLIENT_SECONDS=${BENCH_CLIENT_SECONDS:-3}
  BENCH_SUSTAIN_SECONDS=${BENCH_SUSTAIN_SECONDS:-3}
fi
BENCH_ROWS=${BENCH_ROWS:-1000000}
# Each client run starts after 1 s of idle, with the 1 s run-ahead allowance back in full: a
# generator held to its ceiling then makes (T + 1) / T times the ceiling's IDs in T seconds, the
# same in every round.
BENCH_CLIENT_REST=${BENCH_CLIENT_REST:-1}
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
N=$BENCH_ROWS
SUSTAIN_S=${BENCH_SUSTAIN_SECONDS:-10}
STMT_IDS=1000                      # IDs per statement in the clients suites
NODE_CEIL=4096000                  # IDs/s: 12 sequence bits per ms (twitter layout, one node)
SHARD_CEIL=1024000                 # IDs/s: 10 sequence bits per ms (one shard)
SHARDS_NAME="shard_1..$BENCH_CLIENTS.next_id()"
CAPPED_NOTE="# a generator held to its ceiling shows up to (T + 1 s) / T = $(awk -v t="$BENCH_CLIENT_SECONDS" 'BEGIN { printf "%.3f", (t + 1) / t }') of it: the 1 s run-ahead allowance, back in full after $BENCH_CLIENT_REST s of idle, is spent in the run"

restart() { as_pg "$PG_BINDIR/pg_ctl" -D "$BENCH_WORK/pg/data" -l "$BENCH_WORK/pg/server.log" -w restart >/dev/null; }
# set_run_ahead VALUE: for sessions started from now on (LOAD first: without preloading, a session
# that has not loaded the library does not know the setting).
set_run_ahead() {
  bench_sql -o /dev/null -c "LOAD 'id_gen'" -c "ALTER SYSTEM SET id_gen.max_run_ahead = '$1'" -c "SELECT pg_reload_conf()"
}
# settle: sleep until the clock has passed every ID issued so far. A suite run with the 60 s
# allowance can leave a generator seconds ahead of the clock; under the 1 s default, a call that
# would have to wait longer than that fails instead of waiting. Call it before lowering the allowance.
settle() {
  local probes="snowflake_time(gen_snowflake())" s lead
  for s in $(seq "$BENCH_CLIENTS"); do probes+=", shard_id_time(shard_$s.next_id())"; done
  lead=$(bench_sql -At -c "SELECT greatest(0, extract(epoch FROM greatest($probes) - clock_timestamp()))::numeric(10, 3)")
  echo "#   generators ahead of the clock by $lead s: waiting" >&2
  sleep "$(awk -v l="$lead" 'BEGIN { print l + 0.1 }')"
}
# add_clients SUITE: the many-clients contenders, one pgbench script each.
add_clients() {
  bench_sql -o /dev/null <<SQL
SELECT bench.client_add('$1', 'empty loop',        'SELECT count(1) FROM generate_series(1, $STMT_IDS)', $STMT_IDS);
SELECT bench.client_add('$1', 'nextval()',         \$q\$SELECT count(nextval('bench.seq')) FROM generate_series(1, $STMT_IDS)\$q\$, $STMT_IDS);
SELECT bench.client_add('$1', 'gen_snowflake()',   'SELECT count(gen_snowflake()) FROM generate_series(1, $STMT_IDS)', $STMT_IDS, $NODE_CEIL);
SELECT bench.client_add('$1', 'shard_1.next_id()', 'SELECT count(shard_1.next_id()) FROM generate_series(1, $STMT_IDS)', $STMT_IDS, $SHARD_CEIL);
-- pgbench numbers its clients 0..n-1 (:client_id); in simple query mode it substitutes the
-- variable into the text, so each client calls its own shard's next_id().
SELECT bench.client_add('$1', '$SHARDS_NAME',
  E'\\\\set s :client_id % $BENCH_CLIENTS + 1\\nSELECT count(shard_:s.next_id()) FROM generate_series(1, $STMT_IDS)',
  $STMT_IDS, $BENCH_CLIENTS::float8 * $SHARD_CEIL);
SQL
}

bench_start

# Preload the library, node 1, a large run-ahead allowance for the cost suite.
bench_sql -c "LOAD 'id_gen'" -c "ALTER SYSTEM SET shared_preload_libraries = 'id_gen'" \
          -c "ALTER SYSTEM SET id_gen.node_id = 1" -c "ALTER SYSTEM SET id_gen.max_run_ahead = '60s'"
restart
[ "$(bench_sql -At -c 'SHOW shared_preload_libraries')" = "id_gen" ] || { echo "not preloaded" >&2; exit 1; }

bench_sql -o /dev/null <<SQL
CREATE SEQUENCE bench.seq;
SELECT create_shard(s) FROM generate_series(1, greatest($BENCH_CLIENTS, 1)) s;
-- The recipe from Instagram's engineering post ("Sharding & IDs at Instagram", 2012), as published.
CREATE SEQUENCE bench.table_id_seq;
CREATE FUNCTION bench.recipe_next_id(OUT result bigint) AS \$\$
DECLARE
    our_epoch bigint := 1314220021721;
    seq_id bigint;
    now_millis bigint;
    shard_id int := 5;
BEGIN
    SELECT nextval('bench.table_id_seq') % 1024 INTO seq_id;
    SELECT FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) INTO now_millis;
    result := (now_millis - our_epoch) << 23;
    result := result | (shard_id << 10);
    result := result | (seq_id);
END;
\$\$ LANGUAGE PLPGSQL;

SELECT bench.add('gen', 'empty loop',            \$q\$SELECT count(1) FROM generate_series(1, $N)\$q\$, $N);
SELECT bench.add('gen', 'nextval()',             \$q\$SELECT count(nextval('bench.seq')) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SELECT bench.add('gen', 'gen_snowflake()',       \$q\$SELECT count(gen_snowflake()) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SELECT bench.add('gen', 'shard_1.next_id()',     \$q\$SELECT count(shard_1.next_id()) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SELECT bench.add('gen', 'PL/pgSQL recipe',       \$q\$SELECT count(bench.recipe_next_id()) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');

CREATE TABLE bench.sustained (name text, ids bigint, wall_ms float8, span_ms float8, capacity_per_ms int);
CREATE TABLE bench.sustained_part (name text, ids bigint, lo bigint, hi bigint, t0 timestamptz, t1 timestamptz);
SQL

bench_run gen
bench_table gen 'nextval()'

# Many clients, preloaded, with the default allowance.
add_clients clients
settle
set_run_ahead 1s
bench_clients clients
bench_client_table clients 'nextval()' "$CAPPED_NOTE"

# Sustained: the default 1 s allowance, then SUSTAIN_S seconds' worth of capacity on top of it,
# from BENCH_SUSTAIN_CONNS sessions at once (they share the node's / shard's capacity).
SUSTAIN_CONNS=${BENCH_SUSTAIN_CONNS:-2}
sustain() { # sustain NAME CALL CAPACITY_PER_MS TIME_SHIFT
  local n=$(( $3 * (SUSTAIN_S * 1000 + 1000) / SUSTAIN_CONNS )) pids=() i
  echo "#   sustained: $1, $SUSTAIN_CONNS sessions x $n IDs" >&2
  sleep 2  # let the clock pass any run-ahead left by earlier runs
  for i in $(seq "$SUSTAIN_CONNS"); do
    # generate_series in the target list streams (in FROM it would be materialized first, inside
    # the timed span); now() is the statement's start.
    bench_sql -o /dev/null -c "INSERT INTO bench.sustained_part
      SELECT '$1', count(*), min(x), max(x), now(), clock_timestamp()
      FROM (SELECT $2::bigint AS x FROM (SELECT generate_series(1, $n)) g) s" &
    pids+=($!)
  done
  for i in "${pids[@]}"; do wait "$i"; done
  bench_sql -o /dev/null -c "INSERT INTO bench.sustained SELECT '$1', sum(ids),
      extract(epoch FROM max(t1) - min(t0)) * 1000, (max(hi) >> $4) - (min(lo) >> $4) + 1, $3
      FROM bench.sustained_part WHERE name = '$1'"
}
sustain 'gen_snowflake() (twitter, 4096/ms)' 'gen_snowflake()' 4096 22
sustain 'shard_1.next_id() (1024/ms)' 'shard_1.next_id()' 1024 23
echo
echo "## sustained ($SUSTAIN_CONNS sessions, ${SUSTAIN_S} s of capacity after a 1 s allowance): IDs per ms of ID time, and wall-clock rate"
bench_sql -P footer=off -c "SELECT name, ids, round(wall_ms) AS wall_ms, span_ms AS id_time_span_ms,
  round((ids / span_ms)::numeric, 1) AS ids_per_id_ms, capacity_per_ms,
  round((ids / wall_ms)::numeric, 1) AS wall_ids_per_ms FROM bench.sustained"

# Without preloading: the same cluster restarted without shared_preload_libraries.
bench_sql -c "ALTER SYSTEM RESET shared_preload_libraries" -c "ALTER SYSTEM SET id_gen.max_run_ahead = '60s'" -o /dev/null
restart
[ -z "$(bench_sql -At -c 'SHOW shared_preload_libraries')" ] || { echo "still preloaded" >&2; exit 1; }
bench_sql -o /dev/null <<SQL
SELECT bench.add('nopreload', 'empty loop',        \$q\$SELECT count(1) FROM generate_series(1, $N)\$q\$, $N);
SELECT bench.add('nopreload', 'nextval()',         \$q\$SELECT count(nextval('bench.seq')) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SELECT bench.add('nopreload', 'gen_snowflake()',   \$q\$SELECT count(gen_snowflake()) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SELECT bench.add('nopreload', 'shard_1.next_id()', \$q\$SELECT count(shard_1.next_id()) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SELECT bench.add('nopreload', 'PL/pgSQL recipe',   \$q\$SELECT count(bench.recipe_next_id()) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SQL
bench_run nopreload
bench_table nopreload 'nextval()'

add_clients clients_nopreload
settle
set_run_ahead 1s
bench_clients clients_nopreload
bench_client_table clients_nopreload 'nextval()' "$CAPPED_NOTE"

# Throughput targets: IDs/s over nextval()'s in the same suite, at least the lesser of the factor
# and the generator's ceiling over nextval()'s IDs/s.
check_clients() { # SUITE CONTENDER FACTOR LABEL
  bench_sql -o /dev/null <<SQL
SELECT bench.check('$2 / nextval() IDs/s, $BENCH_CLIENTS clients, $4',
                   bench.ids_per_s('$1', '$2') / bench.ids_per_s('$1', 'nextval()'), '>=',
                   least($3, bench.ceiling('$1', '$2') / bench.ids_per_s('$1', 'nextval()')), 'x',
                   round(bench.ids_per_s('$1', '$2')) || ' vs ' || round(bench.ids_per_s('$1', 'nextval()'))
                   || ' IDs/s; ' || round((bench.ids_per_s('$1', '$2') / bench.ceiling('$1', '$2'))::numeric, 3)
                   || ' of the ceiling ' || bench.ceiling('$1', '$2') || ' IDs/s; goal: the lesser of $3x and the ceiling');
SQL
}
bench_sql -o /dev/null <<SQL
SELECT bench.check('gen_snowflake() / nextval() ns per ID, preloaded', bench.ns('gen', 'gen_snowflake()') / bench.ns('gen', 'nextval()'), '<=', 1.0 / 3, 'x');
SELECT bench.check('shard_1.next_id() / nextval() ns per ID, preloaded', bench.ns('gen', 'shard_1.next_id()') / bench.ns('gen', 'nextval()'), '<=', 1.0 / 3, 'x');
SELECT bench.check('recipe / gen_snowflake(), preloaded', bench.ns('gen', 'PL/pgSQL recipe') / bench.ns('gen', 'gen_snowflake()'), '>=', 5, 'x');
SELECT bench.check('recipe / next_id(), preloaded', bench.ns('gen', 'PL/pgSQL recipe') / bench.ns('gen', 'shard_1.next_id()'), '>=', 5, 'x');
SELECT bench.check('sustained ' || name, ids / span_ms / capacity_per_ms, '>=', 0.99,
                   'of capacity (IDs per ms of ID time / capacity; first and last ms are partial)',
                   round((ids / span_ms)::numeric, 1) || ' IDs/ms of ID time, wall ' || round((ids / wall_ms)::numeric) || ' IDs/ms')
FROM bench.sustained;
SELECT bench.check('gen_snowflake() / nextval() ns per ID, not preloaded', bench.ns('nopreload', 'gen_snowflake()') / bench.ns('nopreload', 'nextval()'), '<=', 1, 'x');
SELECT bench.check('shard_1.next_id() / nextval() ns per ID, not preloaded', bench.ns('nopreload', 'shard_1.next_id()') / bench.ns('nopreload', 'nextval()'), '<=', 1, 'x');
SELECT bench.check('recipe / next_id(), not preloaded', bench.ns('nopreload', 'PL/pgSQL recipe') / bench.ns('nopreload', 'shard_1.next_id()'), '>=', 1, 'x', 'informational: locked-file state');
SQL
for c in 'gen_snowflake()' 'shard_1.next_id()' "$SHARDS_NAME"; do
  check_clients clients "$c" 3 preloaded
done
for c in 'gen_snowflake()' 'shard_1.next_id()' "$SHARDS_NAME"; do
  check_clients clients_nopreload "$c" 1 'not preloaded'
done
bench_targets
