#include "analytic_model.hpp"

namespace dtsim {
// Placeholder until the analytic model lands.
AnalyticEstimate estimate_iteration(const Scenario&, const ComputeModel&) { return {}; }
AnalyticEstimate estimate_iteration(const Scenario&) { return {}; }
}  // namespace dtsim
