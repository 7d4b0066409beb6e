// Eager PyTorch: one kernel per operator. Read off the H100 traces of a GPT (LayerNorm, learned
// positions, biases, fused QKV, GeLU, dropout) and a Llama (RMSNorm, RoPE, separate q, k, v,
// SwiGLU) step under torch.autocast(bf16) (tests/data/h100-2026-11-26/traces; docs/frameworks.md
// lists every kernel with the trace operator it stands for). Under autocast the weights are fp32:
// every linear casts its weight (and an fp32 input) to bf16, the residual stream stays fp32 (the
// embedding's output is fp32, every add promotes), and each gradient flowing back into an fp32
// tensor is cast up. Without autocast (fp32 training, or weights held in the working precision)
// there are no casts and the stream is in the working precision.
// What each operator keeps for the backward pass (Operator::saved_bytes) follows PyTorch's
// derivative formulas (tools/autograd/derivatives.yaml): a matmul keeps its two inputs (the
// weight's bf16 cast is a tensor of its own), a norm its input, SiLU and GeLU their input, a
// product both factors, dropout its 1-byte mask, SDPA its q, k, v, output and log-sum-exp, and
// log-softmax its output; adds, casts and products with a constant table keep nothing. Summed
// over the traced Llama, compiled Llama and GPT steps with the held logits and the loss's
// gradients, they give the measured peak allocated within 0.3% (validation/single-gpu-steps.yaml).
#include "framework_kernels.hpp"
#include "kernel_builders.hpp"

namespace dtsim {

namespace {

// The kernels of one pass with the rank's shape at hand: e() bytes per working element, s() per
// element of the residual stream.
class Kernels : public KernelList {
 public:
  explicit Kernels(const RankShape& r) : r_(r) {}

  double e() const { return r_.elem_bytes; }
  double s() const { return r_.stream_bytes(); }
  const RankShape& r() const { return r_; }

