// Builds, checks and measures the graph of a topology; see topology_graph.hpp.
//
// Wiring rules (the fabric semantics of topology_spec.hpp). "Upper tiers" exist only when there
// is more than one leaf (group, pod): a single leaf joins its nodes by itself.
//  fat_tree, 2 tiers: leaves = ceil(nodes / nodes_per_leaf); every NIC to its node's leaf at NIC
//    speed. A leaf's up-bandwidth is its design down-bandwidth (nodes_per_leaf * nics * NIC speed,
//    also for a partly filled last leaf) / oversubscription, as one up-port of NIC speed to each
//    of spines = nodes_per_leaf * nics / oversubscription spines (rounded up; the up-links then
//    share the up-bandwidth evenly, so they run below NIC speed when the division is not exact).
//  fat_tree, 3 tiers: pods of leaves_per_pod leaves; inside a pod leaf -> aggregation as a
//    2-tier leaf -> spine (aggregation switches per pod = the spine count above). Each
//    aggregation switch has ceil(leaves_per_pod / pod_oversubscription) up-links that share its
//    down-bandwidth / pod_oversubscription; aggregation switch j of every pod goes to the same
//    "plane" of cores (j * up-links ... + up-links - 1), so a core has one link per pod.
//  spine_leaf: as fat_tree 2 tiers, but the spine count and up-link speed come from the file.
//  rail_optimized: groups of nodes_per_leaf nodes; per group one leaf per rail k to which NIC k
//    of every node of the group goes. With more than one group, every rail leaf has one up-link
//    to each of ceil(nodes_per_leaf / oversubscription) spines shared by all rails and groups.
//  dragonfly (simplified from SimGrid's DragonflyZone, which has configurable link counts):
//    the whole router fabric is built whatever the node count; node n's NICs all go to router
//    n / nodes_per_router; routers of a chassis are all-to-all, router r of every chassis of a
//    group is linked to router r of the group's other chassis, and each pair of groups has one
//    global link (group g's router h % routers_per_group to group h's router g % ...). Fabric
//    links carry one node's NIC aggregate bandwidth.
//  torus: node n at the mixed-radix position of n (first dimension fastest). There are no
//    switches: each node's NICs feed one "torus port" vertex (the node's NICs seen as one port,
//    which forwards traffic as direct-connect nodes do) linked to the ports of its occupied
//    wraparound neighbours at one node's NIC aggregate bandwidth. A dimension of size 2 gives one
//    link between the two neighbours, of size 1 none.
// fabric.switch checks apply to fabric switches (not NVSwitches, not torus ports): each link
// uses one port; a link may run slower than its port (auto-negotiation), never faster.
#include "topology_graph.hpp"

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/connected_components.hpp>
#include <boost/graph/graphviz.hpp>
#include <boost/graph/push_relabel_max_flow.hpp>
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <ostream>
#include <set>

#include "input_error.hpp"

namespace dtsim {

namespace {

constexpr double kGbps = 1e9 / 8;  // bytes/s in one Gb/s

// "1 leaf", "2 leaves"
std::string count(long n, const char* one, const char* many) { return fmt::format("{} {}", n, n == 1 ? one : many); }
long ceil_div(long a, long b) { return (a + b - 1) / b; }
// Ports (one per upper switch) needed for `ports` worth of NIC-speed bandwidth: rounded up, >= 1.
long ports_needed(double ports) { return std::max(1L, long(std::ceil(ports - 1e-9))); }

// 1-based line of a nested key of the topology file, or of its deepest existing parent; 0 when
// the file cannot be read (e.g. a spec made in code).
int yaml_line(const std::filesystem::path& file, std::initializer_list<const char*> keys) {
  try {
    YAML::Node node = YAML::LoadFile(file.string());
    int line = 0;
    for (const char* key : keys) {
      const YAML::Node& parent = node;  // const: operator[] must not add the key
      const YAML::Node child = parent[key];
      if (!child) break;
      node.reset(child);
      line = node.Mark().line >= 0 ? node.Mark().line + 1 : 0;
    }
    return line;
  } catch (const std::exception&) {
    return 0;
  }
}

class Builder {
 public:
  Builder(const TopologySpec& topo, long nodes) : topo_(topo), node_(topo.node), fabric_(topo.fabric) {
    g_.topology_name = topo.name;
    g_.source_file = topo.source_file;
    g_.nodes = nodes;
    g_.gpus_per_node = node_.gpus;
  }

