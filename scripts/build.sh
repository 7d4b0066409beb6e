#!/usr/bin/env bash
# Configures and builds dtsim (library, CLI, benchmark, tests) in build/, two jobs at a time.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j2
