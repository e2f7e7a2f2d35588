#!/usr/bin/env bash
# The C++ library as an application gets it (part of the package layer, test/package/run.sh):
# configured without the tests, built and installed into a temporary prefix as the README says,
# then used by a small program built with find_package(id_gen) and with pkg-config, from the
# installed tree and from a copy moved elsewhere; the example program built against it on its own;
# and the README's C++ blocks compiled against it. One TAP line ("ok N - ..." / "not ok N - ...")
# per check; exit status 0 when all passed.
#   test/package/library_test.sh [WORKDIR]      (default: a temporary directory, removed at exit)
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
if [ -n "${1:-}" ]; then
  W=$1
else
  W=$(mktemp -d)
  [ -n "${KEEP_WORK:-}" ] || trap 'rm -rf "$W"' EXIT
fi
JOBS=$(nproc 2>/dev/null || echo 2)
VERSION=$(sed -n "s/^default_version = '\(.*\)'/\1/p" "$ROOT/id_gen.control")
MAJOR_MINOR=${VERSION%.*}
mkdir -p "$W"
log="$W/package.log"
: >"$log"

n=0
failures=0
check() { # check NAME COMMAND...: runs the command (output to the log), prints a TAP line
  local name=$1
  shift
  n=$((n + 1))
  echo "---- $name: $*" >>"$log"
  if "$@" >>"$log" 2>&1; then
    echo "ok $n - C++ library: $name"
  else
    failures=$((failures + 1))
    echo "not ok $n - C++ library: $name"
    tail -25 "$log" | sed 's/^/#   /'
  fi
}

install_library() {
  # As the README says, with nothing but a compiler and CMake: GoogleTest, pkg-config (so libpqxx
  # and libpq) and PostgreSQL cannot be found here.
  PKG_CONFIG_LIBDIR=/nonexistent PG_CONFIG=/nonexistent \
    cmake -S "$ROOT" -B "$W/build" -DIDGEN_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON -DCMAKE_DISABLE_FIND_PACKAGE_PkgConfig=ON -DCMAKE_DISABLE_FIND_PACKAGE_libpqxx=ON \
    && cmake --build "$W/build" -j"$JOBS" && cmake --install "$W/build" --prefix "$W/prefix" || return 1
  local f
  for f in include/id_gen/id_gen.hpp include/id_gen/error.hpp include/id_gen/ids.hpp include/id_gen/generators.hpp \
           include/id_gen/pqxx.hpp include/id_gen/version.hpp lib/libid_gen.a lib/pkgconfig/id_gen.pc \
           include/id_gen/objectid.hpp include/id_gen/trace_decimal.hpp include/id_gen/shard_id.hpp include/id_gen/uuidv6.hpp include/id_gen/nanoid.hpp \
           lib/cmake/id_gen/id_genConfig.cmake lib/cmake/id_gen/id_genConfigVersion.cmake lib/cmake/id_gen/id_genTargets.cmake; do
    [ -f "$W/prefix/$f" ] || { echo "missing $f"; return 1; }
  done
  # The public headers stand alone: nothing of src/ is installed or included.
  if grep -rn '#include "core/\|#include <core/' "$W/prefix/include/id_gen"; then echo "a public header includes the core"; return 1; fi
  grep -q "ID_GEN_VERSION_STRING \"$VERSION\"" "$W/prefix/include/id_gen/version.hpp"
}

cmake_consumer() { # cmake_consumer PREFIX BUILDDIR [VERSION]
  rm -rf "$2"
  cmake -S "$ROOT/test/package/consumer" -B "$2" -DCMAKE_PREFIX_PATH="$1" -DCONSUMER_WANT="${3:-}" \
    && cmake --build "$2" && "$2/consumer" | tee /dev/stderr | grep -q "^consumer $VERSION .* ok$"
}

