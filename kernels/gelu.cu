// gelu: y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) over rows x cols (the tanh
// approximation of GPT-2 / Megatron).
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
constexpr double kSqrt2OverPi = 0.7978845608028654;
constexpr double kCubic = 0.044715;

__device__ __forceinline__ float gelu(float x) {
  return 0.5f * x * (1.0f + tanhf(float(kSqrt2OverPi) * (x + float(kCubic) * x * x * x)));
}

// 16-byte packs in a grid-stride loop, then the n % V tail element by element.
template <class T>
__global__ void __launch_bounds__(kThreads) gelu_kernel(const T* __restrict__ x, T* __restrict__ y, std::int64_t n) {
  constexpr int V = kPackWidth<T>;
  const std::int64_t stride = std::int64_t(gridDim.x) * kThreads;
  const std::int64_t first = std::int64_t(blockIdx.x) * kThreads + threadIdx.x;
  for (std::int64_t p = first; p < n / V; p += stride) {
    const Pack<T, V> in = load_pack<T, V>(x + p * V);
    Pack<T, V> out;
#pragma unroll
    for (int i = 0; i < V; ++i) out.v[i] = from_float<T>(gelu(to_float(in.v[i])));
    store_pack<T, V>(y + p * V, out);
  }
  for (std::int64_t i = n / V * V + first; i < n; i += stride) y[i] = from_float<T>(gelu(to_float(x[i])));
}

class Gelu final : public OperatorBase {
 public:
  explicit Gelu(const OpShape& s)
      : OperatorBase(s),
        storage_(activation_storage(s)),
        x_(random_device_buffer(count(), kSeedInput, storage_, context_)),
        y_(count() * storage_bytes(storage_), context_) {}

  OpWork work() const override {
    const double n = static_cast<double>(count());
    return {0, 2 * n * storage_bytes(storage_), "elementwise"};  // memory-bound (no FLOPs counted); read x, write y
  }

  void run(cudaStream_t stream) override {
    with_storage_type(storage_, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const auto n = static_cast<std::int64_t>(count());
      gelu_kernel<T><<<grid_blocks(n / kPackWidth<T> + 1, kThreads), kThreads, 0, stream>>>(x_.as<const T>(), y_.as<T>(), n);
    });
    check_launch("gelu_kernel", context_);
  }

  CheckResult check() override {
    run_and_wait();
    const std::vector<double> gpu = download_values(y_, storage_, context_);
    const std::vector<float> x = random_values(count(), kSeedInput, storage_);
    std::vector<double> ref(count());
    for (std::size_t i = 0; i < ref.size(); ++i) {
      const double v = x[i];
      ref[i] = 0.5 * v * (1 + std::tanh(kSqrt2OverPi * (v + kCubic * v * v * v)));
    }
    return make_result(relative_errors(gpu, ref), elementwise_bound(shape_.dtype), "all outputs");
  }

 private:
  std::size_t count() const { return static_cast<std::size_t>(shape_.rows * shape_.cols); }

  Storage storage_;
  DeviceBuffer x_, y_;
};

}  // namespace

std::unique_ptr<Operator> make_gelu(const OpShape& s) {
  require(s.rows > 0 && s.cols > 0, s, "rows and cols must be positive");
  return std::make_unique<Gelu>(s);
}

}  // namespace dtsim::kernels
