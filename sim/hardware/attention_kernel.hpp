#pragma once
// The kernel that computes core attention (softmax(QK^T)V), and the fraction of the device's
// bf16 tensor-core peak the fused kernels reach, from their published benchmarks.
//
// unfused: Megatron-LM 2021-22: QK^T and PV as batched GEMMs, the s x s score matrix written to
//   HBM and read back by a memory-bound softmax and dropout.
// flash1: FlashAttention (Dao et al. 2022) and its Triton port, as 2022-23 stacks ran it (e.g.
//   llm-foundry's MPT with attn_impl: triton): fused, but about half FlashAttention-2's rate.
// flash2: FlashAttention-2 (Dao 2023): one fused kernel, no score matrix in HBM, causal blocks
//   skipped; what PyTorch's scaled_dot_product_attention runs (TorchTitan, llm-foundry).
// cudnn: cuDNN's fused attention on Hopper and later, what Transformer Engine (Megatron-Core,
//   NeMo) runs; FlashAttention-3 reaches about the same rates.

#include "device_spec.hpp"

namespace dtsim {

enum class AttentionKernel { automatic, unfused, flash1, flash2, cudnn };
inline constexpr AttentionKernel kAttentionKernels[] = {AttentionKernel::automatic, AttentionKernel::unfused,
                                                        AttentionKernel::flash1, AttentionKernel::flash2,
                                                        AttentionKernel::cudnn};
enum class AttentionPass { forward, backward };

const char* to_string(AttentionKernel k);

// What Megatron-Core with Transformer Engine runs by default on the device: cuDNN fused attention
// where it exists (sm90 and later), else FlashAttention-2 (Ampere, sm80), else unfused: FlashAttention
// needs Ampere or later (its README; PyTorch's flash backend likewise), and the stacks of the V100
// era computed attention as batched GEMMs and a softmax. PyTorch's SDPA (TorchTitan, llm-foundry)
// runs FlashAttention-2 on Hopper too: flash2 states that. Other than automatic, `k` is kept.
AttentionKernel resolve_attention_kernel(AttentionKernel k, const DeviceSpec& device);

// Fraction of device.bf16_flops a fused kernel (flash1, flash2, cudnn) reaches on one pass at sequence
// length `seq_len` (keys per query) and head dimension `head_dim`, counting the FLOPs it performs
// (causal: half the score matrix; a head dim the kernel pads, at the padded dim's time).
// Piecewise linear in log2(seq_len) between the measured or
// published lengths 512..16k, constant beyond. On Hopper the rates are the ones measured on an
// H100 (attention_kernel.cpp), on A100 FlashAttention-2's published ones.
double fused_attention_efficiency(AttentionKernel k, AttentionPass pass, bool causal, double seq_len,
                                  double head_dim, const DeviceSpec& device);

}  // namespace dtsim