 private:
  const RankShape& r_;
};

// A linear layer: [m x k] x [k x n] (+ bias). `fp32_input`: its input is a norm's output, in
// fp32 under autocast, so autocast casts it too (each linear its own copy). `input_kept`: another
// operator's count already holds its input (the attention output, the permuted tokens).
struct Linear {
  const char* name;
  double m, k, n;
  bool fp32_input;
  bool input_kept = false;
};

Operator linear_gemm(const Linear& l, const RankShape& r) { return cublas_gemm(l.name, l.m, l.k, l.n, r.elem_bytes); }

void linear_forward(Kernels& k, const Linear& l) {
  const RankShape& r = k.r();
  if (r.autocast) {
    k.mem("weight_cast", MemoryAccess::streaming, l.k * l.n * (4 + k.e()));
    k.keep(l.k * l.n * k.e());
    if (r.bias) k.mem("bias_cast", MemoryAccess::streaming, l.n * (4 + k.e()));
    if (l.fp32_input) {
      k.mem("input_cast", MemoryAccess::streaming, l.m * l.k * (4 + k.e()));
      k.keep(l.m * l.k * k.e());
    }
  }
  k.add(linear_gemm(l, r));
  // A norm's output without autocast is kept once, by the norm (norm_forward).
  if (!l.fp32_input && !l.input_kept) k.keep(l.m * l.k * k.e());
}

// dgrad, wgrad, the gradients cast back to the fp32 weight and input, the bias gradient, and
// (after the first micro-batch) the weight gradient added to the one already held.
void linear_backward(Kernels& k, const Linear& l) {
  const RankShape& r = k.r();
  const Operator fwd = linear_gemm(l, r);
  k.add(gemm_dgrad(fwd));
  k.add(gemm_wgrad(fwd));
  if (r.autocast && l.fp32_input) k.mem("input_grad_cast", MemoryAccess::unrolled, l.m * l.k * (k.e() + 4));
  if (r.autocast) k.weight_mem("weight_grad_cast", MemoryAccess::unrolled, l.k * l.n * (k.e() + 4));
  if (r.bias) {
    k.weight_mem("bias_grad", MemoryAccess::norm_backward, l.m * l.n * k.e());
    if (r.autocast) k.weight_mem("bias_grad_cast", MemoryAccess::unrolled, l.n * (k.e() + 4));
  }
  accumulate_weight_gradient(k, r, l.k * l.n);
}

// LayerNorm or RMSNorm over the stream: fp32 under autocast (an fp32 op in autocast's table). It
// keeps its input; without autocast its output too, the input every following linear keeps.
void norm_forward(Kernels& k) {
  const double th = k.r().tokens() * k.r().hidden;
  k.mem("norm", MemoryAccess::normalization, 2 * th * k.s());
  k.keep(th * k.s() + (k.r().autocast ? 0 : th * k.e()));
}

// Input gradient (read x and dy, write dx), then the weight (and bias) gradient (read x and dy).
void norm_backward(Kernels& k) {
  const double th = k.r().tokens() * k.r().hidden;
  k.mem("norm_backward", MemoryAccess::norm_backward, 3 * th * k.s());
  k.weight_mem("norm_weight_grad", MemoryAccess::normalization, 2 * th * k.s());
}

// x + branch: fp32 + bf16 -> fp32 under autocast (the unrolled, promoting kernel).
void residual_add(Kernels& k) {
  const double th = k.r().tokens() * k.r().hidden;
  if (k.r().autocast) k.mem("residual_add", MemoryAccess::promoting, th * (2 * k.s() + k.e()));
  else k.mem("residual_add", MemoryAccess::streaming, 3 * th * k.e());
}

// The branch's gradient is the stream's, cast down to the branch's bf16 under autocast.
void residual_branch_grad(Kernels& k) {
  const double th = k.r().tokens() * k.r().hidden;
  if (k.r().autocast) k.mem("residual_grad_cast", MemoryAccess::streaming, th * (4 + k.e()));
}

// Two gradients of one tensor summed (autograd's accumulation): read both, write one.
void grad_sum(Kernels& k, double elements, double bytes_per_element) {
  k.mem("grad_sum", MemoryAccess::streaming, 3 * elements * bytes_per_element);
}

void dropout_forward(Kernels& k) {
  if (k.r().dropout <= 0) return;
  const double th = k.r().tokens() * k.r().hidden;
  k.add(dropout_op("dropout", th, k.e(), false));
  k.keep(th);
}

void dropout_backward(Kernels& k) {
  if (k.r().dropout <= 0) return;
  const double th = k.r().tokens() * k.r().hidden;
  k.add(dropout_op("dropout_backward", th, k.e(), true));
}

// The layer's projections, as the model builds them.
struct LayerLinears {
  std::vector<Linear> qkv;  // one fused projection, or q, k and v
  Linear out;
  std::vector<Linear> up;   // SwiGLU: gate and up; GeLU: fc1
  Linear down;
};

LayerLinears layer_linears(const RankShape& r) {
  const double t = r.tokens(), h = r.hidden;
  const double q = r.heads * r.head_dim, kv = r.kv_heads * r.head_dim;
  LayerLinears l{{}, {"attention_out", t, q, h, false, true}, {}, {"mlp_down", t, r.ffn, h, false}};
  if (r.fused_qkv) l.qkv = {{"qkv", t, h, q + 2 * kv, true}};
  else l.qkv = {{"q", t, h, q, true}, {"k", t, h, kv, true}, {"v", t, h, kv, true}};
  // A MoE layer's experts run the MLP's matmuls over the tokens routed to this rank's experts.
  const double m = r.moe.enabled() ? r.expert_tokens() : t, f = r.moe.enabled() ? r.expert_ffn : r.ffn;
  l.down = {"mlp_down", m, f, h, false};
  const bool dense = !r.moe.enabled();  // a MoE layer's experts read the permuted tokens, kept once
  if (r.mlp == MlpKind::swiglu) l.up = {{"mlp_gate", m, h, f, dense, !dense}, {"mlp_up", m, h, f, dense, !dense}};
  else l.up = {{"mlp_fc1", m, h, f, dense, !dense}};
  return l;
}

// Rotary embedding on q or k of `heads` heads, as the traced Llama computes it on interleaved
// pairs: x_even * cos - x_odd * sin and x_even * sin + x_odd * cos (four broadcast multiplies
// with fp32 tables, which promote the result to fp32 under autocast), a subtract, an add and a
// stack of the two halves; attention's autocast casts the result back to bf16.
double rope_half_elements(const RankShape& r, double heads) { return r.tokens() * heads * r.head_dim / 2; }
double rope_bytes(const RankShape& r) { return r.autocast ? 4 : r.elem_bytes; }

void rope_forward(Kernels& k, double heads) {
  const double n = rope_half_elements(k.r(), heads), re = rope_bytes(k.r());
  k.mem("rope_multiply", MemoryAccess::strided, 4 * n * (k.e() + re), 4);
  k.mem("rope_add_sub", MemoryAccess::streaming, 2 * 3 * n * re, 2);
  k.mem("rope_stack", MemoryAccess::strided, 2 * 2 * n * re, 2);
  if (k.r().autocast) k.mem("attention_input_cast", MemoryAccess::streaming, 2 * n * (4 + k.e()));
}

// Backward, from the trace: the attention input's gradient cast up, four multiplies and a negation
// on strided fp32 halves, four casts back to the bf16 inputs, two adds of the halves' gradients,
// slice_backward's zero fill and copy for each half, their sum; then the head-major gradient is
// transposed back for the linear.
void rope_backward(Kernels& k, double heads) {
  const double n = rope_half_elements(k.r(), heads), re = rope_bytes(k.r()), e = k.e();
  if (k.r().autocast) k.mem("attention_input_grad_cast", MemoryAccess::unrolled, 2 * n * (e + 4));
  k.mem("rope_multiply_backward", MemoryAccess::unrolled, 5 * 2 * n * re, 5);
  if (k.r().autocast) k.mem("rope_grad_cast", MemoryAccess::streaming, 4 * n * (re + e), 4);
  k.mem("rope_half_grad_sum", MemoryAccess::streaming, 2 * 3 * n * e, 2);
  k.mem("slice_backward_fill", MemoryAccess::fill, 2 * 2 * n * e, 2);
  k.mem("slice_backward_copy", MemoryAccess::strided, 2 * 2 * n * e, 2);
  k.mem("rope_grad_sum", MemoryAccess::streaming, 3 * 2 * n * e);
  k.mem("head_transpose_grad", MemoryAccess::strided, 2 * 2 * n * e);
}

// masked_fill of the scores (bf16, read and written in place) with the [q, kv] causal mask broadcast
// over batch and heads, read once (it stays in L2): PyTorch's non-vectorized element-wise kernel
// (elementwise_kernel<128, 4>), forward and backward alike. The traced GPT-350M's both took 391.5
// us for 537.9 MB (0.41 of the peak; priced as strided, 0.35).
double causal_mask_bytes(const RankShape& r) {
  return r.batch * r.heads * r.seq * r.kv_seq * 2 * r.elem_bytes + r.seq * r.kv_seq;
}

// Attention written out (nanoGPT's "manual" path): QK^T, scale, causal masked_fill, softmax in fp32
// (autocast), dropout, the probabilities cast back to bf16, times V. Autocast runs softmax in fp32
// by casting its bf16 input first, a copy of its own (the traced GPT-350M: 416 us for the
// [8, 16, 1024, 1024] scores before the fp32 softmax; tests/data/h100-2026-11-28).
void unfused_attention_forward(Kernels& k) {
  const RankShape& r = k.r();
  const double e = k.e(), batched = r.batch * r.heads, q = r.seq, kv = r.kv_seq;
  const double scores = batched * q * kv, p = r.autocast ? 4 : e;
  const double util = head_dim_tile_utilization(r.head_dim);
  Operator qk{"attention_scores", OperatorKind::attention_gemm, 2 * scores * r.head_dim,
              batched * ((q + kv) * r.head_dim + q * kv) * e, util};
  qk.kernels = kCublasGemmActivities;
  qk.core_attention = true;
  Operator pv = qk;
  pv.name = "attention_values";
  k.add(qk);
  k.keep(r.tokens() * (r.heads + r.kv_heads) * r.head_dim * e);  // q and k
  k.mem("attention_scale", MemoryAccess::streaming, 2 * scores * e);
  k.mem("causal_mask", MemoryAccess::strided, causal_mask_bytes(r));
  if (r.autocast) k.mem("scores_cast", MemoryAccess::unrolled, scores * (e + 4));
  k.add(attention_softmax(scores, kv, p, p));
  k.keep(scores * p);
  if (r.dropout > 0) {
    k.add(dropout_op("attention_dropout", scores, p, false));
    k.keep(scores * (1 + (r.autocast ? 0 : p)));  // the mask, and the output PV keeps
  }
  if (r.autocast) {
    k.mem("probabilities_cast", MemoryAccess::streaming, scores * (4 + e));
    k.keep(scores * e);
  }
  k.add(pv);
  k.keep(r.tokens() * r.kv_heads * r.head_dim * e);  // v (the output's token-major copy: attention_forward)
}

void unfused_attention_backward(Kernels& k) {
  const RankShape& r = k.r();
  const double e = k.e(), batched = r.batch * r.heads, q = r.seq, kv = r.kv_seq;
  const double scores = batched * q * kv, p = r.autocast ? 4 : e;
  Operator bmm{"attention_gemm_backward", OperatorKind::attention_gemm, 4 * scores * r.head_dim,
               2 * batched * ((q + kv) * r.head_dim + q * kv) * e, head_dim_tile_utilization(r.head_dim)};
  bmm.kernels = 2 * kCublasGemmActivities;
  k.add(bmm);  // dP = dO V^T, dV = P^T dO
  if (r.autocast) k.mem("probabilities_grad_cast", MemoryAccess::unrolled, scores * (e + 4));
  if (r.dropout > 0) k.add(dropout_op("attention_dropout_backward", scores, p, true));
  for (const Operator& op : attention_softmax_backward(scores, kv, p)) k.add(op);
  if (r.autocast) k.mem("scores_grad_cast", MemoryAccess::streaming, scores * (4 + e));
  k.mem("causal_mask_backward", MemoryAccess::strided, causal_mask_bytes(r));
  k.mem("attention_scale_backward", MemoryAccess::streaming, 2 * scores * e);
  k.add(bmm);  // dQ = dS K, dK = dS^T Q
}

// Whether the attention output comes back head-major, to be copied token-major for the projection:
// where RoPE rebuilt q head-major, or unfused attention's batched GEMMs wrote it. Otherwise SDPA
// writes it in q's (token-major) layout, as the varlen API's padded copy does.
bool head_major_output(const RankShape& r) {
  return (r.position == PositionKind::rope || r.attention == AttentionKernel::unfused) && !r.attention_varlen;
}

void attention_forward(Kernels& k, const LayerLinears& l) {
  const RankShape& r = k.r();
  const double t = r.tokens();
  for (const Linear& linear : l.qkv) linear_forward(k, linear);
  // The fused projection's output is split into q, k and v by a copy ([b, s, 3, heads, d]); the
  // varlen API's gathers read them where the projection wrote them instead.
  if (r.fused_qkv && !r.attention_varlen) k.mem("qkv_split", MemoryAccess::strided, 2 * t * l.qkv[0].n * k.e());
  if (r.position == PositionKind::rope) {
    rope_forward(k, r.heads);
    rope_forward(k, r.kv_heads);
  }
  if (r.attention == AttentionKernel::unfused)
    unfused_attention_forward(k);
  else
    add_fused_attention(k, r, AttentionPass::forward);
  if (head_major_output(r)) {  // the projection keeps the copy
    k.mem("attention_output_transpose", MemoryAccess::strided, 2 * t * r.heads * r.head_dim * k.e());
    k.keep(t * r.heads * r.head_dim * k.e());
  }
  linear_forward(k, l.out);
  dropout_forward(k);
  residual_add(k);
}

void attention_backward(Kernels& k, const LayerLinears& l) {
  const RankShape& r = k.r();
  const double t = r.tokens(), th = t * r.hidden;
  residual_branch_grad(k);
  dropout_backward(k);
  linear_backward(k, l.out);
  if (head_major_output(r))
    k.mem("attention_output_transpose_grad", MemoryAccess::strided, 2 * t * r.heads * r.head_dim * k.e());
  if (r.attention == AttentionKernel::unfused)
    unfused_attention_backward(k);
  else
    add_fused_attention(k, r, AttentionPass::backward);
  if (r.position == PositionKind::rope) {
    rope_backward(k, r.heads);
    rope_backward(k, r.kv_heads);
  }
  if (r.fused_qkv) k.mem("qkv_grad_stack", MemoryAccess::strided, 2 * t * l.qkv[0].n * k.e());
  // Unfused attention's batched GEMMs leave q, k and v's gradients head-major: once stacked, they
  // are copied token-major ([b, s, 3, heads, d]) for the projection (the traced GPT-350M: aten::cat
  // 102.6 us, then aten::copy_ 80.4 us).
  if (r.fused_qkv && r.attention == AttentionKernel::unfused)
    k.mem("qkv_grad_permute", MemoryAccess::strided, 2 * t * l.qkv[0].n * k.e());
  for (const Linear& linear : l.qkv) linear_backward(k, linear);
  for (size_t i = 1; i < l.qkv.size(); ++i) grad_sum(k, th, k.s());
}

// A MoE layer routes first: the router's linear and top-k softmax, then the tokens permuted into
// expert order (cast to bf16 with it), and permuted back after the experts.
Linear router_linear(const RankShape& r) { return {"router", r.tokens(), r.hidden, double(r.moe.experts), true}; }

void mlp_forward(Kernels& k, const LayerLinears& l) {
  const RankShape& r = k.r();
  const double tf = l.down.m * l.down.k;
  if (r.moe.enabled()) {
    linear_forward(k, router_linear(r));
    k.mem("router_softmax_topk", MemoryAccess::softmax, 3 * r.tokens() * r.moe.experts * 4);
    k.keep(r.tokens() * r.moe.experts * 4);
    k.mem("token_permute", MemoryAccess::strided, l.down.m * r.hidden * (k.s() + k.e()));
    k.keep(l.down.m * r.hidden * k.e());
  }
  for (const Linear& linear : l.up) linear_forward(k, linear);
  // SiLU and GeLU keep their input; the gate's product keeps both factors; the down projection
  // keeps its input.
  if (r.mlp == MlpKind::swiglu) {
    k.mem("silu", MemoryAccess::streaming, 2 * tf * k.e());
    k.keep(tf * k.e());
    k.mem("gate_multiply", MemoryAccess::streaming, 3 * tf * k.e());
    k.keep(2 * tf * k.e());
  } else {
    k.mem("gelu", MemoryAccess::streaming, 2 * tf * k.e());
    k.keep(tf * k.e());
  }
  linear_forward(k, l.down);
  if (r.moe.enabled()) k.mem("token_unpermute", MemoryAccess::strided, 2 * l.down.m * r.hidden * k.e());
  dropout_forward(k);
  residual_add(k);
}

void mlp_backward(Kernels& k, const LayerLinears& l) {
  const RankShape& r = k.r();
  const double tf = l.down.m * l.down.k, th = r.tokens() * r.hidden;
  residual_branch_grad(k);
  dropout_backward(k);
  if (r.moe.enabled()) k.mem("token_unpermute_grad", MemoryAccess::strided, 2 * l.down.m * r.hidden * k.e());
  linear_backward(k, l.down);
  if (r.mlp == MlpKind::swiglu) {
    k.mem("gate_multiply_backward", MemoryAccess::streaming, 2 * 3 * tf * k.e(), 2);
    k.mem("silu_backward", MemoryAccess::streaming, 3 * tf * k.e());
  } else {
    k.mem("gelu_backward", MemoryAccess::streaming, 3 * tf * k.e());
  }
  for (const Linear& linear : l.up) linear_backward(k, linear);
  if (r.moe.enabled()) {
    for (size_t i = 1; i < l.up.size(); ++i) grad_sum(k, l.down.m * r.hidden, k.e());
    k.mem("token_permute_grad", MemoryAccess::strided, l.down.m * r.hidden * (k.s() + k.e()));
    k.mem("router_softmax_backward", MemoryAccess::softmax, 3 * r.tokens() * r.moe.experts * 4);
    linear_backward(k, router_linear(r));
    grad_sum(k, th, k.s());
  } else {
    for (size_t i = 1; i < l.up.size(); ++i) grad_sum(k, th, k.s());
  }
}

std::vector<Operator> layer_forward(const RankShape& r) {
  Kernels k(r);
  const LayerLinears l = layer_linears(r);
  norm_forward(k);
  attention_forward(k, l);
  norm_forward(k);
  mlp_forward(k, l);
  std::vector<Operator> ops = k.take();
  append_fp8_casts(ops, ops, Fp8Cast::inputs, r);
  return ops;
}

std::vector<Operator> layer_backward(const RankShape& r) {
  Kernels k(r);
  const LayerLinears l = layer_linears(r);
  const double th = r.tokens() * r.hidden;
  mlp_backward(k, l);
  norm_backward(k);
  grad_sum(k, th, k.s());  // the norm's input gradient joins the stream's
  attention_backward(k, l);
  norm_backward(k);
  grad_sum(k, th, k.s());
  std::vector<Operator> ops = k.take();
  if (r.fp8_gemms) append_fp8_casts(ops, layer_forward(r), Fp8Cast::output_gradients, r);  // forward built only then
  return ops;
}

// Embedding lookup (a gather of fp32 rows under autocast), plus learned positions.
std::vector<Operator> embedding_forward(const RankShape& r) {
  Kernels k(r);
  const double th = r.tokens() * r.hidden;
  k.mem("token_ids", MemoryAccess::streaming, r.tokens() * 16);
  k.mem("embedding_gather", MemoryAccess::streaming, 2 * th * k.s());
  if (r.position == PositionKind::learned) k.mem("position_add", MemoryAccess::streaming, 3 * th * k.s(), 2);
  return k.take();
}

// embedding_dense_backward: the whole table's gradient zeroed, the token gradients sorted by
// token (about ten small CUB kernels) and summed into their rows; learned positions' gradient
// summed over the batch. A tied table's gradient is then added to the LM head's.
std::vector<Operator> embedding_backward(const RankShape& r) {
  Kernels k(r);
  const double th = r.tokens() * r.hidden, grad = r.weight_bytes();
  const double table = r.vocab * r.hidden;
  k.mem("embedding_grad_zero", MemoryAccess::fill, table * grad);
  k.mem("embedding_sort", MemoryAccess::streaming, r.tokens() * 16 * 10, 10);
  k.mem("embedding_grad_scatter", MemoryAccess::strided, 2 * 2 * th * k.s(), 2);
  if (r.position == PositionKind::learned) k.mem("position_grad", MemoryAccess::norm_backward, th * k.s());
  if (r.tied_embeddings) k.weight_mem("tied_grad_sum", MemoryAccess::streaming, 3 * table * grad);
  return k.take();
}

Linear logits_linear(const RankShape& r) { return {"logits", r.tokens(), r.hidden, r.vocab, true}; }

Operator logits_gemm(const RankShape& r) {
  Operator op = linear_gemm(logits_linear(r), r);
  op.working_precision_gemm = true;  // the LM head stays bf16 under fp8 (torchao skips "output")
  return op;
}

// Final norm, LM head, the logits cast to fp32 and log-softmax + NLL (HF's and TorchTitan's loss).
std::vector<Operator> logits_forward(const RankShape& r) {
  Kernels k(r);
  const double tv = r.tokens() * r.vocab;
  norm_forward(k);
  if (r.autocast) {
    k.mem("input_cast", MemoryAccess::streaming, r.tokens() * r.hidden * (4 + k.e()));
    k.keep(r.tokens() * r.hidden * k.e());
    k.mem("weight_cast", MemoryAccess::streaming, r.vocab * r.hidden * (4 + k.e()));
    k.keep(r.vocab * r.hidden * k.e());
  }
  k.add(logits_gemm(r));
  k.keep(tv * k.e());  // the logits the training loop holds until its backward call returns
  cross_entropy_forward(k, r);
  return k.take();
}

std::vector<Operator> logits_backward(const RankShape& r) {
  Kernels k(r);
  cross_entropy_backward(k, r);
  const Operator fwd = logits_gemm(r);
  k.add(gemm_dgrad(fwd));
  k.add(gemm_wgrad(fwd));
  if (r.autocast) {
    k.mem("input_grad_cast", MemoryAccess::unrolled, r.tokens() * r.hidden * (k.e() + 4));
    k.weight_mem("weight_grad_cast", MemoryAccess::unrolled, r.vocab * r.hidden * (k.e() + 4));
  }
  norm_backward(k);
  return k.take();
}

}  // namespace

const FrameworkKernels& eager_kernels() {
  static const FrameworkKernels k{layer_forward,      layer_backward, nullptr,        embedding_forward,
                                  embedding_backward, logits_forward, logits_backward, cross_entropy_backward_bytes};
  return k;
}

}  // namespace dtsim
