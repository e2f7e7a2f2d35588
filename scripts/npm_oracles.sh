#!/usr/bin/env bash
# Installs the npm packages that tests use as independent implementations (oracles) into DIR:
# every "name@version" line of test/oracles/*.packages. Tests find them through
# IDGEN_NPM_ORACLES=DIR (see test/oracles/*.cjs). Nothing from them is vendored into the sources.
#   scripts/npm_oracles.sh DIR
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${1:?usage: $0 DIR}
mkdir -p "$dir"
mapfile -t pkgs < <(cat "$ROOT"/test/oracles/*.packages | sed -e 's/#.*//' -e 's/[[:space:]]//g' | grep -v '^$')
[ ${#pkgs[@]} -gt 0 ] || exit 0
# A package.json of its own, so npm does not walk up into a parent directory's project.
[ -f "$dir/package.json" ] || echo '{"private": true}' >"$dir/package.json"
npm install --prefix "$dir" --no-audit --no-fund --no-package-lock --silent "${pkgs[@]}" >/dev/null
