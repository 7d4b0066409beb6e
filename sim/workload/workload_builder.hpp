#pragma once
// Model x parallelism x schedule -> one program per GPU (DESIGN.md "WorkloadBuilder").
// stage_costs.cpp prices one micro-batch pass of each model chunk; workload_builder.cpp lays the
// passes out in the pipeline schedule's order with their transfers and collectives.
#include <vector>

#include "compute_model.hpp"
#include "program.hpp"
#include "scenario.hpp"

namespace dtsim {

// Megatron-LM's default rank order: tensor-parallel rank fastest, then context-parallel, then
// data-parallel, then stage. Expert-parallel groups are runs of ep consecutive dp ranks.
struct RankCoord {
  int tp_rank = 0;
  int dp_rank = 0;
  int stage = 0;
  int cp_rank = 0;
};
RankCoord rank_coord(const ParallelismConfig& p, int rank);
int rank_of(const ParallelismConfig& p, RankCoord c);

enum class GroupRole { tp, cp, ep, dp, expert_dp };
const char* to_string(GroupRole g);

// A collective one pass runs: `calls` of `bytes` each over the rank's group of that role.
struct PassCollective {
  GroupRole group = GroupRole::tp;
  CollectiveKind kind = CollectiveKind::all_reduce;
  int calls = 1;
  double bytes = 0;         // per call (nccl-tests' size: the whole buffer)
  bool overlapped = false;  // issued before the pass's compute and waited for after it
  bool host_staged = false;  // Task::host_staged
  bool priced = false;       // Task::priced
};

// Cost of one micro-batch pass through one model chunk on one GPU.
struct StagePass {
  double compute_s = 0;
  double flops = 0;
  std::vector<PassCollective> collectives;
  KernelClassTimes classes;  // compute_s by class of kernel (empty where a caller set compute_s alone)
};

// One step of a compressed bucket's exchange on the communication stream: a collective over the
// data-parallel group (bytes > 0, nccl-tests' size) or GPU work that needs the collective before
// it (decoding, PowerSGD's second product).
struct ExchangeStep {
  CollectiveKind collective = CollectiveKind::all_reduce;
  double bytes = 0;
  double compute_s = 0;
};

// A gradient bucket of the last backward pass, in the order the pass fills them: the share of
// that pass's compute from the previous bucket's last gradient to its own, and its size.
struct GradientBucket {
  double compute_share = 0;
  double bytes = 0;
  int first_layer = 0, last_layer = 0;  // layer models: the layers whose gradients it holds
  // Gradient compression (gradient_compression.hpp): encode_s runs on the compute stream once
  // the bucket is ready, then the exchange on the communication stream; an empty exchange is one
  // all-reduce of `bytes`.
  double encode_s = 0;
  std::vector<ExchangeStep> exchange = {};
};

// Everything the program assembly needs; tests can fill it by hand. Passes are indexed by
// global model chunk (== stage without virtual stages); what is empty counts as zero.
struct WorkloadInputs {
  int micro_batches = 1;
  std::vector<StagePass> forward;          // [chunk]
  std::vector<StagePass> backward;         // [chunk]: input and weight gradients, recompute included
  std::vector<StagePass> backward_weight;  // [chunk]: the weight-gradient part of `backward` (compute only)
  double p2p_bytes = 0;                    // activation (or its gradient) sent between chunks, per rank
  std::vector<double> gradient_bytes;         // [stage] dense gradients each rank synchronises over dp
  std::vector<double> expert_gradient_bytes;  // [stage] expert gradients, over the expert-dp group
  std::vector<double> parameter_bytes;         // [stage] dense weights (ZeRO all-gathers them)
  std::vector<double> expert_parameter_bytes;  // [stage]
  std::vector<double> optimizer_s;            // [stage]
  std::vector<KernelClassTimes> optimizer_classes;  // [stage] optimizer_s by class, the step's start and end included
  double collective_sm_share = 0;             // Workload::collective_sm_share
  // Layer models (one stage): DDP's buckets, each all-reduced over dp beside the rest of the
  // pass as soon as it is ready. Empty: parallelism.overlap_grad_reduce's even buckets.
  std::vector<GradientBucket> gradient_bucket_layout;
  // > 0: the buckets' all-reduces run through the node CPUs, of this memory bandwidth (B/s), as
  // MPI's do (DataParallelConfig::reduces_on_cpus).
  double host_staged_cpu_Bps = 0;
};

WorkloadInputs workload_inputs(const Scenario& s, const ComputeModel& compute);
// One iteration's compute on the GPUs of the stage that computes longest, by class of kernel:
// every micro-batch's passes of its chunks and its optimizer step (no communication, no waits).
KernelClassTimes iteration_kernel_classes(const Scenario& s, const ComputeModel& compute);
// Rank folding (DESIGN.md "Scale"). Data-parallel blocks are runs of ep replicas (those an
// expert-parallel group spans; 1 without experts). The blocks holding a GPU of `unfolded_gpus`
// (those a what-if event reaches) run their own programs; of the others, with `enabled`, only the
// first gets programs. Every other rank does the same work as the rank of that block with its
// stage, tp and cp ranks and its dp rank modulo ep, and is folded into it (Workload::representative).
struct ReplicaFolding {
  bool enabled = false;
  std::vector<int> unfolded_gpus;
};
// representative[rank] under `folding`; empty when nothing folds (one block, or not enabled).
std::vector<int> replica_representatives(const ParallelismConfig& p, const ReplicaFolding& folding);
Workload assemble_workload(const ParallelismConfig& p, const WorkloadInputs& in, const ReplicaFolding& folding = {});
// The scenario's programs: assemble_workload's, or with parameter servers
// assemble_parameter_server_workload's (which folds nothing: every worker pushes on its own).
Workload build_workload(const Scenario& s, const ComputeModel& compute, const ReplicaFolding& folding = {});

double sum_time_s(const std::vector<Operator>& ops, const ComputeModel& compute);

// Number of gradient buckets a stage's dense gradients are reduced in when overlapping.
int gradient_buckets(const ParallelismConfig& p, double gradient_bytes);

}  // namespace dtsim
