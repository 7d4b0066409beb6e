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
  t[OperatorKind::gemm] = {0.80, 0.85};
  t[OperatorKind::attention_gemm] = {0.50, 0.85};
  t[OperatorKind::elementwise] = {1.0, 0.85};
  t[OperatorKind::optimizer] = {1.0, 0.85};
  return t;
}

}  // namespace dtsim
