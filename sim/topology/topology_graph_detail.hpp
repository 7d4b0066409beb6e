#pragma once
// Small helpers shared by the topology graph sources (fabric_graph_builders.cpp,
// topology_validation.cpp, topology_metrics.cpp); internal, not part of topology_graph.hpp.
#include "topology_graph.hpp"

namespace dtsim::detail {

inline constexpr double kGbps = 1e9 / 8;  // bytes/s in one Gb/s

inline GraphVertexId other_end(const TopologyAdjacency& g, TopologyAdjacency::edge_descriptor e, GraphVertexId v) {
  return boost::source(e, g) == v ? boost::target(e, g) : boost::source(e, g);
}

}  // namespace dtsim::detail
