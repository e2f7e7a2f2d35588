#!/usr/bin/env bash
# One command for the published benchmark page: runs the suites on one throwaway cluster and writes
# bench/results/pg<major>.md plus SVG charts (bench/svg_bars.awk), from raw tab-separated output
# kept in bench/results/raw/pg<major>/ (so a page can be re-rendered without re-running).
#
#   bash bench/report.sh                     run everything (about 10 minutes on 2 busy cores)
#   bash bench/report.sh --from RAWDIR       only render the page and charts from saved raw output
#   bash bench/report.sh --out DIR           write into DIR instead of bench/results
#
# Suites (see bench/README.md, "bench/report.sh"):
#   gen   every generator of bench/generators.list, the peer extensions' generators and the base36 /
#         base62 encoders, net ns per ID (CPU clock, medians over interleaved rounds), preloaded
#   load  BENCH_LOAD_ROWS-row primary-key loads per key kind in INSERTs of BENCH_LOAD_BATCH rows,
#         each its own transaction, after a CHECKPOINT, full_page_writes = on: wall time, index
#         size, WAL bytes, full-page images
# Peers (pg_uuidv7, sequential_uuids, permuteseq) are built with PGXS from the source archives in
# IDGEN_VENDOR_DIR (default: ../shared/vendor relative to the repository) into $PG_CONFIG's server.
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$BENCH_DIR/.." && pwd)

usage() { echo "usage: bench/report.sh [--from RAWDIR] [--out DIR]" >&2; exit 2; }
FROM=""
OUT="$BENCH_DIR/results"
while [ $# -gt 0 ]; do
  case $1 in
    --from) [ $# -ge 2 ] || usage; FROM=$2; shift 2 ;;
    --out) [ $# -ge 2 ] || usage; OUT=$2; shift 2 ;;
    *) usage ;;
  esac
done

# render RAWDIR OUTDIR: the page and the charts from raw output (no server needed).
render() {
  local raw=$1 out=$2 f name tmp
  for f in meta.tsv gen.tsv load.tsv; do
    [ -r "$raw/$f" ] || { echo "bench/report.sh: $raw/$f is missing (raw output of a run of bench/report.sh)" >&2; return 1; }
  done
  name=pg$(awk -F'\t' '$1 == "major" { print $2 }' "$raw/meta.tsv")
  [ "$name" != pg ] || { echo "bench/report.sh: $raw/meta.tsv has no major line" >&2; return 1; }
  mkdir -p "$out"
  tmp=$(mktemp -d "$out/.render.XXXXXX")
  # Each chart: label, value and group (colour) columns of a raw TSV; the writers check every number.
  if awk -f "$BENCH_DIR/svg_bars.awk" -v header=1 -v lcol=2 -v vcol=4 -v gcol=1 -v unit="ns" \
         -v title="Net ns per ID (median, CPU clock; shorter is faster)" "$raw/gen.tsv" >"$tmp/$name-gen.svg" \
     && awk -f "$BENCH_DIR/svg_bars.awk" -v header=1 -v lcol=2 -v vcol=6 -v div=1e9 -v gcol=1 -v unit="s" \
         -v title="Primary-key load: wall seconds (median)" "$raw/load.tsv" >"$tmp/$name-load-time.svg" \
     && awk -f "$BENCH_DIR/svg_bars.awk" -v header=1 -v lcol=2 -v vcol=8 -v div=1048576 -v gcol=1 -v unit="MB" \
         -v title="Primary-key index size after the load (MB)" "$raw/load.tsv" >"$tmp/$name-load-index.svg" \
     && awk -f "$BENCH_DIR/svg_bars.awk" -v header=1 -v lcol=2 -v vcol=10 -v div=1048576 -v gcol=1 -v unit="MB" \
         -v title="WAL written by the load (MB, full_page_writes = on)" "$raw/load.tsv" >"$tmp/$name-load-wal.svg" \
     && awk -f "$BENCH_DIR/report_md.awk" -v name="$name" "$raw/meta.tsv" "$raw/gen.tsv" "$raw/load.tsv" >"$tmp/$name.md"; then
    for f in "$name-gen.svg" "$name-load-time.svg" "$name-load-index.svg" "$name-load-wal.svg" "$name.md"; do
      mv "$tmp/$f" "$out/$f"
    done
    rmdir "$tmp"
  else
    rm -rf "$tmp"
    return 1
  fi
  echo "# wrote $out/$name.md and $out/$name-*.svg" >&2
}

