#!/usr/bin/env bash
# Installs what is missing, builds (release preset), and starts quantscope. With no arguments it
# runs against its built-in simulated endpoints, so no inference server is needed; any
# arguments are passed on (e.g. ./scripts/run.sh probe http://10.0.0.5:8003).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target quantscope
exec ./build/release/app/quantscope "$@"
