// swiglu: y = silu(a) * b with silu(a) = a / (1 + exp(-a)); the input is the MLP up-projection's
// output [rows, 2 * cols], gate a in its first cols columns and b in the last (Megatron's layout),
// the output [rows, cols].
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

__device__ __forceinline__ float swiglu(float a, float b) { return a / (1.0f + expf(-a)) * b; }

// Grid-stride over packs of V outputs; V = 16 bytes of T when cols allows it, else 1.
template <class T, int V>
__global__ void __launch_bounds__(kThreads)
    swiglu_kernel(const T* __restrict__ x, T* __restrict__ y, std::int64_t rows, std::int64_t cols) {
  const std::int64_t packs = rows * cols / V;
  for (std::int64_t p = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; p < packs;
       p += std::int64_t(gridDim.x) * kThreads) {
    const std::int64_t row = p * V / cols, col = p * V % cols;
    const Pack<T, V> a = load_pack<T, V>(x + row * 2 * cols + col);
    const Pack<T, V> b = load_pack<T, V>(x + row * 2 * cols + cols + col);
    Pack<T, V> out;
#pragma unroll
    for (int i = 0; i < V; ++i) out.v[i] = from_float<T>(swiglu(to_float(a.v[i]), to_float(b.v[i])));
    store_pack<T, V>(y + p * V, out);
  }
}

class SwiGlu final : public OperatorBase {
 public:
  explicit SwiGlu(const OpShape& s)
      : OperatorBase(s),
        storage_(activation_storage(s)),
        x_(random_device_buffer(2 * count(), kSeedInput, storage_, context_)),
        y_(count() * storage_bytes(storage_), context_) {}

  OpWork work() const override {
    const double n = static_cast<double>(count());
    return {0, 3 * n * storage_bytes(storage_), "elementwise"};  // memory-bound (no FLOPs counted); read a, b, write y
  }

  void run(cudaStream_t stream) override {
    with_storage_type(storage_, [&](auto tag) {
      using T = typename decltype(tag)::type;
      constexpr int V = kPackWidth<T>;
      const auto n = static_cast<std::int64_t>(count());
      if (shape_.cols % V == 0)
        swiglu_kernel<T, V><<<grid_blocks(n / V, kThreads), kThreads, 0, stream>>>(x_.as<const T>(), y_.as<T>(),
                                                                                  shape_.rows, shape_.cols);
      else
        swiglu_kernel<T, 1><<<grid_blocks(n, kThreads), kThreads, 0, stream>>>(x_.as<const T>(), y_.as<T>(),
                                                                              shape_.rows, shape_.cols);
    });
    check_launch("swiglu_kernel", context_);
  }

  CheckResult check() override {
    run_and_wait();
    const std::vector<double> gpu = download_values(y_, storage_, context_);
    const std::vector<float> x = random_values(2 * count(), kSeedInput, storage_);
    std::vector<double> ref(count());
    const std::int64_t cols = shape_.cols;
    for (std::int64_t r = 0; r < shape_.rows; ++r)
      for (std::int64_t c = 0; c < cols; ++c) {
        const double a = x[r * 2 * cols + c], b = x[r * 2 * cols + cols + c];
        ref[r * cols + c] = a / (1 + std::exp(-a)) * b;
      }
    return make_result(relative_errors(gpu, ref), elementwise_bound(shape_.dtype), "all outputs");
  }

 private:
  std::size_t count() const { return static_cast<std::size_t>(shape_.rows * shape_.cols); }

  Storage storage_;
  DeviceBuffer x_, y_;
};

}  // namespace

std::unique_ptr<Operator> make_swiglu(const OpShape& s) {
  require(s.rows > 0 && s.cols > 0, s, "rows and cols must be positive");
  return std::make_unique<SwiGlu>(s);
}

}  // namespace dtsim::kernels
