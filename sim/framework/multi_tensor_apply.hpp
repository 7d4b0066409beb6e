#pragma once
// How PyTorch's foreach and fused optimizers (and Apex's and Transformer Engine's, which share the
// scheme) cut a pass over a list of tensors into kernel launches: multi_tensor_apply in
// aten/src/ATen/native/cuda/MultiTensorApply.cuh. Each tensor is cut into chunks of 65,536
// elements, one thread block per chunk; a launch holds at most 320 blocks and, by the number of
// lists it walks (its depth: 1 for a norm or an in-place scale, 2 for `a += b`, 3 for `c = a + b`,
// 4 for fused Adam), at most 110, 64, 48, 36 or 30 tensors (its 4 KB kernel argument). The traced
// steps' launches follow it exactly: ResNet-50's foreach SGD (161 tensors) 13 launches with grids
// 180, 320, 8 / 71, 155, 282 (twice) / 51, 90, 204, 163; Llama's 146 and GPT's 292 tensors 60 and
// 64 launches per pass (tests/data/h100-2026-11-26/traces).
#include <array>
#include <optional>
#include <vector>

#include "compute_model.hpp"

namespace dtsim {

inline constexpr double kMultiTensorChunkElements = 65536;
inline constexpr int kMultiTensorMaxBlocks = 320;

struct MultiTensorLaunch {
  int blocks = 0;       // one per chunk: the launch's grid
  double elements = 0;  // of all its chunks
  double largest_chunk_elements = 0;
};

// The launches of one pass of `depth` lists (1..5) over tensors of these sizes, in order.
std::vector<MultiTensorLaunch> multi_tensor_launches(const std::vector<double>& tensor_elements, int depth);

// The launches of an optimizer step's passes over one list of tensors: every pass of a depth cuts
// the same ones, so each depth is cut once. Holds a reference to the list.
class MultiTensorPasses {
 public:
  explicit MultiTensorPasses(const std::vector<double>& tensor_elements) : tensors_(tensor_elements) {}
  const std::vector<MultiTensorLaunch>& of_depth(int depth);

 private:
  const std::vector<double>& tensors_;
  std::array<std::optional<std::vector<MultiTensorLaunch>>, 5> by_depth_;
};

// The launches as optimizer operators (equal launches in a row as one of that many kernels), each
// moving `bytes_per_element` (read + written, all lists) of its elements, its largest chunk's share
// of a full one recorded (Operator::chunk_fill).
void add_multi_tensor_pass(std::vector<Operator>& ops, const char* name, MemoryAccess access,
                           const std::vector<MultiTensorLaunch>& launches, double bytes_per_element);

// clip_grad_norm_(foreach=True) over the passes' fp32 gradients: their norms (read 4 B), six
// scalar kernels that total the norms and clip the scale, then each gradient scaled in place (read
// and write 4 B): the traced Llama and GPT steps' `_foreach_norm`, `_foreach_mul_` and the kernels
// between. Megatron's clip_grad_norm_fp32 does the same.
void add_grad_norm_clipping(std::vector<Operator>& ops, MultiTensorPasses& passes);

}  // namespace dtsim
