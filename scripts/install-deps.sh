#!/usr/bin/env bash
# Installs the packages Quantscope needs to build and test, and only those missing, on Debian 12
# and 13 and Ubuntu 24.04. Idempotent: a second run installs nothing and does not touch the
# network.
set -euo pipefail

# The clang for fuzzing: the newest version the distribution ships together with its libFuzzer
# runtime (Debian 12: 19, Debian 13: 19, Ubuntu 24.04: 18), never a pinned one that a newer
# release drops. One already installed with its runtime wins, so a second run installs nothing.
# scripts/clang-version.sh finds the one installed for scripts/fuzz.sh.
pick_clang() {
  local n
  for n in 24 23 22 21 20 19 18 17 16 15 14; do
    if [ "$(dpkg-query -W -f='${Status}\n' "clang-$n" "libclang-rt-$n-dev" 2>/dev/null \
      | grep -c "install ok installed")" = 2 ]; then
      echo "$n"
      return
    fi
  done
  for n in 24 23 22 21 20 19 18 17 16 15 14; do
    if apt-cache show "clang-$n" >/dev/null 2>&1 && apt-cache show "libclang-rt-$n-dev" >/dev/null 2>&1; then
      echo "$n"
      return
    fi
  done
}
clang_version="$(pick_clang)"

packages=(
  g++ cmake ninja-build pkg-config
  lld  # the linker (CMakeLists.txt QS_LINKER): links the tests in a quarter of ld.bfd's CPU time
  qt6-base-dev qt6-charts-dev qt6-qpa-plugins libgl-dev
  nlohmann-json3-dev libgtest-dev libgmock-dev
  libsimdjson-dev  # the quick reader of big results files (model/store/FastRecordReader)
  dpkg-dev  # dpkg-shlibdeps: the .deb's dependencies (packaging/, docs/packaging.md)
  help2man  # the manual page, from quantscope --help (packaging/CMakeLists.txt)
  prometheus-node-exporter  # a real exporter, started on loopback by tests/telemetry
)
if [ -n "$clang_version" ]; then
  # fuzzing: clang with libFuzzer (scripts/fuzz.sh, docs/fuzzing.md)
  packages+=("clang-$clang_version" "libclang-rt-$clang_version-dev")
fi

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
if [ -z "$clang_version" ]; then
  # A fresh machine may have no package lists yet: ask again now that it has them.
  clang_version="$(pick_clang)"
  [ -n "$clang_version" ] && missing+=("clang-$clang_version" "libclang-rt-$clang_version-dev")
fi
"${sudo[@]}" apt-get install -y -qq "${missing[@]}" # with recommends: the set this was verified with
