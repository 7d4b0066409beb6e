#pragma once
// How each node feeds its GPUs (a layer-graph scenario's `input_pipeline` section; DESIGN.md
// "Input pipeline"): every sample is read from storage, unless a cache holds it, then decoded and
// augmented by CPU workers, which run up to `prefetch_batches` batches ahead of the GPUs.
namespace dtsim {

// local: each node reads from its own disks at storage_GBps. shared: all nodes read from one
// file system (NFS, Lustre) whose storage_GBps they divide.
enum class InputStorage { local, shared };
inline constexpr InputStorage kInputStorages[] = {InputStorage::local, InputStorage::shared};
const char* to_string(InputStorage s);

// PyTorch DataLoader's prefetch_factor default: each worker keeps 2 batches loaded ahead.
inline constexpr int kDefaultPrefetchBatches = 2;

struct InputPipelineConfig {
  double sample_bytes = 0;            // read from storage per sample
  InputStorage storage = InputStorage::local;
  double storage_GBps = 0;            // read bandwidth, per node (local) or of the file system (shared)
  int cpu_cores = 0;                  // cores per node decoding and augmenting (DataLoader workers)
  double samples_per_s_per_core = 0;  // what one core decodes and augments
  // Batches loaded ahead of the GPUs; 0: the training loop loads each batch itself, so loading
  // and the GPU step take turns.
  int prefetch_batches = kDefaultPrefetchBatches;
  double cache_hit_rate = 0;  // share of samples served from memory (page cache, a dataset cache)
};

}  // namespace dtsim
