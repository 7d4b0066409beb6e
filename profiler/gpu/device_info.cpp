#include "device_info.hpp"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>

#include "gpu_check.hpp"

namespace dtsim::profiler::gpu {

namespace {

// "580.95.05" from the kernel module's version line ("NVRM version: NVIDIA UNIX x86_64 Kernel
// Module  580.95.05  ..."); else the CUDA version the driver supports ("CUDA 13.0").
std::string driver_version() {
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line;
  if (in && std::getline(in, line)) {
    const std::string marker = "Kernel Module";
    const size_t at = line.find(marker);
    if (at != std::string::npos) {
      std::istringstream rest(line.substr(at + marker.size()));
      std::string version;
      if (rest >> version) return version;
    }
  }
  int v = 0;
  if (cudaDriverGetVersion(&v) == cudaSuccess && v > 0)
    return "CUDA " + std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
  return "unknown";
}

std::string runtime_version() {
  int v = 0;
  PROFILE_CUDA(cudaRuntimeGetVersion(&v));
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

std::string nccl_version() {
  int v = 0;
  PROFILE_NCCL(ncclGetVersion(&v));
  // NCCL >= 2.9 encodes major * 10000 + minor * 100 + patch.
  return std::to_string(v / 10000) + "." + std::to_string(v % 10000 / 100) + "." + std::to_string(v % 100);
}

}  // namespace

std::optional<std::string> no_gpu_reason(int& device_count) {
  device_count = 0;
  const cudaError_t status = cudaGetDeviceCount(&device_count);
  if (status != cudaSuccess) {
    device_count = 0;
    return std::string("cudaGetDeviceCount: ") + cudaGetErrorString(status);
  }
  if (device_count == 0) return std::string("cudaGetDeviceCount found no device");
  return std::nullopt;
}

std::string utc_date_today() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[16];
  std::strftime(text, sizeof text, "%Y-%m-%d", &utc);
  return text;
}

RawDevice describe_machine(int gpus) {
  cudaDeviceProp props{};
  PROFILE_CUDA(cudaGetDeviceProperties(&props, 0));
  RawDevice d;
  d.name = props.name;
  d.compute_capability = std::to_string(props.major) + "." + std::to_string(props.minor);
  d.gpus = gpus;
  d.driver = driver_version();
  d.cuda_runtime = runtime_version();
  d.nccl = nccl_version();
  d.date = utc_date_today();
  return d;
}

}  // namespace dtsim::profiler::gpu
