#include "attention_kernel.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "measured_efficiency.hpp"

namespace dtsim {

namespace {

constexpr int kLengths = 6;  // 512, 1k, 2k, 4k, 8k, 16k
using Curve = std::array<double, kLengths>;

// TFLOP/s on an H100 80GB SXM5, bf16, head dim 128, batch x seq = 16k tokens: Shah et al.,
// "FlashAttention-3" (2024), Fig. 5 (forward, without and with causal mask) and Fig. 6
// (backward; one curve, used for both masks). Measured rates (below) replace them on Hopper where
// they exist; the non-causal forward has none, and the A100 estimate takes its shares from these.
constexpr double kH100Peak = 989.4;
constexpr Curve kH100Flash2Forward = {309, 350, 362, 368, 370, 370};
constexpr Curve kH100Flash2ForwardCausal = {191, 260, 298, 319, 333, 335};
constexpr Curve kH100Flash2Backward = {214, 260, 291, 310, 318, 322};
constexpr Curve kH100CudnnForward = {497, 574, 617, 609, 600, 595};

// Measured on the H100 SXM lent to this project (2026-11-26, PyTorch 2.11 SDPA, cuDNN 9.19;
// tests/data/h100-2026-11-26/microbenchmarks.jsonl, kind "sdpa", and the kernels of the traced
// steps), causal, head dim 128, fraction of the bf16 peak, counting the FLOPs of the causal half
// (backward: 2.5x the forward's, its helper kernels' time included):
// - 2048: the traced GPT step's kernels (4 x 16 heads): cuDNN forward 144.7 us, backward 406.8 us
//   plus 88.4 us of helper kernels, for 68.7 and 171.8 GFLOP;
// - 4096, 8192, 16384: the microbenchmark's forward and forward+backward event times less the
//   host time each call adds, 35 us forward and 104 us backward: what the microbenchmark's
//   2048-token calls (head dim 64 and 128) took beyond the same shapes' kernels in the traces;
// - 512 and 1024: no head-dim-128 measurement: 2048's rate times the ratio the microbenchmark's
//   head-dim-64 call at 1024 has to the traced Llama step's at 2048 (forward 0.758, backward 0.70),
//   and at 512 FlashAttention-3's published 512/1024 ratio (forward 0.768, backward 0.748).
// FlashAttention-2 (PyTorch's flash backend) from the same microbenchmark and corrections; 512
// and 1024 by the same ratios.
constexpr Curve kH100CudnnForwardCausalMeasured = {0.280, 0.364, 0.480, 0.562, 0.583, 0.639};
constexpr Curve kH100CudnnBackwardMeasured = {0.187, 0.250, 0.357, 0.444, 0.507, 0.510};
constexpr Curve kH100Flash2ForwardCausalMeasured = {0.146, 0.190, 0.250, 0.309, 0.326, 0.350};
constexpr Curve kH100Flash2BackwardMeasured = {0.100, 0.133, 0.190, 0.243, 0.276, 0.310};
// Head dim 64 against 128 at 2048 tokens, cuDNN, from the traced steps: the Llama step's
// forward (4 x 32 heads, 8 KV heads) 188.5 us and backward 623.5 us with helpers, against the GPT
// step's rates above: forward 0.767, backward 0.792 of head dim 128's. The microbenchmark's
// FlashAttention-2 calls at 2048 give 0.97 (forward) and 0.94 (backward).
constexpr double kCudnnHeadDim64Forward = 0.767, kCudnnHeadDim64Backward = 0.792;
constexpr double kFlash2HeadDim64Forward = 0.97, kFlash2HeadDim64Backward = 0.94;

// cuDNN below 512 tokens, without a causal mask, from the kernels of the steps traced on
// 2026-11-28 (tests/data/h100-2026-11-28), head dim 64, each as a fraction of the peak: BERT-large
// (64 x 16 heads x 128 tokens, 4.295 GFLOP forward) 36.5 us forward and 122.3 us backward with its
// helper kernels (0.119, 0.089); ViT-B/16 (256 x 12 heads x 197 tokens, 30.51 GFLOP) 168.8 us and
// 663.0 us (0.183, 0.116). Taken as head dim 128's rate by the factors above; between 197 and
// 512 tokens linear in log2 of the length up to the curves' 512 point, below 128 as 128.
struct ShortSequenceRate {
  double seq_len, forward, backward;
};
constexpr ShortSequenceRate kCudnnShortSequences[] = {
    {128, 0.119 / kCudnnHeadDim64Forward, 0.089 / kCudnnHeadDim64Backward},
    {197, 0.183 / kCudnnHeadDim64Forward, 0.116 / kCudnnHeadDim64Backward}};

// A100 (sm80), FlashAttention-2 only: Dao, "FlashAttention-2" (2023), abstract: 50-73% of the
// theoretical maximum FLOP/s on A100. Taken as 50% at 512 and 73% at 16k, in even steps between
// (linear in log2 of the length), as the non-causal forward's rate (the causal forward and the
// backward: see fused_attention_efficiency): the paper's per-length figures are not in this
// repository.
constexpr Curve kA100Flash2 = {0.50, 0.55, 0.60, 0.65, 0.70, 0.73};

// FlashAttention (v1, Dao et al. 2022) and its Triton port: the same abstract puts it at "only
// 25-40% of the theoretical maximum FLOPs/s" on A100, spread over the lengths as above.
constexpr Curve kA100Flash1 = {0.25, 0.28, 0.31, 0.34, 0.37, 0.40};

double interpolate(const Curve& fraction, double seq_len) {
  const double x = std::clamp(std::log2(std::max(seq_len, 1.0)) - 9.0, 0.0, double(kLengths - 1));
  const int i = std::min(int(x), kLengths - 2);
  const double t = x - i;
  return fraction[i] * (1 - t) + fraction[i + 1] * t;
}

Curve of_peak(const Curve& tflops, double peak) {
  Curve c{};
  for (int i = 0; i < kLengths; ++i) c[i] = tflops[i] / peak;
  return c;
}

// v1 on Hopper: no published figure. Its kernels, like FlashAttention-2's, use no Hopper-only
// instructions, so it is taken at FlashAttention-2's H100 rate scaled by v1's A100 rate relative
// to v2's (the two A100 curves above, length by length).
Curve hopper_flash1(const Curve& flash2_of_peak) {
  Curve c{};
  for (int i = 0; i < kLengths; ++i) c[i] = flash2_of_peak[i] * kA100Flash1[i] / kA100Flash2[i];
  return c;
}

// FlashAttention-3's published curves, which the A100 estimate takes its shares from.
const Curve& published_flash2_curve(AttentionPass pass, bool causal) {
  static const Curve f2 = of_peak(kH100Flash2Forward, kH100Peak), f2c = of_peak(kH100Flash2ForwardCausal, kH100Peak),
                     f2b = of_peak(kH100Flash2Backward, kH100Peak);
  return pass == AttentionPass::backward ? f2b : causal ? f2c : f2;
}

// Hopper: measured where measured; the non-causal forward (never measured here) published.
const Curve& hopper_curve(AttentionKernel k, AttentionPass pass, bool causal) {
  static const Curve f2 = of_peak(kH100Flash2Forward, kH100Peak), cu = of_peak(kH100CudnnForward, kH100Peak);
  static const Curve f1 = hopper_flash1(f2), f1c = hopper_flash1(kH100Flash2ForwardCausalMeasured),
                     f1b = hopper_flash1(kH100Flash2BackwardMeasured);
  if (k == AttentionKernel::flash1) return pass == AttentionPass::backward ? f1b : causal ? f1c : f1;
  if (k == AttentionKernel::flash2)
    return pass == AttentionPass::backward ? kH100Flash2BackwardMeasured
           : causal                        ? kH100Flash2ForwardCausalMeasured
                                           : f2;
  return pass == AttentionPass::backward ? kH100CudnnBackwardMeasured : causal ? kH100CudnnForwardCausalMeasured : cu;
}

// Head dims of 64 and below run at the measured head-dim-64 share of head dim 128's rate; in
// between, linearly; above 128 as 128 (nothing measured).
double head_dim_factor(AttentionKernel k, AttentionPass pass, double head_dim) {
  const bool backward = pass == AttentionPass::backward;
  const double at_64 = k == AttentionKernel::cudnn ? (backward ? kCudnnHeadDim64Backward : kCudnnHeadDim64Forward)
                                                   : (backward ? kFlash2HeadDim64Backward : kFlash2HeadDim64Forward);
  const double t = std::clamp((head_dim - 64) / 64, 0.0, 1.0);
  return at_64 + t * (1 - at_64);
}

// The head dim a kernel computes: FlashAttention-2 has kernels for multiples of 32 and runs a
// head dim on the next one up (flash-attn csrc/flash_attn/flash_api.cpp: head_size_rounded =
// round_multiple(head_size, 32)); the Triton port of FlashAttention pads it to a power of two
// (llm-foundry llmfoundry/models/layers/flash_attn_triton.py @ b2a43a1477, lines 622 and 665:
// BLOCK_HEADDIM = max(triton.next_power_of_2(d), 16)), taken the same for v1; cuDNN's fused
// attention runs the head dim as given. A padded kernel does the padded head dim's work.
double computed_head_dim(AttentionKernel k, double head_dim) {
  if (k == AttentionKernel::flash2) return std::ceil(head_dim / 32) * 32;
  if (k == AttentionKernel::flash1) return std::max(16.0, std::exp2(std::ceil(std::log2(std::max(head_dim, 1.0)))));
  return head_dim;
}

}  // namespace

const char* to_string(AttentionKernel k) {
  switch (k) {
    case AttentionKernel::automatic: return "auto";
    case AttentionKernel::unfused: return "unfused";
    case AttentionKernel::flash1: return "flash1";
    case AttentionKernel::flash2: return "flash2";
    case AttentionKernel::cudnn: return "cudnn";
  }
  return "?";
}

AttentionKernel resolve_attention_kernel(AttentionKernel k, const DeviceSpec& device) {
  if (k != AttentionKernel::automatic) return k;
  if (device.sm_arch >= 90) return AttentionKernel::cudnn;
  return device.sm_arch >= 80 ? AttentionKernel::flash2 : AttentionKernel::unfused;
}

double fused_attention_efficiency(AttentionKernel k, AttentionPass pass, bool causal, double seq_len,
                                  double head_dim, const DeviceSpec& device) {
  // Before Hopper there is no cuDNN kernel of this class: FlashAttention-2's rates (v1: its own),
  // for the causal forward and the backward at the share of the non-causal forward's rate that
  // FlashAttention-2 keeps on H100 (the same kernels' masking and backward recomputation).
  const double computed = computed_head_dim(k, head_dim);
  const double head_dim_share = head_dim_factor(k, pass, computed) * head_dim / computed;
  if (device.sm_arch < 90) {
    const Curve& f2 = published_flash2_curve(AttentionPass::forward, false);
    const Curve& f2_pass = published_flash2_curve(pass, causal);
    const double share = interpolate(f2_pass, seq_len) / interpolate(f2, seq_len);
    return head_dim_share * share * interpolate(k == AttentionKernel::flash1 ? kA100Flash1 : kA100Flash2, seq_len);
  }
  // Blackwell is taken at Hopper's fraction of its own peak until it is measured.
  const Curve& curve = hopper_curve(k, pass, causal);
  const bool backward = pass == AttentionPass::backward;
  if (k == AttentionKernel::cudnn && (backward || !causal) && seq_len < 512) {
    EfficiencyCurve short_sequences;  // piecewise linear in log(length), 128's rate below it
    for (const ShortSequenceRate& p : kCudnnShortSequences)
      short_sequences.add(p.seq_len, backward ? p.backward : p.forward);
    short_sequences.add(512, curve[0]);
    return head_dim_share * short_sequences.at(seq_len);
  }
  return head_dim_share * interpolate(curve, seq_len);
}

}  // namespace dtsim
