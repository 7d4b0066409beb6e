#include "platform_builder.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace dtsim {

namespace sg4 = simgrid::s4u;
using simgrid::kernel::routing::NetPoint;

void configure_network_model(sg4::Engine& engine) {
  engine.set_config("network/model:CM02");
  engine.set_config("network/crosstraffic:0");
  engine.set_config("network/TCP-gamma:0");
  engine.set_config("contexts/stack-size:64");  // KiB per actor: thousands of actors fit easily
}

namespace {

using Dir = sg4::LinkInRoute::Direction;

// One DGX-style node: every GPU reaches every other through its own NVLink (to the NVSwitch),
// and the outside through its NIC (GPU k -> NIC k % nics).
std::pair<NetPoint*, NetPoint*> build_node(sg4::NetZone* fabric, const NodeSpec& spec, int node, double speed,
                                           Platform& out) {
  auto* zone = sg4::create_full_zone(fmt::format("node{}", node));
  zone->set_parent(fabric);
  NetPoint* gateway = zone->create_router(fmt::format("node{}-gw", node));
  std::vector<NetPoint*> gpus(spec.gpus);
  std::vector<sg4::Link*> nvlinks(spec.gpus), nics(spec.nics);
  for (int g = 0; g < spec.gpus; ++g) {
    const int rank = node * spec.gpus + g;
    sg4::Host* host = zone->create_host(fmt::format("gpu{}", rank), speed);
    out.gpus[rank] = host;
    gpus[g] = host->get_netpoint();
    nvlinks[g] = zone->create_split_duplex_link(fmt::format("gpu{}-nvlink", rank), spec.nvlink_bw_Bps)
                     ->set_latency(spec.nvlink_latency_s);
  }
  for (int n = 0; n < spec.nics; ++n)
    nics[n] = zone->create_split_duplex_link(fmt::format("node{}-nic{}", node, n), spec.nic_bw_Bps)
                  ->set_latency(spec.nic_latency_s);
  for (int a = 0; a < spec.gpus; ++a) {
    for (int b = 0; b < spec.gpus; ++b)
      if (a != b) zone->add_route(gpus[a], gpus[b], nullptr, nullptr, {{nvlinks[a], Dir::UP}, {nvlinks[b], Dir::DOWN}}, false);
    sg4::Link* nic = nics[a % spec.nics];
    zone->add_route(gpus[a], gateway, nullptr, nullptr, {{nic, Dir::UP}}, false);
    zone->add_route(gateway, gpus[a], nullptr, nullptr, {{nic, Dir::DOWN}}, false);
  }
  zone->seal();
  return {zone->get_netpoint(), gateway};
}

}  // namespace

Platform build_platform(const TopologySpec& topo, int nodes, double gpu_speed_flops) {
  Platform out;
  out.gpus_per_node = topo.node.gpus;
  out.gpus.resize(size_t(nodes) * topo.node.gpus);

  auto* root = sg4::create_full_zone("cluster");
  const unsigned per_leaf = unsigned(std::min(nodes, topo.fabric.nodes_per_leaf));
  const unsigned leaves = unsigned((nodes + per_leaf - 1) / per_leaf);
  // Every fat-tree link carries one node's worth of NIC bandwidth; a leaf gets enough spine
  // up-links for `oversubscription` to hold: spines = nodes_per_leaf / oversubscription.
  const unsigned spines = std::max(1u, unsigned(per_leaf / topo.fabric.oversubscription + 0.5));
  const sg4::FatTreeParams params = leaves == 1 ? sg4::FatTreeParams(1, {per_leaf}, {1}, {1})
                                                : sg4::FatTreeParams(2, {per_leaf, leaves}, {1, spines}, {1, 1});
  const double node_bw_Bps = topo.node.nic_bw_Bps * topo.node.nics;

  auto make_leaf = [&](sg4::NetZone* fabric, const std::vector<unsigned long>&, unsigned long id)
      -> std::pair<NetPoint*, NetPoint*> {
    if (long(id) >= nodes) return {fabric->create_router(fmt::format("empty-slot{}", id)), nullptr};
    return build_node(fabric, topo.node, int(id), gpu_speed_flops, out);
  };
  auto* fabric = sg4::create_fatTree_zone("fabric", root, params, sg4::ClusterCallbacks(make_leaf), node_bw_Bps,
                                          0.0, sg4::Link::SharingPolicy::SPLITDUPLEX);
  fabric->seal();
  root->seal();
  return out;
}

}  // namespace dtsim
