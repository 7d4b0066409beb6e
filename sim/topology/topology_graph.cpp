// The topology graph itself: vertex kinds, adding vertices and links, building (wire the fabric,
// then validate) and the default node count; see topology_graph.hpp. The pieces live in
// fabric_graph_builders.cpp (per-fabric wiring), topology_validation.cpp (checks),
// topology_metrics.cpp (diameter, bisection, paths, max-flow) and topology_dot.cpp (DOT output).
#include "topology_graph.hpp"

#include "fabric_graph_builders.hpp"

namespace dtsim {

const char* to_string(VertexKind k) {
  switch (k) {
    case VertexKind::gpu: return "gpu";
    case VertexKind::nvswitch: return "nvswitch";
    case VertexKind::nic: return "nic";
    case VertexKind::torus_port: return "torus_port";
    case VertexKind::leaf: return "leaf";
    case VertexKind::rail_leaf: return "rail_leaf";
    case VertexKind::spine: return "spine";
    case VertexKind::aggregation: return "aggregation";
    case VertexKind::core: return "core";
    case VertexKind::router: return "router";
  }
  return "?";
}

bool is_fabric_switch(VertexKind k) {
  switch (k) {
    case VertexKind::leaf:
    case VertexKind::rail_leaf:
    case VertexKind::spine:
    case VertexKind::aggregation:
    case VertexKind::core:
    case VertexKind::router: return true;
    default: return false;
  }
}

bool forwards(VertexKind k) {
  return is_fabric_switch(k) || k == VertexKind::nvswitch || k == VertexKind::torus_port;
}

GraphVertexId TopologyGraph::add_vertex(VertexKind kind, std::string name, long node) {
  return boost::add_vertex(GraphVertex{kind, std::move(name), node}, graph);
}

void TopologyGraph::add_link(GraphVertexId a, GraphVertexId b, double bw_Bps) {
  boost::add_edge(a, b, GraphLink{bw_Bps, graph[a].name + "--" + graph[b].name}, graph);
}

long default_node_count(const TopologySpec& topo) {
  const FabricSpec& f = topo.fabric;
  switch (f.kind) {
    case FabricKind::dragonfly:
    case FabricKind::torus: return f.capacity_nodes();
    case FabricKind::fat_tree:
      if (f.tiers == 3) return 2L * f.leaves_per_pod * f.nodes_per_leaf;
      return 2L * f.nodes_per_leaf;
    default: return 2L * f.nodes_per_leaf;
  }
}

TopologyGraph build_topology_graph(const TopologySpec& topo, long nodes) {
  check_node_count(topo, nodes, "the topology graph");
  TopologyGraph g = detail::wire_topology_graph(topo, nodes);
  validate_topology_graph(g, topo);
  return g;
}

}  // namespace dtsim
