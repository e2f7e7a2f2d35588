#!/usr/bin/env bash
# The C++ sources follow .clang-format, TAP. Every tracked .cpp, .h and .hpp file is what
# clang-format-14 (Debian 12's) makes of it; the .c files keep PostgreSQL's own style (pgindent:
# tabs, braces on their own lines), as PostgreSQL's C code does, and are not checked. The commit
# that applied the format is listed in .git-blame-ignore-revs, so `git blame` skips it: for each
# commit listed, no line of a file it changed is blamed on it when blame is given that file.
#   IDGEN_FORMAT_ROOT   the tree to check (default: this repository)
# No server, no build (a few seconds).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=${IDGEN_FORMAT_ROOT:-$(cd "$here/../.." && pwd)}
n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
  n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"
  [ -z "${2:-}" ] || printf '%s\n' "$2" | head -40 | sed 's/^/#   /'
}
CF=$(command -v clang-format-14 || true)
if [ -z "$CF" ]; then
  not_ok "clang-format-14 is installed (scripts/deps.sh installs it)"
  echo "$n checks, $fails failed"
  exit 1
fi
cd "$ROOT" || exit 1
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t sources < <(git ls-files -- '*.cpp' '*.h' '*.hpp')
else
  mapfile -t sources < <(find . -path ./build\* -prune -o -type f \( -name '*.cpp' -o -name '*.h' -o -name '*.hpp' \) -print | sed 's|^\./||' | sort)
fi
[ -f .clang-format ] && ok ".clang-format is at the top of the tree" || not_ok ".clang-format is at the top of the tree"
# One clang-format process for every file (one per file took minutes on a loaded machine); it
# names each file that differs ("FILE:LINE:COL: error: code should be clang-formatted").
out=$("$CF" --style=file --dry-run --Werror "${sources[@]}" 2>&1)
rc=$?
mapfile -t bad < <(printf '%s\n' "$out" | sed -nE 's/^([^:]+):[0-9]+:[0-9]+: error: code should be clang-formatted.*/\1/p' | sort -u)
# A failure that names no file (clang-format itself failed) still fails.
[ "$rc" -eq 0 ] || [ ${#bad[@]} -gt 0 ] || bad=("clang-format-14 failed: $(printf '%s\n' "$out" | head -3)")
if [ ${#bad[@]} -eq 0 ] && [ ${#sources[@]} -gt 100 ]; then
  ok "the ${#sources[@]} C++ sources follow .clang-format"
else
  not_ok "the ${#sources[@]} C++ sources follow .clang-format: ${#bad[@]} do not (clang-format-14 -i FILE fixes one)" "$(printf '%s\n' "${bad[@]}")"
fi

# git blame skips the format commit. A clone without history (shallow, or an archive) has
# nothing to check.
if [ "$(git rev-parse --is-shallow-repository 2>/dev/null)" = false ]; then
  mapfile -t revs < <(grep -Eo '^[0-9a-f]{40}' .git-blame-ignore-revs 2>/dev/null)
  if [ ${#revs[@]} -eq 0 ]; then
    not_ok ".git-blame-ignore-revs lists the commit that applied .clang-format"
  fi
  for rev in "${revs[@]}"; do
    if ! git merge-base --is-ancestor "$rev" HEAD 2>/dev/null; then
      not_ok ".git-blame-ignore-revs: $rev is a commit of this branch"
      continue
    fi
    # Files the commit changed that are still there: the first with lines blamed on it.
    short=$(git rev-parse --short=12 "$rev")
    f=""
    plain=0
    while read -r p; do
      [ -f "$p" ] || continue
      plain=$(git blame -l -s "$p" | grep -c "^$rev")
      if [ "$plain" -gt 0 ]; then f=$p; break; fi
    done < <(git diff-tree --no-commit-id --name-only -r "$rev" -- '*.cpp' '*.h' '*.hpp' | head -50)
    if [ -z "$f" ]; then
      not_ok ".git-blame-ignore-revs: $short changed lines of a C++ source still in the tree"
      continue
    fi
    ignored=$(git blame -l -s --ignore-revs-file .git-blame-ignore-revs "$f" | grep -c "^$rev")
    if [ "$ignored" -eq 0 ]; then
      ok "git blame --ignore-revs-file .git-blame-ignore-revs skips $short ($f: $plain lines otherwise blamed on it)"
    else
      not_ok "git blame --ignore-revs-file .git-blame-ignore-revs skips $short ($f: $ignored of its $plain lines still blamed on it)"
    fi
  done
fi
echo "$n checks, $fails failed"
[ "$fails" -eq 0 ]
