// gemm: C[m, n] = A[m, k] B[k, n] on cuBLASLt, row-major, with B stored as its transpose
// W[n, k] (the nn.Linear weight layout). That makes every dtype the "TN" problem cuBLASLt's fp8
// kernels require on Ada / Hopper (A transposed, B not, in its column-major terms); the work is
// that of the interface's C = A B. The layout and types are linear_gemm_plan's
// (lt_matmul_plan.hpp), which the CPU tests check.
//   fp32: fp32 in/out, fp32 compute; tf32: the same on TF32 tensor cores; fp16 / bf16: 16-bit
//   in/out with fp32 accumulation; fp8: e4m3 A and B with fp32 per-tensor scales, bf16 out.
#include <random>
#include <stdexcept>
#include <vector>

#include "compare.hpp"
#include "cuda_check.hpp"
#include "lt_matmul.hpp"
#include "lt_matmul_plan.hpp"
#include "operator_base.hpp"
#include "operator_factories.hpp"

namespace dtsim::kernels {

namespace {

// fp8 inputs hold 16x their value (range +-16 of e4m3's +-448, clear of its subnormals below
// 2^-6) and cuBLASLt multiplies by 1/16 per operand: checks that the scale pointers are used.
constexpr float kFp8Scale = 16.0f;
constexpr int kSampledOutputs = 256;

Storage storage_of(LtType t) {
  switch (t) {
    case LtType::f32: return Storage::f32;
    case LtType::f16: return Storage::f16;
    case LtType::bf16: return Storage::bf16;
    case LtType::e4m3: return Storage::e4m3;
  }
  throw std::logic_error("storage_of: unknown type");
}

cudaDataType_t cuda_type_of(LtType t) {
  switch (t) {
    case LtType::f32: return CUDA_R_32F;
    case LtType::f16: return CUDA_R_16F;
    case LtType::bf16: return CUDA_R_16BF;
    case LtType::e4m3: return CUDA_R_8F_E4M3;
  }
  throw std::logic_error("cuda_type_of: unknown type");
}

// One fp32 scale in an allocation of its own: cudaMalloc's 256-byte alignment, as the scale
// tensors PyTorch and Transformer Engine hand to cuBLASLt.
DeviceBuffer scale_buffer(float value, const std::string& context) {
  DeviceBuffer b(sizeof(float), context);
  b.upload(&value, sizeof value, context);
  return b;
}

class Gemm final : public OperatorBase {
 public:
  explicit Gemm(const OpShape& s)
      : OperatorBase(s),
        plan_(linear_gemm_plan(s.dtype, s.m, s.n, s.k)),
        in_(storage_of(plan_.ab)),
        out_(storage_of(plan_.cd)),
        input_scale_(plan_.ab_scales ? kFp8Scale : 1.0f),
        a_(random_device_buffer(size(s.m, s.k), kSeedInput, in_, context_, input_scale_)),
        w_(random_device_buffer(size(s.n, s.k), kSeedWeight, in_, context_, input_scale_)),
        c_(size(s.m, s.n) * storage_bytes(out_), context_),
        a_scale_(plan_.ab_scales ? scale_buffer(1 / kFp8Scale, context_) : DeviceBuffer()),
        b_scale_(plan_.ab_scales ? scale_buffer(1 / kFp8Scale, context_) : DeviceBuffer()),
        matmul_(spec(), context_) {}

  OpWork work() const override {
    const double m = shape_.m, n = shape_.n, k = shape_.k;
    return {2 * m * n * k, (m * k + n * k) * storage_bytes(in_) + m * n * storage_bytes(out_), "gemm"};
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
      const std::vector<float> a = random_values(k, kSeedInput, in_, input_scale_, i * k);
      const std::vector<float> w = random_values(k, kSeedWeight, in_, input_scale_, j * k);
      double sum = 0;
      for (std::size_t l = 0; l < k; ++l) sum += double(a[l]) * w[l];
      ref.push_back(sum * dequantise);
      gpu.push_back(download_value(c_, static_cast<std::size_t>(index), out_, context_));
    }
    return make_result(relative_errors(gpu, ref), gemm_bound(shape_.dtype, shape_.k),
                       all ? "all outputs" : "a random sample of the outputs");
  }

 private:
  static std::size_t size(std::int64_t rows, std::int64_t cols) { return static_cast<std::size_t>(rows * cols); }

  // W is cuBLASLt's A (transposed), the input its B: plan_ (linear_gemm_plan).
  MatmulSpec spec() const {
    MatmulSpec s;
    s.ab_type = cuda_type_of(plan_.ab);
    s.cd_type = cuda_type_of(plan_.cd);
    s.compute = plan_.compute == LtCompute::f32_fast_tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    s.transpose_a = plan_.transpose_a;
    s.transpose_b = plan_.transpose_b;
    s.m = plan_.m, s.n = plan_.n, s.k = plan_.k;
    s.lda = plan_.lda, s.ldb = plan_.ldb, s.ldd = plan_.ldd;
    if (plan_.ab_scales) {
      s.a_scale = a_scale_.as<const float>();
      s.b_scale = b_scale_.as<const float>();
    }
    return s;
  }

  LtMatmulPlan plan_;
  Storage in_, out_;
  float input_scale_;
  DeviceBuffer a_, w_, c_, a_scale_, b_scale_;
  LtMatmul matmul_;
};

}  // namespace

std::unique_ptr<Operator> make_gemm(const OpShape& s) {
  require(s.m > 0 && s.n > 0 && s.k > 0, s, "m, n and k must be positive");
  if (s.dtype == DType::fp8) {
    const int capability = device_compute_capability(describe(s));
    if (capability < 89)
      throw Unsupported(describe(s), "fp8 GEMMs need compute capability 8.9 or newer, this GPU has " +
                                         std::to_string(capability / 10) + "." + std::to_string(capability % 10));
    const std::vector<std::string> broken = fp8_requirement_violations(linear_gemm_plan(s.dtype, s.m, s.n, s.k));
    if (!broken.empty()) throw Unsupported(describe(s), "cuBLASLt's FP8 rules: " + broken.front());
  }
  return std::make_unique<Gemm>(s);
}

}  // namespace dtsim::kernels
