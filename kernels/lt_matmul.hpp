#pragma once
// One cuBLASLt matmul, set up once (descriptors, heuristic algorithms, workspace) and run many
// times: D = op(A) op(B) in cuBLASLt's column-major terms, optionally strided-batched.
#include <cublasLt.h>

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "device_buffer.hpp"

namespace dtsim::kernels {

// The loaded cuBLASLt's version (cublasLtGetVersion's major * 10000 + minor * 100 + patch) as
// "13.0.2", for messages.
std::string lt_version();

struct MatmulSpec {
  cudaDataType_t ab_type = CUDA_R_32F;  // A and B
  cudaDataType_t cd_type = CUDA_R_32F;  // C (= D, beta 0) and D
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  bool transpose_a = false, transpose_b = false;
  std::int64_t m = 0, n = 0, k = 0;  // D is m x n, column-major
  std::int64_t lda = 0, ldb = 0, ldd = 0;
  std::int64_t batch = 1, stride_a = 0, stride_b = 0, stride_d = 0;  // elements between matrices
  // fp8 only: device pointers to the fp32 scales that dequantise A and B (each its own allocation).
  const float* a_scale = nullptr;
  const float* b_scale = nullptr;
};

class LtMatmul {
 public:
  // Throws Unsupported (unsupported.hpp) naming `context` if cuBLASLt has no algorithm for the spec.
  LtMatmul(const MatmulSpec& spec, std::string context);
  // The first run tries the heuristic's algorithms in its order and keeps the first cuBLASLt
  // accepts; Unsupported when it accepts none.
  void run(const void* a, const void* b, void* d, cudaStream_t stream);

 private:
  template <class Handle, auto Destroy>
  struct Deleter {
    void operator()(Handle h) const noexcept { Destroy(h); }
  };
  template <class Handle, auto Destroy>
  using Owned = std::unique_ptr<std::remove_pointer_t<Handle>, Deleter<Handle, Destroy>>;

  cublasStatus_t launch(const cublasLtMatmulAlgo_t& algo, const void* a, const void* b, void* d, cudaStream_t stream);

  std::string context_;
  bool fp8_ = false;
  Owned<cublasLtHandle_t, cublasLtDestroy> handle_;
  Owned<cublasLtMatmulDesc_t, cublasLtMatmulDescDestroy> desc_;
  Owned<cublasLtMatrixLayout_t, cublasLtMatrixLayoutDestroy> a_layout_, b_layout_, d_layout_;
  std::vector<cublasLtMatmulAlgo_t> algos_;  // the heuristic's, best first; the accepted one once settled
  bool settled_ = false;
  DeviceBuffer workspace_;
};

}  // namespace dtsim::kernels
