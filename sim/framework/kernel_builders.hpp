#pragma once
// Building blocks of the frameworks' kernel lists: GEMMs and their backward GEMMs, fused attention,
// memory-bound kernels with their access pattern, and the cuBLAS and cast conventions they share.
#include <vector>

#include "compute_model.hpp"
#include "rank_shape.hpp"

namespace dtsim {

// A cuBLAS GEMM on Hopper and Ampere is two GPU activities: the matmul kernel and a memset of its
// workspace (the H100 traces: 285 memsets beside 339 GEMMs in the Llama step).
inline constexpr int kCublasGemmActivities = 2;

// A GEMM [m x k] x [k x n]: 2mkn FLOPs, reads both inputs and writes the output once. Its
// tensor-core tiles are 128 wide along n, so a narrower output wastes the rest of each tile: the
// traced ResNet-50's 3x3 convolutions to 64 channels ran at half the rate of those to 128 and more
// (146 us where full tiles give 101; n_tile_utilization).
Operator gemm(const char* name, double m, double k, double n, double elem_bytes);
// The same GEMM as PyTorch runs it through cuBLAS: kCublasGemmActivities GPU activities, and
// Operator::unaligned_rows where k or n rows are not a multiple of 16 bytes.
Operator cublas_gemm(const char* name, double m, double k, double n, double elem_bytes);
double n_tile_utilization(double n);
// Its input gradient [m x n] x [n x k] (dgrad) and weight gradient [k x m] x [m x n] (wgrad), each
// as large as the forward and in its precision; both, one after the other.
Operator gemm_dgrad(const Operator& fwd);
Operator gemm_wgrad(const Operator& fwd);
Operator gemm_backward(const Operator& fwd);

// A memory-bound kernel (or `kernels` of them) moving `bytes` (read + written).
Operator memory_op(const char* name, MemoryAccess access, double bytes, int kernels = 1);
// Dropout over `elements` of `element_bytes` each, as eager PyTorch runs it: the input read, the
// output written and a 1-byte mask (written forward, read backward). The forward kernel draws
// random numbers as it streams (MemoryAccess::dropout); the backward, the gradient times the
// mask, streams.
Operator dropout_op(const char* name, double elements, double element_bytes, bool backward);
// Unfused attention's softmax over `scores` elements in rows of `row` (the keys), as PyTorch runs
// it (SoftMax.cu, host_softmax): rows of at most 1024 elements and 4096 bytes run one warp a row,
// the row held in registers, read once at the streaming rate (the traced GPT-350M's fp32 rows of
// 1024: 1.07 GB in 365 us, 0.88 of the peak); longer rows run a block a row that reads it twice
// (MemoryAccess::softmax, as the loss's log-softmax). `in`, `out`: bytes per element.
Operator attention_softmax(double scores, double row, double in, double out);
// Its backward (softmax_backward_cuda_out): the gradient times the output, a kernel of its own
// (529 us in that trace), then the warp or block reduction; all in the output's `out` bytes.
std::vector<Operator> attention_softmax_backward(double scores, double row, double out);
// A pass of the optimizer step over the parameters, in `kernels` launches.
Operator optimizer_op(const char* name, MemoryAccess access, double bytes, int kernels);

// Attention's batched GEMMs have head_dim as their inner (QK^T) or output (PV) dimension. Tensor-core
// kernels work in tiles of 64 along it, so a head_dim of 96 runs as 128: utilization
// head_dim / (64 * ceil(head_dim / 64)) (NVIDIA's "tile quantization").
double head_dim_tile_utilization(double head_dim);
// One fused attention kernel (flash2, cudnn) for one pass, at its measured or published rate.
Operator fused_attention(const RankShape& r, AttentionPass pass);
// A fused attention kernel's FLOPs as FlashAttention's benchmarks count them: forward
// 4*b*heads*s_q*s_kv*head_dim, halved under a causal mask; backward 2.5x the forward (five
// matmuls to the forward's two, QK^T recomputed).
double fused_attention_flops(const RankShape& r, AttentionPass pass);
// What a fused attention kernel keeps for its backward pass: q, k, v, its output, and the fp32
// log-sum-exp of each query row and head.
double fused_attention_saved_bytes(const RankShape& r);

// FP8 GEMMs as Transformer Engine and torchao run them: every GEMM input activation [m x k] and,
// in the backward, every output gradient [m x n] is cast to FP8 together with a transposed copy,
// at the recipe's bytes per element (precision.hpp). TE fuses some of these casts into the
// LayerNorm and GELU kernels before them, saving the bf16 read; dtsim counts them unfused.
// Weights are cast once per iteration (TE's first-micro-batch cache) and are left out, except
// under torchao's Float8Linear (tensorwise or rowwise outside Megatron), which casts each weight
// in every forward unless FSDP gathered it in FP8, and whose backward casts the output gradient,
// the input and the weight again, unless compiled with per-tensor scales (docs/frameworks.md).
// With FP8 sequence-parallel all-gathers (RankShape::fp8_tp_gather; torchao's Float8 TP styles,
// torchao/float8/float8_tensor_parallel.py) the casts that feed a gather run on this rank's
// 1/tp of the tokens before it: a column-parallel linear's input, once for the linears that read
// the same input (PrepareFloat8ModuleInput: q, k, v; gate and up), and in the backward a
// row-parallel linear's output gradient (cast, then all-gathered).
// The casts of the GEMMs among `forward` (working-precision GEMMs excepted), of their inputs
// [m x k] or of their output gradients [m x n].
enum class Fp8Cast { inputs, output_gradients };
std::vector<Operator> fp8_casts(const std::vector<Operator>& forward, Fp8Cast which, const RankShape& r);
// Those casts appended to `ops` when the rank's GEMMs run in FP8 (`forward` may be `ops` itself).
void append_fp8_casts(std::vector<Operator>& ops, const std::vector<Operator>& forward, Fp8Cast which,
                      const RankShape& r);

// A pass's kernels, appended in the order its framework runs them.
class KernelList {
 public:
  void add(Operator op) { ops_.push_back(op); }
  // The last operator keeps `bytes` of tensors for the backward pass (Operator::saved_bytes).
  void keep(double bytes) { ops_.back().saved_bytes += bytes; }
  void mem(const char* name, MemoryAccess a, double bytes, int kernels = 1) { add(memory_op(name, a, bytes, kernels)); }
  // A memory-bound kernel only a weight gradient needs (Operator::weight_gradient).
  void weight_mem(const char* name, MemoryAccess a, double bytes) {
    Operator op = memory_op(name, a, bytes);
    op.weight_gradient = true;
    add(op);
  }
  std::vector<Operator> take() { return std::move(ops_); }

