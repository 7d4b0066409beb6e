// softmax: y = softmax(scale * x) along each row of [rows, cols] with a causal mask; the fused
// scale-mask-softmax of unfused attention. Rows are (batch, head, query) in order and cols the keys
// of a square attention matrix, so row r is query r mod cols and sees keys 0 .. r mod cols; masked
// outputs are 0. scale = 1/sqrt(head_dim) (head_dim 64 when the shape does not give one).
#include <cmath>
#include <vector>

#include "compare.hpp"
#include "cuda_check.hpp"
#include "device_math.cuh"
#include "operator_base.hpp"
#include "operator_factories.hpp"

namespace dtsim::kernels {

namespace {

constexpr int kThreads = 256;

// Max of a row's elements and sum of exp(z - max), mergeable across threads (online softmax).
struct MaxSum {
  float max;
  float sum;
};

__device__ MaxSum merge(MaxSum a, MaxSum b) {
  if (a.max == -INFINITY) return b;  // a saw no unmasked element
  if (b.max == -INFINITY) return a;
  const float max = fmaxf(a.max, b.max);
  return {max, a.sum * expf(a.max - max) + b.sum * expf(b.max - max)};
}

__device__ MaxSum block_max_sum(MaxSum v) {
  __shared__ MaxSum partial[kThreads / 32];
  for (int offset = 16; offset > 0; offset /= 2)
    v = merge(v, {__shfl_xor_sync(0xffffffffu, v.max, offset), __shfl_xor_sync(0xffffffffu, v.sum, offset)});
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
  __syncthreads();
  MaxSum total = partial[0];
  for (int w = 1; w < kThreads / 32; ++w) total = merge(total, partial[w]);
  return total;
}

// One block per row: one pass for max and sum, one to write.
template <class T>
__global__ void __launch_bounds__(kThreads) softmax_kernel(const T* __restrict__ x, T* __restrict__ y, std::int64_t cols,
                                                           float scale) {
  const std::int64_t row = blockIdx.x;
  const std::int64_t last = row % cols;  // the last key this row's query sees
  const T* in = x + row * cols;
  T* out = y + row * cols;
  MaxSum acc{-INFINITY, 0.0f};
  for (std::int64_t c = threadIdx.x; c <= last; c += kThreads) {
    const float z = to_float(in[c]) * scale;
    if (z > acc.max) {
      acc.sum = acc.sum * expf(acc.max - z) + 1.0f;
      acc.max = z;
    } else {
      acc.sum += expf(z - acc.max);
    }
  }
  const MaxSum row_total = block_max_sum(acc);
  const float inv_sum = 1.0f / row_total.sum;
  for (std::int64_t c = threadIdx.x; c < cols; c += kThreads)
    out[c] = from_float<T>(c <= last ? expf(to_float(in[c]) * scale - row_total.max) * inv_sum : 0.0f);
}

class Softmax final : public OperatorBase {
 public:
  explicit Softmax(const OpShape& s)
      : OperatorBase(s),
        storage_(activation_storage(s)),
        scale_(1.0f / std::sqrt(static_cast<float>(s.head_dim > 0 ? s.head_dim : 64))),
        x_(random_device_buffer(count(), kSeedInput, storage_, context_)),
        y_(count() * storage_bytes(storage_), context_) {}

  OpWork work() const override {
    const double n = static_cast<double>(count());
    // Memory-bound (no FLOPs counted); read x, write y once.
    return {0, 2 * n * storage_bytes(storage_), "elementwise"};
  }

  void run(cudaStream_t stream) override {
    with_storage_type(storage_, [&](auto tag) {
      using T = typename decltype(tag)::type;
      softmax_kernel<T><<<static_cast<unsigned>(shape_.rows), kThreads, 0, stream>>>(x_.as<const T>(), y_.as<T>(),
                                                                                      shape_.cols, scale_);
    });
    check_launch("softmax_kernel", context_);
  }

  CheckResult check() override {
    run_and_wait();
    const std::vector<double> gpu = download_values(y_, storage_, context_);
    const std::vector<float> x = random_values(count(), kSeedInput, storage_);
    std::vector<double> ref(count());
    const std::int64_t cols = shape_.cols;
    for (std::int64_t r = 0; r < shape_.rows; ++r) {
      const std::int64_t last = r % cols;
      const float* in = x.data() + r * cols;
      double* out = ref.data() + r * cols;
      double max = -INFINITY, sum = 0;
      for (std::int64_t c = 0; c <= last; ++c) max = std::fmax(max, double(in[c]) * scale_);
      for (std::int64_t c = 0; c <= last; ++c) sum += std::exp(double(in[c]) * scale_ - max);
      for (std::int64_t c = 0; c < cols; ++c) out[c] = c <= last ? std::exp(double(in[c]) * scale_ - max) / sum : 0.0;
    }
    return make_result(relative_errors(gpu, ref), elementwise_bound(shape_.dtype), "all outputs");
  }

 private:
  std::size_t count() const { return static_cast<std::size_t>(shape_.rows * shape_.cols); }

  Storage storage_;
  float scale_;
  DeviceBuffer x_, y_;
};

}  // namespace

std::unique_ptr<Operator> make_softmax(const OpShape& s) {
  require(s.rows > 0 && s.cols > 0, s, "rows and cols must be positive");
  require(s.rows < (std::int64_t(1) << 31), s, "rows must be below 2^31 (one block per row)");
  return std::make_unique<Softmax>(s);
}

}  // namespace dtsim::kernels
