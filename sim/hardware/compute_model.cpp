#include "compute_model.hpp"

#include <algorithm>
#include <utility>

namespace dtsim {

ComputeModel::ComputeModel(const DeviceSpec& device, Precision precision, EfficiencyTable efficiencies,
                           MeasuredEfficiencies measured)
    : device_(&device),
      peak_flops_(device.peak_flops(precision)),
      non_gemm_peak_flops_(device.peak_flops(working_precision(precision))),
      eff_(efficiencies),
      measured_(std::move(measured)) {}

double ComputeModel::time_s(const Operator& op) const {
  OperatorEfficiency e = eff_[op.kind];
  const EfficiencyCurve& curve = measured_[op.kind];
  if (op.kernel_efficiency > 0) {
    e.compute = op.kernel_efficiency;
  } else if (!curve.empty()) {
    if (measured_by_flops(op.kind)) e.compute = curve.at(op.flops);
    else e.memory = curve.at(op.bytes);
  } else {
    e.compute *= op.shape_efficiency;
  }
  const double peak = op.kind == OperatorKind::gemm ? peak_flops_ : non_gemm_peak_flops_;
  const double compute_s = op.flops > 0 ? op.flops / (peak * e.compute * op.tile_utilization) : 0.0;
  const double memory_s = op.bytes > 0 ? op.bytes / (device_->hbm_bw_Bps * e.memory) : 0.0;
  return std::max(compute_s, memory_s);
}

}  // namespace dtsim