if [ -n "$FROM" ]; then
  render "$FROM" "$OUT"
  exit
fi

VENDOR=${IDGEN_VENDOR_DIR:-$REPO/../shared/vendor}
PEERS=(pg_uuidv7 sequential-uuids permuteseq)
for p in "${PEERS[@]}"; do
  compgen -G "$VENDOR/$p-*.tar.gz" >/dev/null \
    || { echo "bench/report.sh: no $p-*.tar.gz in $VENDOR: set IDGEN_VENDOR_DIR to the directory holding the peer extensions' source archives" >&2; exit 1; }
done

BENCH_ROWS=${BENCH_ROWS:-1000000}
BENCH_ROUNDS=${BENCH_ROUNDS:-5}
BENCH_LOAD_ROWS=${BENCH_LOAD_ROWS:-2000000}
BENCH_LOAD_BATCH=${BENCH_LOAD_BATCH:-1000}
BENCH_LOAD_ROUNDS=${BENCH_LOAD_ROUNDS:-3}
BENCH_LOAD_MAX_WAL_SIZE=${BENCH_LOAD_MAX_WAL_SIZE:-64MB}
# shellcheck source=lib.sh
source "$BENCH_DIR/lib.sh"
N=$BENCH_ROWS
[ $((BENCH_LOAD_ROWS % BENCH_LOAD_BATCH)) -eq 0 ] && [ $((N % 10000)) -eq 0 ] \
  || { echo "bench/report.sh: BENCH_LOAD_ROWS must be a multiple of BENCH_LOAD_BATCH and BENCH_ROWS of 10000" >&2; exit 1; }
MAJOR=$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
RAW="$OUT/raw/pg$MAJOR"
t_start=$(date +%s)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)

bench_start
# Peers: PGXS builds from the archives, into this server's directories.
mkdir -p "$BENCH_WORK/peers"
peer_versions=()
for p in "${PEERS[@]}"; do
  tarball=$(compgen -G "$VENDOR/$p-*.tar.gz" | head -1)
  src="$BENCH_WORK/peers/$p"
  mkdir -p "$src"
  tar -xzf "$tarball" -C "$src" --strip-components=1
  chmod -R a+rX "$BENCH_WORK/peers"
  make -C "$src" -s PG_CONFIG="$PG_CONFIG" >"$BENCH_WORK/peers/$p.log" 2>&1 \
    && as_root make -C "$src" -s install PG_CONFIG="$PG_CONFIG" >>"$BENCH_WORK/peers/$p.log" 2>&1 \
    || { cat "$BENCH_WORK/peers/$p.log" >&2; echo "bench/report.sh: building $p failed" >&2; exit 1; }
  peer_versions+=("$(basename "$tarball" .tar.gz)")
done

bench_sql -c "LOAD 'id_gen'" -c "ALTER SYSTEM SET shared_preload_libraries = 'id_gen'" \
          -c "ALTER SYSTEM SET id_gen.node_id = 1" -c "ALTER SYSTEM SET id_gen.launch_id = 1" \
          -c "ALTER SYSTEM SET id_gen.max_run_ahead = '60s'" \
          -c "ALTER SYSTEM SET full_page_writes = on" -c "ALTER SYSTEM SET wal_compression = off" \
          -c "ALTER SYSTEM SET max_wal_size = '$BENCH_LOAD_MAX_WAL_SIZE'" \
          -c "ALTER SYSTEM SET checkpoint_timeout = '1h'" >/dev/null
as_pg "$PG_BINDIR/pg_ctl" -D "$BENCH_WORK/pg/data" -l "$BENCH_WORK/pg/server.log" -w restart >/dev/null
[ "$(bench_sql -At -c 'SHOW shared_preload_libraries')" = "id_gen" ] || { echo "not preloaded" >&2; exit 1; }
bench_sql -o /dev/null -c "CREATE EXTENSION pg_uuidv7" -c "CREATE EXTENSION sequential_uuids" \
          -c "CREATE EXTENSION permuteseq" -f "$BENCH_DIR/report.sql"

# ---- gen: name | group | expression | setup | id_gen counterpart (peers only)
GEN=()
while IFS='|' read -r name expr setup; do
  case $name in nextval\(\)|gen_random_uuid\(\)) grp=builtin ;; *) grp=id_gen ;; esac
  GEN+=("$name|$grp|$expr|$setup|")
