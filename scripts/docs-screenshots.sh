#!/usr/bin/env bash
# Regenerates the screenshots in docs/images/ from the fixture results file, headless, with the
# same command a user has: quantscope screenshot. Run after a change to a view.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=./build/release/app/quantscope
file=tests/data/results/voice-sim.json
for view in window endpoints run guardrails ttft-turn decode-tps latency-length responses quality statistics; do
    "$bin" screenshot "$file" --view "$view" --out "docs/images/$view.png" --scale 1 --theme light
done
