#include "lt_matmul_plan.hpp"

#include <cstdint>

namespace dtsim::kernels {

std::size_t type_bytes(LtType t) {
  switch (t) {
    case LtType::f32: return 4;
    case LtType::f16:
    case LtType::bf16: return 2;
    case LtType::e4m3: return 1;
  }
  return 0;
}

LtMatmulPlan linear_gemm_plan(DType dtype, std::int64_t rows, std::int64_t cols, std::int64_t k) {
  LtMatmulPlan p;
  switch (dtype) {
    case DType::fp32: p.ab = p.cd = LtType::f32; break;
    case DType::tf32: p.ab = p.cd = LtType::f32, p.compute = LtCompute::f32_fast_tf32; break;
    case DType::fp16: p.ab = p.cd = LtType::f16; break;
    case DType::bf16: p.ab = p.cd = LtType::bf16; break;
    case DType::fp8: p.ab = LtType::e4m3, p.cd = LtType::bf16, p.ab_scales = true; break;
  }
  p.transpose_a = true;
  p.transpose_b = false;
  p.m = cols, p.n = rows, p.k = k;
  p.lda = k, p.ldb = k, p.ldd = cols;
  return p;
}

std::vector<std::string> fp8_requirement_violations(const LtMatmulPlan& p) {
  std::vector<std::string> broken;
  if (p.ab != LtType::e4m3) return broken;
  if (!p.transpose_a || p.transpose_b) broken.push_back("A must be transposed and B not (the \"TN\" layout)");
  if (p.compute != LtCompute::f32) broken.push_back("the compute type must be CUBLAS_COMPUTE_32F");
  if (p.scale != LtType::f32) broken.push_back("the scale type must be CUDA_R_32F");
  if (p.cd == LtType::e4m3) broken.push_back("an fp8 D needs a D scale: C and D must be bf16, fp16 or fp32 here");
  const auto multiple = [&](const char* what, std::int64_t value, std::int64_t of) {
    if (value <= 0 || value % of != 0)
      broken.push_back(std::string(what) + " must be a multiple of " + std::to_string(of) + ", is " +
                       std::to_string(value));
  };
  multiple("m", p.m, 16);
  multiple("k", p.k, 16);
  multiple("n", p.n, 8);
  multiple("lda (bytes)", p.lda * std::int64_t(type_bytes(p.ab)), 16);
  multiple("ldb (bytes)", p.ldb * std::int64_t(type_bytes(p.ab)), 16);
  multiple("ldd (bytes)", p.ldd * std::int64_t(type_bytes(p.cd)), 16);
  return broken;
}

bool is_16_byte_aligned(const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0; }

}  // namespace dtsim::kernels
