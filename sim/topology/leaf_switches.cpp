#include "leaf_switches.hpp"

#include <algorithm>

namespace dtsim {

bool has_leaf_switches(FabricKind kind) {
  return kind == FabricKind::fat_tree || kind == FabricKind::spine_leaf || kind == FabricKind::rail_optimized;
}

int leaf_switch_count(const TopologySpec& topo, int nodes) {
  if (!has_leaf_switches(topo.fabric.kind)) return 0;
  const int groups = (nodes + topo.fabric.nodes_per_leaf - 1) / topo.fabric.nodes_per_leaf;
  return topo.fabric.kind == FabricKind::rail_optimized ? groups * topo.node.nics : groups;
}

LeafSwitch leaf_switch(const TopologySpec& topo, int nodes, int leaf) {
  const bool rails = topo.fabric.kind == FabricKind::rail_optimized;
  const int group = rails ? leaf / topo.node.nics : leaf;
  LeafSwitch l;
  l.first_node = group * topo.fabric.nodes_per_leaf;
  l.end_node = std::min(nodes, l.first_node + topo.fabric.nodes_per_leaf);
  l.rail = rails ? leaf % topo.node.nics : -1;
  return l;
}

}  // namespace dtsim
