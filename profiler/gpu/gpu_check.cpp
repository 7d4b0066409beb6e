#include "gpu_check.hpp"

#include <stdexcept>
#include <string>

namespace dtsim::profiler::gpu {

void check_cuda(cudaError_t status, const char* call) {
  if (status != cudaSuccess) throw std::runtime_error(std::string(call) + " failed: " + cudaGetErrorString(status));
}

void check_nccl(ncclResult_t status, const char* call) {
  if (status != ncclSuccess) throw std::runtime_error(std::string(call) + " failed: " + ncclGetErrorString(status));
}

void check_cupti(CUptiResult status, const char* call) {
  if (status == CUPTI_SUCCESS) return;
  const char* text = nullptr;
  cuptiGetResultString(status, &text);
  throw std::runtime_error(std::string(call) + " failed: " + (text ? text : "unknown CUPTI error"));
}

}  // namespace dtsim::profiler::gpu
