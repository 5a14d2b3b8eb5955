#!/usr/bin/env bash
# Benchmark (not a test): does a headless `quantscope run` stay flat as requests finish?
# Two emulated servers (llama-server and vLLM, `quantscope emulate`, each its own process) and a
# long two-turn suite at concurrency 64 per endpoint; the run's resident memory (VmRSS) and the
# requests finished (the journal's record lines) are sampled every second; the growth per
# request is the least-squares slope over the second half of the run (the first half warms up).
#
# Usage: tests/bench/headless_growth.sh [QUANTSCOPE (build/release/app/quantscope)] [SECONDS (120)]
#                                      [CONCURRENCY (64)] [TOKENS (48)]
set -euo pipefail
qs="${1:-build/release/app/quantscope}"
seconds="${2:-120}"
concurrency="${3:-64}"
tokens="${4:-48}"
work="$(mktemp -d)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
p1="$(port)"
p2="$(port)"
"$qs" emulate --dialect llama-server --port "$p1" --tokens "$tokens" --tps 400 --ttft-ms 20 >"$work/e1.log" 2>&1 &
pids+=($!)
"$qs" emulate --dialect vllm --port "$p2" --tokens "$tokens" --tps 400 --ttft-ms 20 >"$work/e2.log" 2>&1 &
pids+=($!)
for p in "$p1" "$p2"; do
  for _ in $(seq 50); do
    curl -sf "http://127.0.0.1:$p/v1/models" >/dev/null 2>&1 && break
    sleep 0.1
  done
done

cat >"$work/suite.json" <<'EOF'
{"id": "growth", "name": "Growth", "description": "One long two-turn chat test.",
 "defaults": {"max_tokens": 256, "temperature": 0, "thinking": false, "warmup": 0, "runs": 100000},
 "tests": [{"id": "chat", "name": "Two-turn chat", "category": "chat",
            "turns": ["Tell me about the weather in Paris.", "And what should I wear tomorrow?"]}]}
EOF

out="$work/run.json"
"$qs" run --suite "$work/suite.json" --endpoint "name=A,url=http://127.0.0.1:$p1" \
  --endpoint "name=B,url=http://127.0.0.1:$p2" --concurrency "$concurrency" --no-server-metrics \
  --out "$out" --quiet >"$work/run.log" 2>&1 &
run=$!
pids+=("$run")

samples="$work/samples.txt"
for s in $(seq "$seconds"); do
  sleep 1
  [ -d "/proc/$run" ] || { echo "the run ended early:"; cat "$work/run.log"; exit 1; }
  rss_kb="$(awk '/^VmRSS/ {print $2}' "/proc/$run/status")"
  records="$(grep -c '"endpoint_index"' "$out.journal" 2>/dev/null || echo 0)"
  echo "$s $records $rss_kb" >>"$samples"
done
kill -INT "$run" 2>/dev/null || true

python3 - "$samples" "$seconds" "$concurrency" <<'EOF'
import sys
rows = [tuple(map(float, l.split())) for l in open(sys.argv[1])]
half = rows[len(rows) // 2:]
n = len(half)
xs = [r[1] for r in half]
ys = [r[2] * 1024 for r in half]
mx, my = sum(xs) / n, sum(ys) / n
sxx = sum((x - mx) ** 2 for x in xs)
slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else float("nan")
print(f"headless run: {sys.argv[2]} s at concurrency {sys.argv[3]} per endpoint, two emulated endpoints")
print(f"requests {int(rows[-1][1])} ({rows[-1][1] / rows[-1][0]:.1f}/s); RSS {rows[0][2] / 1024:.1f} MiB "
      f"-> {rows[-1][2] / 1024:.1f} MiB")
print(f"RSS growth over the second half ({int(xs[0])} -> {int(xs[-1])} requests): "
      f"{slope:.0f} bytes per request")
EOF
