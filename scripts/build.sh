#!/usr/bin/env bash
# Configures build/ (Release) and builds, two jobs at a time.
#   scripts/build.sh            everything: library, CLI, plots, GUI, benchmarks, tests, and, where
#                               the CUDA toolkit is found, kernels and profiler
#   scripts/build.sh dtsim      only the named targets (scripts/run.sh builds just the CLI)
# DTSIM_REQUIRE_ALL=ON makes a missing Qt 6 or GoogleTest a configure error instead of a skipped part
# (scripts/test.sh sets it under CI=true).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DDTSIM_REQUIRE_ALL="${DTSIM_REQUIRE_ALL:-OFF}" >build/configure.log 2>&1 \
  || { cat build/configure.log >&2; exit 1; }
grep '^-- dtsim:' build/configure.log || true
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build build -j2 "${targets[@]}"
