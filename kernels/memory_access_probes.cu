// access_* operators: kernels that move memory the way PyTorch's element-wise kernels do, one for
// each memory access pattern the simulator prices at a measured share of HBM bandwidth
// (sim/hardware/memory_access.hpp), so that the profiler measures those shares on any GPU. Shapes
// are rows x cols elements (the activations of `rows` tokens), in the bf16 of autocast:
//   access_streaming  c = a + b, bf16; 16-byte loads and stores in a grid-stride loop
//                     (PyTorch's vectorized_elementwise_kernel): 6 B per element
//   access_unrolled   y = float(x), bf16 -> fp32; 128 threads a block, each 4 elements 128 apart,
//                     one scalar load and store each (PyTorch's unrolled_elementwise_kernel, which
//                     its dtype-converting copies run): 6 B per element
//   access_promoting  y = a + float(b), fp32 + bf16 -> fp32, the same unrolled loop (the residual
//                     add of a bf16 branch into the fp32 stream): 10 B per element
//   access_strided    y = x permuted from [rows, cols / 64, 64] to [cols / 64, rows, 64], bf16: the
//                     head-major copies of attention's inputs and outputs (head dim 64), each thread
//                     4 outputs, its reads 64 elements apart in runs (PyTorch's elementwise_kernel
//                     with an offset calculator): 4 B per element
//   access_fill       y = 0, fp32; 16-byte stores (PyTorch's FillFunctor): 4 B per element
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "compare.hpp"
#include "cuda_check.hpp"
#include "device_math.cuh"
#include "operator_base.hpp"
#include "operator_factories.hpp"

namespace dtsim::kernels {

namespace {

using bf16 = __nv_bfloat16;

constexpr int kThreads = 128;       // PyTorch's element-wise kernels: 128 threads a block
constexpr int kThreadWork = 4;      // ... and 4 elements a thread in the unrolled and offset loops
constexpr int kBlockWork = kThreads * kThreadWork;
constexpr int kHeadDim = 64;        // access_strided's contiguous runs

__global__ void __launch_bounds__(kThreads)
    streaming_add(const bf16* __restrict__ a, const bf16* __restrict__ b, bf16* __restrict__ c, std::int64_t n) {
  constexpr int V = kPackWidth<bf16>;
  for (std::int64_t p = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; p < n / V;
       p += std::int64_t(gridDim.x) * kThreads) {
    const Pack<bf16, V> x = load_pack<bf16, V>(a + p * V), y = load_pack<bf16, V>(b + p * V);
    Pack<bf16, V> out;
#pragma unroll
    for (int i = 0; i < V; ++i) out.v[i] = from_float<bf16>(to_float(x.v[i]) + to_float(y.v[i]));
    store_pack<bf16, V>(c + p * V, out);
  }
}

// `b` may be null (the cast alone).
__global__ void __launch_bounds__(kThreads)
    unrolled_promote(const float* __restrict__ a, const bf16* __restrict__ b, float* __restrict__ y, std::int64_t n) {
  const std::int64_t base = std::int64_t(blockIdx.x) * kBlockWork + threadIdx.x;
  float v[kThreadWork];
#pragma unroll
  for (int j = 0; j < kThreadWork; ++j) {
    const std::int64_t i = base + j * kThreads;
    if (i < n) v[j] = (a ? a[i] : 0.0f) + to_float(b[i]);
  }
#pragma unroll
  for (int j = 0; j < kThreadWork; ++j) {
    const std::int64_t i = base + j * kThreads;
    if (i < n) y[i] = v[j];
  }
}

// Output element i of [heads, rows, 64] reads input [rows, heads, 64].
__global__ void __launch_bounds__(kThreads)
    strided_permute(const bf16* __restrict__ x, bf16* __restrict__ y, std::int64_t rows, std::int64_t heads) {
  const std::int64_t n = rows * heads * kHeadDim;
  const std::int64_t base = std::int64_t(blockIdx.x) * kBlockWork + threadIdx.x;
#pragma unroll
  for (int j = 0; j < kThreadWork; ++j) {
    const std::int64_t i = base + j * kThreads;
    if (i >= n) continue;
    const std::int64_t d = i % kHeadDim, row = i / kHeadDim % rows, head = i / kHeadDim / rows;
    y[i] = x[(row * heads + head) * kHeadDim + d];
  }
}

__global__ void __launch_bounds__(kThreads) fill_zero(float* __restrict__ y, std::int64_t n) {
  constexpr int V = kPackWidth<float>;
  const Pack<float, V> zero{};
  for (std::int64_t p = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; p < n / V;
       p += std::int64_t(gridDim.x) * kThreads)
    store_pack<float, V>(y + p * V, zero);
}

unsigned unrolled_blocks(std::int64_t n) { return static_cast<unsigned>((n + kBlockWork - 1) / kBlockWork); }

enum class Probe { streaming, unrolled, promoting, strided, fill };

Probe probe_of(const OpShape& s) {
  if (s.op == "access_streaming") return Probe::streaming;
  if (s.op == "access_unrolled") return Probe::unrolled;
  if (s.op == "access_promoting") return Probe::promoting;
  if (s.op == "access_strided") return Probe::strided;
  if (s.op == "access_fill") return Probe::fill;
  throw std::runtime_error(describe(s) + ": not a memory access probe");
}

const char* access_name(Probe p) {
  switch (p) {
    case Probe::streaming: return "streaming";
    case Probe::unrolled: return "unrolled";
    case Probe::promoting: return "promoting";
    case Probe::strided: return "strided";
    case Probe::fill: return "fill";
  }
  return "";
}

// Bytes read and written per element.
double bytes_per_element(Probe p) {
  switch (p) {
    case Probe::streaming: return 3 * 2;
    case Probe::unrolled: return 2 + 4;
    case Probe::promoting: return 4 + 2 + 4;
    case Probe::strided: return 2 + 2;
    case Probe::fill: return 4;
  }
  return 0;
}

class MemoryAccessProbe final : public OperatorBase {
 public:
  explicit MemoryAccessProbe(const OpShape& s)
      : OperatorBase(s),
        probe_(probe_of(s)),
        a_(needs_fp32_input() ? random_device_buffer(count(), kSeedInput, Storage::f32, context_)
                              : DeviceBuffer()),
        b_(probe_ != Probe::fill ? random_device_buffer(count(), kSeedExtra, Storage::bf16, context_)
                                 : DeviceBuffer()),
        b2_(probe_ == Probe::streaming ? random_device_buffer(count(), kSeedWeight, Storage::bf16, context_)
                                       : DeviceBuffer()),
        y_(count() * storage_bytes(output_storage()), context_) {}

