#!/usr/bin/env bash
# Builds the libFuzzer targets (preset `fuzz`) and runs one target, or all, each for SECONDS
# (default 60). A crash is copied to tests/data/fuzz-regressions/TARGET/ and the script exits
# non-zero. docs/fuzzing.md says what each target asserts.
#
# Targets run side by side, QS_FUZZ_PARALLEL at a time (default: one per core), each still for
# its whole SECONDS on a core of its own, so together they try as much as one after another.
#
#   scripts/fuzz.sh                      every target, 60 s each
#   scripts/fuzz.sh fuzz_sse 1800        one target for 30 minutes
#   QS_FUZZ_NO_BUILD=1 scripts/fuzz.sh   runs what is built (e.g. while another build holds build/fuzz)
#   QS_FUZZ_BUILD_ONLY=1 scripts/fuzz.sh builds the targets and runs nothing (scripts/test.sh)
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
targets_all=(fuzz_http_response fuzz_sse fuzz_stream_chunk fuzz_stream_assembly fuzz_prometheus
             fuzz_judge_reply fuzz_results_file fuzz_journal fuzz_suite fuzz_profile fuzz_gate_patterns
             fuzz_probe_replies fuzz_rubric)
target="${1:-all}"
seconds="${2:-60}"
if [ "$target" = all ]; then
  targets=("${targets_all[@]}")
elif [[ " ${targets_all[*]} " == *" $target "* ]]; then
  targets=("$target")
else
  echo "error: unknown target '$target'; one of: all ${targets_all[*]}" >&2
  exit 2
fi
# The newest clang installed with its libFuzzer runtime (scripts/install-deps.sh installs the
# newest the distribution ships): not a pinned version a newer release no longer has.
if ! clang_version="$("$root/scripts/clang-version.sh")"; then
  echo "error: no clang with libFuzzer found; run scripts/install-deps.sh (packages clang-N libclang-rt-N-dev)" >&2
  exit 2
fi

build="$root/build/fuzz"
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
compilers=(-DCMAKE_CXX_COMPILER="clang++-$clang_version" -DCMAKE_C_COMPILER="clang-$clang_version")
# A build folder configured with another clang cannot switch compilers: start it afresh.
if [ -e "$build/CMakeCache.txt" ] && ! grep -q "^CMAKE_CXX_COMPILER:[A-Z]*=.*clang++-$clang_version\$" "$build/CMakeCache.txt"; then
  rm -rf "$build/CMakeCache.txt" "$build/CMakeFiles"
fi
if [ -z "${QS_FUZZ_NO_BUILD:-}" ]; then
  cmake --preset fuzz "${compilers[@]}" "${launcher[@]}" >/dev/null
  cmake --build "$build" -j"${QS_FUZZ_JOBS:-2}" --target "${targets[@]}"
fi
if [ -n "${QS_FUZZ_BUILD_ONLY:-}" ]; then
  exit 0
fi

# The header byte fuzz/FuzzSplit.h reads: four cuts of 8, 20, 42 and 98 bytes, so a seed starts
# out split across SSE lines and JSON values.
split_header=$'\x04\x07\x13\x29\x61'

