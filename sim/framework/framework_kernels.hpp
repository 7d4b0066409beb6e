#pragma once
// The kernel lists of each framework (scenario.hpp, Framework), behind one table of functions so
// that transformer_ops.cpp can dispatch on a scenario's framework. docs/frameworks.md lists every
// kernel with the trace or source it was read from.
#include <vector>

#include "compute_model.hpp"
#include "rank_shape.hpp"

namespace dtsim {

struct FrameworkKernels {
  using Ops = std::vector<Operator> (*)(const RankShape&);
  Ops layer_forward;
  Ops layer_backward;  // input and weight gradients (Operator::weight_gradient marks the latter)
  // TorchTitan's per-op selective recompute (every second matmul and the non-matmul work), where
  // the layer's GEMMs stand for several matmuls; null: taken from layer_forward's operators. Full
  // recompute redoes layer_forward, Megatron's selective recompute its core attention.
  Ops layer_selective_op_recompute;
  Ops embedding_forward;
  Ops embedding_backward;
  Ops logits_forward;   // final norm, LM head and the loss
  Ops logits_backward;
  // Frameworks whose forward operators state their saved_bytes: the bytes the loss's backward
  // holds beside them at its peak (its gradients); null: the framework states no saved tensors
  // and the memory model uses its published formulas (Megatron: Korthikanti et al.).
  double (*loss_backward_bytes)(const RankShape&) = nullptr;
};

const FrameworkKernels& megatron_kernels();  // megatron_kernels.cpp
const FrameworkKernels& eager_kernels();     // eager_kernels.cpp
const FrameworkKernels& compiled_kernels();  // compiled_kernels.cpp

}  // namespace dtsim
