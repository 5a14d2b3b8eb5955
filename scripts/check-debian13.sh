#!/usr/bin/env bash
# Builds and tests Quantscope on Debian 13 (trixie: Qt 6.8, GCC 14, clang 19) the way a maintainer
# checks a port, without touching this machine's own packages: a minimal Debian 13 root made with
# debootstrap, this checkout's HEAD copied in, then inside it (chroot) the README's test command
# steps — scripts/install-deps.sh, a warnings-as-errors build (the `dev` preset: Debug, -Werror),
# every test through ctest. docs/packaging.md, "Other distributions", has the last result.
#
# Usage (as root: debootstrap and chroot need it):
#   scripts/check-debian13.sh [ROOT]     ROOT defaults to /var/tmp/quantscope-trixie and is kept,
#                                        so a second run skips the download and reuses the build.
# Environment: QS_SUITE (default trixie), QS_MIRROR (default http://deb.debian.org/debian),
# QS_CHECK_PRESET (default dev; "release" builds without -Werror).
set -euo pipefail
root="${1:-/var/tmp/quantscope-trixie}"
suite="${QS_SUITE:-trixie}"
mirror="${QS_MIRROR:-http://deb.debian.org/debian}"
preset="${QS_CHECK_PRESET:-dev}"
source_dir="$(cd "$(dirname "$0")/.." && pwd)"

if [ "$(id -u)" -ne 0 ]; then
  echo "error: run as root (debootstrap and chroot need it): sudo $0 $*" >&2
  exit 1
fi
started=$SECONDS
step() { echo "== [$((SECONDS - started)) s] $*"; }

if ! command -v debootstrap >/dev/null; then
  step "installing debootstrap"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap
fi
if [ ! -e "$root/etc/debian_version" ]; then
  step "debootstrap $suite into $root"
  debootstrap --variant=minbase "$suite" "$root" "$mirror"
fi
echo "Debian $(cat "$root/etc/debian_version") in $root"

# The checkout as committed (git archive: no build folders, no local junk), replacing the last copy
# but keeping its build folder so a re-run only rebuilds what changed.
step "copying HEAD of $source_dir"
mkdir -p "$root/src/quantscope"
find "$root/src/quantscope" -mindepth 1 -maxdepth 1 ! -name build -exec rm -rf {} +
git -C "$source_dir" archive --format=tar HEAD | tar -x -C "$root/src/quantscope"

# /proc and /dev for the compiler, ninja and the tests (loopback sockets need nothing more: the
# chroot shares this machine's network namespace). Unmounted whatever happens.
mounted=()
cleanup() {
  local m
  for m in "${mounted[@]}"; do umount -l "$m" 2>/dev/null || true; done
}
trap cleanup EXIT
for m in proc dev dev/pts; do
  if ! mountpoint -q "$root/$m"; then
    case "$m" in
      proc) mount -t proc proc "$root/proc" ;;
      *) mount --bind "/$m" "$root/$m" ;;
    esac
    mounted=("$root/$m" "${mounted[@]}")
  fi
done
cp /etc/resolv.conf "$root/etc/resolv.conf"

step "install-deps, build ($preset), test — inside Debian $suite"
chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
  QS_PRESET="$preset" /bin/bash -euo pipefail -c '
    export DEBIAN_FRONTEND=noninteractive
    cd /src/quantscope
    # What a fresh Debian 13 machine lacks before the README command can run at all.
    apt-get update -qq
    apt-get install -y -qq git ca-certificates >/dev/null
    ./scripts/install-deps.sh
    echo "toolchain: $(g++ --version | head -1); Qt $(qtpaths6 --qt-version 2>/dev/null || echo ?)"
    cmake --preset "$QS_PRESET" >/dev/null
    # -k 0: every file that fails is listed, not only the first.
    time cmake --build --preset "$QS_PRESET" -- -k 0
    time ctest --preset "$QS_PRESET"
  '
step "done: Debian $suite built warnings-clean ($preset) and passed every test"
