// Measures a topology graph: diameter, bisection bandwidth, oversubscription, path diversity;
// see topology_graph.hpp.
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/push_relabel_max_flow.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "topology_graph.hpp"
#include "topology_graph_detail.hpp"

namespace dtsim {

namespace {

using detail::other_end;

// ---- shortest paths -------------------------------------------------------------------------

// Breadth-first searches from GPUs over a compressed-sparse-row copy of the graph (both
// directions of every link), several times faster than the adjacency list for repeated BFS.
// Per vertex: links from the source, fewest forwarding elements among the shortest paths, number
// of shortest paths. Buffers are reused across sources.
class PathSearch {
 public:
  explicit PathSearch(const TopologyAdjacency& g) : forwards_(boost::num_vertices(g)) {
    std::vector<std::pair<size_t, size_t>> arcs;
    arcs.reserve(2 * boost::num_edges(g));
    for (auto e : boost::make_iterator_range(boost::edges(g))) {
      arcs.emplace_back(boost::source(e, g), boost::target(e, g));
      arcs.emplace_back(boost::target(e, g), boost::source(e, g));
    }
    csr_ = Csr(boost::edges_are_unsorted_multi_pass, arcs.begin(), arcs.end(), boost::num_vertices(g));
    for (GraphVertexId v : boost::make_iterator_range(boost::vertices(g))) forwards_[v] = forwards(g[v].kind);
  }

  void run(GraphVertexId source) {
    const size_t n = forwards_.size();
    links.assign(n, -1);
    switches.assign(n, 0);
    paths.assign(n, 0);
    color_.resize(n);
    links[source] = 0;
    paths[source] = 1;
    Visitor visitor;
    visitor.s = this;
    boost::breadth_first_search(csr_, source, boost::visitor(visitor).color_map(color_.data()));
  }

  std::vector<int> links, switches;
  std::vector<std::uint64_t> paths;