done < <(grep -v -e '^#' -e '^$' "$BENCH_DIR/generators.list")
# From 18 an unqualified uuidv7() is core's (the extension's is public.uuidv7()): both are measured.
[ "$MAJOR" -lt 18 ] || GEN+=("pg_catalog.uuidv7()|builtin|pg_catalog.uuidv7()||")
GEN+=(
  "uuid_generate_v7()|pg_uuidv7|uuid_generate_v7()||uuidv7()"
  "uuid_time_nextval()|sequential_uuids|uuid_time_nextval()||uuidv7()"
  "uuid_sequence_nextval(seq)|sequential_uuids|uuid_sequence_nextval('bench.seq3')|CREATE SEQUENCE bench.seq3|uuidv7()"
  "permute_nextval(seq, key)|permuteseq|permute_nextval('bench.seq4'::regclass, 123456789012345)|CREATE SEQUENCE bench.seq4|id_permute(nextval(), key)"
  "base36_encode(bigint)|id_gen|base36_encode(g::bigint)||"
  "base62_encode(bigint)|id_gen|base62_encode(g::bigint)||"
)
bench_sql -o /dev/null -c "CREATE TABLE bench.gen_group (name text PRIMARY KEY, grp text NOT NULL, vs text)"
bench_sql -o /dev/null -c "SELECT bench.add('gen', 'empty loop', \$q\$SELECT count(1) FROM generate_series(1, $N)\$q\$, $N)"
bench_sql -o /dev/null -c "SELECT bench.add('gen', 'encode loop', \$q\$SELECT count(g::bigint) FROM generate_series(1, $N) g\$q\$, $N)"
for g in "${GEN[@]}"; do
  IFS='|' read -r name grp expr setup vs <<<"$g"
  [ -z "$setup" ] || bench_sql -o /dev/null -c "$setup"
  base='empty loop'
  case $name in base*_encode*) base='encode loop' ;; esac
  bench_sql -o /dev/null -c "SELECT bench.add('gen', $(bench_quote "$name"),
      $(bench_quote "SELECT count($expr) FROM generate_series(1, $N) g"), $N, $(bench_quote "$base"))" \
    -c "INSERT INTO bench.gen_group VALUES ($(bench_quote "$name"), $(bench_quote "$grp"), nullif($(bench_quote "$vs"), ''))"
done
bench_run gen
bench_table gen 'gen_random_uuid()' >&2

# ---- load: name | group | column type | DEFAULT (empty for serial) | setup | id_gen counterpart
LOAD=(
  "bigserial|builtin|bigserial|||"
  "uuid v4: gen_random_uuid()|builtin|uuid|gen_random_uuid()||"
  "uuidv7()|id_gen|uuid|public.uuidv7()||"
  "ulid: gen_ulid()|id_gen|ulid|gen_ulid()||"
  "snowflake: gen_snowflake()|id_gen|snowflake|gen_snowflake()||"
  "ksuid: gen_ksuid()|id_gen|ksuid|gen_ksuid()||"
  "order_id (uuidv7 kind): gen_order_id()|id_gen|order_id|gen_order_id()||"
  "uuid_generate_v7()|pg_uuidv7|uuid|uuid_generate_v7()||uuidv7()"
  "uuid_time_nextval()|sequential_uuids|uuid|uuid_time_nextval()||uuidv7()"
  "uuid_sequence_nextval(seq)|sequential_uuids|uuid|uuid_sequence_nextval('bench.seq3')||uuidv7()"
)
[ "$MAJOR" -lt 18 ] || LOAD+=("pg_catalog.uuidv7()|builtin|uuid|pg_catalog.uuidv7()||")
[ -z "${BENCH_LOAD_PERMUTED:-}" ] || LOAD+=(
  "id_permute(nextval(), key)|id_gen|bigint|id_permute(nextval('bench.seq2'), 'orders')||"
  "permute_nextval(seq, key)|permuteseq|bigint|permute_nextval('bench.seq4'::regclass, 123456789012345)||id_permute(nextval(), key)"
)
k=0
for l in "${LOAD[@]}"; do
  IFS='|' read -r name grp coltype expr setup vs <<<"$l"
  k=$((k + 1))
  bench_sql -o /dev/null -c "INSERT INTO bench.pk_kind VALUES ($(bench_quote "$name"), $k, $(bench_quote "$grp"),
      $(bench_quote "$coltype"), nullif($(bench_quote "$expr"), ''), nullif($(bench_quote "$setup"), ''), nullif($(bench_quote "$vs"), ''))"
