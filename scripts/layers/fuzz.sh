# The fuzz layer: every libFuzzer target (build-fuzz/fuzz_*, one per test/fuzz/fuzz_*.cpp) for
# FUZZ_SECONDS each, from its seeds (test/fuzz/seeds/NAME). No server. Each target is one process
# on one core, so JOBS of them run at once: the same time per target, less wall time.
# shellcheck shell=bash
fuzz_one() { # fuzz_one NAME: runs the target, its status in $WORK/NAME.rc
  local name=$1 fz="$ROOT/build-fuzz/$1" corpus="$WORK/corpus-$1" seeds="$ROOT/test/fuzz/seeds/${1#fuzz_}"
  mkdir -p "$corpus"
  "$fz" -max_total_time="$FUZZ_SECONDS" -rss_limit_mb=2048 -print_final_stats=0 \
    -artifact_prefix="$WORK/$name-" "$corpus" $( [ -d "$seeds" ] && echo "$seeds" ) >"$WORK/$name.log" 2>&1
  echo $? >"$WORK/$name.rc"
}
layer_fuzz() {
  echo "== fuzz (libFuzzer, ${FUZZ_SECONDS}s per target, $JOBS at a time)"
  timer "fuzz"
  local fp=0 ff=0 src name names=()
  # A target that was not built is a failure.
  for src in "$ROOT"/test/fuzz/fuzz_*.cpp; do
    name=$(basename "$src" .cpp)
    if [ ! -x "$ROOT/build-fuzz/$name" ]; then
      echo "fuzz target $name was not built"
      ff=$((ff + 1))
      continue
    fi
    names+=("$name")
    fuzz_one "$name" &
    # At most JOBS targets at once.
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
  done
  wait
  for name in "${names[@]}"; do
    if [ "$(cat "$WORK/$name.rc" 2>/dev/null)" = 0 ]; then
      fp=$((fp + 1))
    else
      ff=$((ff + 1))
      echo "fuzz target $name failed:"
      tail -30 "$WORK/$name.log"
    fi
  done
  tally fuzz "$fp" "$ff"
}
