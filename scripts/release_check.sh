#!/usr/bin/env bash
# The last release's archive on this server: the release archive (scripts/release.sh) of the
# commit tagged v<version> for the newest released version (the newest install script frozen at
# the root other than the default version's) is built against $PG_CONFIG, installed, and
# regress-tested (its own sql/ and expected/) on a throwaway cluster set up as the test command's
# main one; then the current build ($IDGEN_EXT_DIR, already built) is installed again. The test
# command runs this at the end of each version's run, as it checks HEAD's archive at the start.
# Ends with the line "N passed, N failed"; exit status 0 only when nothing failed.
#
#   IDGEN_EXT_DIR    the current build's directory, installed again at the end (required
#                    unless the check runs beside the other layers)
#   IDGEN_TEST_PORT  the test command's base port (default 54329); this uses base+2
#   IDGEN_RELEASE_BESIDE=1  install the release into a copy of the server, not into the server,
#                    so that the check can run while other layers use the server with the
#                    current build (only for a server whose files lie under one prefix,
#                    lib.sh's server_prefix; refused otherwise); it uses base+10 then
#   IDGEN_RELEASE_ZIP  the release's archive, made once for every server by the test command
#                    (scripts/release_check.sh --archive DIR makes it in DIR and prints its path)
#   KEEP_WORK        keep the work directory (cluster, logs)
set -uo pipefail
ARCHIVE_DIR=""
if [ "${1:-}" = --archive ]; then ARCHIVE_DIR=${2:?--archive DIR}; fi
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
BESIDE=${IDGEN_RELEASE_BESIDE:-0}
if [ -n "$ARCHIVE_DIR" ]; then :
elif [ "$BESIDE" = 1 ]; then
  PREFIX=$(server_prefix)
  [ -n "$PREFIX" ] || { echo "release check: IDGEN_RELEASE_BESIDE=1 needs a server under one prefix"; echo "0 passed, 1 failed"; exit 1; }
else
  CURRENT_EXT_DIR=${IDGEN_EXT_DIR:?IDGEN_EXT_DIR names the current build, installed again at the end}
fi

fail() { echo "release check: $*"; echo "0 passed, 1 failed"; exit 1; }

default=$(sed -n "s/^default_version = '\(.*\)'/\1/p" "$ROOT/id_gen.control")
released=$(cd "$ROOT" && ls id_gen--*.sql 2>/dev/null | sed -nE 's/^id_gen--([0-9]+\.[0-9]+\.[0-9]+)\.sql$/\1/p' \
  | grep -vx "$default" | sort -t. -k1,1n -k2,2n -k3,3n | tail -1)
[ -n "$released" ] || fail "no released version: no frozen install script at the root"
tag="v$released"
# The release's commit: its tag, or else (a clone that did not fetch tags) the parent of the commit
# that froze its install script at the root, the first commit of the next version.
commit=$(git -C "$ROOT" rev-parse --verify --quiet "refs/tags/$tag^{commit}" || true)
if [ -z "$commit" ]; then
  if [ "$(git -C "$ROOT" rev-parse --is-shallow-repository 2>/dev/null)" = true ]; then
    echo "skipped: the $released release check: a shallow clone has neither the tag $tag nor the commit that released it"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
  fi
  frozen=$(git -C "$ROOT" log --format=%H --diff-filter=A -1 -- "id_gen--$released.sql")
  [ -n "$frozen" ] || fail "no tag $tag, and no commit added id_gen--$released.sql: tag the commit that released $released"
  commit=$(git -C "$ROOT" rev-parse --verify --quiet "$frozen^") || fail "the commit that froze $released has no parent"
fi

# The release's archive (scripts/release.sh), or the one the test command made.
release_zip() { # release_zip DIR: makes it in DIR, prints its path
  local zip
  zip=$("$ROOT/scripts/release.sh" --out "$1" "$commit") || fail "scripts/release.sh $tag ($commit) failed"
  [ "$(basename "$zip")" = "id_gen-$released.zip" ] || fail "the archive of $tag is $(basename "$zip"), not id_gen-$released.zip"
  echo "$zip"
}
if [ -n "$ARCHIVE_DIR" ]; then
  mkdir -p "$ARCHIVE_DIR" || fail "cannot make $ARCHIVE_DIR"
  release_zip "$ARCHIVE_DIR"
  exit
