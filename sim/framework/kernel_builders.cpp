#include "kernel_builders.hpp"

#include <algorithm>
#include <array>
#include <cmath>


namespace dtsim {

double n_tile_utilization(double n) {
  constexpr double kTile = 128;
  return n >= kTile || n <= 0 ? 1.0 : n / kTile;
}

Operator gemm(const char* name, double m, double k, double n, double elem_bytes) {
  Operator op{name, OperatorKind::gemm, 2 * m * k * n, (m * k + k * n + m * n) * elem_bytes, n_tile_utilization(n)};
  op.m = m, op.n = n, op.k = k;
  return op;
}

Operator cublas_gemm(const char* name, double m, double k, double n, double elem_bytes) {
  Operator op = gemm(name, m, k, n, elem_bytes);
  op.kernels = kCublasGemmActivities;
  // Row-major operands: the rows of A [m x k], B [k x n] and C [m x n] are k and n elements long
  // (so are the backward GEMMs', whose operands are the same tensors).
  op.unaligned_rows = std::fmod(k * elem_bytes, 16) != 0 || std::fmod(n * elem_bytes, 16) != 0;
  return op;
}

namespace {
// A backward GEMM as large as the forward (its operands and output are the forward's three
// tensors in another order).
Operator backward_gemm_of(const Operator& fwd, double gemms) {
  Operator op{fwd.name, fwd.kind, gemms * fwd.flops, gemms * fwd.bytes, fwd.tile_utilization};
  op.working_precision_gemm = fwd.working_precision_gemm;
  op.m = fwd.m, op.n = fwd.n, op.k = fwd.k;
  op.unaligned_rows = fwd.unaligned_rows;
  op.kernels = int(gemms) * std::max(1, fwd.kernels);
  return op;
}
}  // namespace

Operator gemm_dgrad(const Operator& fwd) { return backward_gemm_of(fwd, 1); }

Operator gemm_wgrad(const Operator& fwd) {
  Operator op = backward_gemm_of(fwd, 1);
  op.weight_gradient = true;
  return op;
}

Operator gemm_backward(const Operator& fwd) { return backward_gemm_of(fwd, 2); }

Operator memory_op(const char* name, MemoryAccess access, double bytes, int kernels) {
  Operator op{name, OperatorKind::elementwise, 0, bytes};
  op.access = access;
  op.kernels = kernels;
  return op;
}

Operator dropout_op(const char* name, double elements, double element_bytes, bool backward) {
  const MemoryAccess access = backward ? MemoryAccess::streaming : MemoryAccess::dropout;
  return memory_op(name, access, elements * (2 * element_bytes + 1));
}

namespace {
bool warp_softmax(double row, double elem_bytes) { return row <= 1024 && row * elem_bytes <= 4096; }
}  // namespace

Operator attention_softmax(double scores, double row, double in, double out) {
  if (warp_softmax(row, in)) return memory_op("attention_softmax", MemoryAccess::streaming, scores * (in + out));
  return memory_op("attention_softmax", MemoryAccess::softmax, scores * (2 * in + out));
}

std::vector<Operator> attention_softmax_backward(double scores, double row, double out) {
  const MemoryAccess reduction = warp_softmax(row, out) ? MemoryAccess::streaming : MemoryAccess::softmax;
  return {memory_op("attention_softmax_grad_times_output", MemoryAccess::streaming, 3 * scores * out),
          memory_op("attention_softmax_backward", reduction, 3 * scores * out)};
}

Operator optimizer_op(const char* name, MemoryAccess access, double bytes, int kernels) {
  Operator op = memory_op(name, access, bytes, kernels);
  op.kind = OperatorKind::optimizer;
  return op;
}

double head_dim_tile_utilization(double head_dim) {
  constexpr double kTile = 64;
  return head_dim / (kTile * std::ceil(head_dim / kTile));
}

double fused_attention_flops(const RankShape& r, AttentionPass pass) {
  const double forward = 4 * r.batch * r.heads * r.seq * r.kv_seq * r.head_dim * (r.causal ? 0.5 : 1.0);
  return pass == AttentionPass::forward ? forward : 2.5 * forward;
}

Operator fused_attention(const RankShape& r, AttentionPass pass) {
  const double q_elements = r.batch * r.seq * r.heads * r.head_dim;
  const double kv_elements = r.batch * r.kv_seq * r.kv_heads * r.head_dim;
  // Forward reads Q, K, V and writes O; backward reads those and dO and writes dQ, dK, dV.
  const double elements = pass == AttentionPass::forward ? 2 * q_elements + 2 * kv_elements
                                                         : 4 * q_elements + 4 * kv_elements;
  Operator op{pass == AttentionPass::forward ? "fused_attention" : "fused_attention_backward",
              OperatorKind::attention_gemm, fused_attention_flops(r, pass), elements * r.elem_bytes,
              head_dim_tile_utilization(r.head_dim)};
  op.kernel_efficiency =
      fused_attention_efficiency(r.attention, pass, r.causal, r.kv_seq, r.head_dim, *r.device);
  // cuDNN's backward runs three helper kernels beside the main one (dO.O, dQ's conversion, the
  // KV heads' reduction), and each pass a memset (the H100 traces).
  op.kernels = pass == AttentionPass::forward ? 2 : 5;
  return op;
}

namespace {

constexpr double kRowIndexBytes = 8;  // an int64 row index (bert_padding's indices)

// A small kernel (and copy) over the batch's padding mask or its row lengths, ending in a copy to
// the host when `sync`.
Operator mask_op(const char* name, double bytes, int activities, bool sync) {
  Operator op = memory_op(name, MemoryAccess::streaming, bytes, activities);
  op.host_sync = sync;
  return op;
}

// The widths of q, k and v on the rank.
std::array<double, 3> qkv_widths(const RankShape& r) {
  return {r.heads * r.head_dim, r.kv_heads * r.head_dim, r.kv_heads * r.head_dim};
}

void varlen_unpad_forward(KernelList& k, const RankShape& r) {
  const double t = r.tokens(), e = r.elem_bytes, index = kRowIndexBytes * t;
  k.add(mask_op("varlen_mask_ones", t, 1, false));
  for (double width : qkv_widths(r)) {
    k.add(mask_op("varlen_mask_sum", t, 1, false));
    k.add(mask_op("varlen_nonzero_count", t, 2, true));            // the count, its copy to the host
    k.add(mask_op("varlen_nonzero_select", t + index, 2, false));  // the indices written
    k.add(mask_op("varlen_max_seqlen", 4 * r.batch, 2, true));     // max, .item()'s copy
    k.add(mask_op("varlen_cu_seqlens", 12 * r.batch, 3, false));   // cumsum, F.pad's fill and copy
    k.mem("varlen_unpad_gather", MemoryAccess::strided, 2 * t * width * e + index);
    k.keep(index);
  }
}

void varlen_pad_forward(KernelList& k, const RankShape& r) {
  const double t = r.tokens(), e = r.elem_bytes, width = qkv_widths(r)[0];
  k.mem("varlen_pad_zero", MemoryAccess::fill, t * width * e);
  k.mem("varlen_pad_index_put", MemoryAccess::strided, 2 * t * width * e + kRowIndexBytes * t);
  k.keep(t * width * e);
}

void varlen_pad_backward(KernelList& k, const RankShape& r) {
  const double t = r.tokens();
  k.mem("varlen_pad_grad_gather", MemoryAccess::strided, 2 * t * qkv_widths(r)[0] * r.elem_bytes + kRowIndexBytes * t);
}

void varlen_unpad_backward(KernelList& k, const RankShape& r) {
  const double t = r.tokens(), e = r.elem_bytes;
  for (double width : qkv_widths(r)) {
    k.mem("varlen_unpad_grad_zero", MemoryAccess::fill, t * width * e);
    k.mem("varlen_unpad_grad_scatter", MemoryAccess::strided, 2 * t * width * e + kRowIndexBytes * t);
  }
}

}  // namespace

void add_fused_attention(KernelList& k, const RankShape& r, AttentionPass pass) {
  const bool forward = pass == AttentionPass::forward;
  if (r.attention_varlen) forward ? varlen_unpad_forward(k, r) : varlen_pad_backward(k, r);
  Operator op = fused_attention(r, pass);
  op.core_attention = true;
  if (forward) op.saved_bytes = fused_attention_saved_bytes(r);
  k.add(op);
  if (r.attention_varlen) forward ? varlen_pad_forward(k, r) : varlen_unpad_backward(k, r);
}

namespace {

// torchao's Float8Linear: TorchTitan's dynamic tensorwise and rowwise recipes outside Megatron.
bool torchao_float8(const RankShape& r) {
  return r.framework != Framework::megatron &&
         (r.fp8_recipe == Fp8Recipe::tensorwise || r.fp8_recipe == Fp8Recipe::rowwise);
}

// Its backward casts each GEMM's operands again for the two gradient GEMMs. Compiled with
// per-tensor scales these repeat the forward's casts and each other, and are deduplicated.
bool torchao_backward_recasts(const RankShape& r) {
  return torchao_float8(r) && (r.fp8_recipe == Fp8Recipe::rowwise || r.framework != Framework::torch_compile);
}

// hp_tensor_to_float8_dynamic: an amax pass over the bf16 tensor, then its cast (read, write FP8).
constexpr double kDynamicCastBytesPerElement = 2 + 2 + 1;

}  // namespace

std::vector<Operator> fp8_casts(const std::vector<Operator>& forward, Fp8Cast which, const RankShape& r) {
  std::vector<Operator> casts;
  const bool inputs = which == Fp8Cast::inputs;
  const bool cast_weights = torchao_float8(r) && !r.fp8_weight_gather;
  bool previous_column = false;  // the GEMM before read the layer's hidden state too
  for (const Operator& op : forward) {
    if (op.kind != OperatorKind::gemm || op.working_precision_gemm) continue;
    double elements = op.m * (inputs ? op.k : op.n);
    // A layer's column-parallel linears read its hidden state (k = hidden), its row-parallel
    // ones write it (n = hidden), every token of the rank's sequence.
    const bool column = op.m == r.tokens() && op.k == r.hidden, row = op.m == r.tokens() && op.n == r.hidden;
    const bool shared_input = column && previous_column;
    previous_column = column;
    // An operand gathered in FP8 arrives cast: the backward uses it as it is.
    const bool gathered = r.fp8_tp_gather && (inputs ? column : row);
    if (gathered) {
      if (shared_input && inputs) continue;
      elements /= r.tp;
    }
    casts.push_back(memory_op(inputs ? "fp8_cast_transpose" : "fp8_cast_transpose_grad", MemoryAccess::streaming,
                              fp8_cast_transpose_bytes_per_element(r.fp8_recipe) * elements));
    const double weight = op.k * op.n, b = kDynamicCastBytesPerElement;
    if (inputs) {
      if (cast_weights) casts.push_back(memory_op("fp8_cast_weight", MemoryAccess::streaming, b * weight));
      continue;
    }
    if (!torchao_backward_recasts(r)) continue;
    if (!gathered) casts.push_back(memory_op("fp8_recast_grad", MemoryAccess::streaming, b * op.m * op.n));
    if (!(r.fp8_tp_gather && column))
      casts.push_back(memory_op("fp8_recast_input", MemoryAccess::streaming, b * op.m * op.k));
    if (cast_weights) casts.push_back(memory_op("fp8_recast_weight", MemoryAccess::streaming, b * weight));
  }
  return casts;
}

void append_fp8_casts(std::vector<Operator>& ops, const std::vector<Operator>& forward, Fp8Cast which,
                      const RankShape& r) {
  if (!r.fp8_gemms) return;
  const std::vector<Operator> casts = fp8_casts(forward, which, r);
  ops.insert(ops.end(), casts.begin(), casts.end());
}

namespace {

// F.cross_entropy under autocast: the fp32 copy, log-softmax and NLL. `kept`: for a backward pass.
void torch_cross_entropy(KernelList& k, const RankShape& r, bool kept) {
  const double t = r.tokens(), tv = t * r.vocab, e = r.elem_bytes;
  if (e < 4) k.mem(kept ? "logits_upcast" : "metric_logits_upcast", MemoryAccess::unrolled, tv * (e + 4));
  k.mem(kept ? "log_softmax" : "metric_log_softmax", MemoryAccess::softmax, 12 * tv);
  if (kept) k.keep(4 * tv);
  k.mem(kept ? "nll_loss" : "metric_nll_loss", MemoryAccess::streaming, t * 12);
}

}  // namespace

void cross_entropy_forward(KernelList& k, const RankShape& r) {
  const double t = r.tokens(), tv = t * r.vocab, e = r.elem_bytes;
  if (r.fused_cross_entropy) {
    k.mem("cross_entropy_fused", MemoryAccess::softmax, 2 * tv * e + 8 * t);
    k.keep(4 * t);
    k.mem("loss_mean", MemoryAccess::streaming, 12 * t, 4);  // masked_fill_, sum, count of labels, divide
  } else {
    torch_cross_entropy(k, r, true);
  }
  for (int i = 0; i < r.loss_metrics; ++i) torch_cross_entropy(k, r, false);
}

void cross_entropy_backward(KernelList& k, const RankShape& r) {
  const double t = r.tokens(), tv = t * r.vocab, e = r.elem_bytes;
  if (r.fused_cross_entropy) {
    k.mem("loss_mean_backward", MemoryAccess::streaming, 12 * t, 2);
    k.mem("cross_entropy_fused_backward", MemoryAccess::softmax, 2 * tv * e + 8 * t);
    return;
  }
  k.mem("nll_loss_grad_zero", MemoryAccess::fill, 4 * tv, 2);  // the loss's ones_like and the zeroed gradient
  k.mem("nll_loss_backward", MemoryAccess::streaming, t * 12);
  k.mem("log_softmax_backward", MemoryAccess::softmax, 12 * tv);
  if (e < 4) k.mem("logits_grad_cast", MemoryAccess::streaming, tv * (4 + e));
}

double cross_entropy_backward_bytes(const RankShape& r) {
  const double tv = r.tokens() * r.vocab;
  return r.fused_cross_entropy ? tv * r.elem_bytes : 2 * 4 * tv;
}

void accumulate_weight_gradient(KernelList& k, const RankShape& r, double parameters) {
  if (r.micro_batches <= 1) return;
  const double grad = r.weight_bytes();
  const double later_share = double(r.micro_batches - 1) / r.micro_batches;
  k.weight_mem("grad_accumulate", MemoryAccess::streaming, 3 * grad * parameters * later_share);
}

double fused_attention_saved_bytes(const RankShape& r) {
  const double t = r.tokens();
  return t * (2 * r.heads + 2 * r.kv_heads) * r.head_dim * r.elem_bytes + 4 * t * r.heads;
}

}  // namespace dtsim
