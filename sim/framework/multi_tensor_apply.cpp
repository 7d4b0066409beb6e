#include "multi_tensor_apply.hpp"

#include <algorithm>
#include <cmath>

#include "kernel_builders.hpp"

namespace dtsim {

namespace {
constexpr int kMaxTensorsByDepth[] = {110, 64, 48, 36, 30};
}

std::vector<MultiTensorLaunch> multi_tensor_launches(const std::vector<double>& tensor_elements, int depth) {
  const int max_tensors = kMaxTensorsByDepth[std::clamp(depth, 1, 5) - 1];
  std::vector<MultiTensorLaunch> launches;
  MultiTensorLaunch open;
  int tensors = 0;  // in the open launch
  for (const double n : tensor_elements) {
    if (n <= 0) continue;  // empty tensors are skipped
    ++tensors;
    const double chunks = std::ceil(n / kMultiTensorChunkElements);
    const double last_chunk_elements = n - (chunks - 1) * kMultiTensorChunkElements;
    // The tensor's chunks in runs that fill the open launch's blocks; a launch closes when its
    // blocks are full or, at a tensor's last chunk, its tensors are.
    for (double placed = 0; placed < chunks;) {
      const double run = std::min(chunks - placed, double(kMultiTensorMaxBlocks - open.blocks));
      const bool ends_tensor = placed + run == chunks;
      const double full_chunks = ends_tensor ? run - 1 : run;
      open.blocks += int(run);
      open.elements += full_chunks * kMultiTensorChunkElements + (ends_tensor ? last_chunk_elements : 0);
      open.largest_chunk_elements =
          std::max(open.largest_chunk_elements, full_chunks > 0 ? kMultiTensorChunkElements : last_chunk_elements);
      placed += run;
      if ((tensors == max_tensors && ends_tensor) || open.blocks == kMultiTensorMaxBlocks) {
        launches.push_back(open);
        open = {};
        tensors = ends_tensor ? 0 : 1;  // a tensor cut by the block limit goes on in the next launch
      }
    }
  }
  if (open.blocks > 0) launches.push_back(open);
  return launches;
}

const std::vector<MultiTensorLaunch>& MultiTensorPasses::of_depth(int depth) {
  depth = std::clamp(depth, 1, 5);
  std::optional<std::vector<MultiTensorLaunch>>& launches = by_depth_[size_t(depth - 1)];
  if (!launches) launches = multi_tensor_launches(tensors_, depth);
  return *launches;
}

void add_multi_tensor_pass(std::vector<Operator>& ops, const char* name, MemoryAccess access,
                           const std::vector<MultiTensorLaunch>& launches, double bytes_per_element) {
  for (size_t i = 0; i < launches.size();) {
    // Equal launches in a row (a large tensor's full launches) are one operator of that many.
    size_t same = 1;
    while (i + same < launches.size() && launches[i + same].elements == launches[i].elements &&
           launches[i + same].largest_chunk_elements == launches[i].largest_chunk_elements)
      ++same;
    Operator op = optimizer_op(name, access, bytes_per_element * launches[i].elements * double(same), int(same));
    op.chunk_fill = launches[i].largest_chunk_elements / kMultiTensorChunkElements;
    ops.push_back(op);
    i += same;
  }
}

void add_grad_norm_clipping(std::vector<Operator>& ops, MultiTensorPasses& passes) {
  add_multi_tensor_pass(ops, "grad_norm", MemoryAccess::multi_tensor, passes.of_depth(1), 4);
  ops.push_back(optimizer_op("grad_norm_total", MemoryAccess::multi_tensor, 0, 6));
  add_multi_tensor_pass(ops, "grad_clip_scale", MemoryAccess::multi_tensor, passes.of_depth(1), 8);
}

}  // namespace dtsim