  OpWork work() const override { return {0, double(count()) * bytes_per_element(probe_), "elementwise"}; }
  std::string memory_access() const override { return access_name(probe_); }

  void run(cudaStream_t stream) override {
    const auto n = static_cast<std::int64_t>(count());
    switch (probe_) {
      case Probe::streaming:
        streaming_add<<<grid_blocks(n / kPackWidth<bf16>, kThreads), kThreads, 0, stream>>>(
            b_.as<const bf16>(), b2_.as<const bf16>(), y_.as<bf16>(), n);
        break;
      case Probe::unrolled:
      case Probe::promoting:
        unrolled_promote<<<unrolled_blocks(n), kThreads, 0, stream>>>(
            probe_ == Probe::promoting ? a_.as<const float>() : nullptr, b_.as<const bf16>(), y_.as<float>(), n);
        break;
      case Probe::strided:
        strided_permute<<<unrolled_blocks(n), kThreads, 0, stream>>>(b_.as<const bf16>(), y_.as<bf16>(), shape_.rows,
                                                                      shape_.cols / kHeadDim);
        break;
      case Probe::fill: fill_zero<<<grid_blocks(n / kPackWidth<float>, kThreads), kThreads, 0, stream>>>(y_.as<float>(), n); break;
    }
    check_launch("memory access probe", context_);
  }

  CheckResult check() override {
    run_and_wait();
    const std::vector<double> gpu = download_values(y_, output_storage(), context_);
    const std::size_t n = count();
    std::vector<double> ref(n, 0.0);
    const std::vector<float> b = probe_ != Probe::fill ? random_values(n, kSeedExtra, Storage::bf16) : std::vector<float>{};
    if (probe_ == Probe::streaming) {
      const std::vector<float> b2 = random_values(n, kSeedWeight, Storage::bf16);
      for (std::size_t i = 0; i < n; ++i) ref[i] = double(b[i]) + b2[i];
    } else if (probe_ == Probe::unrolled) {
      for (std::size_t i = 0; i < n; ++i) ref[i] = b[i];
    } else if (probe_ == Probe::promoting) {
      const std::vector<float> a = random_values(n, kSeedInput, Storage::f32);
      for (std::size_t i = 0; i < n; ++i) ref[i] = double(a[i]) + b[i];
    } else if (probe_ == Probe::strided) {
      const std::size_t rows = shape_.rows, heads = shape_.cols / kHeadDim;
      for (std::size_t i = 0; i < n; ++i) {
        const std::size_t d = i % kHeadDim, row = i / kHeadDim % rows, head = i / kHeadDim / rows;
        ref[i] = b[(row * heads + head) * kHeadDim + d];
      }
    }
    // Copies and a permutation are exact; a sum is rounded once to its output's precision.
    const bool rounded = probe_ == Probe::streaming || probe_ == Probe::promoting;
    const double bound = probe_ == Probe::streaming ? elementwise_bound(DType::bf16)
                         : rounded                  ? elementwise_bound(DType::fp32)
                                                    : 0.0;
    return make_result(relative_errors(gpu, ref), bound, "all outputs");
  }

 private:
  std::size_t count() const { return static_cast<std::size_t>(shape_.rows * shape_.cols); }
  bool needs_fp32_input() const { return probe_ == Probe::promoting; }
  Storage output_storage() const {
    return probe_ == Probe::streaming || probe_ == Probe::strided ? Storage::bf16 : Storage::f32;
  }

  Probe probe_;
  DeviceBuffer a_, b_, b2_, y_;
};

}  // namespace

std::unique_ptr<Operator> make_memory_access_probe(const OpShape& s) {
  probe_of(s);  // the op names one
  require(s.dtype == DType::bf16, s, "memory access probes run in bf16 (autocast's activations)");
  require(s.rows > 0 && s.cols > 0, s, "rows and cols must be positive");
  require(s.cols % kHeadDim == 0, s, "cols must be a multiple of 64 (16-byte packs, 64-element heads)");
  return std::make_unique<MemoryAccessProbe>(s);
}

std::vector<OpShape> memory_access_probe_shapes() {
  std::vector<OpShape> shapes;
  for (const char* op : {"access_streaming", "access_unrolled", "access_promoting", "access_strided", "access_fill"}) {
    // 4M to 512M elements: 16 MB to 5 GB moved, from tensors that stay in a 50 MB L2 to the
    // largest an LLM step casts (a 128k-vocabulary loss's logits).
    for (std::int64_t rows : {1024, 4096, 16384, 65536, 131072}) {
      OpShape s{.op = op, .dtype = DType::bf16};
      s.rows = rows, s.cols = 4096;
      shapes.push_back(s);
    }
  }
  return shapes;
}

}  // namespace dtsim::kernels
