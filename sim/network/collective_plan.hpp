#pragma once
// Collectives decomposed into flows (DESIGN.md "Collectives as flows"): each algorithm becomes
// a few phases; a phase is the set of flows its communication graph carries at once (a
// pipelined ring is one phase of n flows, one per ring edge, each with all the bytes that edge
// sees), followed by the algorithm's latency for that phase. Flow sizes include the protocol's
// efficiency (an LL flow carries twice the bytes), so contention on shared links stays real.
#include <vector>

#include "collective_model.hpp"

namespace dtsim {

struct Flow {
  int src = 0;  // global ranks
  int dst = 0;
  double bytes = 0;
};

struct PlanPhase {
  std::vector<Flow> flows;  // at most one per (src, dst)
  double latency_s = 0;
};

struct CollectivePlan {
  CollectiveEstimate estimate;
  std::vector<PlanPhase> phases;
};

// `ranks` are the group's global ranks; rank r sits on node r / gpus_per_node.
CollectivePlan plan_collective(CollectiveKind kind, const CollectiveEstimate& chosen, const std::vector<int>& ranks,
                               int gpus_per_node, const NodeSpec& node, double bytes);

}  // namespace dtsim
