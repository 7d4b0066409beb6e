#include "cuda_check.hpp"

#include <cublasLt.h>

#include <stdexcept>

#include "unsupported.hpp"

namespace dtsim::kernels {

namespace {
[[noreturn]] void fail(const char* call, const char* reason, const std::string& context) {
  throw std::runtime_error(std::string(call) + " failed: " + reason + " [" + context + "]");
}
}  // namespace

void throw_if_failed(cudaError_t status, const char* call, const std::string& context) {
  if (status != cudaSuccess) fail(call, cudaGetErrorString(status), context);
}

void throw_if_failed(cublasStatus_t status, const char* call, const std::string& context) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  // The library refuses the case (a dtype or layout it has no kernel for): Unsupported, which the
  // profiler and the kernel check skip with one line; anything else is a failure.
  if (status == CUBLAS_STATUS_NOT_SUPPORTED || status == CUBLAS_STATUS_ARCH_MISMATCH) {
    std::string name = call;
    name = name.substr(0, name.find('('));  // "cublasLtMatmul", not the whole argument list
    throw Unsupported(context, name + ": " + cublasLtGetStatusName(status) + " (" + cublasLtGetStatusString(status) +
                                   ")");
  }
  fail(call, cublasLtGetStatusString(status), context);
}

void check_launch(const char* kernel, const std::string& context) {
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) fail((std::string("launch of ") + kernel).c_str(), cudaGetErrorString(status), context);
}

}  // namespace dtsim::kernels
