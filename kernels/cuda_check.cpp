#include "cuda_check.hpp"

#include <cublasLt.h>

#include <stdexcept>

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
  if (status != CUBLAS_STATUS_SUCCESS) fail(call, cublasLtGetStatusString(status), context);
}

void check_launch(const char* kernel, const std::string& context) {
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) fail((std::string("launch of ") + kernel).c_str(), cudaGetErrorString(status), context);
}

}  // namespace dtsim::kernels
