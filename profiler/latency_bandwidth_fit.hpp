#pragma once
// Fits time_s = latency_s + bus_bytes / busbw_Bps to the points of one collective, where
// bus_bytes = bytes x busbw_factor (nccl_perf_format.hpp), so the fitted bandwidth is a bus
// bandwidth comparable with nccl-tests' busbw column and with the simulator's link bandwidths.
//
// Choice: weighted least squares in relative error, i.e. minimise sum(((fit_i - t_i) / t_i)^2).
// A sweep from 8 B to 8 GB by factor 2 has ~20 latency-bound points and a few bandwidth-bound
// ones. Plain least squares on seconds is ruled by the largest sizes (the latency comes out as
// noise, even negative); on log-time it is not linear. Relative weights give every size the same
// say: the small sizes pin the latency (where t ~ latency), the large ones the bandwidth (where
// t ~ bytes / bandwidth), with no hand-picked threshold between "small" and "large". NCCL's
// protocol switches (LL, LL128, Simple) bend the real curve in the middle; a two-parameter line
// cannot follow that, and max_relative_error says how far the line is from the worst point.
// If the unconstrained latency comes out negative, it is set to 0 and the bandwidth refitted.
#include <vector>

namespace dtsim::profiler {

struct BusPoint {
  double bus_bytes = 0;  // bytes x busbw factor
  double time_s = 0;     // > 0
};

struct LatencyBandwidthFit {
  double latency_s = 0;
  double busbw_Bps = 0;
  double max_relative_error = 0;  // max over points of |fit - t| / t
};

// Throws std::invalid_argument for fewer than two distinct sizes, a time <= 0, or points whose
// time does not grow with size (no bandwidth to fit).
LatencyBandwidthFit fit_latency_bandwidth(const std::vector<BusPoint>& points);

}  // namespace dtsim::profiler