  TopologyGraph build() {
    build_nodes();
    switch (fabric_.kind) {
      case FabricKind::fat_tree: fabric_.tiers == 3 ? fat_tree_3() : fat_tree_2(); break;
      case FabricKind::spine_leaf: spine_leaf(); break;
      case FabricKind::rail_optimized: rail_optimized(); break;
      case FabricKind::dragonfly: dragonfly(); break;
      case FabricKind::torus: torus(); break;
    }
    return std::move(g_);
  }

 private:
  using V = GraphVertexId;

  void build_nodes() {
    nics_.resize(g_.nodes);
    for (long n = 0; n < g_.nodes; ++n) {
      const V nvswitch = g_.add_vertex(VertexKind::nvswitch, fmt::format("node{}/nvswitch", n), n);
      for (int j = 0; j < node_.nics; ++j)
        nics_[n].push_back(g_.add_vertex(VertexKind::nic, fmt::format("node{}/nic{}", n, j), n));
      for (int k = 0; k < node_.gpus; ++k) {
        const V gpu = g_.add_vertex(VertexKind::gpu, fmt::format("node{}/gpu{}", n, k), n);
        g_.gpus.push_back(gpu);
        g_.add_link(gpu, nvswitch, node_.nvlink_bw_Bps);
        g_.add_link(gpu, nics_[n][k % node_.nics], node_.nic_bw_Bps);
      }
    }
  }

  std::vector<V> add_switches(VertexKind kind, long how_many, const std::string& prefix) {
    std::vector<V> out;
    for (long i = 0; i < how_many; ++i) out.push_back(g_.add_vertex(kind, fmt::format("{}{}", prefix, i)));
    return out;
  }

  // Every NIC of node n to leaves[n / nodes_per_leaf].
  std::vector<V> add_leaves() {
    const std::vector<V> leaves = add_switches(VertexKind::leaf, ceil_div(g_.nodes, fabric_.nodes_per_leaf), "leaf");
    for (long n = 0; n < g_.nodes; ++n)
      for (V nic : nics_[n]) g_.add_link(nic, leaves[n / fabric_.nodes_per_leaf], node_.nic_bw_Bps);
    return leaves;
  }

  void link_all(const std::vector<V>& lower, const std::vector<V>& upper, double bw_Bps) {
    for (V a : lower)
      for (V b : upper) g_.add_link(a, b, bw_Bps);
  }

  // Leaf up-links for fat_tree: how many (one per upper switch) and how fast.
  double leaf_down_Bps() const { return fabric_.nodes_per_leaf * node_.nic_aggregate_bw_Bps(); }
  long leaf_up_ports() const { return ports_needed(fabric_.nodes_per_leaf * node_.nics / fabric_.oversubscription); }
  double leaf_up_link_Bps() const { return leaf_down_Bps() / fabric_.oversubscription / leaf_up_ports(); }

  void fat_tree_2() {
    const std::vector<V> leaves = add_leaves();
    long spines = 0;
    if (leaves.size() > 1) {
      spines = leaf_up_ports();
      link_all(leaves, add_switches(VertexKind::spine, spines, "spine"), leaf_up_link_Bps());
    }
    g_.fabric_summary = fmt::format("fat_tree, 2 tiers: {} of {} nodes, {}", count(leaves.size(), "leaf", "leaves"),
                                    fabric_.nodes_per_leaf, count(spines, "spine", "spines"));
    if (spines)
      g_.fabric_summary += fmt::format("; leaf up-links {}, {}:1", gbps(leaf_up_link_Bps()), fabric_.oversubscription);
  }

