#!/usr/bin/env bash
# bench/report.sh's writers (bench/report_md.awk, bench/svg_bars.awk) on saved raw output, TAP:
# the page's ratios against the built-ins, the charts' bars and escaping, well-formed SVG, every
# error branch of the writers, and the committed bench/results pages against their raw output.
# No benchmark runs here (no server, a few seconds).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
report="$root/bench/report.sh"
sample="$here/bench_sample"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; [ -z "${2:-}" ] || printf '#   %s\n' "$2"; }
check() { # check NAME COMMAND...: ok when the command succeeds
  local name=$1
  shift
  if "$@"; then ok "$name"; else not_ok "$name"; fi
}
has_line() { grep -qxF -- "$2" "$1" || { echo "# missing in $(basename "$1"): $2"; return 1; }; }

# Well-formed XML: xmllint when installed, else a tag-balance check of the writer's simple output.
well_formed() {
  if command -v xmllint >/dev/null; then
    xmllint --noout "$1"
  else
    tr '\n' ' ' <"$1" | grep -o '<[^>]*>' | awk '
      /^<\?/ || /\/>$/ { next }
      /^<\// { t = substr($0, 3); sub(/>.*/, "", t); if (d == 0 || s[d] != t) bad = 1; d--; next }
      { t = substr($0, 2); sub(/[ >].*/, "", t); s[++d] = t }
      END { exit (bad || d != 0) }'
  fi
}

# ---- the sample: every number is chosen so the expected ratios are exact
out="$work/out"
if bash "$report" --from "$sample" --out "$out" 2>"$work/err"; then ok "renders the sample"; else not_ok "renders the sample" "$(cat "$work/err")"; fi
md="$out/pg15.md"
for f in pg15-gen pg15-load-time pg15-load-index pg15-load-wal; do
  check "$f.svg is well-formed XML" well_formed "$out/$f.svg"
done
check "page: machine, server, date and load averages" grep -qF \
  'One run of `bash bench/report.sh`, 2026-01-02 03:04 UTC, on Sample CPU 9000 (2 cores), Linux 6.1.0-sample; server: PostgreSQL 15.99 (sample) on x86_64-pc-linux-gnu, 64-bit.' "$md"
check "page: load average at start and end" grep -qF 'at the start: 1.50 1.25 1.00; at the end: 2.50 2.25 2.00' "$md"
# Per ID: ratio to gen_random_uuid() (1000 ns) and to nextval() (200 ns).
check "per-ID rows: ratios to both built-ins" eval \
  'has_line "$md" "| \`gen_ulid()\` | id_gen | 0.050 | 0.250 | 50.0 | 10 | 45.0 |" &&
   has_line "$md" "| \`uuid_generate_v7()\` | pg_uuidv7 | 0.800 | 4.000 | 800.0 | 9 | 780.0 |" &&
   has_line "$md" "| \`gen_random_uuid()\` | PostgreSQL | 1.000 | 5.000 | 1000.0 | 4 | 950.0 |"'
# The headline range leaves out the encoders (base36_encode at 500 ns is not a generator).
check "headline: generators' range against the built-ins" has_line "$md" \
  "- Per ID, id_gen's generators cost 0.040 (\`gen_snowflake()\`) to 0.100 (\`a<b & \"c\"\`) of \`gen_random_uuid()\`'s time, and 0.200 to 0.500 of \`nextval()\`'s."
check "headline: id_gen against the peer, as a ratio and N× faster" has_line "$md" \
  "- Per ID, id_gen's \`uuidv7()\` costs 0.075 of pg_uuidv7's \`uuid_generate_v7()\` (13.3× faster)."
# Loads: 12 s / 10 s, 60 MB / 42 MB, 300 MB / 200 MB WAL; against uuid v4: 300 MB / 2000 MB.
check "load row: ratios to bigserial and uuid v4, MB, FPIs" has_line "$md" \
  "| \`uuidv7()\` | id_gen | 1.20 | 1.43 | 1.50 | 0.15 | 12.0 | 0 | 60.0 | 300.0 | 200 | 9 |"
