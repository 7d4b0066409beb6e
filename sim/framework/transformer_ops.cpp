#include "transformer_ops.hpp"

#include <algorithm>
#include <cmath>

#include "framework_kernels.hpp"
#include "multi_tensor_apply.hpp"

namespace dtsim {

namespace {

const FrameworkKernels& kernels_of(Framework f) {
  switch (f) {
    case Framework::megatron: return megatron_kernels();
    case Framework::pytorch: return eager_kernels();
    case Framework::torch_compile: return compiled_kernels();
  }
  return megatron_kernels();
}

const FrameworkKernels& kernels_of(const RankShape& r) { return kernels_of(r.framework); }

// TorchTitan's per-op selective recompute on a framework whose GEMM operators are single matmuls:
// every second matmul and every other operator but the fused attention kernel (whose output is
// saved). torchtitan activation_checkpoint.py: "Saves output of all compute ops, except every
// second mm".
std::vector<Operator> every_second_matmul(const std::vector<Operator>& forward) {
  std::vector<Operator> ops;
  int matmuls = 0;
  for (const Operator& op : forward) {
    if (is_fused_attention(op)) continue;
    if (op.kind == OperatorKind::gemm && ++matmuls % 2 == 1) continue;
    ops.push_back(op);
  }
  return ops;
}

// Non-reentrant checkpointing stops the recomputation once every tensor the backward saved is
// back (torch/utils/checkpoint.py, early stop, the default since PyTorch 2.1): the operators after
// the last that keeps something never rerun, and a matmul that keeps its inputs stores them before
// its kernel runs, so a layer ending in one stops before it. The traced Llama step with each block
// checkpointed (tests/data/h100-2026-11-28, llama-1b-s8192-mb1-recompute) reruns 5 of its 6
// matmuls per block: the SwiGLU product, then the down projection's weight cast, then the backward.
std::vector<Operator> stopped_early(std::vector<Operator> forward) {
  size_t end = forward.size();
  while (end > 0 && forward[end - 1].saved_bytes <= 0) --end;
  if (end > 0 && forward[end - 1].kind == OperatorKind::gemm) --end;
  forward.resize(end);
  return forward;
}

std::vector<Operator> core_attention(const std::vector<Operator>& forward) {
  std::vector<Operator> ops;
  for (const Operator& op : forward)
    if (op.core_attention) ops.push_back(op);
  return ops;
}

std::vector<Operator> only(const std::vector<Operator>& ops, bool weight_gradient) {
  std::vector<Operator> kept;
  for (const Operator& op : ops)
    if (op.weight_gradient == weight_gradient) kept.push_back(op);
  return kept;
}

}  // namespace

std::vector<Operator> layer_forward_ops(const RankShape& r) { return kernels_of(r).layer_forward(r); }
std::vector<Operator> layer_backward_ops(const RankShape& r) { return kernels_of(r).layer_backward(r); }
std::vector<Operator> layer_backward_input_ops(const RankShape& r) { return only(layer_backward_ops(r), false); }
std::vector<Operator> layer_backward_weight_ops(const RankShape& r) { return only(layer_backward_ops(r), true); }

std::vector<Operator> layer_recompute_ops(const RankShape& r, Recompute mode) {
  const FrameworkKernels& k = kernels_of(r);
  switch (mode) {
    case Recompute::none: return {};
    case Recompute::selective: return core_attention(k.layer_forward(r));
    case Recompute::selective_op:
      return k.layer_selective_op_recompute ? k.layer_selective_op_recompute(r) : every_second_matmul(k.layer_forward(r));
    case Recompute::full: return r.recompute_stops_early ? stopped_early(k.layer_forward(r)) : k.layer_forward(r);
  }
  return {};
}

std::vector<Operator> embedding_forward_ops(const RankShape& r) { return kernels_of(r).embedding_forward(r); }
std::vector<Operator> embedding_backward_ops(const RankShape& r) { return kernels_of(r).embedding_backward(r); }
std::vector<Operator> logits_forward_ops(const RankShape& r) { return kernels_of(r).logits_forward(r); }
std::vector<Operator> logits_backward_ops(const RankShape& r) { return kernels_of(r).logits_backward(r); }

namespace {
double sum_saved_bytes(const std::vector<Operator>& ops) {
  double bytes = 0;
  for (const Operator& op : ops) bytes += op.saved_bytes;
  return bytes;
}
}  // namespace

std::optional<double> saved_bytes_per_layer(const RankShape& r) {
  const FrameworkKernels& k = kernels_of(r);
  if (!k.loss_backward_bytes) return std::nullopt;
  return sum_saved_bytes(k.layer_forward(r));
}

std::optional<double> saved_bytes_of_logits(const RankShape& r) {
  const FrameworkKernels& k = kernels_of(r);
  if (!k.loss_backward_bytes) return std::nullopt;
  return sum_saved_bytes(k.logits_forward(r));
}

double loss_backward_bytes(const RankShape& r) {
  const FrameworkKernels& k = kernels_of(r);
  return k.loss_backward_bytes ? k.loss_backward_bytes(r) : 0;
}

std::vector<Operator> optimizer_step_ops(const Scenario& s, const std::vector<double>& tensors) {
  double p = 0;
  for (const double n : tensors) p += n;
  MultiTensorPasses passes(tensors);
  std::vector<Operator> ops;
  add_grad_norm_clipping(ops, passes);
  // Adam(W) over fp32 gradient, master weight, m and v (4 B each access):
  // fused: read grad, weight, m, v, write weight, m, v: 28 B in one pass over the four lists.
  // foreach (torch.optim.AdamW's multi-tensor path), eight passes: weight decay mul_ 8, m lerp_
  //   12, v mul_ 8 and addcmul_ 16 (grad read twice), sqrt 8 (into new tensors), div_ 8, add_ eps
  //   8, weight addcdiv_ 16: 84 B.
  // per_tensor (Composer's DecoupledAdamW): the same with m's mul_ 8 and add_ 12 for lerp_: 92 B in
  //   9 kernels for each tensor with a gradient (composer/optim/decoupled_weight_decay.py @ v0.16.3
  //   skips the others).
  switch (s.training.optimizer) {
    case OptimizerKernels::fused:
      add_multi_tensor_pass(ops, "adam", MemoryAccess::optimizer_step, passes.of_depth(4), 28);
      break;
    case OptimizerKernels::foreach: {
      constexpr struct { int depth; double bytes; } kForeachAdamPasses[] = {{1, 8}, {2, 12}, {1, 8}, {3, 16},
                                                                            {2, 8}, {1, 8}, {1, 8}, {3, 16}};
      for (const auto& pass : kForeachAdamPasses)
        add_multi_tensor_pass(ops, "adam", MemoryAccess::multi_tensor, passes.of_depth(pass.depth), pass.bytes);
      break;
    }
    case OptimizerKernels::per_tensor: {
      const auto stepped = std::count_if(tensors.begin(), tensors.end(), [](double n) { return n > 0; });
      ops.push_back(optimizer_op("adam", MemoryAccess::streaming, 92 * p, 9 * std::max(1, int(stepped))));
      break;
    }
  }
  // Megatron's bf16 optimizer copies the updated fp32 master weights into the working ones (read
  // 4, write 2 B: two lists) and zeroes its fp32 gradient buffer for the next iteration.
  if (s.training.framework == Framework::megatron && s.training.precision != Precision::fp32) {
    const double working = element_bytes(working_precision(s.training.precision));
    add_multi_tensor_pass(ops, "master_to_working_copy", MemoryAccess::multi_tensor, passes.of_depth(2), 4 + working);
    ops.push_back(optimizer_op("zero_grad_buffer", MemoryAccess::fill, 4 * p, 1));
  }
  return ops;
}

double tp_allreduce_bytes(const RankShape& r) { return r.tokens() * r.hidden * r.elem_bytes; }

double cp_kv_bytes(const RankShape& r) { return 2 * r.batch * r.kv_seq * r.kv_heads * r.head_dim * r.elem_bytes; }

double ep_all_to_all_bytes(const RankShape& r) { return r.expert_tokens() * r.hidden * r.elem_bytes; }

double gradient_element_bytes(Precision p) {
  // Megatron-LM forces fp32 gradient accumulation and all-reduce for bf16 (and fp8 recipes);
  // fp16 training reduces in fp16.
  return p == Precision::fp16 ? 2 : 4;
}

double gradient_element_bytes(const Scenario& s) {
  return s.parallelism.grad_reduce_in_bf16 ? 2 : gradient_element_bytes(s.training.precision);
}

double sum_flops(const std::vector<Operator>& ops) {
  double f = 0;
  for (const Operator& op : ops) f += op.flops;
  return f;
}

namespace {
// A recomputed layer's FLOPs, counted on Megatron's kernels (`whole`, the same matmuls in every
// framework) less what the scenario's own framework leaves out of its rerun when it stops early.
double rerun_flops(const RankShape& whole, RankShape own, Recompute mode) {
  const double stopped = sum_flops(layer_recompute_ops(own, mode));
  own.recompute_stops_early = false;
  const double left_out = sum_flops(layer_recompute_ops(own, mode)) - stopped;
  return sum_flops(layer_recompute_ops(whole, mode)) - left_out;
}

double iteration_flops(const Scenario& s, bool with_recompute) {
  const RankShape own = rank_shape(s);
  RankShape r = own;
  r.framework = Framework::megatron;  // the same matmuls in every framework
  r.recompute_stops_early = false;
  if (!with_recompute) {
    r.moe.capacity_factor = 1;  // model FLOPs count routed tokens, not padding
    r.attention = AttentionKernel::unfused;  // and the whole score matrix, as the formula does
  }
  double per_micro_batch_rank = s.model.layers * (sum_flops(layer_forward_ops(r)) + sum_flops(layer_backward_ops(r)));
  // Recomputed layers: all, or with recompute_layers that many per model chunk (exact while every
  // chunk holds at least that many; the chunks' own sizes live in the workload's stage layout).
  const int chunks = s.parallelism.pp * s.parallelism.virtual_stages;
  const double recomputed = std::min(s.model.layers, chunks * recomputed_layers(s.training, s.model.layers));
  if (with_recompute) per_micro_batch_rank += recomputed * rerun_flops(r, own, s.training.recompute);
  per_micro_batch_rank += sum_flops(logits_forward_ops(r)) + sum_flops(logits_backward_ops(r));
  // Per rank the shapes are 1/tp of the model and 1/cp of the sequence; tp x cp ranks together
  // do one micro-batch's work.
  const double micro_batches = double(s.training.global_batch) / s.training.micro_batch;
  return per_micro_batch_rank * s.parallelism.tp * s.parallelism.cp * micro_batches;
}
}  // namespace

double model_flops_per_iteration(const Scenario& s) { return iteration_flops(s, false); }
double hardware_flops_per_iteration(const Scenario& s) { return iteration_flops(s, true); }

}  // namespace dtsim
