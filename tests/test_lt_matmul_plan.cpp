// What kernels/ asks cuBLASLt for (kernels/lt_matmul_plan.hpp), checked without a GPU: the
// nn.Linear GEMM is "TN" in cuBLASLt's column-major terms for every dtype, and the FP8 plans meet
// NVIDIA's documented FP8 requirements (cuBLAS documentation, cublasLtMatmul(): TN layout, compute
// type CUBLAS_COMPUTE_32F, scale type CUDA_R_32F, 16-byte aligned dimensions), which a broken plan
// is told apart by.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lt_matmul_plan.hpp"

namespace dtsim::kernels {
namespace {

bool mentions(const std::vector<std::string>& lines, const std::string& text) {
  for (const std::string& line : lines)
    if (line.find(text) != std::string::npos) return true;
  return false;
}

TEST(LtMatmulPlan, Fp8LinearGemmIsTnWithFp32ComputeAndScales) {
  // The first fp8 GEMM of the 2026-11-26 sweep: rows (tokens) 2048, cols 3072, k 1024.
  const LtMatmulPlan p = linear_gemm_plan(DType::fp8, 2048, 3072, 1024);
  EXPECT_TRUE(p.transpose_a);   // A = W [3072, 1024] row-major = 1024 x 3072 column-major, transposed
  EXPECT_FALSE(p.transpose_b);  // B = X [2048, 1024] row-major = 1024 x 2048 column-major
  EXPECT_EQ(p.ab, LtType::e4m3);
  EXPECT_EQ(p.cd, LtType::bf16);
  EXPECT_EQ(p.compute, LtCompute::f32);
  EXPECT_EQ(p.scale, LtType::f32);
  EXPECT_TRUE(p.ab_scales);
  // D^T: m = cols, n = rows; leading dimensions k (1024 bytes of e4m3) and cols (6144 bytes of bf16).
  EXPECT_EQ(p.m, 3072);
  EXPECT_EQ(p.n, 2048);
  EXPECT_EQ(p.k, 1024);
  EXPECT_EQ(p.lda, 1024);
  EXPECT_EQ(p.ldb, 1024);
  EXPECT_EQ(p.ldd, 3072);
  EXPECT_TRUE(fp8_requirement_violations(p).empty());
}

TEST(LtMatmulPlan, EveryDtypeUsesTheSameLayout) {
  for (DType d : {DType::fp32, DType::tf32, DType::fp16, DType::bf16, DType::fp8}) {
    const LtMatmulPlan p = linear_gemm_plan(d, 1024, 4096, 1024);
    EXPECT_TRUE(p.transpose_a && !p.transpose_b) << int(d);
    EXPECT_EQ(p.m, 4096) << int(d);
    EXPECT_EQ(p.n, 1024) << int(d);
  }
  EXPECT_EQ(linear_gemm_plan(DType::tf32, 64, 64, 64).compute, LtCompute::f32_fast_tf32);
  EXPECT_EQ(linear_gemm_plan(DType::bf16, 64, 64, 64).cd, LtType::bf16);
  EXPECT_FALSE(linear_gemm_plan(DType::bf16, 64, 64, 64).ab_scales);
  EXPECT_TRUE(fp8_requirement_violations(linear_gemm_plan(DType::bf16, 3, 5, 7)).empty());  // no FP8: no FP8 rules
}

TEST(LtMatmulPlan, BrokenFp8PlansNameTheRuleTheyBreak) {
  LtMatmulPlan nn = linear_gemm_plan(DType::fp8, 2048, 3072, 1024);
  nn.transpose_a = false;
  EXPECT_TRUE(mentions(fp8_requirement_violations(nn), "\"TN\""));
  LtMatmulPlan tf32 = linear_gemm_plan(DType::fp8, 2048, 3072, 1024);
  tf32.compute = LtCompute::f32_fast_tf32;
  EXPECT_TRUE(mentions(fp8_requirement_violations(tf32), "CUBLAS_COMPUTE_32F"));
  LtMatmulPlan fp8_out = linear_gemm_plan(DType::fp8, 2048, 3072, 1024);
  fp8_out.cd = LtType::e4m3;
  EXPECT_TRUE(mentions(fp8_requirement_violations(fp8_out), "D scale"));
  // k = 1000 is not a multiple of 16, so neither are the 1000-byte leading dimensions of A and B.
  const std::vector<std::string> odd_k = fp8_requirement_violations(linear_gemm_plan(DType::fp8, 2048, 3072, 1000));
  EXPECT_TRUE(mentions(odd_k, "k must be a multiple of 16, is 1000"));
  EXPECT_TRUE(mentions(odd_k, "lda (bytes) must be a multiple of 16, is 1000"));
  // cols 3080 = 16 x 192.5: m; ldd is 6160 bytes, a multiple of 16.
  const std::vector<std::string> odd_cols = fp8_requirement_violations(linear_gemm_plan(DType::fp8, 2048, 3080, 1024));
  EXPECT_TRUE(mentions(odd_cols, "m must be a multiple of 16, is 3080"));
  EXPECT_FALSE(mentions(odd_cols, "ldd"));
  EXPECT_TRUE(fp8_requirement_violations(linear_gemm_plan(DType::fp8, 2056, 3072, 1024)).empty());  // rows: n % 8
  EXPECT_TRUE(mentions(fp8_requirement_violations(linear_gemm_plan(DType::fp8, 2052, 3072, 1024)), "n must be"));
}

TEST(LtMatmulPlan, SixteenByteAlignment) {
  alignas(16) unsigned char bytes[32] = {};
  EXPECT_TRUE(is_16_byte_aligned(bytes));
  EXPECT_FALSE(is_16_byte_aligned(bytes + 4));  // the B scale one float past the A scale, as before issue 43
  EXPECT_TRUE(is_16_byte_aligned(bytes + 16));
}

}  // namespace
}  // namespace dtsim::kernels
