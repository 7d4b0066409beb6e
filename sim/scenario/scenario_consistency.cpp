#include "scenario_consistency.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "device_spec.hpp"
#include "input_error.hpp"
#include "leaf_switches.hpp"
#include "size_limits.hpp"
#include "topology_graph.hpp"

namespace dtsim {

namespace {

using Fail = ConsistencyFailure;

// Every count must be positive before anything is divided by it (scenarios built in code
// skip the loader's type checks).
void check_positive_counts(const Scenario& s, const Fail& fail) {
  if (!s.layer_model) {
    const std::pair<const char*, int> model_counts[] = {
        {"model.layers", s.model.layers},         {"model.hidden", s.model.hidden},
        {"model.heads", s.model.heads},           {"model.kv_heads", s.model.kv_heads},
        {"model.ffn_hidden", s.model.ffn_hidden}, {"model.seq_len", s.model.seq_len},
        {"model.vocab", s.model.vocab},
    };
    for (const auto& [field, value] : model_counts)
      if (value <= 0) fail(field, "a positive integer", std::to_string(value));
  }
  const std::pair<const char*, int> counts[] = {
      {"training.global_batch", s.training.global_batch},
      {"training.micro_batch", s.training.micro_batch}, {"parallelism.tp", s.parallelism.tp},
      {"parallelism.pp", s.parallelism.pp},      {"parallelism.dp", s.parallelism.dp},
      {"parallelism.cp", s.parallelism.cp},      {"parallelism.ep", s.parallelism.ep},
      {"parallelism.virtual_stages", s.parallelism.virtual_stages},
      {"cluster.nodes", s.cluster.nodes},        {"cluster.topology", s.cluster.topology.node.gpus},
  };
  for (const auto& [field, value] : counts)
    if (value <= 0) fail(field, "a positive integer", std::to_string(value));
}

// Sizes dtsim can build (size_limits.hpp), checked before anything multiplies counts in int.
void check_sizes(const Scenario& s, const Fail& fail) {
  const ParallelismConfig& p = s.parallelism;
  const long long gpus = 1LL * p.tp * p.cp * p.pp * p.dp;
  if (gpus > kMaxGpus)
    fail("parallelism", fmt::format("tp*cp*pp*dp at most {} GPUs (the largest cluster dtsim simulates)", kMaxGpus),
         fmt::format("{}*{}*{}*{} = {}", p.tp, p.cp, p.pp, p.dp, gpus));
  const long long cluster_gpus = 1LL * s.cluster.nodes * s.cluster.topology.node.gpus;
  if (cluster_gpus > kMaxGpus)
    fail("cluster.nodes",
         fmt::format("at most {} nodes of {} GPUs ({} GPUs, the largest cluster dtsim simulates)",
                     kMaxGpus / s.cluster.topology.node.gpus, s.cluster.topology.node.gpus, kMaxGpus),
         std::to_string(s.cluster.nodes));
  // In double: each factor may be up to 1e9, and their product would overflow any integer.
  const double passes =
      double(gpus) * double(s.training.global_batch / (1LL * p.dp * s.training.micro_batch)) * p.virtual_stages;
  if (passes > double(kMaxRankMicroBatches))
    fail("training.global_batch",
         fmt::format("at most {} micro-batch passes to simulate (GPUs x micro-batches per replica x "
                     "virtual stages), the most dtsim holds in memory",
                     kMaxRankMicroBatches),
         fmt::format("{} ({:.0f} passes)", s.training.global_batch, passes));
}

void require_multiple(const Fail& fail, const std::string& field, int value, int divisor,
                      const std::string& divisor_name) {
  if (value % divisor != 0)
    fail(field, fmt::format("a multiple of {} ({})", divisor_name, divisor), std::to_string(value));
}

void check_model_shape(const TransformerConfig& m, const Fail& fail) {
  require_multiple(fail, "model.hidden", m.hidden, m.heads, "model.heads");
  if (m.kv_heads > m.heads || m.heads % m.kv_heads != 0)
    fail("model.kv_heads", fmt::format("a divisor of model.heads ({})", m.heads), std::to_string(m.kv_heads));
}

void check_gpu_count(const Scenario& s, const Fail& fail) {
  const ParallelismConfig& par = s.parallelism;
  const int gpus_per_node = s.cluster.topology.node.gpus;
  const int cluster_gpus = s.cluster.nodes * gpus_per_node;
  if (s.gpu_count() == cluster_gpus) return;
  fail("parallelism",
       fmt::format("tp*cp*pp*dp = {} (cluster.nodes {} x {} GPUs per node)", cluster_gpus, s.cluster.nodes,
                   gpus_per_node),
       fmt::format("tp*cp*pp*dp = {}*{}*{}*{} = {}", par.tp, par.cp, par.pp, par.dp, s.gpu_count()));
}

// Layers on the first and last stage may be set apart (Megatron's
// --decoder-first/last-pipeline-num-layers); the rest split evenly over the middle stages.
void check_stage_layers(const Scenario& s, const Fail& fail) {
  const ParallelismConfig& p = s.parallelism;
  const int first = p.first_stage_layers, last = p.last_stage_layers;
  if (first < 0) fail("parallelism.first_stage_layers", "an integer >= 0", std::to_string(first));
  if (last < 0) fail("parallelism.last_stage_layers", "an integer >= 0", std::to_string(last));
  if (first == 0 && last == 0) {
    require_multiple(fail, "model.layers", s.model.layers, p.pp * p.virtual_stages,
                     p.virtual_stages > 1 ? "parallelism.pp x parallelism.virtual_stages" : "parallelism.pp");
    return;
  }
  const std::string field = first > 0 ? "parallelism.first_stage_layers" : "parallelism.last_stage_layers";
  const int set_apart = (first > 0) + (last > 0);
  if (p.virtual_stages > 1) fail(field, "unset with parallelism.virtual_stages > 1", std::to_string(first > 0 ? first : last));
  if (p.pp <= set_apart)
    fail(field, fmt::format("unset unless parallelism.pp > {}", set_apart), std::to_string(first > 0 ? first : last));
  const int rest = s.model.layers - first - last;
  const int middle = p.pp - set_apart;
  if (rest <= 0 || rest % middle != 0)
    fail(field,
         fmt::format("a value leaving the other {} stages a positive multiple of {} layers (model.layers {})",
                     middle, middle, s.model.layers),
         std::to_string(first > 0 ? first : last));
}

void check_schedule(const Scenario& s, const Fail& fail) {
  const ParallelismConfig& p = s.parallelism;
  const bool interleaved = p.schedule == PipelineScheduleKind::interleaved_1f1b;
  if (!interleaved && p.virtual_stages > 1)
    fail("parallelism.virtual_stages", "1 unless parallelism.schedule is interleaved_1f1b",
         std::to_string(p.virtual_stages));
  if (!interleaved) return;
  if (p.virtual_stages < 2)
    fail("parallelism.virtual_stages", "at least 2 with schedule interleaved_1f1b", std::to_string(p.virtual_stages));
  if (p.pp < 2) fail("parallelism.pp", "at least 2 with schedule interleaved_1f1b", std::to_string(p.pp));
  // Megatron-LM requires whole rounds of pp micro-batches for its interleaved schedule.
  if (s.micro_batches_per_replica() % p.pp != 0)
    fail("training.global_batch",
         fmt::format("micro-batches per replica (global_batch / (dp x micro_batch) = {}) a multiple of "
                     "parallelism.pp ({}) for interleaved_1f1b",
                     s.micro_batches_per_replica(), p.pp),
         std::to_string(s.training.global_batch));
}

// Megatron prices its own vocab-parallel cross-entropy and computes no metric beside it.
void check_cross_entropy(const Scenario& s, const Fail& fail) {
  if (s.training.framework != Framework::megatron) return;
  if (s.training.cross_entropy == CrossEntropyKernel::fused)
    fail("training.cross_entropy", "torch with framework megatron (Megatron's vocab-parallel cross-entropy is its own)",
         "fused");
  if (s.training.loss_metrics > 0)
    fail("training.loss_metrics", "0 with framework megatron", std::to_string(s.training.loss_metrics));
}

// Megatron's recompute is its own (reentrant); layer graphs recompute nothing.
void check_recompute_reentrant(const Scenario& s, const Fail& fail) {
  const TrainingConfig& t = s.training;
  if (!t.recompute_reentrant) return;
  if (t.framework == Framework::megatron || s.layer_model)
    fail("training.recompute_reentrant",
         "false unless training.framework is pytorch or torch_compile, for a transformer",
         fmt::format("true with framework {}{}", to_string(t.framework),
                     s.layer_model ? " for a layer-graph model" : ""));
}

// flash-attn's varlen API runs its own kernels: FlashAttention v1 or v2, from PyTorch code.
void check_attention_varlen(const Scenario& s, const Fail& fail) {
  const TrainingConfig& t = s.training;
  if (!t.attention_varlen) return;
  const bool flash = t.attention == AttentionKernel::flash1 || t.attention == AttentionKernel::flash2;
  if (!flash || t.framework == Framework::megatron || s.layer_model)
    fail("training.attention_varlen",
         "false unless training.attention is flash1 or flash2 and training.framework is pytorch or torch_compile, "
         "for a transformer",
         fmt::format("true with attention {} and framework {}{}", to_string(t.attention), to_string(t.framework),
                     s.layer_model ? " for a layer-graph model" : ""));
}

void check_recompute(const Scenario& s, const Fail& fail) {
  const TrainingConfig& t = s.training;
  if (t.recompute_layers > 0 && t.recompute != Recompute::full)
    fail("training.recompute_layers", "0 unless training.recompute is full",
         fmt::format("{} with recompute {}", t.recompute_layers, to_string(t.recompute)));
}

void check_data_parallel_options(const Scenario& s, const Fail& fail) {
  const ParallelismConfig& p = s.parallelism;
  if (p.zero_stage < 0 || p.zero_stage > 3)
    fail("parallelism.zero_stage", "0, 1, 2 or 3", std::to_string(p.zero_stage));
  if (!(p.bucket_mb > 0)) fail("parallelism.bucket_mb", "a number > 0", fmt::format("{}", p.bucket_mb));
  // Only a sharded optimizer gathers the updated weights, and Megatron-LM overlaps the gather only
  // beside an overlapped reduction ("--overlap-grad-reduce should be turned on when using
  // --overlap-param-gather", its arguments.py).
  if (p.overlap_param_gather && ((p.zero_stage != 1 && p.zero_stage != 2) || !p.overlap_grad_reduce))
    fail("parallelism.overlap_param_gather",
         "false unless parallelism.zero_stage is 1 or 2 and parallelism.overlap_grad_reduce is true",
         fmt::format("true with zero_stage {} and overlap_grad_reduce {}", p.zero_stage, p.overlap_grad_reduce));
  // FSDP's ZeRO-2 gathers the weights unit by unit in each forward: no gather follows the optimizer.
  if (p.overlap_param_gather && p.zero_stage == 2 && runs_pytorch_fsdp(s.training, p.zero_stage))
    fail("parallelism.overlap_param_gather",
         "false with zero_stage 2 under framework pytorch or torch_compile (FSDP gathers the weights in each forward)",
         fmt::format("true with framework {}", to_string(s.training.framework)));
  const bool fp8 = s.training.precision == Precision::fp8;
  if (p.fp8_weight_all_gather && (!fp8 || p.zero_stage == 0))
    fail("parallelism.fp8_weight_all_gather", "false unless training.precision is fp8 and parallelism.zero_stage >= 1",
         fmt::format("true with precision {} and zero_stage {}", to_string(s.training.precision), p.zero_stage));
  if (p.fp8_tp_all_gather && (!fp8 || !p.sequence_parallel))
    fail("parallelism.fp8_tp_all_gather", "false unless training.precision is fp8 and parallelism.sequence_parallel",
         fmt::format("true with precision {} and sequence_parallel {}", to_string(s.training.precision),
                     p.sequence_parallel));
  // FSDP1 is PyTorch's: Megatron shards with its distributed optimizer, and below ZeRO-2 nothing is sharded.
  if (p.fsdp_version == 1 && !runs_pytorch_fsdp(s.training, p.zero_stage))
    fail("parallelism.fsdp_version",
         "2 (the default) unless parallelism.zero_stage is 2 or 3 and training.framework is pytorch or torch_compile",
         fmt::format("1 with zero_stage {} and framework {}", p.zero_stage, to_string(s.training.framework)));
}

// Megatron-LM refuses --tp-comm-overlap without --sequence-parallel ("Tensor parallel
// communication/GEMM overlap can happen only when sequence parallelism is enabled", its
// arguments.py), and PyTorch's async TP fuses the all-gathers and reduce-scatters of sequence
// parallelism: neither overlaps a plain TP all-reduce.
void check_tensor_parallel_options(const Scenario& s, const Fail& fail) {
  const ParallelismConfig& p = s.parallelism;
  if (p.tp_comm_overlap && !p.sequence_parallel)
    fail("parallelism.tp_comm_overlap", "false unless parallelism.sequence_parallel is true",
         "true with sequence_parallel false");
}

// Context parallelism splits every sequence into 2*cp chunks (two per rank, so that causal
// attention work balances); expert parallelism splits each data-parallel group's experts.
void check_context_and_expert_split(const Scenario& s, const Fail& fail) {
  const ParallelismConfig& p = s.parallelism;
  const MoeConfig& moe = s.model.moe;
  if (p.cp > 1) require_multiple(fail, "model.seq_len", s.model.seq_len, 2 * p.cp, "2 x parallelism.cp");
  if (!moe.enabled()) {
    if (p.ep > 1) fail("parallelism.ep", "1 for a dense model (model.moe.experts is 0)", std::to_string(p.ep));
    return;
  }
  if (moe.top_k < 1 || moe.top_k > moe.experts)
    fail("model.moe.top_k", fmt::format("between 1 and model.moe.experts ({})", moe.experts), std::to_string(moe.top_k));
  if (!(moe.capacity_factor > 0))
    fail("model.moe.capacity_factor", "a number > 0", fmt::format("{}", moe.capacity_factor));
  if (moe.expert_ffn_hidden <= 0)
    fail("model.moe.expert_ffn_hidden", "a positive integer", std::to_string(moe.expert_ffn_hidden));
  require_multiple(fail, "model.moe.expert_ffn_hidden", moe.expert_ffn_hidden, p.tp, "parallelism.tp");
  require_multiple(fail, "parallelism.dp", p.dp, p.ep, "parallelism.ep");
  require_multiple(fail, "model.moe.experts", moe.experts, p.ep, "parallelism.ep");
}

// Megatron-style splitting: whole layers per stage, whole heads and FFN columns per TP rank.
void check_model_split(const Scenario& s, const Fail& fail) {
  const TransformerConfig& m = s.model;
  const int tp = s.parallelism.tp;
  require_multiple(fail, "model.heads", m.heads, tp, "parallelism.tp");
  if (m.kv_heads % tp != 0 && tp % m.kv_heads != 0)  // KV heads are split, or replicated
    fail("model.kv_heads", fmt::format("a multiple or a divisor of parallelism.tp ({})", tp),
         std::to_string(m.kv_heads));
  require_multiple(fail, "model.ffn_hidden", m.ffn_hidden, tp, "parallelism.tp");
}

void check_batch_split(const Scenario& s, const Fail& fail) {
  const int dp = s.parallelism.dp;
  const int micro_batch = s.training.micro_batch;
  if (s.training.global_batch % (dp * micro_batch) == 0) return;
  fail("training.global_batch",
       fmt::format("a multiple of parallelism.dp x training.micro_batch = {} x {} = {}", dp, micro_batch,
                   dp * micro_batch),
       std::to_string(s.training.global_batch));
}

void check_device(const Scenario& s, const Fail& fail) {
  const DeviceSpec* device = find_device(s.cluster.gpu);
  if (!device) {
    fail("cluster.gpu", fmt::format("one of [{}]", fmt::join(device_ids(), ", ")), "'" + s.cluster.gpu + "'");
    return;
  }
  check_gpu_matches_topology(s.cluster, [&](const std::string& expected, const std::string& found) {
    fail("cluster.gpu", expected + ", or cluster.gpu_differs_from_topology: true", found);
  });
  const Precision precision = s.training.precision;
  if (device->peak_flops(precision) > 0) return;
  fail("training.precision",
       fmt::format("a precision cluster.gpu supports ({} has no {})", device->id, to_string(precision)),
       to_string(precision));
}

// Event targets must exist, factors make sense and windows are ordered.
class EventChecker {
 public:
  EventChecker(const TopologySpec& topology, int nodes, int gpus, const Fail& fail, std::string path)
      : topology_(topology), fail_(fail), path_(std::move(path)), nodes_(nodes), gpus_(gpus) {}

