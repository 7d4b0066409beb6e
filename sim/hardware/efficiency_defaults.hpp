#pragma once
// Default fractions of datasheet peak that operators reach when no calibration covers them.
// This is the one place these numbers live; a calibration file overrides them by kind.
#include <array>
#include <string>

#include "device_spec.hpp"

namespace dtsim {

enum class OperatorKind {
  gemm,            // dense matmuls: QKV, projection, MLP, logits
  attention_gemm,  // batched QK^T and (softmax)V: short inner dimension (head_dim)
  elementwise,     // layernorm, GeLU, dropout, residual, softmax, embedding lookup: memory-bound
  optimizer,       // Adam update: memory-bound streaming over the parameters
};
constexpr int kOperatorKindCount = 4;

const char* to_string(OperatorKind k);

struct OperatorEfficiency {
  double compute = 1;  // fraction of peak FLOP/s
  double memory = 1;   // fraction of peak HBM bandwidth
};

struct EfficiencyTable {
  std::array<OperatorEfficiency, kOperatorKindCount> by_kind;
  const OperatorEfficiency& operator[](OperatorKind k) const { return by_kind[static_cast<int>(k)]; }
  OperatorEfficiency& operator[](OperatorKind k) { return by_kind[static_cast<int>(k)]; }
};

// gemm compute 0.80: an 8192^3 bf16 GEMM measured at ~798 of 989 TFLOP/s on H100 (measured on an H100 SXM lent to this project).
// attention_gemm compute 0.50: batched GEMMs with k = head_dim (64-128) keep tensor cores
//   partly idle; unfused (non-flash) attention of Megatron-LM 2021-22 as the conservative default.
// memory 0.93 (0.77 for the optimizer): PyTorch's vectorized element-wise kernels and its fused
//   AdamW as measured on an H100 (memory_access.cpp, streaming and optimizer_step); each
//   memory-bound operator's access pattern scales these (memory_access.hpp). A GEMM reads and
//   writes its operands at the streaming rate too (compute_model.hpp combines its two times).
EfficiencyTable default_efficiencies();

// The table for `device`: the defaults above, with what this project measured on that GPU in
// their place (DeviceSpec::in_step_gemm_efficiency).
EfficiencyTable default_efficiencies(const DeviceSpec& device);
bool has_measured_defaults(const DeviceSpec& device);

}  // namespace dtsim
