# Shared by scripts/*.sh: paths, build, and throwaway PostgreSQL clusters.
# shellcheck shell=bash
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
[ -x "$PG_CONFIG" ] || PG_CONFIG=$(command -v pg_config)
PG_BINDIR=$("$PG_CONFIG" --bindir)
JOBS=$(nproc 2>/dev/null || echo 2)

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

# The compiler cache. When ccache is installed (scripts/deps.sh installs it for the test command),
# the extension, the tests and the fuzz targets are compiled through it, with the cache outside the
# repository, beside the servers' cache: $IDGEN_PG_CACHE/ccache when that is set (so a run from an
# empty server cache starts with an empty compiler cache too), else /var/cache/id_gen/ccache as root
# and ~/.cache/id_gen/ccache otherwise; IDGEN_CCACHE_DIR moves it, IDGEN_CCACHE=0 turns it off.
# Paths inside the repository are hashed relative to it (and the working directory not at all), so
# a fresh clone anywhere on the machine reuses what an earlier one compiled. ccache_launch is the
# command to put before a compiler ("" without ccache).
ccache_launch=""
if [ "${IDGEN_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null; then
  if [ -n "${IDGEN_CCACHE_DIR:-}" ]; then CCACHE_DIR=$IDGEN_CCACHE_DIR
  elif [ -n "${IDGEN_PG_CACHE:-}" ]; then CCACHE_DIR=$IDGEN_PG_CACHE/ccache
  elif [ "$(id -u)" -eq 0 ]; then CCACHE_DIR=/var/cache/id_gen/ccache
  else CCACHE_DIR=${XDG_CACHE_HOME:-$HOME/.cache}/id_gen/ccache; fi
  export CCACHE_DIR CCACHE_BASEDIR=$ROOT CCACHE_NOHASHDIR=1
  ccache_launch=$(command -v ccache)
fi
# The make variables that send PGXS's compilers (C, C++ and the bitcode compiler of a server built
# with LLVM) through ccache, one per line; nothing without it.
pgxs_ccache_vars() {
  [ -n "$ccache_launch" ] || return 0
  local global var value
  global="$(dirname "$("$PG_CONFIG" --pgxs)")/../Makefile.global"
  for var in CC CXX CLANG; do
    value=$(sed -n "s/^$var *= *//p" "$global" | head -1)
    [ -z "$value" ] || printf '%s=%s %s\n' "$var" "$ccache_launch" "$value"
  done
}

# PostgreSQL refuses to run as root: clusters belong to an unprivileged user.
if [ "$(id -u)" -eq 0 ]; then
  PG_OS_USER=${PG_OS_USER:-postgres}
  id "$PG_OS_USER" >/dev/null 2>&1 || useradd --system --no-create-home "$PG_OS_USER"
  as_pg() { runuser -u "$PG_OS_USER" -- "$@"; }
else
  PG_OS_USER=$(id -un)
  as_pg() { "$@"; }
fi

# Where the extension is built and installed from: the repository, or the directory that
# IDGEN_EXT_DIR names (scripts/test.sh: the release archive's files, see dist_ext_dir).
EXT_DIR=${IDGEN_EXT_DIR:-$ROOT}

# compile_extension: builds id_gen in $EXT_DIR against $PG_CONFIG (nothing outside it).
compile_extension() {
  # Objects built against another server version are not reused, but they are kept: when the
  # server changes, the objects of the one built last are set aside in build/pgxs-objects (a tar
  # per server and build directory, file times kept) and those of the server wanted are brought
  # back, so a run that switches versions in one directory recompiles only what changed since that
  # server's last build there (make compares the restored objects' times with the sources' as
  # usual). The test command's runs over several versions build each in a directory of its own
  # (build-dist/pgNN), where the server never changes.
  local stamp="$EXT_DIR/.pg_config.stamp" store="$ROOT/build/pgxs-objects" want have
  want="$PG_CONFIG $("$PG_CONFIG" --version)"
  have=$(cat "$stamp" 2>/dev/null || true)  # no stamp in a fresh clone; callers may run under set -e
  if [ "$have" != "$want" ]; then
    mkdir -p "$store"
    if [ -n "$have" ]; then
      (cd "$EXT_DIR" && find src/core src/pg -maxdepth 1 \( -name '*.o' -o -name '*.bc' \) && find . -maxdepth 1 -name '*.so') |
        tar -C "$EXT_DIR" -cf "$store/$(printf '%s %s' "$EXT_DIR" "$have" | md5sum | cut -c1-16).tar" -T - || return 1
    fi
    make -C "$EXT_DIR" -s clean PG_CONFIG="$PG_CONFIG" >/dev/null
    local saved
    saved="$store/$(printf '%s %s' "$EXT_DIR" "$want" | md5sum | cut -c1-16).tar"
    if [ -f "$saved" ]; then tar -C "$EXT_DIR" -xpf "$saved" || return 1; fi
    echo "$want" >"$stamp"
  fi
  local vars=()
  mapfile -t vars < <(pgxs_ccache_vars)
  make -C "$EXT_DIR" -s -j"$JOBS" PG_CONFIG="$PG_CONFIG" "${vars[@]}"
}

# install_extension: installs the build into the server's directories (as root).
install_extension() {
  as_root make -C "$EXT_DIR" -s install PG_CONFIG="$PG_CONFIG" >/dev/null
}

# dist_ext_dir ZIP DIR: DIR holds the files of the release archive ZIP (scripts/release.sh) and
# nothing else of the repository, with the build products of an earlier run kept: a file is
# written only when its content changed (so make rebuilds only what depends on it), and when a
# file came or went since the last archive the build starts clean. Prints what changed.
dist_ext_dir() {
  local zip=$1 dir=$2 stage f changed=0
  stage=$(mktemp -d) || return 1
  unzip -q "$zip" -d "$stage" || { rm -rf "$stage"; return 1; }
  set -- "$stage"/*/
  [ $# -eq 1 ] || { echo "dist_ext_dir: $zip has more than one top directory"; rm -rf "$stage"; return 1; }
  stage=${1%/}
  mkdir -p "$dir"
  (cd "$stage" && find . -type f -o -type l | sort) >"$dir/.dist-files.new"
  if ! cmp -s "$dir/.dist-files.new" "$dir/.dist-files"; then
    [ -f "$dir/Makefile" ] && make -C "$dir" -s clean PG_CONFIG="$PG_CONFIG" >/dev/null 2>&1
    if [ -f "$dir/.dist-files" ]; then
      while read -r f; do [ -e "$stage/$f" ] || rm -f "$dir/$f"; done <"$dir/.dist-files"
    fi
    rm -f "$dir/.pg_config.stamp"
    echo "the archive's file list changed: building from clean"
  fi
  while read -r f; do
    if ! cmp -s "$stage/$f" "$dir/$f"; then
      mkdir -p "$(dirname "$dir/$f")" && cp -P "$stage/$f" "$dir/$f" || return 1
      changed=$((changed + 1))
    fi
  done <"$dir/.dist-files.new"
  # Mode bits too (scripts must stay executable).
  (cd "$stage" && find . -type f -perm -u+x) | while read -r f; do chmod +x "$dir/$f"; done
  mv "$dir/.dist-files.new" "$dir/.dist-files"
  rm -rf "${stage%/*}"
  echo "$changed files changed since the last archive"
}

build_extension() {
  compile_extension && install_extension
}

# start_cluster DIR PORT [postgresql.conf lines...]: initdb + start on a private Unix socket in DIR.
start_cluster() {
  local dir=$1 port=$2
  shift 2
  mkdir -p "$dir"
  chmod 755 "$dir"
  chown "$PG_OS_USER" "$dir" 2>/dev/null || true
  as_pg "$PG_BINDIR/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log"; return 1; }
  {
    echo "listen_addresses = ''"
    echo "unix_socket_directories = '$dir'"
    echo "port = $port"
    echo "fsync = off"
    echo "max_connections = 40"
    echo "shared_buffers = 256MB"
    echo "max_wal_size = 2GB"
    for line in "$@"; do echo "$line"; done
  } | as_pg tee -a "$dir/data/postgresql.conf" >/dev/null
  as_pg "$PG_BINDIR/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >/dev/null \
    || { cat "$dir/server.log"; return 1; }
}

stop_cluster() {
  local dir=$1
  [ -d "$dir/data" ] && as_pg "$PG_BINDIR/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
}
