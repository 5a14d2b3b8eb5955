#!/usr/bin/env bash
# Installs the Debian 12 packages Quantscope needs to build and test, and only those missing.
# Idempotent: a second run installs nothing and does not touch the network.
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config
  lld  # the linker (CMakeLists.txt QS_LINKER): links the tests in a quarter of ld.bfd's CPU time
  qt6-base-dev qt6-charts-dev qt6-qpa-plugins libgl-dev
  nlohmann-json3-dev libgtest-dev libgmock-dev
  libsimdjson-dev  # the quick reader of big results files (model/store/FastRecordReader)
  dpkg-dev  # dpkg-shlibdeps: the .deb's dependencies (packaging/, docs/packaging.md)
  prometheus-node-exporter  # a real exporter, started on loopback by tests/telemetry
  clang-14 libclang-rt-14-dev  # fuzzing: clang with libFuzzer (scripts/fuzz.sh, docs/fuzzing.md)
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "Installing missing packages: ${missing[*]}"
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then
    sudo=(sudo)
  else
    echo "error: need root to install ${missing[*]}; run as root or install sudo" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq "${missing[@]}" # with recommends: the set this was verified with
