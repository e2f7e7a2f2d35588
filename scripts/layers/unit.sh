# The unit layer: the PostgreSQL-free core's GoogleTest suite (build/unit_tests). No server.
# shellcheck shell=bash
layer_unit() {
  echo "== unit (GoogleTest)"
  timer "unit"
  run_gtest unit "$ROOT/build/unit_tests"
}
