#!/usr/bin/env bash
# Screenshots of every dtsim-gui view, for a person to look at: runs the scenario, runs it again
# with GPU 1 1.5x slower, keeps both for the Compare tab, sweeps the GPU count, imports the shipped
# DLRM traces, and saves one PNG per tab (Summary, Timeline, Topology, Sweep, Strategies, Compare,
# Trace) under a virtual X server (Xvfb).
#   tools/gui-screenshots.sh [OUT_DIR] [SCENARIO]
# Defaults: gui-screenshots/ and scenarios/gpt3-13b-64-a100-straggler.yaml. Needs a built
# build/gui/dtsim-gui (scripts/build.sh) and xvfb-run (Debian xvfb, xauth: installed if missing).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-gui-screenshots}"
scenario="${2:-$root/scenarios/gpt3-13b-64-a100-straggler.yaml}"
gui="$root/build/gui/dtsim-gui"
if [ ! -x "$gui" ]; then
  echo "gui-screenshots: $gui not found: build it first (scripts/build.sh)" >&2
  exit 2
fi
if ! command -v xvfb-run >/dev/null; then
  sudo_cmd=""
  if [ "$(id -u)" -ne 0 ]; then sudo_cmd="sudo"; fi
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends xvfb xauth >/dev/null
fi
xvfb-run -a -s "-screen 0 1600x1000x24" "$gui" "$scenario" --screenshots "$out"
