#!/usr/bin/env bash
# Issue 43's checks on a lent GPU, in one call: build the profiler from profiler/ alone, check the
# kernels (fp8 first; cuBLASLt's own log when it refuses a case), profile bf16 and fp8, time the
# GPT step of tools/gpt_step_pytorch.py. Every log and file goes under $OUT; the last lines printed
# are a short table. On this machine first:
#   profiler/stage-headers.sh        # nlohmann/ and CLI/ into profiler/third_party/ (git-ignored)
# then with the device tool, from the repository root:
#   run  command="bash tools/gpu_checks.sh"  carry=["profiler/third_party"]  timeout_s=540
# and afterwards, here: dtsim calibrate OUT/raw.json --out calibrations/<gpu>-<date>.json
# (calibrations/README.md says what to record beside it). Leaves the GPU's settings alone.
set -uo pipefail
out="${OUT:-gpu-checks-out}"
mkdir -p "$out"
declare -a rows=()
row() { rows+=("$(printf '%-22s %s' "$1" "$2")"); }

nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,memory.total --format=csv \
  > "$out/gpu.csv" 2>&1
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda,
"cudnn", torch.backends.cudnn.version())' > "$out/versions.txt" 2>&1
row "gpu" "$(tail -1 "$out/gpu.csv")"
row "software" "$(tail -1 "$out/versions.txt")"

t0=$SECONDS
if cmake -S profiler -B build-profile -G Ninja -DCMAKE_BUILD_TYPE=Release > "$out/build.log" 2>&1 &&
   cmake --build build-profile -j16 --target dtsim-profile dtsim-kernel-check >> "$out/build.log" 2>&1; then
  row "build" "ok in $((SECONDS - t0)) s"
else
  row "build" "failed (build.log): $(grep -m1 -i 'error\|skipped' "$out/build.log")"
  printf '%s\n' "${rows[@]}"
  exit 1
fi

# Exit codes (kernels/kernel_check_main.cpp): 0 all passed, 1 failed, 2 no device, 3 some refused.
timeout 180 build-profile/kernels/dtsim-kernel-check > "$out/kernel-check.log" 2>&1
check=$?
row "kernel check" "exit $check: $(grep -c PASS "$out/kernel-check.log") pass, $(grep -c SKIP "$out/kernel-check.log") skip, $(grep -c FAIL "$out/kernel-check.log") fail"
if [ "$check" -eq 3 ]; then  # cuBLASLt's log says why it refused
  CUBLASLT_LOG_LEVEL=5 timeout 120 build-profile/kernels/dtsim-kernel-check > "$out/kernel-check-cublaslt.log" 2>&1
fi

t0=$SECONDS
timeout 300 build-profile/dtsim-profile --dtype bf16,fp8 --iters 10 --warmup 3 --overhead \
  --out "$out/calibration.json" --raw-out "$out/raw.json" > "$out/profile.log" 2>&1
profile=$?
row "profile bf16,fp8" "exit $profile in $((SECONDS - t0)) s, $(grep -c 'skipped:' "$out/profile.log") cases skipped"

timeout 120 python3 tools/gpt_step_pytorch.py > "$out/gpt-step.log" 2>&1
row "gpt step" "exit $?: $(tail -1 "$out/gpt-step.log")"

printf '%s\n' "${rows[@]}" | tee "$out/summary.txt"
