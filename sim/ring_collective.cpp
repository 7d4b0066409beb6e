#include "ring_collective.hpp"

namespace dtsim {

RingPlan ring_plan(CollectiveKind kind, int n, double bytes) {
  if (n <= 1) return {0, 0};
  const double share = double(n - 1) / n * bytes;
  if (kind == CollectiveKind::all_reduce) return {2 * share, 2 * (n - 1)};
  return {share, n - 1};
}

double ring_time_s(CollectiveKind kind, int n, double bytes, double alpha_s, double bandwidth_Bps) {
  const RingPlan p = ring_plan(kind, n, bytes);
  return p.steps * alpha_s + p.bytes_per_edge / bandwidth_Bps;
}

}  // namespace dtsim
