#!/usr/bin/env bash
# Prints the newest clang version installed together with its libFuzzer runtime (clang-N and
# libclang-rt-N-dev, as scripts/install-deps.sh installs them), e.g. "19"; nothing and exit 1 when
# there is none.
set -euo pipefail
for n in 24 23 22 21 20 19 18 17 16 15 14; do
  if command -v "clang++-$n" >/dev/null \
    && dpkg-query -W -f='${Status}' "libclang-rt-$n-dev" 2>/dev/null | grep -q "install ok installed"; then
    echo "$n"
    exit 0
  fi
done
exit 1
