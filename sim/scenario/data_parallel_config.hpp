#pragma once
// How a layer-graph model's data-parallel replicas synchronise their gradients (the scenario's
// `data_parallel` section). Transformer scenarios keep parallelism.overlap_grad_reduce and
// bucket_mb (Megatron-LM's gradient buffer).
namespace dtsim {

// allreduce: PyTorch DDP (NCCL), gradients all-reduced in buckets during the backward pass.
// parameter_server: every GPU pulls the weights from the servers, pushes its gradients to them
// in buckets during the backward pass, and the servers apply the update (TensorFlow's
// parameter_server, MXNet's dist kvstore). hierarchical: the GPUs of a node all-reduce their
// gradients first and only the node's first GPU pushes and pulls, then broadcasts the weights
// in the node (TensorFlow's distributed_replicated, BytePS's intra-node reduce).
enum class DataParallelStrategy { allreduce, parameter_server, hierarchical };
inline constexpr DataParallelStrategy kDataParallelStrategies[] = {
    DataParallelStrategy::allreduce, DataParallelStrategy::parameter_server, DataParallelStrategy::hierarchical};
const char* to_string(DataParallelStrategy s);

// Where the parameter servers run: colocated on the workers' nodes (server s on node s % nodes,
// sharing its NIC with the node's GPUs) or on dedicated CPU nodes of the same fabric.
enum class ServerPlacement { colocated, dedicated };
inline constexpr ServerPlacement kServerPlacements[] = {ServerPlacement::colocated, ServerPlacement::dedicated};
const char* to_string(ServerPlacement p);

// sync: a server applies one update per iteration from all gradients (or the first
// workers - backup_workers of them) and answers the next pulls with it. async: every push is
// applied when it arrives and pulls are answered at once (gradients get stale). ssp: async, but
// a worker more than staleness_bound iterations ahead of the slowest waits (bounded staleness).
enum class UpdateMode { sync, async, ssp };
inline constexpr UpdateMode kUpdateModes[] = {UpdateMode::sync, UpdateMode::async, UpdateMode::ssp};
const char* to_string(UpdateMode m);

// How the tensors (a layer's weights) are spread over the servers, in layer order. greedy: each
// to the server holding the fewest bytes so far (tf_cnn_benchmarks' GreedyLoadBalancingStrategy
// with byte_size_load_fn, variable_mgr.py). round_robin: tensor i to server i % servers
// (replica_device_setter's default). Either way one tensor lives on one server, so a tensor
// larger than the rest (VGG-16's fc6) loads its server.
enum class TensorSharding { greedy, round_robin };
inline constexpr TensorSharding kTensorShardings[] = {TensorSharding::greedy, TensorSharding::round_robin};
const char* to_string(TensorSharding t);

// Memory bandwidth a server's updates stream at: one socket of the Xeon E5-2698 v4 in a DGX-1
// and the E5-2686 v4 in AWS p2 instances, 4 channels of DDR4-2400 x 8 B = 76.8 GB/s (Intel ARK).
inline constexpr double kServerMemoryGBs = 76.8;
// Iterations simulated with parameter servers when the scenario does not say: the first fills
// the pipeline of pulls and pushes, the others give the steady state.
inline constexpr int kParameterServerIterations = 5;

// Who runs the all-reduce. nccl: PyTorch DDP's buckets. horovod: Horovod's tensor fusion, which
// every cycle fuses the gradients that became ready, up to the fusion threshold, into one NCCL
// all-reduce (docs/tensor-fusion.rst: HOROVOD_FUSION_THRESHOLD 64 MB and HOROVOD_CYCLE_TIME 5 ms
// by default until v0.21.0, 128 MB and 1 ms since). mpi: the same fusion, each fused buffer
// all-reduced by MPI on the node CPUs (Horovod built without HOROVOD_GPU_ALLREDUCE=NCCL): copied
// to host memory, a ring over the ranks' processes summing on the CPU (memory bandwidth
// server_memory_gbs), copied back (host_staged_allreduce.hpp).
enum class AllreduceLibrary { nccl, horovod, mpi };
inline constexpr AllreduceLibrary kAllreduceLibraries[] = {AllreduceLibrary::nccl, AllreduceLibrary::horovod,
                                                           AllreduceLibrary::mpi};
const char* to_string(AllreduceLibrary l);
inline constexpr double kHorovodFusionThresholdMiB = 64;
inline constexpr double kHorovodCycleTimeMs = 5;

// How each bucket's gradients travel (sim/workload/README.md "Gradient compression"); the encode and decode
// kernels cost GPU time. fp16, bf16: cast before the all-reduce and back after it (PyTorch DDP's
// fp16_compress_hook and bf16_compress_hook, Horovod's Compression.fp16). int8, onebit: quantised
// with error feedback and exchanged as a compressed all-reduce, an all-to-all of the compressed
// chunks, each rank decoding and summing its chunk and compressing it again, then an all-gather
// (DeepSpeed's 1-bit Adam, runtime/comm/nccl.py compressed_allreduce). topk: each rank keeps the
// `compression_density` largest gradients with error feedback and all-gathers values and indices
// (Deep Gradient Compression). randomk: the same share chosen from a seed every rank shares, so
// only the values travel, in an all-reduce. powersgd: each weight matrix M (rows = output
// channels) as P Q^T of rank `powersgd_rank`: P = M Q all-reduced, orthogonalised, Q = M^T P
// all-reduced, then M ~ P Q^T; vectors and matrices it would not shrink at least twofold are
// all-reduced as they are (PyTorch DDP's powerSGD_hook). Parameter servers compress the pushes
// (the servers decode them) and send the weights back uncompressed, as MXNet's kvstore does.
enum class GradientCompression { none, fp16, bf16, int8, onebit, topk, randomk, powersgd };
inline constexpr GradientCompression kGradientCompressions[] = {
    GradientCompression::none,   GradientCompression::fp16, GradientCompression::bf16,
    GradientCompression::int8,   GradientCompression::onebit, GradientCompression::topk,
    GradientCompression::randomk, GradientCompression::powersgd};
const char* to_string(GradientCompression c);
// Deep Gradient Compression (Lin et al., ICLR 2018) sends 0.1% of the gradients.
inline constexpr double kSparsificationDensity = 0.001;
// PowerSGDState's matrix_approximation_rank and min_compression_rate defaults (PyTorch
// torch/distributed/algorithms/ddp_comm_hooks/powerSGD_hook.py).
inline constexpr int kPowerSgdRank = 1;
inline constexpr double kPowerSgdMinCompressionRate = 2;

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
  GradientCompression compression = GradientCompression::none;
  double compression_density = kSparsificationDensity;  // topk, randomk: share of the gradients sent
  int powersgd_rank = kPowerSgdRank;

  // parameter_server and hierarchical
  int servers = 0;  // 0: one per node
  ServerPlacement placement = ServerPlacement::colocated;
  TensorSharding sharding = TensorSharding::greedy;
  UpdateMode mode = UpdateMode::sync;
  int staleness_bound = 0;  // ssp: iterations a worker may run ahead of the slowest
  int backup_workers = 0;   // sync: each update uses the first workers - backup_workers gradients
  int iterations = 0;       // simulated; 0: kParameterServerIterations
  double server_memory_gbs = kServerMemoryGBs;  // also the CPUs' with library mpi
  bool uses_servers() const { return strategy != DataParallelStrategy::allreduce; }
  // Horovod's tensor fusion (cycle and threshold), with NCCL or MPI underneath.
  bool fuses_tensors() const { return library != AllreduceLibrary::nccl; }
  bool reduces_on_cpus() const { return !uses_servers() && library == AllreduceLibrary::mpi; }
};

}  // namespace dtsim