check "headline: load against uuid v4 and bigserial" grep -qF \
  'key `uuidv7()`: time 0.30, index size 0.83, WAL 0.15 of uuid v4'"'"'s (`gen_random_uuid()`); 1.20, 1.43, 1.50 of `bigserial`'"'"'s.' "$md"
check "peer tables: id_gen over the peer" eval \
  'has_line "$md" "| \`uuid_generate_v7()\` | pg_uuidv7 | 800.0 | \`uuidv7()\` | 60.0 | 0.075 |" &&
   has_line "$md" "| \`uuid_generate_v7()\` | pg_uuidv7 | \`uuidv7()\` | 0.80 | 1.00 | 1.00 |"'
check "page: sizes (thousands separated in prose, plain in SQL)" eval \
  'grep -qF "2,000,000 rows into a fresh table" "$md" && grep -qF "in INSERTs of 1,000 rows" "$md" &&
   grep -qF "\`SELECT count(f()) FROM generate_series(1, 1000000)\` per contender" "$md"'
check "page: settings of the loads" grep -qF '`full_page_writes = on`, `wal_compression = off`, `max_wal_size = 64MB`, `checkpoint_timeout = 1h`' "$md"
links_charts() { local c; for c in gen load-time load-index load-wal; do grep -qF "(pg15-$c.svg)" "$md" || return 1; done; }
check "page links its charts" links_charts

# Charts: one bar per data row in input order, the largest value the full 380 px, the others in
# proportion, colours by group, labels escaped.
gen="$out/pg15-gen.svg"
widths=$(grep -o 'class="bar" x="[0-9]*" y="[0-9]*" width="[0-9.]*"' "$gen" | sed 's/.*width="//; s/"//' | tr '\n' ' ')
check "gen chart: one bar per row, widths proportional (1000 ns = 380 px)" \
  test "$widths" = "76.00 380.00 22.80 19.00 15.20 38.00 304.00 190.00 "
check "gen chart: label escaped" grep -qF '>a&lt;b &amp; &quot;c&quot;</text>' "$gen"
check "gen chart: built-in grey, id_gen blue, peer orange" eval \
  'grep -q "<title>nextval(): 200 ns</title>" "$gen" && grep -c "fill=\"#8c8c8c\"><title>" "$gen" | grep -qx 2 &&
   grep -c "fill=\"#ff7f0e\"><title>" "$gen" | grep -qx 1 && grep -c "fill=\"#1f77b4\"><title>" "$gen" | grep -qx 5'
check "WAL chart: bytes shown as MB (2000 MB = 380 px)" eval \
  'grep -qF "<title>uuid v4: gen_random_uuid(): 2000 MB</title>" "$out/pg15-load-wal.svg" &&
   grep -qF "width=\"38.00\" height=\"16\" fill=\"#8c8c8c\"><title>bigserial: 200 MB</title>" "$out/pg15-load-wal.svg"'
check "time chart: ns shown as s" grep -qF '<title>bigserial: 10.0 s</title>' "$out/pg15-load-time.svg"
neg=$(printf 'a\t-5\tid_gen\nb\t10\tbuiltin\n' | awk -f "$root/bench/svg_bars.awk" -v title=t -v unit=ns)
check "a negative value draws no bar but keeps its label" eval \
  'grep -qF "width=\"0.00\" height=\"16\" fill=\"#1f77b4\"><title>a: -5.00 ns</title>" <<<"$neg"'

