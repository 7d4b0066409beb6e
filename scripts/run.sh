#!/usr/bin/env bash
# Installs what is missing, builds, and runs `dtsim run` (default: GPT-3 175B on 1024 A100).
# Extra arguments go to `dtsim run`, e.g. scripts/run.sh scenarios/llama2-70b-256-h100.yaml
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
exec build/cli/dtsim run "$@"
