#pragma once
// A topology as a Boost.Graph: every GPU, NVSwitch, NIC and fabric switch is a vertex, every
// cable an edge with its bandwidth (bytes/s, one direction; links are full duplex). Built from a
// TopologySpec and a node count, checked (connected, every port wired, switch radix and port
// speed), and measured (diameter, bisection bandwidth, oversubscription, path diversity).
//
// Inside a node: GPU k -- node's NVSwitch (NVLink bandwidth), GPU k -- NIC k % nics (NIC
// bandwidth: the NIC, not PCIe, is the limit). Between nodes, per fabric kind (see
// fabric_graph_builders.cpp for the wiring rules and the simplifications they make).
#include <boost/graph/adjacency_list.hpp>

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

#include "topology_spec.hpp"

namespace dtsim {

enum class VertexKind {
  gpu,
  nvswitch,     // one per node
  nic,
  torus_port,   // torus only: a node's NICs seen as one port that forwards to its neighbours
  leaf,         // fat_tree / spine_leaf leaf
  rail_leaf,    // rail_optimized: one per rail and group
  spine,        // fat_tree tier-2 top, spine_leaf spines, rail_optimized spines
  aggregation,  // fat_tree tier 3, inside a pod
  core,         // fat_tree tier 3, joins the pods
  router,       // dragonfly
};
const char* to_string(VertexKind k);
// Leaves, spines, aggregation, core and routers: the switches of the inter-node fabric.
bool is_fabric_switch(VertexKind k);
// Vertices that forward traffic between others: NVSwitches, fabric switches, torus ports.
bool forwards(VertexKind k);

struct GraphVertex {
  VertexKind kind = VertexKind::gpu;
  std::string name;  // "node3/gpu5", "node3/nvswitch", "node3/nic5", "leaf2", "rail4/group1", ...
  long node = -1;    // node index for GPU, NVSwitch, NIC and torus port; -1 for fabric switches
};

struct GraphLink {
  double bw_Bps = 0;  // one direction
  std::string name;   // "node0/nic0--leaf0"
};

using TopologyAdjacency =
    boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, GraphVertex, GraphLink>;
using GraphVertexId = TopologyAdjacency::vertex_descriptor;

struct TopologyGraph {
  std::string topology_name;
  std::filesystem::path source_file;
  long nodes = 0;
  int gpus_per_node = 0;
  TopologyAdjacency graph;
  std::vector<GraphVertexId> gpus;  // index = global rank = node * gpus_per_node + local index
  std::string fabric_summary;       // one line: what the builder made of the fabric section

  GraphVertexId add_vertex(VertexKind kind, std::string name, long node = -1);
  void add_link(GraphVertexId a, GraphVertexId b, double bw_Bps);
  const GraphVertex& vertex(GraphVertexId v) const { return graph[v]; }
};

// Builds and validates the graph of `nodes` nodes; bad input (too many nodes, radix exceeded,
// a link faster than its switch port, ...) throws InputError naming topo.source_file.
TopologyGraph build_topology_graph(const TopologySpec& topo, long nodes);

// The checks build_topology_graph runs, public so that hand-made graphs can be checked: switch
// radix and port speed against topo.fabric.switch_hw, every NIC and switch wired, connected.
void validate_topology_graph(const TopologyGraph& g, const TopologySpec& topo);

// The node count `dtsim topo` uses when none is given: two leaves' worth for fat_tree (2 tiers),
// spine_leaf and rail_optimized (two groups), two pods for a 3-tier fat_tree, the whole fabric
// for dragonfly and torus.
long default_node_count(const TopologySpec& topo);

struct TierOversubscription {
  VertexKind tier;
  double max_ratio = 1;  // max over the tier's switches of down-bandwidth / up-bandwidth
};

// Links and forwarding elements on a shortest path, and how many shortest paths there are.
struct PathHops {
  int links = -1;                 // -1: unreachable
  int switches = 0;               // fewest forwarding elements among the shortest paths
  std::uint64_t shortest_paths = 0;  // saturates at UINT64_MAX
};

struct TopologyMetrics {
  long vertices = 0, links = 0, gpus = 0, nics = 0, nvswitches = 0, fabric_switches = 0;
  // Diameter between GPUs: the longest shortest path, in links (edges) and in forwarding elements
  // (NVSwitch, fabric switches, torus ports) on it. Sampled when the graph is large (see topology_metrics.cpp).
  int diameter_links = 0;
  int diameter_switches = 0;
  bool diameter_sampled = false;
  long diameter_sources = 0;  // GPUs a BFS started from
  // Max-flow min-cut between the GPUs of nodes [0, N/2) and those of [N/2, N); 0 for one node.
  double bisection_bw_Bps = 0;
  long bisection_split_node = 0;  // first node of the second half
  std::vector<TierOversubscription> oversubscription;  // tiers that have up-links
  // Between GPU 0 and the GPU of the last node with the same local index (0).
  long path_from_gpu = 0, path_to_gpu = 0;
  PathHops path;
  int edge_disjoint_paths = 0;
};

TopologyMetrics topology_metrics(const TopologyGraph& g);

// Shortest path between two GPUs given by global rank.
PathHops hops_between(const TopologyGraph& g, long gpu_a, long gpu_b);

// Max-flow between two sets of vertices (super-source and super-sink of unbounded capacity);
// links are full duplex with capacity bw_Bps each way, or 1 each way when `unit_capacity`.
double max_flow_between(const TopologyGraph& g, const std::vector<GraphVertexId>& sources,
                        const std::vector<GraphVertexId>& sinks, bool unit_capacity = false);

// Graphviz DOT: vertices labelled with their names and kinds, links with GB/s.
void write_dot(const TopologyGraph& g, std::ostream& out);

}  // namespace dtsim
