#!/usr/bin/env bash
# Installs what is missing, builds everything (release preset) and runs every test through ctest,
# then every fuzz target for a short, bounded time (QS_FUZZ_SECONDS each, default 20; 0 skips it;
# docs/fuzzing.md). Pass "asan" to build and test with AddressSanitizer + UBSan instead (no fuzzing:
# the fuzz build is its own sanitized build).
#
# Each phase says how long it took, wall clock and the CPU time of what it ran, and the last lines
# sum them up (also when a phase fails), so a slow CI run shows where its minutes went and whether
# the machine was busy (on an idle 2-core machine a build's wall time is about half its CPU time).
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"

# children_cpu: sets cpu_now to the user + system CPU seconds of every finished child so far
# (bash's `times`, which must run in this shell: a subshell's counts only its own children).
times_file="$(mktemp)"
children_cpu() {
  times >"$times_file"
  cpu_now=$(awk 'NR == 2 {
    n = split($0, f, " "); s = 0
    for (i = 1; i <= n; i++) { split(f[i], ms, "m"); s += ms[1] * 60 + ms[2] }
    printf "%d", s }' "$times_file")
}

phases=()
started=$SECONDS
summary() {
  local status=$?
  echo "== time per phase (preset $preset)"
  local p
  for p in "${phases[@]}"; do
    echo "   $p"
  done
  children_cpu
  echo "   total: $((SECONDS - started)) s ($cpu_now s CPU)$([ "$status" -eq 0 ] || echo " (failed: exit $status)")"
  rm -f "$times_file"
}
trap summary EXIT

# phase NAME COMMAND...: runs COMMAND and records how long it took.
phase() {
  local name="$1"
  shift
  local t0=$SECONDS c0
  children_cpu
  c0=$cpu_now
  echo "== $name"
  if "$@"; then
    children_cpu
    phases+=("$name: $((SECONDS - t0)) s ($((cpu_now - c0)) s CPU)")
  else
    local status=$?
    children_cpu
    phases+=("$name: $((SECONDS - t0)) s ($((cpu_now - c0)) s CPU), FAILED")
    return "$status"
  fi
}

configure() { cmake --preset "$preset" >/dev/null; }

# The tests labelled `slow` (the scenario replay, the soak: minutes each, mostly waiting on the
# clock) start first, so the short ones fill the other core beside them instead of waiting for
# them at the end. ctest starts tests in decreasing cost, read from its cost data, which it writes
# after each run; before the first (a clean clone) there is none, so this seeds it.
seed_test_costs() {
  local dir="build/$preset/Testing/Temporary" name
  [ -e "$dir/CTestCostData.txt" ] && return 0
  mkdir -p "$dir"
  {
    ctest --preset "$preset" -N -L slow | sed -n 's/^ *Test *#[0-9]*: //p' | while IFS= read -r name; do
      echo "$name 1 1000"
    done
    echo "---"
  } >"$dir/CTestCostData.txt"
}
run_tests() {
  seed_test_costs
  ctest --preset "$preset"
}

phase install ./scripts/install-deps.sh
phase configure configure
phase build cmake --build --preset "$preset"
phase test run_tests
fuzz_seconds="${QS_FUZZ_SECONDS:-20}"
if [ "$preset" = release ] && [ "$fuzz_seconds" -gt 0 ]; then
  phase "fuzz build" env QS_FUZZ_BUILD_ONLY=1 ./scripts/fuzz.sh all
  phase fuzz env QS_FUZZ_NO_BUILD=1 ./scripts/fuzz.sh all "$fuzz_seconds"
fi
