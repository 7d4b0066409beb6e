// torch.compile(model): Inductor keeps cuBLAS for the matmuls and cuDNN for attention and fuses the
// element-wise work between them into Triton kernels. Read off the H100 trace of the Llama step
// compiled (tests/data/h100-2026-11-26/traces/llama-1b-s2048-mb4-compiled): per layer the residual
// add, the norm and the cast to bf16 in one kernel, each weight's cast in its own, RoPE in one
// kernel per q and k, SiLU x gate in one; backward the same fusions, the weight gradients cast up
// by vectorized Triton kernels (near the streaming rate, where eager's unrolled copies reach half).
// The loss computed outside the compiled model and the optimizer run eagerly (eager_kernels.cpp).
// What is kept for the backward pass (Operator::saved_bytes), read off the same trace: the backward
// recomputes nothing before the matmuls that read it (no norm, cast, RoPE or SiLU kernel runs
// ahead of them), so each norm's fp32 input and bf16 output, each weight's cast, RoPE's outputs,
// v, the attention output and its transposed copy, and the MLP's gate, up and their product are
// kept; eager's per-linear input casts and SiLU's separate output are not there to keep.
#include "framework_kernels.hpp"
#include "kernel_builders.hpp"

namespace dtsim {

namespace {

double e_of(const RankShape& r) { return r.elem_bytes; }

Operator matmul(const char* name, double m, double k, double n, const RankShape& r) {
  return cublas_gemm(name, m, k, n, r.elem_bytes);
}

struct Matmul {
  const char* name;
  double m, k, n;
};

// Under autocast each weight is cast by a kernel of its own (its bias with it).
void matmul_forward(KernelList& k, const RankShape& r, const Matmul& m) {
  if (r.autocast) {
    k.mem("weight_cast", MemoryAccess::streaming, m.k * m.n * (4 + e_of(r)));
    k.keep(m.k * m.n * e_of(r));
  }
  k.add(matmul(m.name, m.m, m.k, m.n, r));
}

void matmul_backward(KernelList& k, const RankShape& r, const Matmul& m) {
  const Operator fwd = matmul(m.name, m.m, m.k, m.n, r);
  k.add(gemm_dgrad(fwd));
  k.add(gemm_wgrad(fwd));
  if (r.bias) k.weight_mem("bias_grad", MemoryAccess::norm_backward, m.m * m.n * e_of(r));
  if (r.autocast) k.weight_mem("weight_grad_cast", MemoryAccess::streaming, m.k * m.n * (e_of(r) + 4));
  accumulate_weight_gradient(k, r, m.k * m.n);
}

// The residual add, the norm and the bf16 cast of its output in one kernel: read the stream and
// the branch, write the stream and the normalized bf16 tensor.
void add_norm(KernelList& k, const RankShape& r) {
  const double th = r.tokens() * r.hidden;
  k.mem("add_norm", MemoryAccess::normalization, th * (2 * r.stream_bytes() + 2 * e_of(r)));
  k.keep(th * (r.stream_bytes() + e_of(r)));
}

// Its backward, summing the gradients of the `inputs` matmuls the norm fed into the stream's
// gradient: read them and the stream's, write the stream's; then the weight gradient's partial
// sums reduced.
void add_norm_backward(KernelList& k, const RankShape& r, int inputs) {
  const double th = r.tokens() * r.hidden;
  k.mem("add_norm_backward", MemoryAccess::norm_backward, th * (inputs * e_of(r) + 2 * r.stream_bytes()));
  k.weight_mem("norm_weight_grad", MemoryAccess::normalization, 512 * r.hidden * 4);
}

std::vector<Matmul> qkv_matmuls(const RankShape& r) {
  const double t = r.tokens(), h = r.hidden, q = r.heads * r.head_dim, kv = r.kv_heads * r.head_dim;
  if (r.fused_qkv) return {{"qkv", t, h, q + 2 * kv}};
  return {{"q", t, h, q}, {"k", t, h, kv}, {"v", t, h, kv}};
}

std::vector<Matmul> up_matmuls(const RankShape& r) {
  const double m = r.moe.enabled() ? r.expert_tokens() : r.tokens(), f = r.moe.enabled() ? r.expert_ffn : r.ffn;
  if (r.mlp == MlpKind::swiglu) return {{"mlp_gate", m, r.hidden, f}, {"mlp_up", m, r.hidden, f}};
  return {{"mlp_fc1", m, r.hidden, f}};
}

Matmul down_matmul(const RankShape& r) {
  const double m = r.moe.enabled() ? r.expert_tokens() : r.tokens(), f = r.moe.enabled() ? r.expert_ffn : r.ffn;
  return {"mlp_down", m, f, r.hidden};
}

// RoPE on q or k in one kernel (read bf16, write bf16); the same backward.
void rope(KernelList& k, const RankShape& r, double heads, const char* name) {
  k.mem(name, MemoryAccess::unrolled, 2 * r.tokens() * heads * r.head_dim * e_of(r));
}

std::vector<Operator> layer_forward(const RankShape& r) {
  KernelList k;
  const double t = r.tokens(), e = e_of(r);
  add_norm(k, r);
  for (const Matmul& m : qkv_matmuls(r)) matmul_forward(k, r, m);
  if (r.fused_qkv && !r.attention_varlen) k.mem("qkv_split", MemoryAccess::streaming, 2 * t * qkv_matmuls(r)[0].n * e);
  if (r.position == PositionKind::rope) {
    rope(k, r, r.heads, "rope");
    rope(k, r, r.kv_heads, "rope");
  }
  // With attention_varlen its helpers break the graph (nonzero) and run as eager PyTorch runs them.
  add_fused_attention(k, r, AttentionPass::forward);
  if (r.position == PositionKind::rope && !r.attention_varlen) {
    k.mem("attention_output_transpose", MemoryAccess::streaming, 2 * t * r.heads * r.head_dim * e);
    k.keep(t * r.heads * r.head_dim * e);
  }
  matmul_forward(k, r, {"attention_out", t, r.heads * r.head_dim, r.hidden});
  // Dropout's 1-byte mask, as eagerly (not traced compiled).
  if (r.dropout > 0) k.keep(t * r.hidden);
  add_norm(k, r);
  if (r.moe.enabled()) {
    matmul_forward(k, r, {"router", t, r.hidden, double(r.moe.experts)});
    k.mem("router_permute", MemoryAccess::strided, 2 * r.expert_tokens() * r.hidden * e, 2);
    k.keep(r.expert_tokens() * r.hidden * e);
  }
  for (const Matmul& m : up_matmuls(r)) matmul_forward(k, r, m);
  const Matmul down = down_matmul(r);
  // SwiGLU keeps gate, up and their product; GeLU its input and output.
  k.mem(r.mlp == MlpKind::swiglu ? "silu_multiply" : "gelu", MemoryAccess::streaming,
        (r.mlp == MlpKind::swiglu ? 3 : 2) * down.m * down.k * e);
  k.keep((r.mlp == MlpKind::swiglu ? 3 : 2) * down.m * down.k * e);
  matmul_forward(k, r, down);
  if (r.dropout > 0) k.keep(t * r.hidden);
  if (r.moe.enabled()) k.mem("token_unpermute", MemoryAccess::strided, 2 * down.m * r.hidden * e);
  std::vector<Operator> ops = k.take();
  append_fp8_casts(ops, ops, Fp8Cast::inputs, r);
  return ops;
}

std::vector<Operator> layer_backward(const RankShape& r) {
  KernelList k;
  const double t = r.tokens(), e = e_of(r);
  const Matmul down = down_matmul(r);
  // Under autocast the stream's fp32 gradient is cast down for each branch (as eagerly).
  if (r.autocast) k.mem("residual_grad_cast", MemoryAccess::streaming, t * r.hidden * (4 + e));
  if (r.moe.enabled()) k.mem("token_unpermute_grad", MemoryAccess::strided, 2 * down.m * r.hidden * e);
  matmul_backward(k, r, down);
  k.mem(r.mlp == MlpKind::swiglu ? "silu_multiply_backward" : "gelu_backward", MemoryAccess::streaming,
        (r.mlp == MlpKind::swiglu ? 5 : 3) * down.m * down.k * e);
  for (const Matmul& m : up_matmuls(r)) matmul_backward(k, r, m);
  if (r.moe.enabled()) {
    k.mem("router_permute_grad", MemoryAccess::strided, 2 * r.expert_tokens() * r.hidden * e, 2);
    matmul_backward(k, r, {"router", t, r.hidden, double(r.moe.experts)});
  }
  add_norm_backward(k, r, int(up_matmuls(r).size()));
  if (r.autocast) k.mem("residual_grad_cast", MemoryAccess::streaming, t * r.hidden * (4 + e));
  matmul_backward(k, r, {"attention_out", t, r.heads * r.head_dim, r.hidden});
  add_fused_attention(k, r, AttentionPass::backward);
  if (r.position == PositionKind::rope) {
    rope(k, r, r.heads, "rope_backward");
    rope(k, r, r.kv_heads, "rope_backward");
    k.mem("head_transpose_grad", MemoryAccess::streaming, 2 * t * (r.heads + r.kv_heads) * r.head_dim * e, 2);
  }
  if (r.fused_qkv) k.mem("qkv_grad_concat", MemoryAccess::streaming, 2 * t * qkv_matmuls(r)[0].n * e);
  for (const Matmul& m : qkv_matmuls(r)) matmul_backward(k, r, m);
  add_norm_backward(k, r, int(qkv_matmuls(r).size()));
  std::vector<Operator> ops = k.take();
  if (r.fp8_gemms) append_fp8_casts(ops, layer_forward(r), Fp8Cast::output_gradients, r);  // forward built only then
  return ops;
}

// The lookup fused with the first norm; learned positions added in the same kernel.
std::vector<Operator> embedding_forward(const RankShape& r) {
  KernelList k;
  k.mem("embedding_gather", MemoryAccess::streaming, 2 * r.tokens() * r.hidden * r.stream_bytes());
  return k.take();
}

// The table's gradient zeroed and scattered in one kernel; a tied table's gradient added to the
// LM head's bf16 one, cast up in the same kernel.
std::vector<Operator> embedding_backward(const RankShape& r) {
  KernelList k;
  const double table = r.vocab * r.hidden, grad = r.weight_bytes();
  k.mem("embedding_dense_backward", MemoryAccess::fill, table * grad);
  if (r.tied_embeddings) k.weight_mem("tied_grad_sum", MemoryAccess::streaming, table * (e_of(r) + 2 * grad));
  return k.take();
}

// Inside the model: the final norm and the LM head (its weight's cast a kernel of its own); the
// loss outside it runs eagerly, as eager_kernels.cpp's.
std::vector<Operator> logits_forward(const RankShape& r) {
  KernelList k;
  const double th = r.tokens() * r.hidden, tv = r.tokens() * r.vocab, e = e_of(r);
  k.mem("final_norm", MemoryAccess::normalization, th * (r.stream_bytes() + e));
  k.keep(th * (r.stream_bytes() + e));
  if (r.autocast) {
    k.mem("weight_cast", MemoryAccess::streaming, r.vocab * r.hidden * (4 + e));
    k.keep(r.vocab * r.hidden * e);
  }
  Operator head = matmul("logits", r.tokens(), r.hidden, r.vocab, r);
  head.working_precision_gemm = true;
  head.saved_bytes = tv * e;  // the logits the training loop holds until its backward call returns
  k.add(head);
  cross_entropy_forward(k, r);
  return k.take();
}

std::vector<Operator> logits_backward(const RankShape& r) {
  KernelList k;
  const double th = r.tokens() * r.hidden, e = e_of(r);
  cross_entropy_backward(k, r);
  Operator head = matmul("logits", r.tokens(), r.hidden, r.vocab, r);
  head.working_precision_gemm = true;
  k.add(gemm_dgrad(head));
  k.add(gemm_wgrad(head));
  if (r.autocast && !r.tied_embeddings)
    k.weight_mem("weight_grad_cast", MemoryAccess::streaming, r.vocab * r.hidden * (e + 4));
  k.mem("final_norm_backward", MemoryAccess::norm_backward, th * (e + 2 * r.stream_bytes()));
  return k.take();
}

}  // namespace

const FrameworkKernels& compiled_kernels() {
  static const FrameworkKernels k{layer_forward,      layer_backward, nullptr,        embedding_forward,
                                  embedding_backward, logits_forward, logits_backward, cross_entropy_backward_bytes};
  return k;
}

}  // namespace dtsim
