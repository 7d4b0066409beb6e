#!/usr/bin/env bash
# What Slurm costs a sweep (issue 49): one 64-point sweep (GPT-3 1.3B on 8 H100, the gradient
# bucket from 1 to 64 MB) on this machine's cores, then as a job array on a one-machine Slurm that
# this script starts and stops (tests/slurm/local-slurm.sh), with the same CPUs. Prints both wall
# times and the overhead per task: (Slurm wall - local wall) x CPUs / tasks. A benchmark for
# people, not part of CI. Needs a built build/cli/dtsim and slurm-wlm with munge.
#   bench/slurm_sweep.sh [TASKS]   (default 64: one per simulation)
set -euo pipefail
cd "$(dirname "$0")/.."
tasks="${1:-64}"
dtsim="$PWD/build/cli/dtsim"
work="$(mktemp -d)"
chmod 755 "$work"  # munged needs its socket's folders open to all
trap 'tests/slurm/local-slurm.sh stop "$work/slurm" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
values="$(seq -s, 1 64)"
sweep=(sweep "$PWD/scenarios/gpt3-1.3b-8-h100.yaml" --field parallelism.bucket_mb --values "$values")

seconds() { date +%s.%N; }
start="$(seconds)"
"$dtsim" "${sweep[@]}" --json "$work/local.json" >/dev/null
local_s="$(echo "$(seconds) - $start" | bc)"

export "$(tests/slurm/local-slurm.sh start "$work/slurm")"
start="$(seconds)"
"$dtsim" "${sweep[@]}" --json "$work/slurm.json" --slurm --slurm-tasks "$tasks" --slurm-dir "$work/batch" \
  >/dev/null 2>"$work/slurm.log"
slurm_s="$(echo "$(seconds) - $start" | bc)"

cpus="$(nproc)"
cmp -s "$work/local.json" "$work/slurm.json" && same="byte-identical" || same="DIFFERENT"
printf 'sweep of 64 points, %s CPUs\n' "$cpus"
printf '  here (forked children)   %8.2f s\n' "$local_s"
printf '  local Slurm, %3d tasks   %8.2f s\n' "$tasks" "$slurm_s"
printf '  overhead per task        %8.3f s  ((Slurm - here) x %s CPUs / %s tasks)\n' \
  "$(echo "($slurm_s - $local_s) * $cpus / $tasks" | bc -l)" "$cpus" "$tasks"
printf '  --json                   %s\n' "$same"
