#!/usr/bin/env bash
# The source layout's maps, TAP. Under src/ and include/ (the upgrade script in src/update
# aside), each folder that holds files has a README.md whose table lists each of them,
# a row per file or per header and its source (the names in backticks in the row's first cell),
# and lists nothing that is not there; a folder's README that lists folders (`name/`) lists each
# of its folders. Also the sizes docs/contributing.md promises a reader: no such folder (the SQL
# pieces of src/sql aside) holds more than 30 files, and no C or C++ source file outside test/ is over 700 lines. The files are git's
# tracked files (what the release archive holds), or every file when ROOT is no git checkout.
#   IDGEN_LAYOUT_ROOT   the tree to check (default: this repository)
# No server, no build (a second).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=${IDGEN_LAYOUT_ROOT:-$(cd "$here/../.." && pwd)}
n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
  n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"
  [ -z "${2:-}" ] || printf '%s\n' "$2" | sed 's/^/#   /'
}

if git -C "$ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  files() { git -C "$ROOT" ls-files -- "$@"; }
else
  files() { (cd "$ROOT" && find "$@" -type f | sed 's|^\./||' | sort); }
fi
# The files the maps cover: src/ and include/ but the upgrade script, and the maps themselves.
mapped=$(files src include | grep -Ev '^src/update/' | grep -v '/README\.md$' | sort)
# Folders holding such files (the parents of folders holding files count too).
folders=$(printf '%s\n' "$mapped" | sed -n 's|/[^/]*$||p' |
  awk -F/ '{ p = $1; print p; for (i = 2; i <= NF; i++) { p = p "/" $i; print p } }' | sort -u |
  grep -Ev '^(src|include)$')

# listed README: the names in backticks in the first cell of each table row.
listed() {
  awk -F'|' '/^\|/ && !/^\|[-: |]+\|?$/ {
      cell = $2
      while (match(cell, /`[^`]+`/)) { print substr(cell, RSTART + 1, RLENGTH - 2); cell = substr(cell, RSTART + RLENGTH) }
    }' "$1" | sort -u
}

for d in $folders; do
  readme="$ROOT/$d/README.md"
  if [ ! -f "$readme" ]; then
    not_ok "$d/README.md exists" "a folder of src/ or include/ needs a map of its files"
    continue
  fi
  names=$(listed "$readme")
  # What the folder holds: its files, and its folders that hold files.
  here_files=$(printf '%s\n' "$mapped" | awk -v d="$d/" 'index($0, d) == 1 && index(substr($0, length(d) + 1), "/") == 0 { print substr($0, length(d) + 1) }')
  here_dirs=$(printf '%s\n' "$folders" | awk -v d="$d/" 'index($0, d) == 1 && index(substr($0, length(d) + 1), "/") == 0 { print substr($0, length(d) + 1) "/" }')
  problems=""
  for f in $here_files $here_dirs; do
    grep -qxF -- "$f" <<<"$names" || problems+="$f is not listed"$'\n'
  done
  for f in $names; do
    case $f in
      */) [ -d "$ROOT/$d/$f" ] && grep -qxF -- "$f" <<<"$here_dirs" \
            || problems+="lists $f, which is no folder of files here"$'\n' ;;
      *) grep -qxF -- "$f" <<<"$here_files" && [ -e "$ROOT/$d/$f" ] \
            || problems+="lists $f, which is not here"$'\n' ;;
    esac
  done
  if [ -z "$problems" ]; then ok "$d/README.md lists what $d holds"; else not_ok "$d/README.md lists what $d holds" "${problems%$'\n'}"; fi
done

# The SQL pieces (src/sql, one per area of the install script) are not counted.
big=$(printf '%s\n' "$mapped" | sed -n 's|/[^/]*$||p' | grep -vx 'src/sql' | sort | uniq -c | awk '$1 > 30 { print $2 " holds " $1 " files" }')
if [ -z "$big" ]; then ok "no folder of src/ or include/ (the SQL pieces aside) holds more than 30 files"; else not_ok "no folder of src/ or include/ (the SQL pieces aside) holds more than 30 files" "$big"; fi

long=$(files | grep -v '^test/' | grep -E '\.(c|cc|cpp|h|hpp)$' | while IFS= read -r f; do
  [ -f "$ROOT/$f" ] || continue
  l=$(wc -l <"$ROOT/$f")
  [ "$l" -le 700 ] || echo "$f: $l lines"
done)
if [ -z "$long" ]; then ok "no C or C++ source outside test/ is over 700 lines"; else not_ok "no C or C++ source outside test/ is over 700 lines" "$long"; fi

echo "# layout: $n checks, $fails failed"
[ "$fails" -eq 0 ]
