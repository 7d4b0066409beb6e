#include "memory_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "device_spec.hpp"
#include "layer_graph_kernels.hpp"
#include "layer_model_costs.hpp"
#include "stage_layout.hpp"
#include "transformer_ops.hpp"

namespace dtsim {

namespace {

// Allowance for what the model does not itemise: the CUDA context with its loaded kernels
// (~0.5 GB), NCCL's per-communicator channel buffers for the TP, PP and DP groups (~1 GB at the
// default NCCL_BUFFSIZE of 4 MiB), cuBLAS/cuDNN workspaces (~0.5 GB) ...
constexpr double kCudaContextBytes = 0.5e9, kNcclGroupsBytes = 1e9, kWorkspaceBytes = 0.5e9;
constexpr double kRuntimeReserveBytes = kCudaContextBytes + kNcclGroupsBytes + kWorkspaceBytes;
// A layer model (DDP) has one of the three communicators.
constexpr double kDataParallelReserveBytes = kCudaContextBytes + kNcclGroupsBytes / 3 + kWorkspaceBytes;
// ... and the PyTorch caching allocator's fragmentation. Weights, gradients and optimizer
// states live in a few long-lived buffers (Megatron-LM allocates contiguous ones); activations
// are allocated and freed every micro-batch in varying sizes, and the blocks the allocator
// caches but cannot reuse run to around a tenth of them (reserved vs allocated peaks).
constexpr double kFragmentationOfActivations = 0.10;
// ZeRO-3 keeps the gathered (unsharded) weights of the layer computing and of the one being
// prefetched.
constexpr double kZero3GatheredLayers = 2;
constexpr double kBytesPerGB = 1e9;

// Bytes per element of activations and of the working weights: fp8 training keeps bf16 weights
// and activations (casting to fp8 for each GEMM), fp32 keeps fp32.
double working_element_bytes(const Scenario& s) { return rank_shape(s).elem_bytes; }

// Adam optimizer states: fp32 master weights + m + v; training in fp32 the weights are the master.
double optimizer_state_bytes_per_parameter(Precision p) { return p == Precision::fp32 ? 8 : 12; }

// Tensors every TP rank holds whole (layernorm inputs, GEMM inputs before the column-parallel
// GEMMs, dropout masks on the residual path) are split along the sequence by Megatron's
// sequence parallelism; the rest are split over TP ranks by heads or ffn columns.
double replicated_divisor(const Scenario& s) {
  return s.parallelism.sequence_parallel ? s.parallelism.tp : 1;
}

double tokens_per_micro_batch(const Scenario& s) {
  return double(s.training.micro_batch) * s.model.seq_len / s.parallelism.cp;
}

}  // namespace

// Korthikanti et al. 2022, Sec. 4.1, one tensor at a time (e = bytes per activation element,
// dropout masks 1 B, T = b*s/cp tokens on this GPU, q = heads*head_dim, kv = kv_heads*head_dim):
//   attention: layernorm input eTh, QKV-GEMM input eTh, Q and K eT(q+kv), V eT*kv, output-
//              projection input eT*q, output dropout mask Th, and core attention: unfused, softmax output
//              e, its dropout mask 1 and dropout output e per score, b*heads*(s/cp)*s scores (this
//              GPU's queries against the whole sequence, K and V gathered across CP); fused
//              (FlashAttention, cuDNN), 4 B of log-sum-exp per query and head;
//   MLP:       layernorm input eTh, first-GEMM input eTh, dropout mask Th, and for each token
//              an expert/MLP sees (T, or T*top_k*capacity_factor with MoE) the GEMM outputs
//              kept: GeLU input and output (2e*ffn) or SwiGLU gate, up and product (3e*ffn).
//              MoE adds the dispatched tokens (eh per routed token) and fp32 router probabilities.
// GPT (q = kv = h, ffn = 4h, e = 2, b*s tokens): 10sbh replicated + (24sbh + 5as^2b) split,
// i.e. sbh(34 + 5as/h) at t = 1 and sbh(10 + 24/t + 5as/(ht)) with TP.
// A framework whose operators state what they keep (eager PyTorch, torch.compile) is summed from
// them without recompute (transformer_ops.hpp, saved_bytes_per_layer).
double activation_bytes_per_layer(const Scenario& s, Recompute mode) {
  const TransformerConfig& m = s.model;
  const double e = working_element_bytes(s), h = m.hidden, tp = s.parallelism.tp;
  const double tokens = tokens_per_micro_batch(s);
  const RankShape rank = rank_shape(s);
  // Full recompute keeps only the layer's input (the residual stream) and recomputes the rest.
  if (mode == Recompute::full) return rank.stream_bytes() * tokens * h / replicated_divisor(s);
  if (mode == Recompute::none)
    if (const std::optional<double> listed = saved_bytes_per_layer(rank)) return *listed;

  const double q = double(m.heads) * m.head_dim();
  const double kv = double(m.kv_heads > 0 ? m.kv_heads : m.heads) * m.head_dim();
  const double queries = double(s.training.micro_batch) * m.heads * (double(m.seq_len) / s.parallelism.cp);
  const bool moe = m.moe.enabled();
  const double mlp_tokens = moe ? tokens * m.moe.top_k * m.moe.capacity_factor : tokens;
  const double ffn = moe ? m.moe.expert_ffn_hidden : m.ffn_hidden;
  // TorchTitan's per-op policy keeps the layer input, the odd matmuls' outputs (wq, wv, then the
  // MLP's first; with SwiGLU also its down projection, the seventh) and the attention kernel's
  // output and fp32 log-sum-exp; the backward recomputes the rest (transformer_ops.cpp).
  if (mode == Recompute::selective_op) {
    const bool swiglu = m.mlp == MlpKind::swiglu;
    const double replicated = e * tokens * h * (swiglu ? 2 : 1);
    const double split = e * tokens * (2 * q + kv) + e * mlp_tokens * ffn + 4 * queries;
    return replicated / replicated_divisor(s) + split / tp;
  }
  double replicated = 0, split = 0;
  replicated += 2 * e * tokens * h + tokens * h;
  split += e * tokens * (q + kv) + e * tokens * kv + e * tokens * q;
  // Selective recompute drops core attention (the s^2 terms) and recomputes it. A fused kernel
  // keeps no scores, only the fp32 log-sum-exp of each query row for its backward pass.
  if (mode == Recompute::none && rank_shape(s).attention == AttentionKernel::unfused)
    split += (2 * e + 1) * queries * m.seq_len;
  else if (mode == Recompute::none)
    split += 4 * queries;
  replicated += 2 * e * tokens * h + tokens * h;
  if (moe) replicated += e * mlp_tokens * h + 4 * tokens * m.moe.experts;
  split += (m.mlp == MlpKind::swiglu ? 3 : 2) * e * mlp_tokens * ffn;
  return replicated / replicated_divisor(s) + split / tp;
}

double activation_bytes_per_layer(const Scenario& s) { return activation_bytes_per_layer(s, s.training.recompute); }

// Megatron-LM's schedules: 1F1B (and ZB-H1, which keeps 1F1B's memory) run p - stage - 1
// warm-up forwards, then one more before the first backward; GPipe runs all m forwards first.
// Interleaved 1F1B runs (p - stage - 1)*2 + (v - 1)*p warm-up chunk-passes + 1, visiting the
// stage's chunks in groups of p micro-batches (chunk 0 for micro-batches 0..p-1, chunk 1 for
// them, ...), capped at m*v. Stage 0 then holds (v+1)p - 1 chunk-passes of layers/(pv) layers,
// p micro-batches' worth times (1 + (p-1)/(pv)), as Korthikanti et al. (Sec. 4.2.3) state.
std::vector<int> chunk_passes_in_flight(const Scenario& s, int stage) {
  const ParallelismConfig& par = s.parallelism;
  const int p = par.pp, v = std::max(1, par.virtual_stages), m = s.micro_batches_per_replica();
  std::vector<int> passes(v, 0);
  switch (par.schedule) {
    case PipelineScheduleKind::gpipe: std::fill(passes.begin(), passes.end(), m); break;
    case PipelineScheduleKind::one_f_one_b:
    case PipelineScheduleKind::zero_bubble: std::fill(passes.begin(), passes.end(), std::min(p - stage, m)); break;
    case PipelineScheduleKind::interleaved_1f1b: {
      const int held = std::min((p - stage - 1) * 2 + (v - 1) * p + 1, m * v);
      const int rounds = held / (p * v), rest = held % (p * v);
      for (int k = 0; k < v; ++k) passes[k] = rounds * p + std::clamp(rest - k * p, 0, p);
      break;
    }
  }
  return passes;
}

namespace {

// A layer model's GPU (DDP, no sharding): fp32 weights (plus their working copy in mixed
// precision), the optimizer's fp32 state, with more than one replica DDP's bucket buffers of the
// fp32 gradients (gradient_as_bucket_view is off by default), and what every layer keeps of one
// micro-batch for the backward pass and what the loss holds as the backward starts
// (forward_held_bytes). PyTorch frees the gradients between steps (zero_grad's set_to_none) and
// allocates each as the backward pass frees activations: with one micro-batch the peak is the
// backward pass's start, without gradients, or its end, with all of them and no activations,
// whichever is larger (as the transformers' memory_of_stage); with more, they are held throughout.
// Sharded embedding tables (Layer::sharded) add the fp32 rows of the fullest GPU's tables and
// their optimizer state; their sparse gradients are a micro-batch's rows, left out.
MemoryBreakdown layer_model_memory(const Scenario& s) {
  const LayerGraph& g = s.layer_model->graph;
  const double parameters = dense_parameters(g);
  const double sharded = fullest_gpu_sharded_parameters(g, s.parallelism.dp);
  const double working_bytes = element_bytes(working_precision(s.training.precision));
  const double state_bytes = optimizer_state_bytes_per_parameter(s.layer_model->optimizer);
  MemoryBreakdown out;
  const double working_copy_bytes = working_bytes < 4 ? working_bytes : 0;
  out.weights_bytes = parameters * (kLayerModelGradientBytes + working_copy_bytes) + sharded * kLayerModelGradientBytes;
  const double gradients = parameters * kLayerModelGradientBytes, buckets = s.parallelism.dp > 1 ? gradients : 0;
  out.optimizer_bytes = (parameters + sharded) * state_bytes;
  out.activations_bytes = forward_held_bytes(g, layer_graph_run(s));
  out.micro_batches_in_flight = out.chunk_passes_in_flight = 1;
  const bool gradients_held = s.micro_batches_per_replica() > 1;
  out.gradients_bytes = buckets + (gradients_held ? gradients : 0);
  if (!gradients_held && out.activations_bytes * (1 + kFragmentationOfActivations) < gradients) {
    out.gradients_bytes = buckets + gradients;
    out.activations_bytes = 0;
    out.micro_batches_in_flight = out.chunk_passes_in_flight = 0;
  }
  out.fragmentation_bytes = kDataParallelReserveBytes + kFragmentationOfActivations * out.activations_bytes;
  out.total_bytes =
      out.weights_bytes + out.gradients_bytes + out.optimizer_bytes + out.activations_bytes + out.fragmentation_bytes;
  const DeviceSpec* device = find_device(s.cluster.gpu);
  out.capacity_bytes = device ? device->hbm_bytes : 0;
  return out;
}

}  // namespace

MemoryBreakdown memory_of_stage(const Scenario& s, int stage) {
  if (s.layer_model) return layer_model_memory(s);
  const ParallelismConfig& par = s.parallelism;
  const Precision precision = s.training.precision;
  MemoryBreakdown out;
  out.stage = stage;

  // Model states. ZeRO shards over the data-parallel replicas of a parameter: dense ones over
  // dp*cp GPUs, expert ones over (dp/ep)*cp.
  const StageParameters params = stage_parameters_per_rank(s, stage);
  const double dense_shards = double(par.dp) * par.cp;
  const double expert_shards = std::max(1.0, double(par.dp) / par.ep) * par.cp;
  const bool sharding = dense_shards > 1 || expert_shards > 1;
  auto whole = [&](double bytes_per_param) { return params.total() * bytes_per_param; };
  auto sharded = [&](double bytes_per_param) {
    return (params.dense / dense_shards + params.expert / expert_shards) * bytes_per_param;
  };
  const RankShape rank = rank_shape(s);
  // Under autocast the weights are the fp32 master weights (their bf16 casts are activations), and
  // the optimizer holds Adam's m and v.
  const double weight_b = rank.weight_bytes(), grad_b = gradient_element_bytes(s);
  const double optimizer_b = rank.autocast ? 8 : optimizer_state_bytes_per_parameter(precision);
  const int zero = par.zero_stage;

  out.weights_bytes = zero >= 3 ? sharded(weight_b) : whole(weight_b);
  const int layers = layers_on_stage(s, stage);
  if (zero >= 3 && sharding && layers > 0) {
    Scenario layers_only = s;  // the transformer layers' parameters, without the embedding
    layers_only.model.vocab = 0;
    layers_only.model.seq_len = 0;
    const double per_layer = stage_parameters_per_rank(layers_only, stage).total() / layers;
    out.weights_bytes += kZero3GatheredLayers * per_layer * weight_b;
  }
  out.gradients_bytes = zero >= 2 ? sharded(grad_b) : whole(grad_b);
  // ZeRO-2/3 reduce-scatter gradients bucket by bucket: one unsharded bucket is filled at a time.
  if (zero >= 2 && sharding) out.gradients_bytes += std::min(par.bucket_mb * 1e6, whole(grad_b));
  out.optimizer_bytes = zero >= 1 ? sharded(optimizer_b) : whole(optimizer_b);

  // Activations of the chunk-passes in flight.
  const std::vector<int> passes = chunk_passes_in_flight(s, stage);
  const double per_layer = activation_bytes_per_layer(s), kept_layer = activation_bytes_per_layer(s, Recompute::none);
  for (int k = 0; k < int(passes.size()); ++k) {
    const int chunk_layers = layers_in_chunk(s, stage + k * par.pp);
    const int recomputed = recomputed_layers(s.training, chunk_layers);
    out.activations_bytes += passes[k] * (recomputed * per_layer + (chunk_layers - recomputed) * kept_layer);
    out.chunk_passes_in_flight += passes[k];
  }
  // Every micro-batch goes through chunk 0 first and leaves it last.
  out.micro_batches_in_flight = passes.front();
  // The backward pass rematerialises, one layer at a time, what recompute did not keep.
  if (layers > 0) out.activations_bytes += kept_layer - per_layer;
  const double e = working_element_bytes(s), h = s.model.hidden, tokens = tokens_per_micro_batch(s);
  const std::optional<double> logits_saved = saved_bytes_of_logits(rank);
  // First stage: Megatron's embedding dropout mask (its output is the first layer's input, counted).
  if (stage == 0 && !logits_saved) out.activations_bytes += passes.front() * tokens * h / replicated_divisor(s);
  // Last stage, for the micro-batches of the last chunk: what the framework's final norm, LM head
  // and loss keep, and the loss's gradients once; Megatron: the final layernorm input, LM-head
  // input and the fp32 logits its vocab-parallel cross-entropy keeps (softmax).
  if (stage == par.pp - 1 && logits_saved)
    out.activations_bytes += passes.back() * *logits_saved + loss_backward_bytes(rank);
  else if (stage == par.pp - 1)
    out.activations_bytes += passes.back() * (2 * e * tokens * h / replicated_divisor(s) +
                                              4 * tokens * s.model.vocab / par.tp);

  // PyTorch frees the gradients between steps (zero_grad's default set_to_none) and allocates each
  // in the backward pass as activations are freed: with one micro-batch and no DDP buckets, the
  // loss's backward holds none, and the other candidate peak is the end of the backward pass, with
  // every gradient and no activations. Megatron keeps one contiguous gradient buffer.
  const bool gradients_held = !logits_saved || s.micro_batches_per_replica() > 1 || (sharding && zero == 0);
  if (!gradients_held) {
    const double at_loss = out.activations_bytes * (1 + kFragmentationOfActivations);
    if (at_loss >= out.gradients_bytes) {
      out.gradients_bytes = 0;
    } else {
      out.activations_bytes = 0;
      out.micro_batches_in_flight = out.chunk_passes_in_flight = 0;
    }
  }
  out.fragmentation_bytes = kRuntimeReserveBytes + kFragmentationOfActivations * out.activations_bytes;
  out.total_bytes =
      out.weights_bytes + out.gradients_bytes + out.optimizer_bytes + out.activations_bytes + out.fragmentation_bytes;
  const DeviceSpec* device = find_device(s.cluster.gpu);
  out.capacity_bytes = device ? device->hbm_bytes : 0;  // the scenario loader rejects unknown GPUs
  return out;
}

MemoryBreakdown peak_memory_per_gpu(const Scenario& s) {
  MemoryBreakdown peak = memory_of_stage(s, 0);
  for (int stage = 1; stage < s.parallelism.pp; ++stage) {
    MemoryBreakdown m = memory_of_stage(s, stage);
    if (m.total_bytes > peak.total_bytes) peak = m;
  }
  return peak;
}

std::string format_memory(const MemoryBreakdown& m) {
  auto gb = [](double bytes) { return bytes / kBytesPerGB; };
  std::string in_flight = fmt::format("{} micro-batch{} in flight", m.micro_batches_in_flight,
                                      m.micro_batches_in_flight == 1 ? "" : "es");
  if (m.chunk_passes_in_flight != m.micro_batches_in_flight)
    in_flight += fmt::format(", {} model-chunk passes", m.chunk_passes_in_flight);
  std::string out;
  out += fmt::format("  weights       {:8.2f} GB\n", gb(m.weights_bytes));
  out += fmt::format("  gradients     {:8.2f} GB\n", gb(m.gradients_bytes));
  out += fmt::format("  optimizer     {:8.2f} GB\n", gb(m.optimizer_bytes));
  out += fmt::format("  activations   {:8.2f} GB  ({}, pipeline stage {})\n", gb(m.activations_bytes), in_flight,
                     m.stage);
  out += fmt::format("  allowance     {:8.2f} GB  (CUDA context, NCCL, workspaces, fragmentation)\n",
                     gb(m.fragmentation_bytes));
  out += fmt::format("  total         {:8.2f} GB of {:.2f} GB{}\n", gb(m.total_bytes), gb(m.capacity_bytes),
                     m.fits() ? "" : "  (does not fit)");
  return out;
}

std::string format_out_of_memory(const Scenario& s, const MemoryBreakdown& m) {
  return fmt::format("out of memory: {} needs {:.2f} GB on each GPU of pipeline stage {}; {} has {:.2f} GB\n", s.name,
                     m.total_bytes / 1e9, m.stage, s.cluster.gpu, m.capacity_bytes / 1e9) +
         format_memory(m);
}

}  // namespace dtsim
