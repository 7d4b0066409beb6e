#include "platform_builder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "input_error.hpp"
#include "link_names.hpp"
#include "rail_zone.hpp"
#include "tree_fabric_zone.hpp"

namespace dtsim {

namespace sg4 = simgrid::s4u;
using simgrid::kernel::routing::NetPoint;

void configure_network_model(sg4::Engine& engine) {
  engine.set_config("network/model:CM02");
  engine.set_config("network/crosstraffic:0");
  engine.set_config("network/TCP-gamma:0");
  // KiB per actor. SimGrid 3.32 zero-fills each stack when it creates the actor (without a guard
  // page): at 64 KiB that was 38% of a 12,288-GPU run (perf, 2026-11-24) and most of a 131,072-GPU
  // run's memory. The deepest actor stack measured on the stock scenarios, a failure among them,
  // was 3.7 KiB.
  engine.set_config("contexts/stack-size:32");
  // No guard page under each stack: mprotect splits the mapping, two memory maps per actor, and
  // Linux allows 65,530 maps by default (vm.max_map_count), so 32k actors was the ceiling.
  engine.set_config("contexts/guard-size:0");
}

namespace {

using Dir = sg4::LinkInRoute::Direction;
using Leaf = std::pair<NetPoint*, NetPoint*>;  // what a cluster zone's netpoint callback returns

unsigned at_least_one(double x) { return std::max(1u, unsigned(std::lround(x))); }

// The node's CPU: each GPU reaches it over its own PCIe link; the outside over NIC 0.
void add_cpu(sg4::NetZone* zone, const NodeSpec& spec, int node, double cpu_speed, const std::vector<NetPoint*>& gpus,
             NetPoint* gateway, sg4::Link* nic, Platform& out) {
  sg4::Host* cpu = zone->create_host(fmt::format("cpu{}", node), cpu_speed);
  cpu->seal();
  out.cpus[size_t(node)] = cpu;
  for (int g = 0; g < spec.gpus; ++g) {
    const std::string name = link_name(LinkOwner::pcie_of(node * spec.gpus + g));
    sg4::Link* pcie = zone->create_split_duplex_link(name, spec.pcie_bw_Bps)->set_latency(spec.pcie_latency_s);
    zone->add_route(gpus[g], cpu->get_netpoint(), nullptr, nullptr, {{pcie, Dir::UP}}, false);
    zone->add_route(cpu->get_netpoint(), gpus[g], nullptr, nullptr, {{pcie, Dir::DOWN}}, false);
  }
  zone->add_route(cpu->get_netpoint(), gateway, nullptr, nullptr, {{nic, Dir::UP}}, false);
  zone->add_route(gateway, cpu->get_netpoint(), nullptr, nullptr, {{nic, Dir::DOWN}}, false);
}

// One DGX-style node: every GPU reaches every other through its own NVLink (to the NVSwitch),
// and the outside through its NIC (GPU k -> NIC k % nics).
Leaf build_node(sg4::NetZone* fabric, const NodeSpec& spec, int node, double speed, double cpu_speed, Platform& out) {
  auto* zone = sg4::create_full_zone(fmt::format("node{}", node));
  zone->set_parent(fabric);
  NetPoint* gateway = zone->create_router(fmt::format("node{}-gw", node));
  std::vector<NetPoint*> gpus(spec.gpus);
  std::vector<sg4::Link*> nvlinks(spec.gpus), nics(spec.nics);
  for (int g = 0; g < spec.gpus; ++g) {
    const int rank = node * spec.gpus + g;
    sg4::Host* host = zone->create_host(fmt::format("gpu{}", rank), speed);
    host->seal();  // the zone's seal() would only find hosts reachable from the root
    out.gpus[rank] = host;
    gpus[g] = host->get_netpoint();
    nvlinks[g] = zone->create_split_duplex_link(link_name(LinkOwner::nvlink_of(rank)), spec.nvlink_bw_Bps)
                     ->set_latency(spec.nvlink_latency_s);
  }
  for (int n = 0; n < spec.nics; ++n)
    nics[n] = zone->create_split_duplex_link(link_name(LinkOwner::nic_of(node, n)), spec.nic_bw_Bps)
                  ->set_latency(spec.nic_latency_s);
  for (int a = 0; a < spec.gpus; ++a) {
    for (int b = 0; b < spec.gpus; ++b)
      if (a != b) zone->add_route(gpus[a], gpus[b], nullptr, nullptr, {{nvlinks[a], Dir::UP}, {nvlinks[b], Dir::DOWN}}, false);
    sg4::Link* nic = nics[a % spec.nics];
    zone->add_route(gpus[a], gateway, nullptr, nullptr, {{nic, Dir::UP}}, false);
    zone->add_route(gateway, gpus[a], nullptr, nullptr, {{nic, Dir::DOWN}}, false);
  }
  if (cpu_speed > 0) add_cpu(zone, spec, node, cpu_speed, gpus, gateway, nics[0], out);
  zone->seal();
  return {zone->get_netpoint(), gateway};
}

// Netpoint callback shared by the cluster zones: position `node` holds that node when it exists,
// an empty router otherwise (positions beyond `nodes`, dragonfly routers without nodes).
struct NodeMaker {
  const TopologySpec& topo;
  int nodes;
  double speed;
  double cpu_speed;
  Platform& out;
  Leaf operator()(sg4::NetZone* fabric, long node, unsigned long position) const {
    if (node < 0 || node >= nodes) return {fabric->create_router(fmt::format("empty-slot{}", position)), nullptr};
    return build_node(fabric, topo.node, int(node), speed, cpu_speed, out);
  }
};

void build_tree_fabric(sg4::NetZone* parent, const TopologySpec& topo, const NodeMaker& make) {
  auto* zone = new TreeFabricZone("fabric", tree_fabric_params(topo, make.nodes));  // owned by its parent
  zone->set_parent(parent->get_impl());
  zone->create_links();
  for (int n = 0; n < make.nodes; ++n) {
    const auto [node_zone, gateway] = make(zone->get_iface(), n, unsigned(n));
    zone->add_node(n, node_zone, gateway);
  }
  zone->get_iface()->seal();
}

// SimGrid 3.32's DragonflyZone puts the global link from group i to group j on router j of
// chassis 0 of group i, and crashes when a chassis has fewer routers than there are groups.
// Such chassis get extra router positions that hold no node ("phantom" routers, all-to-all
// linked like the others) to carry those global links; real routers keep their nodes.
void build_dragonfly(sg4::NetZone* parent, const FabricSpec& f, const NodeMaker& make, double link_bw_Bps) {
  const unsigned routers = unsigned(std::max(f.routers_per_chassis, f.groups));
  const sg4::DragonflyParams params({unsigned(f.groups), 1}, {unsigned(f.chassis_per_group), 1}, {routers, 1},
                                    unsigned(f.nodes_per_router));
  auto leaf = [&](sg4::NetZone* z, const std::vector<unsigned long>&, unsigned long id) {
    const long per_router = f.nodes_per_router, slot = long(id) % per_router, router = long(id) / per_router;
    const long blade = router % routers, chassis = router / routers;  // chassis counts over all groups
    const long node = blade < f.routers_per_chassis ? (chassis * f.routers_per_chassis + blade) * per_router + slot : -1;
    return make(z, node, id);
  };
  sg4::create_dragonfly_zone("fabric", parent, params, sg4::ClusterCallbacks(leaf), link_bw_Bps, 0.0,
                             sg4::Link::SharingPolicy::SPLITDUPLEX)
      ->seal();
}

void build_torus(sg4::NetZone* parent, const FabricSpec& f, const NodeMaker& make, double link_bw_Bps) {
  const std::vector<unsigned long> dims(f.dimensions.begin(), f.dimensions.end());
  auto leaf = [&](sg4::NetZone* z, const std::vector<unsigned long>&, unsigned long id) { return make(z, long(id), id); };
  sg4::create_torus_zone("fabric", parent, dims, sg4::ClusterCallbacks(leaf), link_bw_Bps, 0.0,
                         sg4::Link::SharingPolicy::SPLITDUPLEX)
      ->seal();
}

// Rail leaves' up-links carry a full group's NIC bandwidth on that rail divided by the
// oversubscription; a last, partial group gets the same up-links.
void build_rails(sg4::NetZone* parent, const TopologySpec& topo, int nodes, double speed, Platform& out) {
  RailFabricParams p;
  p.nodes = nodes;
  p.gpus_per_node = topo.node.gpus;
  p.nodes_per_group = std::min(nodes, topo.fabric.nodes_per_leaf);
  p.nvlink_bw_Bps = topo.node.nvlink_bw_Bps;
  p.nvlink_latency_s = topo.node.nvlink_latency_s;
  p.nic_bw_Bps = topo.node.nic_bw_Bps;
  p.nic_latency_s = topo.node.nic_latency_s;
  p.rail_uplink_bw_Bps = p.nodes_per_group * topo.node.nic_bw_Bps / topo.fabric.oversubscription;
  auto* zone = new RailZone("fabric", p);  // owned by its parent zone from set_parent() on
  zone->set_parent(parent->get_impl());
  out.gpus = zone->populate(speed);
  zone->get_iface()->seal();
}

}  // namespace

TreeFabricParams tree_fabric_params(const TopologySpec& topo, int nodes) {
  const FabricSpec& f = topo.fabric;
  TreeFabricParams p;
  p.nodes = nodes;
  p.nodes_per_leaf = std::min(nodes, f.nodes_per_leaf);
  p.routing = f.routing;
  p.node_bw_Bps = p.up1_bw_Bps = p.up2_bw_Bps = topo.node.nic_aggregate_bw_Bps();
  const int leaves = (nodes + p.nodes_per_leaf - 1) / p.nodes_per_leaf;
  if (f.kind == FabricKind::spine_leaf) {
    p.up1 = f.spines;
    p.up1_bw_Bps = f.uplink_bw_Bps;
    return p;
  }
  p.up1 = int(at_least_one(f.nodes_per_leaf / f.oversubscription));
  if (f.tiers == 3 && leaves > f.leaves_per_pod) {
    p.leaves_per_pod = f.leaves_per_pod;
    p.up2 = int(at_least_one(f.leaves_per_pod / f.pod_oversubscription));
  }
  return p;
}

Platform build_platform(const TopologySpec& topo, int nodes, double gpu_speed_flops, double cpu_speed) {
  check_node_count(topo, nodes, "the platform");
  if (cpu_speed > 0 && topo.fabric.kind == FabricKind::rail_optimized)
    throw InputError({topo.source_file.string(), 0, "fabric.kind", "a fabric of node zones for parameter servers",
                      "rail_optimized"});
  Platform out;
  out.gpus_per_node = topo.node.gpus;
  out.gpus.resize(size_t(nodes) * topo.node.gpus);
  if (cpu_speed > 0) out.cpus.resize(size_t(nodes));
  auto* root = sg4::create_full_zone("cluster");
  // SimGrid 3.32 checks each new host's and link's name, and seals each zone, by walking every
  // zone reachable from the root: with thousands of node zones under the root that is quadratic
  // (17 s for 2048 nodes). So the fabric is built under a holder zone that the root does not
  // see yet (it gets the root's models by hand; names are unique by construction) and the
  // holder is attached to the root once the fabric is complete.
  auto* holder = sg4::create_full_zone("fabric-holder");
  simgrid::kernel::routing::NetZoneImpl *h = holder->get_impl(), *r = root->get_impl();
  h->set_network_model(r->get_network_model());
  h->set_cpu_pm_model(r->get_cpu_pm_model());
  h->set_cpu_vm_model(r->get_cpu_vm_model());
  h->set_disk_model(r->get_disk_model());
  h->set_host_model(r->get_host_model());
  const NodeMaker make{topo, nodes, gpu_speed_flops, cpu_speed, out};
  const double node_bw_Bps = topo.node.nic_aggregate_bw_Bps();
  switch (topo.fabric.kind) {
    case FabricKind::fat_tree:
    case FabricKind::spine_leaf: build_tree_fabric(holder, topo, make); break;
    case FabricKind::dragonfly: build_dragonfly(holder, topo.fabric, make, node_bw_Bps); break;
    case FabricKind::torus: build_torus(holder, topo.fabric, make, node_bw_Bps); break;
    case FabricKind::rail_optimized: build_rails(holder, topo, nodes, gpu_speed_flops, out); break;
  }
  holder->set_parent(root);
  root->seal();
  return out;
}

}  // namespace dtsim
