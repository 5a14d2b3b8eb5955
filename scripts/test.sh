#!/usr/bin/env bash
# Installs what is missing, builds everything (release preset) and runs every test through ctest,
# then every fuzz target for a short, bounded time (QS_FUZZ_SECONDS each, default 20; 0 skips it;
# docs/fuzzing.md). Pass "asan" to build and test with AddressSanitizer + UBSan instead (no fuzzing:
# the fuzz build is its own sanitized build).
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
./scripts/install-deps.sh
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset"
ctest --preset "$preset"
fuzz_seconds="${QS_FUZZ_SECONDS:-20}"
if [ "$preset" = release ] && [ "$fuzz_seconds" -gt 0 ]; then
  ./scripts/fuzz.sh all "$fuzz_seconds"
fi
