# The release layer: the newest release's archive built, installed and regress-tested on this
# server (scripts/release_check.sh). Where the server's files lie under one prefix (lib.sh:
# server_prefix) it runs beside the other layers, in a copy of the server, on the version's port
# P+10 (release_start); otherwise (Debian's servers, spread over /usr) at the end, installed into
# the server itself, then this build again (release_finish).
# shellcheck shell=bash
RELEASE_PID=""
release_start() {
  [ -n "$(server_prefix)" ] || return 0
  IDGEN_RELEASE_BESIDE=1 IDGEN_TEST_PORT=$PORT PG_CONFIG=$PG_CONFIG "$ROOT/scripts/release_check.sh" >"$WORK/release.log" 2>&1 &
  RELEASE_PID=$!
}
release_finish() {
  local rc result rp rf rs
  echo "== release (the newest release's archive on this server: built, installed, pg_regress)"
  if [ -n "$RELEASE_PID" ]; then
    timer "release (after the layers above)"
    wait "$RELEASE_PID"
    rc=$?
  else
    timer "release"
    IDGEN_TEST_PORT=$PORT IDGEN_EXT_DIR=$EXT_DIR PG_CONFIG=$PG_CONFIG "$ROOT/scripts/release_check.sh" >"$WORK/release.log" 2>&1
    rc=$?
  fi
  result=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$WORK/release.log" | tail -1)
  grep -vE '^[0-9]+ passed, [0-9]+ failed' "$WORK/release.log" | grep -E '^== |^skipped:|release check:' | head -5
  if [ -z "$result" ] || { [ "$rc" -ne 0 ] && [[ "$result" == *" 0 failed"* ]]; }; then
    tail -40 "$WORK/release.log"
    tally release 0 1
  else
    read -r rp _ rf _ rs _ <<<"${result//,/}"
    [ "$rf" -eq 0 ] || tail -60 "$WORK/release.log"
    tally release "$rp" "$rf" "$([ "${rs:-0}" = 0 ] || echo "$rs")"
  fi
}
