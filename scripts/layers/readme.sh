# The readme layer: README.md's and then docs/*.md's SQL blocks in order on both main clusters,
# their shown results checked, and every relative link (test/readme).
# shellcheck shell=bash
layer_readme() {
  echo "== readme (README.md's and then docs/*.md's SQL blocks in order, on both clusters, shown results checked; links)"
  timer "readme"
  run_gtest readme "$ROOT/build/readme_tests" 300
  check_logs readme $(main_log_dirs)
}