done
n=${#LOAD[@]}
for r in $(seq "$BENCH_LOAD_ROUNDS"); do
  for i in $(seq "$n"); do
    [ $((r % 2)) -eq 1 ] || i=$((n + 1 - i))
    IFS='|' read -r name _ <<<"${LOAD[i-1]}"
    q=$(bench_quote "$name")
    bench_sql -c "SET client_min_messages = warning" -c "CALL bench.pk_create($q)" -c "CHECKPOINT" -c "SELECT pg_stat_force_next_flush()" -o /dev/null
    bench_sql -o /dev/null <<SQL
SELECT wal_fpi AS fpi0 FROM pg_stat_wal \gset
CALL bench.pk_load($q, $r, $BENCH_LOAD_ROWS, $BENCH_LOAD_BATCH);
SELECT pg_stat_force_next_flush();
UPDATE bench.pk_sample SET fpi = (SELECT wal_fpi FROM pg_stat_wal) - :fpi0 WHERE name = $q AND round = $r;
SQL
    bench_sql -At -F ' ' -c "SELECT 'load round $r/$BENCH_LOAD_ROUNDS:', rpad(name, 40), round((wall_ns / 1e9)::numeric, 1), 's, WAL',
        round((wal_bytes / 1048576)::numeric), 'MB, FPIs', fpi, ', index', round((index_bytes / 1048576)::numeric), 'MB, checkpoints', checkpoints
        FROM bench.pk_sample WHERE name = $q AND round = $r" | sed 's/^/#   /' >&2
  done
done

# ---- raw output
mkdir -p "$RAW"
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
{
  printf 'major\t%s\n' "$MAJOR"
  printf 'server\t%s\n' "$(bench_sql -At -c 'SELECT version()')"
  printf 'cpu\t%s\n' "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
  printf 'cores\t%s\n' "$(nproc)"
  printf 'kernel\t%s\n' "$(uname -r)"
  printf 'date\t%s\n' "$(date -u '+%Y-%m-%d %H:%M UTC')"
  printf 'load_start\t%s\n' "$load_start"
  printf 'load_end\t%s\n' "$load_end"
  printf 'duration_s\t%s\n' "$(($(date +%s) - t_start))"
  printf 'gen_rows\t%s\n' "$N"
  printf 'gen_rounds\t%s\n' "$BENCH_ROUNDS"
  printf 'load_rows\t%s\n' "$BENCH_LOAD_ROWS"
  printf 'load_batch\t%s\n' "$BENCH_LOAD_BATCH"
  printf 'load_rounds\t%s\n' "$BENCH_LOAD_ROUNDS"
  printf 'peers\t%s\n' "${peer_versions[*]}"
  bench_sql -At -F $'\t' -c "SELECT name, current_setting(name) FROM pg_settings
      WHERE name IN ('shared_buffers', 'max_wal_size', 'checkpoint_timeout', 'full_page_writes', 'wal_compression',
                     'fsync', 'synchronous_commit', 'wal_level') ORDER BY name"
} >"$RAW/meta.tsv"
bench_sql -At -F $'\t' -P footer=off >"$RAW/gen.tsv" <<'SQL'
SELECT 'group', 'contender', 'vs', 'net_ns', 'spread_pct', 'best_ns', 'wait_pct'
UNION ALL
(SELECT g.grp, r.name, coalesce(g.vs, ''), round(r.net_ns_per_row::numeric, 1)::text,
        round(r.spread_pct::numeric)::text, round(m.min_net_ns_per_row::numeric, 1)::text, round(r.wait_pct::numeric)::text
 FROM bench.report r JOIN bench.report_min m USING (suite, name, clock) JOIN bench.gen_group g USING (name)
 WHERE r.suite = 'gen' AND r.clock = 'cpu' ORDER BY r.ord)
SQL
bench_sql -At -F $'\t' -P footer=off >"$RAW/load.tsv" <<'SQL'
SELECT 'group', 'kind', 'vs', 'rounds', 'rows', 'wall_ns', 'spread_pct', 'index_bytes', 'heap_bytes', 'wal_bytes', 'fpi', 'checkpoints'
UNION ALL
(SELECT r.grp, r.name, coalesce(r.vs, ''), r.rounds::text, r.rows::text, round(r.wall_ns)::text, round(r.spread_pct::numeric)::text,
        r.index_bytes::text, r.heap_bytes::text, r.wal_bytes::text, r.fpi::text, r.checkpoints::text
 FROM bench.pk_report r ORDER BY r.ord)
SQL
render "$RAW" "$OUT"
