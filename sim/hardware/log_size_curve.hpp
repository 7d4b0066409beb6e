#pragma once
// How dtsim reads a curve measured over operator size (FLOPs or bytes): piecewise linear in
// log(size) between its points, the end values beyond them.
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace dtsim {

using LogSizeCurve = std::vector<std::pair<double, double>>;  // (size, value), sorted by size, not empty

inline double log_size_interpolate(const LogSizeCurve& points, double size) {
  if (size <= points.front().first) return points.front().second;
  if (size >= points.back().first) return points.back().second;
  const auto hi = std::upper_bound(points.begin(), points.end(), size,
                                   [](double s, const auto& p) { return s < p.first; });
  const auto lo = hi - 1;
  const double t = std::log(size / lo->first) / std::log(hi->first / lo->first);
  return lo->second + t * (hi->second - lo->second);
}

}  // namespace dtsim
