#!/usr/bin/env bash
# Installs what `dtsim run` needs (apt), builds only the CLI, and runs `dtsim run` (default: GPT-3
# 175B on 1024 A100). Extra arguments go to `dtsim run`, e.g. scripts/run.sh scenarios/llama2-70b-256-h100.yaml
# scripts/test.sh installs and builds the rest (tests, plots, GUI, kernels, profiler).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh run
scripts/build.sh dtsim
exec build/cli/dtsim run "$@"
