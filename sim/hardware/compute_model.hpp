#pragma once
// Roofline time of one operator on one GPU:
//   time = max(flops / (peak * eff.compute), bytes / (hbm_bw * eff.memory)),
// eff from the measured curve of the operator's kind at its size where a calibration has one
// (measured_efficiency.hpp), else from the per-kind table. Efficiencies are fractions of the
// device's own peaks, so a curve measured on one GPU type and applied to another scales
// compute-bound times by the peak FLOP/s ratio and memory-bound ones by the HBM bandwidth ratio.
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
};

class ComputeModel {
 public:
  ComputeModel(const DeviceSpec& device, Precision precision, EfficiencyTable efficiencies,
               MeasuredEfficiencies measured = {});

  double time_s(const Operator& op) const;
  double peak_flops() const { return peak_flops_; }
  const DeviceSpec& device() const { return *device_; }
  const EfficiencyTable& efficiencies() const { return eff_; }
  const MeasuredEfficiencies& measured() const { return measured_; }

 private:
  const DeviceSpec* device_;  // a datasheet entry (device_spec.cpp), never null
  double peak_flops_;
  EfficiencyTable eff_;
  MeasuredEfficiencies measured_;
};

}  // namespace dtsim
