// rmsnorm: y = x / sqrt(mean(x^2) + eps) * gamma over each row of [rows, cols] (eps 1e-5, as
// Llama 2); gamma is [cols] in the activation dtype.
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
constexpr float kEps = 1e-5f;

// One block per row.
template <class T>
__global__ void __launch_bounds__(kThreads)
    rmsnorm_kernel(const T* __restrict__ x, const T* __restrict__ gamma, T* __restrict__ y, std::int64_t cols) {
  const T* in = x + blockIdx.x * cols;
  T* out = y + blockIdx.x * cols;
  float squares = 0;
  for (std::int64_t c = threadIdx.x; c < cols; c += kThreads) {
    const float v = to_float(in[c]);
    squares += v * v;
  }
  const float rrms = rsqrtf(block_sum<kThreads>(squares) / static_cast<float>(cols) + kEps);
  for (std::int64_t c = threadIdx.x; c < cols; c += kThreads)
    out[c] = from_float<T>(to_float(in[c]) * rrms * to_float(gamma[c]));
}

class RmsNorm final : public OperatorBase {
 public:
  explicit RmsNorm(const OpShape& s)
      : OperatorBase(s),
        storage_(activation_storage(s)),
        x_(random_device_buffer(count(), kSeedInput, storage_, context_)),
        gamma_(random_device_buffer(shape_.cols, kSeedWeight, storage_, context_)),
        y_(count() * storage_bytes(storage_), context_) {}

  OpWork work() const override {
    const double n = static_cast<double>(count()), e = storage_bytes(storage_);
    // Memory-bound (no FLOPs counted); read x, write y, read gamma once.
    return {0, (2 * n + shape_.cols) * e, "elementwise"};
  }

  void run(cudaStream_t stream) override {
    with_storage_type(storage_, [&](auto tag) {
      using T = typename decltype(tag)::type;
      rmsnorm_kernel<T><<<static_cast<unsigned>(shape_.rows), kThreads, 0, stream>>>(x_.as<const T>(), gamma_.as<const T>(),
                                                                                      y_.as<T>(), shape_.cols);
    });
    check_launch("rmsnorm_kernel", context_);
  }

  CheckResult check() override {
    run_and_wait();
    const std::vector<double> gpu = download_values(y_, storage_, context_);
    const std::vector<float> x = random_values(count(), kSeedInput, storage_);
    const std::vector<float> gamma = random_values(shape_.cols, kSeedWeight, storage_);
    std::vector<double> ref(count());
    const std::int64_t cols = shape_.cols;
    for (std::int64_t r = 0; r < shape_.rows; ++r) {
      const float* in = x.data() + r * cols;
      double squares = 0;
      for (std::int64_t c = 0; c < cols; ++c) squares += double(in[c]) * in[c];
      const double rrms = 1 / std::sqrt(squares / cols + kEps);
      for (std::int64_t c = 0; c < cols; ++c) ref[r * cols + c] = in[c] * rrms * gamma[c];
    }
    return make_result(relative_errors(gpu, ref), elementwise_bound(shape_.dtype), "all outputs");
  }

 private:
  std::size_t count() const { return static_cast<std::size_t>(shape_.rows * shape_.cols); }

  Storage storage_;
  DeviceBuffer x_, gamma_, y_;
};

}  // namespace

std::unique_ptr<Operator> make_rmsnorm(const OpShape& s) {
  require(s.rows > 0 && s.cols > 0, s, "rows and cols must be positive");
  require(s.rows < (std::int64_t(1) << 31), s, "rows must be below 2^31 (one block per row)");
  return std::make_unique<RmsNorm>(s);
}

}  // namespace dtsim::kernels
