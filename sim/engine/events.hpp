#pragma once
// Applies a scenario's what-if events to the SimGrid platform itself (speed and bandwidth
// profiles, resources turned off), so their effect travels through collectives and pipelines.
#include <vector>

#include "platform_builder.hpp"
#include "scenario.hpp"

namespace dtsim {

// `topology`: the NICs a node failure turns off with its GPUs, and the leaves of the fabric.
void apply_events(const std::vector<Event>& events, Platform& platform, const TopologySpec& topology);

}  // namespace dtsim