  void fat_tree_3() {
    const std::vector<V> leaves = add_leaves();
    const long per_pod = fabric_.leaves_per_pod;
    const long pods = ceil_div(long(leaves.size()), per_pod);
    const long aggs_per_pod = leaves.size() > 1 ? leaf_up_ports() : 0;
    const long agg_up = ports_needed(per_pod / fabric_.pod_oversubscription);
    const double agg_up_link_Bps = per_pod * leaf_up_link_Bps() / fabric_.pod_oversubscription / agg_up;
    std::vector<std::vector<V>> aggs(pods);
    for (long p = 0; p < pods && aggs_per_pod > 0; ++p) {
      aggs[p] = add_switches(VertexKind::aggregation, aggs_per_pod, fmt::format("pod{}/agg", p));
      const long first = p * per_pod, last = std::min<long>(first + per_pod, leaves.size());
      link_all({leaves.begin() + first, leaves.begin() + last}, aggs[p], leaf_up_link_Bps());
    }
    long cores = 0;
    if (pods > 1) {
      cores = aggs_per_pod * agg_up;
      const std::vector<V> core = add_switches(VertexKind::core, cores, "core");
      for (long p = 0; p < pods; ++p)
        for (long j = 0; j < aggs_per_pod; ++j)
          for (long i = 0; i < agg_up; ++i) g_.add_link(aggs[p][j], core[j * agg_up + i], agg_up_link_Bps);
    }
    g_.fabric_summary = fmt::format(
        "fat_tree, 3 tiers: {} of {} leaves of {} nodes, {} per pod, {}; leaf up-links {} ({}:1), pod up-links {} "
        "({}:1)",
        count(pods, "pod", "pods"), per_pod, fabric_.nodes_per_leaf,
        count(aggs_per_pod, "aggregation switch", "aggregation switches"), count(cores, "core", "cores"),
        gbps(leaf_up_link_Bps()), fabric_.oversubscription, gbps(agg_up_link_Bps), fabric_.pod_oversubscription);
  }

  void spine_leaf() {
    const std::vector<V> leaves = add_leaves();
    if (leaves.size() > 1)
      link_all(leaves, add_switches(VertexKind::spine, fabric_.spines, "spine"), fabric_.uplink_bw_Bps);
    g_.fabric_summary = fmt::format("spine_leaf: {} of {} nodes, {}; leaf up-links {} each, {:.3g}:1",
                                    count(leaves.size(), "leaf", "leaves"), fabric_.nodes_per_leaf,
                                    count(leaves.size() > 1 ? fabric_.spines : 0, "spine", "spines"),
                                    gbps(fabric_.uplink_bw_Bps), fabric_.oversubscription);
  }

  void rail_optimized() {
    const long groups = ceil_div(g_.nodes, fabric_.nodes_per_leaf);
    std::vector<V> rail_leaves;  // index group * nics + rail
    for (long grp = 0; grp < groups; ++grp)
      for (int k = 0; k < node_.nics; ++k)
        rail_leaves.push_back(g_.add_vertex(VertexKind::rail_leaf, fmt::format("rail{}/group{}", k, grp)));
    for (long n = 0; n < g_.nodes; ++n)
      for (int k = 0; k < node_.nics; ++k)
        g_.add_link(nics_[n][k], rail_leaves[(n / fabric_.nodes_per_leaf) * node_.nics + k], node_.nic_bw_Bps);
    const long spines = groups > 1 ? ports_needed(fabric_.nodes_per_leaf / fabric_.oversubscription) : 0;
    const double up_Bps = spines ? fabric_.nodes_per_leaf * node_.nic_bw_Bps / fabric_.oversubscription / spines : 0;
    if (spines) link_all(rail_leaves, add_switches(VertexKind::spine, spines, "spine"), up_Bps);
    g_.fabric_summary = fmt::format("rail_optimized: {} of {} nodes, {} ({} per group), {}",
                                    count(groups, "group", "groups"), fabric_.nodes_per_leaf,
                                    count(rail_leaves.size(), "rail leaf", "rail leaves"), node_.nics,
                                    count(spines, "spine", "spines"));
    if (spines)
      g_.fabric_summary += fmt::format("; rail-leaf up-links {}, {}:1", gbps(up_Bps), fabric_.oversubscription);
  }

