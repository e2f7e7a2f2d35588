#!/usr/bin/env bash
# The Debian packages: postgresql-NN-id-gen for every server in debian/pgversions that
# postgresql-server-dev-all provides here, libid-gen0.4 and libid-gen-dev. Built with
# `dpkg-buildpackage -us -uc -b` out of an export of the tracked files (scripts/release.sh
# --worktree: uncommitted changes included, untracked files not), so the checkout stays clean;
# debian/control is checked against debian/control.in first (pg_buildext checkcontrol).
# Prints the path of each .deb and of the .changes, one a line.
#   scripts/package.sh [--out DIR]   (default DIR: build-deb/ in the repository)
#   IDGEN_PACKAGE_JOBS   parallel jobs (default: the number of CPUs)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$ROOT/build-deb
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=$2; shift ;;
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: $0 [--out DIR]" >&2; exit 2 ;;
  esac
  shift
done
for tool in dpkg-buildpackage dh pg_buildext; do
  command -v "$tool" >/dev/null || { echo "package.sh: $tool is missing: run scripts/deps.sh (debhelper, postgresql-server-dev-all)" >&2; exit 1; }
done
jobs=${IDGEN_PACKAGE_JOBS:-$(nproc 2>/dev/null || echo 2)}
# Compiled through ccache when lib.sh finds it (its cache, its settings), in a directory whose
# path does not change between runs or clones: dpkg-buildflags writes the build path into the
# compiler's flags (-ffile-prefix-map), so a build under a fresh temporary path would never hit
# the cache. One build at a time there (a lock); IDGEN_PACKAGE_BUILD_DIR moves it.
# shellcheck source=lib.sh
source "$ROOT/scripts/lib.sh"
if [ -n "$ccache_launch" ] && [ -d /usr/lib/ccache ]; then
  export PATH="/usr/lib/ccache:$PATH"
  W=${IDGEN_PACKAGE_BUILD_DIR:-$(dirname "$CCACHE_DIR")/deb-build}
  mkdir -p "$W"
  exec 8>"$W.lock"
  flock 8
  rm -rf "${W:?}"/*
  trap 'rm -rf "${W:?}"/*' EXIT
else
  W=$(mktemp -d -t id_gen_package.XXXXXX)
  trap 'rm -rf "$W"' EXIT
fi
zip=$("$ROOT/scripts/release.sh" --worktree --out "$W")
version=$(basename "$zip" .zip)
version=${version#id_gen-}
(cd "$W" && unzip -q "$zip")
src="$W/id-gen-$version"
mv "$W/id_gen-$version" "$src"
upstream=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version | sed 's/-[^-]*$//')
[ "$upstream" = "$version" ] \
  || { echo "package.sh: debian/changelog's newest version is $upstream, id_gen.control's is $version: add a debian/changelog entry" >&2; exit 1; }
(cd "$src" && pg_buildext checkcontrol >&2)
(cd "$src" && DEB_BUILD_OPTIONS="parallel=$jobs ${DEB_BUILD_OPTIONS:-}" dpkg-buildpackage -us -uc -b >"$W/build.log" 2>&1) \
  || { tail -60 "$W/build.log" >&2; echo "package.sh: dpkg-buildpackage failed" >&2; exit 1; }
mkdir -p "$out"
rm -f "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
cp "$W"/*.deb "$W"/*.changes "$W"/*.buildinfo "$out"/
cp "$W/build.log" "$out/build.log"
out=$(cd "$out" && pwd)
ls "$out"/*.deb "$out"/*.changes
