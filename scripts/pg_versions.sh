#!/usr/bin/env bash
# Provides a PostgreSQL server of each requested major version for building and testing id_gen.
# A major that Debian 12 packages (15) is the installed package. Newer majors (17, 18) are built
# from the upstream tarball inside Debian's source package (suites trixie and sid), fetched with a
# private apt sources list and lists directory, so the machine's apt configuration is unchanged;
# Debian's patches are not applied. Each build is installed into a cache outside the repository
# and reused from then on: a later run costs nothing.
#
#   scripts/pg_versions.sh [MAJOR...]        provide each (default: 17 18), print "MAJOR PG_CONFIG"
#   scripts/pg_versions.sh --pg-config MAJOR provide one and print only its pg_config
#
#   IDGEN_PG_CACHE        cache directory (default ${XDG_CACHE_HOME:-$HOME/.cache}/id_gen/pg, or
#                         /var/cache/id_gen/pg for root, whose home the cluster user cannot enter)
#   IDGEN_DEBIAN_MIRROR   Debian mirror (default: the one in /etc/apt/sources.list*)
#   IDGEN_PG_CONTRIB      contrib modules installed with the server (default: amcheck)
#   IDGEN_PG_BUILD_JOBS   make -j (default 2)
#   IDGEN_PG_LLVM         the majors built with LLVM (default: 18)
#   IDGEN_PG_CASSERT      the majors built with assertions on, --enable-cassert (default: 17)
# Progress goes to stderr, results to stdout. Every step is bounded by a timeout; on failure the
# step and the end of its log are printed and the exit status is non-zero.
# Only what the tests use is built: the server, its client programs and libpq, plpgsql, the
# encoding conversions, pg_regress and the contrib modules above; not ecpg. The majors in
# IDGEN_PG_LLVM are built with LLVM (JIT) from Debian's llvm-14, as Debian builds its own, so PGXS
# also compiles id_gen to bitcode against them and the JIT's inlining path is tested there (and on
# Debian's packaged 15, which has it too); compiling the server to bitcode as well nearly doubles
# its build time, so the other majors go without.
set -euo pipefail

if [ -n "${IDGEN_PG_CACHE:-}" ]; then
  CACHE=$IDGEN_PG_CACHE
elif [ "$(id -u)" -eq 0 ]; then
  CACHE=/var/cache/id_gen/pg
else
  CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/id_gen/pg
fi
CONTRIB=${IDGEN_PG_CONTRIB:-amcheck}
BUILD_JOBS=${IDGEN_PG_BUILD_JOBS:-2}
MARKER=.idgen-build-complete
LLVM_MAJORS=${IDGEN_PG_LLVM-18}
CASSERT_MAJORS=${IDGEN_PG_CASSERT-17}
SUITES="trixie sid"
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

# Upstream tarballs for when the source index names a version whose files the mirror no longer
# has: "VERSION SHA256" of pool/main/p/postgresql-MAJOR/postgresql-MAJOR_VERSION.orig.tar.bz2.
declare -A PINNED=(
  [17]="17.11 dd27f2b3c59e73ed14aa3324901242bf69a032a6347805f274e6260322d42979"
)

