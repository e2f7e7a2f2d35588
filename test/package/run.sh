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
#   PG_CONFIG, IDGEN_DEMO_PORT   passed on to demo_test.sh (PG_CONFIG also to install_script_test.pl)
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
perl "$here/meta_test.pl" 2>&1 | tee "$log"
meta_rc=${PIPESTATUS[0]}
timeout -k 10 600 "$here/demo_test.sh" 2>&1 | tee -a "$log"
demo_rc=${PIPESTATUS[0]}
timeout -k 10 900 "$here/library_test.sh" 2>&1 | tee -a "$log"
library_rc=${PIPESTATUS[0]}
t0=$SECONDS
timeout -k 10 1200 "$here/deb_test.sh" 2>&1 | tee -a "$log"
deb_rc=${PIPESTATUS[0]}
echo "# deb test: $((SECONDS - t0)) s"
t0=$SECONDS
timeout -k 10 600 "$here/dist_test.sh" 2>&1 | tee -a "$log"
dist_rc=${PIPESTATUS[0]}
echo "# dist test: $((SECONDS - t0)) s"
timeout -k 10 120 "$here/bench_report_test.sh" 2>&1 | tee -a "$log"
bench_report_rc=${PIPESTATUS[0]}
timeout -k 10 120 "$here/server_logs_test.sh" 2>&1 | tee -a "$log"
server_logs_rc=${PIPESTATUS[0]}
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config} timeout -k 10 120 perl "$here/install_script_test.pl" 2>&1 | tee -a "$log"
install_script_rc=${PIPESTATUS[0]}
timeout -k 10 120 "$here/layout_test.sh" 2>&1 | tee -a "$log"
layout_rc=${PIPESTATUS[0]}
timeout -k 10 300 "$here/format_test.sh" 2>&1 | tee -a "$log"
format_rc=${PIPESTATUS[0]}
p=$(grep -cE '^ok [0-9]+' "$log")
f=$(grep -cE '^not ok [0-9]+' "$log")
# A script that stopped without failing a check (a crash, the timeout) is a failure.
if [ "$meta_rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=$((f + 1)); fi
if [ "$demo_rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=$((f + 1)); fi
if [ "$library_rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=$((f + 1)); fi
if [ "$deb_rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=$((f + 1)); fi
if [ "$dist_rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=$((f + 1)); fi
if [ "$bench_report_rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=$((f + 1)); fi
if [ "$server_logs_rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=$((f + 1)); fi
if [ "$install_script_rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=$((f + 1)); fi
if [ "$layout_rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=$((f + 1)); fi
if [ "$format_rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=$((f + 1)); fi
echo "$p passed, $f failed"
[ "$f" -eq 0 ]
