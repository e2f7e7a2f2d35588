#!/usr/bin/env bash
# The release archive (part of the package layer, test/package/run.sh): `make dist` writes
# id_gen-<version>.zip of the tracked files at HEAD with one top directory id_gen-<version>/, its
# META.json passes meta_test.pl from inside the unpacked archive, and scripts/release.sh refuses
# (with a message naming each version) when id_gen.control, META.json and CHANGELOG.md disagree.
# Building, installing and regress-testing from the unpacked archive on 15, 17 and 18 is done by
# the test command's per-version layers, which build the extension from the archive's files.
# One TAP line per check.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
VERSION=$(sed -n "s/^default_version = '\(.*\)'/\1/p" "$ROOT/id_gen.control")
W=$(mktemp -d -t id_gen_dist_test.XXXXXX)
[ -n "${KEEP_WORK:-}" ] || trap 'rm -rf "$W"' EXIT
log="$W/dist.log"
: >"$log"

n=0
failures=0
check() { # check NAME COMMAND...: runs the command (output to the log), prints a TAP line
  local name=$1
  shift
  n=$((n + 1))
  echo "---- $name: $*" >>"$log"
  if "$@" >>"$log" 2>&1; then
    echo "ok $n - dist: $name"
  else
    failures=$((failures + 1))
    echo "not ok $n - dist: $name"
    tail -30 "$log" | sed 's/^/#   /'
  fi
}

if ! git -C "$ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "ok 1 - dist: # SKIP not a git checkout: the archive is made from git's tracked files"
  exit 0
fi

# `make dist` needs no PostgreSQL; its archive is moved out of the checkout at once.
make_dist() {
  local zip
  zip=$(PG_CONFIG=/nonexistent make -s -C "$ROOT" dist) || return 1
  echo "$zip"
  [ "$zip" = "$ROOT/id_gen-$VERSION.zip" ] && [ -f "$zip" ] && mv "$zip" "$W/"
}
check "make dist writes id_gen-$VERSION.zip" make_dist
ZIP="$W/id_gen-$VERSION.zip"

unpacked_is_head() {
  mkdir "$W/u" && (cd "$W/u" && unzip -q "$ZIP") || return 1
  # One top directory, id_gen-<version>/, holding exactly the files tracked at HEAD.
  [ "$(ls -A "$W/u")" = "id_gen-$VERSION" ] || { ls -A "$W/u"; return 1; }
  diff <(cd "$W/u/id_gen-$VERSION" && find . -type f -o -type l | sed 's|^\./||' | sort) \
       <(git -C "$ROOT" ls-tree -r --name-only HEAD | sort) || return 1
  # The content at HEAD, byte for byte (a sample that a build needs, and the version's sources).
  local f
  # (and the companion extensions, which make install installs beside it)
  [ -n "$(git -C "$ROOT" ls-tree -r --name-only HEAD companions | grep '\.control$')" ] || { echo "no companions/*.control at HEAD"; return 1; }
  for f in Makefile id_gen.control META.json CHANGELOG.md $(git -C "$ROOT" ls-tree -r --name-only HEAD src/sql sql expected companions); do
    cmp <(git -C "$ROOT" show "HEAD:$f") "$W/u/id_gen-$VERSION/$f" || return 1
  done
}
check "the archive unpacks into one directory id_gen-$VERSION/ with the files tracked at HEAD" unpacked_is_head

meta_from_archive() {
  # meta_test.pl from inside the unpacked archive checks the archive's own files.
  perl "$W/u/id_gen-$VERSION/test/package/meta_test.pl" >"$W/meta.out" 2>&1
  local rc=$?
  grep -E '^not ok' "$W/meta.out"
  [ "$rc" -eq 0 ] && grep -q '^ok ' "$W/meta.out" && ! grep -q '^not ok' "$W/meta.out" \
    && grep -q "\"version\" *: *\"$VERSION\"" "$W/u/id_gen-$VERSION/META.json"
}
check "the archive's META.json passes meta_test.pl and says $VERSION" meta_from_archive

# A clone to change versions in, one file at a time; each change is committed, and release.sh must
# refuse it, naming the file and both versions, and write no archive.
git clone -q --no-hardlinks "$ROOT" "$W/clone" >>"$log" 2>&1
git -C "$W/clone" -c user.name=t -c user.email=t@example.org commit -q --allow-empty -m base >>"$log" 2>&1
refuses() { # refuses WHAT SED-EXPRESSION FILE
  local what=$1 expr=$2 file=$3 rc
  sed -i "$expr" "$W/clone/$file" && ! git -C "$W/clone" diff --quiet || { echo "the change to $file did nothing"; return 1; }
  git -C "$W/clone" -c user.name=t -c user.email=t@example.org commit -q -am "change $file" || return 1
  rm -rf "$W/out-$n"
  "$W/clone/scripts/release.sh" --out "$W/out-$n" >"$W/refuse.out" 2>&1
  rc=$?
  cat "$W/refuse.out"
  git -C "$W/clone" reset -q --hard HEAD~1
  [ "$rc" -ne 0 ] && grep -q "not the same everywhere" "$W/refuse.out" && grep -q "$what: *9\.9\.9" "$W/refuse.out" \
    && grep -qE ": *$VERSION$" "$W/refuse.out" && [ -z "$(ls "$W/out-$n" 2>/dev/null)" ]
}
v_re=${VERSION//./\\.}
check "refused: id_gen.control at 9.9.9" refuses "id_gen.control default_version" "s/^default_version = '$v_re'/default_version = '9.9.9'/" id_gen.control
check "refused: META.json's version at 9.9.9" refuses "META.json version" "0,/\"version\": \"$v_re\"/s//\"version\": \"9.9.9\"/" META.json
check "refused: META.json's provides.id_gen.version at 9.9.9" refuses "META.json provides.id_gen.version" \
  "/\"provides\"/,/}/s/\"version\": \"$v_re\"/\"version\": \"9.9.9\"/" META.json
check "refused: CHANGELOG.md's newest entry 9.9.9" refuses "CHANGELOG.md newest entry (## <version>)" "0,/^## $v_re /s//## 9.9.9 /" CHANGELOG.md

worktree_archive() {
  # --worktree (what the test command builds from): uncommitted changes in, untracked files out,
  # and the checkout left as it was; the default (HEAD) has neither.
  local c="$W/clone" before after
  echo "uncommitted line" >>"$c/README.md"
  echo "untracked" >"$c/untracked.txt"
  before=$(git -C "$c" status --porcelain; git -C "$c" stash list)
  "$c/scripts/release.sh" --worktree --out "$W/wt" >/dev/null && "$c/scripts/release.sh" --out "$W/head" >/dev/null || return 1
  after=$(git -C "$c" status --porcelain; git -C "$c" stash list)
  [ "$before" = "$after" ] || { echo "the checkout changed: $before / $after"; return 1; }
  unzip -p "$W/wt/id_gen-$VERSION.zip" "id_gen-$VERSION/README.md" | tail -1 | grep -qx "uncommitted line" \
    && ! unzip -p "$W/head/id_gen-$VERSION.zip" "id_gen-$VERSION/README.md" | grep -q "uncommitted line" \
    && ! unzip -l "$W/wt/id_gen-$VERSION.zip" | grep -q untracked.txt
}
check "release.sh --worktree: uncommitted changes in, untracked files out, the checkout untouched" worktree_archive
[ "$failures" -eq 0 ]
