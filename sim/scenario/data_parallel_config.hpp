#pragma once
// How a layer-graph model's data-parallel replicas synchronise their gradients (the scenario's
// `data_parallel` section). Transformer scenarios keep parallelism.overlap_grad_reduce and
// bucket_mb (Megatron-LM's gradient buffer).
namespace dtsim {

// allreduce: PyTorch DDP (NCCL), gradients all-reduced in buckets during the backward pass.
enum class DataParallelStrategy { allreduce };
inline constexpr DataParallelStrategy kDataParallelStrategies[] = {DataParallelStrategy::allreduce};
const char* to_string(DataParallelStrategy s);

// Who runs the all-reduce. nccl: PyTorch DDP's buckets. horovod: Horovod's tensor fusion, which
// every cycle fuses the gradients that became ready, up to the fusion threshold, into one NCCL
// all-reduce (docs/tensor-fusion.rst: HOROVOD_FUSION_THRESHOLD 64 MB and HOROVOD_CYCLE_TIME 5 ms
// by default until v0.21.0, 128 MB and 1 ms since).
enum class AllreduceLibrary { nccl, horovod };
inline constexpr AllreduceLibrary kAllreduceLibraries[] = {AllreduceLibrary::nccl, AllreduceLibrary::horovod};
const char* to_string(AllreduceLibrary l);
inline constexpr double kHorovodFusionThresholdMiB = 64;
inline constexpr double kHorovodCycleTimeMs = 5;

// PyTorch's DistributedDataParallel: bucket_cap_mb = 25 (MiB: torch/nn/parallel/distributed.py
// sets bucket_bytes_cap = int(bucket_cap_mb * 1024 * 1024)); the first bucket, holding the last
// layers' gradients, is capped at dist._DEFAULT_FIRST_BUCKET_BYTES = 1 MiB so that its
// all-reduce starts early. Horovod: bucket_cap_mb is the fusion threshold, the first bucket is no
// smaller, and a bucket also closes once cycle_time_ms of backward compute has filled it.
struct DataParallelConfig {
  DataParallelStrategy strategy = DataParallelStrategy::allreduce;
  AllreduceLibrary library = AllreduceLibrary::nccl;
  double bucket_cap_mb = 25;   // MiB
  double first_bucket_mb = 1;  // MiB
  double cycle_time_ms = 0;    // 0: no cycle (DDP)
  bool overlap = true;         // buckets reduced during the backward pass (false: all after it)
};

}  // namespace dtsim
