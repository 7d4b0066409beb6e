#pragma once
// The GPUs a what-if event can make behave differently from the data-parallel replicas that
// do not hold them: under rank folding their replicas run their own programs (DESIGN.md "Scale").
#include <optional>
#include <vector>

#include "scenario.hpp"

namespace dtsim {

// nullopt: the events can make every replica differ, so nothing folds.
std::optional<std::vector<int>> gpus_events_reach(const std::vector<Event>& events, int gpus_per_node);

}  // namespace dtsim