 private:
  std::vector<Operator> ops_;
};

// A PyTorch layer's fused attention kernel for one pass (core attention; the forward keeps what
// its backward reads), eager and compiled alike. With RankShape::attention_varlen it is called
// through flash-attn's variable-length API behind its bert_padding helpers (llm-foundry's
// flash_attn_fn @ 5e85bd62, flash_attn/bert_padding.py @ v2.4.2): forward, the padding mask (all
// ones), then q, k and v each through unpad_input (the mask's row sums, nonzero's indices and the
// longest row's .item(), each a host sync, the cumulative lengths, and a gather of the kept rows,
// which reads q, k and v where the projection wrote them), the kernel, and pad_input (the output
// scattered into zeros, a tensor of its own that the output projection keeps); backward, the
// output's gradient gathered, the kernel, and each of q's, k's and v's gradients scattered into
// zeros.
void add_fused_attention(KernelList& k, const RankShape& r, AttentionPass pass);

// After the first of several micro-batches, a weight gradient of `parameters` added to the one
// already held (read both, write one; fp32 under autocast), by a framework that does not
// accumulate inside its GEMMs: PyTorch's autograd.
void accumulate_weight_gradient(KernelList& k, const RankShape& r, double parameters);

// The language-model loss over the rank's logits [tokens x vocab], in the working precision and held
// by the caller (PyTorch frameworks; eager and compiled alike, the loss running outside the compiled
// model). torch (F.cross_entropy under autocast, read off the traced Llama and GPT steps): the
// logits cast up to fp32, log-softmax (its fp32 output kept) and NLL; backward the NLL's gradient
// zeroed and scattered, log-softmax's backward, the gradient cast down. fused (flash-attn's
// CrossEntropyLoss: csrc/xentropy's kernels at v1.0.9, a Triton kernel since v2; F.cross_entropy
// compiled by Inductor alike): forward two passes over each row of logits (its max, then its sum
// of exponentials) writing each token's loss and log-sum-exp (kept), then the mean; backward one
// pass reading the logits and writing their gradient.
// The forward adds RankShape::loss_metrics forward-only torch cross-entropies (the training loop
// runs them after the micro-batch's backward pass; the same stream, so priced here).
void cross_entropy_forward(KernelList& k, const RankShape& r);
void cross_entropy_backward(KernelList& k, const RankShape& r);
// What the loss's backward holds at its peak beside the saved tensors: torch, the fp32 gradients
// of log-softmax's output and input at once; fused, the logits' gradient.
double cross_entropy_backward_bytes(const RankShape& r);

}  // namespace dtsim
