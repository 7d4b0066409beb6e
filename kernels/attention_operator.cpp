// attention_scores and attention_values: the batched GEMMs of unfused attention on cuBLASLt
// (strided batch), batch = micro-batch x heads matrices, row-major:
//   scores: S[b] = Q[b] K[b]^T, Q and K [seq, head_dim], S [seq, seq]
//   values: O[b] = P[b] V[b],   P [seq, seq], V [seq, head_dim], O [seq, head_dim]
// fp32, tf32, fp16, bf16 (fp8 recipes keep attention in bf16).
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

constexpr int kSampledOutputs = 256;

cudaDataType_t cuda_type(Storage s) {
  switch (s) {
    case Storage::f32: return CUDA_R_32F;
    case Storage::f16: return CUDA_R_16F;
    case Storage::bf16: return CUDA_R_16BF;
    case Storage::e4m3: return CUDA_R_8F_E4M3;
  }
  throw std::logic_error("cuda_type: unknown storage");
}

class Attention final : public OperatorBase {
 public:
  explicit Attention(const OpShape& s)
      : OperatorBase(s),
        scores_(s.op == "attention_scores"),
        storage_(activation_storage(s)),
        left_(random_device_buffer(left_size(), kSeedInput, storage_, context_)),
        right_(random_device_buffer(right_size(), kSeedWeight, storage_, context_)),
        out_(out_size() * storage_bytes(storage_), context_),
        matmul_(spec(), context_) {}

  OpWork work() const override {
    const double b = shape_.batch, s = shape_.seq, d = shape_.head_dim;
    return {2 * b * s * s * d, b * (2 * s * d + s * s) * storage_bytes(storage_), "attention_gemm"};
  }

  // cuBLASLt's A is the right operand (K or V), its B the left one (Q or P): see spec().
  void run(cudaStream_t stream) override { matmul_.run(right_.get(), left_.get(), out_.get(), stream); }

  CheckResult check() override {
    run_and_wait();
    const auto seq = static_cast<std::size_t>(shape_.seq), dim = static_cast<std::size_t>(shape_.head_dim);
    const std::size_t cols = scores_ ? seq : dim;  // of one output matrix
    const auto outputs = static_cast<std::int64_t>(static_cast<std::size_t>(shape_.batch) * seq * cols);
    const bool all = outputs <= kSampledOutputs;
    std::mt19937_64 pick(0xA77E);
    std::uniform_int_distribution<std::int64_t> any(0, outputs - 1);
    std::vector<double> gpu, ref;
    // Each output needs one row of Q and of K, or one row of P and one matrix of V, regenerated
    // alone, and one element of the output, copied back alone.
    for (std::int64_t s = 0; s < (all ? outputs : kSampledOutputs); ++s) {
      const auto index = static_cast<std::size_t>(all ? s : any(pick));
      const std::size_t b = index / (seq * cols), i = index / cols % seq, j = index % cols;
      double sum = 0;
      if (scores_) {  // sum over head_dim of Q[b, i, l] K[b, j, l]
        const std::vector<float> q = random_values(dim, kSeedInput, storage_, 1.0f, (b * seq + i) * dim);
        const std::vector<float> k = random_values(dim, kSeedWeight, storage_, 1.0f, (b * seq + j) * dim);
        for (std::size_t l = 0; l < dim; ++l) sum += double(q[l]) * k[l];
      } else {  // sum over keys of P[b, i, l] V[b, l, j]
        const std::vector<float> p = random_values(seq, kSeedInput, storage_, 1.0f, (b * seq + i) * seq);
        const std::vector<float> v = random_values(seq * dim, kSeedWeight, storage_, 1.0f, b * seq * dim);
        for (std::size_t l = 0; l < seq; ++l) sum += double(p[l]) * v[l * dim + j];
      }
      ref.push_back(sum);
      gpu.push_back(download_value(out_, index, storage_, context_));
    }
    return make_result(relative_errors(gpu, ref), gemm_bound(shape_.dtype, scores_ ? shape_.head_dim : shape_.seq),
                       all ? "all outputs" : "a random sample of the outputs");
  }

 private:
  std::size_t matrices(std::int64_t rows, std::int64_t cols) const {
    return static_cast<std::size_t>(shape_.batch * rows * cols);
  }
  std::size_t left_size() const { return matrices(shape_.seq, scores_ ? shape_.head_dim : shape_.seq); }  // Q or P
  std::size_t right_size() const { return matrices(shape_.seq, shape_.head_dim); }                      // K or V
  std::size_t out_size() const { return matrices(shape_.seq, scores_ ? shape_.seq : shape_.head_dim); }  // S or O

  // Row-major X[r, c] is column-major X^T with leading dimension c.
  //   scores: S^T[keys, queries] = op_T(K^T stored [d, keys]) op_N(Q^T stored [d, queries])
  //   values: O^T[d, queries]    = op_N(V^T stored [d, keys]) op_N(P^T stored [keys, queries])
  MatmulSpec spec() const {
    const std::int64_t seq = shape_.seq, dim = shape_.head_dim;
    MatmulSpec s;
    s.ab_type = s.cd_type = cuda_type(storage_);
    s.compute = shape_.dtype == DType::tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    s.batch = shape_.batch;
    if (scores_) {
      s.transpose_a = true;
      s.m = seq, s.n = seq, s.k = dim;
      s.lda = dim, s.ldb = dim, s.ldd = seq;
      s.stride_a = seq * dim, s.stride_b = seq * dim, s.stride_d = seq * seq;
    } else {
      s.m = dim, s.n = seq, s.k = seq;
      s.lda = dim, s.ldb = seq, s.ldd = dim;
      s.stride_a = seq * dim, s.stride_b = seq * seq, s.stride_d = seq * dim;
    }
    return s;
  }

  bool scores_;
  Storage storage_;
  DeviceBuffer left_, right_, out_;
  LtMatmul matmul_;
};

}  // namespace

std::unique_ptr<Operator> make_attention(const OpShape& s) {
  require(s.batch > 0 && s.seq > 0 && s.head_dim > 0, s, "batch, seq and head_dim must be positive");
  require(s.batch < (std::int64_t(1) << 31), s, "batch must be below 2^31 (cuBLASLt batch count)");
  return std::make_unique<Attention>(s);
}

}  // namespace dtsim::kernels
