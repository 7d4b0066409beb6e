#pragma once
// Ring collectives decomposed into flows (DESIGN.md "Collectives as flows"): a pipelined ring
// is n concurrent flows, one per ring edge, each carrying the bytes that edge sees over the
// whole collective, plus a latency term of one edge latency per ring step.
#include "program.hpp"

namespace dtsim {

struct RingPlan {
  double bytes_per_edge = 0;
  int steps = 0;
};

// all_reduce: 2(n-1)/n*S over 2(n-1) steps; all_gather / reduce_scatter: (n-1)/n*S over n-1.
RingPlan ring_plan(CollectiveKind kind, int n, double bytes);

// Alpha-beta time on identical uncontended links: steps*alpha + bytes_per_edge/bandwidth.
double ring_time_s(CollectiveKind kind, int n, double bytes, double alpha_s, double bandwidth_Bps);

}  // namespace dtsim
