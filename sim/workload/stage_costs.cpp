// Prices one micro-batch pass of each model chunk: operator times from the compute model and the
// collectives each pass needs (Megatron-LM's placement of TP, SP, CP, EP and ZeRO-3 traffic).
#include <algorithm>
#include <cmath>
#include <optional>

#include "launch_model.hpp"
#include "layer_model_costs.hpp"
#include "nccl_channels.hpp"
#include "stage_layout.hpp"
#include "transformer_ops.hpp"
#include "workload_builder.hpp"

namespace dtsim {

double sum_time_s(const std::vector<Operator>& ops, const ComputeModel& compute) {
  double t = 0;
  for (const Operator& op : ops) t += compute.time_s(op);
  return t;
}

int gradient_buckets(const ParallelismConfig& p, double gradient_bytes) {
  constexpr int kMaxBuckets = 64;  // beyond this, per-bucket latency dominates and nothing changes
  const double bucket_bytes = p.bucket_mb * 1e6;
  return std::clamp(int(std::ceil(gradient_bytes / bucket_bytes)), 1, kMaxBuckets);
}

namespace {

// `times` runs of `ops`, launched one activity at a time by a host costing `host_s` each, or as a
// CUDA graph (host_s 0; launch_model.hpp).
void add(StagePass& pass, const std::vector<Operator>& ops, const ComputeModel& compute, double host_s,
         int times = 1) {
  const KernelClassTimes t = launched_pass(ops, compute, host_s, times);
  pass.classes += t;
  pass.compute_s += t.total_s();
  pass.flops += times * sum_flops(ops);
}

// Same-sized collectives of one kind on one group merge into one task with more calls.
void add(StagePass& pass, GroupRole group, CollectiveKind kind, int calls, double bytes, bool overlapped,
         bool priced = false) {
  if (calls <= 0 || bytes <= 0) return;
  for (PassCollective& c : pass.collectives)
    if (c.group == group && c.kind == kind && c.bytes == bytes && c.overlapped == overlapped && c.priced == priced) {
      c.calls += calls;
      return;
    }
  pass.collectives.push_back({group, kind, calls, bytes, overlapped, false, priced});
}

// One all-gather of `params` weights, `embedding` of them the embedding and LM head: in the
// working precision, or with fp8_weight_all_gather one byte for the FP8 GEMMs' weights.
double weight_gather_bytes(const Scenario& s, double params, double embedding, double elem_bytes) {
  if (!s.parallelism.fp8_weight_all_gather) return params * elem_bytes;
  return (params - embedding) * element_bytes(Precision::fp8) + embedding * elem_bytes;
}

// A tensor-parallel all-gather of `bytes` of activations (or their gradients): FP8 with fp8_tp_all_gather.
double tp_gather_bytes(const Scenario& s, const RankShape& r, double bytes) {
  return s.parallelism.fp8_tp_all_gather ? bytes * element_bytes(Precision::fp8) / r.elem_bytes : bytes;
}

// Layers whose whole forward pass, collectives included, runs again in the backward pass: the
// ones full recompute redoes (recompute_layers of them, or all); none under the other modes.
int rerun_layers(const Scenario& s, int layers) {
  return s.training.recompute == Recompute::full ? recomputed_layers(s.training, layers) : 0;
}

struct ChunkPasses {
  StagePass forward, backward, backward_weight;
};

// Megatron's sequence parallelism (megatron/core/tensor_parallel/layers.py,
// LinearWithGradAccumulationAndAsyncCommunication.backward, since it came in 2022) hides the
// column-parallel linears' (QKV, MLP up) backward collectives behind their own GEMMs even without
// tp_comm_overlap: the input gradient's reduce-scatter runs beside the weight-gradient GEMM, and
// the sequence-sharded input's all-gather again (the weight gradient needs it whole) beside the
// input-gradient GEMM. Only the all-gathers of the gradients entering the row-parallel outputs
// wait. (Without sequence parallelism Megatron-LM has overlapped the input gradient's all-reduce
// with the weight-gradient GEMM since 2021-09, after the SC21 runs: not modelled, all-reduces wait.)
void add_megatron_sequence_parallel(ChunkPasses& c, const Scenario& s, const RankShape& r, int layers) {
  const bool overlap = s.parallelism.tp_comm_overlap;
  const double bytes = tp_allreduce_bytes(r);
  const int recomputed = rerun_layers(s, layers);
  const int forward_calls = kTpAllReducesPerLayerForward * layers, recompute = kTpAllReducesPerLayerForward * recomputed;
  const int column_calls = kTpAllReducesPerLayerBackward * layers;
  const double gather = tp_gather_bytes(s, r, bytes);
  for (const auto& [kind, size] :
       {std::pair{CollectiveKind::all_gather, gather}, {CollectiveKind::reduce_scatter, bytes}}) {
    add(c.forward, GroupRole::tp, kind, forward_calls, size, overlap);
    add(c.backward, GroupRole::tp, kind, recompute, size, overlap);
  }
  add(c.backward, GroupRole::tp, CollectiveKind::all_gather, column_calls, gather, overlap);  // row-parallel outputs
  add(c.backward, GroupRole::tp, CollectiveKind::all_gather, column_calls, gather, true);     // inputs again
  add(c.backward, GroupRole::tp, CollectiveKind::reduce_scatter, column_calls, bytes, true);
}

// PyTorch's async TP (Inductor's micro-pipeline pass) fuses each all-gather with the matmuls it
// feeds and each matmul with its reduce-scatter. With float8 rowwise scales only the
// matmul-reduce-scatters fuse; the all-gather-matmuls stay apart and their all-gathers wait as in
// vanilla TP (pytorch/pytorch issue 149990, open since 2025-03: Llama3 70B on 128 H100s, rowwise
// async TP barely faster than vanilla).
bool async_tp_fuses_all_gathers(const Scenario& s) {
  return !(s.training.precision == Precision::fp8 && s.training.fp8_recipe == Fp8Recipe::rowwise);
}

// Inductor fuses a reduce-scatter with the one matmul whose output it scatters, and only then
// (torch/_inductor/fx_passes/micro_pipeline_tp.py, fuse_matmul_reduce_scatter: its input must be
// an mm). In the backward pass a block's input gradient is the sum of the input gradients of every
// linear that reads the block's input: Q, K and V unless fused into one, SwiGLU's gate and up,
// a MoE layer's router and experts. Those sums are reduce-scattered as vanilla TP does, per layer.
int async_tp_unfused_backward_reduce_scatters(const RankShape& r) {
  return (r.fused_qkv ? 0 : 1) + (r.mlp == MlpKind::swiglu || r.moe.enabled() ? 1 : 0);
}

// Tensor parallelism: per layer 2 all-reduces of the activation in each direction (after the
// attention projection and the MLP; their input gradients in backward), or with sequence
// parallelism 2 all-gathers + 2 reduce-scatters of the same tensor. Full recompute redoes the
// forward's.
void add_tensor_parallel(ChunkPasses& c, const Scenario& s, const RankShape& r, int layers) {
  if (s.parallelism.tp <= 1) return;
  if (s.training.framework == Framework::megatron && r.sequence_parallel)
    return add_megatron_sequence_parallel(c, s, r, layers);
  const bool overlap = s.parallelism.tp_comm_overlap;
  const double bytes = tp_allreduce_bytes(r);
  const int recompute = rerun_layers(s, layers);
  const int forward_calls = kTpAllReducesPerLayerForward * layers;
  const int backward_calls = kTpAllReducesPerLayerBackward * layers + kTpAllReducesPerLayerForward * recompute;
  if (r.sequence_parallel) {
    const double gather = tp_gather_bytes(s, r, bytes);
    const bool gathers_overlap = overlap && async_tp_fuses_all_gathers(s);
    const int unfused = overlap ? layers * async_tp_unfused_backward_reduce_scatters(r) : 0;
    add(c.forward, GroupRole::tp, CollectiveKind::all_gather, forward_calls, gather, gathers_overlap);
    add(c.backward, GroupRole::tp, CollectiveKind::all_gather, backward_calls, gather, gathers_overlap);
    add(c.forward, GroupRole::tp, CollectiveKind::reduce_scatter, forward_calls, bytes, overlap);
    add(c.backward, GroupRole::tp, CollectiveKind::reduce_scatter, backward_calls - unfused, bytes, overlap);
    add(c.backward, GroupRole::tp, CollectiveKind::reduce_scatter, unfused, bytes, false);
  } else {
    add(c.forward, GroupRole::tp, CollectiveKind::all_reduce, forward_calls, bytes, overlap);
    add(c.backward, GroupRole::tp, CollectiveKind::all_reduce, backward_calls, bytes, overlap);
  }
}

// Context parallelism: K and V of the whole sequence gathered per layer, their gradients
// reduce-scattered; ring attention overlaps these transfers with the attention blocks.
void add_context_parallel(ChunkPasses& c, const Scenario& s, const RankShape& r, int layers) {
  if (s.parallelism.cp <= 1) return;
  const double bytes = cp_kv_bytes(r);
  const int recompute = rerun_layers(s, layers);
  add(c.forward, GroupRole::cp, CollectiveKind::all_gather, layers, bytes, true);
  add(c.backward, GroupRole::cp, CollectiveKind::all_gather, recompute, bytes, true);
  add(c.backward, GroupRole::cp, CollectiveKind::reduce_scatter, layers, bytes, true);
}

// Expert parallelism: dispatch and combine all-to-alls per MoE layer in each direction.
void add_expert_parallel(ChunkPasses& c, const Scenario& s, const RankShape& r, int layers) {
  if (!s.model.moe.enabled() || s.parallelism.ep <= 1) return;
  const double bytes = ep_all_to_all_bytes(r);
  const int recompute = 2 * rerun_layers(s, layers);
  add(c.forward, GroupRole::ep, CollectiveKind::all_to_all, 2 * layers, bytes, false);
  add(c.backward, GroupRole::ep, CollectiveKind::all_to_all, 2 * layers + recompute, bytes, false);
}

// ZeRO-3 / FSDP units of one parameter group of a chunk: each transformer layer is a unit of its
// own, and the embedding and LM head are the root's, as TorchTitan (fully_shard on each block,
// then on the model) and llm-foundry (FSDP1 wrapping each MPTBlock) shard them.
int fsdp_units(int layers, double embedding_parameters) {
  return std::max(1, layers) + (embedding_parameters > 0 ? 1 : 0);
}

// Whether the weights are gathered and the gradients reduce-scattered unit by unit in every
// micro-batch's passes: ZeRO-3, and ZeRO-2 under PyTorch's FSDP (SHARD_GRAD_OP; FSDP2's
// fully_shard with reshard_after_forward=False): there each forward gathers the units, which stay
// unsharded until their backward reduce-scatters their gradients and frees them (FSDP1
// _runtime_utils.py, _should_free_in_backward). Nothing is then reduced after the backward nor
// gathered after the optimizer step, as Megatron's distributed optimizer does at ZeRO-1 and 2.
bool shards_by_unit(const Scenario& s) {
  return s.parallelism.zero_stage >= 3 || runs_pytorch_fsdp(s.training, s.parallelism.zero_stage);
}

// The units the backward gathers again: none at ZeRO-2. At ZeRO-3 PyTorch's FSDP keeps one
// gathered from its forward to its backward: FSDP1 never frees the root's parameters after its
// forward (_runtime_utils.py, _post_forward_reshard: "Do not free the root's parameters in the
// post-forward for FULL_SHARD"), FSDP2 likewise (_fsdp_state.py, _lazy_init: "For the root, do
// not reshard after forward"), and TorchTitan does not reshard its last block either (counted as
// the one unit).
int fsdp_backward_gathers(const Scenario& s, int units) {
  if (s.parallelism.zero_stage < 3) return 0;
  return runs_pytorch_fsdp(s.training, s.parallelism.zero_stage) && units > 1 ? units - 1 : units;
}

// ZeRO-3 / FSDP: every pass gathers the chunk's weights (prefetched beside the compute unless
// fsdp_prefetch is off: then each pass waits for its gathers); the backward also reduce-scatters
// its gradients, beside the compute. One all-gather and one reduce-scatter per unit, so each
// unit's call pays the collective's latency. The units are priced as calls of their mean size,
// one task per kind: the bytes and the calls are the units' own.
//
// Each pass also waits for the calls nothing can run beside: its forward's first compute needs
// the root's and the first layer's weights, with only the embedding lookup between their
// gathers; its backward ends on the first layer's and the root's reduce-scatters, with only the
// embedding's gradient between them, and waits for them before the optimizer or the next
// micro-batch (FSDP1 _runtime_utils.py _post_backward_final_callback: wait_stream(
// _post_backward_stream); FSDP2 _fsdp_param_group.py finalize_backward: wait_event(
// _post_reduce_event)). Those two calls of each kind, at the mean of the two units' sizes, are
// waited for as priced collectives (Task::priced): their bytes are in the pass's overlapped task,
// whose calls then run beside the wait and the compute.
void add_fsdp_collectives(ChunkPasses& c, const Scenario& s, const RankShape& r, int chunk) {
  if (!shards_by_unit(s)) return;
  const StageParameters params = chunk_parameters_per_rank(s, chunk);
  const int layers = layers_in_chunk(s, chunk);
  const double grad_bytes = gradient_element_bytes(s);
  const struct {
    GroupRole group;
    double count, embedding;  // parameters, and of them the embedding's and LM head's
  } parts[] = {{GroupRole::dp, params.dense, params.embedding}, {GroupRole::expert_dp, params.expert, 0}};
  const bool prefetch = s.parallelism.fsdp_prefetch;
  for (const auto& [group, count, embedding] : parts) {
    const int units = fsdp_units(layers, embedding);
    const double gathered = weight_gather_bytes(s, count / units, embedding / units, r.elem_bytes);
    add(c.forward, group, CollectiveKind::all_gather, units, gathered, prefetch);
    add(c.backward, group, CollectiveKind::all_gather, fsdp_backward_gathers(s, units), gathered, prefetch);
    add(c.backward, group, CollectiveKind::reduce_scatter, units, count / units * grad_bytes, true);
    // The waited calls: the root's (where the chunk holds the embedding) and the first layer's.
    const int root = embedding > 0 ? 1 : 0, first = layers > 0 ? 1 : 0, waited = root + first;
    if (waited == 0) continue;
    const double layer = layers > 0 ? (count - embedding) / layers : 0;
    const double waited_params = (root * embedding + first * layer) / waited;  // mean per call
    const double waited_gathered = (weight_gather_bytes(s, root * embedding, root * embedding, r.elem_bytes) +
                                    weight_gather_bytes(s, first * layer, 0, r.elem_bytes)) / waited;
    if (prefetch) add(c.forward, group, CollectiveKind::all_gather, waited, waited_gathered, false, true);
    add(c.backward, group, CollectiveKind::reduce_scatter, waited, waited_params * grad_bytes, false, true);
  }
}

// PyTorch's FSDP copies the chunk's gathered weights and its gradients whole, once per pass
// (torch/distributed/fsdp). FSDP1 (_runtime_utils.py, _post_backward_hook and _reduce_grad)
// casts each unsharded gradient to the reduce dtype and pre-divides it by its factor (> 1 for
// any dp > 1) before the reduce-scatter. FSDP2 (_fsdp_collectives.py) copies each all-gather's
// output into the parameters (foreach_all_gather_copy_out), forward and, for the units resharded
// after it, backward, and the gradients into the reduce-scatter's input in the reduce dtype
// (foreach_reduce_scatter_copy_in). Both run those on side streams beside the backward's GEMMs
// at times, taking the SMs and bandwidth the GEMMs lose; priced as the pass's own kernels.
void add_fsdp_copies(ChunkPasses& c, const Scenario& s, const RankShape& r, int chunk, const ComputeModel& compute,
                     double host_s) {
  if (!runs_pytorch_fsdp(s.training, s.parallelism.zero_stage) || s.parallelism.dp <= 1) return;
  const StageParameters params = chunk_parameters_per_rank(s, chunk);
  const double p = params.total(), w = r.weight_bytes(), reduce = gradient_element_bytes(s);
  std::vector<Operator> backward;
  if (s.parallelism.fsdp_version == 1) {
    if (w != reduce) backward.push_back(memory_op("fsdp_grad_cast", MemoryAccess::streaming, p * (w + reduce)));
    backward.push_back(memory_op("fsdp_grad_predivide", MemoryAccess::streaming, p * 2 * reduce));
  } else {
    // What the all-gathers brought, both groups as add_fsdp_collectives gathers them; in the backward, of
    // the units gathered again.
    const double dense = weight_gather_bytes(s, params.dense, params.embedding, w),
                 expert = weight_gather_bytes(s, params.expert, 0, w);
    add(c.forward, {memory_op("fsdp_all_gather_copy_out", MemoryAccess::streaming, 2 * (dense + expert))}, compute,
        host_s, 1);
    const int layers = layers_in_chunk(s, chunk), dense_units = fsdp_units(layers, params.embedding),
              expert_units = fsdp_units(layers, 0);
    const double again = dense * fsdp_backward_gathers(s, dense_units) / dense_units +
                         expert * fsdp_backward_gathers(s, expert_units) / expert_units;
    if (again > 0) backward.push_back(memory_op("fsdp_all_gather_copy_out", MemoryAccess::streaming, 2 * again));
    backward.push_back(memory_op("fsdp_reduce_scatter_copy_in", MemoryAccess::streaming, p * (w + reduce)));
  }
  add(c.backward, backward, compute, host_s, 1);
}

ChunkPasses chunk_passes(const Scenario& s, const ComputeModel& compute, const RankShape& r, int chunk) {
  const int layers = layers_in_chunk(s, chunk);
  const bool first = chunk == 0, last = chunk == model_chunks(s.parallelism) - 1;
  const double host_s = host_launch_s(s.training);
  ChunkPasses c;
  add(c.forward, layer_forward_ops(r), compute, host_s, layers);
  add(c.backward, layer_recompute_ops(r, s.training.recompute), compute, host_s, recomputed_layers(s.training, layers));
  add(c.backward, layer_backward_ops(r), compute, host_s, layers);
  add(c.backward_weight, layer_backward_weight_ops(r), compute, host_s, layers);
  add_tensor_parallel(c, s, r, layers);
  add_context_parallel(c, s, r, layers);
  add_expert_parallel(c, s, r, layers);
  add_fsdp_collectives(c, s, r, chunk);
  add_fsdp_copies(c, s, r, chunk, compute, host_s);
  const bool tp_split = s.parallelism.tp > 1;
  const double activation_bytes = tp_allreduce_bytes(r);
  if (first) {
    add(c.forward, embedding_forward_ops(r), compute, host_s);
    add(c.backward, embedding_backward_ops(r), compute, host_s);
    // The vocab-parallel embedding sums its partial lookups (reduce-scatters them with SP).
    if (tp_split)
      add(c.forward, GroupRole::tp, r.sequence_parallel ? CollectiveKind::reduce_scatter : CollectiveKind::all_reduce, 1,
          activation_bytes, false);
  }
  if (last) {
    add(c.forward, logits_forward_ops(r), compute, host_s);
    add(c.backward, logits_backward_ops(r), compute, host_s);
    if (tp_split && r.sequence_parallel) {  // gather the sequence before the LM head, scatter its gradient
      add(c.forward, GroupRole::tp, CollectiveKind::all_gather, 1, activation_bytes, false);
      add(c.backward, GroupRole::tp, CollectiveKind::reduce_scatter, 1, activation_bytes, false);
    } else if (tp_split) {
      add(c.backward, GroupRole::tp, CollectiveKind::all_reduce, 1, activation_bytes, false);  // LM head input grad
    }
  }
  return c;
}

}  // namespace

namespace {

WorkloadInputs priced_inputs(const Scenario& s, const ComputeModel& compute) {
  const ParallelismConfig& p = s.parallelism;
  const RankShape r = rank_shape(s);
  WorkloadInputs in;
  in.micro_batches = s.micro_batches_per_replica();
  in.collective_sm_share = compute.device().collective_sm_share(nccl_collective_channels(s.cluster.topology.node));
  // Megatron scatters the boundary activation across TP ranks before the stage-to-stage send
  // (scatter_gather_tensors_in_pipeline, or SP's sharded sequence) and all-gathers it over
  // NVLink after; the all-gather is not modelled.
  in.p2p_bytes = r.tokens() * r.hidden * r.elem_bytes / p.tp;

  for (int chunk = 0; chunk < model_chunks(p); ++chunk) {
    const ChunkPasses c = chunk_passes(s, compute, r, chunk);
    in.forward.push_back(c.forward);
    in.backward.push_back(c.backward);
    in.backward_weight.push_back(c.backward_weight);
  }

  const double grad_bytes = gradient_element_bytes(s);
  const double dense_shards = p.zero_stage >= 1 ? double(p.dp) * p.cp : 1.0;
  const double expert_shards = p.zero_stage >= 1 ? double(p.dp / p.ep) * p.cp : 1.0;
  for (int stage = 0; stage < p.pp; ++stage) {
    const StageParameters params = stage_parameters_per_rank(s, stage);
    // Sharding by unit, the passes reduce and gather (add_fsdp_collectives): nothing is left for
    // after the backward or the optimizer step.
    const double after = shards_by_unit(s) ? 0 : 1;
    in.gradient_bytes.push_back(after * params.dense * grad_bytes);
    in.expert_gradient_bytes.push_back(after * params.expert * grad_bytes);
    in.parameter_bytes.push_back(after * weight_gather_bytes(s, params.dense, params.embedding, r.elem_bytes));
    in.expert_parameter_bytes.push_back(after * weight_gather_bytes(s, params.expert, 0, r.elem_bytes));
    const double updated = params.dense / dense_shards + params.expert / expert_shards;
    KernelClassTimes step = launched_pass(optimizer_step_ops(s, stage_parameter_tensors(s, stage, updated)), compute,
                                           host_launch_s(s.training));
    step.launch_s += step_overhead_s(s.training);
    in.optimizer_classes.push_back(step);
    in.optimizer_s.push_back(step.total_s());
  }
  return in;
}

}  // namespace

// A GPU at its power limit runs its tensor cores slower the more of its work they fill
// (DeviceSpec::tensor_clock): priced once at the in-step rate, then again at the clock that the
// share of matmuls and attention in its passes gives (the steady state that sets its power; the
// optimizer step, once per iteration, left out). A layer model's passes come at that clock from
// layer_model_pass already.
WorkloadInputs workload_inputs(const Scenario& s, const ComputeModel& compute) {
  if (s.layer_model) return layer_model_workload_inputs(s, compute);
  const WorkloadInputs in = priced_inputs(s, compute);
  KernelClassTimes t;
  for (const std::vector<StagePass>* passes : {&in.forward, &in.backward})
    for (const StagePass& pass : *passes) t += pass.classes;
  const std::optional<ComputeModel> slowed = compute.under_power_limit(t);
  return slowed ? priced_inputs(s, *slowed) : in;
}

KernelClassTimes iteration_kernel_classes(const Scenario& s, const ComputeModel& compute) {
  const WorkloadInputs in = workload_inputs(s, compute);
  const ParallelismConfig& p = s.parallelism;
  KernelClassTimes busiest;
  for (int stage = 0; stage < int(in.optimizer_s.size()); ++stage) {
    KernelClassTimes t;
    for (int chunk = 0; chunk < int(in.forward.size()); ++chunk) {
      if (stage_of_chunk(p, chunk) != stage) continue;
      t += in.forward[size_t(chunk)].classes.scaled(in.micro_batches);
      t += in.backward[size_t(chunk)].classes.scaled(in.micro_batches);
    }
    if (stage < int(in.optimizer_classes.size())) t += in.optimizer_classes[size_t(stage)];
    if (t.total_s() > busiest.total_s()) busiest = t;
  }
  return busiest;
}

}  // namespace dtsim
