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
      (cd "$EXT_DIR" && find src/core src/pg -maxdepth 2 \( -name '*.o' -o -name '*.bc' \) && find . -maxdepth 1 -name '*.so') |
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

# server_prefix: the prefix of $PG_CONFIG's server when its programs, shared files, libraries,
# server headers and PGXS all lie under it (the servers scripts/pg_versions.sh builds; Debian's
# packaged ones spread over /usr): a copy of that directory is a server of its own (PostgreSQL
# finds its files relative to its programs). Prints nothing otherwise.
server_prefix() {
  local prefix d
  prefix=$(dirname "$("$PG_CONFIG" --bindir)")
  for d in sharedir pkglibdir includedir-server pgxs; do
    case "$("$PG_CONFIG" --"$d")" in "$prefix"/*) ;; *) return 0 ;; esac
  done
  echo "$prefix"
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

# start_cluster DIR PORT [postgresql.conf lines...]: initdb (throwaway: --no-sync) + start on a
# private Unix socket in DIR.
start_cluster() {
  local dir=$1 port=$2
  shift 2
  mkdir -p "$dir"
  chmod 755 "$dir"
  chown "$PG_OS_USER" "$dir" 2>/dev/null || true
  as_pg "$PG_BINDIR/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 --no-sync >"$dir/initdb.log" 2>&1 \
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

# ---- Server logs: what a server with assertions on (--enable-cassert, scripts/pg_versions.sh)
# and any server log when the extension misuses PostgreSQL's API. The test command scans every log
# its layers' clusters wrote (scan_server_logs) and fails on:
#  - an assertion failure: "TRAP:" (assert.c), and a process that died of a signal other than
#    SIGKILL (the fault and Citus layers kill backends with it on purpose); SIGABRT only when the
#    process had not just logged a PANIC (the fault layer's failing fsync ends in one);
#  - the WARNINGs of resources left open at commit and of broken internal state: resowner.c's
#    "resource was not closed" (17 and later) and the "... reference leak" / "... leak: ... still
#    referenced" lines of 15, buffer pins, snapshots, locks, the SPI stack, temporary files,
#    hash table scans, parallel contexts, memory chunks written past their end (cassert).
# Each pattern is a WARNING text of PostgreSQL 15 to 18 (bufmgr.c, localbuf.c, resowner.c,
# relcache.c, snapmgr.c, lock.c, spi.c, fd.c, dynahash.c, parallel.c, xact.c, portalmem.c and the
# memory context implementations).
SERVER_LOG_WARNINGS='WARNING:  (resource was not closed: |[A-Za-z ]*reference leak: |(local )?buffer refcount leak|temporary file leak|dynamic shared memory leak|[A-Za-z]* ?context leak|leaked hash_seq_search scan|leaked parallel context|leaked override search path|leaking still-referenced relcache entry|cannot remove relcache entry .* nonzero refcount|failed to delete relcache entry|snapshot .* still active|registered snapshots seem to remain after cleanup|you don.t own a lock of type|tuple lock held at commit|locallock table corrupted|ReleaseLockIfHeld: failed|(sub)?transaction left non-empty SPI stack|attempt to delete invalid SPITupleTable|temporary file .* not closed at end-of-transaction|[0-9]+ temporary files and directories not closed|(file|dir|fd) passed to [A-Za-z]+ was not obtained from|detected write past chunk end|problem in (alloc set|Generation|slab|Bump) |[A-Za-z]+Transaction while in [A-Z_]+ state|parallelModeLevel is [0-9]+ not|skipping cleanup for portal|trying to delete portal name that does not exist)'

# server_log_problems: the offending lines of a server log read from stdin, one per line.
server_log_problems() {
  awk -v warn="$SERVER_LOG_WARNINGS" '
    /TRAP: / { print; next }
    $0 ~ warn { print; next }
    # "<time> [PID] PANIC:  ..." (the default log_line_prefix, %m [%p]): that process aborts.
    match($0, /\[[0-9]+\] PANIC: /) { panicked[substr($0, RSTART + 1, RLENGTH - 10)] = 1 }
    match($0, /\(PID [0-9]+\) was terminated by signal [0-9]+/) {
      s = substr($0, RSTART, RLENGTH)
      pid = s; sub(/^\(PID /, "", pid); sub(/\).*/, "", pid)
      sig = s; sub(/.* signal /, "", sig)
      if (sig == 9 || (sig == 6 && (pid in panicked))) next
      print
    }'
}

# scan_server_logs DIR...: every server log under the DIRs (server.log, the logging
# collector's data/log/*.log, and the logs kept in a server-logs/ directory by the tests whose
# clusters are removed when they end: IDGEN_SERVER_LOGS), each from where the previous scan of it
# stopped, so a log shared by several layers is charged to the layer that wrote it. Prints the
# offending lines (paths relative to SCAN_ROOT) and sets scan_passed and scan_failed: one count
# per log that had something new.
declare -A server_log_offset
scan_server_logs() {
  local f inode size seen from problems shown=0
  scan_passed=0
  scan_failed=0
  while IFS= read -r f; do
    read -r inode size < <(stat -c '%i %s' "$f" 2>/dev/null) || continue
    seen=${server_log_offset[$f]:-}
    from=0
    # The same file (inode) as at the last scan, no shorter: from where that scan stopped.
    if [ "${seen%% *}" = "$inode" ] && [ "$size" -ge "${seen##* }" ]; then from=${seen##* }; fi
    server_log_offset[$f]="$inode $size"
    [ "$size" -gt "$from" ] || continue
    problems=$(tail -c +"$((from + 1))" "$f" | head -c "$((size - from))" | server_log_problems)
    if [ -z "$problems" ]; then
      scan_passed=$((scan_passed + 1))
    else
      scan_failed=$((scan_failed + 1))
      if [ "$shown" -lt 10 ]; then
        echo "server log ${f#"${SCAN_ROOT:-}"/}:"
        printf '%s\n' "$problems" | head -20 | sed 's/^/  /'
      fi
      shown=$((shown + 1))
    fi
  done < <(find "$@" -type f \( -name server.log -o -path '*/data/log/*.log' -o -path '*/server-logs/*.log' \) 2>/dev/null | sort)
}
