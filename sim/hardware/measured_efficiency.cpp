#include "measured_efficiency.hpp"

#include <algorithm>

namespace dtsim {

void EfficiencyCurve::add(double size, double efficiency) {
  if (!(size > 0) || !(efficiency > 0)) return;
  const auto it = std::lower_bound(points_.begin(), points_.end(), std::make_pair(size, 0.0),
                                   [](const auto& a, const auto& b) { return a.first < b.first; });
  const size_t i = size_t(it - points_.begin());
  if (it != points_.end() && it->first == size) {  // running mean of runs of equal size
    points_[i].second = (points_[i].second * counts_[i] + efficiency) / (counts_[i] + 1);
    ++counts_[i];
    return;
  }
  points_.insert(it, {size, efficiency});
  counts_.insert(counts_.begin() + long(i), 1);
}

double EfficiencyCurve::at(double size) const {
  return points_.empty() ? 0 : log_size_interpolate(points_, size);
}

bool measured_by_flops(OperatorKind k) { return k == OperatorKind::gemm || k == OperatorKind::attention_gemm; }

MeasuredEfficiencies measured_efficiencies(const Calibration& c, Precision precision) {
  const auto same_rate = [](Precision a, Precision b) {
    const auto half = [](Precision p) { return p == Precision::bf16 || p == Precision::fp16; };
    return a == b || (half(a) && half(b));
  };
  MeasuredEfficiencies m;
  for (const MeasuredOperator& op : c.operators) {
    if (!same_rate(op.precision, precision)) continue;
    if (measured_by_flops(op.kind)) m.by_kind[int(op.kind)].add(op.flops, op.compute_efficiency);
  }
  return m;
}

}  // namespace dtsim
