#!/usr/bin/env bash
# scripts/demo.sh as the README promises it: every ID kind shown and checked, its port apart from
# the test command's, and nothing installed outside the repository without saying so first (at a
# terminal: asking first). Prints one "ok N - ..." or "not ok N - ..." line per check.
#
# It runs the demo twice in full on $PG_CONFIG's server (default: Debian's PostgreSQL 15), on port
# IDGEN_DEMO_PORT, and installs the build there as the demo does. To make an install necessary it
# appends a comment to the server's installed id_gen.control; the demo's install restores it, and
# so does this script at its end if a run did not.
set -uo pipefail
# shellcheck source=../../scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
DEMO="$ROOT/scripts/demo.sh"
WORK=$(mktemp -d -t id_gen_demo_test.XXXXXX)
export PG_CONFIG

n=0
# ok CONDITION-STATUS NAME [LOG]: one check; on failure the end of LOG is shown.
ok() {
  n=$((n + 1))
  if [ "$1" -eq 0 ]; then
    echo "ok $n - $2"
  else
    echo "not ok $n - $2"
    [ -z "${3:-}" ] || tail -40 "$3" | sed 's/^/#   /'
  fi
}
has() { grep -qE -- "$1" "$2"; }   # has REGEX FILE

control_installed="$("$PG_CONFIG" --sharedir)/extension/id_gen.control"
mark() { [ ! -f "$control_installed" ] || as_root sh -c 'echo "# changed by the demo test" >>"$1"' sh "$control_installed"; }
marked() { grep -q '^# changed by the demo test' "$control_installed" 2>/dev/null; }
restore() {
  if ! cmp -s "$ROOT/id_gen.control" "$control_installed"; then
    compile_extension >/dev/null && install_extension
  fi
  rm -rf "$WORK"
}
trap restore EXIT

# --- Ports: the demo's default is not one of the test command's, and the README says both.
demo_port=$(sed -nE 's/.*IDGEN_DEMO_PORT:-([0-9]+).*/\1/p' "$DEMO" | head -1)
# The test command's ports (scripts/layers/env.sh), with its defaults, over its three versions.
read -r test_port last_port < <(env -u IDGEN_TEST_PORT bash -c 'source "$1/scripts/layers/env.sh" && echo "$IDGEN_TEST_PORT $(idgen_last_port 3)"' _ "$ROOT")
[ -n "$demo_port" ] && [ -n "$test_port" ] && [ -n "$last_port" ] && { [ "$demo_port" -lt "$test_port" ] || [ "$demo_port" -gt "$last_port" ]; }
ok $? "the demo's default port ($demo_port) is not one of the test command's ($test_port to $last_port)"
tr -s ' \n' '  ' <"$ROOT/README.md" >"$WORK/readme.txt"   # sentences on one line
grep -qF "port $demo_port (\`IDGEN_DEMO_PORT\`)" "$WORK/readme.txt"
ok $? "README.md gives the demo's port, $demo_port, and IDGEN_DEMO_PORT"
grep -qF "ports $test_port to $last_port (\`IDGEN_TEST_PORT\` sets the first" "$WORK/readme.txt"
ok $? "README.md gives the test command's ports, $test_port to $last_port, and IDGEN_TEST_PORT"
export IDGEN_DEMO_PORT=${IDGEN_DEMO_PORT:-$demo_port}

# --- Usage.
"$DEMO" --help >"$WORK/help.out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && has IDGEN_DEMO_YES "$WORK/help.out" && has IDGEN_DEMO_PORT "$WORK/help.out" && has '--yes' "$WORK/help.out"
ok $? "demo.sh --help describes --yes, IDGEN_DEMO_YES and IDGEN_DEMO_PORT" "$WORK/help.out"
"$DEMO" --bogus </dev/null >"$WORK/bogus.out" 2>&1
[ $? -eq 2 ]
ok $? "demo.sh refuses an unknown argument (status 2)" "$WORK/bogus.out"