say() { echo "pg_versions: $*" >&2; }
die() { say "FAILED: $*"; exit 1; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

# A step runs under timeout, which puts it in its own process group: if this script is stopped,
# the step is stopped with it (no build left running in the background).
STEP_PID=""
on_signal() {
  [ -z "$STEP_PID" ] || kill -TERM "$STEP_PID" 2>/dev/null || true
  say "interrupted"
  exit 130
}
trap on_signal INT TERM HUP

# run LOG SECONDS CMD...: runs a step with its output in LOG, bounded; on failure shows the end of
# the log, sets STEP_ERROR and returns non-zero. step: the same, and a failure is fatal.
# (`env -C DIR CMD...` runs a step in DIR.)
STEP_ERROR=""
run() {
  local log=$1 secs=$2 start rc=0
  shift 2
  start=$(date +%s)
  timeout -k 30 "$secs" "$@" >"$log" 2>&1 9>&- &
  STEP_PID=$!
  wait "$STEP_PID" || rc=$?
  STEP_PID=""
  if [ "$rc" -ne 0 ]; then
    grep -E '^(E|W): ' "$log" >&2 || tail -30 "$log" >&2
    if [ "$rc" -eq 124 ]; then
      STEP_ERROR="'$*' timed out after ${secs}s (log: $log)"
    else
      STEP_ERROR="'$*' exited with status $rc (log: $log)"
    fi
    return 1
  fi
  say "  $(basename "$log" .log): done in $(($(date +%s) - start))s"
}
step() { run "$@" || die "$STEP_ERROR"; }

mirror() {
  if [ -n "${IDGEN_DEBIAN_MIRROR:-}" ]; then
    echo "${IDGEN_DEBIAN_MIRROR%/}"
    return
  fi
  # The first Debian archive (a URI ending in /debian) among the machine's sources.
  cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null \
    | sed -nE 's/^URIs:[[:space:]]*//p; s/^deb(-src)?[[:space:]]+(\[[^]]*\][[:space:]]+)?([^[:space:]]+).*/\3/p' \
    | tr ' ' '\n' | sed 's:/*$::' | grep -m1 -E '^https?://.*/debian$' || true
}

# Tools a server build needs, from the machine's own (Debian 12) packages; bison and flex because
# 17 and later no longer ship generated parsers in their tarballs.
build_deps() {
  local p missing=()
  for p in build-essential bison flex perl pkg-config libreadline-dev zlib1g-dev curl ca-certificates \
           llvm-14-dev clang-14; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  say "installing build tools: ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2 \
    || die "apt-get install ${missing[*]}"
}

MIRROR=""
APT_OPTS=()
apt_private() { # the private sources list and lists directory, updated once per run
  [ ${#APT_OPTS[@]} -eq 0 ] || return 0
  local dir=$CACHE/apt suite
  MIRROR=$(mirror)
  [ -n "$MIRROR" ] || die "no Debian mirror in /etc/apt/sources.list*; set IDGEN_DEBIAN_MIRROR"
  rm -rf "$dir"
  mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
  for suite in $SUITES; do
    echo "deb-src [signed-by=$KEYRING] $MIRROR $suite main"
  done >"$dir/sources.list"
  APT_OPTS=(-o "Dir::Etc::SourceList=$dir/sources.list" -o "Dir::Etc::SourceParts=-"
            -o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache")
  say "updating a private source index ($MIRROR: $SUITES)"
  step "$dir/update.log" 600 apt-get "${APT_OPTS[@]}" update
  # apt-get update succeeds even when nothing could be fetched.
  compgen -G "$dir/lists/*_Sources*" >/dev/null || { cat "$dir/update.log" >&2; die "no source index fetched from $MIRROR"; }
}

# fetch_source MAJOR DIR: sets ORIG to the upstream tarball of MAJOR, downloaded into DIR once.
ORIG=""
fetch_source() {
  local major=$1 dir=$2 pin ver sum url
  if [ -f "$dir/.verified" ]; then
    ORIG=$(find "$dir" -maxdepth 1 -name "postgresql-${major}_*.orig.tar.*" ! -name '*.asc' | sort -V | tail -1)
    [ -z "$ORIG" ] || return 0
  fi
  rm -rf "$dir"
  mkdir -p "$dir"
  # apt downloads as its unprivileged user when that user can write there.
  if [ "$(id -u)" -eq 0 ] && id _apt >/dev/null 2>&1; then chown _apt "$dir"; fi
  apt_private
  say "[$major] apt-get source --download-only postgresql-$major"
  if run "$(dirname "$dir")/apt-source-$major.log" 1800 env -C "$dir" apt-get "${APT_OPTS[@]}" source --download-only "postgresql-$major"; then
    # apt checked each file against the signed index.
    ORIG=$(find "$dir" -maxdepth 1 -name "postgresql-${major}_*.orig.tar.*" ! -name '*.asc' | sort -V | tail -1)
  else
    pin=${PINNED[$major]:-}
    [ -n "$pin" ] || die "no source package of PostgreSQL $major: $STEP_ERROR"
    read -r ver sum <<<"$pin"
    rm -rf "$dir"
    mkdir -p "$dir"
    ORIG=$dir/postgresql-${major}_${ver}.orig.tar.bz2
    url=$MIRROR/pool/main/p/postgresql-$major/$(basename "$ORIG")
    say "[$major] the source package could not be fetched; fetching $ver from the pool: $url"
    step "$(dirname "$dir")/download-$major.log" 1800 curl -fsSL --retry 3 -o "$ORIG" "$url"
    echo "$sum  $ORIG" | sha256sum -c --quiet - >&2 || { rm -f "$ORIG"; die "sha256 of $url is not $sum"; }
    say "[$major] sha256 verified"
  fi
  if [ -z "$ORIG" ] || [ ! -f "$ORIG" ]; then die "no upstream tarball in the postgresql-$major source package"; fi
  touch "$dir/.verified"
}

# provide MAJOR: sets PG_CONFIG_OUT to the pg_config of a server of that major, built if needed.
PG_CONFIG_OUT=""
provide() {
  local major=$1 prefix=$CACHE/$1 src build t0 m conf=()
  if [ -x "/usr/lib/postgresql/$major/bin/pg_config" ] && [ -x "/usr/lib/postgresql/$major/bin/postgres" ]; then
    PG_CONFIG_OUT=/usr/lib/postgresql/$major/bin/pg_config
    say "[$major] packaged: $("$PG_CONFIG_OUT" --version)"
    return
  fi
  PG_CONFIG_OUT=$prefix/bin/pg_config
  local flavour=plain
  [[ " $LLVM_MAJORS " == *" $major "* ]] && flavour=llvm14
  [[ " $CASSERT_MAJORS " == *" $major "* ]] && flavour=$flavour-cassert
  # The marker holds the version and the build's options: a cache built otherwise is rebuilt.
  if [ "$(cat "$prefix/$MARKER" 2>/dev/null)" = "$("$PG_CONFIG_OUT" --version 2>/dev/null) $flavour" ]; then
    say "[$major] cached: $("$PG_CONFIG_OUT" --version) in $prefix"
    return
  fi
  [[ $major =~ ^[1-9][0-9]$ ]] || die "'$major' is not a PostgreSQL major version"
  t0=$(date +%s)
  say "[$major] building into $prefix ($flavour, a few minutes at -j$BUILD_JOBS)"
  build_deps
  # Fetching shares the private apt directory: one process at a time.
  exec 8>"$CACHE/.lock-fetch"
  flock -w 3600 8 || die "another build held $CACHE/.lock-fetch for an hour"
  fetch_source "$major" "$CACHE/src/$major"
  exec 8>&-
  say "[$major] source: $(basename "$ORIG")"
  build=$CACHE/build/$major
  rm -rf "$build" "$prefix"
  mkdir -p "$build"
  step "$build/unpack.log" 600 tar -xf "$ORIG" -C "$build"
  src=$(find "$build" -mindepth 1 -maxdepth 1 -type d -name 'postgresql-*' | head -1)
  [ -n "$src" ] || die "unexpected layout of $(basename "$ORIG")"
  # As Debian's server, minus ICU; OpenSSL when its headers are there.
  conf=(--prefix="$prefix" --without-icu --with-readline --with-zlib)
  [[ $flavour != llvm14* ]] || conf+=(--with-llvm LLVM_CONFIG=/usr/bin/llvm-config-14 CLANG=/usr/bin/clang-14)
  # Assertions on, as PostgreSQL's own developers run it: the server checks its API's use (locks,
  # memory contexts, snapshots, relcache references) and logs leaked resources as WARNINGs.
  [[ $flavour != *-cassert ]] || conf+=(--enable-cassert)
  if [ -f /usr/include/openssl/ssl.h ]; then conf+=(--with-openssl); fi
  say "[$major] configure ${conf[*]}"
  step "$build/configure.log" 900 env -C "$src" ./configure "${conf[@]}"
  # ecpg (the embedded-SQL preprocessor, a large generated parser) is used by no test.
  sed -i -E 's/^(SUBDIRS[[:space:]]*=.*)[[:space:]]ecpg\b/\1/' "$src/src/interfaces/Makefile"
  grep -qE '^SUBDIRS[[:space:]]*=.*ecpg' "$src/src/interfaces/Makefile" && die "could not leave ecpg out of the build"
  say "[$major] make -j$BUILD_JOBS (server, then contrib: $CONTRIB)"
  step "$build/make.log" 5400 make -C "$src" -j"$BUILD_JOBS"
  for m in $CONTRIB; do
    step "$build/make-$m.log" 900 make -C "$src/contrib/$m" -j"$BUILD_JOBS"
  done
  say "[$major] make install"
  step "$build/install.log" 900 make -C "$src" install
  for m in $CONTRIB; do
    step "$build/install-$m.log" 300 make -C "$src/contrib/$m" install
  done
  "$PG_CONFIG_OUT" --version >/dev/null || die "the installed pg_config does not run"
  # The marker is written last: a build interrupted before this line is redone from scratch.
  echo "$("$PG_CONFIG_OUT" --version) $flavour" >"$prefix/$MARKER"
  rm -rf "$build"
  say "[$major] built $("$PG_CONFIG_OUT" --version) in $(($(date +%s) - t0))s"
}

only_path=0
if [ "${1:-}" = "--pg-config" ]; then
  only_path=1
  shift
  [ $# -eq 1 ] || die "usage: $0 --pg-config MAJOR"
fi
[ $# -gt 0 ] || set -- 17 18

mkdir -p "$CACHE"
# Clusters run as an unprivileged user, who must be able to reach the binaries.
chmod 755 "$CACHE"
# One build of a major at a time, whoever started it: a lock per major. All the requested majors'
# locks are taken first, in ascending order, and each is released once its major is provided, so a
# run that builds 17 then 18 in the background (scripts/test.sh) keeps 18 while it builds 17, and a
# test run asking for 18 meanwhile waits for that build instead of starting its own.
declare -A lock_fd=()
fd=20
for major in $(printf '%s\n' "$@" | sort -un); do
  [[ $major =~ ^[1-9][0-9]$ ]] || die "'$major' is not a PostgreSQL major version"
  eval "exec $fd>\"\$CACHE/.lock-$major\""
  if ! flock -n "$fd"; then
    say "[$major] waiting for another build of it"
    flock -w 7200 "$fd" || die "another build held $CACHE/.lock-$major for 2 hours"
  fi
  lock_fd[$major]=$fd
  fd=$((fd + 1))
done

for major in "$@"; do
  provide "$major"
  [ -z "${lock_fd[$major]:-}" ] || eval "exec ${lock_fd[$major]}>&-"
  if [ "$only_path" -eq 1 ]; then echo "$PG_CONFIG_OUT"; else echo "$major $PG_CONFIG_OUT"; fi
done