# ---- error branches: each a broken copy of the sample, the message checked, nothing written
broken() { # broken NAME FILE SED_SCRIPT EXPECTED_MESSAGE
  local d="$work/b$n" o="$work/o$n"
  mkdir -p "$d"
  cp "$sample"/*.tsv "$d/"
  if [ "$3" = DELETE ]; then rm "$d/$2"; else sed -i "$3" "$d/$2"; fi
  if bash "$report" --from "$d" --out "$o" 2>"$work/err"; then
    not_ok "$1: accepted"
  elif ! grep -qF -- "$4" "$work/err"; then
    not_ok "$1: message" "got: $(cat "$work/err")"
  elif [ -n "$(ls -A "$o" 2>/dev/null)" ]; then
    not_ok "$1: wrote $(ls -A "$o")"
  else
    ok "$1"
  fi
}
broken "missing file" load.tsv DELETE "load.tsv is missing"
broken "no major line" meta.tsv '/^major/d' "meta.tsv has no major line"
broken "charted value not a number" gen.tsv 's/\t50\.0\t/\t5O.0\t/' 'value "5O.0" of "gen_ulid()" is not a number'
broken "load value not a number" load.tsv 's/\t62914560\t/\t60MB\t/' 'value "60MB" of "uuidv7()" is not a number'
broken "uncharted field not a number" gen.tsv 's/\t10\t45\.0/\tten\t45.0/' 'gen.tsv line 5: field 5 ("ten") is not a number'
broken "short gen line" gen.tsv 's/\t58\.0\t0$//' 'gen.tsv line 4: 5 fields, expected 7'
broken "short load line" load.tsv '3s/\t60$//' 'load.tsv line 3: 11 fields, expected 12'
broken "no data lines" load.tsv '2,$d' 'svg_bars.awk: no data lines'
broken "no gen_random_uuid() row" gen.tsv '/^builtin\tgen_random_uuid/d' 'gen.tsv has no gen_random_uuid() row'
broken "no nextval() row" gen.tsv '/^builtin\tnextval/d' 'gen.tsv has no nextval() row'
broken "no bigserial row" load.tsv '/^builtin\tbigserial/d' 'load.tsv has no bigserial row'
broken "no uuid v4 row" load.tsv '/^builtin\tuuid v4/d' 'load.tsv has no uuid v4: gen_random_uuid() row'
broken "reference not positive" gen.tsv 's/\t200\.0\t5\t/\t0\t5\t/' 'the reference rows must have positive ns per ID'
broken "peer's counterpart missing (gen)" gen.tsv 's/\tuuidv7()\t800/\tuuidv8()\t800/' 'gen.tsv: uuid_generate_v7() is compared with uuidv8(), which has no row'
broken "peer's counterpart missing (load)" load.tsv 's/\tuuidv7()\t1\t/\tuuidv8()\t1\t/' 'load.tsv: uuid_generate_v7() is compared with uuidv8(), which has no row'
if bash "$report" --bogus 2>"$work/err"; then not_ok "unknown option: accepted"
elif grep -qF "usage: bench/report.sh [--from RAWDIR] [--out DIR]" "$work/err"; then ok "unknown option: usage"
else not_ok "unknown option: message" "$(cat "$work/err")"; fi
# A run (not --from) checks the peers' sources before building or starting anything.
if IDGEN_VENDOR_DIR="$work/none" bash "$report" --out "$work/run" 2>"$work/err"; then not_ok "no peer sources: accepted"
elif grep -qF "no pg_uuidv7-*.tar.gz in $work/none: set IDGEN_VENDOR_DIR" "$work/err" && [ ! -e "$work/run" ]; then ok "no peer sources: says what to set"
else not_ok "no peer sources: message" "$(cat "$work/err")"; fi

# ---- the committed pages are what their raw output renders to
same_files() { local f; for f in "$1"/*; do cmp -s "$f" "$2/$(basename "$f")" || return 1; done; }
for raw in "$root"/bench/results/raw/pg*; do
  [ -d "$raw" ] || continue
  v=$(basename "$raw")
  o="$work/committed-$v"
  if bash "$report" --from "$raw" --out "$o" 2>"$work/err" && same_files "$o" "$root/bench/results"; then
    ok "bench/results/$v.md and charts match bench/results/raw/$v"
  else
    not_ok "bench/results/$v.md and charts match bench/results/raw/$v" "$(cat "$work/err")"
  fi
  for f in "$root"/bench/results/"$v"-*.svg; do check "$(basename "$f") is well-formed XML" well_formed "$f"; done
done
echo "1..$n"
[ "$fails" -eq 0 ]
