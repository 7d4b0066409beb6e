#pragma once
// Closed-form iteration time of a scenario, from the same per-stage costs the SimGrid model
// executes (workload_builder.hpp) and the same collective cost model (collective_model.hpp),
// without contention between flows. The planner prunes with it; on layouts whose flows do not
// contend it agrees with the simulation within 2%.
#include "compute_model.hpp"
#include "resolved_scenario.hpp"
#include "scenario.hpp"

namespace dtsim {

struct AnalyticEstimate {
  double iteration_s = 0;
  double compute_s = 0;                // busiest stage's compute
  double exposed_communication_s = 0;  // TP/CP/EP/p2p/DP time not hidden behind compute
  double bubble_s = 0;                 // pipeline fill and drain
};

// `node`: the scenario's node as resolved (NVLink calibrated where a calibration says so).
AnalyticEstimate estimate_iteration(const Scenario& s, const ComputeModel& compute, const NodeSpec& node);
AnalyticEstimate estimate_iteration(const ResolvedScenario& r);

}  // namespace dtsim