# --- A missing Debian package is announced, and IDGEN_DEMO_YES=0 stops before installing it.
# dpkg-query reports make as not installed; apt-get and sudo only record that they were called.
mkdir -p "$WORK/fakebin"
cat >"$WORK/fakebin/dpkg-query" <<'EOF'
#!/bin/sh
for last; do :; done
if [ "$last" = make ]; then printf 'unknown ok not-installed'; exit 1; fi
exec /usr/bin/dpkg-query "$@"
EOF
for cmd in apt-get sudo; do
  printf '#!/bin/sh\necho "%s $*" >>"%s"\n' "$cmd" "$WORK/installers.called" >"$WORK/fakebin/$cmd"
done
chmod +x "$WORK/fakebin"/*
PATH="$WORK/fakebin:$PATH" IDGEN_DEMO_YES=0 "$DEMO" </dev/null >"$WORK/packages.out" 2>&1
rc=$?
[ "$rc" -eq 3 ] && has '^  - Debian packages, with apt-get .*: make$' "$WORK/packages.out" \
  && has "$("$PG_CONFIG" --pkglibdir)/ \(id_gen.so\)" "$WORK/packages.out" && [ ! -e "$WORK/installers.called" ]
ok $? "a missing package is listed with the server's directories, and IDGEN_DEMO_YES=0 stops (status 3) before apt-get" "$WORK/packages.out"

# --- Without a terminal and without --yes, the demo says what it installs, then goes ahead.
mark
"$DEMO" </dev/null >"$WORK/demo.out" 2>&1
rc=$?
[ "$rc" -eq 0 ]
ok $? "the demo succeeds without a terminal (status $rc)" "$WORK/demo.out"
plan=$(grep -nE '^    .*/extension/: .*id_gen' "$WORK/demo.out" | head -1 | cut -d: -f1)
went=$(grep -n '^demo: no terminal to ask: going ahead' "$WORK/demo.out" | head -1 | cut -d: -f1)
installed=$(grep -nE '^demo: installed [0-9]+ files?$' "$WORK/demo.out" | head -1 | cut -d: -f1)
[ -n "$plan" ] && [ -n "$went" ] && [ -n "$installed" ] && [ "$plan" -lt "$went" ] && [ "$went" -lt "$installed" ]
ok $? "it lists what it writes or replaces in the server's extension directory, says it goes ahead, then installs" "$WORK/demo.out"
cmp -s "$ROOT/id_gen.control" "$control_installed"
ok $? "the server's id_gen.control is the repository's again"
has "^demo: starting a throwaway cluster on port $IDGEN_DEMO_PORT " "$WORK/demo.out"
ok $? "its cluster uses IDGEN_DEMO_PORT ($IDGEN_DEMO_PORT)" "$WORK/demo.out"

