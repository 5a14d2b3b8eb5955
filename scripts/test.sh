#!/usr/bin/env bash
# Installs what is missing, builds everything (release preset) and runs every test through ctest,
# then every fuzz target for a short, bounded time (QS_FUZZ_SECONDS each, default 20; 0 skips it;
# docs/fuzzing.md). Pass "asan" to build and test with AddressSanitizer + UBSan instead (no fuzzing:
# the fuzz build is its own sanitized build).
#
# Each phase says how long it took, and the last lines sum them up (also when a phase fails), so
# a slow CI run shows where its minutes went.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"

phases=()
started=$SECONDS
summary() {
  local status=$?
  echo "== time per phase (preset $preset)"
  local p
  for p in "${phases[@]}"; do
    echo "   $p"
  done
  echo "   total: $((SECONDS - started)) s$([ "$status" -eq 0 ] || echo " (failed: exit $status)")"
}
trap summary EXIT

# phase NAME COMMAND...: runs COMMAND and records how long it took.
phase() {
  local name="$1"
  shift
  local t0=$SECONDS
  echo "== $name"
  if "$@"; then
    phases+=("$name: $((SECONDS - t0)) s")
  else
    local status=$?
    phases+=("$name: $((SECONDS - t0)) s, FAILED")
    return "$status"
  fi
}

configure() { cmake --preset "$preset" >/dev/null; }

phase install ./scripts/install-deps.sh
phase configure configure
phase build cmake --build --preset "$preset"
phase test ctest --preset "$preset"
fuzz_seconds="${QS_FUZZ_SECONDS:-20}"
if [ "$preset" = release ] && [ "$fuzz_seconds" -gt 0 ]; then
  phase fuzz ./scripts/fuzz.sh all "$fuzz_seconds"
fi
