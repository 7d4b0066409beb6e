#!/usr/bin/env bash
# Fuzzes the scenario, topology, calibration, trace (`dtsim import`'s Kineto / PyTorch ET reader)
# and layer-graph (model.layers_file) loaders (fuzz/fuzz_loaders.cpp) with libFuzzer for a bounded
# time each, one after the other, and prints per target the inputs it ran, inputs/s, the findings
# of this run and its wall time. A benchmark-style tool for people, not part of CI.
#   bench/fuzz.sh [SECONDS_PER_TARGET]    (default 120)
# Builds build-fuzz/ with clang, libFuzzer, AddressSanitizer and UBSan (scripts/install-deps.sh
# fuzz installs Debian's clang and its runtime if missing). The corpus grows in build-fuzz/corpus/
# from run to run; inputs that failed are kept in build-fuzz/findings/ (rerun one:
# build-fuzz/fuzz/fuzz_scenario FILE).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
seconds="${1:-120}"
case "$seconds" in ''|*[!0-9]*) echo "fuzz.sh: expected a number of seconds, found '$seconds'" >&2; exit 2 ;; esac

scripts/install-deps.sh fuzz

cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ -DDTSIM_FUZZ=ON \
  -DDTSIM_GUI=OFF -DDTSIM_PLOT=OFF -DBUILD_TESTING=OFF -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON \
  -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined" >/dev/null
targets=(scenario topology calibration trace layer_graph)
cmake --build build-fuzz -j2 --target "${targets[@]/#/fuzz_}" >/dev/null

# Seeds: the project's own files. Relative paths in scenarios become absolute, so that they
# resolve from the temporary file the fuzzer writes each input to.
seed() {  # seed TARGET FILE...
  local dir="build-fuzz/corpus/$1"; shift
  mkdir -p "$dir"
  for f in "$@"; do
    local from; from="$(cd "$(dirname "$f")" && pwd)"
    sed -E -e "s#(topology|hf_config|calibration): ([^/ ,}][^ ,}]*)#\1: $from/\2#g" "$f" > "$dir/seed-$(basename "$f")"
  done
}
seed scenario scenarios/*.yaml tests/data/*.yaml tests/data/bad/*.yaml
seed topology topologies/*.yaml tests/data/topologies/*.yaml
seed calibration tests/data/calibration/*.json tests/data/profiler/*.json
copy() {  # copy TARGET FILE...: seeds without paths to rewrite (binary ones among them)
  local dir="build-fuzz/corpus/$1"; shift
  mkdir -p "$dir"
  for f in "$@"; do local name; name="$(basename "$f")"; cp "$f" "$dir/seed-${name#seed-}"; done
}
# Traces: small excerpts of tests/data/traces/ files (uncompressed, a few KB: quick to run and to
# mutate), earlier findings (tests/data/fuzz/trace-*), and the smallest gzipped trace of each
# folder of tests/data/traces/ if under 100 KB, for the gzip path.
gzipped=()
for d in tests/data/traces/*/; do
  f="$(find "$d" -maxdepth 1 -name '*.json.gz' -size -100k -printf '%s %p\n' | sort -n | awk 'NR == 1 {print $2}')"
  if [[ -n "$f" ]]; then gzipped+=("$f"); fi
done
copy trace tests/data/fuzz/seed-trace-*.json tests/data/fuzz/trace-*.json "${gzipped[@]}"
copy layer_graph tests/data/layer-models/*

mkdir -p build-fuzz/findings
printf '%-12s %10s %10s %8s %7s %s\n' target inputs "inputs/s" findings "wall s" "(${seconds} s each)"
for target in "${targets[@]}"; do
  log="build-fuzz/fuzz_$target.log"
  # Fork mode goes on after a finding; -timeout and -rss_limit_mb make hangs and memory blow-ups
  # findings too.
  start=$SECONDS
  touch "build-fuzz/findings/.start-$target"
  (cd build-fuzz && ./fuzz/fuzz_$target "corpus/$target" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
      -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -artifact_prefix="findings/$target-" \
      >"../$log" 2>&1) || true
  stats="$(grep -E '^#[0-9]+: ' "$log" | tail -1)"
  inputs="$(sed -E 's/^#([0-9]+):.*/\1/' <<<"$stats")"
  # inputs/s over the whole run (the line's own exec/s is its last job's).
  secs="$(sed -nE 's/.* time: ([0-9]+)s.*/\1/p' <<<"$stats")"
  rate=""; if [[ -n "$inputs" && -n "$secs" && "$secs" -gt 0 ]]; then rate=$((inputs / secs)); fi
  # Findings of this run: the artifacts written since it began (earlier runs' stay in the folder).
  found="$(find build-fuzz/findings -name "$target-*" -newer "build-fuzz/findings/.start-$target" | wc -l)"
  printf '%-12s %10s %10s %8s %7s %s\n' "$target" "${inputs:-?}" "${rate:-?}" "$found" "$((SECONDS - start))" "$(sed -E 's/.*(oom\/timeout\/crash: [0-9/]+).*/\1/' <<<"$stats")"
done
echo "logs: build-fuzz/fuzz_*.log; findings: build-fuzz/findings/"