  void operator()(const StragglerEvent& e) const {
    if (e.node >= 0) in_range("node", e.node, nodes_, "a node index");
    else in_range("gpu", e.gpu, gpus_, "a GPU rank");
    if (!(e.slowdown >= 1 && e.slowdown <= kMaxSlowdown))
      fail_(path_ + ".slowdown",
            fmt::format("a number in [1, {:g}] (1 = normal speed; a stopped GPU is a failure event)", kMaxSlowdown),
            fmt::format("{}", e.slowdown));
    window(e.start_s, e.end_s);
  }
  void operator()(const SlowLinkEvent& e) const {
    if (e.link == EventLink::nic) {
      in_range("node", e.node, nodes_, "a node index");
      in_range("nic", e.nic, topology_.node.nics, "a NIC index");
    } else {
      in_range("gpu", e.gpu, gpus_, "a GPU rank");
    }
    if (!(e.bandwidth_fraction >= 1 / kMaxSlowdown && e.bandwidth_fraction <= 1))
      fail_(path_ + ".bandwidth_fraction",
            fmt::format("a number in [{:g}, 1] (1 = full speed; a dead link is a failure event)", 1 / kMaxSlowdown),
            fmt::format("{}", e.bandwidth_fraction));
    window(e.start_s, e.end_s);
  }
  void operator()(const ResourceFailureEvent& e) const {
    switch (e.resource) {
      case FailedResource::gpu:
      case FailedResource::nvlink: in_range("gpu", e.gpu, gpus_, "a GPU rank"); break;
      case FailedResource::node: in_range("node", e.node, nodes_, "a node index"); break;
      case FailedResource::nic:
        in_range("node", e.node, nodes_, "a node index");
        in_range("nic", e.nic, topology_.node.nics, "a NIC index");
        break;
      case FailedResource::leaf_switch: {
        if (!has_leaf_switches(topology_.fabric.kind))
          fail_(path_ + ".resource", "a failure a fat_tree, spine_leaf or rail_optimized fabric has (leaf_switch)",
                to_string(topology_.fabric.kind));
        in_range("leaf", e.leaf, leaf_switch_count(topology_, nodes_), "a leaf switch index");
        break;
      }
    }
    time(".at_s", e.at_s);
  }
  void operator()(const BackgroundTrafficEvent& e) const {
    in_range("from_node", e.from_node, nodes_, "a node index");
    in_range("to_node", e.to_node, nodes_, "a node index");
    if (e.from_node == e.to_node) fail_(path_ + ".to_node", "a node other than from_node", std::to_string(e.to_node));
    if (!(e.rate_Bps >= kMinEventRate_Bps && e.rate_Bps <= kMaxEventRate_Bps))
      fail_(path_ + ".rate_GBps", fmt::format("a rate in [{:g}, {:g}] GB/s", kMinEventRate_Bps / 1e9, kMaxEventRate_Bps / 1e9),
            fmt::format("{}", e.rate_Bps / 1e9));
    window(e.start_s, e.end_s);
  }

