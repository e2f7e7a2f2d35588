#!/usr/bin/env bash
# A shard's next_id() with and without a cluster block (62_shard_cluster.sql), preloaded, against
# nextval() in the same interleaved rounds, net of an empty count(1) loop.
#   shard_1.next_id()   a shard issued from its whole sequence field (no row in shard_blocks)
#   shard_2.next_id()   a shard with a block of this server's in shard_blocks, as
#                       shard_cluster_sync() grants one on a Citus node: the same 10 bits (1,024
#                       IDs per ms), so only the block path differs
#   shard_2 after invalidation   the block path with a relcache invalidation of another table
#                       every 1,000 IDs (what DDL, ANALYZE or a temporary table in the database
#                       sends). Before 0.3.0 it dropped the whole shard cache, so the shard and its
#                       block were looked up again; since 0.3.0 only a change to the shard tables,
#                       the shard's function or its schema drops an entry
#   one row per transaction   8 clients (pgbench), each transaction one INSERT whose DEFAULT is
#                       nextval() or shard_1.next_id(): the first next_id() of a transaction takes
#                       the SHARE locks on shard_registry and shard_blocks that keep the cache current
# Target: the block path costs at most 10 % over the plain one (ns per ID).
#   BENCH_ROWS (200000)  IDs per timed query; BENCH_ROUNDS (5)
set -euo pipefail
BENCH_ROWS=${BENCH_ROWS:-200000}
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
N=$BENCH_ROWS
STMTS=$(( N / 1000 ))

restart() { as_pg "$PG_BINDIR/pg_ctl" -D "$BENCH_WORK/pg/data" -l "$BENCH_WORK/pg/server.log" -w restart >/dev/null; }

bench_start
bench_sql -c "LOAD 'id_gen'" -c "ALTER SYSTEM SET shared_preload_libraries = 'id_gen'" \
          -c "ALTER SYSTEM SET id_gen.node_id = 1" -c "ALTER SYSTEM SET id_gen.max_run_ahead = '60s'"
restart
[ "$(bench_sql -At -c 'SHOW shared_preload_libraries')" = "id_gen" ] || { echo "not preloaded" >&2; exit 1; }

bench_sql -o /dev/null <<SQL
CREATE SEQUENCE bench.seq;
SELECT create_shard(1), create_shard(2);
-- This server's block of shard 2: the whole field, from the shard's epoch on.
INSERT INTO shard_blocks (shard, node_id, seq_lo, seq_bits, valid_from)
    SELECT 2, current_setting('id_gen.node_id')::int4, 0, 10, epoch FROM shard_registry WHERE shard = 2;
-- 1,000 IDs at a time, each after an invalidation of a relation's relcache entry (an ALTER TABLE;
-- a backend applies its own invalidations at the next command), which drops the shard cache.
CREATE TABLE bench.inv (x int);
CREATE FUNCTION bench.after_invalidation(stmts int) RETURNS void LANGUAGE plpgsql AS \$\$
BEGIN
    FOR i IN 1 .. stmts LOOP
        ALTER TABLE bench.inv SET (fillfactor = 100);
        PERFORM count(shard_2.next_id()) FROM generate_series(1, 1000);
    END LOOP;
END \$\$;
CREATE FUNCTION bench.invalidations_only(stmts int) RETURNS void LANGUAGE plpgsql AS \$\$
BEGIN
    FOR i IN 1 .. stmts LOOP
        ALTER TABLE bench.inv SET (fillfactor = 100);
        PERFORM count(1) FROM generate_series(1, 1000);
    END LOOP;
END \$\$;

SELECT bench.add('gen', 'empty loop',         \$q\$SELECT count(1) FROM generate_series(1, $N)\$q\$, $N);
SELECT bench.add('gen', 'nextval()',          \$q\$SELECT count(nextval('bench.seq')) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SELECT bench.add('gen', 'shard_1.next_id()',  \$q\$SELECT count(shard_1.next_id()) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SELECT bench.add('gen', 'shard_2.next_id() (block)', \$q\$SELECT count(shard_2.next_id()) FROM generate_series(1, $N)\$q\$, $N, 'empty loop');
SELECT bench.add('inval', 'invalidations only', \$q\$SELECT bench.invalidations_only($STMTS)\$q\$, $N);
SELECT bench.add('inval', 'shard_2.next_id() (block) after invalidation', \$q\$SELECT bench.after_invalidation($STMTS)\$q\$, $N, 'invalidations only');
SQL
# Shard 2 issues from this server's block (a shard with blocks and none of this server's raises).
[ "$(bench_sql -At -c "SELECT shard_id_shard(shard_2.next_id())")" = 2 ] || { echo "shard 2 does not issue" >&2; exit 1; }

bench_sql -o /dev/null <<SQL
CREATE TABLE bench.by_seq (id bigint PRIMARY KEY DEFAULT nextval('bench.seq'), v int);
CREATE TABLE bench.by_shard (id bigint PRIMARY KEY DEFAULT shard_1.next_id(), v int);
SELECT bench.client_add('xact', 'nextval() DEFAULT', E'INSERT INTO bench.by_seq (v) VALUES (1);\n', 1);
SELECT bench.client_add('xact', 'shard_1.next_id() DEFAULT', E'INSERT INTO bench.by_shard (v) VALUES (1);\n', 1);
SQL

bench_run gen
bench_table gen 'nextval()'
bench_run inval
bench_table inval 'invalidations only' wall
bench_clients xact
bench_client_table xact 'nextval() DEFAULT' "one row per transaction, $BENCH_CLIENTS clients"

bench_sql -o /dev/null <<SQL
SELECT bench.check('shard_2.next_id() (block) / shard_1.next_id() ns per ID',
                   bench.ns('gen', 'shard_2.next_id() (block)') / bench.ns('gen', 'shard_1.next_id()'), '<=', 1.10, 'x',
                   round(bench.ns('gen', 'shard_2.next_id() (block)')::numeric, 1) || ' vs '
                   || round(bench.ns('gen', 'shard_1.next_id()')::numeric, 1) || ' ns; nextval() '
                   || round(bench.ns('gen', 'nextval()')::numeric, 1) || ' ns');
SELECT bench.check('shard_2.next_id() (block) / nextval() ns per ID',
                   bench.ns('gen', 'shard_2.next_id() (block)') / bench.ns('gen', 'nextval()'), '<=', 1, 'x', 'informational');
SQL
bench_targets