refuses_other_minor() {
  # 0.x: a request for the minor version before or after this one must not be satisfied.
  local other
  for other in $(echo "$VERSION" | awk -F. '{ if ($2 > 0) print $1 "." $2 - 1; print $1 "." $2 + 1 }'); do
    rm -rf "$W/c-other"
    if cmake -S "$ROOT/test/package/consumer" -B "$W/c-other" -DCMAKE_PREFIX_PATH="$W/prefix" -DCONSUMER_WANT="$other"; then
      echo "find_package(id_gen $other) was satisfied by $VERSION"
      return 1
    fi
  done
}

pkgconfig_consumer() { # pkgconfig_consumer PREFIX OUT
  local pc="$1/lib/pkgconfig"
  [ "$(PKG_CONFIG_PATH=$pc pkg-config --modversion id_gen)" = "$VERSION" ] || return 1
  # shellcheck disable=SC2046
  c++ -std=c++17 -O1 "$ROOT/test/package/consumer/main.cpp" -o "$2" $(PKG_CONFIG_PATH=$pc pkg-config --cflags --libs id_gen) \
    && "$2" | tee /dev/stderr | grep -q "^consumer $VERSION .* ok$"
}

moved_tree() {
  rm -rf "$W/moved"
  cp -a "$W/prefix" "$W/moved" || return 1
  pkgconfig_consumer "$W/moved" "$W/consumer-moved" && cmake_consumer "$W/moved" "$W/c-moved"
}

# Every ```cpp block of the manual's C++ library page (docs/cxx-library.md) compiles against the installed headers
# (with libpqxx): each becomes the body of a function with `conn` (a pqxx::connection) in scope;
# its #include lines go to the top.
readme_blocks_compile() {
  local src="$W/readme_blocks.cpp" n
  awk '
    /^# / { in_section = ($0 == "# The C++ library") }
    in_section && /^```cpp$/ { in_block = 1; n++; body = ""; next }
    in_section && in_block && /^```$/ {
      in_block = 0
      printf "void readme_block_%d(pqxx::connection& conn) {\n%s}\n", n, body
      next
    }
    in_section && in_block && /^#include/ { includes = includes $0 "\n"; next }
    in_section && in_block { body = body $0 "\n" }
    END { printf "// %d blocks\n", n; printf "%s", includes > "/dev/stderr" }
  ' "$ROOT/docs/cxx-library.md" >"$src.body" 2>"$src.includes" || return 1
  n=$(sed -n 's|^// \([0-9]*\) blocks$|\1|p' "$src.body")
  [ "${n:-0}" -gt 0 ] || { echo "no cpp block in docs/cxx-library.md"; return 1; }
  { echo '#include <pqxx/pqxx>'; echo '#include <id_gen/id_gen.hpp>'; echo '#include <id_gen/pqxx.hpp>'
    echo '#include <iostream>'; echo '#include <string>'; sort -u "$src.includes"; cat "$src.body"; } >"$src"
  # shellcheck disable=SC2046
  c++ -std=c++17 -Wall -Werror -Wno-unused-variable -Wno-unused-but-set-variable -fsyntax-only "$src" \
    $(PKG_CONFIG_PATH="$W/prefix/lib/pkgconfig" pkg-config --cflags id_gen libpqxx)
}

example_builds() {
  rm -rf "$W/example"
  cmake -S "$ROOT/examples/order_retry" -B "$W/example" -DCMAKE_PREFIX_PATH="$W/prefix" \
    && cmake --build "$W/example" -j"$JOBS" && [ -x "$W/example/order_retry" ]
}

check "install the library alone into a prefix (no test dependencies)" install_library
check "find_package(id_gen $MAJOR_MINOR) + id_gen::id_gen" cmake_consumer "$W/prefix" "$W/c-cmake" "$MAJOR_MINOR"
check "find_package(id_gen) refuses the minor versions before and after" refuses_other_minor
check "pkg-config id_gen" pkgconfig_consumer "$W/prefix" "$W/consumer-pc"
check "the installed tree moved elsewhere: pkg-config and find_package" moved_tree
check "examples/order_retry builds on its own against the installed library" example_builds
check "the C++ blocks of docs/cxx-library.md compile against the installed headers" readme_blocks_compile
[ "$failures" -eq 0 ]