  void dragonfly() {
    check_node_count(topo_, g_.nodes, "the topology graph");
    const long chassis = fabric_.chassis_per_group, per_chassis = fabric_.routers_per_chassis;
    const long per_group = chassis * per_chassis, groups = fabric_.groups;
    std::vector<V> routers;  // index (group * chassis + c) * per_chassis + r
    for (long grp = 0; grp < groups; ++grp)
      for (long c = 0; c < chassis; ++c)
        for (long r = 0; r < per_chassis; ++r)
          routers.push_back(g_.add_vertex(VertexKind::router, fmt::format("group{}/chassis{}/router{}", grp, c, r)));
    for (long n = 0; n < g_.nodes; ++n)
      for (V nic : nics_[n]) g_.add_link(nic, routers[n / fabric_.nodes_per_router], node_.nic_bw_Bps);
    const double bw = node_.nic_aggregate_bw_Bps();
    auto at = [&](long grp, long c, long r) { return routers[(grp * chassis + c) * per_chassis + r]; };
    for (long grp = 0; grp < groups; ++grp)
      for (long c = 0; c < chassis; ++c)
        for (long r = 0; r < per_chassis; ++r) {
          for (long r2 = r + 1; r2 < per_chassis; ++r2) g_.add_link(at(grp, c, r), at(grp, c, r2), bw);
          for (long c2 = c + 1; c2 < chassis; ++c2) g_.add_link(at(grp, c, r), at(grp, c2, r), bw);
        }
    for (long a = 0; a < groups; ++a)
      for (long b = a + 1; b < groups; ++b)
        g_.add_link(routers[a * per_group + b % per_group], routers[b * per_group + a % per_group], bw);
    g_.fabric_summary = fmt::format(
        "dragonfly: {} groups x {} chassis x {} routers, {} nodes per router; router links {} each "
        "(one node's NICs)",
        groups, chassis, per_chassis, fabric_.nodes_per_router, gbps(bw));
  }

  void torus() {
    check_node_count(topo_, g_.nodes, "the topology graph");
    const std::vector<int>& dims = fabric_.dimensions;
    std::vector<V> ports;
    for (long n = 0; n < g_.nodes; ++n) {
      ports.push_back(g_.add_vertex(VertexKind::torus_port, fmt::format("node{}/port", n), n));
      for (V nic : nics_[n]) g_.add_link(nic, ports[n], node_.nic_bw_Bps);
    }
    const double bw = node_.nic_aggregate_bw_Bps();
    for (long n = 0; n < g_.nodes; ++n) {
      long stride = 1, rest = n;
      for (int size : dims) {
        const long coord = rest % size;
        rest /= size;
        // The +1 neighbour (with wraparound); for size 2 only from coordinate 0, to link once.
        if (size > 2 || (size == 2 && coord == 0)) {
          const long m = coord + 1 < size ? n + stride : n - coord * stride;
          if (m < g_.nodes) g_.add_link(ports[n], ports[m], bw);
        }
        stride *= size;
      }
    }
    std::string shape;
    for (int d : dims) shape += (shape.empty() ? "" : " x ") + std::to_string(d);
    g_.fabric_summary = fmt::format("torus {} ({} positions), no switches; neighbour links {} each (one node's NICs)",
                                    shape, fabric_.capacity_nodes(), gbps(bw));
  }

  static std::string gbps(double Bps) { return fmt::format("{:g} Gb/s", Bps / kGbps); }

