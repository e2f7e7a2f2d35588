# The sql layer: pg_regress (make installcheck in the extension's build directory) on the main
# cluster; with IDGEN_FILTER, only the tests whose names match one of its ':'-separated globs.
# Under IDGEN_TEST_LONG=1, again with debug_discard_caches = 1 (a server with assertions only).
# shellcheck shell=bash

# regress_selection: the sql/*.sql tests the filter selects, space-separated ("" without a filter).
regress_selection() {
  [ -n "${IDGEN_FILTER:-}" ] || return 0
  local f name pat sel=() pats
  IFS=: read -r -a pats <<<"$IDGEN_FILTER"
  for f in "$EXT_DIR"/sql/*.sql; do
    name=$(basename "$f" .sql)
    for pat in "${pats[@]}"; do
      # shellcheck disable=SC2053
      if [[ $name == $pat ]]; then sel+=("$name"); break; fi
    done
  done
  echo "${sel[*]:-none}"
}

run_regress() { # run_regress LAYER TIMEOUT: pg_regress on the main cluster
  local log="$WORK/$1.log" rc p f expected sel make_args=()
  sel=$(regress_selection)
  if [ "$sel" = none ]; then
    echo "no pg_regress test matches the filter"
    tally "$1" 0 0
    return
  fi
  [ -z "$sel" ] || make_args=(REGRESS="$sel")
  timeout -k 10 "$2" make -C "$EXT_DIR" -s installcheck PG_CONFIG="$PG_CONFIG" "${make_args[@]}" >"$log" 2>&1
  rc=$?
  # 15 prints "test name ... ok" / "... FAILED"; 16 and later print "ok 1 - name" / "not ok 1 - name".
  p=$(grep -cE '\.\.\. ok|^ok [0-9]+ +[-+] ' "$log")
  f=$(grep -cE '\.\.\. FAILED|^not ok [0-9]+ +[-+] ' "$log")
  # pg_regress failed without a failing test (setup error, timeout): one failure.
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then cat "$log"; f=1; fi
  if [ "$f" -gt 0 ]; then cat "$log"; head -200 "$EXT_DIR/regression.diffs" 2>/dev/null; fi
  # Every selected test must have run: one that did not (pg_regress stopped early) is a failure.
  if [ -n "$sel" ]; then expected=$(wc -w <<<"$sel")
  else expected=$(find "$EXT_DIR/sql" -maxdepth 1 -name '*.sql' | wc -l); fi
  if [ $((p + f)) -lt "$expected" ]; then
    cat "$log"
    f=$((expected - p))
  fi
  record_regress_times "${1%%-*}" "$log"
  tally "$1" "$p" "$f"
}

# filter_selects NAME: true without IDGEN_FILTER, or when one of its ':'-separated globs matches NAME.
filter_selects() {
  [ -n "${IDGEN_FILTER:-}" ] || return 0
  local pat pats
  IFS=: read -r -a pats <<<"$IDGEN_FILTER"
  for pat in "${pats[@]}"; do
    # shellcheck disable=SC2053
    [[ $1 == $pat ]] && return 0
  done
  return 1
}

# pg_uuidv7_tarball: the path of pg_uuidv7's source tarball (IDGEN_PG_UUIDV7_TARBALL, else the
# newest ../shared/vendor/pg_uuidv7-*.tar.gz next to the repository or to the main checkout of its
# git worktree), or "" when there is none.
pg_uuidv7_tarball() {
  local t=${IDGEN_PG_UUIDV7_TARBALL:-$({ compgen -G "$ROOT/../shared/vendor/pg_uuidv7-*.tar.gz" ||
    compgen -G "$(git -C "$ROOT" rev-parse --path-format=absolute --git-common-dir 2>/dev/null)/../../shared/vendor/pg_uuidv7-*.tar.gz"; } |
    sort -V | tail -1)}
  if [ -n "$t" ] && [ -f "$t" ]; then echo "$t"; fi
}

# pg_uuidv7_skip NAME: the test NAME is skipped, by name, for want of pg_uuidv7's source.
pg_uuidv7_skip() {
  echo "skipped: $1: no pg_uuidv7 source (IDGEN_PG_UUIDV7_TARBALL or ../shared/vendor/pg_uuidv7-*.tar.gz)"
  skipped=$((skipped + 1))
}

# pg_uuidv7_regress LABEL DIR DBNAME LOG WHAT TESTS...: pg_regress over DIR/sql and DIR/expected
# (output in DIR/out, appended to LOG) in database DBNAME; every test of TESTS must pass. Prints
# "WHAT: N of M tests pass" and tallies under LABEL.
pg_uuidv7_regress() {
  local label=$1 dir=$2 db=$3 log=$4 what=$5 rc p f n pg_regress
  shift 5
  n=$#
  pg_regress="$("$PG_CONFIG" --pkglibdir)/pgxs/src/test/regress/pg_regress"
  timeout -k 10 120 "$pg_regress" --inputdir="$dir" --outputdir="$dir/out" --bindir="$PG_BINDIR" \
    --dbname="$db" "$@" >>"$log" 2>&1
  rc=$?
  p=$(grep -cE '\.\.\. ok|^ok [0-9]+ +[-+] ' "$log")
  f=$(grep -cE '\.\.\. FAILED|^not ok [0-9]+ +[-+] ' "$log")
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  if [ $((p + f)) -lt "$n" ]; then f=$((n - p)); fi
  if [ "$f" -gt 0 ]; then cat "$log"; head -100 "$dir/out/regression.diffs" 2>/dev/null; fi
  echo "$what: $p of $n tests pass"
  tally "$label" "$p" "$f"
}

# run_pg_uuidv7_suite: pg_regress over pg_uuidv7's own test/sql and test/expected (from its source
# tarball, pg_uuidv7_tarball), with its 001_setup replaced by companions/test/pg_uuidv7_001_setup.*,
# against the companion id_gen_pg_uuidv7 (installed with the extension). Skipped, by name, without
# a tarball; with IDGEN_FILTER, only when a glob matches "pg_uuidv7_suite".
run_pg_uuidv7_suite() {
  local tarball dir tests
  filter_selects pg_uuidv7_suite || return 0
  tarball=$(pg_uuidv7_tarball)
  [ -n "$tarball" ] || { pg_uuidv7_skip pg_uuidv7_suite; return 0; }
  dir="$WORK/pg_uuidv7_suite"
  rm -rf "$dir" && mkdir -p "$dir/src" "$dir/sql" "$dir/expected" "$dir/out"
  tar -xzf "$tarball" -C "$dir/src" --strip-components=1 --wildcards '*/test/sql/*.sql' '*/test/expected/*.out'
  cp "$dir"/src/test/sql/*.sql "$dir/sql/" && cp "$dir"/src/test/expected/*.out "$dir/expected/"
  cp "$ROOT/companions/test/pg_uuidv7_001_setup.sql" "$dir/sql/001_setup.sql"
  cp "$ROOT/companions/test/pg_uuidv7_001_setup.out" "$dir/expected/001_setup.out"
  tests=$(cd "$dir/sql" && ls -- *.sql | sed 's/\.sql$//' | sort)
  # shellcheck disable=SC2086
  pg_uuidv7_regress "sql, pg_uuidv7's suite" "$dir" id_gen_pg_uuidv7_suite "$WORK/pg_uuidv7_suite.log" \
    "pg_uuidv7's own suite ($(basename "$tarball")) against id_gen_pg_uuidv7" $tests
}

# run_pg_uuidv7_move: an application keyed by pg_uuidv7 moved onto id_gen in place
# (companions/test/pg_uuidv7_move.sql, pg_regress against its .out). pg_uuidv7 is built from its
# source tarball with PGXS and installed into PG_CONFIG's server for the test, and uninstalled
# after it unless it was there before. Skipped, by name, without a tarball; with IDGEN_FILTER, only
# when a glob matches "pg_uuidv7_move".
run_pg_uuidv7_move() {
  local tarball dir log had_it=0
  filter_selects pg_uuidv7_move || return 0
  tarball=$(pg_uuidv7_tarball)
  [ -n "$tarball" ] || { pg_uuidv7_skip pg_uuidv7_move; return 0; }
  dir="$WORK/pg_uuidv7_move"
  log="$WORK/pg_uuidv7_move.log"
  rm -rf "$dir" && mkdir -p "$dir/src" "$dir/sql" "$dir/expected" "$dir/out"
  cp "$ROOT/companions/test/pg_uuidv7_move.sql" "$dir/sql/" && cp "$ROOT/companions/test/pg_uuidv7_move.out" "$dir/expected/"
  [ ! -e "$("$PG_CONFIG" --sharedir)/extension/pg_uuidv7.control" ] || had_it=1
  tar -xzf "$tarball" -C "$dir/src" --strip-components=1
  if ! { make -s -C "$dir/src" PG_CONFIG="$PG_CONFIG" && make -s -C "$dir/src" PG_CONFIG="$PG_CONFIG" install; } >"$log" 2>&1; then
    cat "$log"
    echo "pg_uuidv7 ($(basename "$tarball")) did not build or install with PGXS"
    tally "sql, pg_uuidv7 move" 0 1
    return
  fi
  pg_uuidv7_regress "sql, pg_uuidv7 move" "$dir" id_gen_pg_uuidv7_move "$log" \
    "an application keyed by pg_uuidv7 ($(basename "$tarball")) moved onto id_gen_pg_uuidv7 in place" pg_uuidv7_move
  [ "$had_it" = 1 ] || make -s -C "$dir/src" PG_CONFIG="$PG_CONFIG" uninstall >>"$log" 2>&1
}

layer_sql() {
  echo "== sql (pg_regress)"
  timer "sql"
  run_regress sql 600
  run_pg_uuidv7_suite
  run_pg_uuidv7_move
  check_logs sql "$WORK/pg" "$WORK/pg2"
  # --- again with debug_discard_caches = 1 (--long; a server with assertions only, the setting
  # exists nowhere else): every catalog cache, relcache and plan cache entry is thrown away at
  # each chance, so a pointer kept past an invalidation, or a cache whose entry is not rebuilt on
  # use, fails here. Every session pg_regress opens gets it (PGOPTIONS, which pg_regress keeps).
  [ "${IDGEN_TEST_LONG:-}" = 1 ] || return 0
  if [ "$("$PG_BINDIR/psql" -X -At -d postgres -c 'SHOW debug_assertions')" = on ]; then
    echo "== sql with debug_discard_caches = 1 (pg_regress again)"
    timer "sql, debug_discard_caches = 1"
    PGOPTIONS="-c debug_discard_caches=1" run_regress "sql-discard-caches" 7200
    check_logs "sql, debug_discard_caches = 1" "$WORK/pg" "$WORK/pg2"
  else
    echo "skipped: sql with debug_discard_caches = 1: this server has no assertions (--enable-cassert)"
    skipped=$((skipped + 1))
  fi
}
