#!/usr/bin/env bash
# Provides a PostgreSQL 18 server with Citus installed, for the Citus test layer only.
# Citus is not part of id_gen and is never shipped with it: its source tarball comes from outside
# the repository (IDGEN_CITUS_TARBALL, else the newest ../shared/vendor/citus-*.tar.gz next to the
# repository, else the copy of it kept with the servers' cached sources). The matrix's PostgreSQL 18 (scripts/pg_versions.sh) is copied to a second prefix,
# <cache>/18-citus, and Citus is built and installed there, so the plain 18 server stays
# Citus-free. The result is reused while the tarball's sha256 and the server version are unchanged.
#
#   scripts/citus.sh                 provide it, print the Citus server's pg_config
#   scripts/citus.sh --tarball       print the tarball that would be used (exit 3 if there is none)
#
#   IDGEN_CITUS_TARBALL    Citus source tarball (default: newest ../shared/vendor/citus-*.tar.gz)
#   IDGEN_PG_CACHE         as for scripts/pg_versions.sh (the Citus prefix lives next to 18)
#   IDGEN_PG_BUILD_JOBS    make -j (default 2)
# Progress goes to stderr, the result to stdout. Every step is bounded by a timeout. Exit status 3
# means there is no Citus source (the caller skips); any other failure is non-zero too.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_JOBS=${IDGEN_PG_BUILD_JOBS:-2}
MARKER=.idgen-citus-complete

say() { echo "citus: $*" >&2; }
die() { say "FAILED: $*"; exit 1; }

STEP_PID=""
on_signal() {
  [ -z "$STEP_PID" ] || kill -TERM "$STEP_PID" 2>/dev/null || true
  say "interrupted"
  exit 130
}
trap on_signal INT TERM HUP

# step LOG SECONDS CMD...: a bounded step with its output in LOG; a failure shows the log's end.
step() {
  local log=$1 secs=$2 start rc=0
  shift 2
  start=$(date +%s)
  timeout -k 30 "$secs" "$@" >"$log" 2>&1 9>&- &
  STEP_PID=$!
  wait "$STEP_PID" || rc=$?
  STEP_PID=""
  if [ "$rc" -ne 0 ]; then
    tail -30 "$log" >&2
    [ "$rc" -ne 124 ] || die "'$*' timed out after ${secs}s (log: $log)"
    die "'$*' exited with status $rc (log: $log)"
  fi
  say "  $(basename "$log" .log): done in $(($(date +%s) - start))s"
}

# A tarball found once is kept with the servers' sources (outside the repository, as the servers'
# own are), so a later run from a clone that has no ../shared beside it still finds it.
if [ -n "${IDGEN_PG_CACHE:-}" ]; then
  SRC_CACHE=$IDGEN_PG_CACHE/src/citus
elif [ "$(id -u)" -eq 0 ]; then
  SRC_CACHE=/var/cache/id_gen/pg/src/citus
else
  SRC_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/id_gen/pg/src/citus
fi

find_tarball() {
  if [ -n "${IDGEN_CITUS_TARBALL:-}" ]; then
    [ -f "$IDGEN_CITUS_TARBALL" ] && echo "$IDGEN_CITUS_TARBALL"
    return 0
  fi
  { compgen -G "$ROOT/../shared/vendor/citus-*.tar.gz" || compgen -G "$SRC_CACHE/citus-*.tar.gz"; } | sort -V | tail -1 || true
}

TARBALL=$(find_tarball)
if [ -z "$TARBALL" ]; then
  say "no Citus source (set IDGEN_CITUS_TARBALL or place citus-*.tar.gz in ../shared/vendor)"
  exit 3
fi
TARBALL=$(cd "$(dirname "$TARBALL")" && pwd)/$(basename "$TARBALL")
if [ "$(dirname "$TARBALL")" != "$SRC_CACHE" ] && ! cmp -s "$TARBALL" "$SRC_CACHE/$(basename "$TARBALL")"; then
  mkdir -p "$SRC_CACHE" && cp "$TARBALL" "$SRC_CACHE/" || say "could not keep a copy of the tarball in $SRC_CACHE"
fi
if [ "${1:-}" = "--tarball" ]; then
  echo "$TARBALL"
  exit 0
fi

BASE_PG_CONFIG=$("$ROOT/scripts/pg_versions.sh" --pg-config 18)
BASE=$(cd "$("$BASE_PG_CONFIG" --bindir)/.." && pwd)
CACHE=$(dirname "$BASE")
PREFIX=$CACHE/18-citus
PG_CONFIG=$PREFIX/bin/pg_config
SUM=$(sha256sum "$TARBALL" | cut -d' ' -f1)
WANT="$(basename "$TARBALL") $SUM $("$BASE_PG_CONFIG" --version) $(cat "$BASE/.idgen-build-complete" 2>/dev/null || true)"

# One build at a time per cache (the same lock as the servers' builds).
exec 9>"$CACHE/.lock-citus"
if ! flock -n 9; then
  say "waiting for another Citus build in $CACHE"
  flock -w 3600 9 || die "another build held $CACHE/.lock-citus for an hour"
fi

if [ "$(cat "$PREFIX/$MARKER" 2>/dev/null)" = "$WANT" ]; then
  say "cached: $(basename "$TARBALL") on $("$PG_CONFIG" --version) in $PREFIX"
  echo "$PG_CONFIG"
  exit 0
fi

t0=$(date +%s)
say "building $(basename "$TARBALL") into $PREFIX (about 10 minutes at -j$BUILD_JOBS)"
build=$CACHE/build/citus
rm -rf "$build" "$PREFIX"
mkdir -p "$build"
# The server's installation is relocatable (pg_config and the server find their files relative to
# their own binaries), so a copy is a second, independent installation.
step "$build/copy.log" 300 cp -a "$BASE" "$PREFIX"
rm -f "$PREFIX/.idgen-build-complete"
step "$build/unpack.log" 300 tar -xzf "$TARBALL" -C "$build"
src=$(find "$build" -mindepth 1 -maxdepth 1 -type d -name 'citus*' | head -1)
[ -n "$src" ] || die "unexpected layout of $(basename "$TARBALL")"
conf=(PG_CONFIG="$PG_CONFIG" --without-libcurl)
[ -f /usr/include/lz4.h ] || conf+=(--without-lz4)
[ -f /usr/include/zstd.h ] || conf+=(--without-zstd)
say "configure ${conf[*]}"
step "$build/configure.log" 600 env -C "$src" ./configure "${conf[@]}"
say "make -j$BUILD_JOBS"
step "$build/make.log" 3600 make -C "$src" -j"$BUILD_JOBS"
step "$build/install.log" 600 make -C "$src" install
[ -f "$("$PG_CONFIG" --pkglibdir)/citus.so" ] || die "citus.so is not in $("$PG_CONFIG" --pkglibdir)"
# The marker is written last: a build interrupted before this line is redone from scratch.
echo "$WANT" >"$PREFIX/$MARKER"
rm -rf "$build"
say "built in $(($(date +%s) - t0))s"
echo "$PG_CONFIG"
