// adam: one Adam step (step 1; lr 1e-4, betas 0.9 / 0.999, eps 1e-8, no weight decay) over `count`
// fp32 parameters. It reads weight, grad, m, v and writes the new weight, m, v to separate
// buffers (the same 16 B read and 12 B written per parameter as in place), so that repeated runs
// see the same inputs.
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
constexpr double kLr = 1e-4, kBeta1 = 0.9, kBeta2 = 0.999, kEps = 1e-8;
constexpr int kStep = 1;

struct AdamConstants {
  float lr, beta1, beta2, eps, bias_correction1, bias_correction2;
};

struct AdamState {
  const float* weight;
  const float* grad;
  const float* m;
  const float* v;
  float* weight_out;
  float* m_out;
  float* v_out;
};

__device__ __forceinline__ void adam_update(float& w, float g, float& m, float& v, const AdamConstants& k) {
  m = k.beta1 * m + (1.0f - k.beta1) * g;
  v = k.beta2 * v + (1.0f - k.beta2) * g * g;
  const float m_hat = m / k.bias_correction1, v_hat = v / k.bias_correction2;
  w -= k.lr * m_hat / (sqrtf(v_hat) + k.eps);
}

// Grid-stride over packs of V parameters (V = 4 when count allows it, else 1).
template <int V>
__global__ void __launch_bounds__(kThreads) adam_kernel(AdamState s, std::int64_t count, AdamConstants k) {
  for (std::int64_t p = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; p < count / V;
       p += std::int64_t(gridDim.x) * kThreads) {
    Pack<float, V> w = load_pack<float, V>(s.weight + p * V), m = load_pack<float, V>(s.m + p * V),
                   v = load_pack<float, V>(s.v + p * V);
    const Pack<float, V> g = load_pack<float, V>(s.grad + p * V);
#pragma unroll
    for (int i = 0; i < V; ++i) adam_update(w.v[i], g.v[i], m.v[i], v.v[i], k);
    store_pack<float, V>(s.weight_out + p * V, w);
    store_pack<float, V>(s.m_out + p * V, m);
    store_pack<float, V>(s.v_out + p * V, v);
  }
}

class Adam final : public OperatorBase {
 public:
  explicit Adam(const OpShape& s)
      : OperatorBase(s),
        weight_(random_device_buffer(n(), kSeedWeight, Storage::f32, context_)),
        grad_(random_device_buffer(n(), kSeedInput, Storage::f32, context_)),
        m_(random_device_buffer(n(), kSeedState, Storage::f32, context_)),
        v_(initial_v_buffer()),
        weight_out_(n() * 4, context_),
        m_out_(n() * 4, context_),
        v_out_(n() * 4, context_) {}

  OpWork work() const override {
    const double n = static_cast<double>(shape_.count);
    return {0, 28 * n, "optimizer"};  // memory-bound (no FLOPs counted); read weight, grad, m, v; write weight, m, v
  }

  void run(cudaStream_t stream) override {
    const AdamState state{weight_.as<const float>(), grad_.as<const float>(), m_.as<const float>(),
                          v_.as<const float>(),      weight_out_.as<float>(), m_out_.as<float>(),
                          v_out_.as<float>()};
    const AdamConstants k{float(kLr), float(kBeta1), float(kBeta2), float(kEps),
                          float(1 - std::pow(kBeta1, kStep)), float(1 - std::pow(kBeta2, kStep))};
    if (shape_.count % 4 == 0)
      adam_kernel<4><<<grid_blocks(shape_.count / 4, kThreads), kThreads, 0, stream>>>(state, shape_.count, k);
    else
      adam_kernel<1><<<grid_blocks(shape_.count, kThreads), kThreads, 0, stream>>>(state, shape_.count, k);
    check_launch("adam_kernel", context_);
  }

  CheckResult check() override {
    run_and_wait();
    const std::vector<double> weight_gpu = download_values(weight_out_, Storage::f32, context_);
    const std::vector<double> m_gpu = download_values(m_out_, Storage::f32, context_);
    const std::vector<double> v_gpu = download_values(v_out_, Storage::f32, context_);
    const std::vector<float> weight = random_values(n(), kSeedWeight, Storage::f32);
    const std::vector<float> grad = random_values(n(), kSeedInput, Storage::f32);
    const std::vector<float> m = random_values(n(), kSeedState, Storage::f32);
    const std::vector<float> v = initial_v();
    std::vector<double> weight_ref(n()), m_ref(n()), v_ref(n());
    for (std::size_t i = 0; i < n(); ++i) {
      const double g = grad[i];
      m_ref[i] = kBeta1 * m[i] + (1 - kBeta1) * g;
      v_ref[i] = kBeta2 * v[i] + (1 - kBeta2) * g * g;
      const double m_hat = m_ref[i] / (1 - std::pow(kBeta1, kStep)), v_hat = v_ref[i] / (1 - std::pow(kBeta2, kStep));
      weight_ref[i] = weight[i] - kLr * m_hat / (std::sqrt(v_hat) + kEps);
    }
    const ErrorStats errors = worst_of(relative_errors(weight_gpu, weight_ref),
                                       worst_of(relative_errors(m_gpu, m_ref), relative_errors(v_gpu, v_ref)));
    return make_result(errors, elementwise_bound(DType::fp32), "weight, m and v");
  }

 private:
  std::size_t n() const { return static_cast<std::size_t>(shape_.count); }
  // The second moment is non-negative: |uniform| in (0, 1).
  std::vector<float> initial_v() const {
    std::vector<float> v = random_values(n(), kSeedExtra, Storage::f32);
    for (float& x : v) x = std::abs(x);
    return v;
  }
  DeviceBuffer initial_v_buffer() const {
    const std::vector<float> v = initial_v();
    DeviceBuffer buffer(n() * 4, context_);
    buffer.upload(v.data(), n() * 4, context_);
    return buffer;
  }

  DeviceBuffer weight_, grad_, m_, v_, weight_out_, m_out_, v_out_;
};

}  // namespace

std::unique_ptr<Operator> make_adam(const OpShape& s) {
  require(s.count > 0, s, "count must be positive");
  require(s.dtype == DType::fp32, s, "adam updates fp32 parameters (master weights): dtype must be fp32");
  return std::make_unique<Adam>(s);
}

}  // namespace dtsim::kernels