 private:
  void in_range(const std::string& key, int value, int count, const std::string& what) const {
    if (value < 0 || value >= count) fail_(path_ + "." + key, fmt::format("{} in [0, {})", what, count), std::to_string(value));
  }
  void window(double start_s, double end_s) const {
    time(".start_s", start_s);
    if (end_s != kForever_s) time(".end_s", end_s);
    if (!(end_s > start_s)) fail_(path_ + ".end_s", fmt::format("a time after start_s ({} s)", start_s), fmt::format("{}", end_s));
  }
  void time(const std::string& key, double t_s) const {
    if (!(t_s >= 0 && t_s <= kMaxEventTime_s))
      fail_(path_ + key, fmt::format("a time in [0, {:g}] s", kMaxEventTime_s), fmt::format("{}", t_s));
  }
  const TopologySpec& topology_;
  const Fail& fail_;
  std::string path_;
  int nodes_, gpus_;
};

// Backup workers leave at least one gradient per update; servers need node zones to live in
// (a rail-optimized fabric holds the GPUs directly).
void check_parameter_servers(const Scenario& s, const Fail& fail) {
  const DataParallelConfig& dp = s.data_parallel;
  if (!dp.uses_servers()) return;
  const int workers = dp.strategy == DataParallelStrategy::hierarchical ? s.cluster.nodes : s.parallelism.dp;
  if (dp.backup_workers >= workers)
    fail("data_parallel.backup_workers",
         fmt::format("fewer than the {} workers (each update needs a gradient)", workers),
         std::to_string(dp.backup_workers));
  if (s.cluster.topology.fabric.kind == FabricKind::rail_optimized)
    fail("data_parallel.strategy", "allreduce on a rail_optimized fabric (parameter servers need node zones)",
         to_string(dp.strategy));
}

// A layer-graph model trains data-parallel only, with plain DDP gradients, and scales to a
// reference measured on one GPU or on the GPUs of one node.
void check_layer_model(const Scenario& s, const Fail& fail) {
  const ParallelismConfig& p = s.parallelism;
  const std::pair<const char*, int> splits[] = {{"parallelism.tp", p.tp}, {"parallelism.pp", p.pp},
                                                {"parallelism.cp", p.cp}, {"parallelism.ep", p.ep}};
  for (const auto& [field, value] : splits)
    if (value != 1) fail(field, "1 for a layer-graph model (data-parallel only)", std::to_string(value));
  if (p.zero_stage != 0)
    fail("parallelism.zero_stage", "0 for a layer-graph model (its gradients are all-reduced, data_parallel section)",
         std::to_string(p.zero_stage));
  if (p.grad_reduce_in_bf16)
    fail("parallelism.grad_reduce_in_bf16",
         "false for a layer-graph model (its gradients' bytes are the data_parallel section's)", "true");
  if (s.training.cross_entropy == CrossEntropyKernel::fused)
    fail("training.cross_entropy", "torch for a layer-graph model (its loss is PyTorch's)", "fused");
  if (s.training.loss_metrics > 0)
    fail("training.loss_metrics", "0 for a layer-graph model", std::to_string(s.training.loss_metrics));
  if (s.layer_model->graph.layers.empty()) fail("model", "a layer graph with at least one layer", "none");
  if (s.training.framework == Framework::megatron)
    fail("training.framework", "pytorch or torch_compile for a layer-graph model (Megatron runs transformers)",
         "megatron");
  // A reference on several GPUs is one node's all-reduce run (layer_model_costs.hpp).
  if (s.reference && s.reference->gpus > s.cluster.topology.node.gpus)
    fail("reference.gpus", fmt::format("at most one node's GPUs ({}): a reference measured on one node",
                                       s.cluster.topology.node.gpus),
         std::to_string(s.reference->gpus));
  if (s.reference && s.reference->gpus > 1 && s.data_parallel.uses_servers())
    fail("reference.gpus", "1 with parameter servers (a reference on several GPUs is taken as an all-reduce run)",
         std::to_string(s.reference->gpus));
  // Sharded embedding tables (DLRM) exchange lookups by all-to-all between the GPUs that hold
  // them; neither servers nor the closed-form multi-GPU reference know that exchange.
  if (s.layer_model->graph.sharded_parameters() > 0) {
    if (s.data_parallel.uses_servers())
      fail("data_parallel.strategy", "allreduce for a model with sharded embedding tables (all-to-all lookups)",
           to_string(s.data_parallel.strategy));
    if (s.reference && s.reference->gpus > 1)
      fail("reference.gpus", "1 for a model with sharded embedding tables", std::to_string(s.reference->gpus));
  }
  // MPI reduces on the node CPUs, which live in node zones like the parameter servers.
  if (s.data_parallel.reduces_on_cpus() && s.cluster.topology.fabric.kind == FabricKind::rail_optimized)
    fail("data_parallel.library", "nccl or horovod on a rail_optimized fabric (MPI reduces on the node CPUs)",
         to_string(s.data_parallel.library));
  if (s.reference && !(s.reference->samples_per_s > 0))
    fail("reference.samples_per_s", "a rate > 0", fmt::format("{}", s.reference->samples_per_s));
  check_parameter_servers(s, fail);
}

}  // namespace

void check_events(const std::vector<Event>& events, const TopologySpec& topology, int nodes, int gpus,
                  const ConsistencyFailure& fail) {
  for (size_t i = 0; i < events.size(); ++i)
    std::visit(EventChecker(topology, nodes, gpus, fail, fmt::format("events[{}]", i)), events[i]);
}

void check_consistency(const Scenario& s, const Fail& fail) {
  check_positive_counts(s, fail);
  check_sizes(s, fail);
  check_gpu_count(s, fail);
  if (s.layer_model) {
    check_layer_model(s, fail);
  } else {
    check_model_shape(s.model, fail);
    check_model_split(s, fail);
    check_stage_layers(s, fail);
  }
  check_batch_split(s, fail);
  check_schedule(s, fail);
  check_recompute(s, fail);
  check_attention_varlen(s, fail);
  check_recompute_reentrant(s, fail);
  check_cross_entropy(s, fail);
  check_data_parallel_options(s, fail);
  check_tensor_parallel_options(s, fail);
  check_context_and_expert_split(s, fail);
  check_device(s, fail);
  check_events(s.events, s.cluster.topology, s.cluster.nodes, s.gpu_count(), fail);
}

void check_cluster_buildable(const TopologySpec& topology, long nodes) { build_topology_graph(topology, nodes); }

void check_gpu_matches_topology(const ClusterConfig& c,
                                const std::function<void(const std::string&, const std::string&)>& fail) {
  const DeviceSpec* device = find_device(c.gpu);
  const int nodes_nvlink = c.topology.node.nvlink_generation;
  if (!device || nodes_nvlink == 0 || c.gpu_differs_from_topology || device->nvlink_generation() == nodes_nvlink) return;
  fail(fmt::format("a GPU of NVLink {} as the nodes of {} ({}) hold", nodes_nvlink,
                   c.topology_file.filename().string(), c.topology.node.type),
       device->nvlink_generation() > 0 ? fmt::format("{} (NVLink {})", device->id, device->nvlink_generation())
                                       : fmt::format("{} (no NVLink)", device->id));
}

void check_scenario_consistency(const Scenario& s) {
  const std::string file = s.source_file.empty() ? std::string("<scenario>") : s.source_file.string();
  check_consistency(s, [&](const std::string& field, const std::string& expected, const std::string& found) {
    throw InputError({file, 0, field, expected, found});
  });
}

}  // namespace dtsim
