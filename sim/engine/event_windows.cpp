#include "event_windows.hpp"

#include <algorithm>
#include <cmath>

#include "scenario.hpp"

namespace dtsim {

namespace {
double to_nanosecond(double t_s) { return t_s >= kForever_s ? kForever_s : std::round(t_s * 1e9) / 1e9; }
}  // namespace

std::vector<FactorChange> combined_factor_schedule(const std::vector<FactorWindow>& windows) {
  std::vector<double> edges{0};
  for (const FactorWindow& w : windows)
    for (double t : {w.start_s, w.end_s})
      if (to_nanosecond(t) < kForever_s) edges.push_back(to_nanosecond(t));
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());

  std::vector<FactorChange> schedule;
  for (double t : edges) {
    double factor = 1;
    for (const FactorWindow& w : windows)
      if (to_nanosecond(w.start_s) <= t && t < to_nanosecond(w.end_s)) factor *= w.factor;
    factor = std::max(factor, 1 / kMaxSlowdown);
    if (schedule.empty() || schedule.back().factor != factor) schedule.push_back({t, factor});
  }
  return schedule;
}

}  // namespace dtsim
