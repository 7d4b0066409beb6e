#include "attention_kernel.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace dtsim {

namespace {

constexpr int kLengths = 6;  // 512, 1k, 2k, 4k, 8k, 16k
using Curve = std::array<double, kLengths>;

// TFLOP/s on an H100 80GB SXM5, bf16, head dim 128, batch x seq = 16k tokens: Shah et al.,
// "FlashAttention-3" (2024), Fig. 5 (forward, without and with causal mask) and Fig. 6
// (backward; one curve, used for both masks).
constexpr double kH100Peak = 989.4;
constexpr Curve kH100Flash2Forward = {309, 350, 362, 368, 370, 370};
constexpr Curve kH100Flash2ForwardCausal = {191, 260, 298, 319, 333, 335};
constexpr Curve kH100Flash2Backward = {214, 260, 291, 310, 318, 322};
constexpr Curve kH100CudnnForward = {497, 574, 617, 609, 600, 595};
constexpr Curve kH100CudnnForwardCausal = {315, 410, 484, 518, 529, 539};
constexpr Curve kH100CudnnBackward = {305, 408, 465, 499, 518, 516};

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

const Curve& hopper_curve(AttentionKernel k, AttentionPass pass, bool causal) {
  static const Curve f2 = of_peak(kH100Flash2Forward, kH100Peak), f2c = of_peak(kH100Flash2ForwardCausal, kH100Peak),
                     f2b = of_peak(kH100Flash2Backward, kH100Peak), cu = of_peak(kH100CudnnForward, kH100Peak),
                     cuc = of_peak(kH100CudnnForwardCausal, kH100Peak), cub = of_peak(kH100CudnnBackward, kH100Peak);
  static const Curve f1 = hopper_flash1(f2), f1c = hopper_flash1(f2c), f1b = hopper_flash1(f2b);
  if (k == AttentionKernel::flash1) return pass == AttentionPass::backward ? f1b : causal ? f1c : f1;
  if (k == AttentionKernel::flash2) return pass == AttentionPass::backward ? f2b : causal ? f2c : f2;
  return pass == AttentionPass::backward ? cub : causal ? cuc : cu;
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
  return device.sm_arch >= 90 ? AttentionKernel::cudnn : AttentionKernel::flash2;
}

double fused_attention_efficiency(AttentionKernel k, AttentionPass pass, bool causal, double seq_len,
                                  const DeviceSpec& device) {
  // Before Hopper there is no cuDNN kernel of this class: FlashAttention-2's rates (v1: its own),
  // for the causal forward and the backward at the share of the non-causal forward's rate that
  // FlashAttention-2 keeps on H100 (the same kernels' masking and backward recomputation).
  if (device.sm_arch < 90) {
    const Curve& f2 = hopper_curve(AttentionKernel::flash2, AttentionPass::forward, false);
    const Curve& f2_pass = hopper_curve(AttentionKernel::flash2, pass, causal);
    const double share = interpolate(f2_pass, seq_len) / interpolate(f2, seq_len);
    return share * interpolate(k == AttentionKernel::flash1 ? kA100Flash1 : kA100Flash2, seq_len);
  }
  // Blackwell is taken at Hopper's fraction of its own peak until it is measured.
  return interpolate(hopper_curve(k, pass, causal), seq_len);
}

}  // namespace dtsim