# What the demo showed. Every part ends with checks "<kind>: <property> | t"; each kind has them,
# none is f, and the demo counts all of them.
labels=$(cat "$ROOT"/scripts/demo/*.sql | grep -cE '^ *AS "[a-z0-9]+: ')
for kind in ulid uuidv7 snowflake shard base36 prefixed; do
  held=$(grep -cE "^$kind: .* \| t\$" "$WORK/demo.out")
  [ "$held" -ge 3 ] && ! has "^$kind: .* \| f\$" "$WORK/demo.out"
  ok $? "the demo shows $kind and its $held checks hold" "$WORK/demo.out"
done
has "^demo: all $labels checks hold" "$WORK/demo.out"
ok $? "the demo ran all $labels checks of scripts/demo/*.sql" "$WORK/demo.out"
# Values, read independently of the demo's own checks.
version=$(sed -n "s/^default_version = '\(.*\)'/\1/p" "$ROOT/id_gen.control")
has "^ ${version//./\\.} +\| " "$WORK/demo.out"
ok $? "the demo's extension is version $version (id_gen.control)" "$WORK/demo.out"
has '^ [0-7][0-9A-HJKMNP-TV-Z]{25} \| [0-9]{4}-' "$WORK/demo.out"
ok $? "a ULID: 26 Crockford base32 characters and its time" "$WORK/demo.out"
has '^ [0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12} \| [0-9]{4}-.* \| +7$' "$WORK/demo.out"
ok $? "a UUIDv7: version 7, RFC variant, its time" "$WORK/demo.out"
has '^ 2022-06-28 16:07:40\.105\+00 \| +378 \| +0$' "$WORK/demo.out" && has '^ twitter +\| [0-9]{18,19} +\| [0-9]{4}-.* \| +1$' "$WORK/demo.out" \
  && has '^ javascript +\| [0-9]{1,16} +\| [0-9]{4}-.* \| +1$' "$WORK/demo.out"
ok $? "snowflakes: the published tweet decoded; twitter and javascript IDs of node 1" "$WORK/demo.out"
has '^ +1341 \| +905 \| 2011-09-09 22:28:04\.721\+00$' "$WORK/demo.out" && has '^ [0-9]+ \| +5 \| [0-9]{4}-.* \| photo1\.jpg$' "$WORK/demo.out"
ok $? "shard IDs: Instagram's example decoded; an ID of shard 5" "$WORK/demo.out"
has '^ 00000fr5hugnf +\| 1295$' "$WORK/demo.out" && has '^ [0-9a-f-]{36} \| [0-9a-z]{25}$' "$WORK/demo.out"
ok $? "base36: 1234567890123 and ZZ; a uuid as 25 characters" "$WORK/demo.out"
has '^ acct_[0-9a-z]{25} \| Ada' "$WORK/demo.out" && has '22P02: invalid input syntax for a prefixed ID: expected prefix "acct", found "usr"' "$WORK/demo.out"
ok $? "prefixed IDs: acct_ and 25 base36 characters; another prefix refused with 22P02" "$WORK/demo.out"

# --- IDGEN_DEMO_YES=0 stops before replacing a file, and says which.
mark
IDGEN_DEMO_YES=0 "$DEMO" </dev/null >"$WORK/no.out" 2>&1
rc=$?
[ "$rc" -eq 3 ] && has '/extension/: id_gen\.control$' "$WORK/no.out" && has 'nothing was installed' "$WORK/no.out" && marked \
  && ! has '^demo: starting' "$WORK/no.out"
ok $? "IDGEN_DEMO_YES=0 lists id_gen.control, stops (status 3) and leaves it as it was" "$WORK/no.out"

# --- At a terminal the demo asks; "n" installs nothing. (script(1) gives it a terminal.)
printf 'n\n' | script -qec "$DEMO" /dev/null >"$WORK/tty-no.out" 2>&1
rc=$?
tr -d '\r' <"$WORK/tty-no.out" >"$WORK/tty-no.txt"
[ "$rc" -eq 3 ] && has '^Install\? \[y/N\]' "$WORK/tty-no.txt" && has '/extension/: id_gen\.control$' "$WORK/tty-no.txt" && marked \
  && ! has '^demo: starting' "$WORK/tty-no.txt"
ok $? "at a terminal it lists id_gen.control and asks; n stops (status 3) and installs nothing" "$WORK/tty-no.txt"

# --- At a terminal, --yes and IDGEN_DEMO_YES=1 go ahead without asking.
for how in --yes IDGEN_DEMO_YES=1; do
  mark
  if [ "$how" = --yes ]; then
    script -qec "$DEMO --yes" /dev/null </dev/null >"$WORK/tty-yes.out" 2>&1
  else
    IDGEN_DEMO_YES=1 script -qec "$DEMO" /dev/null </dev/null >"$WORK/tty-yes.out" 2>&1
  fi
  rc=$?
  tr -d '\r' <"$WORK/tty-yes.out" >"$WORK/tty-yes.txt"
  [ "$rc" -eq 0 ] && ! has 'Install\?' "$WORK/tty-yes.txt" && has '^demo: going ahead \(--yes or IDGEN_DEMO_YES=1\)' "$WORK/tty-yes.txt" \
    && has "^demo: all $labels checks hold" "$WORK/tty-yes.txt" && cmp -s "$ROOT/id_gen.control" "$control_installed"
  ok $? "at a terminal $how installs without asking, and the demo succeeds" "$WORK/tty-yes.txt"
done

# --- With the server's files equal to the build's, there is nothing to ask.
IDGEN_DEMO_YES=0 "$DEMO" </dev/null >"$WORK/same.out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && has '^demo: the server already has this build of id_gen: nothing to install' "$WORK/same.out"
ok $? "once installed, the demo runs even with IDGEN_DEMO_YES=0: nothing to install" "$WORK/same.out"

echo "# $n checks"
