#!/usr/bin/env bash
# The C++ library's generators against the extension's (issue 11): ns per ID of UlidGenerator,
# Uuidv7Generator and SnowflakeGenerator (bench/cxxlib_bench.cpp, in this process) next to
# gen_ulid(), gen_uuidv7() and gen_snowflake() measured in SQL in the same run, in one session on a
# preloaded cluster, net of an empty count(1) loop (see bench/README.md for the method). Both
# sides: median over BENCH_ROUNDS rounds, CPU clock (the calling thread; the backend) and wall
# clock. Snowflake generators run with a 60 s run-ahead allowance, so a burst measures the call,
# not the layout's 4,096 IDs per ms.
#   bash bench/cxxlib.sh                     1,000,000 IDs per run, 5 rounds
#   BENCH_ROWS=200000 bash bench/cxxlib.sh   quicker
set -euo pipefail
BENCH_ROWS=${BENCH_ROWS:-1000000}
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
N=$BENCH_ROWS
BUILD=${BENCH_BUILD_DIR:-$ROOT/build}
t_start=$(date +%s)

echo "# building bench_cxxlib in $BUILD" >&2
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD" --target bench_cxxlib -j"$JOBS" >/dev/null

bench_start
# Preloaded (generator state in shared memory), node 1, run-ahead 60 s.
bench_sql -o /dev/null -c "ALTER SYSTEM SET shared_preload_libraries = 'id_gen'"
as_pg "$PG_BINDIR/pg_ctl" -D "$BENCH_WORK/pg/data" -l "$BENCH_WORK/pg/server.log" -w restart >/dev/null
bench_sql -o /dev/null -c "ALTER SYSTEM SET id_gen.node_id = 1" -c "ALTER SYSTEM SET id_gen.max_run_ahead = '60s'" \
  -c "SELECT pg_reload_conf()"

bench_sql -o /dev/null <<SQL
SELECT bench.add('gen', 'empty loop',        \$q\$SELECT count(1) FROM generate_series(1, $N)\$q\$, $N);
SELECT bench.add('gen', 'gen_random_uuid()', \$q\$SELECT count(gen_random_uuid()) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SELECT bench.add('gen', 'gen_ulid()',        \$q\$SELECT count(gen_ulid()) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SELECT bench.add('gen', 'gen_uuidv7()',      \$q\$SELECT count(gen_uuidv7()) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SELECT bench.add('gen', 'gen_snowflake()',   \$q\$SELECT count(gen_snowflake()) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
CREATE TABLE bench.lib_sample (name text, round int, cpu_ns float8, wall_ns float8, ids bigint);
SQL

bench_run gen
echo "# library: $BUILD/bench_cxxlib $BENCH_ROUNDS $N" >&2
"$BUILD/bench_cxxlib" "$BENCH_ROUNDS" "$N" >"$BENCH_WORK/lib.tsv"
bench_sql -c "\\copy bench.lib_sample FROM '$BENCH_WORK/lib.tsv'"

for clock in cpu wall; do bench_table gen 'gen_random_uuid()' $clock; done

echo
echo "## library: median ns/ID over $BENCH_ROUNDS rounds of $N IDs (CPU clock of the calling thread; 2 threads: of the process)"
bench_sql -P footer=off -c "
  SELECT name AS contender, count(*) AS rounds,
         round(bench.median(array_agg(cpu_ns / ids))::numeric, 1) AS \"cpu ns/ID\",
         round(bench.median(array_agg(wall_ns / ids))::numeric, 1) AS \"wall ns/ID\",
         round((100 * (max(cpu_ns) - min(cpu_ns)) / bench.median(array_agg(cpu_ns)))::numeric, 0) AS \"spread %\"
  FROM bench.lib_sample GROUP BY name ORDER BY min(ctid)"

echo
echo "## the library against the extension, same run: median ns per ID (extension: net of the empty loop)"
bench_sql -P footer=off -c "
  WITH lib AS (SELECT name, bench.median(array_agg(cpu_ns / ids)) AS cpu, bench.median(array_agg(wall_ns / ids)) AS wall
               FROM bench.lib_sample GROUP BY name),
  pairs(kind, lib_name, sql_name) AS (VALUES ('ULID', 'UlidGenerator::next()', 'gen_ulid()'),
                                             ('UUIDv7', 'Uuidv7Generator::next()', 'gen_uuidv7()'),
                                             ('snowflake', 'SnowflakeGenerator::next()', 'gen_snowflake()'))
  SELECT p.kind, p.lib_name AS library, round(l.cpu::numeric, 1) AS \"library cpu ns\",
         p.sql_name AS extension, round(bench.ns('gen', p.sql_name)::numeric, 1) AS \"extension cpu ns\",
         round((bench.ns('gen', p.sql_name) / l.cpu)::numeric, 1) AS \"extension / library\",
         round(l.wall::numeric, 1) AS \"library wall ns\", round(bench.ns('gen', p.sql_name, 'wall')::numeric, 1) AS \"extension wall ns\"
  FROM pairs p JOIN lib l ON l.name = p.lib_name ORDER BY p.kind"
echo
echo "# total $(( $(date +%s) - t_start )) s"
