#!/usr/bin/env bash
# Installs the npm packages that tests use as independent implementations (test oracles) into
# DIR (default build/npm) and prints DIR. Never vendored into src/: the tests run them with node.
#   uuid    v6(), v1ToV6(), v6ToV1(), parse/validate       (test/oracle/uuid_nanoid.mjs)
#   nanoid  its URL-safe alphabet                           (test/oracle/uuid_nanoid.mjs)
#   ksuid   KSUID parse, format, generate                   (test/oracle/ksuid.cjs)
#   xid-ts  xid (a port of rs/xid) parse, fields, generate   (test/oracle/xid.cjs)
# Packages already present at the wanted major version are not fetched again.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DIR=${1:-$ROOT/build/npm}
# name@major, one a line.
PACKAGES=(
  uuid@11
  nanoid@5
  ksuid@3
  xid-ts@1
)
command -v npm >/dev/null || { echo "npm is not installed (scripts/deps.sh installs it)" >&2; exit 1; }
mkdir -p "$DIR"
missing=()
for p in "${PACKAGES[@]}"; do
  name=${p%@*} major=${p##*@}
  have=$(node -p "require('$DIR/node_modules/$name/package.json').version" 2>/dev/null || true)
  [ "${have%%.*}" = "$major" ] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  [ -f "$DIR/package.json" ] || echo '{"private": true}' >"$DIR/package.json"
  npm install --prefix "$DIR" --no-audit --no-fund --loglevel=error "${missing[@]}" >&2
fi
echo "$DIR"
