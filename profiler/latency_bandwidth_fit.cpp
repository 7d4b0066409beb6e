#include "latency_bandwidth_fit.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace dtsim::profiler {

LatencyBandwidthFit fit_latency_bandwidth(const std::vector<BusPoint>& points) {
  if (points.size() < 2) throw std::invalid_argument("latency/bandwidth fit needs at least two sizes");
  double max_bytes = 0, min_bytes = points.front().bus_bytes;
  for (const BusPoint& p : points) {
    if (!(p.time_s > 0) || !std::isfinite(p.time_s)) throw std::invalid_argument("latency/bandwidth fit: a time <= 0");
    if (!(p.bus_bytes >= 0)) throw std::invalid_argument("latency/bandwidth fit: bytes < 0");
    max_bytes = std::max(max_bytes, p.bus_bytes);
    min_bytes = std::min(min_bytes, p.bus_bytes);
  }
  if (!(max_bytes > min_bytes)) throw std::invalid_argument("latency/bandwidth fit needs at least two sizes");

  // Unknowns latency_s and slope = max_bytes / busbw (seconds for the largest size): x is scaled
  // to [0, 1] so that the normal equations stay well conditioned.
  double sw = 0, sx = 0, sxx = 0, st = 0, sxt = 0;
  for (const BusPoint& p : points) {
    const double w = 1 / (p.time_s * p.time_s);
    const double x = p.bus_bytes / max_bytes;
    sw += w;
    sx += w * x;
    sxx += w * x * x;
    st += w * p.time_s;
    sxt += w * x * p.time_s;
  }
  const double det = sw * sxx - sx * sx;
  double latency_s = (st * sxx - sx * sxt) / det;
  double slope_s = (sw * sxt - sx * st) / det;
  if (latency_s < 0) {  // through the origin: minimise sum w (x slope - t)^2
    latency_s = 0;
    slope_s = sxt / sxx;
  }
  if (!(slope_s > 0) || !std::isfinite(slope_s))
    throw std::invalid_argument("latency/bandwidth fit: time does not grow with size");

  LatencyBandwidthFit fit;
  fit.latency_s = latency_s;
  fit.busbw_Bps = max_bytes / slope_s;
  for (const BusPoint& p : points) {
    const double predicted_s = fit.latency_s + p.bus_bytes / fit.busbw_Bps;
    fit.max_relative_error = std::max(fit.max_relative_error, std::abs(predicted_s - p.time_s) / p.time_s);
  }
  return fit;
}

}  // namespace dtsim::profiler
