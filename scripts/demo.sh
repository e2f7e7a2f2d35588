#!/usr/bin/env bash
# Installs what is missing, builds and installs id_gen, starts a throwaway cluster, and shows the
# extension at work. The cluster is removed on exit.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

"$ROOT/scripts/deps.sh"
build_extension
WORK=$(mktemp -d /tmp/id_gen_demo.XXXXXX)
chmod 755 "$WORK"
trap 'stop_cluster "$WORK/pg"; rm -rf "$WORK"' EXIT
start_cluster "$WORK/pg" "${IDGEN_DEMO_PORT:-54330}"
export PGHOST="$WORK/pg" PGPORT="${IDGEN_DEMO_PORT:-54330}" PGUSER=postgres

for f in "$ROOT"/scripts/demo/*.sql; do
  "$PG_BINDIR/psql" -X -v ON_ERROR_STOP=1 -d postgres -e -f "$f"
done
