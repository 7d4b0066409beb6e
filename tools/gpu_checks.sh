#!/usr/bin/env bash
# Issue 43's checks on a lent GPU, in one call: time the four shared training steps
# (tools/train_steps_pytorch.py) while the profiler builds from profiler/ alone, check the kernels
# (cuBLASLt's own log appended when it refuses a case), profile bf16 and fp8. Seven files go under
# $OUT (the device tool returns eight at most); the last lines printed are a short table.
# On this machine first:
#   profiler/stage-headers.sh        # nlohmann/ and CLI/ into profiler/third_party/ (git-ignored)
# then with the device tool, from the repository root:
#   run  command="bash tools/gpu_checks.sh"  carry=["profiler/third_party"]  timeout_s=600
# and afterwards, here: dtsim calibrate OUT/raw.json --out calibrations/<gpu>-<date>.json
# (calibrations/README.md says what to record beside it). Leaves the GPU's settings alone.
set -uo pipefail
out="${OUT:-gpu-checks-out}"
mkdir -p "$out"
declare -a rows=()
row() { rows+=("$(printf '%-22s %s' "$1" "$2")"); }

row "gpu" "$(nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,memory.total \
  --format=csv,noheader 2>&1)"
row "software" "$(python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda,
"cudnn", torch.backends.cudnn.version())' 2>&1)"

# The build runs niced beside the eager steps, which are GPU-bound; the compiled step goes last.
t0=$SECONDS
(cmake -S profiler -B build-profile -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 &&
 nice -n 19 cmake --build build-profile -j12 --target dtsim-profile dtsim-kernel-check) > "$out/build.log" 2>&1 &
build_pid=$!
timeout 220 python3 tools/train_steps_pytorch.py > "$out/steps.jsonl" 2>&1
row "steps" "exit $?: $(grep -c step_s_median "$out/steps.jsonl") of 4 timed in $((SECONDS - t0)) s"
if wait "$build_pid"; then
  row "build" "ok in $((SECONDS - t0)) s"
else
  row "build" "failed (build.log): $(grep -m1 -i 'error\|skipped' "$out/build.log")"
  printf '%s\n' "${rows[@]}" | tee "$out/summary.txt"
  exit 1
fi

# Exit codes (kernels/kernel_check_main.cpp): 0 all passed, 1 failed, 2 no device, 3 some refused.
timeout 90 build-profile/kernels/dtsim-kernel-check > "$out/kernel-check.log" 2>&1
check=$?
row "kernel check" "exit $check: $(grep -c PASS "$out/kernel-check.log") pass, $(grep -c SKIP "$out/kernel-check.log") skip, $(grep -c FAIL "$out/kernel-check.log") fail"
if [ "$check" -eq 3 ]; then  # cuBLASLt's log says why it refused
  echo "--- again with CUBLASLT_LOG_LEVEL=5" >> "$out/kernel-check.log"
  CUBLASLT_LOG_LEVEL=5 timeout 60 build-profile/kernels/dtsim-kernel-check >> "$out/kernel-check.log" 2>&1
fi

t0=$SECONDS
timeout 240 build-profile/dtsim-profile --dtype bf16,fp8 --iters 10 --warmup 3 --overhead \
  --out "$out/calibration.json" --raw-out "$out/raw.json" > "$out/profile.log" 2>&1
profile=$?
row "profile bf16,fp8" "exit $profile in $((SECONDS - t0)) s, $(grep -c 'skipped:' "$out/profile.log") cases skipped"

printf '%s\n' "${rows[@]}" | tee "$out/summary.txt"
