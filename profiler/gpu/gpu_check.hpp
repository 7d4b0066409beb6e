#pragma once
// Failed CUDA runtime, NCCL and CUPTI calls become std::runtime_error naming the call.
#include <cuda_runtime_api.h>
#include <cupti.h>
#include <nccl.h>

namespace dtsim::profiler::gpu {

void check_cuda(cudaError_t status, const char* call);
void check_nccl(ncclResult_t status, const char* call);
void check_cupti(CUptiResult status, const char* call);

}  // namespace dtsim::profiler::gpu

#define PROFILE_CUDA(call) ::dtsim::profiler::gpu::check_cuda((call), #call)
#define PROFILE_NCCL(call) ::dtsim::profiler::gpu::check_nccl((call), #call)
#define PROFILE_CUPTI(call) ::dtsim::profiler::gpu::check_cupti((call), #call)
