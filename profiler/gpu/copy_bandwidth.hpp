#pragma once
// Device-to-device, host-to-device and device-to-host copy times on device 0, host memory pinned
// (cudaMallocHost), one size (1 GiB by default): median CUDA-event time of one copy.
#include <cstddef>

#include "raw_profile.hpp"

namespace dtsim::profiler::gpu {

RawCopies measure_copies(size_t bytes, int iterations, int warmup);

}  // namespace dtsim::profiler::gpu