fi

major=$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
# The release's build is kept outside the repository, beside the servers' and compiler caches
# (a released commit's archive never changes, so a fresh clone builds nothing again): one
# directory per release commit and server build (its version and configure flags, so a server
# rebuilt another way, with assertions or without, gets its own). IDGEN_RELEASE_CACHE moves it.
if [ -n "${IDGEN_RELEASE_CACHE:-}" ]; then cache=$IDGEN_RELEASE_CACHE
elif [ -n "${IDGEN_PG_CACHE:-}" ]; then cache=$IDGEN_PG_CACHE/release
elif [ "$(id -u)" -eq 0 ]; then cache=/var/cache/id_gen/release
else cache=${XDG_CACHE_HOME:-$HOME/.cache}/id_gen/release; fi
server=$({ "$PG_CONFIG" --version; "$PG_CONFIG" --configure; } | sha1sum | cut -c1-12)
dir="$cache/$commit/pg$major-$server"
mkdir -p "$dir" || fail "cannot make $dir"
out=$(mktemp -d) || fail "no temporary directory"
if [ -n "${IDGEN_RELEASE_ZIP:-}" ] && [ "$(basename "$IDGEN_RELEASE_ZIP")" = "id_gen-$released.zip" ]; then zip=$IDGEN_RELEASE_ZIP
else zip=$(release_zip "$out") || { echo "$zip"; exit 1; }; fi
echo "== $tag ($(git -C "$ROOT" rev-parse --short "$commit")): $(basename "$zip") in $dir: $(dist_ext_dir "$zip" "$dir" | tr '\n' ' ')"
rm -rf "$out"

WORK=$(mktemp -d /tmp/id_gen_release.XXXXXX)
chmod 755 "$WORK"
PORT=$((${IDGEN_TEST_PORT:-54329} + 2))
[ "$BESIDE" = 0 ] || PORT=$((${IDGEN_TEST_PORT:-54329} + 10))
reinstall_current() {
  [ "$BESIDE" = 1 ] && return 0
  EXT_DIR=$CURRENT_EXT_DIR install_extension || echo "release check: installing the current build again failed"
}
cleanup() {
  stop_cluster "$WORK/pg"
  reinstall_current
  [ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT

EXT_DIR=$dir compile_extension >"$WORK/build.log" 2>&1 || { tail -30 "$WORK/build.log"; fail "$tag does not build against $("$PG_CONFIG" --version)"; }
if [ "$BESIDE" = 1 ]; then
  # Built against the server (its objects stay valid for the next run), installed into and run
  # by a copy of it.
  cp -a "$PREFIX" "$WORK/server" || fail "cannot copy the server in $PREFIX"
  PG_CONFIG="$WORK/server/bin/pg_config"
  PG_BINDIR="$WORK/server/bin"
fi
EXT_DIR=$dir install_extension || fail "$tag does not install"
# As the test command's main cluster (scripts/test.sh), which the release's own tests were written for.
start_cluster "$WORK/pg" "$PORT" "shared_preload_libraries = 'id_gen'" "id_gen.node_id = 1" "id_gen.enable_test_clock = on" \
  "id_gen.launch_id = 1" >"$WORK/start.log" 2>&1 || { cat "$WORK/start.log"; fail "the cluster did not start"; }
PGHOST="$WORK/pg" PGPORT=$PORT PGUSER=postgres timeout -k 10 600 make -C "$dir" -s installcheck PG_CONFIG="$PG_CONFIG" \
  >"$WORK/regress.log" 2>&1
rc=$?
p=$(grep -cE '\.\.\. ok|^ok [0-9]+ +[-+] ' "$WORK/regress.log")
f=$(grep -cE '\.\.\. FAILED|^not ok [0-9]+ +[-+] ' "$WORK/regress.log")
expected=$(find "$dir/sql" -maxdepth 1 -name '*.sql' | wc -l)
if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
[ $((p + f)) -ge "$expected" ] || f=$((expected - p))
if [ "$f" -gt 0 ]; then cat "$WORK/regress.log"; head -200 "$dir/regression.diffs" 2>/dev/null; fi
echo "$p passed, $f failed"
[ "$f" -eq 0 ]
