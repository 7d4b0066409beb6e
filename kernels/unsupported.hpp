#pragma once
// A case the GPU or its libraries refuse (cuBLASLt's CUBLAS_STATUS_NOT_SUPPORTED, no algorithm
// for a layout, a compute capability without the dtype): not a failure of dtsim's code, so the
// profiler and the kernel check skip the case with one line saying so and go on with the rest.
// Plain C++ (no CUDA headers).
#include <stdexcept>
#include <string>

namespace dtsim::kernels {

class Unsupported : public std::runtime_error {
 public:
  // `context`: the operator shape ("gemm fp8 m=2048 n=3072 k=1024"); `reason`: what refused it and
  // how ("cublasLtMatmul: CUBLAS_STATUS_NOT_SUPPORTED (the requested functionality is not supported)").
  Unsupported(std::string context, std::string reason)
      : std::runtime_error(reason + " [" + context + "]"), context_(std::move(context)), reason_(std::move(reason)) {}
  const std::string& context() const { return context_; }
  const std::string& reason() const { return reason_; }

 private:
  std::string context_, reason_;
};

}  // namespace dtsim::kernels
