#!/usr/bin/env bash
# The release archive (`make dist`): the tracked files at a commit, as git archive writes them, in
# id_gen-<version>.zip with the top directory id_gen-<version>/ (the form PGXN takes). Refuses
# when id_gen.control's default_version, META.json's version (and its id_gen provide's) and the
# newest CHANGELOG.md entry differ, reading them at that commit.
#   scripts/release.sh [--worktree] [--out DIR] [COMMIT]
#     COMMIT      default HEAD
#     --worktree  the tracked files as they are in the working tree, uncommitted changes included
#                 (what the test command tests); untracked files are not in the archive
#     --out DIR   where the zip goes (default: the repository's top directory)
#   Prints the archive's path.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
commit=HEAD
out=$ROOT
worktree=0
while [ $# -gt 0 ]; do
  case $1 in
    --worktree) worktree=1 ;;
    --out) out=$2; shift ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "usage: $0 [--worktree] [--out DIR] [COMMIT]" >&2; exit 2 ;;
    *) commit=$1 ;;
  esac
  shift
done
git -C "$ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1 \
  || { echo "release.sh: $ROOT is not a git checkout: the archive is made from git's tracked files" >&2; exit 1; }
if [ "$worktree" -eq 1 ]; then
  # A commit of the index and working tree that touches no ref (empty when nothing changed).
  tree=$(git -C "$ROOT" stash create 2>/dev/null || true)
  tree=${tree:-HEAD}
else
  tree=$(git -C "$ROOT" rev-parse --verify --quiet "$commit^{commit}") \
    || { echo "release.sh: no commit $commit" >&2; exit 2; }
fi
show() { git -C "$ROOT" show "$tree:$1" 2>/dev/null; }

control=$(show id_gen.control | sed -n "s/^default_version = '\(.*\)'.*/\1/p")
meta=$(show META.json | perl -MJSON::PP -0777 -ne 'my $m = decode_json($_); print "$m->{version} ", ($m->{provides}{id_gen}{version} // "none")' || true)
meta_version=${meta%% *}
meta_provides=${meta##* }
changelog=$(show CHANGELOG.md | sed -n 's/^## \([0-9][0-9.]*\) .*/\1/p' | head -1)
if [ -z "$control" ] || [ "$control" != "$meta_version" ] || [ "$control" != "$meta_provides" ] || [ "$control" != "$changelog" ]; then
  {
    echo "release.sh: the version is not the same everywhere; make them equal before a release:"
    echo "  id_gen.control default_version:        ${control:-(none)}"
    echo "  META.json version:                     ${meta_version:-(none)}"
    echo "  META.json provides.id_gen.version:     ${meta_provides:-(none)}"
    echo "  CHANGELOG.md newest entry (## <version>): ${changelog:-(none)}"
  } >&2
  exit 1
fi
mkdir -p "$out"
zip="$(cd "$out" && pwd)/id_gen-$control.zip"
rm -f "$zip"
git -C "$ROOT" archive --format=zip --prefix="id_gen-$control/" -o "$zip" "$tree"
echo "$zip"
