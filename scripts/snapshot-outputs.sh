#!/usr/bin/env bash
# Writes what a user sees from the stock commands into one folder, so that a refactoring can be
# checked to change none of it:
#   scripts/snapshot-outputs.sh /tmp/before          # on the old commit
#   scripts/snapshot-outputs.sh /tmp/after           # on the new one
#   diff -r /tmp/before /tmp/after && echo identical
# Covered: `run --json` and the text report of every stock scenario, `validate` of the public
# runs, `plan` (text and --json), `goodput` (text and --json), `collective` and `topo`. Lines
# with a wall time are dropped (they differ between any two runs), and the output folder's path
# is cut from the lines that name a file written there.
set -euo pipefail
out=${1:?usage: scripts/snapshot-outputs.sh OUTPUT_FOLDER}
repo=$(cd "$(dirname "$0")/.." && pwd)
dtsim=$(realpath "${DTSIM:-$repo/build/cli/dtsim}")
mkdir -p "$out"
out=$(realpath "$out")
cd "$repo"

# Output minus the lines that hold the wall-clock time of this run (text, or JSON keys *wall_s).
text() { { grep -viE 'wall|elapsed|simulated in' || true; } | sed "s|$out/||g"; }
json() { grep -vE '"[a-z_]*wall_s":' "$1" | sed "s|$repo/||g" >"$1.tmp" && mv "$1.tmp" "$1"; }

for scenario in scenarios/*.yaml; do
  name=$(basename "$scenario" .yaml)
  status=0
  "$dtsim" run "$scenario" --json "$out/run-$name.json" >"$out/run-$name.raw" 2>&1 || status=$?
  text <"$out/run-$name.raw" >"$out/run-$name.txt"
  echo "exit $status" >>"$out/run-$name.txt"
  rm "$out/run-$name.raw"
done

"$dtsim" validate 2>&1 | text >"$out/validate.txt"
"$dtsim" plan --model gpt3-175b --gpus 1024 --json "$out/plan.json" 2>&1 | text >"$out/plan.txt"
"$dtsim" goodput --tokens 3e11 --json "$out/goodput.json" 2>&1 | text >"$out/goodput.txt"
"$dtsim" collective 2>&1 | text >"$out/collective.txt"
"$dtsim" collective topologies/dgx-a100-hdr-fattree.yaml --op all_gather -g 64 -b 1M -e 1G -f 4 \
  2>&1 | text >"$out/collective-allgather.txt"
"$dtsim" topo topologies/dgx-h100-ndr-rail.yaml --nodes 64 --dot "$out/rail.dot" 2>&1 | text >"$out/topo.txt"
for file in "$out"/*.json; do json "$file"; done
echo "snapshot written to $out"
