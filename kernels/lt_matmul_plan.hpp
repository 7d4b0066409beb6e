#pragma once
// What a GEMM asks cuBLASLt for, as plain data (no CUDA headers): operand types, transposes and
// cuBLASLt's column-major dimensions, and the FP8 rules it must meet. gemm_operator.cpp turns a
// plan into a MatmulSpec (lt_matmul.hpp); the CPU tests (tests/test_lt_matmul_plan.cpp) check the
// plans without a GPU.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "dtype.hpp"

namespace dtsim::kernels {

enum class LtType { f32, f16, bf16, e4m3 };         // CUDA_R_32F, CUDA_R_16F, CUDA_R_16BF, CUDA_R_8F_E4M3
enum class LtCompute { f32, f32_fast_tf32 };        // CUBLAS_COMPUTE_32F, CUBLAS_COMPUTE_32F_FAST_TF32
std::size_t type_bytes(LtType t);

struct LtMatmulPlan {
  LtType ab = LtType::f32;  // A and B
  LtType cd = LtType::f32;  // C and D (C = D, beta 0)
  LtCompute compute = LtCompute::f32;
  LtType scale = LtType::f32;  // alpha, beta and the A/B scales (LtMatmul's descriptors always use fp32)
  bool transpose_a = false, transpose_b = false;
  std::int64_t m = 0, n = 0, k = 0;  // D is m x n, column-major
  std::int64_t lda = 0, ldb = 0, ldd = 0;
  bool ab_scales = false;  // per-tensor fp32 scales for A and B, as device pointers (fp8)
};

// Row-major C[rows, cols] = X[rows, k] W[cols, k]^T, the nn.Linear layout (W as stored, [out, in]):
// in cuBLASLt's column-major terms C^T[cols, rows] = op_T(W^T stored k x cols) op_N(X^T stored
// k x rows), so m = cols, n = rows, A = W transposed, B = X: the "TN" layout for every dtype.
// fp32: fp32 compute; tf32: fp32 storage on TF32 tensor cores; fp16 / bf16: 16-bit in and out,
// fp32 accumulation; fp8: e4m3 A and B with fp32 per-tensor scales, bf16 out.
LtMatmulPlan linear_gemm_plan(DType dtype, std::int64_t rows, std::int64_t cols, std::int64_t k);

// NVIDIA's documented requirements for FP8 (E4M3) cublasLtMatmul the plan breaks, one line each;
// empty when it meets them, or uses no FP8. From the cuBLAS documentation, cublasLtMatmul(), "To use
// FP8 kernels, the following set of requirements must be satisfied" (quoted by NVIDIA's cuBLAS team
// in NVIDIA/CUDALibrarySamples issues 172 and 242):
//   - all matrix dimensions meet the Tensor Core Usage requirements: pointers and matrix
//     dimensions 16-byte aligned (here m, k and the leading dimensions in bytes multiples of 16,
//     n of 8: the smallest layout issue 172 found accepted);
//   - A transposed and B not ("TN");
//   - compute type CUBLAS_COMPUTE_32F, scale type CUDA_R_32F;
//   - C and D bf16, fp16 or fp32 (an fp8 D needs a D scale, which these plans never ask for).
// Pointer alignment is checked where the pointers are known (LtMatmul::run).
std::vector<std::string> fp8_requirement_violations(const LtMatmulPlan& plan);

// 16-byte aligned: what the FP8 kernels need of A, B, C and D.
bool is_16_byte_aligned(const void* pointer);

}  // namespace dtsim::kernels
