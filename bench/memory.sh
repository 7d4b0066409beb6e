#!/usr/bin/env bash
# Peak memory of the largest inputs each memory-hungry command accepts, against dtsim's 4 GB budget
# (sim/base/size_limits.hpp, docs/running.md "Memory budget"). A benchmark for people, not part of CI: the
# whole run takes a few minutes on a 2-core machine (the 65,536-GPU all-reduce alone 75 to 194 s).
#   bench/memory.sh [BUILD_DIR]    (default build)
# Prints per case the wall time, the peak resident memory of the command and its simulation
# children (getrusage of the waited children), and the exit code.
set -euo pipefail
cd "$(dirname "$0")/.."
dtsim="${1:-build}/cli/dtsim"
[ -x "$dtsim" ] || { echo "memory.sh: no $dtsim; build first (scripts/test.sh)" >&2; exit 2; }
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

# The largest trace import accepts: 127 MiB of kernel events, just under the 128 MiB cap.
python3 - "$scratch/largest.json" <<'PY'
import sys
event = '{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":%d,"dur":1,"args":{"device":0,"stream":7}}'
with open(sys.argv[1], "w") as f:
    f.write('{"traceEvents": [')
    written, i = 0, 0
    while written < (127 << 20):
        text = (event % i) + ","
        f.write(text); written += len(text); i += 1
    f.write((event % i) + ']}')
PY

measure() {  # measure NAME COMMAND...
  python3 - "$@" <<'PY'
import resource, subprocess, sys, time
name, command = sys.argv[1], sys.argv[2:]
start = time.time()
rc = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
peak_gb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024 / 1e9
print(f"{name:<58} {time.time() - start:8.1f} {peak_gb:8.2f} {rc:4d}", flush=True)
PY
}

printf '%-58s %8s %8s %4s\n' case "wall s" "peak GB" rc
measure "run llama3-405b 65,536 GPUs, folded" "$dtsim" run bench/scale/llama3-405b-65536-h100.yaml
measure "run gpt3-175b 4,096 GPUs, --no-fold" "$dtsim" run bench/scale/gpt3-175b-4096-a100.yaml --no-fold
measure "collective all_reduce -g 65536 -b 1M -e 1M" "$dtsim" collective -g 65536 -b 1M -e 1M
measure "import 127 MiB trace (1.28M kernels), --no-replay" "$dtsim" import "$scratch/largest.json" --no-replay
measure "import 127 MiB trace, replayed on one DGX H100" "$dtsim" import "$scratch/largest.json" \
  --topology topologies/dgx-h100-ndr-fattree.yaml
measure "import hta trace --ranks 4096" "$dtsim" import tests/data/traces/hta --ranks 4096
measure "topo dragonfly of 1,024-GPU nodes, 64 nodes (65,536 GPUs)" "$dtsim" topo \
  tests/data/robustness/F-21-dragonfly-1024-gpus-per-node.t.yaml --nodes 64
measure "topo 3-tier fat-tree, 8,192 nodes (65,536 GPUs)" "$dtsim" topo topologies/dgx-h100-ndr-3tier.yaml --nodes 8192
