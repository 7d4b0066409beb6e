#pragma once
// A fat_tree or spine_leaf fabric as one custom SimGrid zone whose children are the node zones
// (platform_builder.cpp builds them), so that the route between two nodes can take the
// fabric's routing into account (topology_spec.hpp, FabricRouting). SimGrid's own fat-tree
// zone only routes by D-mod-K.
//
// Links (split-duplex, no latency: latency sits on the nodes' NVLink and NIC links):
//   node n  <-> its leaf                     "node<n>-leaf"            node_bw
//   leaf l  <-> tier-2 switch j (j < up1)     "leaf<l>-up<j>"          up1_bw
//   tier-2 switch j of pod p <-> core c       "pod<p>-up<j>-<c>"        up2_bw   (3 tiers)
// and, for adaptive routing, the same up-links as one bundle per leaf and per pod, of their
// summed bandwidth ("leaf<l>-up", "pod<p>-up"): adaptive routing sends each packet on the
// least-loaded of the equal-cost ports, which the fluid model reads as perfect load balancing.
//
// Routes between nodes n -> m (leaf L(n), pod P(n)):
//   same leaf          node(n) UP, node(m) DOWN
//   same pod           + leaf(L(n)) up j UP, leaf(L(m)) up j DOWN
//   other pods         + pod(P(n)) up (j, c) UP, pod(P(m)) up (j, c) DOWN
// where j and c are: static  j = m mod up1, c = (m / up1) mod up2 (D-mod-K, as SimGrid);
//                    ecmp    a hash of (n, m) per tier;   adaptive  the bundles instead.
// A node zone's traffic is one node's: the fabric links carry a node's aggregate NIC
// bandwidth, so ECMP hashes the traffic of a node pair (all its channels) as one flow.
#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u/Link.hpp>

#include <string>
#include <vector>

#include "topology_spec.hpp"

namespace dtsim {

struct TreeFabricParams {
  int nodes = 1;
  int nodes_per_leaf = 1;
  int leaves_per_pod = 0;  // 0: two tiers (or one leaf)
  int up1 = 1;             // up-links per leaf (to the spines, or to the pod's aggregation switches)
  int up2 = 1;             // up-links per aggregation switch to the cores (3 tiers)
  double node_bw_Bps = 0, up1_bw_Bps = 0, up2_bw_Bps = 0;
  FabricRouting routing = FabricRouting::static_routing;
};

class TreeFabricZone final : public simgrid::kernel::routing::NetZoneImpl {
 public:
  TreeFabricZone(const std::string& name, const TreeFabricParams& params);

  // Creates the fabric's links. Call after set_parent() and before the node zones are added.
  void create_links();
  // Node `node`'s zone (a child of this zone) and its gateway router.
  void add_node(int node, simgrid::kernel::routing::NetPoint* zone, simgrid::kernel::routing::NetPoint* gateway);

  void get_local_route(const simgrid::kernel::routing::NetPoint* src, const simgrid::kernel::routing::NetPoint* dst,
                       simgrid::kernel::routing::Route* into, double* latency) override;

  // The tier-2 and core up-link indices (j, c) the route from node `from` to node `to` takes
  // (static and ecmp routing; for tests and the report).
  std::pair<int, int> up_ports(int from, int to) const;

 private:
  struct Duplex {
    simgrid::s4u::Link* up = nullptr;
    simgrid::s4u::Link* down = nullptr;
  };
  Duplex make_duplex(const std::string& name, double bw_Bps);
  int node_of(const simgrid::kernel::routing::NetPoint* p) const;
  int leaves() const;
  int pods() const;

  TreeFabricParams p_;
  std::vector<int> node_of_id_;  // netpoint id -> node
  std::vector<simgrid::kernel::routing::NetPoint*> gateways_;
  std::vector<Duplex> node_links_;
  std::vector<Duplex> leaf_up_;  // leaf * up1 + j (static, ecmp) or leaf (adaptive)
  std::vector<Duplex> pod_up_;   // (pod * up1 + j) * up2 + c (static, ecmp) or pod (adaptive)
};

}  // namespace dtsim
