#pragma once
// The operators one tensor-parallel rank runs for one micro-batch of a transformer, as its
// framework runs them (framework_kernels.hpp), with their FLOPs and HBM bytes, the optimizer step,
// and the tensor-parallel traffic between them.
#include <cstdint>
#include <optional>
#include <vector>

#include "compute_model.hpp"
#include "kernel_builders.hpp"
#include "rank_shape.hpp"
#include "scenario.hpp"

namespace dtsim {

// One transformer layer. Backward ops hold dgrad + wgrad; recompute ops are the forward work
// redone at the start of the backward pass (full: the whole layer; selective: core attention;
// selective_op: TorchTitan's per-op policy).
std::vector<Operator> layer_forward_ops(const RankShape& r);
std::vector<Operator> layer_backward_ops(const RankShape& r);
// The backward split as zero-bubble schedules split it: input gradients (B: every dgrad, the
// backward of attention and elementwise ops) and weight gradients (W: every wgrad and what only
// it needs).
std::vector<Operator> layer_backward_input_ops(const RankShape& r);
std::vector<Operator> layer_backward_weight_ops(const RankShape& r);
std::vector<Operator> layer_recompute_ops(const RankShape& r, Recompute mode);

std::vector<Operator> embedding_forward_ops(const RankShape& r);
std::vector<Operator> embedding_backward_ops(const RankShape& r);
// Final norm, LM head (tied to the embedding unless the model says otherwise) and the loss.
std::vector<Operator> logits_forward_ops(const RankShape& r);
std::vector<Operator> logits_backward_ops(const RankShape& r);

// What autograd keeps for the backward pass, per micro-batch, as the framework's forward operators
// state it (Operator::saved_bytes); nullopt where the framework states none (Megatron: the memory
// model's published formulas). One layer without recompute:
std::optional<double> saved_bytes_per_layer(const RankShape& r);
// The final norm, LM head and loss.
std::optional<double> saved_bytes_of_logits(const RankShape& r);
// Beside them, the loss's gradients at the peak of its backward pass (0 where not stated).
double loss_backward_bytes(const RankShape& r);

// The optimizer step over this rank's parameter tensors (fp32 master weights; their sizes in
// elements): gradient-norm clipping (on by default in Megatron-LM, TorchTitan, llm-foundry and the
// traced steps), the Adam(W) update as `s.training.optimizer` runs it, and Megatron's copy of the
// updated master weights into the working ones, each pass in its multi-tensor launches.
std::vector<Operator> optimizer_step_ops(const Scenario& s, const std::vector<double>& tensors);

// Megatron's TP all-reduces (or, with SP, all-gathers and reduce-scatters) carry one activation
// tensor: batch*seq*hidden elements.
double tp_allreduce_bytes(const RankShape& r);
// Context parallelism all-gathers K and V of the whole sequence (and reduce-scatters their
// gradients): 2 * batch * seq_len * kv_heads_on_rank * head_dim elements.
double cp_kv_bytes(const RankShape& r);
// Expert parallelism's all-to-all (dispatch, combine) buffer per rank: expert_tokens * hidden.
double ep_all_to_all_bytes(const RankShape& r);
constexpr int kTpAllReducesPerLayerForward = 2;   // after attention projection and after MLP
constexpr int kTpAllReducesPerLayerBackward = 2;  // input grads of QKV and MLP-up

// Bytes per gradient element in the data-parallel all-reduce (Megatron reduces bf16 grads in fp32).
double gradient_element_bytes(Precision p);
// The scenario's gradient element, in its buffer and on the wire: the above, or 2 with
// parallelism.grad_reduce_in_bf16 (Megatron-LM then keeps the gradient buffer in bf16 too).
double gradient_element_bytes(const Scenario& s);

double sum_flops(const std::vector<Operator>& ops);

// Model FLOPs of one iteration without recompute, summed from Megatron's operators with
// attention counted as the unfused GEMMs (all GPUs together): equals
// 72*B*s*l*h^2*(1 + s/(6h) + V/(12*l*h)) for a GPT model, the convention MFU is quoted in. The
// matmuls are the same in every framework.
double model_flops_per_iteration(const Scenario& s);
// The FLOPs the GPUs perform: recompute included, causal blocks skipped by a fused attention
// kernel left out (the "hardware FLOPs").
double hardware_flops_per_iteration(const Scenario& s);

}  // namespace dtsim
