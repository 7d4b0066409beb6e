#include "intervals.hpp"

#include <algorithm>
#include <limits>

namespace dtsim {

double union_length(std::vector<Interval> intervals) {
  std::sort(intervals.begin(), intervals.end());
  double total = 0, end = -std::numeric_limits<double>::infinity();
  for (const auto& [a, b] : intervals) {
    if (b <= end) continue;
    total += b - std::max(a, end);
    end = b;
  }
  return total;
}

double uncovered_length(const Interval& x, const std::vector<Interval>& cover) {
  double covered = 0;
  for (const auto& [a, b] : cover) covered += std::max(0.0, std::min(b, x.second) - std::max(a, x.first));
  return (x.second - x.first) - covered;
}

std::vector<Interval> merged(std::vector<Interval> intervals) {
  std::sort(intervals.begin(), intervals.end());
  std::vector<Interval> out;
  for (const Interval& i : intervals) {
    if (!out.empty() && i.first <= out.back().second) out.back().second = std::max(out.back().second, i.second);
    else out.push_back(i);
  }
  return out;
}

}  // namespace dtsim
