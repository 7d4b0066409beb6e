// embedding: out[t, :] = table[id[t], :] for rows = tokens, cols = hidden, a [vocab, hidden] table
// in the activation dtype and int32 token ids.
#include <vector>

#include "compare.hpp"
#include "cuda_check.hpp"
#include "device_math.cuh"
#include "operator_base.hpp"
#include "operator_factories.hpp"

namespace dtsim::kernels {

namespace {

constexpr int kThreads = 128;

// One block per token, copying its row in packs of V (16 bytes when cols allows it, else 1).
template <class T, int V>
__global__ void __launch_bounds__(kThreads)
    embedding_kernel(const T* __restrict__ table, const std::int32_t* __restrict__ ids, T* __restrict__ out,
                     std::int64_t cols) {
  const T* src = table + std::int64_t(ids[blockIdx.x]) * cols;
  T* dst = out + std::int64_t(blockIdx.x) * cols;
  for (std::int64_t c = std::int64_t(threadIdx.x) * V; c < cols; c += std::int64_t(kThreads) * V)
    store_pack<T, V>(dst + c, load_pack<T, V>(src + c));
}

class Embedding final : public OperatorBase {
 public:
  explicit Embedding(const OpShape& s)
      : OperatorBase(s),
        storage_(activation_storage(s)),
        table_(random_device_buffer(static_cast<std::size_t>(s.vocab * s.cols), kSeedWeight, storage_, context_)),
        ids_(static_cast<std::size_t>(s.rows) * sizeof(std::int32_t), context_),
        out_(static_cast<std::size_t>(s.rows * s.cols) * storage_bytes(storage_), context_) {
    const std::vector<std::int32_t> ids = random_indices(s.rows, kSeedIndices, s.vocab);
    ids_.upload(ids.data(), ids.size() * sizeof(std::int32_t), context_);
  }

  OpWork work() const override {
    const double n = static_cast<double>(shape_.rows * shape_.cols);
    // A copy (no FLOPs); read the gathered table rows, write the output, read the ids.
    return {0, 2 * n * storage_bytes(storage_) + 4.0 * shape_.rows, "elementwise"};
  }

  void run(cudaStream_t stream) override {
    with_storage_type(storage_, [&](auto tag) {
      using T = typename decltype(tag)::type;
      constexpr int V = kPackWidth<T>;
      const auto blocks = static_cast<unsigned>(shape_.rows);
      if (shape_.cols % V == 0)
        embedding_kernel<T, V><<<blocks, kThreads, 0, stream>>>(table_.as<const T>(), ids_.as<const std::int32_t>(),
                                                               out_.as<T>(), shape_.cols);
      else
        embedding_kernel<T, 1><<<blocks, kThreads, 0, stream>>>(table_.as<const T>(), ids_.as<const std::int32_t>(),
                                                               out_.as<T>(), shape_.cols);
    });
    check_launch("embedding_kernel", context_);
  }

  CheckResult check() override {
    run_and_wait();
    const std::vector<double> gpu = download_values(out_, storage_, context_);
    const std::vector<float> table =
        random_values(static_cast<std::size_t>(shape_.vocab * shape_.cols), kSeedWeight, storage_);
    const std::vector<std::int32_t> ids = random_indices(shape_.rows, kSeedIndices, shape_.vocab);
    std::vector<double> ref(gpu.size());
    const std::int64_t cols = shape_.cols;
    for (std::int64_t t = 0; t < shape_.rows; ++t)
      for (std::int64_t c = 0; c < cols; ++c) ref[t * cols + c] = table[ids[t] * cols + c];
    // A gather copies bits: any difference is a bug, so the bound is 0.
    return make_result(relative_errors(gpu, ref), 0.0, "all outputs");
  }

 private:
  Storage storage_;
  DeviceBuffer table_, ids_, out_;
};

}  // namespace

std::unique_ptr<Operator> make_embedding(const OpShape& s) {
  require(s.rows > 0 && s.cols > 0 && s.vocab > 0, s, "rows, cols and vocab must be positive");
  require(s.rows < (std::int64_t(1) << 31) && s.vocab < (std::int64_t(1) << 31), s,
          "rows and vocab must be below 2^31 (int32 ids, one block per token)");
  return std::make_unique<Embedding>(s);
}

}  // namespace dtsim::kernels
