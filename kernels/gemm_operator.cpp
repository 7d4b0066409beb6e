// gemm: C[m, n] = A[m, k] B[k, n] on cuBLASLt, row-major, with B stored as its transpose
// W[n, k] (the nn.Linear weight layout). That makes every dtype the "TN" problem cuBLASLt's fp8
// kernels require on Ada / Hopper (A transposed, B not, in its column-major terms); the work is
// that of the interface's C = A B.
//   fp32: fp32 in/out, fp32 compute; tf32: the same on TF32 tensor cores; fp16 / bf16: 16-bit
//   in/out with fp32 accumulation; fp8: e4m3 A and B with fp32 per-tensor scales, bf16 out.
#include <random>
#include <stdexcept>
#include <vector>

#include "compare.hpp"
#include "cuda_check.hpp"
#include "lt_matmul.hpp"
#include "operator_base.hpp"
#include "operator_factories.hpp"

namespace dtsim::kernels {

namespace {

// fp8 inputs hold 16x their value (range +-16 of e4m3's +-448, clear of its subnormals below
// 2^-6) and cuBLASLt multiplies by 1/16 per operand: checks that the scale pointers are used.
constexpr float kFp8Scale = 16.0f;
constexpr int kSampledOutputs = 256;

struct GemmTypes {
  Storage in, out;
  cudaDataType_t in_cuda, out_cuda;
  cublasComputeType_t compute;
};

GemmTypes gemm_types(DType d) {
  switch (d) {
    case DType::fp32: return {Storage::f32, Storage::f32, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F};
    case DType::tf32: return {Storage::f32, Storage::f32, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32};
    case DType::fp16: return {Storage::f16, Storage::f16, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F};
    case DType::bf16: return {Storage::bf16, Storage::bf16, CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F};
    case DType::fp8: return {Storage::e4m3, Storage::bf16, CUDA_R_8F_E4M3, CUDA_R_16BF, CUBLAS_COMPUTE_32F};
  }
  throw std::logic_error("gemm_types: unknown dtype");
}

class Gemm final : public OperatorBase {
 public:
  explicit Gemm(const OpShape& s)
      : OperatorBase(s),
        types_(gemm_types(s.dtype)),
        input_scale_(s.dtype == DType::fp8 ? kFp8Scale : 1.0f),
        a_(random_device_buffer(size(s.m, s.k), kSeedInput, types_.in, context_, input_scale_)),
        w_(random_device_buffer(size(s.n, s.k), kSeedWeight, types_.in, context_, input_scale_)),
        c_(size(s.m, s.n) * storage_bytes(types_.out), context_),
        scales_(2 * sizeof(float), context_),
        matmul_(spec(), context_) {}

  OpWork work() const override {
    const double m = shape_.m, n = shape_.n, k = shape_.k;
    return {2 * m * n * k, (m * k + n * k) * storage_bytes(types_.in) + m * n * storage_bytes(types_.out), "gemm"};
  }

  void run(cudaStream_t stream) override { matmul_.run(w_.get(), a_.get(), c_.get(), stream); }

  CheckResult check() override {
    run_and_wait();
    const double dequantise = 1.0 / (double(input_scale_) * input_scale_);
    const auto k = static_cast<std::size_t>(shape_.k);

    // All outputs of a small GEMM, else a fixed random sample of them; each needs one row of A
    // and one of W, regenerated alone, and one element of C, copied back alone.
    const std::int64_t outputs = shape_.m * shape_.n;
    const bool all = outputs <= kSampledOutputs;
    std::mt19937_64 pick(0x6E77);
    std::uniform_int_distribution<std::int64_t> any(0, outputs - 1);
    std::vector<double> gpu, ref;
    for (std::int64_t s = 0; s < (all ? outputs : kSampledOutputs); ++s) {
      const std::int64_t index = all ? s : any(pick);
      const auto i = static_cast<std::size_t>(index / shape_.n), j = static_cast<std::size_t>(index % shape_.n);
      const std::vector<float> a = random_values(k, kSeedInput, types_.in, input_scale_, i * k);
      const std::vector<float> w = random_values(k, kSeedWeight, types_.in, input_scale_, j * k);
      double sum = 0;
      for (std::size_t l = 0; l < k; ++l) sum += double(a[l]) * w[l];
      ref.push_back(sum * dequantise);
      gpu.push_back(download_value(c_, static_cast<std::size_t>(index), types_.out, context_));
    }
    return make_result(relative_errors(gpu, ref), gemm_bound(shape_.dtype, shape_.k),
                       all ? "all outputs" : "a random sample of the outputs");
  }

 private:
  static std::size_t size(std::int64_t rows, std::int64_t cols) { return static_cast<std::size_t>(rows * cols); }

  // Row-major C[m, n] = A[m, k] W[n, k]^T is column-major C^T[n, m] = op_T(W^T stored k x n)
  // op_N(A^T stored k x m): cuBLASLt's m = n, n = m, A = W transposed, B = A.
  MatmulSpec spec() {
    MatmulSpec s;
    s.ab_type = types_.in_cuda;
    s.cd_type = types_.out_cuda;
    s.compute = types_.compute;
    s.transpose_a = true;
    s.transpose_b = false;
    s.m = shape_.n, s.n = shape_.m, s.k = shape_.k;
    s.lda = shape_.k, s.ldb = shape_.k, s.ldd = shape_.n;
    if (shape_.dtype == DType::fp8) {
      const float inverse[2] = {1 / kFp8Scale, 1 / kFp8Scale};
      scales_.upload(inverse, sizeof inverse, context_);
      s.a_scale = scales_.as<const float>();
      s.b_scale = scales_.as<const float>() + 1;
    }
    return s;
  }

  GemmTypes types_;
  float input_scale_;
  DeviceBuffer a_, w_, c_, scales_;
  LtMatmul matmul_;
};

}  // namespace

std::unique_ptr<Operator> make_gemm(const OpShape& s) {
  require(s.m > 0 && s.n > 0 && s.k > 0, s, "m, n and k must be positive");
  if (s.dtype == DType::fp8) {
    require(device_compute_capability(describe(s)) >= 89, s, "fp8 GEMMs need compute capability 8.9 or newer");
    // 16-byte aligned leading dimensions: k for the e4m3 operands, n for the bf16 output.
    require(s.k % 16 == 0 && s.n % 16 == 0, s, "fp8 GEMMs need k and n to be multiples of 16");
  }
  return std::make_unique<Gemm>(s);
}

}  // namespace dtsim::kernels
