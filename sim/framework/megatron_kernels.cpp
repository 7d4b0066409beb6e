// Megatron-LM / Megatron-Core / NeMo with Transformer Engine or Apex: fused LayerNorm/RMSNorm,
// bias-GeLU and SwiGLU kernels, fused bias-dropout-add, a fused scale-mask-softmax for unfused
// attention, cuDNN or FlashAttention for fused attention, the vocab-parallel cross-entropy, and
// weights held in the working precision (fp32 main gradients accumulated inside the wgrad GEMMs).
#include <cmath>

#include "framework_kernels.hpp"
#include "kernel_builders.hpp"

namespace dtsim {

namespace {

Operator streaming(const char* name, double bytes) { return memory_op(name, MemoryAccess::streaming, bytes); }
Operator norm(const char* name, double bytes) { return memory_op(name, MemoryAccess::normalization, bytes); }

Operator attention_part(Operator op) {
  op.core_attention = true;
  return op;
}

// Core attention, the part selective recompute redoes: QK^T, scale-mask-softmax, dropout, (P)V,
// or the one fused kernel that does all of it on chip.
std::vector<Operator> core_attention_forward(const RankShape& r) {
  if (r.attention != AttentionKernel::unfused) return {attention_part(fused_attention(r, AttentionPass::forward))};
  const double e = r.elem_bytes;
  const double batched = r.batch * r.heads;  // independent (s x s_kv) problems
  const double q = r.seq, k = r.kv_seq;
  const double scores = batched * q * k;  // elements of the attention matrix
  return {
      attention_part({"attention_scores", OperatorKind::attention_gemm, 2 * batched * q * k * r.head_dim,
                      batched * ((q + k) * r.head_dim + q * k) * e, head_dim_tile_utilization(r.head_dim)}),
      attention_part(memory_op("softmax", MemoryAccess::softmax, 2 * scores * e)),  // fused scale-mask-softmax
      attention_part(dropout_op("attention_dropout", scores, e, false)),
      attention_part({"attention_values", OperatorKind::attention_gemm, 2 * batched * q * k * r.head_dim,
                      batched * (q * k + (q + k) * r.head_dim) * e, head_dim_tile_utilization(r.head_dim)}),
  };
}

// Dense MLP: up (gate + up for SwiGLU), activation, down.
void append_dense_mlp(std::vector<Operator>& ops, const RankShape& r) {
  const double t = r.tokens(), e = r.elem_bytes, h = r.hidden;
  const bool swiglu = r.mlp == MlpKind::swiglu;
  const double up_width = swiglu ? 2 * r.ffn : r.ffn;
  ops.push_back(gemm("mlp_up_gemm", t, h, up_width, e));
  ops.push_back(streaming(swiglu ? "swiglu" : "gelu", (swiglu ? 3 : 2) * t * r.ffn * e));
  ops.push_back(gemm("mlp_down_gemm", t, r.ffn, h, e));
}

// MoE MLP: router, permutation into expert order, the local experts' GEMMs over the tokens
// dispatched to them, and the inverse permutation. The all-to-alls around the experts are
// collectives (ep_all_to_all_bytes), not operators.
void append_moe_mlp(std::vector<Operator>& ops, const RankShape& r) {
  const double t = r.tokens(), e = r.elem_bytes, h = r.hidden;
  const double routed = r.expert_tokens();
  const bool swiglu = r.mlp == MlpKind::swiglu;
  const double up_width = swiglu ? 2 * r.expert_ffn : r.expert_ffn;
  ops.push_back(gemm("router_gemm", t, h, r.moe.experts, e));
  ops.push_back(memory_op("router_softmax_topk", MemoryAccess::softmax, 2 * t * r.moe.experts * 4));  // fp32
  ops.push_back(memory_op("token_permute", MemoryAccess::strided, 2 * routed * h * e));
  ops.push_back(gemm("expert_up_gemm", routed, h, up_width, e));
  ops.push_back(streaming(swiglu ? "expert_swiglu" : "expert_gelu", (swiglu ? 3 : 2) * routed * r.expert_ffn * e));
  ops.push_back(gemm("expert_down_gemm", routed, r.expert_ffn, h, e));
  ops.push_back(memory_op("token_unpermute", MemoryAccess::strided, 2 * routed * h * e));
}

// The layer's operators before FP8 casts.
std::vector<Operator> layer_compute_ops(const RankShape& r) {
  const double t = r.tokens(), e = r.elem_bytes, h = r.hidden;
  const double sharded = r.sharded_tokens();
  const double qkv_width = (r.heads + 2 * r.kv_heads) * r.head_dim;
  std::vector<Operator> ops;
  ops.push_back(norm("input_norm", 2 * sharded * h * e));
  ops.push_back(gemm("qkv_gemm", t, h, qkv_width, e));
  for (const Operator& op : core_attention_forward(r)) ops.push_back(op);
  ops.push_back(gemm("attention_projection", t, r.heads * r.head_dim, h, e));
  ops.push_back(streaming("attention_dropout_residual", sharded * h * (3 * e + 1)));
  ops.push_back(norm("post_attention_norm", 2 * sharded * h * e));
  if (r.moe.enabled())
    append_moe_mlp(ops, r);
  else
    append_dense_mlp(ops, r);
  ops.push_back(streaming("mlp_dropout_residual", sharded * h * (3 * e + 1)));
  return ops;
}

// Backward of one forward operator: a matmul's dgrad and wgrad, a fused attention kernel's
// backward, or a memory-bound kernel reading the gradient and its saved input and writing the
// input's gradient (twice the traffic; a normalization's input gradient is its own kind of pass).
void append_backward_of(std::vector<Operator>& ops, const Operator& f, const RankShape& r) {
  if (is_fused_attention(f)) {
    ops.push_back(attention_part(fused_attention(r, AttentionPass::backward)));
  } else if (f.flops > 0) {
    ops.push_back(gemm_dgrad(f));
    ops.push_back(gemm_wgrad(f));
  } else {
    const MemoryAccess a = f.access == MemoryAccess::normalization ? MemoryAccess::norm_backward : f.access;
    ops.push_back(memory_op(f.name, a, 2 * f.bytes));
  }
}

std::vector<Operator> layer_forward(const RankShape& r) {
  std::vector<Operator> ops = layer_compute_ops(r);
  append_fp8_casts(ops, ops, Fp8Cast::inputs, r);
  return ops;
}

std::vector<Operator> layer_backward(const RankShape& r) {
  const std::vector<Operator> forward = layer_compute_ops(r);
  std::vector<Operator> ops;
  for (const Operator& f : forward) append_backward_of(ops, f, r);
  append_fp8_casts(ops, forward, Fp8Cast::output_gradients, r);
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

std::vector<Operator> embedding_forward(const RankShape& r) {
  // Vocab-parallel lookup writes a (partly zero) [tokens x hidden] tensor, then adds positions.
  return {streaming("embedding_lookup", 3 * r.tokens() * r.hidden * r.elem_bytes)};
}

std::vector<Operator> embedding_backward(const RankShape& r) {
  return {streaming("embedding_grad", 3 * r.tokens() * r.hidden * r.elem_bytes)};
}

// The LM head stays in bf16 under FP8 training: Megatron-Core builds it as a plain
// tensor_parallel.ColumnParallelLinear, not a Transformer Engine module, and TorchTitan's float8
// converter skips it (filter_fqns = "output" in its llama3 train configs).
Operator logits_gemm(const RankShape& r) {
  Operator op = gemm("logits_gemm", r.tokens(), r.hidden, r.vocab, r.elem_bytes);
  op.working_precision_gemm = true;
  return op;
}

std::vector<Operator> logits_forward(const RankShape& r) {
  const double t = r.tokens();
  return {
      norm("final_norm", 2 * t * r.hidden * r.elem_bytes),
      logits_gemm(r),
      // Cross-entropy over the vocab slice: read logits, write fp32 softmax, read it back.
      memory_op("cross_entropy", MemoryAccess::softmax, t * r.vocab * (r.elem_bytes + 8)),
  };
}

std::vector<Operator> logits_backward(const RankShape& r) {
  const double t = r.tokens();
  const Operator fwd = logits_gemm(r);
  return {
      memory_op("cross_entropy", MemoryAccess::softmax, t * r.vocab * (4 + r.elem_bytes)),  // softmax - onehot
      gemm_dgrad(fwd),
      gemm_wgrad(fwd),
      memory_op("final_norm", MemoryAccess::norm_backward, 4 * t * r.hidden * r.elem_bytes),
  };
}

}  // namespace

const FrameworkKernels& megatron_kernels() {
  static const FrameworkKernels k{layer_forward,     layer_backward,     every_second_matmul_recompute,
                                  embedding_forward, embedding_backward, logits_forward,
                                  logits_backward};
  return k;
}

}  // namespace dtsim
