#pragma once
// The per-fabric wiring of a topology graph (fat_tree 2 and 3 tiers, spine_leaf, rail_optimized,
// dragonfly, torus); internal to build_topology_graph, which validates what this builds. The
// wiring rules are described in fabric_graph_builders.cpp.
#include "topology_graph.hpp"

namespace dtsim::detail {

// The nodes (GPUs, NVSwitch, NICs) of `nodes` nodes and the fabric of topo.fabric between them,
// not validated. Dragonfly and torus check the node count against the fabric's capacity.
TopologyGraph wire_topology_graph(const TopologySpec& topo, long nodes);

}  // namespace dtsim::detail
