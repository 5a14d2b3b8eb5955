#!/usr/bin/env bash
# Installs what is missing, builds everything (release preset) and runs every test through ctest.
# Pass "asan" to build and test with AddressSanitizer + UBSan instead.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
./scripts/install-deps.sh
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset"
ctest --preset "$preset"
