#!/usr/bin/env bash
# Regenerates the screenshots in docs/images/ from the fixture results file, headless, with the
# same command a user has: quantscope screenshot. Run after a change to a view.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=./build/release/app/quantscope
file=tests/data/results/voice-sim.json
for view in window endpoints run guardrails ttft-turn decode-tps latency-length answers responses quality statistics decision; do
    "$bin" screenshot "$file" --view "$view" --out "docs/images/$view.png" --scale 1 --theme light
done
# The Campaign tab: three attempts against scripted servers (tests/data/campaign/, written by
# `QS_KEEP_CAMPAIGN=1 build/release/tests/app/tst_campaign`).
"$bin" screenshot tests/data/campaign/attempt*.json --profile tests/data/campaign/profile.json --view campaign \
    --out docs/images/campaign.png --scale 1 --theme light
