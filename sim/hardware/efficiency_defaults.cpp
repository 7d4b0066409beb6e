#include "efficiency_defaults.hpp"

namespace dtsim {

const char* to_string(OperatorKind k) {
  switch (k) {
    case OperatorKind::gemm: return "gemm";
    case OperatorKind::attention_gemm: return "attention_gemm";
    case OperatorKind::elementwise: return "elementwise";
    case OperatorKind::optimizer: return "optimizer";
  }
  return "?";
}

EfficiencyTable default_efficiencies() {
  EfficiencyTable t;
  t[OperatorKind::gemm] = {0.80, 0.93};
  t[OperatorKind::attention_gemm] = {0.50, 0.93};
  t[OperatorKind::elementwise] = {1.0, 0.93};
  t[OperatorKind::optimizer] = {1.0, 0.77};
  return t;
}

bool has_measured_defaults(const DeviceSpec& device) { return device.in_step_gemm_efficiency > 0; }

EfficiencyTable default_efficiencies(const DeviceSpec& device) {
  EfficiencyTable t = default_efficiencies();
  if (has_measured_defaults(device)) t[OperatorKind::gemm].compute = device.in_step_gemm_efficiency;
  return t;
}

}  // namespace dtsim
