#!/usr/bin/env bash
# KSUID and xid primary keys (issue 19): BENCH_ROWS rows (default 5,000,000) loaded in batches into
# a table whose primary key is ksuid (gen_ksuid()), rsxid (gen_xid()), uuid (gen_random_uuid())
# and uuid (uuidv7()), each made as rows are inserted, as an application would. Prints each PK
# index's size after the load and the bound the issue sets for ksuid and xid: the uuid index's
# size scaled by the width difference of an index entry (a btree leaf entry is an 8-byte header
# plus the key, MAXALIGNed, plus a 4-byte line pointer: uuid 28 bytes, ksuid 36, rsxid 28).
#   BENCH_ROWS=1000000 bash bench/ksuid_xid_index.sh     quicker
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
N=$BENCH_ROWS
B=$BENCH_BATCH
[ $((N % B)) -eq 0 ] || { echo "BENCH_ROWS must be a multiple of BENCH_BATCH ($B)" >&2; exit 1; }

bench_start
bench_sql -o /dev/null <<SQL
CREATE TABLE bench.pk_ksuid (id ksuid PRIMARY KEY);
CREATE TABLE bench.pk_xid (id rsxid PRIMARY KEY);
CREATE TABLE bench.pk_uuid (id uuid PRIMARY KEY);
CREATE TABLE bench.pk_uuidv7 (id uuid PRIMARY KEY);
SQL
# Interleaved batches, so the four loads see the same machine.
for ((done = 0; done < N; done += B)); do
  bench_sql -o /dev/null \
    -c "INSERT INTO bench.pk_ksuid SELECT gen_ksuid() FROM generate_series(1, $B)" \
    -c "INSERT INTO bench.pk_xid SELECT gen_xid() FROM generate_series(1, $B)" \
    -c "INSERT INTO bench.pk_uuid SELECT gen_random_uuid() FROM generate_series(1, $B)" \
    -c "INSERT INTO bench.pk_uuidv7 SELECT uuidv7() FROM generate_series(1, $B)"
done
echo "## primary key index size after $N rows"
bench_sql -P footer=off -c "
  WITH s AS (
    SELECT t, pg_relation_size(('bench.' || t || '_pkey')::regclass) AS bytes
    FROM unnest(ARRAY['pk_ksuid', 'pk_xid', 'pk_uuid', 'pk_uuidv7']) t),
  u AS (SELECT bytes FROM s WHERE t = 'pk_uuid')
  SELECT s.t AS table_name, pg_size_pretty(s.bytes) AS pk_index, round(s.bytes / 1048576.0, 1) AS mib,
         CASE s.t WHEN 'pk_ksuid' THEN 36 WHEN 'pk_xid' THEN 28 ELSE 28 END AS entry_bytes,
         CASE WHEN s.t IN ('pk_ksuid', 'pk_xid') THEN round(u.bytes * (CASE s.t WHEN 'pk_ksuid' THEN 36 ELSE 28 END) / 28.0 / 1048576.0, 1) END AS bound_mib,
         CASE WHEN s.t IN ('pk_ksuid', 'pk_xid') THEN
           CASE WHEN s.bytes <= u.bytes * (CASE s.t WHEN 'pk_ksuid' THEN 36 ELSE 28 END) / 28.0 THEN 'PASS' ELSE 'MISS' END END AS within_bound
  FROM s, u ORDER BY s.t"
