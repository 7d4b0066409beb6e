#include "transformer_ops.hpp"

#include <cmath>

#include "device_spec.hpp"
#include "gemm_shape.hpp"

namespace dtsim {

namespace {

// A GEMM [m x k] x [k x n]: 2mkn FLOPs, reads both inputs and writes the output once, at the
// rate its shape reaches (gemm_shape.hpp).
Operator gemm(const char* name, double m, double k, double n, double e) {
  Operator op{name, OperatorKind::gemm, 2 * m * k * n, (m * k + k * n + m * n) * e};
  op.m = m, op.n = n, op.k = k;
  op.shape_efficiency = gemm_shape_factor(m, n, k);
  return op;
}

// The backward GEMMs, each as large as the forward: dgrad [m x n] x [n x k] and wgrad
// [k x m] x [m x n], whose reduction runs over the m tokens. 1 for batched attention GEMMs.
enum class BackwardGemm { dgrad, wgrad };
double backward_shape_efficiency(const Operator& fwd, BackwardGemm which) {
  if (fwd.m <= 0) return 1;
  return which == BackwardGemm::dgrad ? gemm_shape_factor(fwd.m, fwd.k, fwd.n) : gemm_shape_factor(fwd.k, fwd.n, fwd.m);
}

// `gemms` backward GEMMs of `fwd` (dgrad, wgrad or both), each as large as it and in its precision.
Operator backward_gemms(const char* name, const Operator& fwd, double gemms, double shape_efficiency) {
  Operator op{name, fwd.kind, gemms * fwd.flops, gemms * fwd.bytes, fwd.tile_utilization};
  op.working_precision_gemm = fwd.working_precision_gemm;
  op.shape_efficiency = shape_efficiency;
  op.kernels = int(gemms);
  return op;
}

// Both backward GEMMs, one after the other: equal FLOPs, so the harmonic mean of their rates.
Operator gemm_backward(const char* name, const Operator& fwd) {
  return backward_gemms(name, fwd, 2,
                        2 / (1 / backward_shape_efficiency(fwd, BackwardGemm::dgrad) +
                             1 / backward_shape_efficiency(fwd, BackwardGemm::wgrad)));
}
Operator gemm_half_backward(const char* name, const Operator& fwd, BackwardGemm which) {
  return backward_gemms(name, fwd, 1, backward_shape_efficiency(fwd, which));
}

// Attention's batched GEMMs have head_dim as their inner (QK^T) or output (PV) dimension.
// Tensor-core kernels work in tiles of 64 along it, so a head_dim of 96 runs as 128:
// utilization head_dim / (64 * ceil(head_dim / 64)) (NVIDIA's "tile quantization").
double head_dim_tile_utilization(double head_dim) {
  constexpr double kTile = 64;
  return head_dim / (kTile * std::ceil(head_dim / kTile));
}

Operator elementwise(const char* name, double bytes) { return {name, OperatorKind::elementwise, 0, bytes}; }

Operator fused_attention(const RankShape& r, AttentionPass pass) {
  const double q_elements = r.batch * r.seq * r.heads * r.head_dim;
  const double kv_elements = r.batch * r.kv_seq * r.kv_heads * r.head_dim;
  // Forward reads Q, K, V and writes O; backward reads those and dO and writes dQ, dK, dV.
  const double elements = pass == AttentionPass::forward ? 2 * q_elements + 2 * kv_elements
                                                         : 4 * q_elements + 4 * kv_elements;
  Operator op{pass == AttentionPass::forward ? "fused_attention" : "fused_attention_backward",
              OperatorKind::attention_gemm, fused_attention_flops(r, pass), elements * r.elem_bytes,
              head_dim_tile_utilization(r.head_dim)};
  op.kernel_efficiency = fused_attention_efficiency(r.attention, pass, r.causal, r.kv_seq, *r.device);
  return op;
}

bool is_fused_attention(const Operator& op) {
  return op.kind == OperatorKind::attention_gemm && op.kernel_efficiency > 0;
}

// Backward of one forward operator: a matmul's dgrad + wgrad (2x), a fused attention kernel's
// backward, or an elementwise op reading grad and saved input and writing the input grad (2x traffic).
Operator backward_of(const Operator& f, const RankShape& r) {
  if (is_fused_attention(f)) return fused_attention(r, AttentionPass::backward);
  return f.flops > 0 ? gemm_backward(f.name, f) : elementwise(f.name, 2 * f.bytes);
}

// Core attention, the part selective recompute redoes: QK^T, scale-mask-softmax, dropout, (P)V,
// or the one fused kernel that does all of it on chip.
std::vector<Operator> core_attention_forward(const RankShape& r) {
  if (r.attention != AttentionKernel::unfused) return {fused_attention(r, AttentionPass::forward)};
  const double e = r.elem_bytes;
  const double batched = r.batch * r.heads;             // independent (s x s_kv) problems
  const double q = r.seq, k = r.kv_seq;
  const double scores = batched * q * k;                // elements of the attention matrix
  return {
      {"attention_scores", OperatorKind::attention_gemm, 2 * batched * q * k * r.head_dim,
       batched * ((q + k) * r.head_dim + q * k) * e, head_dim_tile_utilization(r.head_dim)},
      elementwise("softmax", 2 * scores * e),             // fused scale-mask-softmax: read + write
      elementwise("attention_dropout", scores * (2 * e + 1)),  // read, write, 1-byte mask
      {"attention_values", OperatorKind::attention_gemm, 2 * batched * q * k * r.head_dim,
       batched * (q * k + (q + k) * r.head_dim) * e, head_dim_tile_utilization(r.head_dim)},
  };
}

// Dense MLP: up (gate + up for SwiGLU), activation, down.
void append_dense_mlp(std::vector<Operator>& ops, const RankShape& r) {
  const double t = r.tokens(), e = r.elem_bytes, h = r.hidden;
  const double up_width = r.mlp == MlpKind::swiglu ? 2 * r.ffn : r.ffn;
  ops.push_back(gemm("mlp_up_gemm", t, h, up_width, e));
  ops.push_back(elementwise(r.mlp == MlpKind::swiglu ? "swiglu" : "gelu", (r.mlp == MlpKind::swiglu ? 3 : 2) * t * r.ffn * e));
  ops.push_back(gemm("mlp_down_gemm", t, r.ffn, h, e));
}

// MoE MLP: router, permutation into expert order, the local experts' GEMMs over the tokens
// dispatched to them, and the inverse permutation. The all-to-alls around the experts are
// collectives (ep_all_to_all_bytes), not operators.
void append_moe_mlp(std::vector<Operator>& ops, const RankShape& r) {
  const double t = r.tokens(), e = r.elem_bytes, h = r.hidden;
  const double routed = r.expert_tokens();
  const double up_width = r.mlp == MlpKind::swiglu ? 2 * r.expert_ffn : r.expert_ffn;
  ops.push_back(gemm("router_gemm", t, h, r.moe.experts, e));
  ops.push_back(elementwise("router_softmax_topk", 2 * t * r.moe.experts * 4));  // fp32 probabilities
  ops.push_back(elementwise("token_permute", 2 * routed * h * e));
  ops.push_back(gemm("expert_up_gemm", routed, h, up_width, e));
  ops.push_back(elementwise(r.mlp == MlpKind::swiglu ? "expert_swiglu" : "expert_gelu",
                            (r.mlp == MlpKind::swiglu ? 3 : 2) * routed * r.expert_ffn * e));
  ops.push_back(gemm("expert_down_gemm", routed, r.expert_ffn, h, e));
  ops.push_back(elementwise("token_unpermute", 2 * routed * h * e));
}

// FP8 GEMMs as Transformer Engine and torchao run them: every GEMM input activation [m x k] and,
// in the backward, every output gradient [m x n] is cast to FP8 together with a transposed copy,
// at the recipe's bytes per element (precision.hpp). TE fuses some of these casts into the
// LayerNorm and GELU kernels before them, saving the bf16 read; dtsim counts them unfused.
// Weights are cast once per iteration (TE's first-micro-batch cache) and are left out.
// fp8_casts: the casts of the GEMMs among `forward`, of their inputs [m x k] or of their output
// gradients [m x n].
enum class Fp8Cast { inputs, output_gradients };
std::vector<Operator> fp8_casts(const std::vector<Operator>& forward, Fp8Cast which, Fp8Recipe recipe) {
  std::vector<Operator> casts;
  for (const Operator& op : forward) {
    if (op.kind != OperatorKind::gemm) continue;
    const double elements = op.m * (which == Fp8Cast::inputs ? op.k : op.n);
    casts.push_back(elementwise(which == Fp8Cast::inputs ? "fp8_cast_transpose" : "fp8_cast_transpose_grad",
                                fp8_cast_transpose_bytes_per_element(recipe) * elements));
  }
  return casts;
}

// The layer's operators before FP8 casts.
std::vector<Operator> layer_compute_ops(const RankShape& r) {
  const double t = r.tokens(), e = r.elem_bytes, h = r.hidden;
  const double sharded = r.sharded_tokens();
  const double qkv_width = (r.heads + 2 * r.kv_heads) * r.head_dim;
  std::vector<Operator> ops;
  ops.push_back(elementwise("input_norm", 2 * sharded * h * e));
  ops.push_back(gemm("qkv_gemm", t, h, qkv_width, e));
  for (const Operator& op : core_attention_forward(r)) ops.push_back(op);
  ops.push_back(gemm("attention_projection", t, r.heads * r.head_dim, h, e));
  ops.push_back(elementwise("attention_dropout_residual", sharded * h * (3 * e + 1)));
  ops.push_back(elementwise("post_attention_norm", 2 * sharded * h * e));
  if (r.moe.enabled())
    append_moe_mlp(ops, r);
  else
    append_dense_mlp(ops, r);
  ops.push_back(elementwise("mlp_dropout_residual", sharded * h * (3 * e + 1)));
  return ops;
}

// The widths (n) of the matmuls a GEMM operator stands for, in the order a PyTorch model runs
// them: the fused QKV projection is wq, wk, wv; a SwiGLU up projection is w1 (gate), then w3.
std::vector<double> matmul_widths(const Operator& gemm, const RankShape& r) {
  const std::string name = gemm.name;
  const double q = r.heads * r.head_dim, kv = r.kv_heads * r.head_dim;
  if (name == "qkv_gemm") return {q, kv, kv};
  if ((name == "mlp_up_gemm" || name == "expert_up_gemm") && r.mlp == MlpKind::swiglu)
    return {gemm.n / 2, gemm.n / 2};
  return {gemm.n};
}

// TorchTitan's per-op selective recompute: the layer's matmuls are counted in order and every
// second one is recomputed; the fused attention kernel's output is saved; every other operator
// (norms, activations, residual adds, unfused attention's batched GEMMs and softmax) is
// recomputed. (torchtitan activation_checkpoint.py: "Saves output of all compute ops, except
// every second mm".)
std::vector<Operator> every_second_matmul_recompute(const RankShape& r) {
  std::vector<Operator> ops;
  int matmuls = 0;
  for (const Operator& op : layer_compute_ops(r)) {
    if (op.kind != OperatorKind::gemm) {
      if (!is_fused_attention(op)) ops.push_back(op);
      continue;
    }
    for (double n : matmul_widths(op, r))
      if (++matmuls % 2 == 0) ops.push_back(gemm(op.name, op.m, op.k, n, r.elem_bytes));
  }
  return ops;
}

void append(std::vector<Operator>& to, const std::vector<Operator>& more) {
  to.insert(to.end(), more.begin(), more.end());
}

}  // namespace

RankShape rank_shape(const Scenario& s) {
  const TransformerConfig& m = s.model;
  const int tp = s.parallelism.tp;
  RankShape r;
  r.batch = s.training.micro_batch;
  r.seq = double(m.seq_len) / s.parallelism.cp;
  r.kv_seq = m.seq_len;
  r.hidden = m.hidden;
  r.heads = double(m.heads) / tp;
  r.kv_heads = double(m.kv_heads > 0 ? m.kv_heads : m.heads) / tp;
  r.head_dim = m.head_dim();
  r.ffn = double(m.ffn_hidden) / tp;
  r.vocab = double(m.vocab) / tp;
  r.elem_bytes = element_bytes(working_precision(s.training.precision));
  r.fp8_gemms = s.training.precision == Precision::fp8;
  r.fp8_recipe = s.training.fp8_recipe;
  r.mlp = m.mlp;
  r.tp = tp;
  r.sequence_parallel = s.parallelism.sequence_parallel && tp > 1;
  r.moe = m.moe;
  r.expert_ffn = double(m.moe.expert_ffn_hidden) / tp;
  r.device = find_device(s.cluster.gpu);
  r.attention = r.device ? resolve_attention_kernel(s.training.attention, *r.device) : AttentionKernel::unfused;
  return r;
}

std::vector<Operator> layer_forward_ops(const RankShape& r) {
  std::vector<Operator> ops = layer_compute_ops(r);
  if (r.fp8_gemms) append(ops, fp8_casts(ops, Fp8Cast::inputs, r.fp8_recipe));
  return ops;
}

std::vector<Operator> layer_backward_ops(const RankShape& r) {
  const std::vector<Operator> forward = layer_compute_ops(r);
  std::vector<Operator> ops;
  for (const Operator& f : forward) ops.push_back(backward_of(f, r));
  if (r.fp8_gemms) append(ops, fp8_casts(forward, Fp8Cast::output_gradients, r.fp8_recipe));
  return ops;
}

// The output gradients' casts serve both halves; the input-gradient pass makes them.
std::vector<Operator> layer_backward_input_ops(const RankShape& r) {
  const std::vector<Operator> forward = layer_compute_ops(r);
  std::vector<Operator> ops;
  for (const Operator& f : forward) {
    if (f.kind == OperatorKind::gemm) ops.push_back(gemm_half_backward(f.name, f, BackwardGemm::dgrad));
    else ops.push_back(backward_of(f, r));
  }
  if (r.fp8_gemms) append(ops, fp8_casts(forward, Fp8Cast::output_gradients, r.fp8_recipe));
  return ops;
}

std::vector<Operator> layer_backward_weight_ops(const RankShape& r) {
  std::vector<Operator> ops;
  for (const Operator& f : layer_compute_ops(r))
    if (f.kind == OperatorKind::gemm) ops.push_back(gemm_half_backward(f.name, f, BackwardGemm::wgrad));
  return ops;
}

std::vector<Operator> layer_recompute_ops(const RankShape& r, Recompute mode) {
  switch (mode) {
    case Recompute::none: return {};
    case Recompute::selective: return core_attention_forward(r);
    case Recompute::selective_op: return every_second_matmul_recompute(r);
    case Recompute::full: return layer_forward_ops(r);
  }
  return {};
}

int tp_allreduces_per_layer_recompute(Recompute mode) {
  return mode == Recompute::full ? kTpAllReducesPerLayerForward : 0;
}

std::vector<Operator> embedding_forward_ops(const RankShape& r) {
  // Vocab-parallel lookup writes a (partly zero) [tokens x hidden] tensor, then adds positions.
  return {elementwise("embedding_lookup", 3 * r.tokens() * r.hidden * r.elem_bytes)};
}

std::vector<Operator> embedding_backward_ops(const RankShape& r) {
  return {elementwise("embedding_grad", 3 * r.tokens() * r.hidden * r.elem_bytes)};
}

namespace {
// The LM head stays in bf16 under FP8 training: Megatron-Core builds it as a plain
// tensor_parallel.ColumnParallelLinear, not a Transformer Engine module, and TorchTitan's float8
// converter skips it (filter_fqns = "output" in its llama3 train configs).
Operator logits_gemm(const RankShape& r) {
  Operator op = gemm("logits_gemm", r.tokens(), r.hidden, r.vocab, r.elem_bytes);
  op.working_precision_gemm = true;
  return op;
}
}  // namespace

std::vector<Operator> logits_forward_ops(const RankShape& r) {
  const double t = r.tokens();
  return {
      elementwise("final_norm", 2 * t * r.hidden * r.elem_bytes),
      logits_gemm(r),
      // Cross-entropy over the vocab slice: read logits, write fp32 softmax, read it back.
      elementwise("cross_entropy", t * r.vocab * (r.elem_bytes + 8)),
  };
}

std::vector<Operator> logits_backward_ops(const RankShape& r) {
  const double t = r.tokens();
  const Operator fwd = logits_gemm(r);
  return {
      elementwise("cross_entropy", t * r.vocab * (4 + r.elem_bytes)),  // softmax - onehot -> grad
      gemm_backward("logits_gemm", fwd),
      elementwise("final_norm", 4 * t * r.hidden * r.elem_bytes),
  };
}

double tp_allreduce_bytes(const RankShape& r) { return r.tokens() * r.hidden * r.elem_bytes; }

double cp_kv_bytes(const RankShape& r) { return 2 * r.batch * r.kv_seq * r.kv_heads * r.head_dim * r.elem_bytes; }

double ep_all_to_all_bytes(const RankShape& r) { return r.expert_tokens() * r.hidden * r.elem_bytes; }

double optimizer_bytes_per_parameter(Precision p, OptimizerKernels kernels) {
  // The Adam(W) update over fp32 grad, master weight, m and v, per parameter (4 B each access):
  // fused: read grad, weight, m, v, write weight, m, v: 28 B.
  // foreach (torch.optim.AdamW's multi-tensor path): weight decay mul_ 8, m lerp_ 12, v mul_ 8 and
  //   addcmul_ 16 (grad read twice), sqrt 8, div_ 8, add_ eps 8, weight addcdiv_ 16: 84 B.
  // per_tensor (Composer's DecoupledAdamW): the same with m's mul_ 8 and add_ 12 for lerp_: 92 B.
  double adam = 28;
  if (kernels == OptimizerKernels::foreach) adam = 84;
  if (kernels == OptimizerKernels::per_tensor) adam = 92;
  // Gradient-norm clipping, on by default in Megatron-LM, TorchTitan and llm-foundry: read the
  // grads for their norm (4 B), scale them (8 B; Megatron-LM scales only when the norm is over).
  constexpr double kClipping = 12;
  // The low-precision working copy of the weight, unless training in fp32.
  const double copy = p == Precision::fp32 ? 0 : element_bytes(working_precision(p));
  return adam + kClipping + copy;
}

double gradient_element_bytes(Precision p) {
  // Megatron-LM forces fp32 gradient accumulation and all-reduce for bf16 (and fp8 recipes);
  // fp16 training reduces in fp16.
  return p == Precision::fp16 ? 2 : 4;
}

double fused_attention_flops(const RankShape& r, AttentionPass pass) {
  const double forward = 4 * r.batch * r.heads * r.seq * r.kv_seq * r.head_dim * (r.causal ? 0.5 : 1.0);
  return pass == AttentionPass::forward ? forward : 2.5 * forward;
}

double sum_flops(const std::vector<Operator>& ops) {
  double f = 0;
  for (const Operator& op : ops) f += op.flops;
  return f;
}

namespace {
double iteration_flops(const Scenario& s, bool with_recompute) {
  RankShape r = rank_shape(s);
  if (!with_recompute) {
    r.moe.capacity_factor = 1;  // model FLOPs count routed tokens, not padding
    r.attention = AttentionKernel::unfused;  // and the whole score matrix, as the formula does
  }
  double per_micro_batch_rank = s.model.layers * (sum_flops(layer_forward_ops(r)) + sum_flops(layer_backward_ops(r)));
  if (with_recompute) per_micro_batch_rank += s.model.layers * sum_flops(layer_recompute_ops(r, s.training.recompute));
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
