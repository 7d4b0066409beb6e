#pragma once
// What the calibration says about the machine: device name and compute capability, driver,
// CUDA runtime, cuDNN (when the machine has one) and NCCL versions, the UTC date.
#include <optional>
#include <string>

#include "raw_profile.hpp"

namespace dtsim::profiler::gpu {

// Why no GPU can be used ("cudaGetDeviceCount: CUDA driver version is insufficient ..."), or
// nothing when there is at least one. Creates no context.
std::optional<std::string> no_gpu_reason(int& device_count);

// Device 0's name and compute capability, the versions and today's UTC date; `gpus` is how many
// local GPUs the NCCL sweep uses.
RawDevice describe_machine(int gpus);

std::string utc_date_today();  // YYYY-MM-DD

}  // namespace dtsim::profiler::gpu
