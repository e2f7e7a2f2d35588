#!/usr/bin/env bash
# The Debian packages as a user gets them (part of the package layer, test/package/run.sh): built
# by scripts/package.sh, checked by lintian, installed with apt-get into Debian's PostgreSQL 15 (as
# root), then the pg_regress suite run against the installed files only, CREATE EXTENSION, and a
# program built against the installed libid-gen-dev with CMake and with pkg-config; at the end the
# packages are purged and every file they installed must be gone. One TAP line per check.
#   deb_test.sh [--build-only DIR | --install-from DIR]
#     --build-only DIR     only the build and its checks (lintian, control, changelog), which
#                          install nothing; the .debs go to DIR, and DIR/done says ok or failed
#     --install-from DIR   the rest, with the .debs of DIR once DIR/done says ok (waits for it)
#   IDGEN_DEMO_PORT   port of the throwaway cluster (default 55432)
#   KEEP_WORK=1       keep the work directory
# What an earlier `make install` left in Debian's PostgreSQL 15 is moved aside first and put back
# at the end, after the purge (the demo test expects an installed build).
set -uo pipefail
# shellcheck source=../../scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
PGV=15
SYS_PG_CONFIG=/usr/lib/postgresql/$PGV/bin/pg_config
PORT=${IDGEN_DEMO_PORT:-55432}
VERSION=$(sed -n "s/^default_version = '\(.*\)'/\1/p" "$ROOT/id_gen.control")
W=$(mktemp -d -t id_gen_deb_test.XXXXXX)
chmod 755 "$W"
log="$W/deb.log"
: >"$log"
PACKAGES=(postgresql-$PGV-id-gen libid-gen${VERSION%.*} libid-gen-dev)
mode=all
case ${1:-} in
  --build-only | --install-from)
    mode=${1#--}
    DEB_DIR=${2:?$1 DIR}
    mkdir -p "$DEB_DIR"
    [ "$mode" = install-from ] || rm -f "$DEB_DIR/done" "$DEB_DIR"/*.deb
    ;;
  "") ;;
  *) echo "usage: $0 [--build-only DIR | --install-from DIR]" >&2; exit 2 ;;
esac

n=0
failures=0
check() { # check NAME COMMAND...: runs the command (output to the log), prints a TAP line
  local name=$1
  shift
  n=$((n + 1))
  echo "---- $name: $*" >>"$log"
  if "$@" >>"$log" 2>&1; then
    echo "ok $n - deb: $name"
  else
    failures=$((failures + 1))
    echo "not ok $n - deb: $name"
    tail -30 "$log" | sed 's/^/#   /'
  fi
}

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
purge_packages() {
  local p present=()
  for p in "${PACKAGES[@]}"; do installed "$p" && present+=("$p"); done
  [ ${#present[@]} -eq 0 ] || as_root env DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq "${present[@]}"
}
# Files of id_gen in the server's directories, whoever put them there.
idgen_files() {
  find "$("$SYS_PG_CONFIG" --pkglibdir)" "$("$SYS_PG_CONFIG" --sharedir)/extension" -maxdepth 2 \
    \( -name 'id_gen.so' -o -name 'id_gen.control' -o -name 'id_gen--*.sql' -o -name 'id_gen_*.control' \
       -o -name 'id_gen_*--*.sql' -o -path '*/bitcode/id_gen*' \) 2>/dev/null
}
finish() {
  if [ "$mode" = build-only ]; then
    [ -n "${KEEP_WORK:-}" ] || rm -rf "$W"
    return
  fi
  stop_cluster "$W/pg"
  purge_packages >>"$log" 2>&1
  # The files of an earlier make install, as they were.
  [ ! -d "$W/aside" ] || as_root cp -a "$W/aside/." / >>"$log" 2>&1
  [ -n "${KEEP_WORK:-}" ] || rm -rf "$W"
}
trap finish EXIT

if [ ! -x "$SYS_PG_CONFIG" ]; then
  echo "not ok 1 - deb: Debian's PostgreSQL $PGV is not installed (scripts/deps.sh)"
  exit 1