 private:
  using Csr = boost::compressed_sparse_row_graph<boost::directedS>;
  struct Visitor : boost::default_bfs_visitor {
    PathSearch* s;
    using Edge = Csr::edge_descriptor;
    void tree_edge(Edge e, const Csr& g) const {
      const auto u = boost::source(e, g), v = boost::target(e, g);
      s->links[v] = s->links[u] + 1;
      s->switches[v] = s->switches[u] + s->forwards_[v];
      s->paths[v] = s->paths[u];
    }
    // Another edge into a vertex of the next layer: one more way to reach it as short.
    void non_tree_edge(Edge e, const Csr& g) const {
      const auto u = boost::source(e, g), v = boost::target(e, g);
      if (s->links[v] != s->links[u] + 1) return;
      s->switches[v] = std::min(s->switches[v], s->switches[u] + s->forwards_[v]);
      const std::uint64_t sum = s->paths[v] + s->paths[u];
      s->paths[v] = sum < s->paths[v] ? std::numeric_limits<std::uint64_t>::max() : sum;
    }
  };
  Csr csr_;
  std::vector<int> forwards_;  // 1 for NVSwitches, fabric switches, torus ports
  std::vector<boost::default_color_type> color_;
};

// BFS sources for the diameter. Exact (every GPU) while GPUs x (vertices + links) stays under
// this; beyond, all GPUs of: the first and last node, the first node on each distinct fabric
// switch that NIC 0 connects to (one node per leaf / rail group / router), and 16 evenly spaced
// nodes. Nodes under one leaf are wired alike, so this covers every distinct position of the
// switched fabrics built here; a full torus looks the same from every node (a partly filled one
// does not: there the sampled diameter is a lower bound).
constexpr double kExactDiameterWork = 4e7;

std::vector<long> diameter_source_nodes(const TopologyGraph& tg, bool& sampled) {
  const TopologyAdjacency& g = tg.graph;
  const double work = double(tg.gpus.size()) * double(boost::num_vertices(g) + boost::num_edges(g));
  std::set<long> nodes;
  sampled = work > kExactDiameterWork;
  if (!sampled) {
    for (long n = 0; n < tg.nodes; ++n) nodes.insert(n);
    return {nodes.begin(), nodes.end()};
  }
  nodes.insert(0);
  nodes.insert(tg.nodes - 1);
  for (long i = 0; i < 16; ++i) nodes.insert(i * (tg.nodes - 1) / 15);
  std::set<GraphVertexId> attachments;
  for (long n = 0; n < tg.nodes; ++n) {
    const GraphVertexId gpu0 = tg.gpus[size_t(n) * tg.gpus_per_node];
    for (GraphVertexId nic : boost::make_iterator_range(boost::adjacent_vertices(gpu0, g))) {
      if (g[nic].kind != VertexKind::nic) continue;
      for (GraphVertexId up : boost::make_iterator_range(boost::adjacent_vertices(nic, g)))
        if (is_fabric_switch(g[up].kind) && attachments.insert(up).second)
          nodes.insert(n);
    }
  }
  return {nodes.begin(), nodes.end()};
}

// The GPUs of a source node: all of them when exact; sampled, the first GPU on each of the node's
// NICs (and GPU 0): GPUs on one NIC reach the fabric alike, and inside the node all GPUs are one
// NVSwitch apart. A 1,024-GPU node would otherwise make each sampled node 1,024 searches (a
// 64-node dragonfly of such nodes took minutes).
std::vector<int> diameter_source_gpus(const TopologyGraph& tg, long node, bool sampled) {
  std::vector<int> gpus;
  if (!sampled) {
    for (int k = 0; k < tg.gpus_per_node; ++k) gpus.push_back(k);
    return gpus;
  }
  const TopologyAdjacency& g = tg.graph;
  std::set<GraphVertexId> nics;
  for (int k = 0; k < tg.gpus_per_node; ++k) {
    bool new_nic = k == 0;
    for (GraphVertexId v : boost::make_iterator_range(boost::adjacent_vertices(tg.gpus[size_t(node) * tg.gpus_per_node + k], g)))
      if (g[v].kind == VertexKind::nic && nics.insert(v).second) new_nic = true;
    if (new_nic) gpus.push_back(k);
  }
  return gpus;
}

// ---- max-flow -------------------------------------------------------------------------------

using FlowTraits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
struct FlowArc {
  std::int64_t capacity = 0, residual = 0;
  FlowTraits::edge_descriptor reverse;
};
using FlowGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property, FlowArc>;

void add_arc_pair(FlowGraph& f, size_t a, size_t b, std::int64_t cap_ab, std::int64_t cap_ba) {
  const auto ab = boost::add_edge(a, b, f).first, ba = boost::add_edge(b, a, f).first;
  f[ab].capacity = cap_ab;
  f[ba].capacity = cap_ba;
  f[ab].reverse = ba;
  f[ba].reverse = ab;
}

}  // namespace

// ---- public ---------------------------------------------------------------------------------

PathHops hops_between(const TopologyGraph& g, long gpu_a, long gpu_b) {
  PathSearch search(g.graph);
  search.run(g.gpus.at(gpu_a));
  const GraphVertexId b = g.gpus.at(gpu_b);
  return {search.links[b], search.switches[b], search.paths[b]};
}

double max_flow_between(const TopologyGraph& tg, const std::vector<GraphVertexId>& sources,
                        const std::vector<GraphVertexId>& sinks, bool unit_capacity) {
  const TopologyAdjacency& g = tg.graph;
  const size_t n = boost::num_vertices(g), source = n, sink = n + 1;
  FlowGraph f(n + 2);
  // Integer capacities (bytes/s or 1) keep the max-flow exact. A terminal's arc to the super
  // source/sink gets the sum of its own links: as good as infinite, without overflow.
  std::vector<std::int64_t> incident(n, 0);
  for (auto e : boost::make_iterator_range(boost::edges(g))) {
    const std::int64_t cap = unit_capacity ? 1 : std::llround(g[e].bw_Bps);
    const size_t a = boost::source(e, g), b = boost::target(e, g);
    add_arc_pair(f, a, b, cap, cap);
    incident[a] += cap;
    incident[b] += cap;
  }
  for (GraphVertexId v : sources) add_arc_pair(f, source, v, incident[v], 0);
  for (GraphVertexId v : sinks) add_arc_pair(f, v, sink, incident[v], 0);

  const std::int64_t flow = boost::push_relabel_max_flow(
      f, source, sink, boost::get(&FlowArc::capacity, f), boost::get(&FlowArc::residual, f),
      boost::get(&FlowArc::reverse, f), boost::get(boost::vertex_index, f));
  return double(flow);
}

TopologyMetrics topology_metrics(const TopologyGraph& tg) {
  const TopologyAdjacency& g = tg.graph;
  TopologyMetrics m;
  m.vertices = long(boost::num_vertices(g));
  m.links = long(boost::num_edges(g));
  for (GraphVertexId v : boost::make_iterator_range(boost::vertices(g))) {
    const VertexKind k = g[v].kind;
    m.gpus += k == VertexKind::gpu;
    m.nics += k == VertexKind::nic;
    m.nvswitches += k == VertexKind::nvswitch;
    m.fabric_switches += is_fabric_switch(k);
  }

  // Diameter between GPUs.
  PathSearch search(g);
  for (long node : diameter_source_nodes(tg, m.diameter_sampled)) {
    for (int k : diameter_source_gpus(tg, node, m.diameter_sampled)) {
      search.run(tg.gpus[size_t(node) * tg.gpus_per_node + k]);
      ++m.diameter_sources;
      for (GraphVertexId t : tg.gpus) {
        m.diameter_links = std::max(m.diameter_links, search.links[t]);
        m.diameter_switches = std::max(m.diameter_switches, search.switches[t]);
      }
    }
  }

  // Bisection: first half of the nodes against the rest.
  if (tg.nodes > 1) {
    m.bisection_split_node = tg.nodes / 2;
    const auto split = tg.gpus.begin() + m.bisection_split_node * tg.gpus_per_node;
    m.bisection_bw_Bps = max_flow_between(tg, {tg.gpus.begin(), split}, {split, tg.gpus.end()});
  }

  // Oversubscription: down / up bandwidth of every switch that has up-links, by tier.
  auto level = [](VertexKind k) {
    switch (k) {
      case VertexKind::nic: return 1;
      case VertexKind::leaf:
      case VertexKind::rail_leaf: return 2;
      case VertexKind::spine:
      case VertexKind::aggregation: return 3;
      case VertexKind::core: return 4;
      default: return 0;  // not part of a tree: GPUs, NVSwitches, routers, torus ports
    }
  };
  std::map<VertexKind, double> worst;
  for (GraphVertexId v : boost::make_iterator_range(boost::vertices(g))) {
    const int lv = level(g[v].kind);
    if (lv < 2) continue;
    double down = 0, up = 0;
    for (auto e : boost::make_iterator_range(boost::out_edges(v, g))) {
      const int far = level(g[other_end(g, e, v)].kind);
      if (far == 0 || far == lv) continue;
      (far > lv ? up : down) += g[e].bw_Bps;
    }
    if (up > 0) worst[g[v].kind] = std::max(worst[g[v].kind], down / up);
  }
  for (const auto& [kind, ratio] : worst) m.oversubscription.push_back({kind, ratio});

  // Path diversity between GPU 0 and GPU 0 of the last node.
  m.path_from_gpu = 0;
  m.path_to_gpu = (tg.nodes - 1) * tg.gpus_per_node;
  if (tg.nodes > 1) {
    m.path = hops_between(tg, m.path_from_gpu, m.path_to_gpu);
    m.edge_disjoint_paths =
        int(max_flow_between(tg, {tg.gpus[m.path_from_gpu]}, {tg.gpus[m.path_to_gpu]}, /*unit_capacity=*/true));
  }
  return m;
}

}  // namespace dtsim
