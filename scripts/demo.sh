#!/usr/bin/env bash
# The README's first command: installs what is missing, builds id_gen and installs it into a
# PostgreSQL server's directories, starts a throwaway cluster and shows every ID kind at work
# (scripts/demo/*.sql), checking what it shows. The cluster is removed on exit.
#
#   scripts/demo.sh [--yes]
#
# Nothing outside the repository changes without being announced first. Before it installs
# Debian packages, creates the system user that runs clusters, or writes the extension's files
# into the server's directories, it lists what it will install and where, and then:
#   at a terminal                    asks, and stops on anything but y;
#   --yes, or IDGEN_DEMO_YES=1       goes ahead without asking;
#   IDGEN_DEMO_YES=0                 stops there, having installed nothing;
#   no terminal and neither of them  goes ahead (a pipe, CI, ssh without a terminal).
# Stopping there exits with status 3, having installed nothing. When the server already has
# exactly this build's files, there is nothing to install or ask.
#
#   PG_CONFIG          the server to use (default: Debian's PostgreSQL 15)
#   IDGEN_DEMO_PORT    the demo cluster's port (default 54320; the test command uses 54329-54338)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DEBIAN_PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config
PORT=${IDGEN_DEMO_PORT:-54320}
ANSWER=${IDGEN_DEMO_YES:-}

usage() { sed -n '2,/^set -euo pipefail/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }
for arg in "$@"; do
  case $arg in
    -y | --yes) ANSWER=1 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "demo: unknown argument '$arg'" >&2; usage >&2; exit 2 ;;
  esac
done
case $ANSWER in
  '' | 0 | 1) ;;
  *) echo "demo: IDGEN_DEMO_YES is 0 or 1, not '$ANSWER'" >&2; exit 2 ;;
esac

say() { echo "demo: $*"; }

# consent: asks (or decides) whether to install what the lines just printed list.
consent() {
  case $ANSWER in
    1) say "going ahead (--yes or IDGEN_DEMO_YES=1)"; return 0 ;;
    0) say "IDGEN_DEMO_YES=0: stopping; nothing was installed"; exit 3 ;;
  esac
  if [ -t 0 ]; then
    local reply=""
    read -r -p "Install? [y/N] " reply || true
    case $reply in
      [yY] | [yY][eE][sS]) return 0 ;;
    esac
    say "stopping; nothing was installed (--yes or IDGEN_DEMO_YES=1 installs without asking)"
    exit 3
  fi
  say "no terminal to ask: going ahead (IDGEN_DEMO_YES=0 would stop here)"
}

# list_by_dir FILE...: the files grouped by directory, a few names each.
list_by_dir() {
  printf '%s\n' "$@" | awk '
    { d = $0; sub(/\/[^\/]*$/, "", d); f = substr($0, length(d) + 2)
      if (!(d in n)) order[++k] = d
      if (++n[d] <= 4) names[d] = names[d] (n[d] > 1 ? ", " : "") f }
    END { for (i = 1; i <= k; i++) { d = order[i]
            printf "    %s/: %s%s\n", d, names[d], (n[d] > 4 ? sprintf(" and %d more", n[d] - 4) : "") } }'
}

root_how="as root"
[ "$(id -u)" -eq 0 ] || root_how="with sudo"

# 1. What this machine lacks: Debian packages, and the unprivileged user clusters run as.
pg_config=${PG_CONFIG:-$DEBIAN_PG_CONFIG}
if [ ! -x "$pg_config" ] && [ "$pg_config" != "$DEBIAN_PG_CONFIG" ]; then
  echo "demo: PG_CONFIG=$pg_config is not an executable pg_config" >&2
  exit 2
fi
missing=$(PG_CONFIG=$pg_config "$ROOT/scripts/deps.sh" --demo --missing)
new_user=""
if [ "$(id -u)" -eq 0 ] && ! id "${PG_OS_USER:-postgres}" >/dev/null 2>&1; then
  new_user=${PG_OS_USER:-postgres}
fi
agreed=0
if [ -n "$missing" ] || [ -n "$new_user" ]; then
  if [ -x "$pg_config" ]; then
    libdir=$("$pg_config" --pkglibdir)
    extdir=$("$pg_config" --sharedir)/extension
  else # the directories of Debian's postgresql-15, about to be installed
    libdir=/usr/lib/postgresql/15/lib
    extdir=/usr/share/postgresql/15/extension
  fi
  say "this installs, outside the repository:"
  if [ -n "$missing" ]; then
    echo "  - Debian packages, with apt-get $root_how: $missing"
    echo "    (and a postgresql-common setting, so that postgresql-15 creates no default cluster)"
  fi
  [ -z "$new_user" ] || echo "  - a system user '$new_user', who runs the clusters (PostgreSQL refuses root)"
  echo "  - id_gen, built in the repository, $root_how into the server's directories:"
  echo "    $libdir/ (id_gen.so) and $extdir/ (id_gen.control, id_gen--*.sql)"
  consent
  agreed=1
  [ -z "$missing" ] || PG_CONFIG=$pg_config "$ROOT/scripts/deps.sh" --demo
fi

export PG_CONFIG=$pg_config
# shellcheck source=lib.sh
source "$ROOT/scripts/lib.sh"

WORK=$(mktemp -d /tmp/id_gen_demo.XXXXXX)
chmod 755 "$WORK"
trap 'stop_cluster "$WORK/pg"; rm -rf "$WORK"' EXIT

# 2. Build in the repository, then find what installing it would write or replace: the files a
# staged install produces that differ from the server's.
say "building id_gen against $("$PG_CONFIG" --version)"
compile_extension
make -C "$ROOT" -s install DESTDIR="$WORK/stage" PG_CONFIG="$PG_CONFIG" >/dev/null
changed=()
while IFS= read -r -d '' staged; do
  target=${staged#"$WORK/stage"}
  cmp -s "$staged" "$target" 2>/dev/null || changed+=("$target")
done < <(find "$WORK/stage" -type f -print0 | sort -z)
if [ ${#changed[@]} -eq 0 ]; then
  say "the server already has this build of id_gen: nothing to install"
else
  if [ "$agreed" -eq 0 ]; then
    say "this installs id_gen $root_how into the directories of $("$PG_CONFIG" --version), writing or replacing:"
    list_by_dir "${changed[@]}"
    consent
  fi
  install_extension
  say "installed ${#changed[@]} file$([ ${#changed[@]} -eq 1 ] || echo s)"
fi

# 3. A throwaway cluster that preloads id_gen and is snowflake node 1, and the demo in one session.
say "starting a throwaway cluster on port $PORT (IDGEN_DEMO_PORT)"
start_cluster "$WORK/pg" "$PORT" "shared_preload_libraries = 'id_gen'" "id_gen.node_id = 1"
files=()
for f in "$ROOT"/scripts/demo/*.sql; do files+=(-f "$f"); done
PGHOST="$WORK/pg" PGPORT="$PORT" PGUSER=postgres "$PG_BINDIR/psql" -X -q -d postgres "${files[@]}" 2>&1 \
  | tee "$WORK/demo.out"
# Every part ends with checks printed as "<kind>: <property> | t" (or f).
held=$(grep -cE '^[a-z0-9]+: .* \| t$' "$WORK/demo.out" || true)
broken=$(grep -cE '^[a-z0-9]+: .* \| f$' "$WORK/demo.out" || true)
echo
if [ "$broken" -gt 0 ] || [ "$held" -eq 0 ]; then
  say "FAILED: $broken of $((held + broken)) checks do not hold"
  exit 1
fi
say "all $held checks hold; the cluster is removed now"
