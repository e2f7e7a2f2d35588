#!/usr/bin/env bash
# Installs what building and testing id_gen needs on Debian 12, skipping what is present.
set -euo pipefail

packages=(
  build-essential g++ make cmake pkg-config
  postgresql-15 postgresql-client-15 postgresql-contrib postgresql-server-dev-15
  libpq-dev libpqxx-dev libgtest-dev
  clang-14 libclang-rt-14-dev llvm-14
  # scripts/pg_versions.sh: building PostgreSQL 17 and 18 from source (17+ tarballs need bison/flex)
  bison flex libreadline-dev zlib1g-dev curl ca-certificates
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
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
