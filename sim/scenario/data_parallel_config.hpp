#pragma once
// How a layer-graph model's data-parallel replicas synchronise their gradients (the scenario's
// `data_parallel` section). Transformer scenarios keep parallelism.overlap_grad_reduce and
// bucket_mb (Megatron-LM's gradient buffer).
namespace dtsim {

// allreduce: PyTorch DDP (NCCL), gradients all-reduced in buckets during the backward pass.
enum class DataParallelStrategy { allreduce };
inline constexpr DataParallelStrategy kDataParallelStrategies[] = {DataParallelStrategy::allreduce};
const char* to_string(DataParallelStrategy s);

// PyTorch's DistributedDataParallel: bucket_cap_mb = 25 (MiB: torch/nn/parallel/distributed.py
// sets bucket_bytes_cap = int(bucket_cap_mb * 1024 * 1024)); the first bucket, holding the last
// layers' gradients, is capped at dist._DEFAULT_FIRST_BUCKET_BYTES = 1 MiB so that its
// all-reduce starts early.
struct DataParallelConfig {
  DataParallelStrategy strategy = DataParallelStrategy::allreduce;
  double bucket_cap_mb = 25;   // MiB
  double first_bucket_mb = 1;  // MiB
  bool overlap = true;         // buckets reduced during the backward pass (false: all after it)
};

}  // namespace dtsim
