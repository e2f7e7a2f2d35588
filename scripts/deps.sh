#!/usr/bin/env bash
# Installs what building and testing id_gen needs on Debian 12, skipping what is present.
#   --demo      only what building the extension and running scripts/demo.sh need (Debian's
#               PostgreSQL 15 only when PG_CONFIG is unset or names it)
#   --missing   print the packages that are not installed (one line, nothing if none); install nothing
set -euo pipefail

demo=0
list_only=0
for arg in "$@"; do
  case $arg in
    --demo) demo=1 ;;
    --missing) list_only=1 ;;
    *) echo "usage: $0 [--demo] [--missing]" >&2; exit 2 ;;
  esac
done

# Building the extension and running a cluster (postgresql-server-dev-15 brings clang-14 and
# llvm-14-dev, which PGXS uses for the server's JIT bitcode; libssl-dev: AES for id_permute()).
packages=(build-essential g++ make libssl-dev)
if [ "$demo" -eq 0 ] || [ "${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}" = /usr/lib/postgresql/15/bin/pg_config ]; then
  packages+=(postgresql-15 postgresql-client-15 postgresql-server-dev-15)
fi
if [ "$demo" -eq 0 ]; then
  packages+=(
    cmake pkg-config postgresql-contrib
    libpq-dev libpqxx-dev libgtest-dev
    clang-14 libclang-rt-14-dev llvm-14
    # test/package/format_test.sh: the C++ sources against .clang-format
    clang-format-14
    # scripts/pg_versions.sh: building PostgreSQL 17 and 18 from source (17+ tarballs need bison/flex)
    bison flex libreadline-dev zlib1g-dev curl ca-certificates
    # scripts/package.sh and test/package/deb_test.sh: Debian's packaging tools (pg_buildext comes
    # with postgresql-server-dev-all, which brings the dev files of the packaged servers only: 15)
    debhelper lintian postgresql-server-dev-all
    # scripts/release.sh (make dist) and test/package/dist_test.sh
    git zip unzip
    # scripts/lib.sh: the compiler cache, outside the repository, which a fresh clone reuses
    ccache
  )
fi
# The tests' npm oracles (scripts/npm_oracles.sh): Debian's node and npm, unless a node with npm is there.
if [ "$demo" -eq 0 ] && ! command -v npm >/dev/null; then packages+=(nodejs npm); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "$list_only" -eq 1 ]; then
  [ ${#missing[@]} -eq 0 ] || echo "${missing[*]}"
  exit 0
fi
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing: ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
# The packaged postgresql-15 would otherwise create and start a default cluster we do not use.
# (createcluster.d is included by the stock createcluster.conf, which the package owns.)
$sudo mkdir -p /etc/postgresql-common/createcluster.d
echo "create_main_cluster = false" | $sudo tee /etc/postgresql-common/createcluster.d/00-id_gen-no-main.conf >/dev/null
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
