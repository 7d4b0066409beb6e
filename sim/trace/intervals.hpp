#pragma once
// Time intervals of GPU work (µs): their union, merged, and what of one another does not cover.
#include <utility>
#include <vector>

namespace dtsim {

using Interval = std::pair<double, double>;  // [start, end)

// Total length of the union of intervals.
double union_length(std::vector<Interval> intervals);

// Sorted, with overlapping intervals merged.
std::vector<Interval> merged(std::vector<Interval> intervals);

// Length of `x` not covered by the (sorted, merged) `cover`.
double uncovered_length(const Interval& x, const std::vector<Interval>& cover);

}  // namespace dtsim
