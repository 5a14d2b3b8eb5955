#!/usr/bin/env bash
# Builds and tests Quantscope on Ubuntu 24.04 (noble: Qt 6.4, GCC 13; the DGX Spark's DGX OS is
# built on it) exactly as scripts/check-debian13.sh does on Debian 13: a minimal noble root made with
# debootstrap from Ubuntu's archive (main and universe, Ubuntu's archive key checked by its
# fingerprint), HEAD copied in, install-deps, the `dev` preset (-Werror), every test.
#
# Usage (as root):  scripts/check-ubuntu2404.sh [ROOT]   ROOT defaults to /var/tmp/quantscope-noble.
# Environment: as scripts/check-debian13.sh; QS_MIRROR defaults to http://archive.ubuntu.com/ubuntu.
set -euo pipefail
export QS_SUITE="${QS_SUITE:-noble}"
export QS_MIRROR="${QS_MIRROR:-http://archive.ubuntu.com/ubuntu}"
exec "$(dirname "$0")/check-debian13.sh" "${1:-/var/tmp/quantscope-noble}"
