// dropout: y = x * mask / (1 - p), p = 0.1, over rows x cols, also writing the 1-byte mask (what
// backward reads). The mask comes from Philox4x32-10 (philox.hpp), keyed by a fixed seed, so the
// CPU reference recomputes it exactly.
#include <vector>

#include "compare.hpp"
#include "cuda_check.hpp"
#include "device_math.cuh"
#include "operator_base.hpp"
#include "operator_factories.hpp"
#include "philox.hpp"

namespace dtsim::kernels {

namespace {

constexpr int kThreads = 256;
constexpr double kDropProbability = 0.1;
constexpr std::uint64_t kMaskSeed = 0x5EED0D0Bull;

// One Philox call per group of 4 consecutive elements; the last group may be partial.
template <class T>
__global__ void __launch_bounds__(kThreads)
    dropout_kernel(const T* __restrict__ x, T* __restrict__ y, std::uint8_t* __restrict__ mask, std::int64_t n,
                   std::uint64_t seed, std::uint32_t threshold, float keep_scale) {
  const std::int64_t groups = (n + 3) / 4;
  for (std::int64_t g = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; g < groups;
       g += std::int64_t(gridDim.x) * kThreads) {
    const Philox4 r = philox4x32_10(static_cast<std::uint64_t>(g), seed);
    const std::int64_t i0 = 4 * g;
    if (i0 + 4 <= n) {
      const Pack<T, 4> in = load_pack<T, 4>(x + i0);
      Pack<T, 4> out;
      Pack<std::uint8_t, 4> keep;
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        keep.v[j] = r.word[j] >= threshold;
        out.v[j] = from_float<T>(keep.v[j] ? to_float(in.v[j]) * keep_scale : 0.0f);
      }
      store_pack<T, 4>(y + i0, out);
      store_pack<std::uint8_t, 4>(mask + i0, keep);
    } else {
      for (int j = 0; i0 + j < n; ++j) {
        const bool keep = r.word[j] >= threshold;
        mask[i0 + j] = keep;
        y[i0 + j] = from_float<T>(keep ? to_float(x[i0 + j]) * keep_scale : 0.0f);
      }
    }
  }
}

class Dropout final : public OperatorBase {
 public:
  explicit Dropout(const OpShape& s)
      : OperatorBase(s),
        storage_(activation_storage(s)),
        x_(random_device_buffer(count(), kSeedInput, storage_, context_)),
        y_(count() * storage_bytes(storage_), context_),
        mask_(count(), context_) {}

  OpWork work() const override {
    const double n = static_cast<double>(count());
    // Memory-bound (no FLOPs counted); read x, write y and the mask.
    return {0, n * (2 * storage_bytes(storage_) + 1), "elementwise"};
  }

  void run(cudaStream_t stream) override {
    with_storage_type(storage_, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const auto n = static_cast<std::int64_t>(count());
      dropout_kernel<T><<<grid_blocks((n + 3) / 4, kThreads), kThreads, 0, stream>>>(
          x_.as<const T>(), y_.as<T>(), mask_.as<std::uint8_t>(), n, kMaskSeed, dropout_threshold(kDropProbability),
          static_cast<float>(1 / (1 - kDropProbability)));
    });
    check_launch("dropout_kernel", context_);
  }

  CheckResult check() override {
    run_and_wait();
    const std::vector<double> gpu = download_values(y_, storage_, context_);
    std::vector<std::uint8_t> gpu_mask(count());
    mask_.download(gpu_mask.data(), gpu_mask.size(), context_);
    const std::vector<float> x = random_values(count(), kSeedInput, storage_);
    const std::uint32_t threshold = dropout_threshold(kDropProbability);
    std::vector<double> ref(count());
    std::size_t mask_mismatches = 0, kept = 0;
    for (std::size_t i = 0; i < ref.size(); ++i) {
      const bool keep = philox4x32_10(i / 4, kMaskSeed).word[i % 4] >= threshold;
      ref[i] = keep ? x[i] / (1 - kDropProbability) : 0.0;
      mask_mismatches += (gpu_mask[i] != 0) != keep;
      kept += keep;
    }
    CheckResult result = make_result(relative_errors(gpu, ref), elementwise_bound(shape_.dtype), "all outputs");
    result.detail += "; mask: " + std::to_string(mask_mismatches) + " mismatches, kept " +
                     std::to_string(100.0 * kept / ref.size()).substr(0, 5) + "%";
    result.passed = result.passed && mask_mismatches == 0;
    return result;
  }

 private:
  std::size_t count() const { return static_cast<std::size_t>(shape_.rows * shape_.cols); }

  Storage storage_;
  DeviceBuffer x_, y_, mask_;
};

}  // namespace

std::unique_ptr<Operator> make_dropout(const OpShape& s) {
  require(s.rows > 0 && s.cols > 0, s, "rows and cols must be positive");
  return std::make_unique<Dropout>(s);
}

}  // namespace dtsim::kernels
