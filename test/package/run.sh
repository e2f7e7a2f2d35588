#!/usr/bin/env bash
# The package layer of scripts/test.sh, run once (not per server version): META.json against the
# PGXN Meta Spec and the repository, LICENSE, CHANGELOG.md (meta_test.pl), and the README's demo
# (demo_test.sh), the C++ library installed and built against (library_test.sh), the Debian
# packages built, installed, tested and purged (deb_test.sh), the release archive
# (dist_test.sh), the writers of bench/report.sh on saved raw output
# (bench_report_test.sh), the test command's server log check on saved log lines
# (server_logs_test.sh), the install script built from src/sql against the newest released one
# (install_script_test.pl), and the source layout's maps, every folder's README.md listing its
# files (layout_test.sh), and the C++ sources against .clang-format (format_test.sh). Ends with "N passed, N failed" like the test command.
#   test/package/run.sh [--part files|server]
#     files    every check but the two that install into the server
#     server   demo_test.sh and deb_test.sh, which install into $PG_CONFIG's server (Debian's 15)
#     all      both (the default; the test command runs files in a lane of its own and server
#              after 15's job, which uses the same server)
#   IDGEN_DEB_DIR   with --part: the .debs are built by files into this directory and installed
#                   from it by server (deb_test.sh --build-only / --install-from)
#   PG_CONFIG, IDGEN_DEMO_PORT   passed on to demo_test.sh (PG_CONFIG also to install_script_test.pl)
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
part=all
if [ "${1:-}" = --part ]; then part=${2:?--part all|files|server}; fi
case $part in all|files|server) ;; *) echo "usage: $0 [--part files|server]" >&2; exit 2 ;; esac
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
log=$(mktemp)
one=$(mktemp)
trap 'rm -f "$log" "$one"' EXIT
p=0
f=0
check() { # check PART TIMEOUT COMMAND...: one script's TAP lines; a script that stopped without
  # failing a check of its own (a crash, the timeout) is a failure
  [ "$part" = all ] || [ "$part" = "$1" ] || return 0
  local rc t0=$SECONDS
  timeout -k 10 "$2" "${@:3}" 2>&1 | tee "$one"
  rc=${PIPESTATUS[0]}
  cat "$one" >>"$log"
  echo "# $(basename "$3"): $((SECONDS - t0)) s"
  if [ "$rc" -ne 0 ] && ! grep -qE '^not ok [0-9]+' "$one"; then f=$((f + 1)); fi
}
# The .deb checks in two halves when the parts run apart (the test command: files in a lane of its
# own, server after 15's job): the build, which installs nothing, first in files; the install in
# server, with the .debs of IDGEN_DEB_DIR.
if [ "$part" = all ] || [ -z "${IDGEN_DEB_DIR:-}" ]; then deb_build=() deb_install=("$here/deb_test.sh")
else deb_build=("$here/deb_test.sh" --build-only "$IDGEN_DEB_DIR") deb_install=("$here/deb_test.sh" --install-from "$IDGEN_DEB_DIR"); fi
[ ${#deb_build[@]} -eq 0 ] || check files 1200 "${deb_build[@]}"
check files 600 perl "$here/meta_test.pl"
check server 600 "$here/demo_test.sh"
check files 900 "$here/library_test.sh"
check server 1800 "${deb_install[@]}"
check files 600 "$here/dist_test.sh"
check files 600 "$here/bench_report_test.sh"
check files 600 "$here/server_logs_test.sh"
check files 600 perl "$here/install_script_test.pl"
check files 600 "$here/layout_test.sh"
check files 600 "$here/format_test.sh"
p=$(grep -cE '^ok [0-9]+' "$log")
f=$((f + $(grep -cE '^not ok [0-9]+' "$log")))
echo "$p passed, $f failed"
[ "$f" -eq 0 ]
