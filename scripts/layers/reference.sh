# The reference layer: docs/reference.md is what scripts/reference.sh prints from a fresh
# install's catalog (the same page on every server version).
# shellcheck shell=bash
layer_reference() {
  echo "== reference (docs/reference.md = scripts/reference.sh's output)"
  timer "reference"
  if PG_BINDIR="$PG_BINDIR" "$ROOT/scripts/reference.sh" >"$WORK/reference.md" 2>"$WORK/reference.err" \
    && diff -u "$ROOT/docs/reference.md" "$WORK/reference.md" >"$WORK/reference.diff"; then
    tally reference 1 0
  else
    cat "$WORK/reference.err"; head -60 "$WORK/reference.diff"
    echo "docs/reference.md differs from scripts/reference.sh's output: regenerate it (scripts/reference.sh > docs/reference.md)"
    tally reference 0 1
  fi
}