  const TopologySpec& topo_;
  const NodeSpec& node_;
  const FabricSpec& fabric_;
  TopologyGraph g_;
  std::vector<std::vector<V>> nics_;  // per node
};

[[noreturn]] void fail(const TopologySpec& topo, int line, std::string field, std::string expected,
                       std::string found) {
  throw InputError({topo.source_file.string(), line, std::move(field), std::move(expected), std::move(found)});
}

GraphVertexId other_end(const TopologyAdjacency& g, TopologyAdjacency::edge_descriptor e, GraphVertexId v) {
  return boost::source(e, g) == v ? boost::target(e, g) : boost::source(e, g);
}

void check_switch_hardware(const TopologyGraph& tg, const TopologySpec& topo) {
  const SwitchSpec& hw = topo.fabric.switch_hw;
  const TopologyAdjacency& g = tg.graph;
  for (GraphVertexId v : boost::make_iterator_range(boost::vertices(g))) {
    if (!is_fabric_switch(g[v].kind)) continue;
    const long ports = long(boost::out_degree(v, g));
    if (hw.radix > 0 && ports > hw.radix)
      fail(topo, yaml_line(topo.source_file, {"fabric", "switch", "radix"}),
           fmt::format("fabric.switch.radix ({})", g[v].name), fmt::format("at most {} ports in use", hw.radix),
           fmt::format("{} ports in use", ports));
    if (hw.port_bw_Bps <= 0) continue;
    for (auto e : boost::make_iterator_range(boost::out_edges(v, g)))
      if (g[e].bw_Bps > hw.port_bw_Bps * (1 + 1e-9))
        fail(topo, yaml_line(topo.source_file, {"fabric", "switch", "port_Gbps"}),
             fmt::format("fabric.switch.port_Gbps ({})", g[v].name),
             fmt::format("links of at most the port speed, {:g} Gb/s", hw.port_bw_Bps / kGbps),
             fmt::format("{} at {:g} Gb/s (from {})", g[e].name, g[e].bw_Bps / kGbps, g[other_end(g, e, v)].name));
  }
}

// A port that should be wired but is not: a switch without links, or (with more than one node) a
// NIC or torus port without a link into the fabric.
void check_wired(const TopologyGraph& tg, const TopologySpec& topo) {
  const TopologyAdjacency& g = tg.graph;
  for (GraphVertexId v : boost::make_iterator_range(boost::vertices(g))) {
    const VertexKind kind = g[v].kind;
    bool wired = true;
    if (is_fabric_switch(kind)) {
      wired = boost::out_degree(v, g) > 0;
    } else if (tg.nodes > 1 && (kind == VertexKind::nic || kind == VertexKind::torus_port)) {
      wired = false;
      for (auto e : boost::make_iterator_range(boost::out_edges(v, g))) {
        const VertexKind far = g[other_end(g, e, v)].kind;
        if (is_fabric_switch(far) || far == VertexKind::torus_port) wired = true;
      }
    }
    if (!wired)
      fail(topo, 0, fmt::format("fabric ({})", g[v].name), "every NIC and switch port wired into the fabric",
           fmt::format("{} {} with no fabric link", to_string(kind), g[v].name));
  }
}

void check_connected(const TopologyGraph& tg, const TopologySpec& topo) {
  const TopologyAdjacency& g = tg.graph;
  if (boost::num_vertices(g) == 0) return;
  std::vector<int> component(boost::num_vertices(g));
  const int count = boost::connected_components(g, component.data());
  if (count <= 1) return;
  const GraphVertexId origin = tg.gpus.empty() ? 0 : tg.gpus.front();
  for (GraphVertexId v : boost::make_iterator_range(boost::vertices(g)))
    if (component[v] != component[origin])
      fail(topo, 0, fmt::format("fabric ({})", g[v].name),
           fmt::format("a connected fabric (every vertex reachable from {})", g[origin].name),
           fmt::format("{} unreachable ({} separate parts)", g[v].name, count));
}

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
  TopologyGraph g = Builder(topo, nodes).build();
  validate_topology_graph(g, topo);
  return g;
}

void validate_topology_graph(const TopologyGraph& g, const TopologySpec& topo) {
  check_switch_hardware(g, topo);
  check_wired(g, topo);
  check_connected(g, topo);
}

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
    for (int k = 0; k < tg.gpus_per_node; ++k) {
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

void write_dot(const TopologyGraph& tg, std::ostream& out) {
  const TopologyAdjacency& g = tg.graph;
  auto quoted = [](const std::string& s) {
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\\\"") : c == '\n' ? std::string(" ") : std::string(1, c);
    return q + "\"";
  };
  auto vertex_writer = [&](std::ostream& os, GraphVertexId v) {
    const VertexKind k = g[v].kind;
    const char* shape = k == VertexKind::gpu ? "box" : k == VertexKind::nic ? "ellipse" : "diamond";
    os << fmt::format("[label={}, kind={}, shape={}]", quoted(g[v].name), to_string(k), shape);
  };
  auto edge_writer = [&](std::ostream& os, TopologyAdjacency::edge_descriptor e) {
    os << fmt::format("[label=\"{:g} GB/s\", bandwidth_Bps={:.0f}]", g[e].bw_Bps / 1e9, g[e].bw_Bps);
  };
  auto graph_writer = [&](std::ostream& os) {
    os << fmt::format("label={};\n", quoted(fmt::format("{} ({} nodes)", tg.topology_name, tg.nodes)));
  };
  boost::write_graphviz(out, g, vertex_writer, edge_writer, graph_writer);
}

}  // namespace dtsim
