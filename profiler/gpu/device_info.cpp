#include "device_info.hpp"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <nccl.h>

#include <cstddef>
#include <cstdio>
#include <ctime>
#include <fstream>

#include "gpu_check.hpp"
#include "library_versions.hpp"

#ifndef DTSIM_CUDNN_LIBRARY
#define DTSIM_CUDNN_LIBRARY ""
#endif

namespace dtsim::profiler::gpu {

namespace {

// The kernel module's version from /proc/driver/nvidia/version ("580.159.04", for the proprietary
// and the open module alike: library_versions.hpp); else the CUDA version the driver supports
// ("CUDA 13.0").
std::string driver_version() {
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line;
  if (in && std::getline(in, line))
    if (const std::optional<std::string> version = driver_version_of_proc_line(line)) return *version;
  int v = 0;
  if (cudaDriverGetVersion(&v) == cudaSuccess && v > 0) return "CUDA " + cuda_version_text(v);
  return "unknown";
}

std::string runtime_version() {
  int v = 0;
  PROFILE_CUDA(cudaRuntimeGetVersion(&v));
  return cuda_version_text(v);
}

std::string nccl_version() {
  int v = 0;
  PROFILE_NCCL(ncclGetVersion(&v));
  return nccl_version_text(v);
}

// cuDNN's version if the machine has one: the profiler does not link it (none of its kernels use
// it), so it is looked up at run time, in the folder CMake found beside PyTorch's wheels
// (DTSIM_CUDNN_LIBRARY) and on the loader's path. Empty when there is none.
std::string cudnn_version() {
  const char* const names[] = {DTSIM_CUDNN_LIBRARY, "libcudnn.so.9", "libcudnn.so.8", "libcudnn.so"};
  for (const char* name : names) {
    if (name == nullptr || *name == '\0') continue;
    void* library = dlopen(name, RTLD_LAZY | RTLD_LOCAL);
    if (library == nullptr) continue;
    using GetVersion = std::size_t (*)();
    const auto get_version = reinterpret_cast<GetVersion>(dlsym(library, "cudnnGetVersion"));
    const std::string version = get_version ? cudnn_version_text(get_version()) : "";
    dlclose(library);
    if (!version.empty()) return version;
  }
  return "";
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
  d.cudnn = cudnn_version();
  d.nccl = nccl_version();
  d.date = utc_date_today();
  return d;
}

}  // namespace dtsim::profiler::gpu
