#!/usr/bin/env bash
# Cross-builds Quantscope for arm64 (the DGX Spark's architecture) with Debian's multiarch
# packages and runs the model's unit tests under qemu-user, without touching this machine's own
# packages: a Debian 12 root made with debootstrap (amd64), arm64 added as a foreign architecture
# inside it, crossbuild-essential-arm64 and the arm64 -dev packages of Qt and the libraries
# (Multi-Arch: same, so they sit beside the amd64 ones whose moc and rcc the build runs), then
# CMake with a cross toolchain file whose CMAKE_CROSSCOMPILING_EMULATOR is qemu-aarch64-static,
# so ctest runs every arm64 test binary through qemu. Builds the `quantscope` binary (CLI and
# dashboard: Qt Charts is multiarch too) and the GoogleTest suites of model/; the Qt Test suites
# (widgets, app) are left to the x86-64 build. Then a .deb for arm64, checked by lintian.
# docs/packaging.md, "arm64", has the last result.
#
# Usage (as root: debootstrap and chroot need it):
#   scripts/check-arm64.sh [ROOT]      ROOT defaults to /var/tmp/quantscope-arm64 and is kept.
# Environment: QS_SUITE (default bookworm), QS_MIRROR, QS_ARM64_TESTS (a ctest -R regex; default
# every GoogleTest suite), QS_ARM64_JOBS (default 2).
set -euo pipefail
root="${1:-/var/tmp/quantscope-arm64}"
suite="${QS_SUITE:-bookworm}"
mirror="${QS_MIRROR:-http://deb.debian.org/debian}"
jobs="${QS_ARM64_JOBS:-2}"
source_dir="$(cd "$(dirname "$0")/.." && pwd)"

started=$SECONDS
step() { echo "== [$((SECONDS - started)) s] $*"; }
# shellcheck source=scripts/chroot-root.sh
. "$source_dir/scripts/chroot-root.sh"
root_prepare "$root" "$suite" "$mirror" "$source_dir"

step "arm64 packages, cross build, model tests under qemu — inside Debian $suite"
chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
  QS_JOBS="$jobs" QS_TESTS="${QS_ARM64_TESTS:-}" /bin/bash -euo pipefail -c '
    export DEBIAN_FRONTEND=noninteractive
    cd /src/quantscope
    dpkg --add-architecture arm64
    apt-get update -qq
    # Build tools for this machine; the libraries the arm64 binary links, as arm64 packages (Qt
    # Charts needs the CMake files of Qt OpenGL, in libqt6opengl6-dev). The
    # amd64 qt6-base-dev stays too: its Qt6CoreTools is the host Qt the cross build takes moc from.
    apt-get install -y -qq --no-install-recommends \
      crossbuild-essential-arm64 cmake ninja-build pkg-config lld qemu-user-static file \
      dpkg-dev help2man lintian \
      nlohmann-json3-dev qt6-base-dev qt6-base-dev-tools \
      qt6-base-dev:arm64 qt6-charts-dev:arm64 libqt6opengl6-dev:arm64 libgl-dev:arm64 libegl-dev:arm64 \
      libgtest-dev:arm64 libgmock-dev:arm64 libsimdjson-dev:arm64 >/dev/null
    cat > /tmp/aarch64.cmake <<EOF
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
# Debian multiarch: no sysroot, arm64 libraries in /usr/lib/aarch64-linux-gnu.
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_CROSSCOMPILING_EMULATOR /usr/bin/qemu-aarch64-static)
set(QT_HOST_PATH /usr)
set(QT_HOST_PATH_CMAKE_DIR /usr/lib/x86_64-linux-gnu/cmake)
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
EOF
    export QEMU_LD_PREFIX=/
    cmake -S . -B build/arm64 -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_TOOLCHAIN_FILE=/tmp/aarch64.cmake >/dev/null
    # The GoogleTest executables (model/ and its stages) and the program itself.
    targets=$(cmake --build build/arm64 --target help | sed -n "s/^\(test_[a-z0-9_]*\|bench_[a-z0-9_]*\): .*/\1/p" | grep "^test_" | tr "\n" " ")
    echo "targets: quantscope $targets"
    time cmake --build build/arm64 -j"$QS_JOBS" --target quantscope $targets
    file build/arm64/app/quantscope
    qemu-aarch64-static build/arm64/app/quantscope --version
    # Every GoogleTest test (the Qt Test suites, tst_*, were not built), through qemu. A test that
    # fails is run again, up to three times in all: emulation is several times slower than the
    # machine, so the few tests that time real events against generous limits (prefill saved by
    # the prefix cache, the energy counter over the run) can miss once; a real failure fails
    # three times. The log says which needed another try. Left out: the node exporter tests (they
    # start the exporter with QProcess, whose clone() qemu-user refuses: "fork failure: Invalid
    # argument"; nothing else here starts a process through Qt).
    time ctest --test-dir build/arm64 -j"$QS_JOBS" --output-on-failure --repeat until-pass:3 \
      -E "^(tst_|fuzz_|packaging_|NodeExporter\.)|_NOT_BUILT" ${QS_TESTS:+-R "$QS_TESTS"} \
      | tee /tmp/arm64-ctest.log
    echo "tries that failed and were run again: $(grep -c "\*\*\*Failed" /tmp/arm64-ctest.log || true)"
    grep "\*\*\*Failed" /tmp/arm64-ctest.log | sed "s/ *\.\.\.*.*//" || true

    # The .deb for arm64: the manual page (help2man runs the arm64 program through qemu), then
    # CPack; dpkg-shlibdeps reads the arm64 binary when told the host architecture. Then lintian.
    cmake --build build/arm64 --target packaging_files
    (cd build/arm64 && DEB_HOST_ARCH=arm64 cpack -G DEB >/dev/null)
    deb=$(ls build/arm64/quantscope_*_arm64.deb)
    dpkg-deb -f "$deb" Package Version Architecture Depends
    lintian --allow-root --fail-on error,warning -EvIL +pedantic "$deb"
  '
step "done: arm64 built, its model tests passed under qemu, and its .deb is lint-clean"
