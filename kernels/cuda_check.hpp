#pragma once
// One way to turn a failed CUDA runtime or cuBLAS(Lt) call into an exception that names the
// call and the operator shape it was made for.
#include <cublas_api.h>
#include <cuda_runtime_api.h>

#include <string>

namespace dtsim::kernels {

// Throws std::runtime_error("<call> failed: <reason> [<context>]") unless `status` is success;
// cuBLAS's NOT_SUPPORTED and ARCH_MISMATCH throw Unsupported (unsupported.hpp) instead.
void throw_if_failed(cudaError_t status, const char* call, const std::string& context);
void throw_if_failed(cublasStatus_t status, const char* call, const std::string& context);

// After a kernel launch: launch-configuration errors (and earlier asynchronous ones) surface here.
void check_launch(const char* kernel, const std::string& context);

}  // namespace dtsim::kernels

// DTSIM_CHECK(cudaMalloc(&p, bytes), describe(shape)): the failing call is named by its source text.
#define DTSIM_CHECK(call, context) ::dtsim::kernels::throw_if_failed((call), #call, (context))
