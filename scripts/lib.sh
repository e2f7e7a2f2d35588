# Shared by scripts/*.sh: paths, build, and throwaway PostgreSQL clusters.
# shellcheck shell=bash
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
[ -x "$PG_CONFIG" ] || PG_CONFIG=$(command -v pg_config)
PG_BINDIR=$("$PG_CONFIG" --bindir)
JOBS=$(nproc 2>/dev/null || echo 2)

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

# PostgreSQL refuses to run as root: clusters belong to an unprivileged user.
if [ "$(id -u)" -eq 0 ]; then
  PG_OS_USER=${PG_OS_USER:-postgres}
  id "$PG_OS_USER" >/dev/null 2>&1 || useradd --system --no-create-home "$PG_OS_USER"
  as_pg() { runuser -u "$PG_OS_USER" -- "$@"; }
else
  PG_OS_USER=$(id -un)
  as_pg() { "$@"; }
fi

# compile_extension: builds id_gen in the repository against $PG_CONFIG (nothing outside it).
compile_extension() {
  # Objects built against another server version are not reused, but they are kept: when the
  # server changes, the objects of the one built last are set aside in build/pgxs-objects (a tar
  # per server, file times kept) and those of the server wanted are brought back, so a run over
  # several versions recompiles only what changed since that server's last build (make compares
  # the restored objects' times with the sources' as usual) instead of everything, each version.
  local stamp="$ROOT/.pg_config.stamp" store="$ROOT/build/pgxs-objects" want have
  want="$PG_CONFIG $("$PG_CONFIG" --version)"
  have=$(cat "$stamp" 2>/dev/null)
  if [ "$have" != "$want" ]; then
    mkdir -p "$store"
    if [ -n "$have" ]; then
      (cd "$ROOT" && find src/core src/pg -maxdepth 1 \( -name '*.o' -o -name '*.bc' \) && find . -maxdepth 1 -name '*.so') |
        tar -C "$ROOT" -cf "$store/$(printf '%s' "$have" | md5sum | cut -c1-16).tar" -T - || return 1
    fi
    make -C "$ROOT" -s clean PG_CONFIG="$PG_CONFIG" >/dev/null
    local saved
    saved="$store/$(printf '%s' "$want" | md5sum | cut -c1-16).tar"
    if [ -f "$saved" ]; then tar -C "$ROOT" -xpf "$saved" || return 1; fi
    echo "$want" >"$stamp"
  fi
  make -C "$ROOT" -s -j"$JOBS" PG_CONFIG="$PG_CONFIG"
}

# install_extension: installs the build into the server's directories (as root).
install_extension() {
  as_root make -C "$ROOT" -s install PG_CONFIG="$PG_CONFIG" >/dev/null
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
