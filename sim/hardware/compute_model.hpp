#pragma once
// Roofline time of one operator on one GPU:
//   time = max(flops / (peak * eff.compute), bytes / (hbm_bw * eff.memory)),
// eff from the measured curve of the operator's kind at its size where a calibration has one
// (measured_efficiency.hpp), else from the per-kind table (times a GEMM's shape efficiency).
// Efficiencies are fractions of the device's own peaks, so a curve measured on one GPU type and
// applied to another scales compute-bound times by the peak FLOP/s ratio and memory-bound ones by
// the HBM bandwidth ratio.
// Only the transformer layers' dense GEMMs run in FP8 when training in fp8 (Transformer Engine's
// recipe: attention and everything else stay bf16), so other kinds, and GEMMs marked as kept in
// the working precision (the LM head), use the bf16 peak then.
#include "device_spec.hpp"
#include "efficiency_defaults.hpp"
#include "measured_efficiency.hpp"

namespace dtsim {

struct Operator {
  const char* name;  // "qkv_gemm", "attention_scores", ...
  OperatorKind kind;
  double flops = 0;  // matmul FLOPs only (elementwise work is memory-bound and not counted, as in
                     // the 72*B*s*l*h^2 convention)
  double bytes = 0;  // HBM bytes read + written
  // Fraction of the tensor-core tiles' work that is useful when a dimension is not a multiple
  // of the tile (tile quantization); scales the compute efficiency.
  double tile_utilization = 1;
  // Fraction of peak FLOP/s a fused kernel reaches at this shape, from its published benchmark
  // (attention_kernel.hpp); 0: the kind's measured curve or default table decides.
  double kernel_efficiency = 0;
  // Dense GEMMs: [m x k] x [k x n] (0 for other operators), and the fraction of the large-GEMM
  // rate (the default table's) the kernels of this operator reach at their shapes
  // (gemm_shape.hpp). A measured curve already holds its shapes' rates and ignores it.
  double m = 0, n = 0, k = 0;
  double shape_efficiency = 1;
  // A dense GEMM that stays in the working precision (bf16) when the layers' GEMMs run in FP8.
  bool working_precision_gemm = false;
  // CUDA kernels the operator launches (a GEMM's backward: dgrad and wgrad); kernel_launch.hpp.
  int kernels = 1;
};

class ComputeModel {
 public:
  ComputeModel(const DeviceSpec& device, Precision precision, EfficiencyTable efficiencies,
               MeasuredEfficiencies measured = {});

  double time_s(const Operator& op) const;
  double peak_flops() const { return peak_flops_; }  // of dense GEMMs at the training precision
  const DeviceSpec& device() const { return *device_; }
  const EfficiencyTable& efficiencies() const { return eff_; }
  const MeasuredEfficiencies& measured() const { return measured_; }

 private:
  const DeviceSpec* device_;  // a datasheet entry (device_spec.cpp), never null
  double peak_flops_;
  double non_gemm_peak_flops_;  // attention's batched GEMMs: bf16 when training in fp8
  EfficiencyTable eff_;
  MeasuredEfficiencies measured_;
};

}  // namespace dtsim