fi

# ---- Build and lint
if [ "$mode" = install-from ]; then
  # The build of the other half (its own TAP lines), waited for: up to 25 minutes.
  for _ in $(seq 1500); do [ -s "$DEB_DIR/done" ] && break; sleep 1; done
  if [ "$(cat "$DEB_DIR/done" 2>/dev/null)" != ok ]; then
    echo "not ok 1 - deb: the packages to install were built (deb_test.sh --build-only $DEB_DIR: $(cat "$DEB_DIR/done" 2>/dev/null || echo 'not done'))"
    exit 1
  fi
  mkdir -p "$W/debs" && cp "$DEB_DIR"/*.deb "$W/debs/" || exit 1
fi
build() {
  local t0=$SECONDS
  "$ROOT/scripts/package.sh" --out "$W/debs" >"$W/debs.list" || return 1
  echo "package build: $((SECONDS - t0)) s"
  cat "$W/debs.list"
  local p
  for p in "${PACKAGES[@]}"; do
    ls "$W/debs/${p}_$VERSION-"*_*.deb || { echo "no .deb for $p"; return 1; }
  done
}
if [ "$mode" != install-from ]; then
check "scripts/package.sh builds ${PACKAGES[*]} $VERSION" build
echo "# package build time: $(sed -n 's/^package build: //p' "$log")"

lintian_clean() {
  # --pedantic shows everything; errors and warnings must not be there (info and pedantic tags may).
  lintian --pedantic --display-info "$W"/debs/*.changes >"$W/lintian.out" 2>&1
  local rc=$?
  cat "$W/lintian.out"
  [ "$rc" -eq 0 ] && ! grep -E '^[EW]: ' "$W/lintian.out"
}
check "lintian on the .debs and the .changes: no error, no warning" lintian_clean

overrides_have_reasons() {
  # Every override line follows a comment that gives its reason.
  local f bad=0
  for f in "$ROOT"/debian/*lintian-overrides "$ROOT"/debian/source/lintian-overrides; do
    [ -f "$f" ] || continue
    awk -v f="$f" '/^#/ { reason = 1; next } /^[[:space:]]*$/ { reason = 0; next }
                   { if (!reason) { print f ": override without a reason: " $0; bad = 1 } } END { exit bad }' "$f" || bad=1
  done
  [ "$bad" -eq 0 ]
}
check "every lintian override has its reason in a comment" overrides_have_reasons

control_current() { (cd "$ROOT" && pg_buildext checkcontrol); }
check "debian/control is what pg_buildext makes of debian/control.in" control_current

changelog_agrees() {
  # debian/changelog's newest entry is id_gen.control's version, and UNRELEASED exactly when
  # CHANGELOG.md's newest entry says "unreleased" (else on the same date).
  local deb_version dist date upstream md
  deb_version=$(dpkg-parsechangelog -l "$ROOT/debian/changelog" -S Version)
  dist=$(dpkg-parsechangelog -l "$ROOT/debian/changelog" -S Distribution)
  date=$(date -u -d "$(dpkg-parsechangelog -l "$ROOT/debian/changelog" -S Date)" +%F)
  upstream=${deb_version%-*}
  md=$(sed -n 's/^## \([0-9][0-9.]*\) — \(.*\)$/\1 \2/p' "$ROOT/CHANGELOG.md" | head -1)
  echo "debian/changelog: $deb_version $dist $date; CHANGELOG.md: $md; id_gen.control: $VERSION"
  [ "$upstream" = "$VERSION" ] && [ "${md%% *}" = "$VERSION" ] || return 1
  if [ "${md#* }" = unreleased ]; then [ "$dist" = UNRELEASED ]; else [ "$dist" != UNRELEASED ] && [ "${md#* }" = "$date" ]; fi
}
check "debian/changelog agrees with id_gen.control and CHANGELOG.md" changelog_agrees
fi
if [ "$mode" = build-only ]; then
  if [ "$failures" -eq 0 ] && cp "$W"/debs/*.deb "$DEB_DIR/"; then echo ok >"$DEB_DIR/done"; else echo failed >"$DEB_DIR/done"; fi
  [ "$failures" -eq 0 ]
  exit
fi

# ---- Install into Debian's PostgreSQL 15, with nothing of id_gen there before
clean_slate() {
  purge_packages || return 1
  local f
  for f in $(idgen_files); do
    echo "moving aside until the end: $f"
    as_root mkdir -p "$W/aside$(dirname "$f")" && as_root mv "$f" "$W/aside$f" || return 1
  done
  [ -z "$(idgen_files)" ]
}
check "no id_gen file in PostgreSQL $PGV's directories before the install" clean_slate

install_debs() {
  local debs=() p
  for p in "${PACKAGES[@]}"; do debs+=("$(ls "$W/debs/${p}_$VERSION-"*_*.deb)"); done
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${debs[@]}" || return 1
  for p in "${PACKAGES[@]}"; do installed "$p" || { echo "$p is not installed"; return 1; }; done
  # What the packages installed, for the purge check at the end.
  dpkg -L "${PACKAGES[@]}" >"$W/dpkg-L.txt" || return 1
  while read -r f; do [ -f "$f" ] && [ ! -L "$f" ] && echo "$f"; done <"$W/dpkg-L.txt" >"$W/files.txt"
  echo "$(wc -l <"$W/files.txt") regular files"
  local libdir sharedir
  libdir=$("$SYS_PG_CONFIG" --pkglibdir)
  sharedir=$("$SYS_PG_CONFIG" --sharedir)
  for f in "$libdir/id_gen.so" "$sharedir/extension/id_gen.control" "$sharedir/extension/id_gen--$VERSION.sql" \
           /usr/include/id_gen/id_gen.hpp; do
    grep -qxF "$f" "$W/files.txt" || { echo "missing from the packages: $f"; return 1; }
  done
  # The released scripts and every update script are packaged, as make install would put them.
  for f in "$ROOT"/id_gen--*.sql "$ROOT"/src/update/*.sql; do
    f=$(basename "$f")
    [[ $f == id_gen--* ]] || f="id_gen--$f"
    grep -qxF "$sharedir/extension/$f" "$W/files.txt" || { echo "missing from the packages: $f"; return 1; }
  done
  # The companion extensions (companions/): each control file and script, as make install puts them.
  for f in "$ROOT"/companions/*.control "$ROOT"/companions/*--*.sql; do
    grep -qxF "$sharedir/extension/$(basename "$f")" "$W/files.txt" || { echo "missing from the packages: $(basename "$f")"; return 1; }
  done
  # The shared library has its SONAME, and the -dev package's link points at it.
  objdump -p "$(grep -E '/libid_gen\.so\.[0-9.]+$' "$W/files.txt" | head -1)" | grep -E "SONAME +libid_gen\.so\.${VERSION%.*}\$"
}
check "apt-get install ./${PACKAGES[0]}_*.deb ./${PACKAGES[1]}_*.deb ./${PACKAGES[2]}_*.deb" install_debs

# ---- The regress suite against the installed files: a directory with nothing but sql/ and expected/
regress_installed() {
  local r="$W/regress" pgxs tests
  mkdir -p "$r"
  cp -r "$ROOT/sql" "$ROOT/expected" "$r"/
  chown -R "$PG_OS_USER" "$r"
  PG_BINDIR=$("$SYS_PG_CONFIG" --bindir)
  # As the test command's main cluster: the library preloaded, node 1, the test clock allowed.
  start_cluster "$W/pg" "$PORT" "shared_preload_libraries = 'id_gen'" "id_gen.node_id = 1" \
    "id_gen.enable_test_clock = on" "id_gen.launch_id = 1" || return 1
  pgxs=$(dirname "$("$SYS_PG_CONFIG" --pgxs)")/..
  tests=$(cd "$r/sql" && ls -- *.sql | sed 's/\.sql$//' | sort)
  # shellcheck disable=SC2086
  (cd "$r" && as_pg "$pgxs/test/regress/pg_regress" --inputdir=. --bindir="$PG_BINDIR" --host="$W/pg" --port="$PORT" \
    --user=postgres --dbname=contrib_regression --load-extension=id_gen $tests) >"$W/regress.out" 2>&1
  local rc=$?
  cat "$W/regress.out"
  [ "$rc" -eq 0 ] || { head -100 "$r/regression.diffs" 2>/dev/null; return 1; }
  # Every test ran and passed (15 prints "test NAME ... ok").
  [ "$(grep -cE '\.\.\. ok|^ok [0-9]+ +[-+] ' "$W/regress.out")" -eq "$(echo "$tests" | wc -l)" ]
}
check "pg_regress ($(find "$ROOT/sql" -name '*.sql' | wc -l) tests) against the installed package, from a directory of sql/ and expected/ only" regress_installed

create_extension() {
  local psql="$PG_BINDIR/psql -X -q -At -v ON_ERROR_STOP=1 -h $W/pg -p $PORT -U postgres"
  $psql -d postgres -c "CREATE DATABASE deb_test" || return 1
  local out
  out=$($psql -d deb_test -c "CREATE EXTENSION id_gen" \
    -c "SELECT extversion FROM pg_extension WHERE extname = 'id_gen'" \
    -c "SELECT probin FROM pg_proc WHERE proname = 'gen_ulid' LIMIT 1" \
    -c "SELECT gen_ulid() < gen_ulid()") || return 1
  echo "$out"
  [ "$(echo "$out" | sed -n 1p)" = "$VERSION" ] && [ "$(echo "$out" | sed -n 2p)" = '$libdir/id_gen' ] \
    && [ "$(echo "$out" | sed -n 3p)" = t ]
}
check "CREATE EXTENSION id_gen ($VERSION) and gen_ulid() from the package" create_extension

# ---- The C++ library from libid-gen-dev, found where the system keeps it (no prefix given)
consumer_ok() { # consumer_ok BINARY: it works and runs on the packaged shared library
  local out
  out=$("$1") || return 1
  echo "$out"
  [[ $out =~ ^consumer\ $VERSION\ .*\ ok$ ]] && ldd "$1" | grep -E "libid_gen\.so\.${VERSION%.*} => (/usr)?/lib/"
}
cmake_consumer() {
  cmake -S "$ROOT/test/package/consumer" -B "$W/c-cmake" -DCONSUMER_WANT="${VERSION%.*}" && cmake --build "$W/c-cmake" \
    && consumer_ok "$W/c-cmake/consumer"
}
check "find_package(id_gen ${VERSION%.*}) against libid-gen-dev, linked to the shared library" cmake_consumer
pkgconfig_consumer() {
  [ "$(pkg-config --modversion id_gen)" = "$VERSION" ] || return 1
  # shellcheck disable=SC2046
  c++ -std=c++17 -O1 "$ROOT/test/package/consumer/main.cpp" -o "$W/consumer-pc" $(pkg-config --cflags --libs id_gen) \
    && consumer_ok "$W/consumer-pc"
}
check "pkg-config id_gen against libid-gen-dev, linked to the shared library" pkgconfig_consumer

# ---- Purge: nothing the packages installed is left
purge_clean() {
  stop_cluster "$W/pg"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq "${PACKAGES[@]}" || return 1
  local p f left=0
  for p in "${PACKAGES[@]}"; do ! installed "$p" || { echo "$p is still installed"; return 1; }; done
  [ -s "$W/files.txt" ] || { echo "no file list from dpkg -L"; return 1; }
  while read -r f; do [ ! -e "$f" ] || { echo "left behind: $f"; left=1; }; done <"$W/files.txt"
  [ -z "$(idgen_files)" ] || { idgen_files; left=1; }
  [ "$left" -eq 0 ]
}
check "apt-get purge leaves none of the $(wc -l <"$W/files.txt" 2>/dev/null || echo 0) files dpkg -L listed" purge_clean
[ "$failures" -eq 0 ]
