#pragma once
// Overlapping what-if windows on one resource combine: a GPU slowed 1.5x that sits on a node
// slowed 1.2x runs 1.8x slower while both windows are open; two slow-link windows on one NIC
// multiply its bandwidth fractions. This turns a resource's windows into one schedule of
// factors over time (SimGrid takes one speed profile per host).
#include <vector>

namespace dtsim {

struct FactorWindow {
  double start_s = 0;
  double end_s = 0;     // kForever_s (scenario.hpp): open to the end
  double factor = 1;    // multiplies speed or bandwidth while open
};

struct FactorChange {
  double at_s = 0;
  double factor = 1;  // the product of the factors of the windows open from at_s on
};

// Edges are rounded to the nanosecond (SimGrid profiles are read back from text, and a time
// below ~1e-308 s would not parse); windows shorter than that vanish. The schedule starts at 0
// and lists only changes. Combined factors stop at 1/kMaxSlowdown (scenario.hpp), as one
// event's do: slower than that, the resource has stopped, which is a failure event.
std::vector<FactorChange> combined_factor_schedule(const std::vector<FactorWindow>& windows);

}  // namespace dtsim