# seed TARGET: fills build/fuzz/corpus/TARGET (the work corpus libFuzzer adds to) from the
# hand-written seeds in fuzz/corpus/TARGET and from the project's own test data.
seed() {
  local t="$1" dir="$build/corpus/$1" f
  mkdir -p "$dir"
  if [ -d "fuzz/corpus/$t" ]; then cp -n fuzz/corpus/"$t"/* "$dir"/ 2>/dev/null || true; fi
  if [ -d "tests/data/fuzz-regressions/$t" ]; then
    cp -n tests/data/fuzz-regressions/"$t"/* "$dir"/ 2>/dev/null || true
  fi
  if [ -d "$build/emulator-seeds/$t" ]; then
    cp -n "$build/emulator-seeds/$t"/* "$dir"/ 2>/dev/null || true
  fi
  case "$t" in
    fuzz_sse | fuzz_stream_assembly)
      for f in tests/data/streams/*.sse; do
        { printf '%s' "$split_header"; cat "$f"; } >"$dir/$(basename "$f")"
      done ;;
    fuzz_http_response)
      # Each captured stream as the chunked HTTP response that carried it.
      for f in tests/data/streams/*.sse; do
        {
          printf '%s' "$split_header"
          printf 'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n'
          printf '%x\r\n' "$(wc -c <"$f")"; cat "$f"; printf '\r\n0\r\n\r\n'
        } >"$dir/$(basename "$f").http"
      done ;;
    fuzz_stream_chunk)
      # Every distinct event payload of the captured streams, one per file.
      local i=0 line
      while IFS= read -r line; do
        printf '%s' "$line" >"$dir/event-$i.json"
        i=$((i + 1))
      done < <(sed -n 's/^data: \{0,1\}//p' tests/data/streams/*.sse | tr -d '\r' | sort -u) ;;
    fuzz_results_file)
      # The captured results files are 0.5–0.8 MB: slow seeds. Keep their first records only.
      for f in tests/data/results/*.json; do
        if command -v python3 >/dev/null; then
          python3 - "$f" "$dir/$(basename "$f")" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["records"] = doc.get("records", [])[:4]
json.dump(doc, open(sys.argv[2], "w"), indent=1)
PY
        else
          cp "$f" "$dir/"
        fi
      done ;;
    fuzz_journal)
      # Each results file as the journal its run would have written: header line, then records.
      if command -v python3 >/dev/null; then
        for f in tests/data/results/*.json; do
          python3 - "$f" "$dir/$(basename "$f" .json).journal" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
records = doc.pop("records", [])[:6]
doc.pop("telemetry", None)
doc["journal"] = True
with open(sys.argv[2], "w") as out:
    out.write(json.dumps(doc) + "\n")
    for r in records:
        out.write(json.dumps(r) + "\n")
PY
        done
      fi ;;
    fuzz_suite) cp resources/suites/*.json "$dir"/ ;;
    fuzz_profile) cp resources/profiles/*.json "$dir"/ ;;
    fuzz_gate_patterns) cp resources/gates/*.json "$dir"/ ;;
    fuzz_rubric) cp resources/judges/*.json "$dir"/ ;;
  esac
}

dict_of() {
  case "$1" in
    fuzz_http_response) echo fuzz/dict/http.dict ;;
    fuzz_sse | fuzz_stream_chunk | fuzz_stream_assembly) echo fuzz/dict/sse.dict ;;
    fuzz_prometheus) echo fuzz/dict/prometheus.dict ;;
    *) echo fuzz/dict/json.dict ;;
  esac
}

# The emulator's own output, off its sockets, every dialect and era (tests/fuzz/emit_fuzz_seeds.cpp):
# built by the release preset, which scripts/test.sh builds first.
emitter="$root/build/release/tests/fuzz/emit_fuzz_seeds"
if [ -x "$emitter" ]; then
  "$emitter" "$build/emulator-seeds"
else
  echo "(no seeds from the emulator: $emitter is not built; cmake --build --preset release builds it)"
fi

# run TARGET: the fuzzer, its output in build/fuzz/TARGET.log and its exit status in TARGET.status.
run() {
  local t="$1" status=0
  (cd "$build/artifacts/$t" && ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}" UBSAN_OPTIONS=print_stacktrace=1 \
    "$build/fuzz/$t" "$build/corpus/$t" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
      -dict="$root/$(dict_of "$t")" -artifact_prefix="$build/artifacts/$t/" -print_final_stats=1 \
      >"$build/$t.log" 2>&1) || status=$?
  echo "$status" >"$build/$t.status"
}

parallel="${QS_FUZZ_PARALLEL:-$(nproc 2>/dev/null || echo 1)}"
running=0
for t in "${targets[@]}"; do
  seed "$t"
  rm -rf "$build/artifacts/$t" "$build/$t.status"
  mkdir -p "$build/artifacts/$t"
  if [ "$running" -ge "$parallel" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  echo "== $t for ${seconds}s"
  run "$t" &
  running=$((running + 1))
done
wait

failed=()
for t in "${targets[@]}"; do
  echo "== $t"
  status="$(cat "$build/$t.status" 2>/dev/null || echo "no status")"
  grep -E '^(#[0-9]+ +DONE|==[0-9]+==ERROR|SUMMARY|stat::number_of_executed_units|stat::average_exec_per_sec)|fuzz check failed' \
    "$build/$t.log" || true
  crashes=("$build/artifacts/$t"/*)
  if [ -e "${crashes[0]}" ]; then
    mkdir -p "tests/data/fuzz-regressions/$t"
    cp "${crashes[@]}" "tests/data/fuzz-regressions/$t/"
    echo "$t: found $(basename -a "${crashes[@]}" | tr '\n' ' ')→ tests/data/fuzz-regressions/$t/ (log: $build/$t.log)" >&2
    failed+=("$t")
  elif [ "$status" != 0 ]; then
    echo "$t: the fuzzer exited with $status and left no input (log: $build/$t.log)" >&2
    failed+=("$t")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzzing found crashes in: ${failed[*]}" >&2
  exit 1
fi
echo "fuzzing: ${#targets[@]} target(s), ${seconds}s each, $parallel at a time, nothing found"
