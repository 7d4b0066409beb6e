#include "memory_access.hpp"

#include "log_size_curve.hpp"

namespace dtsim {

namespace {

using Points = LogSizeCurve;  // (bytes, fraction of the HBM peak)

// Measured on the H100 SXM lent to this project on 2026-11-26 (3.35 TB/s datasheet peak), from
// the kernels of the traced training steps in tests/data/h100-2026-11-26/traces (PyTorch 2.11,
// bf16 autocast): bytes read + written by hand from each kernel's tensor shapes, over its time
// less kMemoryKernelStartupS. The traces name each kernel; the tensors are the steps' (T = 8192
// tokens, hidden 2048, FFN 8192).
// - streaming: vectorized_elementwise_kernel: the fp32 -> bf16 cast of a [T, 2048] activation
//   100.7 MB in 33.9 us (0.94 of the peak), bf16 mul [T, 8192] 402.7 MB in 131.5 us (0.93), SiLU
//   268.4 MB in 86.6 us (0.95), GeLU 268.4 MB in 89.6 us (0.91), fp32 add_ 201.3 MB in 65.1 us
//   (0.95), dropout's backward 0.93: 0.93. The cast of the 128256 x 2048 embedding, 1.58 GB in
//   516 us: 0.92; the tied embedding's fp32 gradient added to the LM head's, 3.15 GB in 1031 us:
//   0.91; the fp32 -> bf16 cast of the logits' gradient [T, 128256], 6.30 GB in 1026 us: 1.83
//   (above the peak: the largest tensors, the loss's, were measured faster than HBM can stream
//   them, here and under unrolled and fill; GPT's 2.5 GB loss tensors were not).
// - unrolled: unrolled_elementwise_kernel (bf16 -> fp32 copies; RoPE's fp32 backward multiplies
//   on strided halves run at the same 0.56): [T, 2048] 100.7 MB in 54.5 us
//   (0.57), an 8192 x 2048 weight gradient in 55.6 us (0.56), the embedding's gradient 1.58 GB in
//   815 us (0.58), GPT's logits [T, 50304] 2.47 GB in 1306 us (0.57); Llama's logits [T, 128256]
//   6.30 GB in 1627 us: 1.16.
// - promoting: the fp32 + bf16 residual add, 167.8 MB in 71.3 us (Llama, 0.72) and 74.1 us (GPT,
//   0.69): 0.71.
// - strided: attention's output transposed [T, 2048] bf16 67.1 MB in 51.8 us (0.40), GPT's QKV
//   split 201.3 MB in 165.4 us (0.37), its gradients stacked in 206.4 us (0.29), RoPE's broadcast
//   multiply (bf16 x fp32 -> fp32) 50.3 MB in 51.1 us (0.30), its stack 67.1 MB in 58.2 us
//   (0.36), slice_backward's copy 0.33: 0.35.
// - normalization: RMSNorm forward fp32 134.2 MB in 50.4 us (0.82), LayerNorm's 57.0 us (0.73);
//   their weight gradients 53.7 us (0.77) and 60.5 us (0.68): 0.75.
// - norm_backward: the input gradient, 201.3 MB in 100.7 us (RMSNorm, 0.61) and 101.5 us
//   (LayerNorm, 0.60); GPT's bias gradients (column sums of [T, 8192] bf16) 0.68: 0.60.
// - batch_norm_statistics: batch_norm_collect_statistics_channels_last over ResNet-50's bf16
//   feature maps (the traced ResNet-50 step, batch 256): [256, 256, 56, 56] 411 MB read in 556.7 us
//   (0.22), [256, 512, 28, 28] 0.21, [256, 1024, 14, 14] 0.18, [256, 64, 56, 56] 0.16,
//   [256, 64, 112, 112] 0.17, [256, 2048, 7, 7] 0.17: 0.19. (Its backward kernels run as the
//   normalization kinds above: backward_reduce 0.53-0.71, backward_elemt 0.59-0.76.)
// - batch_norm_transform: batch_norm_transform_input_channels_last, reading the bf16 feature map
//   and writing it normalized, 53 kernels of the same step: 0.64 over all (0.49-0.67 each).
// - max_pool_backward: max_pool_backward_nhwc of ResNet-50's 3x3 stride-2 pooling, the gradient
//   of [256, 64, 112, 112] bf16 written and the [256, 64, 56, 56] output's gradient and int64
//   argmax read (924.8 MB) in 1836.9 us: 0.15 (each output is read by the 2.25 inputs of its
//   window; the forward, max_pool_forward_nhwc, 861.8 us, runs as strided).
// - softmax: log-softmax over [T, 128256] fp32 counted as 12 B per element (two reads and a
//   write), forward 5545 us (0.68), backward 5705 us (0.66); GPT's [T, 50304] 0.68 and 0.65: 0.67.
// - fill: zeroing GPT's [T, 50304] fp32 loss gradient, 1.65 GB in 498 us (0.99), the embedding's
//   gradient 1.05 GB in 318 us (0.99); Llama's [T, 128256] loss gradient, 4.20 GB in 636 us: 1.98.
// - optimizer_step: fused AdamW, 28 B per parameter, its launches priced as kMultiTensorChunkS
//   says: 1.236e9 parameters in 13.69 ms over 60 launches (0.763), GPT's 1.316e9 in 14.28 ms over
//   64 (0.778): 0.77.
// - multi_tensor: the other multi-tensor passes (foreach SGD, clip_grad_norm_'s _foreach_norm
//   and _foreach_mul_), fitted with kMultiTensorChunkS to the traced launches it lists: 0.884
//   (a 320-block norm of 83.9 MB in 33.7 us where 31.2 were measured, a scale of 167.8 MB in 60.3
//   where 61.8; ResNet-50's 13 in 478 us where 491).
// - layout_transpose: the one pattern measured on another GPU, an A100 40GB (1,555 GB/s): cuDNN's
//   nchwToNhwc and nhwcToNchw copies around ResNet-50's convolutions with NCHW feature maps (HTA's
//   public trace, fp32 at batch 32, tests/data/traces/hta/nccl_data.json.gz): 211 copies a step
//   in 5.027, 4.999 and 5.095 ms (ProfilerStep#4-6), where the maps the model copies
//   (layer_graph_kernels.cpp; the weights left out) come to 4.059 GB in 98 kernels: 0.54 of the
//   peak after their start-up.
// - row_permute: the fp32 copies of the traced ViT-B/16 step (tests/data/h100-2026-11-28) that make
//   its sequence-first [197, 256, 768] residual stream and gradients batch-first, rows of 768
//   contiguous (PyTorch's elementwise_kernel<128, 2>): 310.2 MB in 132.2 to 135.2 us, 0.70 and 0.71.
//   (Its bf16 copies of the same kind, elementwise_kernel<128, 4>, reached 0.46: priced as strided.)
// - dropout: fused_dropout_kernel_vec, which draws Philox random numbers for every element and
//   writes the result and a 1-byte mask (read, write, mask: 2 x 2 + 1 B an element in bf16, 2 x 4
//   + 1 in fp32), in the traced steps of 2026-11-26 and 2026-11-28: GPT-350M's [8, 1024, 1024] bf16
//   41.9 MB in 16.3 us (0.86) and its fp32 attention probabilities [8, 16, 1024, 1024] 1.208 GB in
//   467.4 us (0.77), BERT-large's [64, 128, 1024] bf16 in 16.4 us (0.86) and fp32 75.5 MB in 29.1 us
//   (0.83), GPT-1.3B's [4, 2048, 2048] bf16 83.9 MB in 34.0 us (0.78): 0.86 at 41.9 MB, 0.77 at
//   1.208 GB. Its backward (the gradient times the mask) streams.
const Points& points(MemoryAccess a) {
  static const Points streaming = {{1.58e9, 0.93}, {3.15e9, 0.91}, {6.30e9, 1.83}};
  static const Points unrolled = {{2.47e9, 0.57}, {6.30e9, 1.16}};
  static const Points promoting = {{1, 0.71}};
  static const Points strided = {{1, 0.35}};
  static const Points normalization = {{1, 0.75}};
  static const Points norm_backward = {{1, 0.60}};
  static const Points batch_norm_statistics = {{1, 0.19}};
  static const Points batch_norm_transform = {{1, 0.64}};
  static const Points max_pool_backward = {{1, 0.15}};
  static const Points softmax = {{1, 0.67}};
  static const Points fill = {{1.65e9, 0.99}, {4.20e9, 1.98}};
  static const Points optimizer_step = {{1, 0.77}};
  static const Points multi_tensor = {{1, 0.884}};
  static const Points layout_transpose = {{1, 0.54}};
  static const Points row_permute = {{1, 0.70}};
  static const Points dropout = {{4.194e7, 0.86}, {1.208e9, 0.77}};
  switch (a) {
    case MemoryAccess::streaming: return streaming;
    case MemoryAccess::unrolled: return unrolled;
    case MemoryAccess::promoting: return promoting;
    case MemoryAccess::strided: return strided;
    case MemoryAccess::normalization: return normalization;
    case MemoryAccess::norm_backward: return norm_backward;
    case MemoryAccess::batch_norm_statistics: return batch_norm_statistics;
    case MemoryAccess::batch_norm_transform: return batch_norm_transform;
    case MemoryAccess::max_pool_backward: return max_pool_backward;
    case MemoryAccess::softmax: return softmax;
    case MemoryAccess::fill: return fill;
    case MemoryAccess::optimizer_step: return optimizer_step;
    case MemoryAccess::multi_tensor: return multi_tensor;
    case MemoryAccess::layout_transpose: return layout_transpose;
    case MemoryAccess::row_permute: return row_permute;
    case MemoryAccess::dropout: return dropout;
  }
  return streaming;
}

// The profiler's own probes of five patterns (kernels/memory_access_probes.cu), measured on the
// H100 SXM on 2026-11-28 (tests/data/profiler/h100-sxm-2026-11-28.raw.json, calibrations/
// h100-sxm-2026-11-28.json): bytes over each probe's median time less kMemoryKernelStartupS, over
// 3.35 TB/s, at their five sizes (1,024 to 131,072 rows of 4,096). They are dtsim's kernels, not
// PyTorch's: the unrolled and promoting probes stream at 0.89 and 0.92 where PyTorch's kernels
// reached 0.57 and 0.71 on the same H100. So a probe tells how another GPU differs from this one,
// on the same kernel (probe_reference_efficiency).
const Points* probe_points(MemoryAccess a) {
  static const Points streaming = {{2.517e7, 3.226}, {1.007e8, 0.919}, {4.027e8, 0.918}, {1.611e9, 0.917},
                                   {3.221e9, 0.912}};
  static const Points unrolled = {{2.517e7, 1.704}, {1.007e8, 0.901}, {4.027e8, 0.897}, {1.611e9, 0.892},
                                  {3.221e9, 0.892}};
  static const Points promoting = {{4.194e7, 1.091}, {1.678e8, 0.905}, {6.711e8, 0.916}, {2.684e9, 0.915},
                                   {5.369e9, 0.915}};
  static const Points strided = {{1.678e7, 0.562}, {6.711e7, 0.413}, {2.684e8, 0.418}, {1.074e9, 0.419},
                                 {2.147e9, 0.420}};
  static const Points fill = {{1.678e7, 1.161}, {6.711e7, 1.019}, {2.684e8, 0.995}, {1.074e9, 0.988},
                              {2.147e9, 0.981}};
  switch (a) {
    case MemoryAccess::streaming: return &streaming;
    case MemoryAccess::unrolled: return &unrolled;
    case MemoryAccess::promoting: return &promoting;
    case MemoryAccess::strided: return &strided;
    case MemoryAccess::fill: return &fill;
    default: return nullptr;
  }
}

}  // namespace

const char* to_string(MemoryAccess a) {
  switch (a) {
    case MemoryAccess::streaming: return "streaming";
    case MemoryAccess::unrolled: return "unrolled";
    case MemoryAccess::promoting: return "promoting";
    case MemoryAccess::strided: return "strided";
    case MemoryAccess::normalization: return "normalization";
    case MemoryAccess::norm_backward: return "norm_backward";
    case MemoryAccess::batch_norm_statistics: return "batch_norm_statistics";
    case MemoryAccess::batch_norm_transform: return "batch_norm_transform";
    case MemoryAccess::max_pool_backward: return "max_pool_backward";
    case MemoryAccess::softmax: return "softmax";
    case MemoryAccess::fill: return "fill";
    case MemoryAccess::optimizer_step: return "optimizer_step";
    case MemoryAccess::multi_tensor: return "multi_tensor";
    case MemoryAccess::layout_transpose: return "layout_transpose";
    case MemoryAccess::row_permute: return "row_permute";
    case MemoryAccess::dropout: return "dropout";
  }
  return "?";
}

double memory_access_efficiency(MemoryAccess a, double bytes) { return log_size_interpolate(points(a), bytes); }

std::optional<double> probe_reference_efficiency(MemoryAccess a, double bytes) {
  const Points* p = probe_points(a);
  if (!p) return std::nullopt;
  return log_size_interpolate(*p, bytes);
}

std::optional<MemoryAccess> memory_access_named(const std::string& name) {
  for (MemoryAccess a : kMemoryAccesses)
    if (name == to_string(a)) return a;
  return std::nullopt;
}

}  // namespace dtsim
