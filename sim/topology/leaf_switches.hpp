#pragma once
// The leaf switches of fat_tree, spine_leaf and rail_optimized fabrics, numbered as failure
// events name them (scenario.hpp, ResourceFailureEvent::leaf):
//   fat_tree, spine_leaf: leaf i serves nodes [i x nodes_per_leaf, (i+1) x nodes_per_leaf), all NICs;
//   rail_optimized: leaf group x nics + k serves NIC k of the nodes of rail group `group`.
// The scenario checks, the failure events and the GUI's topology view all count them so.
#include "topology_spec.hpp"

namespace dtsim {

struct LeafSwitch {
  int first_node = 0;
  int end_node = 0;  // one past the last node it serves
  int rail = -1;     // rail_optimized: the one NIC index it serves; -1: every NIC of its nodes
};

bool has_leaf_switches(FabricKind kind);
// 0 for fabrics without leaf switches (dragonfly, torus).
int leaf_switch_count(const TopologySpec& topo, int nodes);
// `leaf` in [0, leaf_switch_count).
LeafSwitch leaf_switch(const TopologySpec& topo, int nodes, int leaf);

}  // namespace dtsim
