#!/usr/bin/env bash
# Fuzzes the scenario, topology and calibration loaders (fuzz/fuzz_loaders.cpp) with libFuzzer
# for a bounded time each, and prints how many inputs each ran and what it found. A benchmark-
# style tool for people, not part of CI.
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
cmake --build build-fuzz -j2 --target fuzz_scenario fuzz_topology fuzz_calibration >/dev/null

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

mkdir -p build-fuzz/findings
printf '%-12s %10s %10s %8s %s\n' target inputs "inputs/s" findings "(${seconds} s each)"
for target in scenario topology calibration; do
  log="build-fuzz/fuzz_$target.log"
  # Fork mode goes on after a finding; -timeout and -rss_limit_mb make hangs and memory blow-ups
  # findings too.
  (cd build-fuzz && ./fuzz/fuzz_$target "corpus/$target" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
      -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -artifact_prefix="findings/$target-" \
      >"../$log" 2>&1) || true
  stats="$(grep -E '^#[0-9]+: ' "$log" | tail -1)"
  inputs="$(sed -E 's/^#([0-9]+):.*/\1/' <<<"$stats")"
  rate="$(sed -E 's/.*exec\/s:? ([0-9]+).*/\1/' <<<"$stats")"
  found="$(ls build-fuzz/findings/ 2>/dev/null | grep -c "^$target-" || true)"
  printf '%-12s %10s %10s %8s %s\n' "$target" "${inputs:-?}" "${rate:-?}" "$found" "$(sed -E 's/.*(oom\/timeout\/crash: [0-9/]+).*/\1/' <<<"$stats")"
done
echo "logs: build-fuzz/fuzz_*.log; findings: build-fuzz/findings/"
