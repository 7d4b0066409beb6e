#pragma once
// How a memory-bound kernel walks its tensors, which decides the share of HBM bandwidth it
// reaches: PyTorch's vectorized element-wise kernels stream near the peak, its dtype-converting
// ones (unrolled, not vectorized) reach about half, permuting and broadcasting copies a third.
// The shares were measured on an H100 SXM (memory_access.cpp) and are taken as fractions of any
// GPU's HBM bandwidth until that GPU is measured.
#include <array>
#include <iterator>
#include <optional>
#include <string>

namespace dtsim {

enum class MemoryAccess {
  streaming,       // contiguous, one dtype (or PyTorch's fast fp32 -> bf16 cast): add, mul, SiLU, GeLU
  unrolled,        // PyTorch's non-vectorized element-wise kernel: bf16/fp16 -> fp32 copies, strided inputs
  promoting,       // element-wise ops on inputs of two dtypes (fp32 + bf16 -> fp32): the same unrolled kernel
  strided,         // permuting, concatenating, slicing and broadcasting copies; gathers and scatters
  normalization,   // LayerNorm/RMSNorm/BatchNorm forward and their weight gradients: row reductions
  norm_backward,   // the input gradient of a normalization, and bias gradients (column sums)
  batch_norm_statistics,  // BatchNorm's per-channel mean and variance over a channels-last batch
  batch_norm_transform,   // BatchNorm's normalization of a channels-last batch with those statistics
  max_pool_backward,      // max pooling's input gradient, gathered through the saved argmax
  softmax,         // log-softmax over a vocabulary (fp32), forward or backward
  fill,            // writes only: zeroing or filling a tensor
  optimizer_step,  // a multi-tensor optimizer update (fused Adam(W), SGD with momentum)
  multi_tensor,    // other multi-tensor passes over the parameters: norms, scaling (gradient clipping)
  layout_transpose,  // cuDNN's NCHW <-> NHWC copies around a convolution of contiguous feature maps
  row_permute,     // an fp32 copy that reorders whole rows: a sequence-first [s, b, h] tensor made batch-first
  dropout,         // PyTorch's dropout forward: random numbers drawn per element, the result and a 1-byte mask
};
inline constexpr MemoryAccess kMemoryAccesses[] = {
    MemoryAccess::streaming, MemoryAccess::unrolled,        MemoryAccess::promoting, MemoryAccess::strided,
    MemoryAccess::normalization, MemoryAccess::norm_backward, MemoryAccess::batch_norm_statistics,
    MemoryAccess::batch_norm_transform, MemoryAccess::max_pool_backward,
    MemoryAccess::softmax, MemoryAccess::fill,
    MemoryAccess::optimizer_step, MemoryAccess::multi_tensor, MemoryAccess::layout_transpose,
    MemoryAccess::row_permute, MemoryAccess::dropout};
inline constexpr int kMemoryAccessCount = int(std::size(kMemoryAccesses));
const char* to_string(MemoryAccess a);
// The pattern of that name; nullopt for another.
std::optional<MemoryAccess> memory_access_named(const std::string& name);

// Per pattern, how this GPU's shares compare with the measured H100's (1: as measured there).
using MemoryAccessScales = std::array<double, kMemoryAccessCount>;
inline MemoryAccessScales uniform_access_scales(double scale) {
  MemoryAccessScales s;
  s.fill(scale);
  return s;
}

// Fraction of the HBM peak a kernel of this access moving `bytes` (read + written) reaches, after
// its start-up time; above 1 where the measured GPU beat its datasheet peak.
double memory_access_efficiency(MemoryAccess a, double bytes);

// The share the profiler's probe of this pattern (kernels/memory_access_probes.cu) moving `bytes`
// reached on that H100, measured the same way; nullopt for a pattern without a probe. A
// calibration's probe against it scales the pattern on the calibrated GPU.
std::optional<double> probe_reference_efficiency(MemoryAccess a, double bytes);

// The share of its HBM peak the H100 SXM whose kernels the access patterns were measured on streamed
// in the profiler's 1 GiB device-to-device copy: 2 x 2^30 B in 716.256 us, 2998.207 of 3350 GB/s
// (tests/data/profiler/h100-sxm-2026-11-26.raw.json). A calibrated GPU's copy share against it
// scales every pattern.
inline constexpr double kReferenceCopyShare = 2.0 * 1073741824 / 716.256e-6 / 3350e9;

// GPU time every memory-bound kernel takes beyond its bytes / bandwidth: ramping up and draining
// its thread blocks. Measured on the H100: a cast's time against its size is a line through
// 1.66 us (vectorized) to 2.05 us (unrolled) at zero bytes; 1.8 us taken.
inline constexpr double kMemoryKernelStartupS = 1.8e-6;

// A multi-tensor launch (PyTorch's foreach and fused optimizers) gives each 65,536-element chunk
// to one thread block, so it takes at least the time one block streams a full chunk, however
// few its blocks: its time is hypot(this, bytes / (share x HBM)) plus the start-up above. Fitted
// (least squares of the relative error, with the multi_tensor share in memory_access.cpp) to the
// 18 distinct launches of the traced H100 steps: ResNet-50's 13 foreach SGD launches (3.3 to
// 204 MB; 8 and 51 blocks took 16.0 and 16.9 us), and clip_grad_norm_'s norm and scale launches of
// the Llama and GPT steps (320 full blocks: 31.2 and 61.8 us; their last, 9 and 102 blocks).
inline constexpr double kMultiTensorChunkS = 14.6e-6;

}  // namespace dtsim
