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
# scripts/check-ubuntu2404.sh runs this same check on Ubuntu 24.04.
# Environment: QS_SUITE (default trixie), QS_MIRROR (default http://deb.debian.org/debian),
# QS_CHECK_PRESET (default dev; "release" builds without -Werror), QS_CHECK_TESTS (a ctest -R
# regex: run only those, e.g. after fixing two tests).
set -euo pipefail
root="${1:-/var/tmp/quantscope-trixie}"
suite="${QS_SUITE:-trixie}"
mirror="${QS_MIRROR:-http://deb.debian.org/debian}"
preset="${QS_CHECK_PRESET:-dev}"
source_dir="$(cd "$(dirname "$0")/.." && pwd)"

started=$SECONDS
step() { echo "== [$((SECONDS - started)) s] $*"; }
# shellcheck source=scripts/chroot-root.sh
. "$source_dir/scripts/chroot-root.sh"
root_prepare "$root" "$suite" "$mirror" "$source_dir"

step "install-deps, build ($preset), test — inside $suite"
chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
  QS_PRESET="$preset" QS_TESTS="${QS_CHECK_TESTS:-}" /bin/bash -euo pipefail -c '
    export DEBIAN_FRONTEND=noninteractive
    cd /src/quantscope
    # What a fresh minimal root lacks before the README command can run at all.
    apt-get update -qq
    apt-get install -y -qq git ca-certificates >/dev/null
    ./scripts/install-deps.sh
    echo "toolchain: $(g++ --version | head -1); Qt $(qtpaths6 --qt-version 2>/dev/null || echo ?)"
    cmake --preset "$QS_PRESET" >/dev/null
    # -k 0: every file that fails is listed, not only the first.
    time cmake --build --preset "$QS_PRESET" -- -k 0
    time ctest --preset "$QS_PRESET" ${QS_TESTS:+-R "$QS_TESTS"}
  '
step "done: $suite built warnings-clean ($preset) and passed every test"
