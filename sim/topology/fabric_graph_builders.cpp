// Builds the vertices and links of a topology graph, per fabric kind; see topology_graph.hpp.
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
#include "fabric_graph_builders.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "topology_graph_detail.hpp"

namespace dtsim::detail {

namespace {

// "1 leaf", "2 leaves"
std::string count(long n, const char* one, const char* many) { return fmt::format("{} {}", n, n == 1 ? one : many); }
long ceil_div(long a, long b) { return (a + b - 1) / b; }
// Ports (one per upper switch) needed for `ports` worth of NIC-speed bandwidth: rounded up, >= 1.
long ports_needed(double ports) { return std::max(1L, long(std::ceil(ports - 1e-9))); }

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

}  // namespace

TopologyGraph wire_topology_graph(const TopologySpec& topo, long nodes) { return Builder(topo, nodes).build(); }

}  // namespace dtsim::detail
